"""The report renderers, on hand-built remarks: each format carries every site and the same counts."""

from __future__ import annotations

import json
import os
import re
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from pragmadp.report import rules
from pragmadp.report.json_report import count_kinds, render_json, summary_line
from pragmadp.report.markdown import render_markdown
from pragmadp.report.remarks import CommandError, Kind, Location, Remark, Rule
from pragmadp.report.render import write_report
from pragmadp.report.sarif import render_sarif
from pragmadp.report.terminal import render_terminal

VERSION = "9.8.7"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "repo"


@pytest.fixture
def remarks(root: Path) -> list[Remark]:
    src = str(root / "src" / "bfs.cu")
    return [
        Remark(Kind.APPLIED, rules.THRESHOLD_APPLIED, "launch of 'child' guarded by threshold 64",
               Location(src, 12, 5), pass_name="threshold", function="bfs_parent", site="bfs_parent_0",
               args={"threshold": 64}),
        Remark(Kind.ANALYSIS, rules.THREAD_COUNT, "child threads = n, pattern (a)",
               Location(src, 12, 5), pass_name="threshold", function="bfs_parent", site="bfs_parent_0",
               args={"pattern": "a"}),
        Remark(Kind.MISSED, rules.CHILD_BARRIER, "child 'reduce' calls __syncthreads | cannot serialise a[i]",
               Location(src, 40, 9), pass_name="threshold", function="sum_parent", site="sum_parent_0",
               hint="remove threshold(N) from this pragma"),
        Remark(Kind.MISSED, rules.CLAUSE_NOT_SUPPORTED, "clause 'coarsen' is not supported yet",
               Location(str(root / "src" / "tree.cu"), 7, 3), pass_name="coarsen", function="walk",
               site="walk_0"),
        Remark(Kind.ERROR, rules.UNKNOWN_CLAUSE, "unknown clause 'treshold'",
               Location(str(root / "src" / "bad.cu"), 3, 13), pass_name="directives", site="bad_0"),
    ]


def test_counts_and_summary_line(remarks):
    counts = count_kinds(remarks)
    assert counts == {"applied": 1, "missed": 2, "analysis": 1, "error": 1}
    assert summary_line(counts) == "1 applied, 2 missed, 1 analysis, 1 error"
    assert summary_line(count_kinds([])) == "0 applied, 0 missed, 0 analysis"


def test_json_round_trips_in_input_order(remarks):
    document = json.loads(render_json(remarks, VERSION))
    assert document["tool"] == {"name": "pdcc", "version": VERSION}
    assert document["summary"] == {"applied": 1, "missed": 2, "analysis": 1, "error": 1}
    assert document["remarks"] == [remark.to_dict() for remark in remarks]
    assert render_json(remarks, VERSION) == render_json(remarks, VERSION)


def test_sarif_has_github_fields(remarks, root):
    document = json.loads(render_sarif(remarks, VERSION, str(root)))
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert document["version"] == "2.1.0"
    run = document["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("pdcc", VERSION)
    assert driver["informationUri"] == "https://github.com/pragmadp/pdcc"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
    assert [rule["id"] for rule in driver["rules"]] == [rule.id for rule in rules.ALL_RULES]
    for rule in driver["rules"]:
        assert rule["name"] and rule["shortDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "note")
    levels = [result["level"] for result in run["results"]]
    assert levels == ["none", "none", "warning", "warning", "error"]  # applied and analysis are not alerts
    for remark, result in zip(remarks, run["results"], strict=True):
        assert result["message"]["text"] == remark.message
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"] == remark.rule.id
        physical = result["locations"][0]["physicalLocation"]
        assert physical["region"] == {"startLine": remark.location.line, "startColumn": remark.location.column}
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert result["properties"] == {"kind": remark.kind.value, "pass": remark.pass_name,
                                        "function": remark.function, "site": remark.site, "args": remark.args}
        (fingerprint,) = result["partialFingerprints"].values()
        assert re.fullmatch(r"[0-9a-f]{32}:1", fingerprint)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    assert uris == ["src/bfs.cu", "src/bfs.cu", "src/bfs.cu", "src/tree.cu", "src/bad.cu"]


def test_sarif_uri_is_relative_to_a_relative_root_and_encoded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    remark = Remark(Kind.APPLIED, rules.RDC_ADDED, "added -rdc=true", Location("my dir/k.cu", 1, 1))
    result = json.loads(render_sarif([remark], VERSION, "."))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/k.cu"


def test_sarif_file_outside_root_gets_absolute_uri(remarks, tmp_path):
    elsewhere = tmp_path / "other"
    result = json.loads(render_sarif(remarks[:1], VERSION, str(elsewhere)))["runs"][0]["results"][0]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": Path(remarks[0].location.file).as_uri()}


def test_sarif_lists_a_rule_missing_from_the_catalogue(root):
    rule = Rule("PDCC999", "test-only", "A rule the catalogue does not have.")
    remark = Remark(Kind.ANALYSIS, rule, "fact", Location(str(root / "a.cu"), 2, 1))
    run = json.loads(render_sarif([remark], VERSION, str(root)))["runs"][0]
    driver_rules = run["tool"]["driver"]["rules"]
    assert len(driver_rules) == len(rules.ALL_RULES) + 1
    assert driver_rules[run["results"][0]["ruleIndex"]]["id"] == "PDCC999"


def test_markdown_lists_sites_escapes_pipes_and_details_missed(remarks):
    text = render_markdown(remarks, VERSION)
    assert text.startswith("## ")
    assert "1 applied, 2 missed, 1 analysis, 1 error" in text
    for remark in remarks:
        assert remark.site.replace("_", "\\_") in text
    assert "\\_\\_syncthreads \\| cannot serialise a\\[i\\]" in text
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(table) == 2 + len(remarks)  # header, separator, one row per remark
    assert all(line.count(" | ") == 5 for line in table)  # escaped pipes do not split cells
    assert text.count("<details>") == 2
    assert "**Help:** remove threshold(N) from this pragma" in text


def test_markdown_without_remarks():
    text = render_markdown([], VERSION)
    assert "0 applied, 0 missed, 0 analysis" in text
    assert "| Location" not in text


def test_terminal_lists_sites_but_not_errors(remarks):
    out = StringIO()
    render_terminal(remarks, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    for site in ("bfs_parent_0", "sum_parent_0", "walk_0"):
        assert site in text
    assert "bad_0" not in text and "treshold" not in text
    assert "a[i]" in text  # not swallowed as rich markup
    assert "\x1b[" not in text
    assert text.rstrip().splitlines()[-1] == "1 applied, 2 missed, 1 analysis, 1 error"


def test_terminal_on_stderr_console(remarks, capsys):
    render_terminal(remarks, Console(stderr=True, width=200))
    captured = capsys.readouterr()
    assert "bfs_parent_0" in captured.err and captured.out == ""


@pytest.mark.parametrize(("name", "check"), [
    ("r.json", lambda text: json.loads(text)["summary"]["missed"] == 2),
    ("r.sarif", lambda text: json.loads(text)["version"] == "2.1.0"),
    ("r.SARIF.json", lambda text: json.loads(text)["version"] == "2.1.0"),
    ("r.md", lambda text: text.startswith("## ")),
    ("r.markdown", lambda text: text.startswith("## ")),
    ("r.html", lambda text: text.startswith("<!DOCTYPE html>") and "bfs_parent_0" in text),
])
def test_write_report_picks_format_by_extension(remarks, root, tmp_path, name, check):
    path = tmp_path / name
    write_report(str(path), remarks, VERSION, str(root))
    assert check(path.read_text(encoding="utf-8"))
    assert os.listdir(tmp_path) == [name]  # no temp file left behind


def test_write_report_rejects_unknown_extension(remarks, root, tmp_path):
    with pytest.raises(CommandError, match=r"\.sarif.*\.json.*\.md.*\.html"):
        write_report(str(tmp_path / "r.txt"), remarks, VERSION, str(root))
    assert os.listdir(tmp_path) == []


def test_write_report_replaces_existing_file(remarks, root, tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o640)
    write_report(str(path), remarks, VERSION, str(root))
    assert json.loads(path.read_text())["tool"]["version"] == VERSION
    assert path.stat().st_mode & 0o777 == 0o640


def test_write_report_keeps_existing_file_when_rendering_fails(root, tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    unserialisable = Remark(Kind.ANALYSIS, rules.THREAD_COUNT, "n", Location("k.cu", 1, 1), args={"x": object()})
    with pytest.raises(TypeError):
        write_report(str(path), [unserialisable], VERSION, str(root))
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["r.json"]


def test_write_report_keeps_existing_file_when_writing_fails(remarks, root, tmp_path, monkeypatch):
    path = tmp_path / "r.md"
    path.write_text("old")

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        write_report(str(path), remarks, VERSION, str(root))
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["r.md"]
