"""Reports of a whole build (issue 12): unit files per translation unit, `pdcc report DIR -o ...` merging
them into Markdown, SARIF, JSON and HTML, the diff per site, and the terminal's diagnostics and table.

The remarks come from real pdcc runs on the golden inputs (tests/golden/*.cu), copied into a project folder.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pragmadp import __version__, pipeline
from pragmadp.report import rules
from pragmadp.report.build import BuildView
from pragmadp.report.collect import (SUFFIX, make_unit, read_unit, read_units, unit_file_name, unit_files,
                                     write_unit)
from pragmadp.report.command import main as report_main
from pragmadp.report.remarks import Kind, Location, PdccError, Remark
from pragmadp.report.render import write_report
from pragmadp.report.sarif import FINGERPRINT
from pragmadp.report.sitediff import file_diff, split_changes
from pragmadp.report.terminal import MIN_MESSAGE, print_diagnostic, render_terminal

GOLDEN = Path(__file__).parent / "golden"
BENCH_RESULTS = Path(__file__).parent.parent / "bench" / "results" / "2026-12-01-h200-issue9" / "results.json"
GOLDEN_INPUTS = sorted(path for path in GOLDEN.glob("*.cu") if not path.name.endswith(".expected.cu"))
BAD_PRAGMA = "__global__ void child(int n) {}\n__global__ void parent(int n) {\n#pragma dp treshold(32)\n  child<<<1, n>>>(n);\n}\n"


def build_units(project: Path, directory: Path, inputs=GOLDEN_INPUTS, with_error: bool = True) -> list[Path]:
    """pdcc on each input copied into project/src, each unit written as a build with --report-dir would."""
    (project / "src").mkdir(parents=True, exist_ok=True)
    sources = []
    for original in inputs:
        source = project / "src" / original.name
        shutil.copyfile(original, source)
        sources.append(source)
    if with_error:
        (project / "src" / "bad.cu").write_text(BAD_PRAGMA)
        sources.append(project / "src" / "bad.cu")
    for source in sources:
        run_unit(directory, source)
    return sources


def run_unit(directory: Path, source: Path, display: str | None = None) -> None:
    text = source.read_text(encoding="utf-8")
    try:
        result = pipeline.transform_path(str(source), display_path=display or str(source))
    except PdccError as exc:
        write_unit(str(directory), display or str(source), [exc.remark], [], None, text)
        return
    write_unit(str(directory), display or str(source), result.remarks, result.knobs, result.text, text)


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[Path, Path]:
    """A project with every golden input (and one with a pragma error), its unit reports written."""
    project = tmp_path_factory.mktemp("project")
    build_units(project, project / "build" / "pdcc-report")
    return project, project / "build" / "pdcc-report"


def merge(directory: Path, output: Path, *extra: str) -> tuple[int, str]:
    err = StringIO()
    status = report_main([str(directory), "-o", str(output), *extra],
                         Console(file=err, width=100, color_system=None, soft_wrap=True))
    return status, err.getvalue()


# --- unit files -------------------------------------------------------------------------------------------


def test_unit_file_names_are_readable_deterministic_and_distinct(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = unit_file_name("src/kernels.cu")
    assert re.fullmatch(r"kernels\.cu-[0-9a-f]{12}" + re.escape(SUFFIX), name)
    assert unit_file_name(str(tmp_path / "src" / "kernels.cu")) == name  # the same file, relative or absolute
    assert unit_file_name("src/../src/kernels.cu") == name
    assert unit_file_name("other/kernels.cu") != name
    assert unit_file_name("we ird$name(1).cu").startswith("we_ird_name_1_.cu-")


def test_a_unit_file_holds_everything_the_reports_need(build):
    project, directory = build
    source = project / "src" / "coarsen.cu"
    unit = read_unit(str(directory / unit_file_name(str(source))))
    result = pipeline.transform_path(str(source))
    assert unit.path == str(source) and unit.original == source.read_text() and unit.transformed == result.text
    assert [(r.rule, r.message, r.args, r.site, r.function, r.location.line, r.location.end_column)
            for r in unit.remarks] == [(r.rule, r.message, r.args, r.site, r.function, r.location.line,
                                        r.location.end_column) for r in result.remarks]
    assert all(r.rule in rules.ALL_RULES for r in unit.remarks)  # the catalogue's rules, not copies
    assert unit.knobs == result.knobs
    bad = read_unit(str(directory / unit_file_name(str(project / "src" / "bad.cu"))))
    (error,) = bad.remarks
    assert (error.kind, error.rule.id, error.hint) == (Kind.ERROR, "PDCC101", error.hint) and error.hint
    assert bad.transformed is None


def test_remark_paths_are_made_absolute_from_where_pdcc_ran(tmp_path, monkeypatch):
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "missed_barrier.cu", project / "src" / "k.cu")
    monkeypatch.chdir(project)
    run_unit(tmp_path / "units", Path("src/k.cu"), display="src/k.cu")
    (unit,) = read_units(str(tmp_path / "units"))
    assert unit.source == "src/k.cu" and unit.cwd == str(project)
    assert {r.location.file for r in unit.remarks} == {str(project / "src" / "k.cu")}


def _write_many(args: tuple[str, int]) -> int:
    """One of many pdcc processes of a `make -j`: its own units, and all of them one shared unit."""
    directory, worker = args
    result = pipeline.transform_path(str(GOLDEN / "coarsen.cu"))
    original = (GOLDEN / "coarsen.cu").read_text()
    for round_ in range(8):
        write_unit(directory, f"/project/src/unit_{worker}_{round_}.cu", result.remarks, result.knobs, result.text,
                   original)
        write_unit(directory, "/project/src/shared.cu", result.remarks, result.knobs, result.text, original)
    return worker


def test_concurrent_writers_leave_whole_files_only(tmp_path):
    directory = str(tmp_path / "units")
    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        pending = pool.map_async(_write_many, [(directory, worker) for worker in range(6)])
        seen = 0
        while not pending.ready():  # a reader in the middle of the build never sees a partial file
            if os.path.isdir(directory):
                seen = max(seen, len(read_units(directory)))
        assert sorted(pending.get(timeout=120)) == list(range(6))
    names = os.listdir(directory)
    assert len(names) == 6 * 8 + 1 and all(name.endswith(SUFFIX) for name in names)  # no temporary file left
    assert len(read_units(directory)) == 6 * 8 + 1


def test_a_failed_write_leaves_the_previous_unit_file(tmp_path, monkeypatch):
    result = pipeline.transform_path(str(GOLDEN / "coarsen.cu"))
    write_unit(str(tmp_path), "/p/k.cu", result.remarks, result.knobs, result.text, "old")

    def full_disk(_src, _dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_unit(str(tmp_path), "/p/k.cu", [], [], None, "new")
    monkeypatch.undo()
    (unit,) = read_units(str(tmp_path))
    assert unit.original == "old" and os.listdir(tmp_path) == [unit_file_name("/p/k.cu")]


# --- the diff per site ----------------------------------------------------------------------------------


@pytest.mark.parametrize("golden", GOLDEN_INPUTS, ids=lambda path: path.name)
def test_every_changed_line_belongs_to_one_site_or_to_the_rest(golden):
    result = pipeline.transform_path(str(golden))
    original = golden.read_text()
    changes = split_changes(original, result.text, result.remarks)
    assert set(changes.sites) <= {remark.site for remark in result.remarks}
    hunks = [hunk for site_hunks in changes.sites.values() for hunk in site_hunks] + changes.other
    removed = sorted(line for hunk in hunks for line in range(hunk.old_start, hunk.old_start + len(hunk.old)))
    added = sorted(line for hunk in hunks for line in range(hunk.new_start, hunk.new_start + len(hunk.new)))
    diff = file_diff(original, result.text, golden.name).splitlines()
    assert len(removed) == len(set(removed)) == sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    assert len(added) == len(set(added)) == sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    for hunk in hunks:  # each hunk's lines are the file's lines at the place it names
        assert original.splitlines(keepends=True)[hunk.old_start - 1:hunk.old_start - 1 + len(hunk.old)] == hunk.old
        assert result.text.splitlines(keepends=True)[hunk.new_start - 1:hunk.new_start - 1 + len(hunk.new)] == hunk.new


def test_each_site_gets_its_own_rewrite():
    result = pipeline.transform_path(str(GOLDEN / "coarsen.cu"))
    changes = split_changes((GOLDEN / "coarsen.cu").read_text(), result.text, result.remarks)
    assert list(changes.sites) == ["parent_0", "parent_1", "parent_2"]
    for site, pragma, launch in (("parent_0", "threshold(256) coarsen(8)", "scale__pdcc_coarse<<<"),
                                 ("parent_1", "coarsen(4)", "block_reverse__pdcc_coarse<<<"),
                                 ("parent_2", "coarsen(2)", "stencil_2d__pdcc_coarse<<<")):
        diff = changes.site_diff(site)
        assert f"-#pragma dp {pragma}\n" in diff and f"+// pdcc: #pragma dp {pragma}\n" in diff
        assert launch in diff and f"site {site}:" in diff
        assert diff.count("-#pragma dp") == 1
    assert "scale__pdcc_serial(const dim3" in changes.other_diff()  # the child's serial version: no one site's


# --- pdcc report --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["review.md", "review.sarif", "review.json", "review.html"])
def test_pdcc_report_merges_every_unit_deterministically(build, tmp_path, name):
    project, directory = build
    status, err = merge(directory, tmp_path / name, "--report-root", str(project))
    assert (status, err) == (0, "")
    first = (tmp_path / name).read_bytes()
    # another build that wrote the same units in the opposite order gives the same report, byte for byte
    again = tmp_path / "again"
    again.mkdir()
    for unit_path in reversed(unit_files(str(directory))):
        shutil.copyfile(unit_path, again / os.path.basename(unit_path))
    assert merge(again, tmp_path / ("2" + name), "--report-root", str(project))[0] == 0
    assert (tmp_path / ("2" + name)).read_bytes() == first
    text = first.decode("utf-8")
    for golden in GOLDEN_INPUTS:
        assert f"src/{golden.name}" in text


def test_pdcc_report_json_is_the_command_report_of_the_whole_build(build, tmp_path):
    project, directory = build
    assert merge(directory, tmp_path / "r.json", "--report-root", str(project))[0] == 0
    document = json.loads((tmp_path / "r.json").read_text())
    units = read_units(str(directory))
    assert len(document["remarks"]) == sum(len(unit.remarks) for unit in units)
    assert document["summary"]["error"] == 1 and document["summary"]["applied"] > 20
    assert document["root"] == str(project)
    assert {remark["file"] for remark in document["remarks"]} == {f"src/{path.name}" for path in GOLDEN_INPUTS} | \
        {"src/bad.cu"} - {"src/" + p.name for p in GOLDEN_INPUTS if not pipeline.transform_path(str(p)).remarks}
    knobs = {(knob["file"], knob["macro"]) for knob in document["knobs"]}
    assert ("src/coarsen.cu", "PDCC_COARSEN_parent_0") in knobs and ("src/ceil_forms.cu", "PDCC_THRESHOLD_form_a_0") in knobs
    assert len(knobs) == sum(len(unit.knobs) for unit in units)


def test_pdcc_report_errors(build, tmp_path):
    project, directory = build
    status, err = merge(directory, tmp_path / "review.txt")
    assert status == 2 and err.startswith("pdcc: error[PDCC304]: cannot write report")
    assert ".md, .html" in err and not (tmp_path / "review.txt").exists()
    (tmp_path / "empty").mkdir()
    status, err = merge(tmp_path / "empty", tmp_path / "r.md")
    assert status == 1 and "error[PDCC306]: " in err and "holds no unit reports" in err and "--report-dir" in err
    status, err = merge(tmp_path / "missing", tmp_path / "r.md")
    assert status == 1 and "does not exist" in err
    assert not (tmp_path / "r.md").exists()
    broken = tmp_path / "broken"
    shutil.copytree(directory, broken)
    (broken / ("truncated" + SUFFIX)).write_text('{"format": "pdcc-unit-report", "vers')
    status, err = merge(broken, tmp_path / "r.md")
    assert status == 1 and f"truncated{SUFFIX}" in err and "not JSON" in err
    (broken / ("truncated" + SUFFIX)).write_text('{"format": "something else"}')
    assert "not a pdcc unit report" in merge(broken, tmp_path / "r.md")[1]
    status, err = merge(directory, tmp_path / "r.md", "--bench", str(tmp_path / "nope.json"))
    assert status == 1 and "cannot read results" in err
    for argv in ([str(directory)], [str(directory), "-o"], [str(directory), "x", "-o", "r.md"],
                 [str(directory), "-o", "r.md", "--frobnicate"]):
        err_stream = StringIO()
        assert report_main(argv, Console(file=err_stream, width=80, color_system=None)) == 2
        assert err_stream.getvalue().startswith("pdcc: error[PDCC306]") and "usage: pdcc report" in err_stream.getvalue()


def test_pdcc_report_help(capsys):
    assert report_main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: pdcc report DIR -o FILE")


def test_pdcc_report_of_units_written_from_another_directory(build, tmp_path, monkeypatch):
    """CMake compiles in the build tree: the root defaults to the current directory when the sources are
    under it, and to the folder all sources share otherwise."""
    project, directory = build
    monkeypatch.chdir(project)
    assert merge(directory, tmp_path / "a.sarif")[0] == 0
    uris = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in json.loads((tmp_path / "a.sarif").read_text())["runs"][0]["results"]}
    assert "src/coarsen.cu" in uris
    monkeypatch.chdir(tmp_path)
    assert merge(directory, tmp_path / "b.sarif")[0] == 0
    run = json.loads((tmp_path / "b.sarif").read_text())["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (project / "src").as_uri() + "/"
    assert "coarsen.cu" in {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                            for result in run["results"]}


# --- SARIF ----------------------------------------------------------------------------------------------------

_LEVELS = {"none", "note", "warning", "error"}


def check_sarif_shape(document: dict[str, Any]) -> None:
    """The SARIF 2.1.0 schema's constraints on the parts pdcc writes (the venv has no JSON-schema
    validator; these are the schema's required properties, enums and types for them)."""
    assert document["version"] == "2.1.0" and isinstance(document["runs"], list)
    for run in document["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str)
        ids = [rule["id"] for rule in driver["rules"]]
        assert len(ids) == len(set(ids))
        for rule in driver["rules"]:
            assert rule["defaultConfiguration"]["level"] in _LEVELS
            assert isinstance(rule["shortDescription"]["text"], str)
        for base in run["originalUriBaseIds"].values():
            assert base["uri"].endswith("/") and base["uri"].startswith("file:///")
        for result in run["results"]:
            assert isinstance(result["message"]["text"], str) and result["message"]["text"]
            assert result["level"] in _LEVELS
            assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
            assert all(isinstance(key, str) and isinstance(value, str)
                       for key, value in result["partialFingerprints"].items())
            for location in result["locations"]:
                physical = location["physicalLocation"]
                artifact = physical["artifactLocation"]
                assert isinstance(artifact["uri"], str) and " " not in artifact["uri"]
                assert artifact.get("uriBaseId", "%SRCROOT%") in run["originalUriBaseIds"]
                region = physical["region"]
                assert region["startLine"] >= 1 and region["startColumn"] >= 1
                if "endLine" in region:
                    assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])


def _sarif_results(path: Path) -> list[dict[str, Any]]:
    document = json.loads(path.read_text())
    check_sarif_shape(document)
    return document["runs"][0]["results"]


def test_sarif_for_a_whole_build(build, tmp_path):
    project, directory = build
    assert merge(directory, tmp_path / "r.sarif", "--report-root", str(project))[0] == 0
    document = json.loads((tmp_path / "r.sarif").read_text())
    run = document["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": project.as_uri() + "/"}}
    results = _sarif_results(tmp_path / "r.sarif")
    by_kind: dict[str, set[str]] = {}
    for result in results:
        by_kind.setdefault(result["properties"]["kind"], set()).add(result["level"])
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%" and artifact["uri"].startswith("src/")
    assert by_kind == {"applied": {"none"}, "analysis": {"none"}, "missed": {"warning"}, "error": {"error"}}
    prints = [result["partialFingerprints"][FINGERPRINT] for result in results]
    assert len(prints) == len(set(prints))


def test_sarif_fingerprints_survive_moved_lines_and_a_rebuild(tmp_path):
    inputs = [GOLDEN / "coarsen.cu", GOLDEN / "meld_refused.cu", GOLDEN / "missed_barrier.cu"]
    build_units(tmp_path / "a", tmp_path / "a" / "units", inputs)
    build_units(tmp_path / "b", tmp_path / "b" / "units", inputs)
    for source in (tmp_path / "b" / "src").glob("*.cu"):  # the same code, three lines further down
        source.write_text("// a new comment\n\n\n" + source.read_text())
        run_unit(tmp_path / "b" / "units", source)
    results = {}
    for name in ("a", "b"):
        assert merge(tmp_path / name / "units", tmp_path / f"{name}.sarif", "--report-root", str(tmp_path / name))[0] == 0
        results[name] = _sarif_results(tmp_path / f"{name}.sarif")
    assert [r["partialFingerprints"] for r in results["a"]] == [r["partialFingerprints"] for r in results["b"]]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] + 3 for r in results["a"]] == \
        [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results["b"]]
    assert merge(tmp_path / "a" / "units", tmp_path / "a2.sarif", "--report-root", str(tmp_path / "a"))[0] == 0
    assert (tmp_path / "a2.sarif").read_bytes() == (tmp_path / "a.sarif").read_bytes()


def test_sarif_fingerprints_tell_sites_and_arguments_apart(tmp_path):
    build_units(tmp_path, tmp_path / "units", [GOLDEN / "coarsen.cu"], with_error=False)
    assert merge(tmp_path / "units", tmp_path / "r.sarif", "--report-root", str(tmp_path))[0] == 0
    results = _sarif_results(tmp_path / "r.sarif")
    coarsened = [r for r in results if r["ruleId"] == "PDCC550"]
    assert len({r["partialFingerprints"][FINGERPRINT] for r in coarsened}) == 3


# --- Markdown ----------------------------------------------------------------------------------------------


def test_markdown_has_a_collapsed_diff_per_site_and_linked_locations(build, tmp_path):
    project, directory = build
    output = project / "review" / "review.md"
    output.parent.mkdir(exist_ok=True)
    assert merge(directory, output, "--report-root", str(project))[0] == 0
    text = output.read_text()
    assert "| [src/coarsen.cu:26](../src/coarsen.cu#L26) | parent | parent\\_0 | applied |" in text
    prose = re.sub(r"^(`{3,})diff\n.*?\n\1$", "", text, flags=re.S | re.M)  # code may hold `[&](int i)`
    for target in re.findall(r"\]\(([^)]+)\)", prose) + re.findall(r'href="([^"]+)"', prose):
        path, _, anchor = target.partition("#")
        assert (output.parent / path).is_file(), target
        assert re.fullmatch(r"L[0-9]+", anchor)
    sections = re.findall(r"<details><summary>(.*?)</summary>\n\n(`{3,})diff\n(.*?)\n\2\n\n</details>", text, re.S)
    by_site = {}
    for summary, _, diff in sections:
        site = re.fullmatch(r'<a href="[^"]+">([^<]+):[0-9]+</a> (\w+) \((applied|missed|analysis|error)\b.*\)', summary)
        if site:
            assert site.group(1, 2) not in by_site
            by_site[site.group(1, 2)] = diff
    view = BuildView(read_units(str(directory)), str(project))
    changed_sites = {(file.name, site.name) for file in view.files for site in file.sites if site.diff}
    assert set(by_site) == changed_sites and len(changed_sites) > 30
    for file in view.files:
        for site in file.sites:
            assert by_site.get((file.name, site.name), "") == site.diff.rstrip("\n")
    assert "+// pdcc: #pragma dp threshold(256) coarsen(8)" in by_site["src/coarsen.cu", "parent_0"]
    assert '<a href="../src/coarsen.cu#L1">src/coarsen.cu</a> code pdcc adds' in text
    assert "### Missed optimizations" in text and "**Reason:**" in text


def test_single_command_markdown_report_with_units_shows_diffs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(GOLDEN / "coarsen.cu", tmp_path / "k.cu")
    result = pipeline.transform_path("k.cu")
    unit = make_unit("k.cu", result.remarks, result.knobs, result.text, (tmp_path / "k.cu").read_text())
    loose = Remark(Kind.ANALYSIS, rules.RDC_ADDED, "added -rdc=true", Location("k.cu", 1, 1), pass_name="build")
    write_report("r.md", [*result.remarks, loose], __version__, str(tmp_path), result.knobs, units=[unit])
    text = (tmp_path / "r.md").read_text()
    assert "[k.cu:26](k.cu#L26)" in text and "```diff" in text and "PDCC700" in text
    assert text.count("| [k.cu:") == len(result.remarks) + 1
    write_report("r.html", [*result.remarks, loose], __version__, str(tmp_path), result.knobs, units=[unit])
    assert 'class="site k-applied"' in (tmp_path / "r.html").read_text()


# --- HTML ---------------------------------------------------------------------------------------------------


class PageParser(HTMLParser):
    """Collects the elements of the report: each start tag with its attributes and the text inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict[str, Any]] = []
        self.stack: list[dict[str, Any]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, **{name: value or "" for name, value in attrs}, "text": "", "parents": list(self.stack)}
        self.elements.append(element)
        if "id" in element:
            assert element["id"] not in self.ids, f"duplicate id {element['id']}"
            self.ids.add(element["id"])
        if tag not in ("input", "meta", "br"):
            self.stack.append(element)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self.stack:
            element["text"] += data

    def find(self, tag: str, cls: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.elements if e["tag"] == tag and (cls is None or cls in e.get("class", "").split())]


@pytest.fixture(scope="module")
def html_report(build, tmp_path_factory) -> tuple[Path, PageParser, BuildView]:
    project, directory = build
    output = tmp_path_factory.mktemp("html") / "review.html"
    status, err = merge(directory, output, "--report-root", str(project), "--bench", str(BENCH_RESULTS))
    assert (status, err) == (0, "")
    parser = PageParser()
    parser.feed(output.read_text(encoding="utf-8"))
    parser.close()
    return output, parser, BuildView(read_units(str(directory)), str(project))


def test_html_marks_every_site_in_its_source(html_report):
    _, page, view = html_report
    sections = {e["data-path"]: e for e in page.find("section", "file")}
    assert set(sections) == {file.name for file in view.files}
    for file in view.files:
        marks = [e for e in page.find("mark", "site") if sections[file.name] in e["parents"]]
        assert sorted(mark["data-site"] for mark in marks) == sorted(site.name for site in file.sites), file.name
        for mark, site in zip(sorted(marks, key=lambda m: m["data-site"]), sorted(file.sites, key=lambda s: s.name)):
            # <tr id=...-L<line>><td class=code><mark>; two sites on one line nest their marks
            row = next(p for p in reversed(mark["parents"]) if p["tag"] == "tr")
            assert row["id"].endswith(f"-L{site.line}")
            assert mark["text"].strip() in file.original.splitlines()[site.line - 1]


def test_html_shows_each_remark_beside_its_line_and_each_site_with_its_diff(html_report):
    _, page, view = html_report
    rows = [e for e in page.find("tr", "remark") if any(p["tag"] == "table" and "source" in p.get("class", "")
                                                         for p in e["parents"])]
    assert len(rows) == sum(len(file.remarks) for file in view.files if file.original is not None)
    for row in rows:
        assert row["data-rule"] in row["text"] and re.fullmatch(r"PDCC[0-9]{3}", row["data-rule"])
    assert {row["data-rule"] for row in rows} >= {"PDCC500", "PDCC501", "PDCC550", "PDCC560", "PDCC800", "PDCC510",
                                                  "PDCC101"}
    cards = {e["id"]: e for e in page.find("section", "site")}
    assert len(cards) == view.site_count
    diffs = [e for e in page.find("pre", "diff") if any(p["tag"] == "details" and "sitediff" in p.get("class", "")
                                                        for p in e["parents"])]
    assert len(diffs) == sum(1 for file in view.files for site in file.sites if site.diff)
    coarsen = next(card for card_id, card in cards.items() if card["data-site"] == "parent_0"
                   and "coarsen" in next(p for p in card["parents"] if p["tag"] == "section")["data-path"]
                   and not card_id.endswith("-mark"))
    card_diff = next(e for e in diffs if coarsen in e["parents"])
    assert "+// pdcc: #pragma dp threshold(256) coarsen(8)" in card_diff["text"]
    assert "-#pragma dp threshold(256) coarsen(8)" in card_diff["text"]
    for link in page.find("a"):  # every link inside the page lands on an element
        if link.get("href", "").startswith("#"):
            assert link["href"][1:] in page.ids, link["href"]


def test_html_is_self_contained_and_shows_bench_results(html_report):
    output, page, _ = html_report
    text = output.read_text(encoding="utf-8")
    assert not page.find("link") and not [e for e in page.find("script") if e.get("src")]
    assert not [e for e in page.elements if e.get("src")]
    assert all(not e.get("href", "").startswith(("http:", "https:", "//")) for e in page.elements)
    assert re.findall(r"https?://[^\"' ]+", text) == ["http://www.w3.org/2000/svg"] * len(page.find("svg"))
    bench = page.find("section", "bench")
    assert len(bench) == 1 and "results.json" in bench[0]["text"]
    runs = json.loads(BENCH_RESULTS.read_text())["runs"]
    table = next(e for e in page.find("table", "bench") if "median_ms" in e["text"])
    assert len([e for e in page.find("tr") if table in e["parents"]]) == len(runs) + 1
    (chart,) = page.find("svg")
    assert len([e for e in page.find("rect") if chart in e["parents"]]) == min(80, len(runs))


# --- headless Chromium -----------------------------------------------------------------------------------

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)


def read_png(path: Path) -> tuple[int, int, int, list[bytes]]:
    """Width, height, channels and rows of an 8-bit RGB(A) PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, compressed, header = 8, b"", (0, 0, 0, 0, 0, 0, 0)
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6)
    channels = 3 if color == 2 else 4
    raw, stride = zlib.decompress(compressed), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def _colour_count(rows: list[bytes], channels: int, rgb: tuple[int, int, int]) -> int:
    pixel = bytes(rgb)
    return sum(1 for row in rows for x in range(0, len(row), channels) if row[x:x + 3] == pixel)


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium here (chromium, chromium-browser, google-chrome: "
                                             "apt-get install chromium)")
def test_html_in_headless_chromium(tmp_path):
    """A screenshot of the report of one file: the site highlight, the kind badges and the source are drawn;
    the DOM Chromium builds (after the script ran) has a mark per site and a remark row per remark."""
    build_units(tmp_path, tmp_path / "units", [GOLDEN / "missed_barrier.cu", GOLDEN / "three_d.cu"], with_error=False)
    output = tmp_path / "review.html"
    assert merge(tmp_path / "units", output, "--report-root", str(tmp_path))[0] == 0
    dom = _chromium("--dump-dom", output.as_uri(), profile=tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = PageParser()
    page.feed(dom.stdout)
    assert [(mark["data-site"], mark["class"]) for mark in page.find("mark", "site")] == [
        ("parent_0", "site k-missed"), ("volume_parent_0", "site k-applied")]
    beside_lines = [row["data-rule"] for row in page.find("tr", "remark")
                    if any("source" in parent.get("class", "").split() for parent in row["parents"])]
    assert beside_lines == ["PDCC510", "PDCC530", "PDCC500", "PDCC501"]  # by line, file by file
    shot = tmp_path / "shot.png"
    done = _chromium(f"--screenshot={shot}", "--window-size=1000,2600", output.as_uri(), profile=tmp_path / "profile")
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, channels, rows = read_png(shot)
    assert (width, height) == (1000, 2600)
    assert _colour_count(rows, channels, (0xdd, 0xf4, 0xff)) > 500    # an applied site's highlight
    assert _colour_count(rows, channels, (0xff, 0xf8, 0xc5)) > 500    # the missed site's highlight
    assert _colour_count(rows, channels, (0x1a, 0x7f, 0x37)) > 100    # 'applied' badges
    assert _colour_count(rows, channels, (0xbf, 0x87, 0x00)) > 50     # the 'missed' badge
    dark = sum(1 for row in rows for x in range(0, len(row), channels) if max(row[x:x + 3]) < 80)
    assert dark > 20000  # text: the source and the remarks


# --- terminal -------------------------------------------------------------------------------------------------

LONG_DIRECTORY = "/" + "/".join(["a-rather-long-directory-name"] * 4)


def long_path(name: str) -> str:
    path = f"{LONG_DIRECTORY}/{'x' * (150 - len(LONG_DIRECTORY) - len(name) - 2)}/{name}"
    assert len(path) == 150
    return path


@pytest.mark.parametrize("width", [80, 120])
def test_a_diagnostic_is_never_hard_wrapped(tmp_path, width):
    source = tmp_path / "bad.cu"
    source.write_text(BAD_PRAGMA)
    path = long_path("bad.cu")
    with pytest.raises(PdccError) as caught:
        pipeline.transform_path(str(source), display_path=path)
    out = StringIO()
    print_diagnostic(Console(file=out, width=width, color_system=None), caught.value.remark.render_text())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"{path}:3:12: error[PDCC101]: unknown clause 'treshold' in '#pragma dp'; did you mean")
    assert out.getvalue() == caught.value.remark.render_text() + "\n"
    assert lines[1:3] == ["  #pragma dp treshold(32)", "             ^~~~~~~~"]
    assert len(lines) == 4 and lines[3].startswith("  = help: known clauses: threshold, coarsen, ")


@pytest.mark.parametrize("width", [80, 120])
def test_the_remarks_table_keeps_a_readable_message_column(width):
    path = long_path("coarsen.cu")
    result = pipeline.transform_path(str(GOLDEN / "coarsen.cu"), display_path=path)
    out = StringIO()
    render_terminal(result.remarks, Console(file=out, width=width, color_system=None))
    lines = out.getvalue().splitlines()
    assert path in lines  # the file's name whole, on a line of its own
    table = [line for line in lines if line.startswith(("┃", "│", "┏", "┡", "└"))]
    assert table and all(len(line) <= width for line in table)
    message_column = max(len(cell) for line in table if line.startswith("│") for cell in [line.split("│")[4]])
    assert message_column >= MIN_MESSAGE
    joined = " ".join(line.split("│")[4].strip() for line in table if line.startswith("│"))
    for remark in result.remarks:
        assert f"{remark.message} [{remark.rule.id}]" in joined
        assert f"{remark.location.line}:{remark.location.column}" in out.getvalue()
    assert lines[-1] == "4 applied, 0 missed, 2 analysis"


def test_a_terminal_too_narrow_for_the_table_gets_one_remark_per_line():
    path = long_path("coarsen.cu")
    result = pipeline.transform_path(str(GOLDEN / "coarsen.cu"), display_path=path)
    out = StringIO()
    render_terminal(result.remarks, Console(file=out, width=60, color_system=None))
    lines = out.getvalue().splitlines()
    for remark in result.remarks:
        line = f"{path}:{remark.location.line}:{remark.location.column}: {remark.kind.value}[{remark.rule.id}]: " \
               f"{remark.site}: {remark.message}"
        assert line in lines
    assert not any(line.startswith("│") for line in lines)


def test_the_table_shows_a_path_under_the_current_directory_relative(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    result = pipeline.transform_path(str(GOLDEN / "missed_barrier.cu"),
                                     display_path=str(tmp_path / "deep" / "src" / "k.cu"))
    out = StringIO()
    render_terminal(result.remarks, Console(file=out, width=120, color_system=None))
    assert "deep/src/k.cu" in out.getvalue().splitlines() and str(tmp_path) not in out.getvalue()
