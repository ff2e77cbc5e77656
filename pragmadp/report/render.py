"""`--report FILE`: the file extension picks the format; the file is written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence

from pragmadp.ir import Knob
from pragmadp.report.json_report import render_json
from pragmadp.report.markdown import render_markdown
from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Remark
from pragmadp.report.sarif import render_sarif

_Renderer = Callable[[Sequence[Remark], str, str, Sequence[Knob]], str]


def _without_root(render: Callable[[Sequence[Remark], str], str]) -> _Renderer:
    """Formats that print paths as given take no root; adapt them to the common call."""
    return lambda remarks, tool_version, _root_dir, _knobs: render(remarks, tool_version)


def _with_knobs(remarks: Sequence[Remark], tool_version: str, _root_dir: str, knobs: Sequence[Knob]) -> str:
    return render_json(remarks, tool_version, knobs)


# Longest suffix first, so `.sarif.json` is SARIF and not plain JSON.
_RENDERERS: list[tuple[str, _Renderer]] = [
    (".sarif.json", lambda remarks, version, root, _knobs: render_sarif(remarks, version, root)),
    (".sarif", lambda remarks, version, root, _knobs: render_sarif(remarks, version, root)),
    (".json", _with_knobs),
    (".markdown", _without_root(render_markdown)),
    (".md", _without_root(render_markdown)),
]


def _renderer_for(path: str) -> _Renderer:
    name = path.lower()
    for suffix, renderer in _RENDERERS:
        if name.endswith(suffix):
            return renderer
    raise CommandError(rules.OUTPUT_FAILED, "report-format", report=path,
                       extensions=", ".join(suffix for suffix, _ in _RENDERERS))


def _new_file_mode() -> int:
    """The mode open() would give a new file; mkstemp's 0600 would hide reports from CI users."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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


def write_atomically(path: str, data: bytes) -> None:
    """Writes a temp file beside `path` and renames it over, so a failure at any point (a full disk)
    leaves an existing file untouched; the file keeps the mode it had, or gets open()'s default."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".pdcc-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def write_report(path: str, remarks: Sequence[Remark], tool_version: str, root_dir: str,
                 knobs: Sequence[Knob] = ()) -> None:
    """Render first, then write atomically, so a failure at any point leaves an existing report
    untouched. Raises CommandError for an unknown extension, OSError when the file cannot be written."""
    text = _renderer_for(path)(remarks, tool_version, root_dir, knobs)
    write_atomically(path, text.encode("utf-8"))
