"""pdcc's settings from outside its command line: environment variables and a configuration file.

A build system does not always let a user put pdcc's options on the command line: in CMake's launcher style
(`CMAKE_CUDA_COMPILER_LAUNCHER=pdcc`) the options of `CMAKE_CUDA_FLAGS` also reach nvcc in try_compile, and a
Makefile may say only `NVCC=pdcc`. So every setting a whole build wants is also read from

1. the environment: `PDCC_AUTO`, `PDCC_REPORT_DIR`, `PDCC_NVCC`, `PDCC_REMARKS`, `PDCC_WERROR_MISSED`,
   `PDCC_QUIET`;
2. a file: `pdcc.toml`, or the `[tool.pdcc]` table of a `pyproject.toml`, the first of them found in the
   working directory or one of its parents (a `pyproject.toml` without `[tool.pdcc]` is passed over);
   `PDCC_CONFIG=FILE` names the file instead, `PDCC_CONFIG=none` reads none.

The command line beats the environment, which beats the file. Paths in a file are relative to the file's folder.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pragmadp.report import rules
from pragmadp.report.remarks import CommandError

CONFIG_NAME = "pdcc.toml"
PYPROJECT = "pyproject.toml"
#: the remark kinds -Rpass-X=REGEX filters (LLVM's names: -Rpass, -Rpass-missed, -Rpass-analysis)
REMARK_KINDS = ("pass", "missed", "analysis")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")
#: every setting: (key in a file, environment variable, what its value is)
SETTINGS = (
    ("auto", "PDCC_AUTO", "true, false or the clauses for --auto (e.g. \"threshold(64)\")"),
    ("report-dir", "PDCC_REPORT_DIR", "a folder for one report per translation unit"),
    ("nvcc", "PDCC_NVCC", "the nvcc to run"),
    ("remarks", "PDCC_REMARKS", "-Rpass options (a table pass/missed/analysis of regular expressions in a file)"),
    ("werror-missed", "PDCC_WERROR_MISSED", "true or false"),
    ("quiet", "PDCC_QUIET", "true or false"),
)


@dataclass
class Layer:
    """The settings one source gives; None where it says nothing. `origin` names the source in messages."""

    origin: str
    auto: str | bool | None = None     # clauses, or True for the default clauses, or False: off
    report_dir: str | None = None
    nvcc: str | None = None
    remarks: dict[str, str] = field(default_factory=dict)   # kind ("pass", "missed", "analysis") -> regex
    werror_missed: bool | None = None
    quiet: bool | None = None


def from_environment(environ: Mapping[str, str]) -> Layer:
    """The settings of the `PDCC_*` variables (an empty variable says nothing)."""
    layer = Layer("the environment")
    if environ.get("PDCC_AUTO"):
        value = environ["PDCC_AUTO"].strip()
        layer.auto = True if value.lower() in _TRUE else False if value.lower() in _FALSE else value
    layer.report_dir = environ.get("PDCC_REPORT_DIR") or None
    layer.nvcc = environ.get("PDCC_NVCC") or None
    for word in shlex.split(environ.get("PDCC_REMARKS", "")):
        kind, regex = remark_option(word)
        if kind is None or "=" not in word:
            raise CommandError(rules.BAD_COMMAND_LINE, "environment", variable="PDCC_REMARKS", value=word,
                               expected="-Rpass=REGEX, -Rpass-missed=REGEX or -Rpass-analysis=REGEX")
        layer.remarks[kind] = regex
    layer.werror_missed = _environment_flag(environ, "PDCC_WERROR_MISSED")
    layer.quiet = _environment_flag(environ, "PDCC_QUIET")
    return layer


def remark_option(argument: str) -> tuple[str | None, str]:
    """`-Rpass-missed=REGEX` -> ("missed", REGEX); (None, "") for anything else."""
    name, _, regex = argument.partition("=")
    for kind in REMARK_KINDS:
        if name == ("-Rpass" if kind == "pass" else f"-Rpass-{kind}"):
            return kind, regex
    return None, ""


def _environment_flag(environ: Mapping[str, str], variable: str) -> bool | None:
    value = environ.get(variable)
    if value is None or value == "":
        return None
    if value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise CommandError(rules.BAD_COMMAND_LINE, "environment", variable=variable, value=value, expected="1 or 0")


def find_file(start: str, environ: Mapping[str, str]) -> Path | None:
    """The configuration file: PDCC_CONFIG's, else the first pdcc.toml (or pyproject.toml with [tool.pdcc]) in
    `start` or above."""
    named = environ.get("PDCC_CONFIG")
    if named is not None:
        return None if named.strip().lower() in ("", "none") else Path(named)
    directory = Path(os.path.abspath(start))
    for folder in (directory, *directory.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and _has_pdcc_table(pyproject):
            return pyproject
    return None


def _has_pdcc_table(pyproject: Path) -> bool:
    try:
        data = pyproject.read_bytes()
    except OSError:
        return False
    if b"tool.pdcc" not in data and b"[tool]" not in data:  # the common case, without parsing every pyproject
        return False
    try:
        return isinstance(tomllib.loads(data.decode("utf-8")).get("tool", {}).get("pdcc"), dict)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def from_file(path: Path) -> Layer:
    """The settings of a pdcc.toml (its top level) or a pyproject.toml (its [tool.pdcc])."""
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise CommandError(rules.BAD_COMMAND_LINE, "config-unreadable", path=str(path),
                           reason=exc.strerror or str(exc)) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CommandError(rules.BAD_COMMAND_LINE, "config-unreadable", path=str(path), reason=str(exc)) from exc
    table: Any = data.get("tool", {}).get("pdcc", {}) if path.name == PYPROJECT else data
    where = f"{path} [tool.pdcc]" if path.name == PYPROJECT else str(path)
    layer = Layer(where)
    base = path.parent
    known = [key for key, _, _ in SETTINGS]
    for key, value in table.items():
        if key not in known:
            raise CommandError(rules.BAD_COMMAND_LINE, "config-key", path=where, key=key, known=", ".join(known))
        if key == "auto":
            layer.auto = value if isinstance(value, bool) else _string(where, key, value)
            if isinstance(layer.auto, str) and layer.auto.startswith("@"):
                layer.auto = "@" + str(base / layer.auto[1:])
        elif key == "report-dir":
            layer.report_dir = str(base / _string(where, key, value))
        elif key == "nvcc":
            nvcc = _string(where, key, value)
            layer.nvcc = str(base / nvcc) if os.sep in nvcc else nvcc  # a bare name is looked up on PATH
        elif key == "remarks":
            layer.remarks = _remarks(where, value)
        elif key == "werror-missed":
            layer.werror_missed = _boolean(where, key, value)
        elif key == "quiet":
            layer.quiet = _boolean(where, key, value)
    return layer


def _expected(key: str) -> str:
    return next(what for name, _, what in SETTINGS if name == key)


def _string(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise CommandError(rules.BAD_COMMAND_LINE, "config-type", path=where, key=key, expected=_expected(key),
                           found=type(value).__name__)
    return value


def _boolean(where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise CommandError(rules.BAD_COMMAND_LINE, "config-type", path=where, key=key, expected=_expected(key),
                           found=type(value).__name__)
    return value


def _remarks(where: str, value: Any) -> dict[str, str]:
    expected = "a table of regular expressions: pass, missed, analysis"
    if not isinstance(value, dict):
        raise CommandError(rules.BAD_COMMAND_LINE, "config-type", path=where, key="remarks", expected=expected,
                           found=type(value).__name__)
    for kind, regex in value.items():  # the entry that is wrong, by name
        if kind not in REMARK_KINDS or not isinstance(regex, str):
            raise CommandError(rules.BAD_COMMAND_LINE, "config-type", path=where, key=f"remarks.{kind}",
                               expected="a regular expression" if kind in REMARK_KINDS else
                               f"one of {', '.join(REMARK_KINDS)} ({expected})",
                               found=type(regex).__name__ if kind in REMARK_KINDS else f"key '{kind}'")
    return dict(value)


def layers(cwd: str, environ: Mapping[str, str]) -> list[Layer]:
    """The file's layer (if any) then the environment's: later layers win."""
    found = find_file(cwd, environ)
    return ([from_file(found)] if found is not None else []) + [from_environment(environ)]
