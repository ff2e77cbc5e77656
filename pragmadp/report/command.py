"""`pdcc report DIR -o review.{md,sarif,json,html} [--report-root ROOT] [--bench FILE]...`

Merges the unit reports a build wrote with `--report-dir DIR` (one per translation unit, see collect.py)
into one report of the whole build; the output's extension picks the format. Paths are relative to
ROOT (default: the current directory when every source is under it, else the folder all sources share).
`--bench FILE` (repeatable) adds bench or `pdcc tune` results to the HTML report.

Exit status: 0 when the report is written; 1 when the directory holds no unit report, a unit report or a
results file cannot be read, or the output cannot be written; 2 for a malformed command line or an output
whose extension names no format.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from pragmadp import __version__
from pragmadp.report import rules
from pragmadp.report.build import BuildView
from pragmadp.report.collect import UnitFileError, read_unit, unit_files
from pragmadp.report.remarks import CommandError
from pragmadp.report.render import check_report_format, check_report_path, render_build
from pragmadp.report.atomic import write_atomically
from pragmadp.report.terminal import print_diagnostic

USAGE = """\
usage: pdcc report DIR -o FILE [--report-root ROOT] [--bench FILE]...

Merges the unit reports a build wrote with --report-dir DIR into one report; FILE's extension picks the
format: .md (Markdown), .sarif (SARIF 2.1.0), .json, .html (a self-contained page).
  -o, --output FILE    the report to write
  --report-root ROOT   paths are shown relative to ROOT (default: the current directory, or the folder
                       all sources share when some are outside it)
  --bench FILE         bench or `pdcc tune` results (JSON) to show in the HTML report; repeatable
"""


@dataclass
class Arguments:
    directory: str = ""
    output: str = ""
    root: str | None = None
    bench: list[str] = field(default_factory=list)
    help: bool = False


class UsageError(CommandError):
    """A malformed `pdcc report` command line (exit status 2)."""


def parse_arguments(argv: Sequence[str]) -> Arguments:
    arguments = Arguments()
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        name, has_value, value = arg.partition("=") if arg.startswith("--") else (arg, False, "")
        if arg in ("-h", "--help"):
            arguments.help = True
        elif name in ("-o", "--output", "--report-root", "--bench"):
            if not has_value:
                if not rest:
                    raise UsageError(rules.REPORT_INPUT, "needs-value", option=name)
                value = rest.pop(0)
            if name == "--report-root":
                arguments.root = value
            elif name == "--bench":
                arguments.bench.append(value)
            else:
                arguments.output = value
        elif arg.startswith("-o") and len(arg) > 2:
            arguments.output = arg[2:]
        elif arg.startswith("-") and arg != "-":
            raise UsageError(rules.REPORT_INPUT, "unknown-option", option=arg)
        elif arguments.directory:
            raise UsageError(rules.REPORT_INPUT, "extra-argument", argument=arg)
        else:
            arguments.directory = arg
    if not arguments.help and (not arguments.directory or not arguments.output):
        raise UsageError(rules.REPORT_INPUT, "usage")
    return arguments


def _read_bench(path: str) -> tuple[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            return os.path.basename(path), json.load(handle)
    except OSError as exc:
        raise CommandError(rules.REPORT_INPUT, "bench", path=path, reason=exc.strerror or str(exc)) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CommandError(rules.REPORT_INPUT, "bench", path=path, reason=f"not JSON ({exc})") from exc


def load_view(directory: str, root: str | None = None) -> BuildView:
    """Every unit report of `directory`, merged; CommandError (PDCC306) when there is none or one is bad."""
    if not os.path.exists(directory):
        raise CommandError(rules.REPORT_INPUT, "no-directory", directory=directory)
    if not os.path.isdir(directory):
        raise CommandError(rules.REPORT_INPUT, "not-a-directory", directory=directory)
    try:
        names = unit_files(directory)
    except OSError as exc:
        raise CommandError(rules.REPORT_INPUT, "unreadable-directory", directory=directory,
                           reason=exc.strerror or str(exc)) from exc
    if not names:
        raise CommandError(rules.REPORT_INPUT, "empty", directory=directory)
    units = []
    for name in names:
        try:
            units.append(read_unit(name))
        except OSError as exc:
            raise CommandError(rules.REPORT_INPUT, "bad-unit", path=name, reason=exc.strerror or str(exc)) from exc
        except UnitFileError as exc:
            raise CommandError(rules.REPORT_INPUT, "bad-unit", path=name, reason=str(exc)) from exc
    units.sort(key=lambda unit: unit.path)
    return BuildView(units, root, __version__)


def main(argv: list[str], err: Console | None = None) -> int:
    """`pdcc report ...` (argv without `report`): an exit status for every outcome."""
    err = err or Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        arguments = parse_arguments(argv)
        if arguments.help:
            sys.stdout.write(USAGE)
            return 0
        check_report_format(arguments.output)
    except CommandError as exc:   # a malformed command line, an output format that does not exist
        print_diagnostic(err, exc.render_text())
        return 2
    try:
        check_report_path(arguments.output)
        view = load_view(arguments.directory, arguments.root)
        bench = [_read_bench(path) for path in arguments.bench]
        text = render_build(arguments.output, view, __version__, bench)
    except CommandError as exc:
        print_diagnostic(err, exc.render_text())
        return 1
    try:
        write_atomically(arguments.output, text.encode("utf-8"))
    except OSError as exc:
        print_diagnostic(err, CommandError(rules.OUTPUT_FAILED, "report", report=arguments.output,
                                           reason=exc.strerror or str(exc)).render_text())
        return 1
    return 0
