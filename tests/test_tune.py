"""`pdcc tune` (pragmadp/tune.py) on the CPU: a fake program stands in for build, run and check.

The fake build reads the point's -D flags from PDCC_TUNE_FLAGS (as pdcc will), writes them to prog.json and
appends to PDCC_TUNE_RECEIPT (as pdcc will); the fake run prints the sample harness's result line with a time
that depends on the values; the fake check fails at one value, which the run makes look fastest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from pragmadp import tune

FAKE = r'''
import json, math, os, shlex, sys, time
what = sys.argv[1]
if what == "build":
    values = {}
    for flag in shlex.split(os.environ.get("PDCC_TUNE_FLAGS", "")):
        name, _, value = flag[2:].partition("=")
        values[name] = value
    if os.environ.get("FAKE_NO_RECEIPT") is None:
        with open(os.environ["PDCC_TUNE_RECEIPT"], "a") as receipt:
            receipt.write(os.environ.get("PDCC_TUNE_FLAGS", "") + "\tfake.cu\n")
    if values.get("PDCC_COARSEN_a_0") == "16":
        sys.exit("fake.cu:3:1: error: coarsening 16 does not build")
    with open("prog.json", "w") as out:
        json.dump(values, out)
    sys.exit(0)
values = json.load(open("prog.json"))
threshold = int(values.get("PDCC_THRESHOLD_a_0", "128"))
coarsen = int(values.get("PDCC_COARSEN_a_0", "1"))
other = int(values.get("PDCC_THRESHOLD_b_0", "64"))
if what == "check":
    sys.exit(1 if threshold == 512 else 0)   # 512 is wrong, and the fastest
ms = 1.0 + 0.1 * abs(math.log2(threshold) - 8.8) + 0.1 * abs(math.log2(coarsen) - 2) + 0.1 * abs(math.log2(other) - 7)
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
with open("devices.log", "a") as log:
    log.write(f"{os.environ.get('CUDA_VISIBLE_DEVICES', '-')} {os.environ.get('PDCC_TUNE_WORKER')}\n")
correct = os.environ.get("FAKE_WRONG_AT") != str(coarsen)
print("some output first")
print(json.dumps({"sample": "fake", "variant": "dp", "input": "x", "median_ms": round(ms, 6), "times_ms": [ms],
                  "correct": correct, "detail": "", "bytes": 0}))
'''

# The program to compare with (--baseline): times 3.0, 2.0, 2.6, 3.0, ... run by run (the median of three is
# 2.6), what it saw in naive.log; FAKE_NAIVE_WRONG says correct: false, FAKE_NAIVE_EXIT fails after printing.
NAIVE = r'''
import json, os, sys
runs = len(open("naive.log").readlines()) if os.path.exists("naive.log") else 0
with open("naive.log", "a") as log:
    log.write(f"{os.environ.get('CUDA_VISIBLE_DEVICES', '-')} {'PDCC_TUNE_FLAGS' in os.environ}\n")
print(json.dumps({"sample": "fake", "variant": "naive", "median_ms": [3.0, 2.0, 2.6][runs % 3],
                  "correct": os.environ.get("FAKE_NAIVE_WRONG") is None}))
sys.exit(int(os.environ.get("FAKE_NAIVE_EXIT", "0")))
'''

KNOBS = [
    {"macro": "PDCC_THRESHOLD_a_0", "default": "128", "kind": "threshold", "min": 0, "max": 2147483648},
    {"macro": "PDCC_COARSEN_a_0", "default": "1", "kind": "coarsen", "min": 1, "max": 65536},
    {"macro": "PDCC_THRESHOLD_b_0", "default": "64", "kind": "threshold", "min": 0, "max": 2147483648},
    {"macro": "PDCC_POOL_BYTES_b_0", "default": "67108864", "kind": "pool_bytes", "min": 65536, "max": 1 << 40},
]
SMALL = ["--knob", "PDCC_THRESHOLD_a_0=128,256,512", "--knob", "PDCC_COARSEN_a_0=1,4",
         "--knob", "PDCC_THRESHOLD_b_0=64,128"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "fake.py").write_text(FAKE)
    (tmp_path / "naive.py").write_text(NAIVE)
    (tmp_path / "report.json").write_text(json.dumps({"tool": {"name": "pdcc"}, "remarks": [], "knobs": KNOBS}))
    monkeypatch.chdir(tmp_path)
    for name in ("FAKE_SLEEP", "FAKE_NO_RECEIPT", "FAKE_WRONG_AT", "FAKE_NAIVE_WRONG", "FAKE_NAIVE_EXIT",
                 "PDCC_TUNE_FLAGS", "PDCC_TUNE_RECEIPT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def tune_main(*extra: str, devices: str = "gpu0") -> int:
    python = sys.executable
    return tune.main(["--report", "report.json", "--build", f"{python} fake.py build", "--run", f"{python} fake.py run",
                      "--check", f"{python} fake.py check", "--repeat", "1", "--devices", devices, "--out", "out",
                      *extra])


def results(project: Path) -> dict:
    return json.loads((project / "out" / "tune.json").read_text())


def baseline(*extra: str) -> list[str]:
    """--baseline with the fake naive program."""
    return ["--baseline", f"{sys.executable} naive.py {' '.join(extra)}".rstrip()]


# ---- the whole command on the fake program -------------------------------------------------------------------

def test_finds_the_best_valid_point_and_writes_everything(project: Path) -> None:
    assert tune_main(*SMALL) == 0
    data = results(project)
    points = {point["label"]: point for point in data["points"]}
    # the default, the grid of site a (3 x 2, less the default), site b (1 more), every site at its best
    assert [p["phase"] for p in data["points"]] == ["default"] + ["main"] * 6 + ["combined"]
    assert data["points_planned"] == data["points_finished"] == 8 and data["stopped"] is None
    best = data["best"]
    assert best["label"] == "a_0 threshold=256 coarsen=4; b_0 threshold=128"
    assert best["flags"] == ["-DPDCC_THRESHOLD_a_0=256", "-DPDCC_COARSEN_a_0=4", "-DPDCC_THRESHOLD_b_0=128"]
    assert best["median_ms"] == pytest.approx(1.08)
    assert best["speedup"] == pytest.approx(points["default"]["median_ms"] / 1.08)
    # 512 times fastest but fails its check: invalid, never the best
    wrong = [p for p in data["points"] if p["values"]["PDCC_THRESHOLD_a_0"] == 512]
    assert wrong and all(p["status"] == "invalid" and p["speedup"] is None for p in wrong)
    assert all("check exit 1" in p["detail"] for p in wrong)
    assert data["statuses"]["ok"] == 6 and data["statuses"]["invalid"] == 2
    # the flags file: the best values, one -D a line, nothing else (nvcc --options-file)
    assert (project / "out" / "best.flags").read_text() == \
        "-DPDCC_THRESHOLD_a_0=256\n-DPDCC_COARSEN_a_0=4\n-DPDCC_THRESHOLD_b_0=128\n"
    # plots: a heatmap per site with a swept knob, the speed-up chart; well-formed SVG, not empty
    for name in ("heatmap-a_0.svg", "heatmap-b_0.svg", "speedup.svg"):
        path = project / "out" / name
        assert path.stat().st_size > 500
        assert ElementTree.parse(path).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert not (project / "out" / "heatmap-user.svg").exists()
    heatmap = (project / "out" / "heatmap-a_0.svg").read_text()
    assert heatmap.count("<rect") >= 1 + 6 and ">x<" in heatmap   # cells, and the invalid ones marked
    assert f"{best['speedup']:.2f}x" in (project / "out" / "speedup.svg").read_text()
    assert 'fill="#d0d7de"' in heatmap   # the cells where every point was invalid
    table = (project / "out" / "table.md").read_text()
    assert table.splitlines()[2].startswith(f"| {best['index']} | combined |")   # fastest first
    assert (project / "out" / "logs" / "point-0000.log").read_text().count("$ ") == 3   # build, run, check


def test_json_shape(project: Path) -> None:
    assert tune_main(*SMALL) == 0
    data = results(project)
    assert set(data) >= {"tool", "report", "build", "run", "check", "repeat", "budget_s", "elapsed_s", "stopped",
                         "devices", "points_planned", "points_finished", "statuses", "default", "best", "knobs",
                         "points"}
    assert data["tool"]["name"] == "pdcc tune" and data["devices"] == ["gpu0"]
    assert [k["macro"] for k in data["knobs"]] == [k["macro"] for k in KNOBS]
    assert data["knobs"][0] == {"macro": "PDCC_THRESHOLD_a_0", "site": "a_0", "kind": "threshold", "default": 128,
                                "min": 0, "max": 2147483648, "values": [128, 256, 512], "file": ""}
    assert data["knobs"][3]["values"] == [67108864]   # a pool stays at its default
    for point in data["points"]:
        assert set(point) == {"index", "phase", "site", "label", "status", "median_ms", "speedup", "times_ms",
                              "time_source", "device", "seconds", "build_seconds", "detail", "flags", "values"}
        assert point["status"] in tune.STATUSES and point["device"] == "gpu0"
        assert set(point["values"]) == {k["macro"] for k in KNOBS[:3]}   # not the pool: it is not swept
        assert all(isinstance(v, int) for v in point["values"].values())
        if point["status"] == "ok":
            assert point["time_source"] == "result-line" and len(point["times_ms"]) == 1
    assert data["default"] == {"index": 0, "median_ms": pytest.approx(1.0 + 0.1 * 1.8 + 0.2 + 0.1)}
    assert data["points"][0]["flags"] == ["-DPDCC_THRESHOLD_a_0=128", "-DPDCC_COARSEN_a_0=1",
                                          "-DPDCC_THRESHOLD_b_0=64"]


# ---- --baseline ---------------------------------------------------------------------------------------------

def test_the_baseline_reaches_the_json_the_table_and_the_plots(project: Path) -> None:
    assert tune_main(*SMALL, *baseline(), "--repeat", "3", devices="7,8") == 0
    data = results(project)
    command = f"{sys.executable} naive.py"
    assert data["baseline"] == {"run": command, "status": "ok", "median_ms": 2.6, "correct": True,
                                "times_ms": [3.0, 2.0, 2.6], "time_source": "result-line", "device": "7",
                                "seconds": pytest.approx(data["baseline"]["seconds"]), "detail": ""}
    # --repeat runs on the first device, in its worker's copy, without the points' flags
    assert (project / "out" / "work" / "0" / "naive.log").read_text() == "7 False\n" * 3
    assert (project / "out" / "logs" / "baseline.log").read_text().count(f"$ {command}") == 3
    for point in data["points"]:
        if point["status"] == "ok":
            assert point["speedup_baseline"] == round(2.6 / point["median_ms"], 4)
        else:
            assert point["speedup_baseline"] is None
    best = data["best"]
    assert best["median_ms"] == pytest.approx(1.08) and best["speedup_baseline"] == pytest.approx(2.6 / 1.08)
    over_default, over_baseline = f"{best['speedup']:.2f}x", f"{2.6 / 1.08:.2f}x"
    table = (project / "out" / "table.md").read_text().splitlines()
    assert table[0] == "| # | phase | configuration | status | median ms | over default | over baseline | detail |"
    assert table[1].count("---:|") == 4
    assert table[2].startswith(f"| {best['index']} | combined |") and \
        f"| {over_default} | {over_baseline} |" in table[2]
    assert table[-1] == f"baseline 2.6 ms (median of 3 runs, result-line): `{command}`"
    chart = (project / "out" / "speedup.svg").read_text()
    assert "speed-up over the baseline (valid points" in chart and "baseline 2.6 ms" in chart
    assert f">{over_baseline}<" in chart and f">{over_default}<" not in chart
    ElementTree.fromstring(chart)
    heatmap = (project / "out" / "heatmap-a_0.svg").read_text()
    default_over = 2.6 / data["default"]["median_ms"]
    assert "a_0: speed-up over the default configuration" in heatmap   # the cells: over the default
    assert f"over the baseline (2.6 ms): default {default_over:.2f}x, best here {2.6 / 1.18:.2f}x" in heatmap
    assert f"threshold=128 coarsen=1: 1.00x, {default_over:.2f}x over the baseline</title>" in heatmap
    ElementTree.fromstring(heatmap)


def test_a_baseline_with_a_wrong_result_keeps_its_time_marked(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_NAIVE_WRONG", "1")   # as the naive programs past the launch pool say
    assert tune_main(*SMALL, *baseline()) == 0
    data = results(project)
    assert data["baseline"]["status"] == "invalid" and data["baseline"]["correct"] is False
    assert data["baseline"]["median_ms"] == 3.0 and "correct: false" in data["baseline"]["detail"]
    assert data["best"]["speedup_baseline"] == pytest.approx(3.0 / 1.08)
    table = (project / "out" / "table.md").read_text()
    assert f"| {3.0 / 1.08:.2f}x* |" in table and "*its own result was wrong" in table.splitlines()[-1]
    assert f">{3.0 / 1.08:.2f}x*<" in (project / "out" / "speedup.svg").read_text()
    assert "*its own result was wrong" in (project / "out" / "heatmap-a_0.svg").read_text()


@pytest.mark.parametrize("how", ["fails", "times out"])
def test_a_failing_baseline_is_reported_and_the_sweep_still_runs(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str], how: str) -> None:
    if how == "fails":
        monkeypatch.setenv("FAKE_NAIVE_EXIT", "3")
        extra = baseline()
    else:
        extra = ["--baseline", "sleep 30", "--timeout", "2s"]
    started = time.monotonic()
    assert tune_main(*SMALL, *extra) == 0
    assert time.monotonic() - started < 25
    data = results(project)
    status = "failed" if how == "fails" else "timeout"
    assert data["baseline"]["status"] == status and data["baseline"]["median_ms"] is None
    assert data["baseline"]["detail"].startswith("run exit")
    # every point measured as without a baseline, and none has a speed-up over it
    assert data["points_finished"] == data["points_planned"] == 8 and data["stopped"] is None
    assert data["best"]["label"] == "a_0 threshold=256 coarsen=4; b_0 threshold=128"
    assert {p["speedup_baseline"] for p in data["points"]} == {None} and data["best"]["speedup_baseline"] is None
    assert f"warning: baseline {status} (run exit" in capsys.readouterr().err
    assert "no speed-up over it" in (project / "out" / "table.md").read_text().splitlines()[-1]
    chart = (project / "out" / "speedup.svg").read_text()
    assert "speed-up over the default configuration" in chart and f"baseline {status}" in chart
    assert f"{data['best']['speedup']:.2f}x" in chart
    assert f"baseline {status}: no speed-up over it" in (project / "out" / "heatmap-a_0.svg").read_text()


def test_the_budget_counts_the_baseline(project: Path) -> None:
    assert tune_main(*SMALL, "--baseline", "sleep 30", "--budget", "1s") == 1   # no point had time left
    data = results(project)
    assert data["baseline"]["status"] == "unfinished" and "budget" in data["baseline"]["detail"]
    assert data["stopped"] == "budget" and data["points_finished"] == 0


def test_without_a_baseline_nothing_changes(project: Path) -> None:
    assert tune_main(*SMALL) == 0
    data = results(project)
    assert "baseline" not in data and "speedup_baseline" not in data["best"]
    assert all("speedup_baseline" not in point for point in data["points"])
    table = (project / "out" / "table.md").read_text()
    assert table.splitlines()[0] == "| # | phase | configuration | status | median ms | speed-up | detail |"
    assert len(table.splitlines()) == 2 + 8   # the points, no baseline line
    for name in ("table.md", "speedup.svg", "heatmap-a_0.svg", "heatmap-b_0.svg"):
        assert "baseline" not in (project / "out" / name).read_text()
    assert "speed-up over the default configuration (valid points" in (project / "out" / "speedup.svg").read_text()
    assert not (project / "out" / "logs" / "baseline.log").exists() and not (project / "naive.log").exists()


def test_budget_stops_the_sweep_cleanly(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_SLEEP", "0.4")
    started = time.monotonic()
    assert tune_main(*SMALL, "--budget", "1.5s") == 0
    elapsed = time.monotonic() - started
    data = results(project)
    assert data["stopped"] == "budget" and data["budget_s"] == 1.5
    assert 1 <= data["points_finished"] < data["points_planned"]
    assert elapsed < 1.5 + 3   # the point in flight is stopped, not waited for (plus writing the results)
    assert data["points"][0]["status"] == "ok"   # the default came first
    cut = [p for p in data["points"] if p["status"] == "unfinished"]
    assert len(cut) <= 1 and all(p["median_ms"] is None for p in cut)
    assert data["best"] is not None and data["best"]["index"] in [p["index"] for p in data["points"]
                                                                  if p["status"] == "ok"]


def test_a_command_past_its_timeout_is_stopped(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_SLEEP", "20")
    started = time.monotonic()
    assert tune_main("--site", "a_0", "--knob", "PDCC_THRESHOLD_a_0=128,256", "--knob", "PDCC_COARSEN_a_0=1",
                     "--timeout", "0.5s") == 1
    assert time.monotonic() - started < 10
    data = results(project)
    assert [p["status"] for p in data["points"]] == ["timeout", "timeout"] and data["stopped"] is None
    assert "over 0.5 s" in data["points"][0]["detail"]


def test_ctrl_c_stops_the_sweep_and_reports_what_finished(project: Path) -> None:
    python = sys.executable
    env = {**os.environ, "FAKE_SLEEP": "0.6", "PYTHONPATH": str(Path(tune.__file__).parent.parent)}
    tuner = subprocess.Popen([python, "-m", "pragmadp.tune", "--report", "report.json", "--build",
                              f"{python} fake.py build", "--run", f"{python} fake.py run", "--repeat", "1",
                              "--devices", "0", "--out", "out", *SMALL], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (project / "out" / "logs" / "point-0001.log").exists():
        time.sleep(0.05)
    tuner.send_signal(signal.SIGINT)
    _, err = tuner.communicate(timeout=30)
    assert tuner.returncode == 0, err   # the default configuration finished: a valid point
    data = results(project)
    assert data["stopped"] == "interrupted" and 2 <= data["points_finished"] < 8
    assert "stopped (interrupted)" in err


def test_cancel_stops_the_running_command() -> None:
    session = tune.Session(None)
    finished: list[tune.Finished] = []
    thread = threading.Thread(target=lambda: finished.append(
        session.shell("sleep 30; echo never", dict(os.environ), ".", 60)))
    started = time.monotonic()
    thread.start()
    while not session.running and time.monotonic() - started < 10:
        time.sleep(0.01)
    session.cancel()
    thread.join(10)
    assert finished and finished[0].stopped == "cancelled" and "never" not in finished[0].stdout
    assert time.monotonic() - started < 10 and session.spent()
    assert session.shell("echo late", {}, ".", 5).stopped == "cancelled"   # nothing starts after


def test_a_build_that_does_not_run_pdcc_is_not_timed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_NO_RECEIPT", "1")
    assert tune_main(*SMALL) == 1   # no valid point
    data = results(project)
    assert {p["status"] for p in data["points"]} == {"not-rebuilt"} and data["best"] is None
    assert "PDCC_TUNE_FLAGS" in data["points"][0]["detail"]
    assert (project / "out" / "best.flags").read_text() == ""
    assert tune_main(*SMALL, "--no-receipt") == 0


def test_failed_builds_and_wrong_results_are_invalid(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_WRONG_AT", "4")   # the program itself says correct: false at coarsen 4
    assert tune_main("--knob", "PDCC_THRESHOLD_a_0=128,256", "--knob", "PDCC_COARSEN_a_0=1,4,16",
                     "--knob", "PDCC_THRESHOLD_b_0=64") == 0
    data = results(project)
    by_coarsen = {}
    for point in data["points"]:
        by_coarsen.setdefault(point["values"]["PDCC_COARSEN_a_0"], set()).add(point["status"])
    assert by_coarsen == {1: {"ok"}, 4: {"invalid"}, 16: {"build-failed"}}
    assert data["best"]["flags"][:2] == ["-DPDCC_THRESHOLD_a_0=256", "-DPDCC_COARSEN_a_0=1"]
    failed = next(p for p in data["points"] if p["status"] == "build-failed")
    assert "coarsening 16 does not build" in failed["detail"]


def test_points_spread_over_devices_each_with_its_own_gpu_and_copy(project: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_SLEEP", "0.05")
    assert tune_main(*SMALL, devices="7,8,9") == 0
    data = results(project)
    assert data["devices"] == ["7", "8", "9"] and data["best"]["label"].startswith("a_0 threshold=256 coarsen=4")
    seen = set()
    for worker, device in enumerate(["7", "8", "9"]):
        copy = project / "out" / "work" / str(worker)
        assert (copy / "fake.py").exists() and not (copy / "out").exists()
        log = copy / "devices.log"
        if log.exists():   # each run saw its worker's GPU only
            lines = set(log.read_text().split("\n")) - {""}
            assert lines == {f"{device} {worker}"}
            seen.add(device)
    assert seen and {p["device"] for p in data["points"]} == seen
    assert not (project / "devices.log").exists()   # the workers ran in their copies


def test_worker_placeholder_keeps_the_commands_in_place(project: Path) -> None:
    python = sys.executable
    (project / "w0").mkdir()
    (project / "w1").mkdir()
    assert tune.main(["--report", "report.json", "--build", f"cd w{{worker}} && {python} ../fake.py build",
                      "--run", f"cd w{{worker}} && {python} ../fake.py run", "--repeat", "1", "--devices", "0,1",
                      "--out", "out", *SMALL]) == 0
    assert not (project / "out" / "work").exists()
    assert (project / "w0" / "devices.log").exists() or (project / "w1" / "devices.log").exists()


def test_time_regex_and_wall_time(project: Path) -> None:
    python = sys.executable
    script = project / "timed.py"
    script.write_text("import json, os, shlex\n"
                      "flags = open('flags.txt').read()\n"
                      "print('kernel took', 3.0 if 'a_0=256' in flags else 5.0, 'ms')\n")
    build = f"{python} -c \"import os; open('flags.txt','w').write(os.environ['PDCC_TUNE_FLAGS']); " \
            f"open(os.environ['PDCC_TUNE_RECEIPT'],'a').write('x\\n')\""
    common = ["--report", "report.json", "--build", build, "--run", f"{python} timed.py", "--repeat", "2",
              "--devices", "0", "--out", "out", "--knob", "PDCC_THRESHOLD_a_0=128,256", "--site", "a_0",
              "--knob", "PDCC_COARSEN_a_0=1"]
    assert tune.main([*common, "--time-regex", r"took ([0-9.]+) ms"]) == 0
    data = results(project)
    assert [p["median_ms"] for p in data["points"]] == [5.0, 3.0]
    assert {p["time_source"] for p in data["points"]} == {"regex"} and data["best"]["speedup"] == pytest.approx(5 / 3)
    assert [k["macro"] for k in data["knobs"]] == ["PDCC_THRESHOLD_a_0", "PDCC_COARSEN_a_0"]   # --site a_0
    assert tune.main([*common, "--time-regex", r"took (?P<ms>[0-9.]+) s"]) == 1   # no match: no-time
    assert {p["status"] for p in results(project)["points"]} == {"no-time"}
    assert tune.main(common) == 0   # no result line: the run's wall time
    assert {p["time_source"] for p in results(project)["points"]} == {"wall"}


def test_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tune_main("--budget", "ten minutes") == 2
    assert tune_main("--knob", "PDCC_COARSEN_a_0=0,2") == 2   # outside the domain 1..65536
    assert "outside the knob's domain" in capsys.readouterr().err
    assert tune_main("--knob", "nonsense") == 2
    assert tune_main("--baseline", " ") == 2
    assert "--baseline: an empty command" in capsys.readouterr().err
    assert tune_main("--site", "zz_9") == 2
    assert "no such site" in capsys.readouterr().err
    (project / "empty.json").write_text('{"knobs": []}')
    assert tune.main(["--report", "empty.json", "--build", "true", "--run", "true"]) == 2
    assert tune.main(["--report", "missing.json", "--build", "true", "--run", "true"]) == 2
    assert tune.main(["--build", "true"]) == 2   # argparse: --report and --run are required
    assert not (project / "out").exists()


def test_dry_run_lists_the_knobs(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tune_main("--dry-run") == 0
    out = capsys.readouterr().out
    assert "PDCC_THRESHOLD_a_0 (threshold, default 128): 32, 64, 128, 256, 512, 1024, 2048\n" in out
    assert "PDCC_COARSEN_a_0 (coarsen, default 1): 1, 2, 4, 8, 16, 32\n" in out
    assert "PDCC_POOL_BYTES_b_0 (pool_bytes, default 67108864): 67108864\n" in out
    # site a: 7 thresholds x 6 coarsening factors (the default among them); site b: 6 more thresholds
    assert "48 points in the first phase" in out
    assert not (project / "out").exists()


# ---- the pieces -----------------------------------------------------------------------------------------------

def test_candidate_values() -> None:
    assert tune.candidate_values("threshold", "100", (0, 1 << 31)) == \
        ("32", "64", "100", "128", "256", "512", "1024", "2048")
    assert tune.candidate_values("threshold", "N", (0, 1 << 31)) == ("32", "64", "128", "256", "512", "1024", "2048")
    assert tune.candidate_values("coarsen", "4", (1, 8)) == ("1", "2", "4", "8")
    assert tune.candidate_values("records_per_thread", "4", (1, 64)) == ("1", "2", "4", "8", "16")
    assert tune.candidate_values("granularity", "16", (1, 65536))[-1] == "256"
    assert tune.candidate_values("pool_bytes", "67108864", (65536, 1 << 40)) == ("67108864",)
    # a meld threshold: one value that melds (the default) and the first that does not; the rest build the same
    assert tune.candidate_values("meld_threshold", "0.2", (0, 1), score=0.5) == ("0.2", "1")
    assert tune.candidate_values("meld_threshold", "0.2", (0, 1), score=0.34) == ("0.2", "0.4")
    assert tune.candidate_values("meld_threshold", "0.2", (0, 1)) == ("0", "0.1", "0.2", "0.3", "0.4", "0.5", "1")
    # a counted meld's versioning: trip counts around the default
    assert tune.candidate_values("meld_min_trips", "256", (0, 1 << 31)) == ("32", "64", "128", "256", "512", "1024",
                                                                           "2048")


def test_knobs_from_a_real_report_shape() -> None:
    remarks = [{"ruleId": "PDCC800", "site": "sort_0", "args": {"macro": "PDCC_MELD_THRESHOLD_sort_0", "score": "0.50"}}]
    knobs = tune.knobs_from_report(
        [*KNOBS, {"macro": "PDCC_MELD_THRESHOLD_sort_0", "default": "0.2", "kind": "meld_threshold", "min": 0, "max": 1},
         {**KNOBS[0], "file": "other.cu"},   # the same macro in a second file: one knob
         {"macro": "PDCC_RECORDS_PER_THREAD_a_0", "default": "1", "kind": "records_per_thread", "min": 1, "max": 64}],
        remarks, {"BLOCK": ["128", "256"]})
    assert [(k.site, k.short) for k in knobs] == [("a_0", "threshold"), ("a_0", "coarsen"), ("b_0", "threshold"),
                                                  ("b_0", "pool_bytes"), ("sort_0", "meld_threshold"),
                                                  ("a_0", "records_per_thread"), ("user", "BLOCK")]
    assert knobs[4].values == ("0.2", "1")
    assert [k.macro for k in tune.main_knobs(knobs, "a_0")] == ["PDCC_THRESHOLD_a_0", "PDCC_COARSEN_a_0",
                                                                "PDCC_RECORDS_PER_THREAD_a_0"]
    assert [k.site for k in tune.knobs_from_report(KNOBS, [], {}, ["b_0"])] == ["b_0", "b_0"]


def test_planner_phases_use_earlier_outcomes() -> None:
    knobs = tune.knobs_from_report(
        [*KNOBS[:2], {"macro": "PDCC_AGG_THRESHOLD_a_0", "default": "2", "kind": "agg_threshold", "min": 1,
                      "max": 1024}], [], {"PDCC_THRESHOLD_a_0": ["64", "128"], "PDCC_COARSEN_a_0": ["1", "2"],
                                          "PDCC_AGG_THRESHOLD_a_0": ["1", "2", "8"]})
    planner = tune.Planner(knobs)
    phases = dict(planner.phases())
    main = phases["main"]({})
    assert [p.assignment for p in main] == [
        {"PDCC_THRESHOLD_a_0": t, "PDCC_COARSEN_a_0": c, "PDCC_AGG_THRESHOLD_a_0": "2"}
        for t, c in [("128", "1"), ("64", "1"), ("64", "2"), ("128", "2")]]
    outcomes = {p.index: tune.Outcome(median_ms=ms) for p, ms in zip(main, [4.0, 3.0, 2.0, 5.0])}
    rest = phases["rest"](outcomes)   # the other knob alone, at the grid's best (64, 2)
    assert [p.assignment["PDCC_AGG_THRESHOLD_a_0"] for p in rest] == ["1", "8"]
    assert {(p.assignment["PDCC_THRESHOLD_a_0"], p.assignment["PDCC_COARSEN_a_0"]) for p in rest} == {("64", "2")}
    assert phases["combined"](outcomes) == []   # one site: nothing to combine
    grid = dict(tune.Planner(knobs, "grid").phases())["grid"]({})
    assert len(grid) == 2 * 2 * 3 and grid[0].phase == "default"


def test_dispatch_on_fake_devices() -> None:
    devices = ["gpu0", "gpu1", "gpu2"]
    durations = [0.05, 0.01, 0.03, 0.02, 0.04, 0.01, 0.02, 0.05, 0.01, 0.03]
    lock = threading.Lock()
    busy: set[str] = set()
    runs: list[int] = []

    def fake_runner(point: int, device: str) -> str:
        with lock:
            assert device not in busy, f"{device} runs two points at once"
            busy.add(device)
            runs.append(point)
        time.sleep(durations[point])
        with lock:
            busy.discard(device)
        return f"result {point}"

    first = tune.dispatch(list(range(10)), devices, fake_runner)
    assert sorted(runs) == list(range(10))   # every point once
    assert [index for index, _, _ in first] == list(range(10))   # in the points' order, whoever finished first
    assert [result for _, _, result in first] == [f"result {i}" for i in range(10)]
    assert {device for _, device, _ in first} == set(devices)   # all three worked
    runs.clear()
    second = tune.dispatch(list(range(10)), devices, fake_runner)
    assert [(i, r) for i, _, r in second] == [(i, r) for i, _, r in first]


def test_dispatch_stops_taking_points_and_raises_runner_errors() -> None:
    taken: list[int] = []

    def runner(point: int, device: str) -> int:
        taken.append(point)
        return point

    done = tune.dispatch(list(range(10)), ["only"], runner, stop=lambda: len(taken) >= 4)
    assert [index for index, _, _ in done] == [0, 1, 2, 3]

    def broken(point: int, device: str) -> int:
        if point == 2:
            raise RuntimeError("boom")
        time.sleep(0.01)
        return point

    with pytest.raises(RuntimeError, match="boom"):
        tune.dispatch(list(range(20)), ["a", "b"], broken)


def test_parse_time() -> None:
    line = '{"sample": "s", "median_ms": 1.25, "times_ms": [1.25], "correct": true}'
    assert tune.parse_time(f"noise\n{line}\n", "", None) == (1.25, "result-line", True)
    assert tune.parse_time('{"median_ms": 2, "correct": false}\n', "", None) == (2.0, "result-line", False)
    assert tune.parse_time("{not json}\n{\"other\": 1}\n", "", None) == (None, "", None)
    assert tune.parse_time("", "elapsed 7.5 ms", re.compile(r"elapsed (\S+) ms")) == (7.5, "regex", None)


def test_parse_budget() -> None:
    assert tune.parse_budget("10m") == 600 and tune.parse_budget("90s") == 90 and tune.parse_budget("600") == 600
    assert tune.parse_budget("1h30m") == 5400 and tune.parse_budget("2.5m") == 150
    for bad in ("", "ten", "10x", "m10", "5m junk"):
        with pytest.raises(ValueError):
            tune.parse_budget(bad)


def test_visible_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tune.visible_devices({"CUDA_VISIBLE_DEVICES": "2,3"}) == ["2", "3"]
    assert tune.visible_devices({"CUDA_VISIBLE_DEVICES": ""}) == [None]
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert tune.visible_devices({}) == [None]


# ---- through the real pdcc (once cli.py reads PDCC_TUNE_FLAGS) -------------------------------------------------

SOURCE = """\
__global__ void child(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
__global__ void parent(int* out, int n) {
  #pragma dp threshold(128)
  child<<<(n + 127) / 128, 128>>>(out, n);
}
"""


# What cli.py is to do with the two variables, as a shell script in front of pdcc: the test of the contract
# itself, until cli.py does it (then the same test runs on pdcc alone).
CONTRACT = """#!/bin/sh
if [ -n "$PDCC_TUNE_RECEIPT" ]; then printf '%s\\t%s\\n' "$PDCC_TUNE_FLAGS" "$*" >> "$PDCC_TUNE_RECEIPT"; fi
eval "exec '{pdcc}' \\"\\$@\\" $PDCC_TUNE_FLAGS"
"""


@pytest.mark.nvcc
@pytest.mark.parametrize("compiler", ["contract", "pdcc"])
def test_through_pdcc_preprocessing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiler: str) -> None:
    """pdcc -E with PDCC_TUNE_FLAGS: the threshold the preprocessed program compares with is the point's."""
    pdcc = Path(sys.executable).parent / "pdcc"
    if shutil.which("nvcc") is None or not pdcc.exists():
        pytest.skip("needs nvcc and the venv's pdcc")
    if compiler == "pdcc" and "PDCC_TUNE_FLAGS" not in (Path(tune.__file__).parent / "cli.py").read_text():
        pytest.skip("cli.py does not read PDCC_TUNE_FLAGS yet (the lead wires it)")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(SOURCE)
    done = subprocess.run([str(pdcc), "--report", "report.json", "-E", "k.cu", "-o", "k.ii"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    command = str(pdcc)
    if compiler == "contract":
        wrapper = tmp_path / "pdcc-tuned"
        wrapper.write_text(CONTRACT.replace("{pdcc}", str(pdcc)))
        wrapper.chmod(0o755)
        command = str(wrapper)
    # "run": the threshold the preprocessed site compares with, as a time (512 fastest)
    (tmp_path / "run.py").write_text(
        "import re, json\n"
        "threshold = int(re.search(r'pdcc_n >= (\\d+)', open('k.ii').read()).group(1))\n"
        "print(json.dumps({'median_ms': abs(threshold - 512) + 1.0, 'correct': True}))\n")
    status = tune.main(["--report", "report.json", "--build", f"{command} -E k.cu -o k.ii", "--run",
                        f"{sys.executable} run.py", "--repeat", "1", "--devices", "0", "--out", "out",
                        "--knob", "PDCC_THRESHOLD_parent_0=64,512"])
    data = json.loads((tmp_path / "out" / "tune.json").read_text())
    assert status == 0, data["points"]
    assert [(p["label"], p["median_ms"]) for p in data["points"]] == \
        [("default", 385.0), ("parent_0 threshold=64", 449.0), ("parent_0 threshold=512", 1.0)]
    assert data["best"]["flags"] == ["-DPDCC_THRESHOLD_parent_0=512"]
    receipt = (tmp_path / "out" / "logs" / "point-0002.receipt").read_text()
    assert receipt.startswith("-DPDCC_THRESHOLD_parent_0=512\t")
