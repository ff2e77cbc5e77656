#!/usr/bin/env python3
"""The benchmark harness: every sample, every variant, one run, on the GPU (`make bench`).

Variants per sample: the naive dynamic-parallelism program as written (nvcc), each pdcc configuration of
bench/config.json (pdcc, the sample's threshold sites annotated with the configuration's clauses), the flat program without dynamic
parallelism, and the best flat or library version. Each binary times itself with CUDA events (warm-up,
median of `reps`) and checks its output against a CPU reference; a wrong result is shown as WRONG, never
as a time. Writes results.json, a table (results.md, also printed) and ratios.png.
"""

from __future__ import annotations

import argparse
import concurrent.futures
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
    copy = out / "src" / f"{source.stem}.{re.sub(r'[^A-Za-z0-9]+', '_', clauses).strip('_')}.cu"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text("".join(lines))
    return copy


def sweep_configurations(sweep: dict) -> list[dict]:
    """Every combination of the sweep's threshold, coarsening and granularity values, as configurations."""
    configurations = []
    for threshold in sweep["threshold"]:
        for factor in sweep["coarsen"]:
            for granularity in sweep["consldt"]:
                clauses = f"threshold({threshold})" + (f" coarsen({factor})" if factor > 1 else "") \
                    + (f" consldt({granularity})" if granularity != "none" else "")
                configurations.append({"name": clauses, "clauses": clauses})
    return configurations


def build_all(config: dict, out: Path) -> dict[tuple[str, str], Path | None]:
    """Builds every (sample, variant) in parallel; a failed build is reported, not fatal."""
    arch = f"-arch={config['arch']}"
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for sample in config["samples"]:
            name = sample["name"]
            directory = SAMPLES / name
            plans = [("naive", ["nvcc"], directory / f"{name}_dp.cu", [arch, "-rdc=true", "-lcudadevrt"]),
                     ("flat", ["nvcc"], directory / f"{name}_flat.cu", [arch]),
                     ("best", ["nvcc"], directory / f"{name}_best.cu", [arch, *sample.get("best_flags", [])])]
            for configuration in config["pdcc_configurations"]:
                source = with_clauses(directory / f"{name}_dp.cu", configuration["clauses"], out)
                if source is not None:
                    plans.append((configuration["name"], pdcc_command(), source, [arch, "-q", "-I", str(directory)]))
            for variant, compiler, source, flags in plans:
                binary = out / "bin" / f"{name}-{re.sub(r'[^A-Za-z0-9]+', '_', variant).strip('_')}"
                log = out / "logs" / f"build-{binary.name}.log"
                jobs[(name, variant)] = (pool.submit(build, compiler, source, binary, flags, log), binary)
    return {key: binary if future.result() else None for key, (future, binary) in jobs.items()}


def run_one(binary: Path | None, sample: str, label: str, variant: str, args: list[str], reps: int,
            timeout: float, log: Path) -> Run:
    run = Run(sample, label, variant)
    if binary is None:
        run.status = "NOT BUILT"
        return run
    try:
        done = subprocess.run([str(binary), *args, "--reps", str(reps)], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        run.status = "TIMEOUT"
        return run
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


def table(runs: list[Run], pdcc_names: list[str]) -> tuple[str, dict]:
    """Markdown tables per sample input and the geometric-mean summary of the best pdcc configuration."""
    summary: dict[str, list[float | None]] = {"vs naive (all inputs)": [], "vs naive (naive correct)": [],
                                              "vs flat": [], "vs best": []}
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
        fastest = min((group[n] for n in pdcc_names if n in group and group[n].status == "ok"),
                      key=lambda r: r.median_ms, default=None)
        if fastest is not None:
            for key, reference in (("vs naive (all inputs)", naive), ("vs flat", flat), ("vs best", best)):
                summary[key].append(ratio(reference, fastest))
            if naive is not None and naive.status == "ok":
                summary["vs naive (naive correct)"].append(ratio(naive, fastest))
        lines.append("")
    lines += ["### Geometric mean, best pdcc configuration per input (reference time / pdcc time)", "",
              "| against | ratio | inputs |", "| --- | ---: | ---: |"]
    for key, values in summary.items():
        present = [v for v in values if v]
        lines.append(f"| {key} | {fmt(geomean(present))} | {len(present)} |")
    lines.append("\n`*`: the naive program's own result was WRONG (lost launches); its time is of an incomplete run.")
    return "\n".join(lines) + "\n", {k: geomean([v for v in vals if v]) for k, vals in summary.items()}


def plot(runs: list[Run], pdcc_names: list[str], path: Path) -> str:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot"
    keys = list(dict.fromkeys((r.sample, r.input) for r in runs))
    variants = [v for v in (*pdcc_names, "flat", "best")]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "bench" / "config.json"))
    parser.add_argument("--out", default=str(ROOT / "build" / "bench"))
    parser.add_argument("--samples", nargs="*", help="only these samples")
    parser.add_argument("--reps", type=int, help="timed runs per variant (config default otherwise)")
    parser.add_argument("--sweep", action="store_true",
                        help="the configurations of the config's sweep (threshold x coarsen x granularity) instead")
    arguments = parser.parse_args()
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
        print("bench: no NVIDIA GPU here; run `make bench` on a machine with one", file=sys.stderr)
        return 2
    config = json.loads(Path(arguments.config).read_text())
    if arguments.sweep:
        config["pdcc_configurations"] = sweep_configurations(config["sweep"])
    if arguments.samples:
        config["samples"] = [s for s in config["samples"] if s["name"] in arguments.samples]
    reps = arguments.reps or config["reps"]
    out = Path(arguments.out)
    (out / "bin").mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    started = time.time()
    binaries = build_all(config, out)
    print(f"built {sum(b is not None for b in binaries.values())}/{len(binaries)} programs "
          f"in {time.time() - started:.0f} s", flush=True)
    data = data_dir()
    pdcc_names = [c["name"] for c in config["pdcc_configurations"]]
    runs = []
    for sample in config["samples"]:
        for item in sample["inputs"]:
            args = [a.replace("{data}", str(data)) for a in item["args"]]
            for variant in (*PLAIN_VARIANTS, *pdcc_names):
                if (sample["name"], variant) not in binaries:
                    continue  # no site this configuration applies to
                run = run_one(binaries[(sample["name"], variant)], sample["name"], item["label"], variant, args,
                              reps, config["timeout_s"], out / "logs" / f"run-{sample['name']}.log")
                runs.append(run)
                print(f"  {sample['name']:10s} {item['label']:22s} {variant:22s} {run.status:9s} "
                      f"{fmt(run.median_ms, 3)} ms", flush=True)
    text, summary = table(runs, pdcc_names)
    (out / "results.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"runs": [asdict(r) for r in runs], "geomean": summary,
                                                  "reps": reps}, indent=2))
    print(plot(runs, pdcc_names, out / "ratios.png"))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
