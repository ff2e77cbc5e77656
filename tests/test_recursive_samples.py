"""The recursive samples of issue 11: quicksort, traversal, mandelbrot and descendants.

Each is a naive recursive dynamic-parallelism program (`X_dp.cu`, the kernel launches itself under
`#pragma dp consldt(block) buffer(default, 256) work(...)`), a flat one and a best one. On the CPU: every
source compiles warning-free, pdcc accepts every naive program, the bench lists shallow and deep inputs for
each, and the CPU replays of the recursions say the shallow inputs need fewer device launches than the
pending-launch pool holds (2,048) and the deep ones far more, or chains deeper than that. On a GPU: flat and
best match the CPU reference on random inputs; the naive program is correct on the shallow input and, on
every deep one, reports its failed device launches (exit 3, "correct": false, detail "FAILED: ...") rather
than printing a wrong result as if it were one; where pdcc consolidated the recursion, its program is correct
on every input.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from conftest import run_pdcc as pdcc

sys.path.insert(0, str(ROOT / "bench"))
import run as bench  # noqa: E402  (bench/ is a folder of scripts, not a package)

RECURSIVE = ["quicksort", "traversal", "mandelbrot", "descendants"]
VARIANTS = ("dp", "flat", "best")
PENDING_LAUNCHES = 2048  # the device runtime's default pending-launch pool
FAILED_EXIT = 3          # what a naive program returns when one of its device launches failed


def source(name: str, variant: str) -> Path:
    return ROOT / "samples" / name / f"{name}_{variant}.cu"


def bench_inputs(name: str) -> list[dict]:
    config = json.loads((ROOT / "bench" / "config.json").read_text())
    return next(s for s in config["samples"] if s["name"] == name)["inputs"]


def kind_of(label: str) -> str:
    """'shallow' or 'deep', from the bench label's '(shallow...)' or '(deep...)'."""
    found = re.search(r"\((shallow|deep)\b", label)
    assert found, f"bench input {label!r} says neither (shallow) nor (deep)"
    return found.group(1)


def inputs_of(name: str, kind: str) -> list[dict]:
    return [item for item in bench_inputs(name) if kind_of(item["label"]) == kind]


# ---- CPU: files, bench entries, the annotated launch --------------------------------------------------------

@pytest.mark.parametrize("name", RECURSIVE)
def test_each_sample_has_readme_header_and_three_variants(name: str):
    directory = ROOT / "samples" / name
    for path in [directory / "README.md", directory / f"{name}.cuh", *(source(name, v) for v in VARIANTS)]:
        assert path.exists(), path
    readme = (directory / "README.md").read_text()
    for heading in ("Recursion", "Inputs", "flat", "best"):
        assert heading in readme, f"{name}/README.md says nothing about {heading}"


@pytest.mark.parametrize("name", RECURSIVE)
def test_the_bench_runs_each_sample_on_shallow_and_deep_inputs(name: str):
    kinds = [kind_of(item["label"]) for item in bench_inputs(name)]
    assert "shallow" in kinds and "deep" in kinds, kinds


@pytest.mark.parametrize("name", RECURSIVE)
def test_the_naive_program_launches_itself_under_the_consolidation_pragma(name: str):
    text = source(name, "dp").read_text()
    pragmas = re.findall(r"^[ \t]*#pragma dp (.*)$", text, re.MULTILINE)
    assert len(pragmas) == 1 and re.fullmatch(r"consldt\(block\) buffer\(default, 256\) work\([\w, ]+\)", pragmas[0]), pragmas
    after = text[text.index("#pragma dp"):].splitlines()[1].strip()
    launched = re.match(r"(\w+)<<<", after)
    assert launched, f"the pragma binds to {after!r}, not a launch"
    kernel = launched.group(1)
    assert re.search(rf"__global__ void (__launch_bounds__\(\w+\) )?{kernel}\(", text), f"{kernel} is not defined here"
    enclosing = re.findall(r"__global__ void (?:__launch_bounds__\(\w+\) )?(\w+)\(", text[:text.index("#pragma dp")])
    assert enclosing[-1] == kernel, "the annotated launch is a self-launch"
    # The parent looks at its launch: a naive program that lost work says so.
    assert re.search(r"<<<.*;\s*\n\s*cudaError_t \w+ = cudaGetLastError\(\);", text[text.index("#pragma dp"):])


# ---- CPU: nvcc and pdcc ----------------------------------------------------------------------------------

def nvcc_object(path: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-rdc=true", "-c", "-I", "samples/common", str(path), "-o",
                           str(out)], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> tuple[dict[tuple[str, str], subprocess.CompletedProcess], Path]:
    """Every source compiled as the issue asks (nvcc -arch=sm_90 -O3 -rdc=true), and every naive program
    through pdcc (its report beside), in parallel."""
    root = tmp_path_factory.mktemp("recursive")

    def build(job: tuple[str, str]):
        name, variant = job
        if variant == "pdcc":
            return job, pdcc("-arch=sm_90", "-O3", "-rdc=true", "-c", "-I", "samples/common", str(source(name, "dp")),
                             "-o", str(root / f"{name}-pdcc.o"), "--report", str(root / f"{name}-report.json"))
        return job, nvcc_object(source(name, variant), root / f"{name}-{variant}.o")

    jobs = [(name, variant) for name in RECURSIVE for variant in (*VARIANTS, "pdcc")]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(build, jobs)), root


@pytest.mark.nvcc
@pytest.mark.parametrize("name, variant", [(n, v) for n in RECURSIVE for v in VARIANTS])
def test_every_source_compiles_warning_free(name: str, variant: str, compiled):
    done = compiled[0][(name, variant)]
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", f"nvcc said:\n{done.stderr}"


@pytest.mark.nvcc
@pytest.mark.parametrize("name", RECURSIVE)
def test_pdcc_accepts_every_naive_program(name: str, compiled):
    results, directory = compiled
    done = results[(name, "pdcc")]
    assert done.returncode == 0, done.stderr
    remarks = json.loads((directory / f"{name}-report.json").read_text())["remarks"]
    assert remarks, "pdcc says what it did with the self-launch"


# ---- CPU: how deep the recursions go -----------------------------------------------------------------------

# A host-only program over the samples' own generators and CPU replays: the device launches each input's
# recursion makes and how deep it nests; `selftest` checks the traversal checker, the one that accepts many
# answers (any spanning tree of the source's component).
SHAPE = r"""
#include "quicksort.cuh"
#include "mandelbrot.cuh"
#include "descendants.cuh"
#include "traversal.cuh"

static void selftest() {
  sample::Csr g = sample::grid_graph(4, 1);  // 16 vertices, vertex 0 in a corner
  std::vector<int> level = traversal::bfs_levels(g, 0), parent(g.n), depth(g.n);
  std::string detail;
  auto verdict = [&] { return (int)traversal::check(g, 0, parent, depth, level, detail); };
  for (int v = 0; v < g.n; ++v) {  // a breadth-first tree
    depth[v] = level[v];
    parent[v] = v;
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (level[g.col[e]] == level[v] - 1) parent[v] = g.col[e];
  }
  int bfs = verdict();
  for (int i = 0; i < g.n; ++i) {  // a depth-first one: the snake through the rows, 15 deep
    int y = i / 4, x = y % 2 ? 3 - i % 4 : i % 4, v = y * 4 + x;
    int py = (i - 1) / 4, px = py % 2 ? 3 - (i - 1) % 4 : (i - 1) % 4;
    parent[v] = i == 0 ? 0 : py * 4 + px;
    depth[v] = i;
  }
  int snake = verdict();
  std::vector<int> keep = parent;
  parent[15] = 0; depth[15] = 1;  // no edge 0-15
  int no_edge = verdict();
  parent = keep;
  parent[5] = -1;  // a reachable vertex missed
  int missed = verdict();
  parent = keep;
  depth[6] += 1;  // a depth that does not follow its parent's
  int bad_depth = verdict();
  sample::Csr h = sample::csr_from_coo(3, {0, 1}, {1, 0}, {1.f, 1.f});  // vertex 2 unreachable
  std::vector<int> hl = traversal::bfs_levels(h, 0), hp = {0, 0, 0}, hd = {0, 1, 1};
  int unreachable = (int)traversal::check(h, 0, hp, hd, hl, detail);
  std::printf("{\"bfs\": %d, \"snake\": %d, \"no_edge\": %d, \"missed\": %d, \"bad_depth\": %d, \"unreachable\": %d}\n",
              bfs, snake, no_edge, missed, bad_depth, unreachable);
}

int main(int argc, char** argv) {
  const std::string which = argv[1];
  if (which == "selftest") { selftest(); return 0; }
  const sample::Options o = sample::parse_options(argc - 1, argv + 1);
  long long launches = 0, depth = 0;
  if (which == "quicksort") {
    const quicksort::Input in = quicksort::make_input(o);
    const quicksort::Recursion r = quicksort::replay(in.keys, in.cutoff);
    launches = r.launches;
    depth = r.depth;
  } else if (which == "mandelbrot") {
    mandelbrot::Recursion r;
    mandelbrot::reference(mandelbrot::make_input(o), r);
    launches = r.launches;
    depth = r.depth;
  } else if (which == "descendants") {
    const descendants::Input in = descendants::make_input(o);
    std::vector<int> desc, height;
    descendants::Shape s;
    descendants::reference(in.tree, desc, height, s);
    launches = s.inner - (s.height > 0);  // the root's grid is launched by the host
    depth = s.height - (s.height > 0);   // device launches nested below it
  } else {
    const graph::GraphInput in = graph::load_graph(o);
    const std::vector<int> level = traversal::bfs_levels(in.g, graph::kSource);
    for (int l : level) {
      launches += l > 0;  // every reached vertex but the source is launched once
      depth = std::max<long long>(depth, l);  // the grid a vertex launches nests at least its level deep
    }
  }
  std::printf("{\"launches\": %lld, \"depth\": %lld}\n", launches, depth);
  return 0;
}
"""


@pytest.fixture(scope="module")
def shape(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("shape")
    (directory / "shape.cu").write_text(SHAPE)
    includes = [f"-I{ROOT / 'samples' / d}" for d in ("common", *RECURSIVE)]
    built = subprocess.run(["nvcc", "-arch=sm_90", "-O3", *includes, "shape.cu", "-o", "shape"], cwd=directory,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return directory / "shape"


def run_shape(binary: Path, *args: str) -> dict:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PDCC_SAMPLE_CACHE": ""})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.nvcc
@pytest.mark.parametrize("name", RECURSIVE)
def test_shallow_inputs_fit_the_launch_pool_and_deep_ones_do_not(name: str, shape: Path):
    for item in bench_inputs(name):
        got = run_shape(shape, name, *item["args"])
        print(f"{name} {item['label']}: {got['launches']} device launches, nesting {got['depth']}")
        if kind_of(item["label"]) == "shallow":
            # Every launch of the recursion may be pending at once and still fit, with room to spare.
            assert 0 < got["launches"] <= PENDING_LAUNCHES * 3 // 4, (item["label"], got)
            assert got["depth"] < PENDING_LAUNCHES, (item["label"], got)
        else:
            # Far more launches than the pool holds, or a chain of nested launches longer than it.
            assert got["launches"] >= 4 * PENDING_LAUNCHES or got["depth"] > PENDING_LAUNCHES, (item["label"], got)


@pytest.mark.nvcc
def test_the_traversal_checker_accepts_any_spanning_tree_and_nothing_else(shape: Path):
    assert run_shape(shape, "selftest") == {"bfs": 1, "snake": 1, "no_edge": 0, "missed": 0, "bad_depth": 0,
                                            "unreachable": 0}


# ---- GPU ---------------------------------------------------------------------------------------------------

# Random inputs for flat and best (seeds and sizes vary; Mandelbrot's image depends on its size and
# maximum dwell only). Small enough for seconds per run.
RANDOM_INPUTS = {
    "quicksort": [("--size", "300007", "--param", "700", "--seed", "1"),
                  ("--size", "2000000", "--param", "64", "--seed", "2"),
                  ("--size", "1500", "--param", "2048", "--seed", "3")],  # one block sort, no partition
    "traversal": [("--size", "8192", "--param", "4", "--seed", "1"),
                  ("--size", "65536", "--param", "16", "--seed", "2"),
                  ("--param", "150", "--seed", "3")],                     # a grid: 298 levels
    "mandelbrot": [("--size", "512", "--param", "100", "--seed", "1"),
                   ("--size", "2048", "--param", "1000", "--seed", "2")],
    "descendants": [("--size", "50000", "--param", "0.3", "--seed", "1"),
                    ("--size", "20000", "--param", "1", "--seed", "2")],  # depth first: about 1,200 levels
    "tree": [("--size", "100000", "--param", "4", "--seed", "1"), ("--size", "300000", "--param", "16", "--seed", "2")],
}


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """Every variant of every recursive sample, built as the bench builds them, in parallel."""
    root = tmp_path_factory.mktemp("recursive-bin")

    def build(job: tuple[str, str]):
        name, variant = job
        flags = ["-rdc=true", "-lcudadevrt"] if variant == "dp" else []
        out = root / f"{name}-{variant}"
        done = subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-I", "samples/common", str(source(name, variant)), "-o",
                               str(out), *flags], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return job, out

    jobs = [(name, variant) for name in RECURSIVE for variant in VARIANTS]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(build, jobs))


def run_sample(binary: Path, *args: str, timeout: float = 300) -> tuple[subprocess.CompletedProcess, dict]:
    done = subprocess.run([str(binary), *args, "--reps", "1"], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result line (exit {done.returncode}): {done.stderr}"
    return done, json.loads(lines[-1])


@pytest.mark.gpu
@pytest.mark.parametrize("name, variant", [(n, v) for n in RECURSIVE for v in ("flat", "best")])
def test_flat_and_best_match_the_cpu_reference(name: str, variant: str, binaries):
    for args in RANDOM_INPUTS[name]:
        done, result = run_sample(binaries[(name, variant)], *args)
        print(f"{name} {variant} {' '.join(args)}: {result['median_ms']:.3f} ms, {result['detail']}")
        assert done.returncode == 0, done.stderr
        assert result["correct"], f"{' '.join(args)}: {result['detail']}"


@pytest.mark.gpu
@pytest.mark.parametrize("name", RECURSIVE)
def test_the_naive_program_is_correct_on_the_shallow_input(name: str, binaries):
    for item in inputs_of(name, "shallow"):
        done, result = run_sample(binaries[(name, "dp")], *item["args"])
        print(f"{name} dp {item['label']}: {result['median_ms']:.3f} ms, {result['detail']}")
        assert done.returncode == 0, done.stderr
        assert result["correct"], result["detail"]


@pytest.mark.gpu
@pytest.mark.parametrize("name", RECURSIVE)
def test_the_naive_program_reports_failed_launches_on_the_deep_inputs(name: str, binaries):
    """Past the pending-launch pool a device launch fails, or the device runtime spins in the launch and the
    program never ends (seen on the H200: bench/results/2026-12-01-h200-launch-budget); either way the naive program must not print a wrong
    result as if it were one."""
    for item in inputs_of(name, "deep"):
        try:
            done, result = run_sample(binaries[(name, "dp")], *item["args"], timeout=item.get("timeout_s", 60))
        except subprocess.TimeoutExpired:
            print(f"{name} dp {item['label']}: hung past the pending-launch pool (killed)")
            continue
        print(f"{name} dp {item['label']}: exit {done.returncode}, {result['detail']}")
        assert done.returncode == FAILED_EXIT, f"{item['label']}: not reported failed: {result['detail']}"
        assert result["correct"] is False
        assert result["detail"].startswith("FAILED: "), result["detail"]
        assert "device launches failed" in done.stderr, done.stderr


# Every consolidation the bench builds (bench/config.json), of every recursive sample and of tree.
CONSOLIDATED = [*RECURSIVE, "tree"]


def consolidations(name: str) -> list[dict]:
    config = json.loads((ROOT / "bench" / "config.json").read_text())
    return next(s for s in config["samples"] if s["name"] == name)["consolidations"]


@pytest.fixture(scope="module")
def pdcc_binaries(tmp_path_factory) -> dict[tuple[str, str], tuple[Path, list[dict]]]:
    """Every naive program built by pdcc in every consolidation of the bench (its pragma's clauses replaced),
    as the bench builds a pdcc variant, with its remarks."""
    root = tmp_path_factory.mktemp("recursive-pdcc")

    def build(job: tuple[str, dict]):
        name, consolidation = job
        tag = re.sub(r"\W+", "_", consolidation["name"])
        copy = bench.with_clauses(source(name, "dp"), consolidation["clauses"], root / f"{name}-{tag}.cu", "consldt(")
        assert copy is not None, f"{name} has no consldt site"
        out, report = root / f"{name}-{tag}", root / f"{name}-{tag}.json"
        done = pdcc("-arch=sm_90", "-O3", "-q", "-I", "samples/common", "-I", f"samples/{name}", str(copy),
                    "-o", str(out), "--report", str(report))
        assert done.returncode == 0, done.stderr
        return (name, consolidation["name"]), (out, json.loads(report.read_text())["remarks"])

    jobs = [(name, c) for name in CONSOLIDATED for c in consolidations(name)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(build, jobs))


@pytest.mark.gpu
@pytest.mark.parametrize("name, consolidation", [(n, c["name"]) for n in CONSOLIDATED for c in consolidations(n)])
def test_the_consolidated_program_is_correct_on_every_input(name: str, consolidation: str, pdcc_binaries):
    """Where pdcc consolidated the recursion, the program is correct on the shallow and the deep inputs
    (no launch fails: levels chain by tail launches), and on the random ones, at every granularity."""
    binary, remarks = pdcc_binaries[(name, consolidation)]
    assert any(r["kind"] == "applied" for r in remarks), [r["message"][:100] for r in remarks]
    runs = [item["args"] for item in bench_inputs(name)] + [list(args) for args in RANDOM_INPUTS[name]]
    for args in runs:
        done, result = run_sample(binary, *args)
        print(f"{name} {consolidation} {' '.join(args)}: {result['median_ms']:.3f} ms, {result['detail']}")
        assert done.returncode == 0, done.stderr
        assert result["correct"], f"{' '.join(args)}: {result['detail']}"
