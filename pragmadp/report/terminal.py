"""The terminal report: one table row per site remark, then the counts.

Errors are left out: the caller prints them as compiler-style text (Remark.render_text), which is
what editors and build logs parse.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pragmadp.report.json_report import count_kinds, summary_line
from pragmadp.report.remarks import Kind, Remark

_KIND_STYLE = {Kind.APPLIED: "green", Kind.MISSED: "yellow", Kind.ANALYSIS: "cyan"}


def render_terminal(remarks: Sequence[Remark], console: Console) -> None:
    """Print the table and summary; cells are Text so brackets in messages (a[i]) are not markup."""
    rows = [remark for remark in remarks if remark.kind is not Kind.ERROR]
    if rows:
        table = Table(title="pdcc optimization remarks", title_justify="left")
        table.add_column("where", no_wrap=True)
        table.add_column("site", no_wrap=True)
        table.add_column("kind", no_wrap=True)
        table.add_column("message", overflow="fold", ratio=1)
        for remark in rows:
            loc = remark.location
            message = Text(remark.message)
            message.append(f" [{remark.rule.id}]", style="dim")
            table.add_row(
                Text(f"{loc.file}:{loc.line}:{loc.column}"),
                Text(remark.site or remark.pass_name),
                Text(f"{remark.kind.value} ({remark.pass_name})" if remark.pass_name else remark.kind.value,
                     style=_KIND_STYLE[remark.kind]),
                message,
            )
        console.print(table)
    console.print(Text(summary_line(count_kinds(remarks))))
