"""`pdcc tune`: sweeps the knobs of a program's sites on the GPU and writes the fastest correct values.

    pdcc tune --report build/report.json --build "make -B NVCC=pdcc prog" --run "./prog --size 1000000" \\
              --check "./prog --check" [--baseline "./prog_naive --size 1000000"] [--budget 10m] \\
              [--knob PDCC_X=1,2,4 ...] [--out DIR]

The knobs come from a pdcc JSON report (`--report x.json` of one compile, `pdcc report DIR -o x.json` of a
build, or a `--report-dir` folder of unit files): nothing in the source is edited. Each point of the sweep is
built by the user's build command with the point's `-D` flags in the environment variable PDCC_TUNE_FLAGS,
which pdcc appends to its own command line (so pdcc sees them, for the meld thresholds it decides on, and so
does nvcc). The contract with the build:

- PDCC_TUNE_FLAGS   the point's flags, shell-quoted, e.g. `-DPDCC_THRESHOLD_spmv_rows_0=512`; pdcc appends
                    them to the arguments of every compile, as if written last on its command line.
- PDCC_TUNE_RECEIPT a file; every pdcc that applied PDCC_TUNE_FLAGS appends one line to it (the flags, a tab,
                    the inputs). A build that leaves it empty did not run pdcc with the flags (make found
                    nothing to rebuild: use `make -B`, or `--clean`), and the point is marked `not-rebuilt`
                    instead of timing a stale program (`--no-receipt` turns the check off).
- CCACHE_DISABLE=1  set for the build: a compiler cache keys on the command line, not on PDCC_TUNE_FLAGS.
- CUDA_VISIBLE_DEVICES one GPU per worker (build, run and check); PDCC_TUNE_WORKER and PDCC_TUNE_POINT too.

The run command runs `--repeat` times (the median counts); its time is the `median_ms` of the sample
harness's JSON result line (samples/common/sample.cuh; `"correct": false` there makes the point invalid), or
the first group of `--time-regex` (milliseconds) in its output, or else its wall time. The check command runs
after the runs; a non-zero exit marks the point invalid, and an invalid point is never the fastest.

`--baseline CMD` is the program to compare with, e.g. the naive one (the same source built without pdcc):
the speed-ups over the default configuration say what tuning gave, those over the baseline what pdcc and
tuning gave together. It runs once before the sweep, `--repeat` times under the same timing rules (on the
first device, in the first worker's directory; not built, not checked). A baseline whose result line says
`"correct": false` keeps its time and status `invalid`, and the speed-ups over it are marked `*` (bench/run.py
does the same with the naive program, which loses launches on large inputs); one that fails, times out or
has no time is reported, the sweep runs anyway, and there is no speed-up over it.

The sweep, per site (`--strategy sites`, the default): the default configuration first, then the grid of the
site's two main knobs (the heatmap), then each other knob of the site alone at that grid's best, then (with
several sites) every site at its best at once. `--strategy grid` is the full product of every knob instead.
The values of a knob: powers of two within its domain (threshold, coarsening, records, multiblock K,
aggregation threshold), for a meld threshold a fraction at or below the site's profitability score (melds, the
default) and the first above it (does not meld) — other fractions build the same program; pool bytes stay at
their default. `--knob MACRO=V1,V2` sets a knob's values (any macro: also the program's own).

Points run on every visible GPU at once, one point per GPU at a time (`dispatch`); with several GPUs each
worker runs the commands in its own copy of the current directory, unless a command names `{worker}`, which
is replaced by the worker's number (`{gpu}` by its device). `--budget` stops the sweep cleanly: no point starts
after it, a point it cuts short is `unfinished`, and what finished is reported. Ctrl-C does the same.

Writes to `--out` (default `pdcc-tune/`): tune.json (every point, the knobs, the best), table.md, best.flags
(the best values, one `-D` a line: `nvcc --options-file best.flags`, or `PDCC_TUNE_FLAGS="$(cat best.flags)"`),
heatmap-<site>.svg (the speed-up over the default configuration on the site's two main knobs), speedup.svg
(the fastest points against the baseline when it has a time, else against the default) and logs/ (every
command of every point, and of the baseline, with its output).
Plots are SVG written here: matplotlib is not one of pdcc's dependencies, and SVG embeds in the HTML report.
"""

from __future__ import annotations

import argparse
import html
import itertools
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pragmadp import __version__

T = TypeVar("T")
D = TypeVar("D")
R = TypeVar("R")

FLAGS_VARIABLE = "PDCC_TUNE_FLAGS"
RECEIPT_VARIABLE = "PDCC_TUNE_RECEIPT"

# The prefix of each kind's macro: the rest of the name is the site.
PREFIXES = {
    "threshold": "PDCC_THRESHOLD_", "coarsen": "PDCC_COARSEN_", "granularity": "PDCC_GRANULARITY_",
    "agg_threshold": "PDCC_AGG_THRESHOLD_", "records": "PDCC_RECORDS_",
    "records_per_thread": "PDCC_RECORDS_PER_THREAD_", "pool_bytes": "PDCC_POOL_BYTES_",
    "meld_threshold": "PDCC_MELD_THRESHOLD_", "meld_min_trips": "PDCC_MELD_MIN_TRIPS_",
}
# Which knobs of a site are its main two (the heatmap's axes): the first two of this order it has.
PRIORITY = ("threshold", "coarsen", "granularity", "agg_threshold", "records_per_thread", "records",
            "meld_threshold", "meld_min_trips", "user", "pool_bytes")
# The values swept per kind, clipped to the knob's domain (the default is added when it is a number).
CANDIDATES: dict[str, list[int | float]] = {
    "threshold": [2 ** k for k in range(5, 12)],            # 32 .. 2048
    "coarsen": [2 ** k for k in range(0, 6)],               # 1 .. 32
    "granularity": [2 ** k for k in range(0, 9)],           # multiblock K: 1 .. 256
    "agg_threshold": [2 ** k for k in range(0, 7)],         # 1 .. 64
    "records_per_thread": [2 ** k for k in range(0, 5)],    # 1 .. 16
    "records": [2 ** k for k in range(4, 13)],              # 16 .. 4096
    "meld_threshold": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0],
    "meld_min_trips": [2 ** k for k in range(5, 12)],       # 32 .. 2048 trips
    "pool_bytes": [],                                       # a capacity, not a speed: default only
}
STATUSES = ("ok", "invalid", "failed", "timeout", "no-time", "build-failed", "not-rebuilt", "unfinished")

USAGE = """\
pdcc tune --report REPORT --build CMD --run CMD [--check CMD] [--baseline CMD] [--budget 10m]
          [--knob MACRO=V1,V2 ...] [--out DIR]
"""


class UsageError(Exception):
    """A bad command line or report: printed and exit status 2."""


# ---- knobs and points ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TuneKnob:
    """A knob to sweep: its macro, site, kind, default as written, domain and the values to try."""

    macro: str
    site: str
    kind: str
    default: str
    domain: tuple[float, float] | None
    values: tuple[str, ...]
    file: str = ""

    @property
    def short(self) -> str:
        """The knob without its site: `threshold`, or the macro of a knob of the user's."""
        return self.kind if self.kind in PREFIXES else self.macro

    def to_dict(self) -> dict[str, Any]:
        return {"macro": self.macro, "site": self.site, "kind": self.kind, "default": _json_value(self.default),
                "min": self.domain[0] if self.domain else None, "max": self.domain[1] if self.domain else None,
                "values": [_json_value(v) for v in self.values], "file": self.file}


@dataclass(frozen=True)
class Point:
    """One configuration: a value for every swept knob (None: as the source has it)."""

    index: int
    phase: str                       # default, main, rest, combined, grid
    site: str                        # the site this point varies ("" for the default and combined points)
    values: tuple[tuple[str, str | None], ...]

    @property
    def assignment(self) -> dict[str, str | None]:
        return dict(self.values)

    def flags(self) -> list[str]:
        return [f"-D{macro}={value}" for macro, value in self.values if value is not None]


@dataclass
class Outcome:
    """What measuring a point gave."""

    status: str = "ok"
    median_ms: float | None = None
    times_ms: list[float] = field(default_factory=list)
    time_source: str = ""
    detail: str = ""
    device: str = ""
    seconds: float = 0.0
    build_seconds: float = 0.0


def number(text: str | None) -> int | float | None:
    """The value of an integer (decimal or hex, with u/l suffixes) or decimal literal, else None."""
    if text is None:
        return None
    stripped = text.strip().rstrip("uUlL")
    try:
        return int(stripped, 0)
    except ValueError:
        pass
    try:
        value = float(text.strip().rstrip("fF"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _json_value(text: str | None) -> int | float | str | None:
    """A value as JSON: a plain decimal integer or fraction as a number, anything else (0x10, 4u, BLOCK) as written."""
    if text is None:
        return None
    stripped = text.strip()
    if re.fullmatch(r"-?\d+", stripped):
        return int(stripped)
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+)([eE]-?\d+)?|-?\d+[eE]-?\d+", stripped):
        return float(stripped)
    return text


def _format(value: int | float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _valid_ms(outcome: Outcome | None) -> float | None:
    """The point's time when it is valid."""
    return outcome.median_ms if outcome is not None and outcome.status == "ok" else None


def site_of(macro: str, kind: str) -> str:
    prefix = PREFIXES.get(kind)
    return macro[len(prefix):] if prefix and macro.startswith(prefix) else macro


def read_report(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The knobs and remarks (as dicts) of a pdcc JSON report, a `pdcc report ... -o x.json` of a build, or
    a `--report-dir` folder of unit reports. UsageError when it is none of them."""
    if os.path.isdir(path):
        from pragmadp.report import collect
        try:
            units = collect.read_units(path)
        except (OSError, collect.UnitFileError) as exc:
            raise UsageError(f"{path}: cannot read the unit reports ({exc})") from exc
        knobs = [{**knob.to_dict(), "file": unit.source} for unit in units for knob in unit.knobs]
        remarks = [collect.remark_to_dict(remark) for unit in units for remark in unit.remarks]
        return knobs, remarks
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the report ({exc.strerror or exc})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a JSON report ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("knobs"), list):
        raise UsageError(f"{path}: not a pdcc JSON report (no \"knobs\" list): write it with "
                         "`pdcc --report FILE.json` or `pdcc report DIR -o FILE.json`")
    listed = data.get("remarks")
    remarks = [r for r in listed if isinstance(r, dict)] if isinstance(listed, list) else []
    return [k for k in data["knobs"] if isinstance(k, dict)], remarks


def meld_scores(remarks: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """The profitability score of each melded site, by its knob's macro (from the PDCC800 remarks)."""
    scores = {}
    for remark in remarks:
        args = remark.get("args") or {}
        if remark.get("ruleId") == "PDCC800" and isinstance(args, dict) and "macro" in args:
            score = number(str(args.get("score")))
            if score is not None:
                scores[str(args["macro"])] = float(score)
    return scores


def candidate_values(kind: str, default: str, domain: tuple[float, float] | None,
                     score: float | None = None) -> tuple[str, ...]:
    """The values to sweep for a knob: the kind's candidates within the domain, with the default (when a
    number); for a meld threshold with a known score, one value that melds (the default) and one that does not."""
    default_number = number(default)
    values: list[int | float] = [v for v in CANDIDATES.get(kind, [])
                                 if domain is None or domain[0] <= v <= domain[1]]
    if kind == "meld_threshold" and score is not None:
        melds = default_number if default_number is not None and default_number <= score else \
            max((v for v in values if v <= score), default=None)
        above = min((v for v in values if v > score), default=None)
        values = [v for v in (melds, above) if v is not None]
        return tuple(_format(v) for v in values) or (default,)
    if default_number is not None and (domain is None or domain[0] <= default_number <= domain[1]):
        values.append(default_number)
    if not values:
        return (default,)
    unique = sorted(set(values))
    return tuple(_format(v) for v in unique)


def knobs_from_report(knob_dicts: Sequence[Mapping[str, Any]], remarks: Sequence[Mapping[str, Any]],
                      overrides: Mapping[str, Sequence[str]], sites: Sequence[str] = ()) -> list[TuneKnob]:
    """The knobs to sweep, in report order, one per macro (a macro of two files is one -D); `overrides`
    (from --knob) replace a knob's values or add a knob of the user's; `sites` keeps those sites only."""
    scores = meld_scores(remarks)
    knobs: dict[str, TuneKnob] = {}
    for data in knob_dicts:
        macro, kind = str(data.get("macro", "")), str(data.get("kind", ""))
        if not macro or macro in knobs:
            continue
        default = str(data.get("default", ""))
        low, high = number(str(data.get("min"))), number(str(data.get("max")))
        domain = (float(low), float(high)) if low is not None and high is not None else None
        values = candidate_values(kind, default, domain, scores.get(macro))
        knobs[macro] = TuneKnob(macro, site_of(macro, kind), kind, default, domain, values, str(data.get("file", "")))
    for macro, given in overrides.items():
        known = knobs.get(macro)
        for value in given:
            if not re.fullmatch(r"[A-Za-z0-9_.+\-]+", value):
                raise UsageError(f"--knob {macro}: {value!r} is not a number or a name")
            parsed = number(value)
            if known is not None and known.domain is not None and parsed is not None and \
                    not known.domain[0] <= parsed <= known.domain[1]:
                raise UsageError(f"--knob {macro}: {value} is outside the knob's domain "
                                 f"{_format(_int(known.domain[0]))}..{_format(_int(known.domain[1]))}")
        if known is not None:
            knobs[macro] = TuneKnob(known.macro, known.site, known.kind, known.default, known.domain,
                                    tuple(given), known.file)
        else:
            knobs[macro] = TuneKnob(macro, "user", "user", "", None, tuple(given))
    chosen = [knob for knob in knobs.values() if not sites or knob.site in sites or knob.kind == "user"]
    missing = [site for site in sites if not any(knob.site == site for knob in chosen)]
    if missing:
        known_sites = sorted({knob.site for knob in knobs.values()})
        raise UsageError(f"--site {', '.join(missing)}: no such site in the report (sites: {', '.join(known_sites)})")
    return chosen


def _int(value: float) -> int | float:
    return int(value) if value == int(value) else value


def swept(knobs: Sequence[TuneKnob]) -> list[TuneKnob]:
    """The knobs that take more than one value."""
    return [knob for knob in knobs if len(knob.values) > 1]


def default_value(knob: TuneKnob) -> str | None:
    """The value the default configuration passes: the default when it is a number (None: as written)."""
    if knob.kind == "user":
        return knob.values[0] if len(knob.values) == 1 else None
    if len(knob.values) == 1 and knob.values[0] != knob.default:
        return knob.values[0]   # --knob fixed it
    return knob.default if number(knob.default) is not None else None


def passed(knob: TuneKnob) -> bool:
    """Whether the points pass the knob with -D: when it is swept, or fixed by --knob to another value."""
    return len(knob.values) > 1 or knob.values[0] != knob.default


def site_order(knobs: Sequence[TuneKnob]) -> list[str]:
    return list(dict.fromkeys(knob.site for knob in knobs))


def main_knobs(knobs: Sequence[TuneKnob], site: str) -> list[TuneKnob]:
    """A site's swept knobs, the main ones (the heatmap's x and y) first."""
    own = [knob for knob in swept(knobs) if knob.site == site]
    return sorted(own, key=lambda knob: (PRIORITY.index(knob.kind) if knob.kind in PRIORITY else len(PRIORITY),
                                         own.index(knob)))


class Planner:
    """The points of the sweep, phase by phase: each phase sees the outcomes of the ones before it."""

    def __init__(self, knobs: Sequence[TuneKnob], strategy: str = "sites"):
        self.knobs = list(knobs)
        self.strategy = strategy
        self.points: list[Point] = []
        self.seen: dict[tuple[tuple[str, str | None], ...], int] = {}
        # the knobs a point passes: the swept ones and those --knob fixed (the rest stay as the source has them)
        self.base = tuple((knob.macro, default_value(knob)) for knob in self.knobs if passed(knob))

    def _add(self, phase: str, site: str, changes: Mapping[str, str | None]) -> Point | None:
        values = tuple((macro, changes.get(macro, value)) for macro, value in self.base)
        key = tuple(sorted(values, key=lambda item: item[0]))
        if key in self.seen:  # the same program as a point already planned
            return None
        point = Point(len(self.points), phase, site, values)
        self.seen[key] = point.index
        self.points.append(point)
        return point

    def phases(self) -> Iterable[tuple[str, Callable[[Mapping[int, Outcome]], list[Point]]]]:
        if self.strategy == "grid":
            yield "grid", self._grid
            return
        yield "main", self._main
        yield "rest", self._rest
        yield "combined", self._combined

    def _grid(self, _: Mapping[int, Outcome]) -> list[Point]:
        new = [self._add("default", "", {})]
        moving = swept(self.knobs)
        for combination in itertools.product(*(knob.values for knob in moving)):
            new.append(self._add("grid", "", {knob.macro: value for knob, value in zip(moving, combination)}))
        return [p for p in new if p is not None]

    def _main(self, _: Mapping[int, Outcome]) -> list[Point]:
        new = [self._add("default", "", {})]
        for site in site_order(self.knobs):
            axes = main_knobs(self.knobs, site)[:2]
            if not axes:
                continue
            for combination in itertools.product(*(knob.values for knob in axes)):
                new.append(self._add("main", site, {knob.macro: value for knob, value in zip(axes, combination)}))
        return [p for p in new if p is not None]

    def best_of_site(self, site: str, outcomes: Mapping[int, Outcome]) -> Point | None:
        """The fastest valid point that varies `site` (or the default configuration)."""
        timed = [(ms, p.index) for p in self.points if p.site == site or p.phase == "default"
                 for ms in [_valid_ms(outcomes.get(p.index))] if ms is not None]
        return self.points[min(timed)[1]] if timed else None

    def _rest(self, outcomes: Mapping[int, Outcome]) -> list[Point]:
        new = []
        for site in site_order(self.knobs):
            others = main_knobs(self.knobs, site)[2:]
            if not others:
                continue
            best = self.best_of_site(site, outcomes)
            start = {macro: value for macro, value in best.values} if best is not None else dict(self.base)
            start = {knob.macro: start[knob.macro] for knob in self.knobs if knob.site == site and knob.macro in start}
            for knob in others:
                for value in knob.values:
                    new.append(self._add("rest", site, {**start, knob.macro: value}))
        return [p for p in new if p is not None]

    def _combined(self, outcomes: Mapping[int, Outcome]) -> list[Point]:
        changes: dict[str, str | None] = {}
        improved = 0
        for site in site_order(self.knobs):
            best = self.best_of_site(site, outcomes)
            if best is None or best.phase == "default":
                continue
            improved += 1
            chosen = best.assignment
            changes.update({knob.macro: chosen[knob.macro] for knob in self.knobs
                            if knob.site == site and knob.macro in chosen})
        if improved < 2:
            return []
        point = self._add("combined", "", changes)
        return [point] if point is not None else []


# ---- scheduling -------------------------------------------------------------------------------------------------

def dispatch(items: Sequence[T], devices: Sequence[D], run: Callable[[T, D], R],
             stop: Callable[[], bool] = lambda: False,
             interrupt: Callable[[], None] = lambda: None) -> list[tuple[int, D, R]]:
    """Runs every item once, on the devices at once, one item per device at a time: each device takes the next
    item not yet taken when it is free, until there is none or `stop()` says so. Returns (index of the item,
    device, result) in the items' order, whichever device finished first; items never started are left out.
    An exception of `run` stops the other devices from taking more and is raised once they are done; on
    Ctrl-C `interrupt()` runs (to stop what the devices are running) and the devices are waited for."""
    lock = threading.Lock()
    upcoming = iter(range(len(items)))
    results: dict[int, tuple[D, R]] = {}
    errors: list[BaseException] = []

    def worker(device: D) -> None:
        while True:
            with lock:
                if errors or stop():
                    return
                index = next(upcoming, None)
            if index is None:
                return
            try:
                result = run(items[index], device)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                with lock:
                    errors.append(exc)
                return
            with lock:
                results[index] = (device, result)

    if len(devices) == 1:
        worker(devices[0])
    else:
        threads = [threading.Thread(target=worker, args=(device,), daemon=True) for device in devices]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():  # join with a timeout, so Ctrl-C reaches the main thread
                    thread.join(0.2)
        except KeyboardInterrupt as exc:
            with lock:
                errors.insert(0, exc)   # no device takes another item
            interrupt()
            for thread in threads:
                thread.join()
    if errors:
        raise errors[0]
    return [(index, *results[index]) for index in sorted(results)]


def visible_devices(environ: Mapping[str, str]) -> list[str | None]:
    """The GPUs a worker each: CUDA_VISIBLE_DEVICES's entries when it is set, else nvidia-smi's GPUs; [None]
    (one worker, CUDA_VISIBLE_DEVICES left alone) when neither names any."""
    listed = environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        entries = [entry.strip() for entry in listed.split(",") if entry.strip()]
        return list(entries) or [None]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return [None]
    try:
        done = subprocess.run([smi, "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return [None]
    indices = [line.strip() for line in done.stdout.splitlines() if line.strip().isdigit()]
    return list(indices) if done.returncode == 0 and indices else [None]


# ---- running commands -------------------------------------------------------------------------------------------

@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    stopped: str = ""     # "", "timeout" (the command's own limit), "budget" (the sweep's), "cancelled"


class Session:
    """The sweep's clock and the commands it has running, so the budget and Ctrl-C can stop them."""

    def __init__(self, budget: float | None, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.started = clock()
        self.deadline = self.started + budget if budget is not None else None
        self.cancelled = threading.Event()
        self.lock = threading.Lock()
        self.running: set[subprocess.Popen[str]] = set()

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def spent(self) -> bool:
        left = self.left()
        return self.cancelled.is_set() or (left is not None and left <= 0)

    def cancel(self) -> None:
        self.cancelled.set()
        with self.lock:
            running = list(self.running)
        for process in running:
            _kill(process)

    def shell(self, command: str, env: Mapping[str, str], cwd: str, timeout: float) -> Finished:
        """Runs `command` with /bin/sh in a process group of its own, stopped (the whole group) at its timeout,
        at the budget's end or on cancel()."""
        if self.spent():
            return Finished(-1, "", "", 0.0, "cancelled" if self.cancelled.is_set() else "budget")
        left = self.left()
        limit, reason = (timeout, "timeout") if left is None or timeout <= left else (max(left, 0.0), "budget")
        started = time.perf_counter()
        process = subprocess.Popen(command, shell=True, cwd=cwd, env=dict(env), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
        with self.lock:
            self.running.add(process)
        stopped = ""
        try:
            stdout, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill(process)
            stdout, stderr = process.communicate()
            stopped = reason
        except BaseException:  # Ctrl-C in this thread: nothing of the command outlives the tuner
            _kill(process)
            process.wait()
            raise
        finally:
            with self.lock:
                self.running.discard(process)
        if self.cancelled.is_set() and process.returncode != 0:
            stopped = "cancelled"
        return Finished(process.returncode, stdout, stderr, time.perf_counter() - started, stopped)


def _kill(process: subprocess.Popen[str]) -> None:
    """Kills the process group this tuner started for one command (its id is the shell's pid)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


RESULT_LINE = re.compile(r"^\s*\{.*\}\s*$")


def parse_time(stdout: str, stderr: str, regex: re.Pattern[str] | None) -> tuple[float | None, str, bool | None]:
    """(milliseconds, source, correct) of one run: by --time-regex (its first group, or the group named `ms`)
    when given, else the last JSON line with a numeric median_ms (and its `correct`), else (None, "", None)."""
    if regex is not None:
        match = regex.search(stdout) or regex.search(stderr)
        if match is None:
            return None, "regex", None
        group = match.group("ms") if "ms" in regex.groupindex else match.group(1) if regex.groups else match.group(0)
        value = number(group)
        return (float(value) if value is not None else None), "regex", None
    for line in reversed(stdout.splitlines()):
        if not RESULT_LINE.match(line):
            continue
        try:
            result = json.loads(line)
        except json.JSONDecodeError:
            continue
        median = result.get("median_ms") if isinstance(result, dict) else None
        if isinstance(median, (int, float)) and not isinstance(median, bool):
            correct = result.get("correct")
            return float(median), "result-line", correct if isinstance(correct, bool) else None
    return None, "", None


@dataclass
class Settings:
    build: str
    run: str
    check: str | None = None
    clean: str | None = None
    repeat: int = 3
    timeout: float = 600.0
    time_regex: re.Pattern[str] | None = None
    wall_time: bool = True           # fall back to the run command's wall time
    receipt: bool = True
    out: Path = Path("pdcc-tune")
    baseline: str | None = None      # the program to compare with (--baseline)


@dataclass
class Attempt:
    """The commands of one measurement (a point, or the baseline) on one device: one environment, directory,
    log and outcome, so that a point and the baseline are run and timed by the same code."""

    session: Session
    timeout: float
    env: dict[str, str]
    cwd: str
    fill: Callable[[str], str]       # a command with its {worker} and {gpu} filled in
    log: list[str]
    outcome: Outcome = field(default_factory=Outcome)

    def step(self, name: str, text: str) -> Finished:
        command = self.fill(text)
        done = self.session.shell(command, self.env, self.cwd, self.timeout)
        self.log.append(f"$ {command}    # {name}: exit {done.returncode} in {done.seconds:.2f} s"
                        + (f", stopped ({done.stopped})" if done.stopped else ""))
        self.log.extend(part for part in (done.stdout.rstrip("\n"), done.stderr.rstrip("\n")) if part)
        return done

    def stop(self, done: Finished, status: str, detail: str) -> Outcome:
        """Ends the measurement with `status`, or `unfinished`/`timeout` when the command was stopped."""
        if done.stopped in ("budget", "cancelled"):
            status, detail = "unfinished", f"stopped by the {'budget' if done.stopped == 'budget' else 'user'}"
        elif done.stopped == "timeout":
            status, detail = "timeout", f"{detail}: over {self.timeout:g} s"
        self.outcome.status, self.outcome.detail = status, detail
        return self.outcome


class Measurer:
    """Builds, runs and checks one point on one device (one worker's working directory); also times the
    baseline."""

    def __init__(self, settings: Settings, session: Session, workdirs: Mapping[str | None, str],
                 environ: Mapping[str, str]):
        self.settings = settings
        self.session = session
        self.workdirs = workdirs
        self.environ = dict(environ)
        self.workers = {device: index for index, device in enumerate(workdirs)}

    def command(self, text: str, device: str | None) -> str:
        return text.replace("{worker}", str(self.workers[device])).replace("{gpu}", device or "")

    def attempt(self, device: str | None, env: Mapping[str, str], header: str) -> Attempt:
        env = {**env, "PDCC_TUNE_WORKER": str(self.workers[device])}
        if device is not None:
            env["CUDA_VISIBLE_DEVICES"] = device
        cwd = self.workdirs[device]
        return Attempt(self.session, self.settings.timeout, env, cwd, lambda text: self.command(text, device),
                       [f"# {header} on device {device or 'default'} in {cwd}"], Outcome(device=device or ""))

    def time_runs(self, attempt: Attempt, command: str, wrong_ends: bool) -> Outcome | None:
        """Runs `command` --repeat times, adding each run's time to the outcome (the result line's median_ms,
        --time-regex, or the wall time). Returns the outcome when a run ends the measurement (it failed or gave
        no time; with `wrong_ends`, its result line said correct: false), else None. A wrong result that does
        not end it leaves the status `invalid` and the timing goes on (the baseline's time still counts)."""
        settings, outcome = self.settings, attempt.outcome
        for _ in range(settings.repeat):
            done = attempt.step("run", command)
            if done.returncode != 0:
                return attempt.stop(done, "failed", f"run exit {done.returncode}: {_last_line(done)}")
            value, source, correct = parse_time(done.stdout, done.stderr, settings.time_regex)
            if correct is False:
                outcome.status, outcome.detail = "invalid", "the program's result line says correct: false"
                if wrong_ends:
                    return outcome
            if value is None and settings.time_regex is None and settings.wall_time:
                value, source = done.seconds * 1000.0, "wall"
            if value is None:
                outcome.status = "no-time"
                outcome.detail = "no time in the output" + (f" matching {settings.time_regex.pattern!r}"
                                                           if settings.time_regex is not None else "")
                return outcome
            outcome.times_ms.append(value)
            outcome.time_source = source
        return None

    def _finish(self, attempt: Attempt, started: float, name: str) -> None:
        attempt.outcome.seconds = time.perf_counter() - started
        logs = self.settings.out / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        (logs / name).write_text("\n".join(attempt.log) + "\n", errors="replace")

    def baseline(self, device: str | None) -> Outcome:
        """Times the --baseline command like a point's run (not built, not checked), logged in logs/baseline.log."""
        command = self.settings.baseline
        assert command is not None
        started = time.perf_counter()
        env = {name: value for name, value in self.environ.items() if name not in (FLAGS_VARIABLE, RECEIPT_VARIABLE)}
        attempt = self.attempt(device, env, "baseline")
        try:
            if self.time_runs(attempt, command, wrong_ends=False) is None:
                attempt.outcome.median_ms = statistics.median(attempt.outcome.times_ms)
            return attempt.outcome
        finally:
            self._finish(attempt, started, "baseline.log")

    def __call__(self, point: Point, device: str | None) -> Outcome:
        settings = self.settings
        started = time.perf_counter()
        flags = " ".join(shlex.quote(flag) for flag in point.flags())
        receipt = settings.out / "logs" / f"point-{point.index:04d}.receipt"
        receipt.parent.mkdir(parents=True, exist_ok=True)
        receipt.unlink(missing_ok=True)
        env = {**self.environ, FLAGS_VARIABLE: flags, RECEIPT_VARIABLE: str(receipt), "CCACHE_DISABLE": "1",
               "PDCC_TUNE_POINT": str(point.index)}
        attempt = self.attempt(device, env, f"point {point.index} ({point.phase} {point.site})")
        attempt.log.append(f"# {FLAGS_VARIABLE}={flags}")
        outcome, step, stop = attempt.outcome, attempt.step, attempt.stop
        try:
            if settings.clean:
                done = step("clean", settings.clean)
                if done.returncode != 0:
                    return stop(done, "build-failed", f"clean command exit {done.returncode}: {_last_line(done)}")
            done = step("build", settings.build)
            outcome.build_seconds = done.seconds
            if done.returncode != 0:
                return stop(done, "build-failed", f"exit {done.returncode}: {_last_line(done)}")
            if settings.receipt and not (receipt.exists() and receipt.read_text(errors="replace").strip()):
                outcome.status = "not-rebuilt"
                outcome.detail = (f"the build did not run pdcc with {FLAGS_VARIABLE} (nothing in {RECEIPT_VARIABLE}): "
                                  "make it rebuild every time (make -B, --clean) through pdcc")
                return outcome
            ended = self.time_runs(attempt, settings.run, wrong_ends=True)
            if ended is not None:
                return ended
            if settings.check:
                done = step("check", settings.check)
                if done.returncode != 0:
                    return stop(done, "invalid", f"check exit {done.returncode}: {_last_line(done)}")
            outcome.median_ms = statistics.median(outcome.times_ms)
            return outcome
        finally:
            self._finish(attempt, started, f"point-{point.index:04d}.log")


def _last_line(done: Finished) -> str:
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return lines[-1][:160] if lines else "no output"


# ---- the sweep --------------------------------------------------------------------------------------------------

@dataclass
class Sweep:
    knobs: list[TuneKnob]
    points: list[Point]
    outcomes: dict[int, Outcome]
    planned: int
    stopped: str | None            # None, "budget" or "interrupted"
    elapsed: float
    devices: list[str | None]
    baseline: Outcome | None = None  # the --baseline command's timing, None without one
    baseline_command: str = ""

    @property
    def default(self) -> Point | None:
        return next((p for p in self.points if p.phase == "default"), None)

    def default_ms(self) -> float | None:
        point = self.default
        outcome = self.outcomes.get(point.index) if point is not None else None
        return outcome.median_ms if outcome is not None and outcome.status == "ok" else None

    def baseline_ms(self) -> float | None:
        """The baseline's time: also when its result was wrong (then `baseline_wrong`, and speed-ups over it are
        marked), not when it failed or gave no time."""
        baseline = self.baseline
        return baseline.median_ms if baseline is not None and baseline.status in ("ok", "invalid") else None

    @property
    def baseline_wrong(self) -> bool:
        return self.baseline is not None and self.baseline.status == "invalid"

    def _over(self, reference_ms: float | None, index: int) -> float | None:
        outcome = self.outcomes.get(index)
        if reference_ms is None or outcome is None or outcome.status != "ok" or not outcome.median_ms:
            return None
        return reference_ms / outcome.median_ms

    def speedup(self, index: int) -> float | None:
        """The point's speed-up over the default configuration (None unless both are valid)."""
        return self._over(self.default_ms(), index)

    def baseline_speedup(self, index: int) -> float | None:
        """The point's speed-up over the baseline (None when the point is not valid or the baseline has no time)."""
        return self._over(self.baseline_ms(), index)

    def best(self) -> Point | None:
        timed = [(ms, index) for index, outcome in self.outcomes.items()
                 for ms in [_valid_ms(outcome)] if ms is not None]
        return self.points[min(timed)[1]] if timed else None

    def label(self, point: Point) -> str:
        """The point by what differs from the default configuration: `spmv_rows_0 threshold=512 coarsen=4`."""
        if point.phase == "default":
            return "default"
        base = dict(self.default.values) if self.default is not None else {}
        by_macro = {knob.macro: knob for knob in self.knobs}
        groups: dict[str, list[str]] = {}
        for macro, value in point.values:
            if value != base.get(macro):
                knob = by_macro[macro]
                groups.setdefault(knob.site, []).append(f"{knob.short}={value if value is not None else 'as written'}")
        return "; ".join(f"{site} {' '.join(parts)}" if site != "user" else " ".join(parts)
                         for site, parts in groups.items()) or "default"


def run_sweep(knobs: Sequence[TuneKnob], settings: Settings, devices: Sequence[str | None],
              workdirs: Mapping[str | None, str], session: Session, environ: Mapping[str, str],
              strategy: str = "sites", console: Console | None = None,
              measure: Callable[[Point, str | None], Outcome] | None = None) -> Sweep:
    """Times the baseline (with --baseline), then plans and measures the points phase by phase on the devices
    until done, the budget is spent, or Ctrl-C."""
    planner = Planner(knobs, strategy)
    measurer = Measurer(settings, session, workdirs, environ)
    measure = measure or measurer
    outcomes: dict[int, Outcome] = {}
    baseline: Outcome | None = None
    stopped: str | None = None
    console = console or Console(stderr=True)
    progress = Progress(TextColumn("[bold]tune[/] {task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TextColumn("{task.fields[budget]}"), TextColumn("{task.fields[best]}"),
                        console=console, transient=False)

    def budget() -> str:
        left = session.left()
        return f"budget {_duration(max(left, 0))} left" if left is not None else ""

    def best() -> str:
        timed = [ms for outcome in list(outcomes.values()) for ms in [_valid_ms(outcome)] if ms is not None]
        return f"best {min(timed):.4g} ms" if timed else ""

    try:
        with progress:
            task = progress.add_task("", total=0, budget=budget(), best=best())
            if settings.baseline is not None:
                progress.update(task, description="baseline")
                baseline = Outcome(status="unfinished", detail="stopped by the user")   # until it returns
                baseline = measurer.baseline(devices[0])
            for phase, plan in planner.phases():
                points = plan(outcomes)
                if not points:
                    continue
                total = progress.tasks[0].total or 0
                progress.update(task, total=total + len(points), description=phase, budget=budget(), best=best())

                def one(point: Point, device: str | None) -> Outcome:
                    outcome = measure(point, device)
                    outcome.device = outcome.device or (device or "")
                    outcomes[point.index] = outcome   # kept as it finishes, whatever stops the sweep later
                    progress.update(task, advance=1, budget=budget(), best=best())
                    return outcome

                dispatch(points, list(devices), one, session.spent, session.cancel)
                if session.spent():
                    stopped = "interrupted" if session.cancelled.is_set() else "budget"
                    break
    except KeyboardInterrupt:
        session.cancel()
        stopped = "interrupted"
    finished = dict(sorted(outcomes.items()))
    return Sweep(list(knobs), list(planner.points), finished, len(planner.points), stopped,
                 session.clock() - session.started, list(devices), baseline, settings.baseline or "")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m" if seconds >= 3600 else \
        f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def parse_budget(text: str) -> float:
    """Seconds of `10m`, `90s`, `1h30m`, `2.5m` or `600` (seconds). ValueError for anything else."""
    text = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(h|m|min|s)", text)
    if not parts or re.sub(r"\s*(\d+(?:\.\d+)?)\s*(h|m|min|s)\s*", "", text):
        raise ValueError(f"not a duration: {text!r} (e.g. 10m, 90s, 1h30m)")
    scale = {"h": 3600.0, "m": 60.0, "min": 60.0, "s": 1.0}
    return sum(float(amount) * scale[unit] for amount, unit in parts)


def parse_knob_option(text: str) -> tuple[str, list[str]]:
    macro, equals, values = text.partition("=")
    if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", macro.strip()):
        raise UsageError(f"--knob {text!r}: expected MACRO=V1,V2,... (e.g. PDCC_THRESHOLD_spmv_rows_0=64,256)")
    listed = [value.strip() for value in values.split(",") if value.strip()]
    if not listed:
        raise UsageError(f"--knob {text!r}: no values")
    return macro.strip(), list(dict.fromkeys(listed))


# ---- results ----------------------------------------------------------------------------------------------------

def results_json(sweep: Sweep, settings: Settings, report: str, budget: float | None) -> dict[str, Any]:
    best = sweep.best()
    default = sweep.default
    counts = {status: 0 for status in STATUSES}
    for outcome in sweep.outcomes.values():
        counts[outcome.status] = counts.get(outcome.status, 0) + 1

    def over_baseline(index: int, digits: int | None = 4) -> dict[str, Any]:
        """The speed-up over the baseline, as a key only with --baseline (without it the JSON is as it was)."""
        if sweep.baseline is None:
            return {}
        speedup = sweep.baseline_speedup(index)
        return {"speedup_baseline": round(speedup, digits) if speedup is not None and digits else speedup}

    def point_dict(point: Point) -> dict[str, Any]:
        outcome = sweep.outcomes[point.index]
        speedup = sweep.speedup(point.index)
        return {"index": point.index, "phase": point.phase, "site": point.site, "label": sweep.label(point),
                "status": outcome.status, "median_ms": outcome.median_ms,
                "speedup": round(speedup, 4) if speedup is not None else None, **over_baseline(point.index),
                "times_ms": outcome.times_ms, "time_source": outcome.time_source, "device": outcome.device,
                "seconds": round(outcome.seconds, 3), "build_seconds": round(outcome.build_seconds, 3),
                "detail": outcome.detail, "flags": point.flags(),
                "values": {macro: _json_value(value) for macro, value in point.values}}

    baseline = sweep.baseline
    baseline_entry = {} if baseline is None else {"baseline": {
        "run": settings.baseline, "status": baseline.status, "median_ms": baseline.median_ms,
        "correct": baseline.status != "invalid" if baseline.median_ms is not None else None,
        "times_ms": baseline.times_ms, "time_source": baseline.time_source, "device": baseline.device,
        "seconds": round(baseline.seconds, 3), "detail": baseline.detail}}
    return {
        "tool": {"name": "pdcc tune", "version": __version__},
        "report": report,
        "build": settings.build, "run": settings.run, "check": settings.check, "clean": settings.clean,
        "repeat": settings.repeat,
        "time": settings.time_regex.pattern if settings.time_regex is not None else "result line, else wall time",
        "budget_s": budget, "elapsed_s": round(sweep.elapsed, 3), "stopped": sweep.stopped,
        "devices": [device if device is not None else "default" for device in sweep.devices],
        "points_planned": sweep.planned, "points_finished": len(sweep.outcomes),
        "statuses": counts,
        "default": {"index": default.index, "median_ms": sweep.default_ms()} if default is not None else None,
        **baseline_entry,
        "best": {"index": best.index, "label": sweep.label(best), "median_ms": sweep.outcomes[best.index].median_ms,
                 "speedup": sweep.speedup(best.index), **over_baseline(best.index, None),
                 "flags": best.flags()} if best is not None else None,
        "knobs": [knob.to_dict() for knob in sweep.knobs],
        "points": [point_dict(point) for point in sweep.points if point.index in sweep.outcomes],
    }


def best_flags(sweep: Sweep) -> str:
    """The best point's -D flags, one a line (an nvcc --options-file; no comments, which nvcc would read as
    options). Empty when no point was valid."""
    best = sweep.best()
    return "".join(flag + "\n" for flag in best.flags()) if best is not None else ""


def _ms(value: float | None) -> str:
    return f"{value:.4g}" if value is not None else "-"


def _x(value: float | None) -> str:
    return f"{value:.2f}x" if value is not None else "-"


def ranked(sweep: Sweep) -> list[Point]:
    """Finished points: the valid ones fastest first, then the rest in order."""
    done = [p for p in sweep.points if p.index in sweep.outcomes]
    valid = [p for p in done if sweep.outcomes[p.index].status == "ok"]
    valid.sort(key=lambda p: (sweep.outcomes[p.index].median_ms or math.inf, p.index))
    return valid + [p for p in done if sweep.outcomes[p.index].status != "ok"]


def speedup_columns(sweep: Sweep) -> list[tuple[str, Callable[[int], str]]]:
    """The tables' speed-up columns, (heading, text of a point's index): over the default configuration, and
    over the baseline beside it with --baseline (marked * when the baseline's own result was wrong)."""
    if sweep.baseline is None:
        return [("speed-up", lambda index: _x(sweep.speedup(index)))]
    mark = "*" if sweep.baseline_wrong else ""

    def over_baseline(index: int) -> str:
        speedup = sweep.baseline_speedup(index)
        return _x(speedup) + mark if speedup is not None else "-"

    return [("over default", lambda index: _x(sweep.speedup(index))), ("over baseline", over_baseline)]


def baseline_note(sweep: Sweep, command: str | None = None) -> str:
    """What the baseline gave, one line: its time, or why it has none (then no speed-up is over it); its
    command last, the first thing a plot's clipped line loses. `command`: how to show it (default: as given)."""
    baseline = sweep.baseline
    if baseline is None:
        return ""
    shown = command if command is not None else sweep.baseline_command
    if baseline.median_ms is None:
        return f"baseline {baseline.status} ({baseline.detail or 'no time'}), no speed-up over it: {shown}"
    runs = f"{len(baseline.times_ms)} run{'s' if len(baseline.times_ms) != 1 else ''}"
    wrong = "; *its own result was wrong (correct: false): the time of an incomplete run" \
        if sweep.baseline_wrong else ""
    return f"baseline {_ms(baseline.median_ms)} ms (median of {runs}, {baseline.time_source}){wrong}: {shown}"


def markdown_table(sweep: Sweep) -> str:
    columns = speedup_columns(sweep)
    lines = ["| # | phase | configuration | status | median ms | " + " | ".join(name for name, _ in columns)
             + " | detail |",
             "|---:|---|---|---|---:|" + "---:|" * len(columns) + "---|"]
    for point in ranked(sweep):
        outcome = sweep.outcomes[point.index]
        detail = outcome.detail.replace("|", "\\|")
        lines.append(f"| {point.index} | {point.phase} | {sweep.label(point)} | {outcome.status} | "
                     f"{_ms(outcome.median_ms)} | " + " | ".join(text(point.index) for _, text in columns)
                     + f" | {detail} |")
    if sweep.baseline is not None:   # the command as code: it may hold * or _
        lines += ["", baseline_note(sweep, "`" + sweep.baseline_command.replace("`", "'") + "`")]
    return "\n".join(lines) + "\n"


def rich_table(sweep: Sweep, rows: int = 15) -> Table:
    table = Table(title="pdcc tune", show_lines=False)
    columns = speedup_columns(sweep)
    for name in ("#", "phase", "configuration", "status", "median ms", *(name for name, _ in columns)):
        table.add_column(name, justify="right" if name in ("#", "median ms") or name in dict(columns) else "left")
    order = ranked(sweep)
    shown = order[:rows]
    default = sweep.default
    if default is not None and default in order and default not in shown:
        shown.append(default)
    best = sweep.best()
    for point in shown:
        outcome = sweep.outcomes[point.index]
        style = "bold green" if best is not None and point.index == best.index else \
            "" if outcome.status == "ok" else "red"
        table.add_row(str(point.index), point.phase, sweep.label(point), outcome.status, _ms(outcome.median_ms),
                      *(text(point.index) for _, text in columns), style=style)
    if len(order) > len(shown):
        table.caption = f"{len(order) - len(shown)} more in table.md and tune.json"
    return table


# ---- plots (SVG written here) -----------------------------------------------------------------------------------

def _colour(speedup: float) -> str:
    """White at 1.0, green above (full at 2x), red below (full at 0.5x)."""
    t = max(-1.0, min(1.0, math.log2(speedup)))
    target = (26, 127, 55) if t > 0 else (207, 34, 46)
    rgb = [round(255 + (c - 255) * abs(t)) for c in target]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{html.escape(text)}</text>'


def heatmap_svg(sweep: Sweep, site: str) -> str | None:
    """The speed-up over the default configuration on the site's two main knobs (one row with one knob): each
    cell the best valid point with those values (other knobs at any value), grey with x where every point
    there was invalid, empty where none ran. With --baseline a line under the axes (and each cell's tooltip)
    gives the speed-ups over the baseline too: the colours stay centred on the default, which tuning starts
    from. None when the site has no swept knob."""
    axes = main_knobs(sweep.knobs, site)[:2]
    if not axes:
        return None
    xknob, yknob = axes[0], axes[1] if len(axes) > 1 else None
    xs, ys = list(xknob.values), list(yknob.values) if yknob is not None else [""]
    cells: dict[tuple[str, str], tuple[float | None, bool]] = {}
    for point in sweep.points:
        outcome = sweep.outcomes.get(point.index)
        if outcome is None or outcome.status == "unfinished":
            continue
        values = point.assignment
        key = (values.get(xknob.macro) or xknob.default,
               (values.get(yknob.macro) or yknob.default) if yknob is not None else "")
        # only points where the other sites are at their defaults describe this site
        base = dict(sweep.default.values) if sweep.default is not None else {}
        if any(values.get(k.macro) != base.get(k.macro) for k in sweep.knobs if k.site != site):
            continue
        speedup = sweep.speedup(point.index)
        known = cells.get(key, (None, True))[0]
        if speedup is not None:
            cells[key] = (max(speedup, known) if known is not None else speedup, False)
        elif key not in cells:
            cells[key] = (None, outcome.status != "ok")
    # a speed-up over the default times this is the same point's speed-up over the baseline
    baseline_ms, default_ms = sweep.baseline_ms(), sweep.default_ms()
    factor = baseline_ms / default_ms if baseline_ms is not None and default_ms else None
    mark = "*" if sweep.baseline_wrong else ""
    baseline_line = ""
    if factor is not None:
        best_cell = max((speedup for speedup, _ in cells.values() if speedup is not None), default=None)
        baseline_line = (f"over the baseline ({_ms(baseline_ms)} ms{'; *its own result was wrong' if mark else ''}):"
                         f" default {factor:.2f}x{mark}" + (f", best here {best_cell * factor:.2f}x{mark}"
                                                            if best_cell is not None else ""))
    elif sweep.baseline is not None:
        baseline_line = f"baseline {sweep.baseline.status}: no speed-up over it" if baseline_ms is None else \
            f"baseline {_ms(baseline_ms)} ms{mark}; the default configuration has no time to compare it with"
    cell_w, cell_h, left, top = 64, 30, 120, 62 if baseline_line else 46
    title = f"{site}: speed-up over the default configuration"
    axes_line = f"x: {xknob.macro}" + (f"   y: {yknob.macro}" if yknob else "")
    legend = "green faster, red slower, grey x: invalid; dashed: default, blue: best"
    # text is about 7 pixels a character at these sizes
    width = max(left + cell_w * len(xs) + 20, 20 + 8 * len(title),
                20 + 7 * max(len(axes_line), len(legend), len(baseline_line)))
    height = top + cell_h * len(ys) + 62
    best = sweep.best()
    best_values = best.assignment if best is not None else {}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             _text(10, 16, title, "start", ' font-weight="600" font-size="13"'),
             _text(10, 32, axes_line, "start", ' fill="#57606a"')]
    if baseline_line:
        parts.append(_text(10, 48, baseline_line, "start", ' fill="#57606a"'))
    for row, yvalue in enumerate(ys):
        y = top + row * cell_h
        if yknob is not None:
            parts.append(_text(left - 8, y + cell_h / 2 + 4, f"{yknob.short}={yvalue}", "end"))
        for column, xvalue in enumerate(xs):
            x = left + column * cell_w
            speedup, invalid = cells.get((xvalue, yvalue), (None, False))
            tip = ""
            if speedup is not None:
                fill, label = _colour(speedup), f"{speedup:.2f}x"
                tip = f", {speedup * factor:.2f}x{mark} over the baseline" if factor is not None else ""
            elif invalid and (xvalue, yvalue) in cells:
                fill, label = "#d0d7de", "x"
            else:
                fill, label = "#ffffff", ""
            is_default = xvalue == (default_value(xknob) or xknob.default) and \
                (yknob is None or yvalue == (default_value(yknob) or yknob.default))
            is_best = best is not None and best_values.get(xknob.macro) == xvalue and \
                (yknob is None or best_values.get(yknob.macro) == yvalue) and best.site in (site, "")
            stroke = ' stroke="#0969da" stroke-width="3"' if is_best else \
                ' stroke="#24292f" stroke-width="2" stroke-dasharray="4 2"' if is_default else \
                ' stroke="#d0d7de" stroke-width="1"'
            parts.append(f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{fill}"{stroke}>'
                         f'<title>{html.escape(f"{xknob.short}={xvalue}" + (f" {yknob.short}={yvalue}" if yknob else ""))}'
                         f'{": " + label if label else ""}{html.escape(tip)}</title></rect>')
            if label:
                parts.append(_text(x + cell_w / 2, y + cell_h / 2 + 4, label))
    for column, xvalue in enumerate(xs):
        parts.append(_text(left + column * cell_w + cell_w / 2, top + len(ys) * cell_h + 16, xvalue))
    parts.append(_text(left + len(xs) * cell_w / 2, top + len(ys) * cell_h + 34, xknob.short, "middle",
                       ' fill="#57606a"'))
    parts.append(_text(10, top + len(ys) * cell_h + 52, legend, "start", ' fill="#57606a"'))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _clip(text: str, length: int) -> str:
    return text if len(text) <= length else text[:length - 1] + "…"


def speedup_svg(sweep: Sweep, bars: int = 30) -> str:
    """The fastest valid points' speed-ups, a bar each, the reference's 1.0 marked: over the baseline when it has
    a time (what the user compares with), else over the default configuration; the title says which."""
    over_baseline = sweep.baseline_ms() is not None
    ratio = sweep.baseline_speedup if over_baseline else sweep.speedup
    reference = "the baseline" if over_baseline else "the default configuration"
    note = _clip(baseline_note(sweep), 105)
    points = [p for p in ranked(sweep) if ratio(p.index) is not None][:bars]
    label_w, bar_w, row = 360, 320, 20
    top = 46 if note else 30
    width, height = label_w + bar_w + 70, top + 10 + row * max(1, len(points)) + 10
    high = max([ratio(p.index) or 0.0 for p in points] + [1.0])
    scale = bar_w / high
    mark = "*" if over_baseline and sweep.baseline_wrong else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             _text(10, 18, f"speed-up over {reference} (valid points, fastest first)", "start",
                   ' font-weight="600" font-size="13"')]
    if note:
        parts.append(_text(10, 34, note, "start", ' fill="#57606a"'))
    if not points:
        parts.append(_text(10, top + 14, "no valid point" if over_baseline else
                           "no valid point with a valid default configuration to compare with", "start"))
    for index, point in enumerate(points):
        y = top + index * row
        speedup = ratio(point.index) or 0.0
        label = sweep.label(point)
        parts.append(_text(label_w - 6, y + 13, _clip(label, 58), "end"))
        parts.append(f'<rect x="{label_w}" y="{y + 2}" width="{max(1.0, speedup * scale):.1f}" height="{row - 5}" '
                     f'fill="{"#1a7f37" if speedup >= 1 else "#cf222e"}"><title>{html.escape(label)}: '
                     f'{speedup:.3f}x{mark}</title></rect>')
        parts.append(_text(label_w + speedup * scale + 4, y + 13, f"{speedup:.2f}x{mark}", "start"))
    one = label_w + scale
    parts.append(f'<line x1="{one:.1f}" y1="{top - 4}" x2="{one:.1f}" y2="{height - 6}" stroke="#24292f" '
                 'stroke-dasharray="3 3"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _file_name(site: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", site) or "site"


def write_results(sweep: Sweep, settings: Settings, report: str, budget: float | None) -> list[Path]:
    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    written = []
    document = results_json(sweep, settings, report, budget)
    files: dict[str, str] = {"tune.json": json.dumps(document, indent=2, ensure_ascii=False) + "\n",
                             "table.md": markdown_table(sweep), "best.flags": best_flags(sweep),
                             "speedup.svg": speedup_svg(sweep)}
    for site in site_order(swept(sweep.knobs)):
        svg = heatmap_svg(sweep, site)
        if svg is not None:
            files[f"heatmap-{_file_name(site)}.svg"] = svg
    for name, text in files.items():
        path = out / name
        partial = path.with_name(f".{name}.part")
        partial.write_text(text)
        os.replace(partial, path)
        written.append(path)
    return written


# ---- the command ------------------------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pdcc tune", usage=USAGE, description=(
        "Sweeps the knobs of a program's pdcc sites (from a pdcc JSON report), rebuilding with each point's -D "
        f"flags in {FLAGS_VARIABLE}, runs and checks each, and writes the fastest correct values."))
    p.add_argument("--report", required=True, help="pdcc JSON report (pdcc --report x.json / pdcc report DIR -o x.json) "
                   "or a --report-dir folder")
    p.add_argument("--build", required=True, help=f"build command; must rebuild through pdcc (make -B ...), "
                   f"which reads {FLAGS_VARIABLE}")
    p.add_argument("--run", required=True, help="command to time")
    p.add_argument("--check", help="correctness check; a non-zero exit marks the point invalid")
    p.add_argument("--baseline", metavar="CMD", help="the program to compare with (e.g. the naive build, without "
                   "pdcc), timed like --run before the sweep: adds speed-ups over it to the results")
    p.add_argument("--clean", help="command run before every build (e.g. 'make clean')")
    p.add_argument("--budget", help="stop after this long: 10m, 90s, 1h30m (default: no limit)")
    p.add_argument("--knob", action="append", default=[], metavar="MACRO=V1,V2",
                   help="values for a knob (also a macro of the program's own); repeatable")
    p.add_argument("--site", action="append", default=[], help="tune only this site; repeatable")
    p.add_argument("--strategy", choices=("sites", "grid"), default="sites",
                   help="sites: per-site grids of the two main knobs, then the others, then combined (default); "
                        "grid: every combination")
    p.add_argument("--repeat", type=int, default=3, help="runs per point, the median counts (default 3)")
    p.add_argument("--timeout", default="10m", help="limit for one command (default 10m)")
    p.add_argument("--time-regex", help="the time in milliseconds: the first group (or group 'ms') of this regex "
                   "in the run's output")
    p.add_argument("--no-wall-time", action="store_true", help="a run without a result line is 'no-time', not "
                   "timed by the clock")
    p.add_argument("--no-receipt", action="store_true", help=f"do not check that the build ran pdcc with "
                   f"{FLAGS_VARIABLE} ({RECEIPT_VARIABLE})")
    p.add_argument("--devices", help="comma-separated devices, one worker each (default: CUDA_VISIBLE_DEVICES, "
                   "else every GPU nvidia-smi lists)")
    p.add_argument("--out", default="pdcc-tune", help="results folder (default pdcc-tune)")
    p.add_argument("--dry-run", action="store_true", help="print the knobs and the first points, run nothing")
    return p


def workdirs_for(devices: Sequence[str | None], commands: Sequence[str | None], out: Path,
                 cwd: str) -> dict[str | None, str]:
    """Each worker's working directory: the current one with one worker or when the commands name {worker};
    else a copy of it per worker under OUT/work/ (made once, kept), so builds do not overwrite each other."""
    if len(devices) == 1 or any(c is not None and "{worker}" in c for c in commands):
        return {device: cwd for device in devices}
    out_resolved = out.resolve()
    dirs = {}
    for index, device in enumerate(devices):
        target = out_resolved / "work" / str(index)
        if not target.exists():
            def ignore(directory: str, names: list[str]) -> list[str]:
                return [name for name in names if name == ".git" or
                        Path(directory, name).resolve() == out_resolved]
            shutil.copytree(cwd, target, symlinks=True, ignore=ignore)
        dirs[device] = str(target)
    return dirs


def main(argv: list[str]) -> int:
    """`pdcc tune ...` (argv without `tune`): 0 when a valid point was found, 1 when none was, 2 for a bad
    command line or report."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out_console = Console(highlight=False, soft_wrap=True)
    try:
        arguments = parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage or --help
        return exc.code if isinstance(exc.code, int) else 2
    try:
        budget = parse_budget(arguments.budget) if arguments.budget else None
        timeout = parse_budget(arguments.timeout)
        regex = re.compile(arguments.time_regex) if arguments.time_regex else None
        if arguments.repeat < 1:
            raise UsageError("--repeat must be at least 1")
        if arguments.baseline is not None and not arguments.baseline.strip():
            raise UsageError("--baseline: an empty command (it would time nothing)")
        overrides = dict(parse_knob_option(text) for text in arguments.knob)
        knob_dicts, remarks = read_report(arguments.report)
        knobs = knobs_from_report(knob_dicts, remarks, overrides, arguments.site)
    except (ValueError, re.error) as exc:
        err.print(f"pdcc tune: error: {exc}", markup=False)
        return 2
    except UsageError as exc:
        err.print(f"pdcc tune: error: {exc}", markup=False)
        return 2
    if not swept(knobs):
        err.print(f"pdcc tune: error: {arguments.report} has no knob to sweep (no pdcc site with a tunable value; "
                  "--knob MACRO=V1,V2 adds one)", markup=False)
        return 2
    out = Path(arguments.out)
    settings = Settings(build=arguments.build, run=arguments.run, check=arguments.check, clean=arguments.clean,
                        repeat=arguments.repeat, timeout=timeout, time_regex=regex,
                        wall_time=not arguments.no_wall_time, receipt=not arguments.no_receipt, out=out.resolve(),
                        baseline=arguments.baseline)
    devices: list[str | None] = [d.strip() for d in arguments.devices.split(",") if d.strip()] \
        if arguments.devices else visible_devices(os.environ)
    devices = devices or [None]
    if arguments.dry_run:
        planner = Planner(knobs, arguments.strategy)
        first = next(iter(planner.phases()))[1]({})
        for knob in knobs:   # one line each, never wrapped
            out_console.print(f"{knob.macro} ({knob.kind}, default {knob.default or 'none'}): "
                              f"{', '.join(knob.values)}", markup=False)
        out_console.print(f"{len(first)} points in the first phase, on {len(devices)} device(s)", markup=False)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    session = Session(budget)
    try:
        workdirs = workdirs_for(devices, [settings.build, settings.run, settings.check, settings.clean,
                                          settings.baseline], out,
                                os.getcwd())
    except OSError as exc:
        err.print(f"pdcc tune: error: cannot copy the working directory per worker ({exc}); "
                  "name {worker} in the commands instead", markup=False)
        return 2
    err.print(f"pdcc tune: {len(swept(knobs))} knobs of {len(site_order(swept(knobs)))} sites, "
              f"{len(devices)} device(s), budget {_duration(budget) if budget is not None else 'none'}", markup=False)
    sweep = run_sweep(knobs, settings, devices, workdirs, session, os.environ, arguments.strategy, err)
    written = write_results(sweep, settings, arguments.report, budget)
    out_console.print(rich_table(sweep))
    best = sweep.best()
    if sweep.stopped:
        err.print(f"pdcc tune: stopped ({sweep.stopped}) after {len(sweep.outcomes)} of {sweep.planned} planned "
                  f"points", markup=False)
    default = sweep.default
    if default is not None and default.index in sweep.outcomes and sweep.outcomes[default.index].status != "ok":
        err.print(f"pdcc tune: warning: the default configuration is {sweep.outcomes[default.index].status}: "
                  f"{sweep.outcomes[default.index].detail}", markup=False)
    if sweep.baseline is not None and (sweep.baseline.status != "ok" or sweep.baseline.median_ms is None):
        err.print(f"pdcc tune: warning: {baseline_note(sweep)}", markup=False)
    err.print("pdcc tune: wrote " + ", ".join(str(path) for path in written), markup=False)
    if best is None:
        err.print("pdcc tune: no valid point (see logs/ in the results folder)", markup=False)
        return 1
    speedup, over_baseline = sweep.speedup(best.index), sweep.baseline_speedup(best.index)
    out_console.print(f"best: {sweep.label(best)}  {_ms(sweep.outcomes[best.index].median_ms)} ms"
                      + (f"  {speedup:.2f}x over the default" if speedup is not None else "")
                      + (f"  {over_baseline:.2f}x{'*' if sweep.baseline_wrong else ''} over the baseline"
                         if over_baseline is not None else "")
                      + f"  -> {out / 'best.flags'}", markup=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
