"""The Markdown report: a pull-request comment or a review file listing every site, what pdcc changed at
each (a collapsed diff per site), and the reasons for missed ones.

Locations are links to the source line (`src/k.cu#L26`, relative to the folder the report is written to),
which GitHub and GitLab open at that line when the report lies in the repository.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePath
from urllib.parse import quote

from pragmadp.ir import Knob
from pragmadp.report.build import BuildView
from pragmadp.report.json_report import summary_line
from pragmadp.report.remarks import Kind, Remark

# Characters Markdown could read as markup; C++ text is full of them (k<<<g, b>>>, a[i], *p, x_1).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|&#])")


def _escape(text: str) -> str:
    """Literal text, safe in a table cell: markup characters backslash-escaped, one line."""
    return _SPECIAL.sub(r"\\\1", text).replace("\r", "").replace("\n", "<br>")


def link_target(path: str, line: int, link_base: str) -> str:
    """`../src/k.cu#L26`: the file relative to `link_base` (URL-quoted), at the line."""
    try:
        relative = PurePath(os.path.relpath(path, link_base)).as_posix()
    except ValueError:  # another drive
        return f"{Path(path).as_uri()}#L{line}"
    return f"{quote(relative)}#L{line}"


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


class _Markdown:
    def __init__(self, view: BuildView, tool_version: str, link_base: str):
        self.view = view
        self.tool_version = tool_version
        self.link_base = link_base

    def where(self, remark: Remark) -> str:
        return f"{self.view.name_of(remark.location.file)}:{remark.location.line}"

    def link(self, remark: Remark) -> str:
        return link_target(remark.location.file, remark.location.line, self.link_base)

    def render(self) -> str:
        view = self.view
        remarks = view.remarks
        summary = f"pdcc {_escape(self.tool_version)}: {summary_line(view.summary)}"
        out = ["## pdcc optimization report", "", summary, ""]
        if len(view.files) > 1:
            out += [f"{len(view.files)} files, {view.site_count} sites", ""]
        if remarks:
            out += ["| Location | Function | Site | Result | Rule | Message |",
                    "| --- | --- | --- | --- | --- | --- |"]
            out += ["| " + " | ".join([f"[{_escape(self.where(remark))}]({self.link(remark)})"] + [_escape(cell) for cell in (
                    remark.function, remark.site, remark.kind.value, f"{remark.rule.id} {remark.rule.name}",
                    remark.message)]) + " |"
                    for remark in remarks]
        else:
            out.append("No optimization sites.")
        changes = self.changes()
        if changes:
            out += ["", "### What pdcc changed", "", "\n\n".join(changes)]
        missed = [remark for remark in remarks if remark.kind is Kind.MISSED]
        if missed:
            out += ["", "### Missed optimizations", ""]
            out.append("\n\n".join(self.missed_details(remark) for remark in missed))
        return "\n".join(out) + "\n"

    def summary_html(self, remark: Remark, title: str) -> str:
        where = html.escape(self.where(remark))
        return f'<a href="{html.escape(self.link(remark))}">{where}</a> {title}'

    def changes(self) -> list[str]:
        """A collapsed diff per changed site, then each file's other changes (definitions pdcc adds)."""
        sections = []
        for file in self.view.files:
            for site in file.sites:
                if not site.diff:
                    continue
                first = site.remarks[0]
                rules = ", ".join(dict.fromkeys(f"{r.rule.id} {r.rule.name}" for r in site.remarks if r.kind is not Kind.ANALYSIS))
                title = html.escape(f"{site.name} ({site.kind.value}{': ' + rules if rules else ''})")
                sections.append(_details(self.summary_html(first, title), site.diff))
            if file.other_diff:
                link = html.escape(link_target(file.path, 1, self.link_base))
                sections.append(_details(f'<a href="{link}">{html.escape(file.name)}</a> code pdcc adds for the sites '
                                         "(serial and coarsened versions, knob macros, launch bounds)", file.other_diff))
        return sections

    def missed_details(self, remark: Remark) -> str:
        """A collapsed section; <summary> is HTML, so it is HTML-escaped rather than Markdown-escaped."""
        summary = self.summary_html(remark, html.escape(f"{remark.site} ({remark.rule.id} {remark.rule.name})"))
        lines = [
            f"<details><summary>{summary}</summary>",
            "",
            f"**Reason:** {_escape(remark.message)}",
            "",
            f"**Rule:** {_escape(remark.rule.summary)}",
        ]
        if remark.hint:
            lines += ["", f"**Help:** {_escape(remark.hint)}"]
        lines += ["", "</details>"]
        return "\n".join(lines)


def _details(summary_html: str, diff: str) -> str:
    fence = _fence(diff)
    return "\n".join([f"<details><summary>{summary_html}</summary>", "", f"{fence}diff", diff.rstrip("\n"), fence, "",
                      "</details>"])


def render_markdown_build(view: BuildView, tool_version: str, link_base: str | None = None) -> str:
    """A whole build: heading, counts, a table of every remark (files in path order), a collapsed diff of
    every changed site, then details of each missed one. Links are relative to `link_base` (the folder
    the report goes to; default the report root)."""
    return _Markdown(view, tool_version, link_base or view.root).render()


def render_markdown(remarks: Sequence[Remark], tool_version: str, root_dir: str | None = None,
                    knobs: Sequence[Knob] = (), link_base: str | None = None) -> str:
    """One command's remarks (no sources, so no diffs): paths relative to `root_dir` (default the current
    directory), links relative to `link_base` (default the root)."""
    root = root_dir or os.getcwd()
    return render_markdown_build(BuildView.from_remarks(remarks, root, knobs, tool_version), tool_version,
                                 link_base or root)
