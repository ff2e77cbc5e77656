"""The Markdown report: a pull-request comment listing every site, with the reasons for missed ones."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from pragmadp.report.json_report import count_kinds, summary_line
from pragmadp.report.remarks import Kind, Remark

# Characters Markdown could read as markup; C++ text is full of them (k<<<g, b>>>, a[i], *p, x_1).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|&#])")


def _escape(text: str) -> str:
    """Literal text, safe in a table cell: markup characters backslash-escaped, one line."""
    return _SPECIAL.sub(r"\\\1", text).replace("\r", "").replace("\n", "<br>")


def _where(remark: Remark) -> str:
    return f"{remark.location.file}:{remark.location.line}"


def _missed_details(remark: Remark) -> str:
    """A collapsed section; <summary> is HTML, so it is HTML-escaped rather than Markdown-escaped."""
    summary = html.escape(f"{_where(remark)} {remark.site} ({remark.rule.id} {remark.rule.name})")
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


def render_markdown(remarks: Sequence[Remark], tool_version: str) -> str:
    """Heading, counts, a table of all remarks in input order, then details of each missed one."""
    summary = f"pdcc {_escape(tool_version)}: {summary_line(count_kinds(remarks))}"
    out = ["## pdcc optimization report", "", summary, ""]
    if remarks:
        out += ["| Location | Function | Site | Result | Rule | Message |",
                "| --- | --- | --- | --- | --- | --- |"]
        out += ["| " + " | ".join(_escape(cell) for cell in (
                    _where(remark), remark.function, remark.site, remark.kind.value,
                    f"{remark.rule.id} {remark.rule.name}", remark.message)) + " |"
                for remark in remarks]
    else:
        out.append("No optimization sites.")
    missed = [remark for remark in remarks if remark.kind is Kind.MISSED]
    if missed:
        out += ["", "### Missed optimizations", ""]
        out.append("\n\n".join(_missed_details(remark) for remark in missed))
    return "\n".join(out) + "\n"
