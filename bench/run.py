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
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
PLAIN_VARIANTS = ("naive", "flat", "best")
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


def with_clauses(source: Path, clauses: str, out: Path) -> Path | None:
    """A copy of an annotated sample whose threshold sites carry `clauses` instead (one configuration),
    or None when the sample has no such site (its configurations would all be the same program)."""
    lines = source.read_text().splitlines(keepends=True)
    replaced = False
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith("#pragma dp") and "threshold(" in stripped:
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


def tune(sweep: dict, measure) -> None:
    """Coordinate search of the sweep grid for one input: per granularity, from the grid's start point,
    each knob in turn takes the value with the fastest correct run. `measure(clauses_list)` runs them."""
    for granularity in sweep["consldt"]:
        point = dict(sweep["start"])
        for knob in knobs(granularity):
            candidates = [dict(point, **{knob: value}) for value in sweep[knob]]
            runs = measure([clauses_at(c, granularity) for c in candidates])
            timed = [(run.median_ms, index) for index, run in enumerate(runs) if run.status == "ok"]
            if timed:
                point = candidates[min(timed)[1]]


def pdcc_plan(name: str, variant: str, clauses: str, arch: str, out: Path) -> tuple | None:
    """How to build one pdcc configuration of a sample, or None when it has no site to put it on."""
    directory = SAMPLES / name
    source = with_clauses(directory / f"{name}_dp.cu", clauses, out)
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


def build_all(config: dict, out: Path) -> dict[tuple[str, str], Path | None]:
    """Every sample's naive, flat and best programs and its pdcc configurations."""
    arch = f"-arch={config['arch']}"
    plans = []
    for sample in config["samples"]:
        name = sample["name"]
        directory = SAMPLES / name
        plans += [(name, "naive", ["nvcc"], directory / f"{name}_dp.cu", [arch, "-rdc=true", "-lcudadevrt"]),
                  (name, "flat", ["nvcc"], directory / f"{name}_flat.cu", [arch]),
                  (name, "best", ["nvcc"], directory / f"{name}_best.cu", [arch, *sample.get("best_flags", [])])]
        plans += filter(None, (pdcc_plan(name, c["name"], c["clauses"], arch, out)
                               for c in config["pdcc_configurations"]))
    return build_many(plans, out)


def run_one(binary: Path | None, sample: str, label: str, variant: str, args: list[str], reps: int,
            timeout: float, log: Path) -> Run:
    run = Run(sample, label, variant)
    if binary is None:
        run.status = "NOT BUILT"
        return run
    started = time.time()
    try:
        done = subprocess.run([str(binary), *args, "--reps", str(reps)], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        run.status = "TIMEOUT"
        return run
    finally:
        run.wall_s = round(time.time() - started, 2)
    with log.open("a") as handle:
        handle.write(f"$ {binary.name} {' '.join(args)}\n{done.stdout}{done.stderr}\n")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        run.status, run.detail = "FAILED", (done.stderr.strip().splitlines() or ["no result line"])[-1][:120]
        return run
    result = json.loads(lines[-1])
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


def plot(runs: list[Run], pdcc_names: list[str], path: Path) -> str:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot"
    keys = list(dict.fromkeys((r.sample, r.input) for r in runs))
    variants = [*pdcc_names, "flat", "best"]
    figure, axis = plt.subplots(figsize=(max(8, 1.6 * len(keys)) + 3, 5))
    width = 0.8 / len(variants)
    colours = plt.get_cmap("tab20")(range(len(variants)))  # one colour per variant, however many
    for index, variant in enumerate(variants):
        heights = []
        for key in keys:
            group = {r.variant: r for r in runs if (r.sample, r.input) == key}
            heights.append(ratio(group.get("naive"), group[variant]) or 0 if variant in group else 0)
        axis.bar([k + index * width for k in range(len(keys))], heights, width, label=variant, color=colours[index])
    axis.set_yscale("log")
    axis.set_ylabel("speed-up over the naive dynamic-parallelism program")
    axis.set_xticks([k + 0.4 - width / 2 for k in range(len(keys))])
    axis.set_xticklabels([f"{s}\n{i}" for s, i in keys], fontsize=8)
    axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return f"plot: {path}"


def save(out: Path, runs: list[Run], pdcc_names: list[str], aggregation_names: list[str], reps: int) -> str:
    """results.md and results.json (written after every input, so a run cut short still reports)."""
    text, summary = table(runs, pdcc_names, aggregation_names)
    text = (f"Each time is the median of {reps} timed runs after a warm-up"
            + (" (fewer than 5: a preview, not a measurement by DESIGN §5).\n\n" if reps < MIN_REPS else ".\n\n") + text)
    (out / "results.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"runs": [asdict(r) for r in runs], "geomean": summary, "reps": reps,
                                                  "pdcc_variants": pdcc_names,
                                                  "aggregation_variants": aggregation_names}, indent=2))
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
    runs, pdcc_names, aggregation_names, reps = [], [], [], None
    for path in paths:
        saved = json.loads(Path(path).read_text())
        runs += [Run(**r) for r in saved["runs"]]
        variants = saved.get("pdcc_variants") or [r["variant"] for r in saved["runs"] if r["variant"] not in PLAIN_VARIANTS]
        pdcc_names += [n for n in variants if n not in pdcc_names]
        aggregation_names += [n for n in saved.get("aggregation_variants", []) if n not in aggregation_names]
        reps = min(saved["reps"], reps or saved["reps"])  # the weakest of the merged runs
    out.mkdir(parents=True, exist_ok=True)
    print(save(out, runs, pdcc_names, aggregation_names, reps))
    return 0


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
    if arguments.samples:
        config["samples"] = [s for s in config["samples"] if s["name"] in arguments.samples]
    reps = arguments.reps or config["reps"]
    out = Path(arguments.out)
    (out / "bin").mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    (out / "cache").mkdir(exist_ok=True)  # generated inputs, made once per input instead of once per run
    os.environ.setdefault("PDCC_SAMPLE_CACHE", str(out / "cache"))
    started = time.time()
    binaries = build_all(config, out)
    print(f"built {sum(b is not None for b in binaries.values())}/{len(binaries)} programs "
          f"in {time.time() - started:.0f} s", flush=True)
    session = Session(config, out, reps, binaries)
    data = data_dir()
    for sample in config["samples"]:
        for item in sample["inputs"]:
            again = recorded.get((sample["name"], item["label"]))
            session.run_input(sample["name"], item, data, arguments.tune, [again[1]] if again else [])
            if recorded:
                (out / "comparison.md").write_text(comparison(session.runs, recorded, session.named))
    print(plot(session.runs, session.pdcc_names, out / "ratios.png"))
    print(session.save())
    if recorded:
        print((out / "comparison.md").read_text())
    return 0


class Session:
    """One benchmark run: every input runs the plain variants and the configured pdcc ones once, and with
    `tune` its own coordinate search (new points are built on demand, many at once)."""

    def __init__(self, config: dict, out: Path, reps: int, binaries: dict[tuple[str, str], Path | None]):
        self.config, self.out, self.reps, self.binaries = config, out, reps, binaries
        self.configured = [c["name"] for c in config["pdcc_configurations"]]
        self.pdcc_names = list(self.configured)  # and the points tuning adds, for the tables
        self.aggregation_names = [c["name"] for c in config["pdcc_configurations"]
                                  if c.get("role") == "aggregation only"]
        self.named = {c["clauses"]: c["name"] for c in config["pdcc_configurations"]}  # tuned points already run
        self.runs: list[Run] = []

    def run_input(self, name: str, item: dict, data: Path, tune_it: bool, also: list[str] = ()) -> None:
        """Runs one input: the plain and configured variants, the clauses `also` (built here), and tuning."""
        args = [a.replace("{data}", str(data)) for a in item["args"]]
        measured: dict[str, Run] = {}

        def measure(variants: list[str]) -> list[Run]:
            """Runs the variants this input has not run yet; returns each variant's run."""
            for variant in dict.fromkeys(variants):
                if variant not in measured:
                    run = run_one(self.binaries[(name, variant)], name, item["label"], variant, args, self.reps,
                                  self.config["timeout_s"], self.out / "logs" / f"run-{name}.log")
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

        measure([v for v in (*PLAIN_VARIANTS, *self.configured) if (name, v) in self.binaries])
        if also:
            measure_clauses(list(also))
        if tune_it and any((name, v) in self.binaries for v in self.configured):
            tune(self.config["sweep"], measure_clauses)
        self.save()

    def save(self) -> str:
        return save(self.out, self.runs, self.pdcc_names, self.aggregation_names, self.reps)


if __name__ == "__main__":
    sys.exit(main())
