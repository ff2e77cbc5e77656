"""The benchmark harness's own logic, on made-up results: no GPU, no timing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


def test_the_plot_shows_the_four_ratios_of_each_input_over_flat(tmp_path: Path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.axes
    drawn, bar = [], matplotlib.axes.Axes.bar

    def recorded(axis, x, heights, *args, **keywords):
        drawn.append((keywords["label"], heights))
        return bar(axis, x, heights, *args, **keywords)
    monkeypatch.setattr(matplotlib.axes.Axes, "bar", recorded)
    runs = [result("naive", 8.0, "WRONG"), result("flat", 4.0), result("best", 1.0), result("agg grid", 8.0),
            result("agg block", 2.0), result("tuned", 0.5)]
    assert bench.plot(runs, ["agg grid", "agg block", "tuned"], ["agg grid", "agg block"], tmp_path / "r.png") \
        == f"plot: {tmp_path / 'r.png'}"
    assert drawn == [("naive", [0]), ("fastest aggregation alone", [2.0]), ("fastest pdcc", [8.0]), ("best", [4.0])]
    assert (tmp_path / "r.png").stat().st_size > 0


def test_tuning_starts_no_knob_past_its_deadline(monkeypatch):
    grid = {"threshold": [32, 128], "coarsen": [1, 4], "consldt": ["none", "grid"],
            "start": {"threshold": 128, "coarsen": 4}}
    clock = iter(range(100))
    monkeypatch.setattr(bench.time, "monotonic", lambda: next(clock))
    asked = []

    def measure(clauses: list[str]) -> list[bench.Run]:
        asked.append(clauses)
        return [result(c, 1.0) for c in clauses]

    assert bench.tune(grid, measure, until=2) is False  # knobs start at t = 0 and 1, not 2
    assert len(asked) == 2
    assert bench.tune(grid, lambda clauses: [result(c, 1.0) for c in clauses]) is True


def test_each_part_of_make_bench_runs_its_own_samples():
    samples = [{"name": "spmv"}, {"name": "tree", "consolidations": []}, {"name": "bfs"}]
    names = {only: [s["name"] for s in bench.part_samples(samples, only, None)] for only in (None, *bench.PARTS)}
    assert names == {None: ["spmv", "tree", "bfs"], "dp": ["spmv", "tree", "bfs"], "aggregation": ["spmv", "bfs"],
                     "recursion": ["tree"], "meld": []}
    assert [s["name"] for s in bench.part_samples(samples, "aggregation", ["bfs", "tree"])] == ["bfs"]
    config = json.loads((ROOT / "bench" / "config.json").read_text())
    parts = [{s["name"] for s in bench.part_samples(config["samples"], only, None)} for only in ("aggregation", "recursion")]
    assert parts[0] and parts[1] and not parts[0] & parts[1]
    assert parts[0] | parts[1] == {s["name"] for s in config["samples"]}  # together, every sample once


def test_past_the_time_budget_nothing_starts_and_the_tables_say_what_was_cut(tmp_path: Path, monkeypatch):
    config = {"arch": "sm_90", "timeout_s": 1, "pdcc_configurations": [{"name": "t", "clauses": "threshold(128)"}],
              "sweep": {"threshold": [32, 128], "coarsen": [1], "consldt": ["none"], "start": {"threshold": 128, "coarsen": 1}}}
    monkeypatch.setattr(bench, "run_one", lambda binary, sample, label, variant, *rest:
                        bench.Run(sample, label, variant, 1.0, True, "ok"))
    (tmp_path / "logs").mkdir()
    binaries = {("s", v): tmp_path for v in ("naive", "flat", "best", "t")}
    session = bench.Session(config, tmp_path, 5, binaries, ncu="ncu", deadline=bench.time.monotonic() - 1)
    session.run_input("s", {"label": "late", "args": []}, tmp_path, True)
    assert {r.variant for r in session.runs} == {"naive", "flat", "best", "t"}  # no tuning point, no profile
    assert session.notes == ["s: late: tuning stopped at its share of the budget", "s: late: not profiled"]
    text = (tmp_path / "results.md").read_text()
    assert "## Cut short by the time budget (`--budget-s`)" in text and "- s: late: not profiled" in text
    shares = []
    monkeypatch.setattr(bench.time, "monotonic", lambda: 100.0)
    monkeypatch.setattr(session, "run_input", lambda name, item, data, tune_it, also, until: shares.append(until))
    session.config["samples"] = [{"name": "s", "inputs": [{"label": label, "args": []} for label in "abc"]}]
    session.deadline = 130.0
    session.run_inputs(tmp_path, True, {})
    assert shares == [110.0, 115.0, 130.0]  # what is left over the inputs left (the clock stands still here)
    session.deadline = 100.0
    session.run_inputs(tmp_path, True, {})
    assert session.notes[-3:] == ["s: a was not run", "s: b was not run", "s: c was not run"]
    merged = tmp_path / "merged"
    assert bench.merge([str(tmp_path / "results.json")], merged) == 0
    assert json.loads((merged / "results.json").read_text())["notes"] == session.notes


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


# ---- the control-flow melding part (issue 10) -----------------------------------------------------------

NCU_DETAILS = '''==PROF== Connected to process 4242 (/tmp/bitonic)
==PROF== Profiling "bitonic_sort_tiles" - 0: 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed.sum","inst","3,000,000"
"0","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","smsp__thread_inst_executed_per_inst_executed.ratio","","20.5"
"1","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed.sum","inst","1,000,000"
"1","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","smsp__thread_inst_executed_per_inst_executed.ratio","","32"
"0","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","1,500"
"1","4242","bitonic","127.0.0.1","bitonic_sort_tiles","1","7","(128, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","500"
'''
NCU_RAW = '''"ID","Process ID","Kernel Name","smsp__inst_executed.sum","smsp__thread_inst_executed_per_inst_executed.ratio"
"","","","inst",""
"0","1","k","2000","16"
'''


def test_ncu_csv_is_read_per_launch_and_combined_by_instruction_count():
    launches = bench.parse_ncu_csv(NCU_DETAILS)
    ratio, inst, duration = bench.NCU_METRICS
    assert launches == [{inst: 3e6, ratio: 20.5, duration: 1500.0}, {inst: 1e6, ratio: 32.0, duration: 500.0}]
    threads, instructions, microseconds = bench.combine_launches(launches)
    assert instructions == 4e6 and abs(threads - (20.5 * 3 + 32 * 1) / 4) < 1e-12 and microseconds == 2.0
    assert bench.combine_launches(bench.parse_ncu_csv(NCU_RAW)) == (16.0, 2000.0, None)  # no time: none shown
    assert bench.parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM") == [] and bench.combine_launches([]) == (None, None, None)


NCU_PROFILE = """"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
"0","1","walk","sm__warps_active.avg.pct_of_peak_sustained_active","%","50"
"0","1","walk","smsp__thread_inst_executed_per_inst_executed.ratio","","16"
"0","1","walk","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","10"
"0","1","walk","gpu__time_duration.sum","nsecond","3,000"
"1","1","walk__pdcc_level","sm__warps_active.avg.pct_of_peak_sustained_active","%","90"
"1","1","walk__pdcc_level","smsp__thread_inst_executed_per_inst_executed.ratio","","32"
"1","1","walk__pdcc_level","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","70"
"1","1","walk__pdcc_level","gpu__time_duration.sum","nsecond","1,000"
"""


def test_a_profile_weights_each_launchs_metrics_by_its_time():
    summary = bench.summarize_profile(bench.parse_ncu_csv(NCU_PROFILE, bench.PROFILE_METRICS))
    assert summary == {"launches": 2, "kernel_us": 4.0, "occupancy_pct": 60.0,    # (50 * 3 + 90 * 1) / 4
                       "warp_efficiency_pct": 62.5, "dram_pct_of_peak": 25.0}      # (16 * 3 + 32) / 4 / 32
    assert bench.summarize_profile([]) is None


def test_profile_dp_profiles_the_fastest_pdcc_build_and_the_best_version(tmp_path: Path, monkeypatch):
    config = {"arch": "sm_90", "timeout_s": 1, "pdcc_configurations": [{"name": "fast", "clauses": "x"},
                                                                       {"name": "slow", "clauses": "y"}]}
    times = {"naive": 9.0, "flat": 3.0, "best": 1.0, "fast": 2.0, "slow": 4.0}
    monkeypatch.setattr(bench, "run_one", lambda binary, sample, label, variant, *rest:
                        bench.Run(sample, label, variant, times[variant], True, "ok"))
    profiled = []
    monkeypatch.setattr(bench, "profile_summary", lambda ncu, binary, args, timeout, workdir:
                        (profiled.append(binary.name) or {"launches": 1, "kernel_us": 1.0, "occupancy_pct": 50.0,
                                                          "warp_efficiency_pct": 90.0, "dram_pct_of_peak": 20.0}, ""))
    (tmp_path / "logs").mkdir()
    binaries = {("s", v): tmp_path / v for v in times}
    session = bench.Session(config, tmp_path, 3, binaries, ncu="ncu")
    session.run_input("s", {"label": "in", "args": []}, tmp_path, False)
    assert profiled == ["fast", "best"]
    text = (tmp_path / "results.md").read_text()
    assert "| s | in | fast | 1 | 1.0 | 50.0 | 90.0 | 20.0 |" in text and "| s | in | best |" in text


def fake_program(path: Path, line: str, status: int = 0) -> Path:
    path.write_text(f"#!/bin/sh\necho 'noise'\necho '{line}'\nexit {status}\n")
    path.chmod(0o755)
    return path


def test_a_meld_run_is_wrong_failed_or_timed_never_both(tmp_path: Path):
    ok = '{"median_ms": 2.0, "correct": true, "detail": "fine", "checksum": "ab"}'
    wrong = '{"median_ms": 1.0, "correct": false, "detail": "3 tiles not ascending", "checksum": "cd"}'
    log = tmp_path / "log"
    run = bench.run_meld(fake_program(tmp_path / "a", ok), "s", "in", "pdcc", [], 5, 10, log)
    assert (run.status, run.median_ms, run.checksum) == ("ok", 2.0, "ab")
    run = bench.run_meld(fake_program(tmp_path / "b", wrong, 1), "s", "in", "pdcc", [], 5, 10, log)
    assert (run.status, run.detail) == ("WRONG", "3 tiles not ascending")
    run = bench.run_meld(fake_program(tmp_path / "c", "", 2), "s", "in", "pdcc", [], 5, 10, log)
    assert run.status == "FAILED"
    assert bench.run_meld(None, "s", "in", "pdcc", [], 5, 10, log).status == "NOT BUILT"


def meld_run(sample: str, label: str, variant: str, ms: float, status: str = "ok", checksum: str = "c") -> bench.MeldRun:
    return bench.MeldRun(sample, label, variant, ms, status == "ok", status, "", checksum)


def test_meld_table_gives_speed_ups_per_input_and_geometric_means_over_samples():
    meld = bench.MeldResults(reps=5, runs=[
        meld_run("a", "x", "original", 2.0), meld_run("a", "x", "pdcc", 1.0), meld_run("a", "x", "hand", 1.0, checksum="d"),
        meld_run("a", "y", "original", 8.0), meld_run("a", "y", "pdcc", 2.0), meld_run("a", "y", "hand", 4.0),
        meld_run("b", "x", "original", 1.0), meld_run("b", "x", "pdcc", 1.0), meld_run("b", "x", "hand", 0.5, "WRONG")],
        remarks={"a": ["line 3: applied PDCC800: branches melded"], "b": ["line 9: missed PDCC802: below the threshold"]})
    meld.runs[1].threads_per_inst, meld.runs[1].inst_executed = 31.5, 2.5e6
    meld.runs[0].kernel_us, meld.runs[1].kernel_us = 30.0, 10.0   # a's melded kernel: 3x on input x, x only
    meld.runs[6].kernel_us, meld.runs[7].kernel_us = 5.0, 4.0      # b declined: counts 1.0 whatever it measured
    text, summary = bench.meld_table(meld)
    a, b = summary["per_sample"]["a"], summary["per_sample"]["b"]  # a: pdcc 2x and 4x, hand 2x and 2x
    assert abs(a["pdcc"] - 8 ** 0.5) < 1e-12 and abs(a["hand"] - 2.0) < 1e-12 and a["pdcc_melded"] and a["inputs"] == 2
    assert b["hand"] is None and b["pdcc_melded"] is False  # b's hand run was wrong: no speed-up
    assert abs(summary["pdcc"] - 8 ** 0.25) < 1e-12 and summary["pdcc_lowest"] == 1.0
    assert summary["pdcc_declined_as_1"] == summary["pdcc"]  # b measured 1.0 and counts 1.0
    assert abs(a["pdcc_kernels"] - 3.0) < 1e-12 and abs(summary["pdcc_kernels"] - 3 ** 0.5) < 1e-12
    assert "| pdcc | 1.000 | correct | 2.00 | 31.5 | 2.5 | 10.0 | same |" in text
    assert "| hand | 1.000 | correct | 2.00 | - | - | - | differs |" in text
    assert "| hand | 0.500 | WRONG |" in text and "- line 9: missed PDCC802: below the threshold" in text


def test_meld_results_are_saved_beside_or_without_the_dp_tables_and_merge(tmp_path: Path):
    meld = bench.MeldResults(reps=5, runs=[meld_run("a", "x", "original", 2.0), meld_run("a", "x", "pdcc", 1.0)],
                             remarks={"a": []})
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    text = bench.save(first, [], [], [], 5, meld)
    assert "Control-flow melding" in text and "Geometric mean, best pdcc" not in text
    saved = json.loads((first / "results.json").read_text())
    assert saved["meld"]["summary"]["pdcc"] == 2.0 and saved["runs"] == []
    runs = [bench.Run("spmv", "in", v, ms, True, "ok") for v, ms in (("naive", 8.0), ("t", 1.0))]
    both = bench.save(second, runs, ["t"], [], 5, meld)
    assert both.index("### spmv: in") < both.index("Control-flow melding")
    other = bench.MeldResults(reps=5, runs=[meld_run("b", "x", "original", 1.0), meld_run("b", "x", "pdcc", 2.0)],
                              remarks={"b": []})
    bench.save(second, [], [], [], 5, other)
    assert bench.merge([str(first / "results.json"), str(second / "results.json")], tmp_path / "m") == 0
    merged = json.loads((tmp_path / "m" / "results.json").read_text())["meld"]
    assert set(merged["summary"]["per_sample"]) == {"a", "b"} and abs(merged["summary"]["pdcc"] - 1.0) < 1e-12


def test_meld_builds_original_pdcc_and_hand_with_the_right_flags(tmp_path: Path):
    config = json.loads((ROOT / "bench" / "config.json").read_text())
    plans = bench.meld_plans(config, bench.meld_selected(config, ["meld_bitonic"]), tmp_path)
    assert [(p[0], p[1], p[3].name) for p in plans] == [("meld_bitonic", "original", "bitonic.cu"),
                                                        ("meld_bitonic", "pdcc", "bitonic.cu"),
                                                        ("meld_bitonic", "hand", "bitonic_hand.cu")]
    original, pdcc, hand = (p[4] for p in plans)
    assert "20199" in original and "20199" not in pdcc and "20199" not in hand
    assert "--report" in pdcc and pdcc[pdcc.index("--report") + 1].endswith("pdcc-report-meld_bitonic.json")
    assert plans[1][2] == bench.pdcc_command()


def test_every_configured_meld_sample_exists_with_its_profiled_kernels():
    config = json.loads((ROOT / "bench" / "config.json").read_text())["meld"]
    assert config["reps"] >= 5
    names = [s["name"] for s in config["samples"]]
    assert sorted(names) == sorted(p.name.removeprefix("meld_") for p in (ROOT / "samples").glob("meld_*")
                                   if (p / f"{p.name.removeprefix('meld_')}.cu").exists())
    for sample in config["samples"]:
        directory = ROOT / "samples" / f"meld_{sample['name']}"
        assert all(0 <= index < len(sample["inputs"]) for index in sample.get("profile", []))
        for source in (f"{sample['name']}.cu", f"{sample['name']}_hand.cu"):
            text = "".join(p.read_text() for p in (directory / source, *directory.glob("*.cuh")))
            for kernel in sample["kernels"]:
                assert f"__global__ void {kernel}(" in text, (source, kernel)


def test_the_meld_part_times_every_build_of_every_input_then_profiles_them(tmp_path: Path, monkeypatch):
    config = {"arch": "sm_90", "meld": {"reps": 5, "timeout_s": 10, "samples": [
        {"name": "s", "kernels": ["k1", "k2"], "launches": 2, "profile": [1],
         "inputs": [{"label": "small", "args": ["--size", "1"]}, {"label": "large", "args": ["--size", "2"]}]}]}}
    binaries = {("meld_s", v): fake_program(tmp_path / v, f'{{"median_ms": {ms}, "correct": true, "checksum": "x"}}')
                for v, ms in (("original", 2.0), ("pdcc", 1.6), ("hand", 1.0))}
    ncu = tmp_path / "ncu"
    ncu.write_text("#!/bin/sh\nwhile [ \"$1\" != --log-file ]; do shift; done\n"
                   f"cat > \"$2\" <<'EOF'\n{NCU_DETAILS}EOF\necho \"$@\" >> {tmp_path / 'ncu-args'}\n")
    ncu.chmod(0o755)
    monkeypatch.setattr(bench, "ncu_command", lambda: str(ncu))
    (tmp_path / "logs").mkdir()
    meld = bench.MeldResults(reps=5)
    saved = []
    bench.run_meld_part(config, config["meld"]["samples"], tmp_path, binaries, meld, lambda: saved.append(len(meld.runs)))
    assert [(r.input, r.variant) for r in meld.runs] == [(i, v) for i in ("small", "large")
                                                        for v in ("original", "pdcc", "hand")]
    assert saved == [3, 6]
    profiled = [r for r in meld.runs if r.inst_executed is not None]
    assert [r.input for r in profiled] == ["large"] * 3 and profiled[0].inst_executed == 4e6
    assert profiled[0].kernel_us == 2.0
    calls = (tmp_path / "ncu-args").read_text().splitlines()
    assert len(calls) == 3 and all("--size 2 --reps 1 --no-check" in c for c in calls)
    assert meld.remarks == {"s": ["no pdcc report (the build failed?)"]}
    del config["meld"]["samples"][0]["profile"]  # without a list: every input
    bench.run_meld_part(config, config["meld"]["samples"], tmp_path, binaries, bench.MeldResults(reps=5), lambda: None)
    assert len((tmp_path / "ncu-args").read_text().splitlines()) == 3 + 6
