"""The SARIF 2.1.0 report, in the form GitHub code scanning accepts, so remarks show up in review.

Every catalogue rule is listed (not only those that fired) so rule indexes and baselines stay stable
from run to run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark, Rule

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_INFORMATION_URI = "https://github.com/pragmadp/pdcc"
_SRCROOT = "%SRCROOT%"
_LEVEL = {Kind.ERROR: "error", Kind.MISSED: "warning", Kind.APPLIED: "note", Kind.ANALYSIS: "note"}


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


def _result(remark: Remark, rule_index: int, root: Path) -> dict[str, Any]:
    loc = remark.location
    return {
        "ruleId": remark.rule.id,
        "ruleIndex": rule_index,
        "level": _LEVEL[remark.kind],
        "message": {"text": remark.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": _artifact_location(loc.file, root),
                "region": {"startLine": loc.line, "startColumn": loc.column},
            },
        }],
        "properties": {
            "kind": remark.kind.value,
            "pass": remark.pass_name,
            "function": remark.function,
            "site": remark.site,
            "args": dict(remark.args),
        },
    }


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
            "results": [_result(remark, index[remark.rule.id], root) for remark in remarks],
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
