"""What pdcc changed, cut per site: the diff of a file split into the part each site made.

pdcc rewrites a site in place and adds definitions (serial and coarsened versions of a child, knob macros)
elsewhere in the file; after every region whose lines no longer follow the input it writes a `#line N`
directive. So in a changed region of the diff, the lines after `#line N` stand for input line N, and the
input lines of the region belong to the site that starts at or before them in the region: a site starts at
its pragma, found from the line of the site's first remark (a pass reports a site's main remark first).
What no site claims (definitions pdcc adds for a child, `__launch_bounds__` on a kernel) is listed as the
file's other changes.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pragmadp.report.remarks import Remark

_LINE_DIRECTIVE = re.compile(r"\s*#\s*line\s+([0-9]+)")
_PRAGMA = re.compile(r"\s*#\s*pragma\s+(dp|meld)\b")


@dataclass
class Hunk:
    """A changed region: input lines [old_start, old_start + len(old)) became `new` at new_start (1-based)."""

    old_start: int
    old: list[str]
    new_start: int
    new: list[str]

    def text(self) -> str:
        header = f"@@ -{_range(self.old_start, len(self.old))} +{_range(self.new_start, len(self.new))} @@\n"
        return header + "".join(f"-{line}" for line in _ended(self.old)) + "".join(f"+{line}" for line in _ended(self.new))


@dataclass
class FileChanges:
    """A file's changes: the hunks of each site, in the order of their first line, and the rest."""

    sites: dict[str, list[Hunk]] = field(default_factory=dict)
    other: list[Hunk] = field(default_factory=list)

    def site_diff(self, site: str) -> str:
        return "".join(hunk.text() for hunk in self.sites.get(site, []))

    def other_diff(self) -> str:
        return "".join(hunk.text() for hunk in self.other)


def _range(start: int, count: int) -> str:
    """Unified-diff ranges: `start,count`, an empty range names the line before it."""
    return f"{start if count else start - 1},{count}"


def _ended(lines: Sequence[str]) -> list[str]:
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def site_starts(remarks: Sequence[Remark], original_lines: Sequence[str]) -> dict[str, int]:
    """Each site's first line: the line of its first remark, or the pragma lines just above it."""
    starts: dict[str, int] = {}
    for remark in remarks:
        if remark.site and remark.site not in starts:
            line = remark.location.line
            while line > 1 and line - 2 < len(original_lines) and _PRAGMA.match(original_lines[line - 2]):
                line -= 1
            starts[remark.site] = line
    return starts


def split_changes(original: str, transformed: str, remarks: Sequence[Remark]) -> FileChanges:
    """The changes from `original` to `transformed`, each assigned to the site it belongs to (remarks of
    one file: a remark's `site` and line tell where the site is)."""
    old = original.splitlines(keepends=True)
    new = transformed.splitlines(keepends=True)
    starts = sorted((line, site) for site, line in site_starts(remarks, old).items())
    changes = FileChanges()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        low, high = i1 + 1, max(i1 + 1, i2)   # the input lines the region stands for (1-based)
        inside = [(line, site) for line, site in starts if low <= line <= high]

        def owner(line: int) -> str | None:
            owners = [site for start, site in inside if start <= line]
            return owners[-1] if owners else None

        parts: dict[str | None, Hunk] = {}
        order: list[str | None] = []

        def part(site: str | None, old_start: int, new_start: int) -> Hunk:
            if site not in parts:
                parts[site] = Hunk(old_start, [], new_start, [])
                order.append(site)
            return parts[site]

        for index in range(i1, i2):
            part(owner(index + 1), index + 1, j1 + 1).old.append(old[index])
        origin = low
        for index in range(j1, j2):
            directive = _LINE_DIRECTIVE.match(new[index])
            if directive:
                origin = min(max(int(directive.group(1)), low), high)
            hunk = part(owner(origin), i1 + 1, index + 1)
            if not hunk.new:
                hunk.new_start = index + 1
            hunk.new.append(new[index])
        for site in order:
            hunk = parts[site]
            if not hunk.old:
                hunk.old_start = _insertion_point(hunk, i1)
            if site is None:
                changes.other.append(hunk)
            else:
                changes.sites.setdefault(site, []).append(hunk)
    return changes


def _insertion_point(hunk: Hunk, i1: int) -> int:
    """An insertion names the input line it follows (plus one), as unified diffs do."""
    return i1 + 1


def file_diff(original: str, transformed: str, name: str, context: int = 3) -> str:
    """The whole file's unified diff (`a/NAME`, `b/NAME`), empty when nothing changed; matched as the site
    diffs are (no junk heuristic: generated code repeats lines often), so the two agree line for line."""
    old = _ended(original.splitlines(keepends=True))
    new = _ended(transformed.splitlines(keepends=True))
    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(context))
    if not groups:
        return ""
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for group in groups:
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1 + 1, i2 - i1)} +{_range(j1 + 1, j2 - j1)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [f" {line}" for line in old[a1:a2]]
                continue
            out += [f"-{line}" for line in old[a1:a2]]
            out += [f"+{line}" for line in new[b1:b2]]
    return "".join(out)
