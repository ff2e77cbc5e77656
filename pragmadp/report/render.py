"""`--report FILE`: the file extension picks the format; the file is written whole or not at all.

The same renderers serve `pdcc report DIR -o FILE`, which merges the unit reports of a whole build
(`write_build_report`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from pragmadp.ir import Knob
from pragmadp.report import rules
from pragmadp.report.atomic import write_atomically
from pragmadp.report.build import BuildView
from pragmadp.report.collect import Unit, absolute
from pragmadp.report.html_report import render_html
from pragmadp.report.json_report import render_json, render_json_build
from pragmadp.report.markdown import render_markdown_build
from pragmadp.report.remarks import CommandError, Remark
from pragmadp.report.sarif import render_sarif

__all__ = ["check_report_format", "check_report_path", "write_atomically", "write_report", "write_build_report", "render_build"]

# (view, tool version, folder of the report file, bench results) -> text
_Renderer = Callable[[BuildView, str, str, Sequence[tuple[str, Any]]], str]

# Longest suffix first, so `.sarif.json` is SARIF and not plain JSON.
_RENDERERS: list[tuple[str, _Renderer]] = [
    (".sarif.json", lambda view, version, _base, _bench: render_sarif(view.remarks, version, view.root)),
    (".sarif", lambda view, version, _base, _bench: render_sarif(view.remarks, version, view.root)),
    (".json", lambda view, version, _base, _bench: render_json_build(view, version)),
    (".markdown", lambda view, version, base, _bench: render_markdown_build(view, version, base)),
    (".md", lambda view, version, base, _bench: render_markdown_build(view, version, base)),
    (".html", lambda view, version, _base, bench: render_html(view, version, bench)),
]


def _renderer_for(path: str) -> _Renderer:
    name = path.lower()
    for suffix, renderer in _RENDERERS:
        if name.endswith(suffix):
            return renderer
    raise CommandError(rules.OUTPUT_FAILED, "report-format", report=path,
                       extensions=", ".join(suffix for suffix, _ in _RENDERERS))


def check_report_format(path: str) -> None:
    """Raises a CommandError (PDCC304) when the extension of `path` names no report format."""
    _renderer_for(path)


def check_report_path(path: str) -> None:
    """Raises a CommandError (PDCC304), before anything is compiled, when `path` cannot take a report: an
    unknown extension, a directory, or a folder that does not exist or cannot be written."""
    _renderer_for(path)
    if os.path.isdir(path):
        raise CommandError(rules.OUTPUT_FAILED, "report-is-directory", report=path)
    directory, named = os.path.dirname(os.path.abspath(path)), os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise CommandError(rules.OUTPUT_FAILED, "report-no-directory", report=path, directory=named)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CommandError(rules.OUTPUT_FAILED, "report-unwritable", report=path, directory=named)


def render_build(path: str, view: BuildView, tool_version: str, bench: Sequence[tuple[str, Any]] = ()) -> str:
    """The report `path`'s extension asks for (CommandError PDCC304 for an unknown one). `bench` are
    (name, parsed JSON) of bench or tune results, shown by the HTML report."""
    return _renderer_for(path)(view, tool_version, os.path.dirname(os.path.abspath(path)), bench)


def write_build_report(path: str, view: BuildView, tool_version: str, bench: Sequence[tuple[str, Any]] = ()) -> None:
    """Render first, then write atomically (a failure leaves an existing report untouched)."""
    text = render_build(path, view, tool_version, bench)
    write_atomically(path, text.encode("utf-8"))


def write_report(path: str, remarks: Sequence[Remark], tool_version: str, root_dir: str,
                 knobs: Sequence[Knob] = (), units: Sequence[Unit] | None = None) -> None:
    """Render first, then write atomically, so a failure at any point leaves an existing report
    untouched. Raises CommandError for an unknown extension, OSError when the file cannot be written.

    `units` (collect.make_unit, one per translation unit of the command) carry the sources, for the diffs of
    the Markdown and HTML reports; remarks of `remarks` that no unit holds (the build's own) are kept too.
    """
    _renderer_for(path)
    if units is None:
        view = BuildView.from_remarks(remarks, root_dir, knobs, tool_version)
    else:
        cwd = os.getcwd()
        held = {_identity(remark, cwd) for unit in units for remark in unit.remarks}
        loose = [remark for remark in remarks if _identity(remark, cwd) not in held]
        extra = BuildView.from_remarks(loose, root_dir, (), tool_version).units if loose else []
        view = BuildView([*units, *extra], root_dir, tool_version)
    if path.lower().endswith(".json") and not path.lower().endswith(".sarif.json") and units is None:
        text = render_json(remarks, tool_version, knobs)   # one command: remarks in the order pdcc made them
    else:
        text = render_build(path, view, tool_version)
    write_atomically(path, text.encode("utf-8"))


def _identity(remark: Remark, cwd: str) -> tuple[str, str, int, int, str]:
    return remark.rule.id, absolute(remark.location.file, cwd), remark.location.line, remark.location.column, \
        remark.message
