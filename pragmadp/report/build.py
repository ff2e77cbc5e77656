"""A whole build's report, as the renderers read it: files, their sites, their remarks and changes.

Built from the unit reports of `--report-dir` (collect.py) or, for a single `--report FILE`, from one
command's remarks. Paths are shown relative to the report root when under it (absolute otherwise), files
in the order of those paths, each file's remarks in the order pdcc made them: the same units give the same
report byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from pragmadp.ir import Knob
from pragmadp.report.collect import Unit, absolute
from pragmadp.report.json_report import count_kinds
from pragmadp.report.remarks import Kind, Remark
from pragmadp.report.sitediff import file_diff, site_starts, split_changes


@dataclass
class SiteView:
    name: str
    function: str
    start: int                 # its first line (the pragma)
    line: int                  # the line of its first remark (the launch, the if)
    remarks: list[Remark]
    diff: str                  # what pdcc wrote for it (unified hunks), empty when nothing

    @property
    def kind(self) -> Kind:
        """Its outcome: applied when anything was applied, else missed when something was, else analysis."""
        kinds = {remark.kind for remark in self.remarks}
        for kind in (Kind.ERROR, Kind.APPLIED, Kind.MISSED):
            if kind in kinds:
                return kind
        return Kind.ANALYSIS


@dataclass
class FileView:
    path: str                  # absolute
    name: str                  # relative to the root (POSIX separators), or absolute outside it
    remarks: list[Remark] = field(default_factory=list)
    knobs: list[Knob] = field(default_factory=list)
    original: str | None = None
    transformed: str | None = None
    sites: list[SiteView] = field(default_factory=list)
    other_diff: str = ""
    diff: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.diff)


def relative_name(path: str, root: str) -> str:
    """`path` relative to `root` with `/` separators when under it; else the absolute path."""
    try:
        return PurePath(os.path.relpath(path, root)).as_posix() if _under(path, root) else path
    except ValueError:  # another drive (Windows)
        return path


def _under(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:
        return False


def default_root(paths: Sequence[str], cwd: str | None = None) -> str:
    """The current directory when every file is under it, else the deepest folder they all share."""
    cwd = os.path.normpath(cwd or os.getcwd())
    if not paths or all(_under(path, cwd) for path in paths):
        return cwd
    try:
        return os.path.commonpath([os.path.dirname(path) for path in paths])
    except ValueError:
        return cwd


class BuildView:
    """Every file of a build with its sites, from unit reports; `root` is where relative paths start."""

    def __init__(self, units: Sequence[Unit], root: str | None = None, tool_version: str = ""):
        self.units = list(units)
        paths = [remark.location.file for unit in self.units for remark in unit.remarks] + \
                [unit.path for unit in self.units]
        self.root = os.path.normpath(os.path.abspath(root)) if root else default_root(paths)
        self.tool_version = tool_version or next((unit.tool_version for unit in self.units), "")
        self.files = self._files()

    @classmethod
    def from_remarks(cls, remarks: Sequence[Remark], root: str, knobs: Sequence[Knob] = (),
                     tool_version: str = "", cwd: str | None = None) -> BuildView:
        """One command's remarks (paths as pdcc printed them), without sources: no diffs."""
        cwd = cwd or os.getcwd()
        located = [replace(remark, location=replace(remark.location, file=absolute(remark.location.file, cwd)))
                   for remark in remarks]
        first = located[0].location.file if located else absolute("unknown", cwd)
        unit = Unit(first, first, cwd, located, list(knobs))
        return cls([unit], root, tool_version)

    def _files(self) -> list[FileView]:
        files: dict[str, FileView] = {}

        def file(path: str) -> FileView:
            if path not in files:
                files[path] = FileView(path, relative_name(path, self.root))
            return files[path]

        for unit in self.units:
            own = file(unit.path)
            if unit.original is not None:
                own.original, own.transformed = unit.original, unit.transformed
            own.knobs.extend(unit.knobs)
            for remark in unit.remarks:
                view = file(remark.location.file)
                if not any(_same(remark, seen) for seen in view.remarks):  # a header's remark, once
                    view.remarks.append(remark)
        for view in files.values():
            self._sites(view)
        return sorted((view for view in files.values() if view.remarks or view.changed or view.original is not None),
                      key=lambda view: (view.name.startswith("/"), view.name))

    def _sites(self, view: FileView) -> None:
        lines = view.original.splitlines(keepends=True) if view.original is not None else []
        changes = None
        if view.original is not None and view.transformed is not None and view.transformed != view.original:
            changes = split_changes(view.original, view.transformed, view.remarks)
            view.diff = file_diff(view.original, view.transformed, view.name)
            view.other_diff = "".join(hunk.text() for hunk in changes.other if not _only_line_directives(hunk.new)
                                      or hunk.old)
        starts = site_starts(view.remarks, lines)
        names = list(dict.fromkeys(remark.site for remark in view.remarks if remark.site))
        for name in names:
            remarks = [remark for remark in view.remarks if remark.site == name]
            view.sites.append(SiteView(name, remarks[0].function, starts[name], remarks[0].location.line, remarks,
                                       changes.site_diff(name) if changes else ""))
        view.sites.sort(key=lambda site: (site.start, site.line))

    @property
    def remarks(self) -> list[Remark]:
        """Every remark, file by file; locations absolute."""
        return [remark for view in self.files for remark in view.remarks]

    @property
    def summary(self) -> dict[str, int]:
        return count_kinds(self.remarks)

    @property
    def site_count(self) -> int:
        return sum(len(view.sites) for view in self.files)

    def name_of(self, path: str) -> str:
        return relative_name(path, self.root)


def _same(a: Remark, b: Remark) -> bool:
    return (a.rule.id, a.location, a.message, a.site) == (b.rule.id, b.location, b.message, b.site)


def _only_line_directives(lines: Sequence[str]) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#line") for line in lines)
