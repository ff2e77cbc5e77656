"""The HTML report (`review.html`), in the manner of LLVM's opt-viewer: one self-contained file.

No network: styles and the small script (filters by remark kind) are inline, plots are inline SVG. For each
file: its source with line anchors (`#f1-L26`), each site marked at its line (`<mark class="site">`), the
remarks under the lines they are about; then a card per site with its remarks, the code pdcc wrote for it and
its diff; the code pdcc added for the file's sites, the whole transformed file and the whole diff, collapsed.
Bench or `pdcc tune` results (any JSON of records) are shown as tables, with a bar chart of their main
measure.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from typing import Any

from pragmadp.report.build import BuildView, FileView, SiteView
from pragmadp.report.json_report import count_kinds, summary_line
from pragmadp.report.remarks import Kind, Remark

_CSS = """
:root { --applied: #1a7f37; --missed: #bf8700; --analysis: #0969da; --error: #cf222e; --line: #f6f8fa; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 2em 4em; color: #1f2328; }
h1 { font-size: 1.6em; margin: .8em 0 .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #d0d7de; }
code, pre, .code, .ln { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
table { border-collapse: collapse; } th, td { text-align: left; vertical-align: top; padding: 2px 8px; }
table.index td, table.index th, table.remarks td, table.remarks th, table.bench td, table.bench th,
table.knobs td, table.knobs th { border: 1px solid #d0d7de; }
table.source { width: 100%; } table.source td { padding: 0 8px; }
td.ln { color: #6e7781; text-align: right; user-select: none; width: 4em; }
td.ln a { color: inherit; text-decoration: none; }
td.code { white-space: pre; }
tr:target td { background: #fff8c5; }
mark.site { background: #ddf4ff; border-radius: 3px; outline: 1px solid #54aeff; }
mark.site.k-missed { background: #fff8c5; outline-color: #d4a72c; }
mark.site.k-error { background: #ffebe9; outline-color: #ff8182; }
tr.remark td.rm { white-space: normal; padding: 2px 8px 4px 2em; background: var(--line); }
.badge { display: inline-block; border-radius: 1em; padding: 0 .6em; color: white; font-size: 11px; }
.badge.k-applied { background: var(--applied); } .badge.k-missed { background: var(--missed); }
.badge.k-analysis { background: var(--analysis); } .badge.k-error { background: var(--error); }
.rule { font-weight: 600; } .hint { color: #57606a; }
section.site { border: 1px solid #d0d7de; border-radius: 6px; padding: 0 1em 1em; margin: 1em 0; }
pre.diff, pre.code { background: var(--line); padding: .6em; overflow-x: auto; }
pre.diff .add { color: #116329; background: #dafbe1; }
pre.diff .del { color: #82071e; background: #ffebe9; }
pre.diff .hunk { color: #8250df; }
.filters label { margin-right: 1em; }
body.hide-applied .k-applied.remark, body.hide-missed .k-missed.remark,
body.hide-analysis .k-analysis.remark { display: none; }
svg text { font: 11px system-ui, sans-serif; }
"""

_JS = """
for (const box of document.querySelectorAll('.filters input')) {
  box.addEventListener('change', () => document.body.classList.toggle('hide-' + box.dataset.kind, !box.checked));
}
"""

_MEASURES = ("speedup", "speedup_vs_naive", "vs_naive", "median_ms", "time_ms", "mean_ms", "ms")
_MAX_BARS = 80


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _badge(kind: Kind) -> str:
    return f'<span class="badge k-{kind.value}">{kind.value}</span>'


class _Html:
    def __init__(self, view: BuildView, tool_version: str, bench: Sequence[tuple[str, Any]]):
        self.view = view
        self.tool_version = tool_version
        self.bench = bench
        self.ids = {file.path: f"f{number}" for number, file in enumerate(view.files, 1)}

    def render(self) -> str:
        view = self.view
        out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
               '<meta name="viewport" content="width=device-width, initial-scale=1">',
               "<title>pdcc optimization report</title>", f"<style>{_CSS}</style></head>", "<body>",
               "<header><h1>pdcc optimization report</h1>",
               f'<p class="summary">pdcc {_e(self.tool_version)}: {_e(summary_line(view.summary))}; '
               f"{len(view.files)} file{'s' if len(view.files) != 1 else ''}, {view.site_count} "
               f"site{'s' if view.site_count != 1 else ''}; paths relative to <code>{_e(view.root)}</code></p>",
               '<p class="filters">Show: ' + "".join(
                   f'<label><input type="checkbox" data-kind="{kind}" checked> {kind}</label>'
                   for kind in ("applied", "missed", "analysis")) + "</p>",
               self.index(), "</header>"]
        if self.bench:
            out.append(self.bench_section())
        out += [self.file_section(file) for file in view.files]
        out += [f"<script>{_JS}</script>", "</body></html>"]
        return "\n".join(out) + "\n"

    def index(self) -> str:
        rows = []
        for file in self.view.files:
            counts = count_kinds(file.remarks)
            rows.append(f'<tr><td><a href="#{self.ids[file.path]}">{_e(file.name)}</a></td><td>{len(file.sites)}</td>'
                        + "".join(f"<td>{counts[kind.value]}</td>" for kind in (Kind.APPLIED, Kind.MISSED, Kind.ANALYSIS))
                        + f"<td>{'yes' if file.changed else 'no'}</td></tr>")
        return ('<table class="index"><thead><tr><th>File</th><th>Sites</th><th>applied</th><th>missed</th>'
                "<th>analysis</th><th>changed</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")

    # --- one file ------------------------------------------------------------------------------------

    def site_id(self, file: FileView, site: str) -> str:
        return f"{self.ids[file.path]}-site-{site}"

    def line_id(self, file: FileView, line: int) -> str:
        return f"{self.ids[file.path]}-L{line}"

    def file_section(self, file: FileView) -> str:
        fid = self.ids[file.path]
        out = [f'<section class="file" id="{fid}" data-path="{_e(file.name)}">', f"<h2>{_e(file.name)}</h2>",
               f'<p class="summary">{_e(summary_line(count_kinds(file.remarks)))}; {len(file.sites)} sites</p>']
        out.append(self.source(file) if file.original is not None else self.remark_table(file, file.remarks))
        if file.sites:
            out.append("<h3>Sites</h3>")
            out += [self.site_card(file, site) for site in file.sites]
        if file.knobs:
            out.append(self.knobs(file))
        if file.other_diff:
            out.append('<details class="other"><summary>Code pdcc adds for these sites (serial and coarsened '
                       "versions, knob macros, launch bounds)</summary>" + _diff(file.other_diff) + "</details>")
        if file.changed and file.transformed is not None:
            out.append('<details class="transformed"><summary>The transformed file</summary>'
                       f'<pre class="code">{_e(file.transformed)}</pre></details>')
            out.append(f'<details class="filediff"><summary>The whole diff</summary>{_diff(file.diff)}</details>')
        out.append("</section>")
        return "\n".join(out)

    def source(self, file: FileView) -> str:
        assert file.original is not None
        lines = file.original.splitlines() or [""]
        by_line: dict[int, list[Remark]] = {}
        for remark in file.remarks:
            by_line.setdefault(min(max(remark.location.line, 1), len(lines)), []).append(remark)
        marks: dict[int, list[SiteView]] = {}
        for site in file.sites:
            marks.setdefault(min(max(site.line, 1), len(lines)), []).append(site)
        rows = ['<table class="source"><tbody>']
        for number, text in enumerate(lines, 1):
            lid = self.line_id(file, number)
            code = _e(text)
            for site in marks.get(number, []):
                code = (f'<mark class="site k-{site.kind.value}" id="{self.site_id(file, site.name)}-mark" '
                        f'data-site="{_e(site.name)}" title="site {_e(site.name)}">{code}</mark>')
            rows.append(f'<tr id="{lid}"><td class="ln"><a href="#{lid}">{number}</a></td>'
                        f'<td class="code">{code}</td></tr>')
            for remark in by_line.get(number, []):
                rows.append(f'<tr class="remark k-{remark.kind.value}" data-rule="{_e(remark.rule.id)}"><td></td>'
                            f'<td class="rm">{self.remark_text(file, remark)}</td></tr>')
        rows.append("</tbody></table>")
        return "\n".join(rows)

    def remark_text(self, file: FileView, remark: Remark) -> str:
        site = (f' <a class="sitelink" href="#{self.site_id(file, remark.site)}"><code>{_e(remark.site)}</code></a>'
                if remark.site else "")
        hint = f'<div class="hint">help: {_e(remark.hint)}</div>' if remark.hint else ""
        return (f'{_badge(remark.kind)} <span class="rule" title="{_e(remark.rule.summary)}">{_e(remark.rule.id)}</span> '
                f'<span class="rname">{_e(remark.rule.name)}</span>{site}: {_e(remark.message)}{hint}')

    def remark_table(self, file: FileView, remarks: Sequence[Remark], with_location: bool = True) -> str:
        head = "<th>Line</th>" if with_location else ""
        rows = []
        for remark in remarks:
            where = ""
            if with_location:
                line = remark.location.line
                target = f'<a href="#{self.line_id(file, line)}">{line}</a>' if file.original is not None else str(line)
                where = f"<td>{target}:{remark.location.column}</td>"
            args = json.dumps(remark.args, ensure_ascii=False, sort_keys=True, default=str)
            rows.append(f'<tr class="remark k-{remark.kind.value}" data-rule="{_e(remark.rule.id)}">{where}'
                        f'<td>{_badge(remark.kind)}</td><td class="rule" title="{_e(remark.rule.summary)}">'
                        f"{_e(remark.rule.id)} {_e(remark.rule.name)}</td><td>{_e(remark.message)}"
                        + (f'<div class="hint">help: {_e(remark.hint)}</div>' if remark.hint else "")
                        + f'</td><td><code>{_e(args)}</code></td></tr>')
        return (f'<table class="remarks"><thead><tr>{head}<th>Kind</th><th>Rule</th><th>Message</th><th>Arguments</th>'
                "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")

    def site_card(self, file: FileView, site: SiteView) -> str:
        out = [f'<section class="site k-{site.kind.value}" id="{self.site_id(file, site.name)}" '
               f'data-site="{_e(site.name)}">',
               f"<h4>{_badge(site.kind)} site <code>{_e(site.name)}</code>"
               + (f" in <code>{_e(site.function)}</code>" if site.function else "")
               + f', <a href="#{self.line_id(file, site.line)}">line {site.line}</a></h4>',
               self.remark_table(file, site.remarks)]
        if site.diff:
            written = "".join(line[1:] + "\n" for line in site.diff.splitlines()
                              if line.startswith("+") and not line[1:].lstrip().startswith("#line"))
            out.append('<details class="written" open><summary>The code pdcc wrote for this site</summary>'
                       f'<pre class="code">{_e(written)}</pre></details>')
            out.append(f'<details class="sitediff"><summary>Diff</summary>{_diff(site.diff)}</details>')
        else:
            out.append('<p class="unchanged">pdcc left this site as written.</p>')
        out.append("</section>")
        return "\n".join(out)

    def knobs(self, file: FileView) -> str:
        rows = "".join(f"<tr><td><code>{_e(knob.macro)}</code></td><td>{_e(knob.default)}</td><td>{_e(knob.kind)}</td>"
                       f"<td>{knob.domain[0]} to {knob.domain[1]}</td></tr>" for knob in file.knobs)
        return ('<details class="knobs"><summary>Knobs (set with <code>-DMACRO=value</code>; '
                "<code>pdcc tune</code> sweeps them)</summary><table class=\"knobs\"><thead><tr><th>Macro</th>"
                f"<th>Default</th><th>Kind</th><th>Range</th></tr></thead><tbody>{rows}</tbody></table></details>")

    # --- bench and tune results ------------------------------------------------------------------------

    def bench_section(self) -> str:
        out = ['<section id="bench"><h2>Measurements</h2>']
        for name, data in self.bench:
            out.append(f'<section class="bench"><h3>{_e(name)}</h3>')
            out += _bench_parts(data)
            out.append("</section>")
        out.append("</section>")
        return "\n".join(out)


def _diff(text: str) -> str:
    lines = []
    for line in text.splitlines():
        kind = "hunk" if line.startswith("@@") else "add" if line.startswith("+") and not line.startswith("+++") \
            else "del" if line.startswith("-") and not line.startswith("---") else ""
        lines.append((f'<span class="{kind}">{_e(line)}</span>' if kind else _e(line)) + "\n")
    return f'<pre class="diff">{"".join(lines)}</pre>'


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (dict, list)):
        return f"<code>{_e(json.dumps(value, ensure_ascii=False, sort_keys=True))}</code>"
    return _e(value)


def _records(data: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """The tables of a results file: a list of records at the top, or under any key."""
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        return [("", data)]
    if isinstance(data, dict):
        return [(key, value) for key, value in data.items()
                if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)]
    return []


def _bench_parts(data: Any) -> list[str]:
    out = []
    if isinstance(data, dict):
        scalars = {key: value for key, value in data.items() if not isinstance(value, (list, dict))}
        nested = {key: value for key, value in data.items() if isinstance(value, dict)}
        if scalars:
            out.append(_key_values(scalars))
        for key, value in nested.items():
            out.append(f"<h4>{_e(key)}</h4>" + _key_values(value))
    for key, records in _records(data):
        if key:
            out.append(f"<h4>{_e(key)}</h4>")
        chart = bar_chart(records)
        if chart:
            out.append(chart)
        columns = list(dict.fromkeys(column for record in records for column in record))
        out.append('<table class="bench"><thead><tr>' + "".join(f"<th>{_e(c)}</th>" for c in columns) + "</tr></thead><tbody>"
                   + "".join("<tr>" + "".join(f"<td>{_cell(record.get(c, ''))}</td>" for c in columns) + "</tr>"
                             for record in records) + "</tbody></table>")
    if not out:
        out.append(f'<pre class="code">{_e(json.dumps(data, indent=2, ensure_ascii=False))}</pre>')
    return out


def _key_values(values: dict[str, Any]) -> str:
    return ('<table class="bench"><tbody>' + "".join(f"<tr><th>{_e(key)}</th><td>{_cell(value)}</td></tr>"
                                                     for key, value in values.items()) + "</tbody></table>")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def bar_chart(records: Sequence[dict[str, Any]]) -> str:
    """A horizontal bar chart (inline SVG) of the records' main measure (a speed-up, else a time), one bar
    per record labelled by its text fields; on a log scale when the values span more than 100x; empty
    when the records have no such measure."""
    measure = next((name for name in _MEASURES if any(_number(record.get(name)) is not None for record in records)), None)
    if measure is None:
        return ""
    points = [(" · ".join(str(value) for key, value in record.items()
                          if isinstance(value, str) and key not in ("status", "detail", "error") and value),
               _number(record.get(measure))) for record in records]
    shown = [(label, value) for label, value in points if value is not None and value > 0][:_MAX_BARS]
    if not shown:
        return ""
    label_width, bar_width, height = 420, 360, 16
    low, high = min(value for _, value in shown), max(value for _, value in shown)
    logarithmic = high / low > 100

    def length(value: float) -> float:
        if logarithmic:  # the smallest value gets a visible stub, the largest the full width
            return 4 + (bar_width - 4) * math.log(value / low) / math.log(high / low)
        return max(1.0, bar_width * value / high)

    total = len(shown) * (height + 2) + 24
    title = f"{measure} (log scale)" if logarithmic else measure
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{label_width + bar_width + 80}" '
             f'height="{total}" aria-label="{_e(title)} per run">',
             f'<text x="{label_width}" y="12" font-weight="600">{_e(title)}</text>']
    for index, (label, value) in enumerate(shown):
        y = 20 + index * (height + 2)
        width = length(value)
        short = label if len(label) <= 64 else label[:63] + "…"
        parts.append(f'<text x="{label_width - 6}" y="{y + 12}" text-anchor="end">{_e(short)}</text>'
                     f'<rect x="{label_width}" y="{y}" width="{width:.1f}" height="{height}" fill="#54aeff">'
                     f"<title>{_e(label)}: {value:.4g}</title></rect>"
                     f'<text x="{label_width + width + 4:.1f}" y="{y + 12}">{value:.4g}</text>')
    parts.append("</svg>")
    note = f"<p>the first {_MAX_BARS} of {len(points)} records</p>" if len(points) > _MAX_BARS else ""
    return "".join(parts) + note


def render_html(view: BuildView, tool_version: str, bench: Sequence[tuple[str, Any]] = ()) -> str:
    """The whole report as one HTML page (no external resources)."""
    return _Html(view, tool_version, bench).render()
