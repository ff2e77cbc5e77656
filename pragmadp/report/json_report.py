"""The JSON report: the remarks as data, for scripts and CI filters that key on rule ids.

Also home of the per-kind counts every renderer prints, so all reports agree on the summary.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pragmadp.ir import Knob
from pragmadp.report.remarks import Kind, Remark

if TYPE_CHECKING:
    from pragmadp.report.build import BuildView


def count_kinds(remarks: Sequence[Remark]) -> dict[str, int]:
    """Remarks per kind, every kind present (zero included) so consumers need no defaults."""
    counts = Counter(remark.kind for remark in remarks)
    return {kind.value: counts[kind] for kind in Kind}


def summary_line(counts: dict[str, int]) -> str:
    """`2 applied, 1 missed, 0 analysis`, plus errors only when there are some (they are rare)."""
    parts = [f"{counts[kind.value]} {kind.value}" for kind in (Kind.APPLIED, Kind.MISSED, Kind.ANALYSIS)]
    errors = counts[Kind.ERROR.value]
    if errors:
        parts.append(f"{errors} error" + ("s" if errors > 1 else ""))
    return ", ".join(parts)


def render_json(remarks: Sequence[Remark], tool_version: str, knobs: Sequence[Knob] = ()) -> str:
    """Remarks in input order, so two runs on the same input give byte-identical reports. `knobs` are
    the sites' tunable values (macro, default, kind, domain): a tuner sweeps `-D MACRO=value` from them."""
    document = {
        "tool": {"name": "pdcc", "version": tool_version},
        "remarks": [remark.to_dict() for remark in remarks],
        "knobs": [knob.to_dict() for knob in knobs],
        "summary": count_kinds(remarks),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_json_build(view: BuildView, tool_version: str) -> str:
    """A whole build in the shape of the one-command report (tool, remarks, knobs, summary), paths relative
    to the report root, plus the root and one entry per file; each knob names its file, since sites of two
    files may share a name."""
    knobs = []
    for file in view.files:
        knobs += [{**knob.to_dict(), "file": file.name} for knob in file.knobs]
    remarks = [replace(remark, location=replace(remark.location, file=view.name_of(remark.location.file)))
               for remark in view.remarks]
    document = {
        "tool": {"name": "pdcc", "version": tool_version},
        "root": view.root,
        "files": [{"path": file.name, "sites": [site.name for site in file.sites], "changed": file.changed,
                   "summary": count_kinds(file.remarks)} for file in view.files],
        "remarks": [remark.to_dict() for remark in remarks],
        "knobs": knobs,
        "summary": count_kinds(view.remarks),
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"
