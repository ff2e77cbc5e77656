#!/usr/bin/env python3
"""The benchmark harness: every sample, every variant, one run, on the GPU (`make bench`).

Variants per sample: the naive dynamic-parallelism program as written (nvcc), each pdcc configuration of
bench/config.json (pdcc, the sample's threshold sites annotated with the configuration's clauses), the flat program without dynamic
parallelism, and the best flat or library version. `--sweep` adds every point of the config's grid
(threshold x coarsening x granularity); `--tune` searches the same grid per input, one knob at a time
per granularity (a fraction of the runs, for a GPU lent by the minute). Each binary times itself with
CUDA events (warm-up, median of `reps`) and checks its output against a CPU reference; a wrong result is
shown as WRONG, never as a time. Writes results.json, a table (results.md, also printed) and ratios.png.
`--configs-from OLD.json` checks a change against an earlier run in a few minutes: per input the plain
variants, the aggregation-only ones and the fastest pdcc configuration OLD.json recorded for that input,
with a table of the old fastest time beside the new one (comparison.md).

Control-flow melding (issue 10, `#pragma meld`): for every meld sample (samples/meld_*/, the "meld" part of
the config) and each of its inputs, three builds in the same run: original (nvcc on the annotated file),
pdcc (pdcc on it, as the pdcc variants above are built) and hand (nvcc on the sample melded by hand); the
speed-up of pdcc and hand over the original, a geometric mean over the samples, and beside the times, from
Nsight Compute, the threads per executed instruction
(smsp__thread_inst_executed_per_inst_executed.ratio, 32 = no divergence), the instructions executed
(smsp__inst_executed.sum) and the time (gpu__time_duration.sum) of the sample's melded kernels. `--only meld`
runs this part alone, `--only dp` the rest alone; a plain run does both (--sweep, --tune and --configs-from
run the dynamic-parallelism part only).

Parts (`make bench`): a device command may run 10 minutes, so the suite runs as three commands, `--only
aggregation` (the samples without a recursion, tuned) and `--only recursion`, both under `--budget-s`, and
`--only meld`; `--merge` makes one table, JSON and plot of their results.json.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
PLAIN_VARIANTS = ("naive", "flat", "best")
PARTS = ("dp", "aggregation", "recursion", "meld")  # --only: what one device command of `make bench` runs
MIN_REPS = 5  # DESIGN §5: a measurement is the median of at least 5 runs


@dataclass
class Run:
    sample: str
    input: str
    variant: str
    median_ms: float | None = None
    correct: bool | None = None
    status: str = "ok"          # ok | WRONG | FAILED | TIMEOUT | NOT BUILT
    detail: str = ""
    gbps: float | None = None
    wall_s: float | None = None  # the whole process: input generation, CPU reference, runs
    profile: dict | None = None  # --profile-dp: Nsight Compute's summary of its kernels (profile_summary)


def data_dir() -> Path:
    """The shared data: ../shared/data beside the checkout, or .data/ carried inside it (GPU box)."""
    for candidate in (Path(os.environ.get("PDCC_DATA", "")), ROOT.parent / "shared" / "data", ROOT / ".data"):
        if str(candidate) and (candidate / "bcsstk13.mtx").exists():
            return candidate
    sys.exit("bench: cannot find the shared data (set PDCC_DATA to the folder with bcsstk13.mtx)")


def pdcc_command() -> list[str]:
    venv = ROOT / ".venv" / "bin" / "pdcc"
    return [str(venv)] if venv.exists() else [sys.executable, "-m", "pragmadp"]


def build(compiler: list[str], source: Path, output: Path, flags: list[str], log: Path) -> bool:
    command = [*compiler, "-O3", "-I", str(SAMPLES / "common"), str(source), "-o", str(output), *flags]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    log.write_text(" ".join(command) + "\n" + done.stdout + done.stderr)
    return done.returncode == 0


def with_clauses(source: Path, clauses: str, out: Path, site: str = "threshold(") -> Path | None:
    """A copy of an annotated sample whose sites (`#pragma dp` lines with `site` in them: threshold sites,
    or `consldt(` for the recursive samples) carry `clauses` instead (one configuration), or None when the
    sample has no such site (its configurations would all be the same program)."""
    lines = source.read_text().splitlines(keepends=True)
    replaced = False
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith("#pragma dp") and site in stripped:
            lines[index] = line[:len(line) - len(stripped)] + f"#pragma dp {clauses}\n"
            replaced = True
    if not replaced:
        return None
    copy = out / "src" / f"{source.stem}.{slug(clauses)}.cu"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text("".join(lines))
    return copy


def slug(text: str) -> str:
    """`threshold(32) coarsen(4)` -> `threshold_32_coarsen_4`: a variant as part of a file name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def clauses_at(point: dict, granularity: str) -> str:
    """The clauses of one point of the sweep grid (`point` holds threshold, coarsen and multiblock K)."""
    clauses = f"threshold({point['threshold']})" + (f" coarsen({point['coarsen']})" if point["coarsen"] > 1 else "")
    if granularity == "multiblock":
        return clauses + f" consldt(multiblock({point['multiblock']}))"
    return clauses + (f" consldt({granularity})" if granularity != "none" else "")


def knobs(granularity: str) -> list[str]:
    return ["threshold", "coarsen"] + (["multiblock"] if granularity == "multiblock" else [])


def sweep_configurations(sweep: dict) -> list[dict]:
    """Every point of the sweep grid: threshold x coarsening x granularity (x K for multiblock)."""
    configurations = []
    for granularity in sweep["consldt"]:
        axes = [[(knob, value) for value in sweep[knob]] for knob in knobs(granularity)]
        for point in itertools.product(*axes):
            clauses = clauses_at(dict(point), granularity)
            configurations.append({"name": clauses, "clauses": clauses})
    return configurations


def tune(sweep: dict, measure, until: float = math.inf) -> bool:
    """Coordinate search of the sweep grid for one input: per granularity, from the grid's start point,
    each knob in turn takes the value with the fastest correct run. `measure(clauses_list)` runs them.
    No knob starts after `until` (time.monotonic()); false when the search was cut short there."""
    for granularity in sweep["consldt"]:
        point = dict(sweep["start"])
        for knob in knobs(granularity):
            if time.monotonic() >= until:
                return False
            candidates = [dict(point, **{knob: value}) for value in sweep[knob]]
            runs = measure([clauses_at(c, granularity) for c in candidates])
            timed = [(run.median_ms, index) for index, run in enumerate(runs) if run.status == "ok"]
            if timed:
                point = candidates[min(timed)[1]]
    return True


def pdcc_plan(name: str, variant: str, clauses: str, arch: str, out: Path, site: str = "threshold(") -> tuple | None:
    """How to build one pdcc configuration of a sample, or None when it has no site to put it on."""
    directory = SAMPLES / name
    source = with_clauses(directory / f"{name}_dp.cu", clauses, out, site)
    return None if source is None else (name, variant, pdcc_command(), source, [arch, "-q", "-I", str(directory)])


def build_many(plans: list[tuple], out: Path) -> dict[tuple[str, str], Path | None]:
    """Builds (sample, variant, compiler, source, flags) plans in parallel; a failed build is None, not fatal."""
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, variant, compiler, source, flags in plans:
            binary = out / "bin" / f"{name}-{slug(variant)}"
            log = out / "logs" / f"build-{binary.name}.log"
            jobs[(name, variant)] = (pool.submit(build, compiler, source, binary, flags, log), binary)
    return {key: binary if future.result() else None for key, (future, binary) in jobs.items()}


def part_samples(samples: list[dict], only: str | None, names: list[str] | None) -> list[dict]:
    """The dynamic-parallelism samples a part runs (`--only`): aggregation, those without a recursion
    (no "consolidations" in the config), recursion, those with one, dp or a plain run both, meld none;
    of them, the ones `--samples` names."""
    def in_part(sample: dict) -> bool:
        if only in (None, "dp"):
            return True
        return only != "meld" and (only == "recursion") == ("consolidations" in sample)

    return [s for s in samples if in_part(s) and (not names or s["name"] in names)]


def build_all(config: dict, out: Path, extra: list[tuple] = ()) -> dict[tuple[str, str], Path | None]:
    """Every sample's naive, flat and best programs and its pdcc configurations (and the `extra` plans), in
    parallel."""
    arch = f"-arch={config['arch']}"
    plans = list(extra)
    for sample in config["samples"]:
        name = sample["name"]
        directory = SAMPLES / name
        plans += [(name, "naive", ["nvcc"], directory / f"{name}_dp.cu", [arch, "-rdc=true", "-lcudadevrt"]),
                  (name, "flat", ["nvcc"], directory / f"{name}_flat.cu", [arch]),
                  (name, "best", ["nvcc"], directory / f"{name}_best.cu", [arch, *sample.get("best_flags", [])])]
        plans += filter(None, (pdcc_plan(name, c["name"], c["clauses"], arch, out)
                               for c in config["pdcc_configurations"]))
        plans += filter(None, (pdcc_plan(name, c["name"], c["clauses"], arch, out, "consldt(")
                               for c in sample.get("consolidations", [])))
    return build_many(plans, out)


def execute(run: Run | MeldRun, binary: Path | None, args: list[str], reps: int, timeout: float,
            log: Path) -> tuple[subprocess.CompletedProcess, dict] | None:
    """Runs a sample binary and logs what it printed: the process and its JSON result line, or None with
    `run.status` saying why there is none (not built, timed out, no result line)."""
    if binary is None:
        run.status = "NOT BUILT"
        return None
    started = time.time()
    try:
        done = subprocess.run([str(binary), *args, "--reps", str(reps)], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        run.status = "TIMEOUT"
        return None
    finally:
        run.wall_s = round(time.time() - started, 2)
    with log.open("a") as handle:
        handle.write(f"$ {binary.name} {' '.join(args)}\n{done.stdout}{done.stderr}\n")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        run.status, run.detail = "FAILED", (done.stderr.strip().splitlines() or ["no result line"])[-1][:120]
        return None
    return done, json.loads(lines[-1])


def run_one(binary: Path | None, sample: str, label: str, variant: str, args: list[str], reps: int,
            timeout: float, log: Path) -> Run:
    run = Run(sample, label, variant)
    executed = execute(run, binary, args, reps, timeout, log)
    if executed is None:
        return run
    done, result = executed
    if done.returncode != 0:
        run.status, run.detail = "FAILED", (done.stderr.strip().splitlines() or ["no result line"])[-1][:120]
        return run
    run.median_ms, run.correct, run.detail = result["median_ms"], result["correct"], result.get("detail", "")
    if not run.correct:
        run.status = "WRONG"
    elif result.get("bytes") and run.median_ms > 0:
        run.gbps = result["bytes"] / (run.median_ms * 1e6)
    return run


def ratio(numerator: Run | None, denominator: Run) -> float | None:
    if numerator is None or numerator.median_ms is None or denominator.status != "ok" or not denominator.median_ms:
        return None
    return numerator.median_ms / denominator.median_ms


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def fastest(group: dict[str, Run], names: list[str]) -> Run | None:
    return min((group[n] for n in names if n in group and group[n].status == "ok"), key=lambda r: r.median_ms,
               default=None)


def table(runs: list[Run], pdcc_names: list[str], aggregation_names: list[str] = ()) -> tuple[str, dict]:
    """Markdown tables per sample input and the geometric-mean summary of the best pdcc configuration
    (against aggregation alone: the fastest of the `aggregation_names` configurations)."""
    summary: dict[str, list[float | None]] = {"vs naive (all inputs)": [], "vs naive (naive correct)": [],
                                              "vs aggregation alone": [], "vs flat": [], "vs best": []}
    lines = []
    keys = list(dict.fromkeys((r.sample, r.input) for r in runs))
    for sample, label in keys:
        group = {r.variant: r for r in runs if (r.sample, r.input) == (sample, label)}
        naive, flat, best = (group.get(v) for v in PLAIN_VARIANTS)
        lines += [f"### {sample}: {label}", "",
                  "| variant | median ms | result | GB/s | naive / this | flat / this | best / this |",
                  "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
        for variant, run in group.items():
            shown = fmt(run.median_ms, 3) if run.status in ("ok", "WRONG") else run.status
            verdict = "correct" if run.status == "ok" else f"{run.status}: {run.detail}".rstrip(": ")
            naive_note = "*" if naive is not None and naive.status == "WRONG" else ""
            ratio_naive = fmt(ratio(naive, run))
            lines.append(f"| {variant} | {shown} | {verdict} | {fmt(run.gbps, 1)} | {ratio_naive}"
                         f"{naive_note if ratio_naive != '-' else ''} | {fmt(ratio(flat, run))} | {fmt(ratio(best, run))} |")
        top = fastest(group, pdcc_names)
        if top is not None:
            lines.append(f"\nFastest pdcc configuration: `{top.variant}` ({fmt(top.median_ms, 3)} ms).")
            for key, reference in (("vs naive (all inputs)", naive), ("vs flat", flat), ("vs best", best),
                                   ("vs aggregation alone", fastest(group, list(aggregation_names)))):
                summary[key].append(ratio(reference, top))
            if naive is not None and naive.status == "ok":
                summary["vs naive (naive correct)"].append(ratio(naive, top))
        lines.append("")
    lines += ["### Geometric mean, best pdcc configuration per input (reference time / pdcc time)", "",
              "| against | ratio | inputs |", "| --- | ---: | ---: |"]
    means = {key: geomean(values) for key, values in summary.items()}
    for key, values in summary.items():
        lines.append(f"| {key} | {fmt(means[key])} | {sum(1 for v in values if v)} |")
    lines.append("\n`*`: the naive program's own result was WRONG (lost launches); its time is of an incomplete run. "
                 "The best pdcc configuration is chosen among all of them, aggregation-only ones included, so the "
                 "ratio against aggregation alone is at least 1.")
    return "\n".join(lines) + "\n", means


def plot(runs: list[Run], pdcc_names: list[str], aggregation_names: list[str], path: Path) -> str:
    """Per input, the speed-up over the flat version of the naive program (where correct), the fastest
    aggregation-alone configuration, the fastest pdcc configuration and the best version: the ratios the
    acceptance bars are made of, one group of four bars per input (log scale; a missing bar: no correct run)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot"
    keys = [k for k in dict.fromkeys((r.sample, r.input) for r in runs)
            if any(r.variant == "flat" and r.status == "ok" for r in runs if (r.sample, r.input) == k)]
    if not keys:
        return "no input has a correct flat run: no plot"
    bars = {"naive": lambda g: g.get("naive") if g.get("naive") and g["naive"].status == "ok" else None,
            "fastest aggregation alone": lambda g: fastest(g, aggregation_names),
            "fastest pdcc": lambda g: fastest(g, pdcc_names), "best": lambda g: g.get("best")}
    figure, axis = plt.subplots(figsize=(max(8.0, 0.9 * len(keys)) + 2, 5))
    width = 0.8 / len(bars)
    for index, (label, pick) in enumerate(bars.items()):
        heights = []
        for key in keys:
            group = {r.variant: r for r in runs if (r.sample, r.input) == key}
            chosen = pick(group)
            heights.append((ratio(group["flat"], chosen) if chosen is not None else None) or 0)
        axis.bar([k + index * width for k in range(len(keys))], heights, width, label=label)
    axis.axhline(1.0, color="grey", linewidth=0.8)
    axis.set_yscale("log")
    axis.set_ylabel("speed-up over the flat version")
    axis.set_xticks([k + 0.4 - width / 2 for k in range(len(keys))])
    axis.set_xticklabels([f"{s}\n{i}" for s, i in keys], fontsize=7, rotation=30, ha="right")
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return f"plot: {path}"


def save(out: Path, runs: list[Run], pdcc_names: list[str], aggregation_names: list[str], reps: int,
         meld: MeldResults | None = None, notes: list[str] = ()) -> str:
    """results.md and results.json (written after every input, so a run cut short still reports); with
    `meld`, its section too (alone when there are no dynamic-parallelism runs); `notes`: what the time
    budget left out, said last."""
    text, summary = table(runs, pdcc_names, aggregation_names) if runs or meld is None else ("", {})
    text = (f"Each time is the median of {reps} timed runs after a warm-up"
            + (" (fewer than 5: a preview, not a measurement by DESIGN §5).\n\n" if reps < MIN_REPS else ".\n\n") + text
            + profile_table(runs))
    saved = {"runs": [asdict(r) for r in runs], "geomean": summary, "reps": reps, "pdcc_variants": pdcc_names,
             "aggregation_variants": aggregation_names, "notes": list(notes)}
    if meld is not None:
        meld_text, meld_summary = meld_table(meld)
        text += ("\n" if runs else "") + meld_text
        saved["meld"] = {"runs": [asdict(r) for r in meld.runs], "summary": meld_summary, "remarks": meld.remarks,
                         "reps": meld.reps}
    if notes:
        text += "\n## Cut short by the time budget (`--budget-s`)\n\n" + "".join(f"- {n}\n" for n in notes)
    (out / "results.md").write_text(text)
    (out / "results.json").write_text(json.dumps(saved, indent=2))
    return text


NOISE = 1.05  # issue 9: slower than recorded means more than 5 % slower (medians of 5)


def recorded_fastest(previous: dict, config: dict) -> dict[tuple[str, str], tuple[str, str, float]]:
    """Per (sample, input) of an earlier results.json: the name, clauses and time of its fastest correct
    pdcc configuration (a configured one by its name in `config`, a tuned point by its clauses)."""
    clauses_of = {c["name"]: c["clauses"] for c in config["pdcc_configurations"]}
    fastest_runs: dict[tuple[str, str], tuple[str, str, float]] = {}
    for run in previous["runs"]:
        key = (run["sample"], run["input"])
        if run["variant"] in PLAIN_VARIANTS or run["status"] != "ok":
            continue
        if key not in fastest_runs or run["median_ms"] < fastest_runs[key][2]:
            fastest_runs[key] = (run["variant"], clauses_of.get(run["variant"], run["variant"]), run["median_ms"])
    return fastest_runs


def comparison(runs: list[Run], recorded: dict, named: dict[str, str]) -> str:
    """Each input's fastest pdcc configuration now beside the one recorded earlier: the recorded
    configuration run again, the fastest of this run (aggregation-only ones included) and its ratio to the
    recorded time; SLOWER beyond the noise."""
    lines = ["| input | recorded fastest | recorded ms | same now ms | fastest now | now ms | now / recorded | verdict |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for (sample, label), (variant, clauses, old_ms) in recorded.items():
        group = {r.variant: r for r in runs if (r.sample, r.input) == (sample, label)}
        if not group:
            continue
        same = group.get(named.get(clauses, clauses))
        top = fastest(group, [v for v in group if v not in PLAIN_VARIANTS])
        change = None if top is None else top.median_ms / old_ms
        verdict = "no pdcc result" if change is None else "SLOWER" if change > NOISE else "ok"
        same_ms = "-" if same is None else fmt(same.median_ms, 3) if same.status == "ok" else same.status
        lines.append(f"| {sample}: {label} | `{variant}` | {old_ms:.3f} | {same_ms} | "
                     f"{'-' if top is None else f'`{top.variant}`'} | {fmt(top and top.median_ms, 3)} | {fmt(change)} | {verdict} |")
    return "\n".join(lines) + f"\n\nSLOWER: more than {round((NOISE - 1) * 100)} % slower than recorded.\n"


def merge(paths: list[str], out: Path) -> int:
    """One table from the results.json of several runs (say, the samples split over two GPU sessions)."""
    runs, pdcc_names, aggregation_names, notes, reps = [], [], [], [], None
    meld: MeldResults | None = None
    for path in paths:
        saved = json.loads(Path(path).read_text())
        if "meld" in saved:
            meld = meld or MeldResults(reps=saved["meld"]["reps"])
            meld.runs += [MeldRun(**r) for r in saved["meld"]["runs"]]
            meld.remarks.update(saved["meld"]["remarks"])
            meld.reps = min(meld.reps, saved["meld"]["reps"])
        runs += [Run(**r) for r in saved["runs"]]
        variants = saved.get("pdcc_variants") or [r["variant"] for r in saved["runs"] if r["variant"] not in PLAIN_VARIANTS]
        pdcc_names += [n for n in variants if n not in pdcc_names]
        aggregation_names += [n for n in saved.get("aggregation_variants", []) if n not in aggregation_names]
        reps = min(saved["reps"], reps or saved["reps"])  # the weakest of the merged runs
        notes += saved.get("notes", [])
    out.mkdir(parents=True, exist_ok=True)
    if runs:
        print(plot(runs, pdcc_names, aggregation_names, out / "ratios.png"))
    print(save(out, runs, pdcc_names, aggregation_names, reps, meld, notes))
    return 0


# ---- control-flow melding (issue 10) ----------------------------------------------------------------------

MELD_VARIANTS = ("original", "pdcc", "hand")
NCU_METRICS = ("smsp__thread_inst_executed_per_inst_executed.ratio", "smsp__inst_executed.sum", "gpu__time_duration.sum")
# nvcc does not know `#pragma meld` ("unrecognized #pragma in device code"): the original is built from the
# annotated file with that diagnostic off. pdcc comments its pragmas out, so its build needs nothing.
UNKNOWN_PRAGMA = ["-diag-suppress", "20199"]


@dataclass
class MeldRun:
    sample: str
    input: str
    variant: str                 # original | pdcc | hand
    median_ms: float | None = None
    correct: bool | None = None
    status: str = "ok"           # ok | WRONG | FAILED | TIMEOUT | NOT BUILT
    detail: str = ""
    checksum: str = ""           # FNV-1a of the output: the same output as the original's, or not
    wall_s: float | None = None
    threads_per_inst: float | None = None  # Nsight Compute, on the sample's melded kernels
    inst_executed: float | None = None
    kernel_us: float | None = None  # the profiled launches' time under Nsight Compute (its clocks)
    profile: str = ""            # why there are no metrics, when there are none


@dataclass
class MeldResults:
    reps: int
    runs: list[MeldRun] = field(default_factory=list)
    remarks: dict[str, list[str]] = field(default_factory=dict)  # per sample: pdcc's verdicts on its sites


def meld_selected(config: dict, names: list[str] | None) -> list[dict]:
    """The config's meld samples, or those named (`bitonic` or `meld_bitonic`)."""
    samples = config.get("meld", {}).get("samples", [])
    if names:
        wanted = {n.removeprefix("meld_") for n in names}
        samples = [s for s in samples if s["name"] in wanted]
    return samples


def meld_plans(config: dict, samples: list[dict], out: Path) -> list[tuple]:
    """The three builds of every meld sample: (key, variant, compiler, source, flags) as build_many takes them."""
    arch = f"-arch={config['arch']}"
    plans = []
    for sample in samples:
        name = sample["name"]
        directory = SAMPLES / f"meld_{name}"
        flags = [arch, "-I", str(SAMPLES / "meld_common"), "-I", str(directory)]
        report = out / "logs" / f"pdcc-report-meld_{name}.json"
        plans += [(f"meld_{name}", "original", ["nvcc"], directory / f"{name}.cu", [*flags, *UNKNOWN_PRAGMA]),
                  (f"meld_{name}", "pdcc", pdcc_command(), directory / f"{name}.cu", [*flags, "-q", "--report", str(report)]),
                  (f"meld_{name}", "hand", ["nvcc"], directory / f"{name}_hand.cu", flags)]
    return plans


def pdcc_verdicts(report: Path) -> list[str]:
    """pdcc's remarks on the meld sites of a sample, one line each, from its --report JSON."""
    if not report.exists():
        return ["no pdcc report (the build failed?)"]
    remarks = json.loads(report.read_text())["remarks"]
    return [f"line {r['line']}: {r['kind']} {r['ruleId']}: {r['message']}" for r in remarks if r.get("pass") == "meld"]


def run_meld(binary: Path | None, sample: str, label: str, variant: str, args: list[str], reps: int, timeout: float,
             log: Path) -> MeldRun:
    """One timed run of a meld build: the median of `reps` after a warm-up, checked against the CPU."""
    run = MeldRun(sample, label, variant)
    executed = execute(run, binary, args, reps, timeout, log)
    if executed is None:
        return run
    done, result = executed
    run.median_ms, run.correct = result["median_ms"], result["correct"]
    run.detail, run.checksum = result.get("detail", ""), result.get("checksum", "")
    if run.correct is not True:  # exit 1 with "correct": false: a wrong output, never a time
        run.status = "WRONG"
    elif done.returncode != 0:
        run.status, run.detail = "FAILED", f"exit {done.returncode}: {run.detail}"
    return run


def ncu_command() -> str | None:
    """Nsight Compute's command line tool: on PATH, or beside nvcc."""
    found = shutil.which("ncu")
    nvcc = shutil.which("nvcc")
    if found is None and nvcc is not None and (Path(nvcc).resolve().parent / "ncu").exists():
        found = str(Path(nvcc).resolve().parent / "ncu")
    return found


def ncu_value(text: str) -> float | None:
    """A metric value as ncu prints it ("1,234,567", "27.53", "n/a")."""
    try:
        return float(text.replace(",", "").strip())
    except ValueError:
        return None


def parse_ncu_csv(text: str, metrics: tuple[str, ...] = NCU_METRICS) -> list[dict[str, float | None]]:
    """Per profiled launch, its metrics, from `ncu --csv` output (the details page: one row per metric; or
    the raw page: one column per metric, a row of units first). Lines before the CSV header are ignored."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.DictReader(lines[start:])
    fields = reader.fieldnames or []
    launches: dict[str, dict[str, float | None]] = {}
    for row in reader:
        launch = row.get("ID", "")
        if "Metric Name" in fields:
            if row.get("Metric Name") in metrics:
                launches.setdefault(launch, {})[row["Metric Name"]] = ncu_value(row.get("Metric Value", ""))
        elif launch.strip().isdigit():  # raw page; the row after the header holds units
            launches[launch] = {m: ncu_value(row.get(m, "")) for m in metrics if m in fields}
    return list(launches.values())


def combine_launches(launches: list[dict[str, float | None]]) -> tuple[float | None, float | None, float | None]:
    """Threads per instruction, instructions and microseconds over several launches (the ratio weighted by
    instructions; the time only when every launch has one)."""
    ratio_name, inst_name, time_name = NCU_METRICS
    complete = [l for l in launches if l.get(ratio_name) is not None and l.get(inst_name) is not None]
    instructions = sum(l[inst_name] or 0.0 for l in complete)
    if not complete or instructions <= 0:
        return None, None, None
    threads = sum((l[ratio_name] or 0.0) * (l[inst_name] or 0.0) for l in complete)
    timed = all(l.get(time_name) is not None for l in complete)
    return threads / instructions, instructions, sum(l[time_name] or 0.0 for l in complete) / 1e3 if timed else None


def run_ncu(ncu: str, metrics: tuple[str, ...], selection: list[str], binary: Path, program: list[str],
            timeout: float, workdir: Path, log_name: str) -> tuple[list[dict[str, float | None]], str]:
    """Nsight Compute's `metrics` on the launches `selection` picks (ncu options) of one run of the program
    (`program`: its arguments): per launch, and the line that says why, should there be no metrics."""
    csv_log = workdir / log_name
    csv_log.unlink(missing_ok=True)
    command = [ncu, "--metrics", ",".join(metrics), "--csv", "--print-units", "base", *selection,
               "--log-file", str(csv_log), str(binary), *program]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return [], "ncu timed out"
    text = csv_log.read_text(errors="replace") if csv_log.exists() else ""
    with (workdir / "ncu.log").open("a") as handle:
        handle.write(f"$ {' '.join(command)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}\n{text}\n")
    why = next((line for line in (text + done.stdout + done.stderr).splitlines() if "ERR" in line or "rror" in line),
               f"ncu exit {done.returncode}, no metrics")
    return parse_ncu_csv(text, metrics), why.strip()[:160]


def profile_meld(ncu: str, binary: Path, kernels: list[str], launches: int, args: list[str], timeout: float,
                 workdir: Path) -> tuple[float | None, float | None, float | None, str]:
    """Nsight Compute on the first `launches` launches of the sample's kernels, the program run once without
    its CPU check: (threads per instruction, instructions executed, microseconds, '' or why there are none)."""
    selection = ["--kernel-name-base", "function", "--kernel-name", f"regex:^({'|'.join(kernels)})$",
                 "--launch-count", str(launches)]
    measured, problem = run_ncu(ncu, NCU_METRICS, selection, binary, [*args, "--reps", "1", "--no-check"], timeout,
                                workdir, f"ncu-{binary.name}.csv")
    threads, instructions, microseconds = combine_launches(measured)
    if threads is None:
        return None, None, None, problem
    return threads, instructions, microseconds, ""


# How far a build is from the hardware (issue 13): achieved occupancy, warp execution efficiency (threads per
# executed instruction, 32 without divergence) and DRAM throughput against the peak, each weighted by the
# time of the launch it was measured on.
PROFILE_METRICS = ("sm__warps_active.avg.pct_of_peak_sustained_active",
                   "smsp__thread_inst_executed_per_inst_executed.ratio",
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum")
PROFILE_LAUNCHES = 200  # the first launches of the program's warm-up run: a recursion's levels, not all of them


def summarize_profile(launches: list[dict[str, float | None]]) -> dict | None:
    """The time-weighted means of PROFILE_METRICS over the profiled launches, and their count and time."""
    occupancy, lanes, dram, time = PROFILE_METRICS
    timed = [l for l in launches if l.get(time) and all(l.get(m) is not None for m in (occupancy, lanes, dram))]
    total = sum(l[time] or 0.0 for l in timed)
    if not timed or total <= 0:
        return None
    mean = lambda metric: sum((l[metric] or 0.0) * (l[time] or 0.0) for l in timed) / total  # noqa: E731
    return {"launches": len(timed), "kernel_us": round(total / 1e3, 3), "occupancy_pct": round(mean(occupancy), 1),
            "warp_efficiency_pct": round(mean(lanes) / 32 * 100, 1), "dram_pct_of_peak": round(mean(dram), 1)}


def profile_summary(ncu: str, binary: Path, args: list[str], timeout: float, workdir: Path) -> tuple[dict | None, str]:
    """Nsight Compute on the first PROFILE_LAUNCHES kernel launches of one run of the program:
    summarize_profile's numbers, or None and why there are none."""
    measured, problem = run_ncu(ncu, PROFILE_METRICS, ["--launch-count", str(PROFILE_LAUNCHES)], binary,
                                [*args, "--reps", "1"], timeout, workdir, f"ncu-profile-{binary.name}.csv")
    summary = summarize_profile(measured)
    return (summary, "") if summary is not None else (None, problem)


def profile_table(runs: list[Run]) -> str:
    """The profiles of results.md: one row per profiled build."""
    profiled = [r for r in runs if r.profile]
    if not profiled:
        return ""
    lines = ["", "## Nsight Compute profiles (`--profile-dp`): the fastest pdcc build and the best version of each input",
             "", f"Over the first {PROFILE_LAUNCHES} kernel launches of one run, each metric weighted by its launch's "
             "time: achieved occupancy (`sm__warps_active.avg.pct_of_peak_sustained_active`), warp execution "
             "efficiency (`smsp__thread_inst_executed_per_inst_executed.ratio` / 32) and DRAM throughput against "
             "the peak (`dram__throughput.avg.pct_of_peak_sustained_elapsed`).", "",
             "| sample | input | variant | launches | kernel µs | occupancy % | warp efficiency % | DRAM % of peak |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in profiled:
        p = r.profile or {}
        if "problem" in p:
            lines.append(f"| {r.sample} | {r.input} | {r.variant} | - | - | - | - | {p['problem']} |")
        else:
            lines.append(f"| {r.sample} | {r.input} | {r.variant} | {p['launches']} | {p['kernel_us']} | "
                         f"{p['occupancy_pct']} | {p['warp_efficiency_pct']} | {p['dram_pct_of_peak']} |")
    return "\n".join(lines) + "\n"


def speedup(original: MeldRun | None, run: MeldRun) -> float | None:
    """original time / this time: above 1 is faster than nvcc on the original."""
    if original is None or original.status != "ok" or run.status != "ok" or not run.median_ms:
        return None
    return original.median_ms / run.median_ms if original.median_ms else None


def melded(remarks: list[str]) -> bool:
    return any(": applied " in line for line in remarks)


def meld_table(meld: MeldResults) -> tuple[str, dict]:
    """The meld section of results.md (a table per sample input, pdcc's verdicts per sample, the geometric
    means) and its summary for results.json."""
    lines = ["## Control-flow melding (`#pragma meld`): original (nvcc -O3) against pdcc and hand-melded", "",
             "speed-up = original ms / this ms. lanes/inst: threads per executed instruction of the sample's melded "
             "kernels, 32 without divergence (`smsp__thread_inst_executed_per_inst_executed.ratio`); inst: "
             "instructions executed (`smsp__inst_executed.sum`); kernel µs: their time (`gpu__time_duration.sum`, at "
             "Nsight Compute's locked clocks); all three from Nsight Compute over the first launches of those kernels "
             "(the warm-up run's: see bench/config.json for which and how many). "
             "output: the output's checksum against the original's (float outputs may differ in the last bits "
             "and still be correct: the checker decides).", ""]
    samples = list(dict.fromkeys(r.sample for r in meld.runs))
    per_sample: dict[str, dict[str, list[float]]] = {s: {"pdcc": [], "hand": [], "kernel": []} for s in samples}
    for sample in samples:
        keys = list(dict.fromkeys(r.input for r in meld.runs if r.sample == sample))
        for label in keys:
            group = {r.variant: r for r in meld.runs if (r.sample, r.input) == (sample, label)}
            original = group.get("original")
            lines += [f"### {sample}: {label}", "",
                      "| variant | median ms | result | speed-up | lanes/inst | inst (M) | kernel µs | output |",
                      "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
            for variant, run in group.items():
                shown = fmt(run.median_ms, 3) if run.status in ("ok", "WRONG") else run.status
                verdict = "correct" if run.status == "ok" else f"{run.status}: {run.detail}".rstrip(": ")
                gain = speedup(original, run)
                if gain is not None and variant in per_sample[sample]:
                    per_sample[sample][variant].append(gain)
                if variant == "pdcc" and gain is not None and original is not None and original.kernel_us and run.kernel_us:
                    per_sample[sample]["kernel"].append(original.kernel_us / run.kernel_us)
                same = ("" if variant == "original" or original is None or not run.checksum
                        else "same" if run.checksum == original.checksum else "differs")
                lanes = fmt(run.threads_per_inst, 1) if run.threads_per_inst is not None else (
                    f"- ({run.profile})" if run.profile else "-")
                inst = "-" if run.inst_executed is None else f"{run.inst_executed / 1e6:,.1f}"
                lines.append(f"| {variant} | {shown} | {verdict} | {fmt(gain)} | {lanes} | {inst} | "
                             f"{fmt(run.kernel_us, 1)} | {same} |")
            lines.append("")
        verdicts = meld.remarks.get(sample, [])
        if verdicts:
            lines += [f"pdcc on {sample}:", ""] + [f"- {line}" for line in verdicts] + [""]
    summary: dict = {"per_sample": {}, "pdcc": None, "hand": None, "pdcc_declined_as_1": None,
                     "pdcc_lowest": None, "hand_lowest": None, "pdcc_kernels": None}
    lines += ["### Geometric mean over the samples (each sample: the geometric mean of its inputs)", "",
              "pdcc kernels: the speed-up of the melded kernels alone (kernel µs above, one profiled run at "
              "Nsight Compute's clocks), the measure of seed 004, which times LUD's perimeter kernel alone; the "
              "other speed-ups are of the whole timed program (median of the runs).", "",
              "| sample | pdcc melded | pdcc speed-up | hand speed-up | pdcc kernels | inputs |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    pdcc_means, hand_means, kernel_means, accepted = [], [], [], []
    for sample in samples:
        pdcc_mean, hand_mean = geomean(per_sample[sample]["pdcc"]), geomean(per_sample[sample]["hand"])
        kernel_mean = geomean(per_sample[sample]["kernel"])
        did = melded(meld.remarks.get(sample, []))
        summary["per_sample"][sample] = {"pdcc": pdcc_mean, "hand": hand_mean, "pdcc_melded": did,
                                         "pdcc_kernels": kernel_mean, "inputs": len(per_sample[sample]["pdcc"])}
        pdcc_means += [pdcc_mean] if pdcc_mean else []
        hand_means += [hand_mean] if hand_mean else []
        kernel_means += [kernel_mean if did else 1.0] if kernel_mean else []
        if pdcc_mean:
            accepted.append(pdcc_mean if did else 1.0)
        lines.append(f"| {sample} | {'yes' if did else 'no'} | {fmt(pdcc_mean)} | {fmt(hand_mean)} | "
                     f"{fmt(kernel_mean)} | {len(per_sample[sample]['pdcc'])} |")
    summary.update(pdcc=geomean(pdcc_means), hand=geomean(hand_means), pdcc_declined_as_1=geomean(accepted),
                   pdcc_lowest=min(pdcc_means, default=None), hand_lowest=min(hand_means, default=None),
                   pdcc_kernels=geomean(kernel_means))
    lines += [f"| **geometric mean** | | {fmt(summary['pdcc'])} | {fmt(summary['hand'])} | "
              f"{fmt(summary['pdcc_kernels'])} | {len(pdcc_means)} samples |",
              f"| lowest sample | | {fmt(summary['pdcc_lowest'])} | {fmt(summary['hand_lowest'])} | | |", "",
              f"Counting a sample pdcc declined to meld as 1.00x (issue 10's acceptance, on the program's time): "
              f"{fmt(summary['pdcc_declined_as_1'])}; on the melded kernels' time (a declined sample 1.00x): "
              f"{fmt(summary['pdcc_kernels'])}.", ""]
    return "\n".join(lines) + "\n", summary


def run_meld_part(config: dict, samples: list[dict], out: Path, binaries: dict, meld: MeldResults, save_all,
                  profile: bool = True) -> None:
    """Every input of every meld sample: the three builds timed one after another, then Nsight Compute on each
    (on the inputs in the sample's "profile" list, when it has one); the tables saved after every input."""
    settings = config["meld"]
    ncu = ncu_command() if profile else None
    if profile and ncu is None:
        print("bench: no ncu (Nsight Compute) here: the meld tables get no instruction counts", flush=True)
    for sample in samples:
        name = sample["name"]
        meld.remarks[name] = pdcc_verdicts(out / "logs" / f"pdcc-report-meld_{name}.json")
        for index, item in enumerate(sample["inputs"]):
            runs = {}
            for variant in MELD_VARIANTS:
                run = run_meld(binaries.get((f"meld_{name}", variant)), name, item["label"], variant, item["args"],
                               meld.reps, settings["timeout_s"], out / "logs" / f"run-meld_{name}.log")
                meld.runs.append(run)
                runs[variant] = run
                print(f"  meld {name:8s} {item['label']:28s} {variant:9s} {run.status:9s} "
                      f"{fmt(run.median_ms, 3):>9s} ms  ({run.wall_s} s)", flush=True)
            if index in sample.get("profile", range(len(sample["inputs"]))):
                for variant, run in runs.items():
                    binary = binaries.get((f"meld_{name}", variant))
                    if binary is None:
                        continue
                    if ncu is None:
                        run.profile = "not profiled" if not profile else "no ncu"
                        continue
                    run.threads_per_inst, run.inst_executed, run.kernel_us, run.profile = profile_meld(
                        ncu, binary, sample["kernels"], sample.get("launches", 1), item["args"],
                        settings.get("profile_timeout_s", 120), out / "logs")
                    print(f"  meld {name:8s} {item['label']:28s} {variant:9s} ncu: "
                          f"{fmt(run.threads_per_inst, 1)} lanes/inst, {fmt(run.inst_executed, 0)} inst, "
                          f"{fmt(run.kernel_us, 1)} us {run.profile}", flush=True)
            save_all()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "bench" / "config.json"))
    parser.add_argument("--out", default=str(ROOT / "build" / "bench"))
    parser.add_argument("--samples", nargs="*", help="only these samples")
    parser.add_argument("--reps", type=int, help="timed runs per variant (config default otherwise)")
    parser.add_argument("--sweep", action="store_true",
                        help="add every point of the config's sweep grid (threshold x coarsen x granularity)")
    parser.add_argument("--tune", action="store_true",
                        help="add a coordinate search of the sweep grid per input (far fewer runs than --sweep)")
    parser.add_argument("--merge", nargs="+", metavar="RESULTS_JSON",
                        help="no runs: one table from earlier results.json files, written to --out")
    parser.add_argument("--configs-from", metavar="RESULTS_JSON",
                        help="per input: plain, aggregation-only and the fastest configuration recorded there; "
                             "writes comparison.md")
    parser.add_argument("--only", choices=PARTS,
                        help="only the dynamic-parallelism samples (dp: aggregation, the samples without a "
                             "recursion, and recursion, those with one), or only the control-flow melding samples "
                             "(a plain run does all; --sweep, --tune and --configs-from imply dp)")
    parser.add_argument("--budget-s", type=float, default=math.inf,
                        help="a time budget in seconds, from the start, for the builds and the dynamic-parallelism "
                             "inputs (a device command may run 10 minutes; what has started finishes, so leave a "
                             "margin): each input gets an equal share of what is left, its tuning what its own runs "
                             "leave of it, and past the budget no tuning, profile or input starts; results.md says "
                             "what was cut. The meld part has no budget")
    parser.add_argument("--no-profile", action="store_true", help="meld samples: no Nsight Compute runs")
    parser.add_argument("--profile-dp", action="store_true",
                        help="dynamic-parallelism samples: an Nsight Compute summary of the fastest pdcc build and "
                             "the best version of every input (occupancy, warp efficiency, DRAM throughput)")
    arguments = parser.parse_args()
    if arguments.merge:
        return merge(arguments.merge, Path(arguments.out))
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        print("bench: no NVIDIA GPU here; run `make bench` on a machine with one", file=sys.stderr)
        return 2
    config = json.loads(Path(arguments.config).read_text())
    if arguments.sweep:
        configured = {c["clauses"] for c in config["pdcc_configurations"]}
        config["pdcc_configurations"] += [c for c in sweep_configurations(config["sweep"]) if c["clauses"] not in configured]
    recorded = {}
    if arguments.configs_from:
        recorded = recorded_fastest(json.loads(Path(arguments.configs_from).read_text()), config)
        config["pdcc_configurations"] = [c for c in config["pdcc_configurations"] if c.get("role") == "aggregation only"]
    only = arguments.only or ("dp" if arguments.sweep or arguments.tune or arguments.configs_from else None)
    if only == "meld" and "meld" not in config:
        sys.exit(f"bench: {arguments.config} has no 'meld' part")
    meld_samples = meld_selected(config, arguments.samples) if only in (None, "meld") else []
    config["samples"] = part_samples(config["samples"], only, arguments.samples)
    reps = arguments.reps or config["reps"]
    out = Path(arguments.out)
    (out / "bin").mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    (out / "cache").mkdir(exist_ok=True)  # generated inputs, made once per input instead of once per run
    os.environ.setdefault("PDCC_SAMPLE_CACHE", str(out / "cache"))
    started, deadline = time.time(), time.monotonic() + arguments.budget_s  # the budget counts the builds too
    binaries = build_all(config, out, meld_plans(config, meld_samples, out))
    print(f"built {sum(b is not None for b in binaries.values())}/{len(binaries)} programs "
          f"in {time.time() - started:.0f} s", flush=True)
    meld = MeldResults(reps=arguments.reps or config["meld"]["reps"]) if meld_samples else None
    session = Session(config, out, reps, binaries, meld, ncu_command() if arguments.profile_dp else None, deadline)
    if arguments.profile_dp and session.ncu is None:
        print("bench: no ncu (Nsight Compute) here: no profiles", flush=True)
    data = data_dir() if config["samples"] else ROOT
    session.run_inputs(data, arguments.tune, recorded)
    if meld is not None:
        run_meld_part(config, meld_samples, out, binaries, meld, session.save, profile=not arguments.no_profile)
    if session.runs:
        print(plot(session.runs, session.pdcc_names, session.aggregation_names, out / "ratios.png"))
    print(session.save())
    if recorded and (out / "comparison.md").exists():  # (not when no input ran)
        print((out / "comparison.md").read_text())
    return 0


class Session:
    """One benchmark run: every input runs the plain variants and the configured pdcc ones once, and with
    `tune` its own coordinate search (new points are built on demand, many at once)."""

    def __init__(self, config: dict, out: Path, reps: int, binaries: dict[tuple[str, str], Path | None],
                 meld: MeldResults | None = None, ncu: str | None = None, deadline: float = math.inf):
        self.config, self.out, self.reps, self.binaries, self.meld = config, out, reps, binaries, meld
        self.ncu = ncu  # profile the fastest pdcc build and the best version of every input
        self.deadline = deadline  # time.monotonic() past which no tuning, profile or input starts
        self.notes: list[str] = []  # what the deadline cut
        self.configured = [c["name"] for c in config["pdcc_configurations"]]
        self.pdcc_names = list(self.configured)  # and the points tuning adds, for the tables
        self.aggregation_names = [c["name"] for c in config["pdcc_configurations"]
                                  if c.get("role") == "aggregation only"]
        self.named = {c["clauses"]: c["name"] for c in config["pdcc_configurations"]}  # tuned points already run
        self.runs: list[Run] = []

    def run_inputs(self, data: Path, tune_it: bool, recorded: dict) -> None:
        """Every input of the config's samples, each with an equal share of the time budget left (its tuning
        gets what its own runs leave of it); with `recorded` (--configs-from), also its recorded fastest
        configuration, and comparison.md."""
        inputs = [(sample["name"], item) for sample in self.config["samples"] for item in sample["inputs"]]
        for index, (name, item) in enumerate(inputs):
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.cut(f"{name}: {item['label']} was not run")
                continue
            again = recorded.get((name, item["label"]))
            self.run_input(name, item, data, tune_it, [again[1]] if again else [],
                           until=time.monotonic() + left / (len(inputs) - index))
            if recorded:
                (self.out / "comparison.md").write_text(comparison(self.runs, recorded, self.named))

    def run_input(self, name: str, item: dict, data: Path, tune_it: bool, also: list[str] = (),
                  until: float = math.inf) -> None:
        """Runs one input: the plain and configured variants, the clauses `also` (built here), and tuning
        (no knob of it started after `until`, this input's share of the time budget)."""
        args = [a.replace("{data}", str(data)) for a in item["args"]]
        measured: dict[str, Run] = {}

        def measure(variants: list[str]) -> list[Run]:
            """Runs the variants this input has not run yet; returns each variant's run."""
            for variant in dict.fromkeys(variants):
                if variant not in measured:
                    run = run_one(self.binaries[(name, variant)], name, item["label"], variant, args, self.reps,
                                  item.get("timeout_s", self.config["timeout_s"]), self.out / "logs" / f"run-{name}.log")
                    self.runs.append(run)
                    measured[variant] = run
                    print(f"  {name:10s} {item['label']:22s} {variant:40s} {run.status:9s} "
                          f"{fmt(run.median_ms, 3):>9s} ms  ({run.wall_s} s)", flush=True)
            return [measured[v] for v in variants]

        def measure_clauses(clauses: list[str]) -> list[Run]:
            """Builds the new points (in parallel), then runs them."""
            variants = [self.named.get(c, c) for c in clauses]
            arch = f"-arch={self.config['arch']}"
            self.binaries.update(build_many([pdcc_plan(name, c, c, arch, self.out) for c, v in zip(clauses, variants)
                                             if (name, v) not in self.binaries], self.out))
            self.pdcc_names.extend(v for v in dict.fromkeys(variants) if v not in self.pdcc_names)
            return measure(variants)

        consolidations = [c["name"] for c in self.sample(name).get("consolidations", [])]
        self.pdcc_names.extend(v for v in consolidations if v not in self.pdcc_names)
        measure([v for v in (*PLAIN_VARIANTS, *self.configured, *consolidations) if (name, v) in self.binaries])
        if also:
            measure_clauses(list(also))
        if tune_it and any((name, v) in self.binaries for v in self.configured):
            if not tune(self.config["sweep"], measure_clauses, min(until, self.deadline)):
                self.cut(f"{name}: {item['label']}: tuning stopped at its share of the budget")
        if self.ncu is not None and time.monotonic() >= self.deadline:
            self.cut(f"{name}: {item['label']}: not profiled")
        elif self.ncu is not None:
            chosen = [fastest(measured, self.pdcc_names), measured.get("best")]
            for run in (r for r in chosen if r is not None and r.status == "ok"):
                summary, problem = profile_summary(self.ncu, self.binaries[(name, run.variant)], args,
                                                   self.config.get("profile_timeout_s", 120), self.out / "logs")
                run.profile = summary or {"problem": problem}
        self.save()

    def sample(self, name: str) -> dict:
        return next((s for s in self.config.get("samples", []) if s["name"] == name), {})

    def cut(self, note: str) -> None:
        print(f"bench: out of time (--budget-s): {note}", flush=True)
        self.notes.append(note)
        self.save()

    def save(self) -> str:
        return save(self.out, self.runs, self.pdcc_names, self.aggregation_names, self.reps, self.meld, self.notes)


if __name__ == "__main__":
    sys.exit(main())
