"""The SARIF 2.1.0 report, in the form GitHub code scanning accepts, so remarks show up in review.

Every catalogue rule is listed (not only those that fired) so rule indexes and baselines stay stable
from run to run. Paths are relative to the report root (`%SRCROOT%` in `originalUriBaseIds`). Only what
needs a look is an alert: a missed site is a warning, an error an error; what was applied and analysis
facts are results of level `none`, there for review tools but not alerts. Each result has a
`partialFingerprints` entry that survives unrelated edits of the file: its rule, its file, its site and its
named arguments (line numbers left out), so code scanning keeps tracking a result when lines move.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark, Rule

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFORMATION_URI = "https://github.com/pragmadp/pdcc"
_SRCROOT = "%SRCROOT%"
_LEVEL = {Kind.ERROR: "error", Kind.MISSED: "warning", Kind.APPLIED: "none", Kind.ANALYSIS: "none"}
FINGERPRINT = "pdcc/v1"


def _default_level(rule: Rule) -> str:
    """The catalogue numbers errors PDCC1xx-3xx and remarks from PDCC5xx up (see rules.py)."""
    return "error" if rule.id < "PDCC400" else "note"


def _driver_rules(remarks: Sequence[Remark]) -> list[Rule]:
    """The catalogue, then any rule a remark uses that is not in it, so every ruleId resolves."""
    listed = list(rules.ALL_RULES)
    known = {rule.id for rule in listed}
    for remark in remarks:
        if remark.rule.id not in known:
            known.add(remark.rule.id)
            listed.append(remark.rule)
    return listed


def _artifact_location(file: str, root: Path) -> dict[str, str]:
    """Relative to %SRCROOT% when under root (GitHub maps those to the repo); absolute otherwise."""
    path = Path(os.path.abspath(file))
    try:
        relative = path.relative_to(root)
    except ValueError:
        return {"uri": path.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": _SRCROOT}


def _is_position(name: str) -> bool:
    """Arguments that are line or column numbers: they change when unrelated code moves."""
    return name in ("line", "column") or name.endswith(("_line", "_column"))


_POSITION_IN_TEXT = re.compile(r"\b(line|column)( [0-9]+)")


def _without_positions(value: Any) -> Any:
    """A text argument with `line 5` made `line #` (a reason may say where in the child it found a barrier)."""
    return _POSITION_IN_TEXT.sub(r"\1 #", value) if isinstance(value, str) else value


def fingerprint_key(remark: Remark, uri: str) -> str:
    """A hash of what identifies a result apart from where its lines are now: its rule, its file (as the
    report names it), its site and its named arguments without line or column numbers."""
    args = {name: _without_positions(value) for name, value in remark.args.items() if not _is_position(name)}
    identity = json.dumps([remark.rule.id, uri, remark.site, args], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]


def _region(remark: Remark) -> dict[str, int]:
    loc = remark.location
    region = {"startLine": loc.line, "startColumn": loc.column}
    if loc.end_line is not None and loc.end_column is not None and \
            (loc.end_line, loc.end_column) > (loc.line, loc.column):
        region.update(endLine=loc.end_line, endColumn=loc.end_column)   # SARIF's end column is exclusive too
    return region


def _result(remark: Remark, rule_index: int, root: Path, fingerprint: str) -> dict[str, Any]:
    return {
        "ruleId": remark.rule.id,
        "ruleIndex": rule_index,
        "level": _LEVEL[remark.kind],
        "message": {"text": remark.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": _artifact_location(remark.location.file, root),
                "region": _region(remark),
            },
        }],
        "partialFingerprints": {FINGERPRINT: fingerprint},
        "properties": {
            "kind": remark.kind.value,
            "pass": remark.pass_name,
            "function": remark.function,
            "site": remark.site,
            "args": dict(remark.args),
        },
    }


def _fingerprints(remarks: Sequence[Remark], root: Path) -> list[str]:
    """`hash:n`, n counting the results with the same hash in report order (two identical errors of a file)."""
    seen: dict[str, int] = {}
    prints = []
    for remark in remarks:
        key = fingerprint_key(remark, _artifact_location(remark.location.file, root)["uri"])
        seen[key] = seen.get(key, 0) + 1
        prints.append(f"{key}:{seen[key]}")
    return prints


def render_sarif(remarks: Sequence[Remark], tool_version: str, root_dir: str) -> str:
    """One run; uris are relative to root_dir, which is recorded as %SRCROOT%."""
    root = Path(os.path.abspath(root_dir))
    driver_rules = _driver_rules(remarks)
    index = {rule.id: i for i, rule in enumerate(driver_rules)}
    root_uri = root.as_uri()
    document = {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pdcc",
                "version": tool_version,
                "informationUri": _INFORMATION_URI,
                "rules": [{
                    "id": rule.id,
                    "name": rule.name,
                    "shortDescription": {"text": rule.summary},
                    "defaultConfiguration": {"level": _default_level(rule)},
                } for rule in driver_rules],
            }},
            # SARIF requires a base uri to end with a slash.
            "originalUriBaseIds": {_SRCROOT: {"uri": root_uri if root_uri.endswith("/") else root_uri + "/"}},
            "results": [_result(remark, index[remark.rule.id], root, fingerprint)
                        for remark, fingerprint in zip(remarks, _fingerprints(remarks, root), strict=True)],
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
