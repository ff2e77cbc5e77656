"""The terminal report: the remarks of each file as a table, then the counts; and pdcc's diagnostics.

A diagnostic (`file.cu:3:14: error[PDCC101]: ...`, `pdcc: error[...]`) is printed as it is, one line per
line of its text whatever the terminal's width or the path's length: editors and CI problem matchers read
those lines, and a hard line break in the middle of one hides it from them (`print_diagnostic`).

The remarks table never squeezes the message: each file's name is a line of its own above its table, so
the table holds only `line:col`, the site, the kind and the message; a path is shown relative to the
current directory when that is shorter. Where even that leaves the message fewer than MIN_MESSAGE columns
(a narrow terminal, a long site name), the remarks are printed one per line, compiler style
(`file:line:col: remark[PDCC500]: site: message`), which the terminal wraps softly.

Errors are left out of the table: the caller prints them with `print_diagnostic(console,
remark.render_text())`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pragmadp.report.json_report import count_kinds, summary_line
from pragmadp.report.remarks import Kind, Remark

_KIND_STYLE = {Kind.APPLIED: "green", Kind.MISSED: "yellow", Kind.ANALYSIS: "cyan"}
MIN_MESSAGE = 40      # columns the message must keep for the table layout
_COLUMN_COST = 3      # a column's two spaces of padding and its border
_HEADERS = ("line", "site", "kind", "message")


def print_diagnostic(console: Console, text: str) -> None:
    """Prints a diagnostic exactly as written: no markup, no highlighting, no hard wrapping or cropping
    (the terminal soft-wraps a long line; a build log keeps it whole)."""
    console.print(Text(text), soft_wrap=True, no_wrap=True, overflow="ignore", crop=False, markup=False,
                  highlight=False)


def shown_path(path: str, cwd: str | None = None) -> str:
    """The path relative to the current directory when that is shorter (and does not climb out), else as given."""
    try:
        relative = os.path.relpath(path, cwd or os.getcwd())
    except ValueError:   # another drive
        return path
    return relative if len(relative) < len(path) and not relative.startswith("..") else path


def _by_file(remarks: Sequence[Remark]) -> dict[str, list[Remark]]:
    files: dict[str, list[Remark]] = {}
    for remark in remarks:
        files.setdefault(remark.location.file, []).append(remark)
    return files


def _kind_text(remark: Remark) -> Text:
    return Text(remark.kind.value, style=_KIND_STYLE.get(remark.kind, ""))


def _message(remark: Remark) -> Text:
    """Cells are Text so brackets in messages (a[i]) are not markup."""
    message = Text(remark.message)
    message.append(f" [{remark.rule.id}]", style="dim")
    return message


def _fixed_width(rows: Sequence[Remark]) -> int:
    """The columns the table takes besides the message, with every border and padding."""
    widths = [max([len(f"{r.location.line}:{r.location.column}") for r in rows] + [len(_HEADERS[0])]),
              max([len(r.site or r.pass_name) for r in rows] + [len(_HEADERS[1])]),
              max([len(r.kind.value) for r in rows] + [len(_HEADERS[2])])]
    return sum(widths) + _COLUMN_COST * 4 + 1


def render_terminal(remarks: Sequence[Remark], console: Console) -> None:
    """Print each file's remarks (a table, or one per line when the terminal is too narrow), then the counts."""
    rows = [remark for remark in remarks if remark.kind is not Kind.ERROR]
    if rows:
        files = _by_file(rows)
        narrow = console.width - _fixed_width(rows) < MIN_MESSAGE
        console.print(Text("pdcc optimization remarks", style="italic"), soft_wrap=True)
        for path, file_rows in files.items():
            if narrow:
                for remark in file_rows:
                    line = Text(f"{shown_path(path)}:{remark.location.line}:{remark.location.column}: ")
                    line.append(f"{remark.kind.value}[{remark.rule.id}]", style=_KIND_STYLE.get(remark.kind, ""))
                    line.append(f": {remark.site + ': ' if remark.site else ''}{remark.message}")
                    console.print(line, soft_wrap=True, crop=False, markup=False, highlight=False)
                continue
            console.print(Text(shown_path(path), style="bold"), soft_wrap=True, crop=False)
            table = Table(show_edge=True)
            table.add_column(_HEADERS[0], no_wrap=True, justify="right")
            table.add_column(_HEADERS[1], no_wrap=True)
            table.add_column(_HEADERS[2], no_wrap=True)
            table.add_column(_HEADERS[3], overflow="fold", ratio=1, min_width=MIN_MESSAGE)
            for remark in file_rows:
                table.add_row(Text(f"{remark.location.line}:{remark.location.column}"),
                              Text(remark.site or remark.pass_name), _kind_text(remark), _message(remark))
            console.print(table)
    console.print(Text(summary_line(count_kinds(remarks))))
