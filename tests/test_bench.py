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


def test_sweep_expands_every_combination():
    configurations = bench.sweep_configurations({"threshold": [32, 1024], "coarsen": [1, 4], "consldt": ["none", "grid"]})
    names = [c["clauses"] for c in configurations]
    assert len(names) == 8
    assert "threshold(32)" in names and "threshold(1024) coarsen(4) consldt(grid)" in names
