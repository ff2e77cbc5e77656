"""The benchmark harness's own logic, on made-up results: no GPU, no timing."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import run as bench  # noqa: E402  (bench/ is a folder of scripts, not a package)


def result(variant: str, ms: float | None, status: str = "ok", detail: str = "") -> bench.Run:
    return bench.Run("spmv", "in", variant, ms, status == "ok", status, detail)


def test_wrong_results_show_as_wrong_never_as_a_time_and_mark_ratios():
    runs = [result("naive", 4.0, "WRONG", "12 of 100 rows wrong"), result("flat", 2.0), result("best", 0.5),
            result("threshold 128", 1.0), result("threshold 1024", None, "TIMEOUT")]
    text, summary = bench.table(runs, ["threshold 128", "threshold 1024"])
    naive_row = next(line for line in text.splitlines() if line.startswith("| naive"))
    assert "WRONG: 12 of 100 rows wrong" in naive_row
    pdcc_row = next(line for line in text.splitlines() if line.startswith("| threshold 128 |"))
    assert "| 4.00* | 2.00 | 0.50 |" in pdcc_row
    assert "| threshold 1024 | TIMEOUT | TIMEOUT |" in text
    assert summary["vs naive (naive correct)"] is None and summary["vs flat"] == 2.0


def test_configuration_clauses_replace_only_threshold_sites(tmp_path: Path):
    source = tmp_path / "x_dp.cu"
    source.write_text("  #pragma dp threshold(128)\n  k<<<1, 1>>>();\n#pragma dp consldt(block) work(c)\n")
    copy = bench.with_clauses(source, "threshold(64) coarsen(4)", tmp_path)
    assert copy.read_text() == ("  #pragma dp threshold(64) coarsen(4)\n  k<<<1, 1>>>();\n"
                                "#pragma dp consldt(block) work(c)\n")
    source.write_text("#pragma dp consldt(block) work(c)\n")
    assert bench.with_clauses(source, "threshold(64)", tmp_path) is None


def test_geometric_mean():
    assert abs(bench.geomean([2.0, 8.0]) - 4.0) < 1e-12 and bench.geomean([]) is None


def test_sweep_expands_every_point_of_the_grid():
    grid = {"threshold": [32, 1024], "coarsen": [1, 4], "consldt": ["none", "multiblock", "grid"], "multiblock": [1, 64]}
    names = [c["clauses"] for c in bench.sweep_configurations(grid)]
    assert len(names) == len(set(names)) == 4 + 8 + 4
    assert "threshold(32)" in names and "threshold(1024) coarsen(4) consldt(grid)" in names
    assert "threshold(32) coarsen(4) consldt(multiblock(64))" in names


def test_tuning_takes_the_fastest_correct_value_of_each_knob_in_turn():
    grid = {"threshold": [32, 128, 1024], "coarsen": [1, 4, 16], "consldt": ["none", "multiblock"],
            "multiblock": [1, 8, 64], "start": {"threshold": 128, "coarsen": 4, "multiblock": 8}}
    cost = {"threshold(32)": 1.0, "threshold(1024)": 9.0, "coarsen(4)": 0.2, "multiblock(64)": 0.5}  # wrong: threshold(1024)
    asked = []

    def measure(clauses: list[str]) -> list[bench.Run]:
        asked.extend(clauses)
        return [result(c, 10.0 - sum(v for k, v in cost.items() if k in c and k != "threshold(1024)"),
                       "WRONG" if "threshold(1024)" in c else "ok") for c in clauses]

    bench.tune(grid, measure)
    assert asked[:3] == ["threshold(32) coarsen(4)", "threshold(128) coarsen(4)", "threshold(1024) coarsen(4)"]
    assert asked[3:6] == ["threshold(32)", "threshold(32) coarsen(4)", "threshold(32) coarsen(16)"]
    assert asked[-3:] == [f"threshold(32) coarsen(4) consldt(multiblock({k}))" for k in (1, 8, 64)]
    assert len(asked) == 6 + 9


def test_summary_compares_with_the_fastest_aggregation_only_configuration():
    runs = [result("naive", 8.0), result("flat", 4.0), result("best", 1.0), result("agg grid", 6.0),
            result("agg block", 3.0), result("tuned", 1.5)]
    text, summary = bench.table(runs, ["agg grid", "agg block", "tuned"], ["agg grid", "agg block"])
    assert summary["vs aggregation alone"] == 2.0 and abs(summary["vs naive (naive correct)"] - 8.0 / 1.5) < 1e-9
    assert "Fastest pdcc configuration: `tuned` (1.500 ms)." in text


def test_results_of_two_sessions_merge_into_one_table(tmp_path: Path, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    for directory, sample in ((first, "spmv"), (second, "bfs")):
        directory.mkdir()
        runs = [bench.Run(sample, "in", v, ms, True, "ok") for v, ms in (("naive", 8.0), ("flat", 2.0), ("t", 1.0))]
        bench.save(directory, runs, ["t"], [], 5)
    assert bench.merge([str(first / "results.json"), str(second / "results.json")], tmp_path / "m") == 0
    text = (tmp_path / "m" / "results.md").read_text()
    assert "### spmv: in" in text and "### bfs: in" in text and "| vs naive (all inputs) | 8.00 | 2 |" in text
    assert text.startswith("Each time is the median of 5 timed runs after a warm-up.")
    bench.save(first, [], [], [], 3)
    assert "a preview, not a measurement" in (first / "results.md").read_text()


def test_each_input_runs_the_configured_variants_and_its_own_tuning_once(tmp_path: Path, monkeypatch):
    config = {"arch": "sm_90", "timeout_s": 1, "pdcc_configurations": [
        {"name": "t128c4", "clauses": "threshold(128) coarsen(4)"},
        {"name": "agg", "clauses": "consldt(grid)", "role": "aggregation only"}],
        "sweep": {"threshold": [32, 128], "coarsen": [1, 4], "consldt": ["none", "grid"],
                  "start": {"threshold": 128, "coarsen": 4}}}
    ran = []

    def fake_run(binary, sample, label, variant, *rest):
        ran.append((label, variant))
        return bench.Run(sample, label, variant, 1.0 + len(variant) / 100, True, "ok")

    monkeypatch.setattr(bench, "run_one", fake_run)
    monkeypatch.setattr(bench, "build_many", lambda plans, out: {(p[0], p[1]): tmp_path for p in plans})
    monkeypatch.setattr(bench, "pdcc_plan", lambda name, variant, clauses, arch, out: (name, variant))
    (tmp_path / "logs").mkdir()
    binaries = {("s", v): tmp_path for v in ("naive", "flat", "best", "t128c4", "agg")}
    session = bench.Session(config, tmp_path, 3, binaries)
    for label in ("first", "second"):
        session.run_input("s", {"label": label, "args": []}, tmp_path, True)
    first = [v for label, v in ran if label == "first"]
    second = [v for label, v in ran if label == "second"]
    assert first == second and len(first) == len(set(first))            # nothing twice, nothing carried over
    assert "threshold(128) coarsen(4)" not in first and "t128c4" in first  # the tuned start point is the named run
    assert (tmp_path / "results.json").exists() and "agg" in session.aggregation_names


def test_a_check_against_earlier_results_runs_each_inputs_recorded_fastest_configuration(tmp_path: Path, monkeypatch):
    config = {"arch": "sm_90", "timeout_s": 1, "pdcc_configurations": [
        {"name": "t1024", "clauses": "threshold(1024)"},
        {"name": "agg block", "clauses": "consldt(block)", "role": "aggregation only"}]}
    previous = {"runs": [{"sample": "s", "input": "a", "variant": v, "median_ms": ms, "status": status}
                         for v, ms, status in (("naive", 0.1, "WRONG"), ("flat", 3.0, "ok"), ("t1024", 2.0, "ok"),
                                               ("threshold(32) consldt(grid)", 1.0, "ok"),
                                               ("threshold(64)", 0.5, "WRONG"))]
                + [{"sample": "s", "input": "b", "variant": v, "median_ms": ms, "status": "ok"}
                   for v, ms in (("t1024", 2.0), ("agg block", 1.0))]}
    recorded = bench.recorded_fastest(previous, config)
    assert recorded == {("s", "a"): ("threshold(32) consldt(grid)", "threshold(32) consldt(grid)", 1.0),
                        ("s", "b"): ("agg block", "consldt(block)", 1.0)}  # wrong and plain runs never count

    now = {"threshold(32) consldt(grid)": 1.04, "agg block": 1.2}  # a: within the noise; b: 20 % slower
    ran = []

    def fake_run(binary, sample, label, variant, *rest):
        ran.append((label, variant))
        return bench.Run(sample, label, variant, now.get(variant, 5.0), True, "ok")

    monkeypatch.setattr(bench, "run_one", fake_run)
    monkeypatch.setattr(bench, "build_many", lambda plans, out: {(p[0], p[1]): tmp_path for p in plans})
    monkeypatch.setattr(bench, "pdcc_plan", lambda name, variant, clauses, arch, out: (name, variant))
    (tmp_path / "logs").mkdir()
    config["pdcc_configurations"] = config["pdcc_configurations"][1:]  # as main keeps: aggregation only
    session = bench.Session(config, tmp_path, 5, {("s", v): tmp_path for v in ("naive", "flat", "best", "agg block")})
    for label in ("a", "b"):
        session.run_input("s", {"label": label, "args": []}, tmp_path, False, [recorded[("s", label)][1]])
    assert [v for label, v in ran if label == "a"] == ["naive", "flat", "best", "agg block", "threshold(32) consldt(grid)"]
    assert [v for label, v in ran if label == "b"] == ["naive", "flat", "best", "agg block"]  # recorded = configured
    rows = bench.comparison(session.runs, recorded, session.named).splitlines()
    assert rows[2] == ("| s: a | `threshold(32) consldt(grid)` | 1.000 | 1.040 | `threshold(32) consldt(grid)` "
                       "| 1.040 | 1.04 | ok |")
    assert rows[3] == "| s: b | `agg block` | 1.000 | 1.200 | `agg block` | 1.200 | 1.20 | SLOWER |"
