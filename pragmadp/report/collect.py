"""`--report-dir DIR`: one self-contained JSON file per translation unit, merged later by `pdcc report`.

A build runs one pdcc per translation unit, often many at once (`make -j`, Ninja), and a link step after
them: a single `--report FILE` would be overwritten by each of them. With a report directory every pdcc
writes the file of its own unit, named after the unit's source path (a readable stem and a hash of the
absolute path), through a temporary file renamed over it, so concurrent writers never see or leave a
partial file and a rebuild replaces the unit's previous file.

A plain `--report FILE` keeps its units the same way, in a folder beside it (`.FILE.pdcc-units`), so every
compile of a build that passes the same `--report` (CMAKE_CUDA_FLAGS, a Makefile's NVCC) adds its unit to
FILE instead of overwriting it: `accumulated` writes the command's units and reads them all back under a
lock, and the report is rendered from what it returns.

A unit file holds everything a report needs without the sources at hand: every remark with its rule, its
location (as pdcc printed it and absolute), its named arguments and its help line; the sites' knobs; and
the original and transformed text of the unit, from which the reports compute a diff per site.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pragmadp import __version__
from pragmadp.ir import Knob
from pragmadp.report import rules
from pragmadp.report.json_report import count_kinds
from pragmadp.report.remarks import Kind, Location, Remark, Rule
from pragmadp.report.atomic import write_atomically

FORMAT = "pdcc-unit-report"
FORMAT_VERSION = 1
SUFFIX = ".pdcc.json"
_STEM = re.compile(r"[^A-Za-z0-9._+-]+")
_RULES = {rule.id: rule for rule in rules.ALL_RULES}


@dataclass
class Unit:
    """One translation unit's report: what pdcc said about it and what it made of it."""

    source: str                  # the path as pdcc was given it
    path: str                    # absolute and normalised
    cwd: str                     # where pdcc ran (remark paths as printed are relative to it)
    remarks: list[Remark] = field(default_factory=list)   # locations absolute
    knobs: list[Knob] = field(default_factory=list)
    original: str | None = None
    transformed: str | None = None
    tool_version: str = __version__

    @property
    def changed(self) -> bool:
        return self.transformed is not None and self.original is not None and self.transformed != self.original


def absolute(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def make_unit(source_path: str, remarks: Sequence[Remark], knobs: Sequence[Knob], transformed_text: str | None,
              original_text: str | None, cwd: str | None = None) -> Unit:
    """A unit in memory (what `write_unit` writes); remark locations become absolute paths."""
    cwd = cwd or os.getcwd()
    located = [replace(remark, location=replace(remark.location, file=absolute(remark.location.file, cwd)))
               for remark in remarks]
    return Unit(source_path, absolute(source_path, cwd), cwd, located, list(knobs), original_text, transformed_text)


def unit_file_name(source_path: str, cwd: str | None = None) -> str:
    """`kernels.cu-3f2a9c01b7d4.pdcc.json`: the source's name (made safe) and a hash of its absolute path,
    so two `kernels.cu` in different folders get different files and a rebuild replaces its own."""
    path = absolute(source_path, cwd or os.getcwd())
    stem = _STEM.sub("_", os.path.basename(path))[:60] or "unit"
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:12]
    return f"{stem}-{digest}{SUFFIX}"


def write_unit(directory: str, source_path: str, remarks: Sequence[Remark], knobs: Sequence[Knob],
               transformed_text: str | None, original_text: str | None) -> None:
    """Writes the report of one translation unit into `directory` (created if missing), atomically:
    concurrent pdcc processes each replace their own file whole. Raises OSError when it cannot."""
    os.makedirs(directory, exist_ok=True)
    _write_unit_file(directory, make_unit(source_path, remarks, knobs, transformed_text, original_text))


def _write_unit_file(directory: str, unit: Unit) -> None:
    data = json.dumps(unit_to_dict(unit), indent=1, ensure_ascii=False, default=str) + "\n"
    write_atomically(os.path.join(directory, unit_file_name(unit.path, unit.cwd)), data.encode("utf-8"))


def units_beside(report: str) -> str:
    """The folder that keeps the units of `--report FILE` across the commands of a build."""
    folder, name = os.path.split(os.path.abspath(report))
    return os.path.join(folder, f".{name}.pdcc-units")


@contextlib.contextmanager
def _locked(directory: str) -> Iterator[None]:
    """An exclusive lock on `directory` (created if missing): one pdcc at a time writes and renders."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def accumulated(report: str, units: Sequence[Unit]) -> Iterator[list[Unit]]:
    """The units of every command that wrote `report` so far, this command's `units` among them (replacing
    their earlier files), held under the report's lock while the caller renders and writes the report, so
    that the last of concurrent writers renders every unit. Raises OSError when the folder cannot be used."""
    directory = units_beside(report)
    with _locked(directory):
        for unit in units:
            _write_unit_file(directory, unit)
        yield read_units(directory)


# --- the file format ------------------------------------------------------------------------------------

def remark_to_dict(remark: Remark) -> dict[str, Any]:
    loc = remark.location
    return {
        "kind": remark.kind.value,
        "ruleId": remark.rule.id,
        "rule": remark.rule.name,
        "ruleSummary": remark.rule.summary,
        "pass": remark.pass_name,
        "message": remark.message,
        "file": loc.file,
        "line": loc.line,
        "column": loc.column,
        "endLine": loc.end_line,
        "endColumn": loc.end_column,
        "function": remark.function,
        "site": remark.site,
        "args": dict(remark.args),
        "hint": remark.hint,
        "sourceLine": remark.source_line,
        "caretLength": remark.caret_length,
    }


def remark_from_dict(data: dict[str, Any]) -> Remark:
    """The remark back, with its catalogue rule (a rule this pdcc does not know is rebuilt from the file)."""
    rule = _RULES.get(data["ruleId"]) or Rule(data["ruleId"], data.get("rule", ""), data.get("ruleSummary", ""))
    location = Location(data["file"], int(data["line"]), int(data["column"]), data.get("endLine"),
                        data.get("endColumn"))
    return Remark(Kind(data["kind"]), rule, data["message"], location, pass_name=data.get("pass", ""),
                  function=data.get("function", ""), site=data.get("site", ""), args=dict(data.get("args") or {}),
                  source_line=data.get("sourceLine", ""), caret_length=int(data.get("caretLength", 1)),
                  hint=data.get("hint", ""))


def knob_from_dict(data: dict[str, Any]) -> Knob:
    return Knob(data["macro"], str(data["default"]), data["kind"], (int(data["min"]), int(data["max"])))


def unit_to_dict(unit: Unit) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "tool": {"name": "pdcc", "version": unit.tool_version},
        "source": unit.source,
        "path": unit.path,
        "cwd": unit.cwd,
        "summary": count_kinds(unit.remarks),
        "remarks": [remark_to_dict(remark) for remark in unit.remarks],
        "knobs": [knob.to_dict() for knob in unit.knobs],
        "original": unit.original,
        "transformed": unit.transformed,
    }


class UnitFileError(ValueError):
    """A file in the report directory that is not a unit report pdcc can read."""


def unit_from_dict(data: Any) -> Unit:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UnitFileError("not a pdcc unit report")
    if data.get("version") != FORMAT_VERSION:
        raise UnitFileError(f"unit report version {data.get('version')!r}; this pdcc reads version {FORMAT_VERSION}")
    try:
        return Unit(
            source=data["source"], path=data["path"], cwd=data["cwd"],
            remarks=[remark_from_dict(item) for item in data["remarks"]],
            knobs=[knob_from_dict(item) for item in data["knobs"]],
            original=data.get("original"), transformed=data.get("transformed"),
            tool_version=data.get("tool", {}).get("version", ""))
    except (KeyError, TypeError, ValueError) as exc:
        raise UnitFileError(f"malformed unit report ({type(exc).__name__}: {exc})") from exc


def read_unit(path: str) -> Unit:
    """Raises OSError when the file cannot be read, UnitFileError when it is not a unit report."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UnitFileError(f"not JSON ({exc})") from exc
    return unit_from_dict(data)


def unit_files(directory: str) -> list[str]:
    """The unit reports of `directory`, by name (temporary files of writers still at work are not listed)."""
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(SUFFIX) and not name.startswith("."))


def read_units(directory: str) -> list[Unit]:
    """Every unit of `directory`, in a deterministic order (by absolute source path, then file name)."""
    units = [(unit.path, name, unit) for name in unit_files(directory) for unit in (read_unit(name),)]
    return [unit for _, _, unit in sorted(units, key=lambda item: (item[0], item[1]))]
