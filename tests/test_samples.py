"""Every sample builds: the annotated program through pdcc, and each baseline through nvcc (CPU only).

On a GPU, every sample built by pdcc in every configuration (each granularity with and without threshold
and coarsening, records overflowing their storage, a pool too small) must match the CPU reference on
random inputs of two seeds.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from conftest import run_pdcc as pdcc

SAMPLES = sorted(p.name for p in (ROOT / "samples").iterdir() if (p / f"{p.name}_dp.cu").exists())


def have_cusparse() -> bool:
    nvcc = shutil.which("nvcc")
    return nvcc is not None and any(
        (Path(nvcc).resolve().parent.parent / sub / "cusparse.h").exists()
        for sub in ("include", "targets/x86_64-linux/include"))


def test_six_samples_with_all_variants():
    assert len(SAMPLES) >= 6
    for name in SAMPLES:
        for variant in ("dp", "flat", "best"):
            assert (ROOT / "samples" / name / f"{name}_{variant}.cu").exists(), (name, variant)


@pytest.mark.parametrize("name", SAMPLES)
def test_pdcc_transforms_the_annotated_sample(name: str, tmp_path: Path):
    done = pdcc("-arch=sm_90", "-E", "-I", "samples/common", f"samples/{name}/{name}_dp.cu", "-o", os.devnull,
                "--emit", str(tmp_path), "--report", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    kinds = {r["kind"] for r in report["remarks"]}
    assert "applied" in kinds or "missed" in kinds, "every annotated sample gets a verdict per site"
    assert "#pragma dp" not in (tmp_path / f"{name}_dp.cu").read_text().replace("// pdcc: #pragma dp", "")


@pytest.mark.nvcc
@pytest.mark.parametrize("name", SAMPLES)
def test_pdcc_builds_the_annotated_sample(name: str, tmp_path: Path):
    done = pdcc("-arch=sm_90", "-O3", "-q", "-I", "samples/common", f"samples/{name}/{name}_dp.cu",
                "-o", str(tmp_path / name))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / name).stat().st_size > 0


@pytest.mark.nvcc
@pytest.mark.parametrize("name, variant", [(n, v) for n in SAMPLES for v in ("dp", "flat", "best")])
def test_nvcc_builds_the_baselines(name: str, variant: str, tmp_path: Path):
    flags = ["-rdc=true"] if variant == "dp" else []
    if name == "spmv" and variant == "best" and not have_cusparse():
        pytest.skip("this CUDA installation has no cuSPARSE headers")
    done = subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-c", *flags, "-I", "samples/common",
                           f"samples/{name}/{name}_{variant}.cu", "-o", str(tmp_path / "x.o")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def run_sample(binary: Path, *args: str) -> dict:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])


# Each granularity with and without threshold and coarsening, records that overflow their group's
# storage (buffer), and a pool too small for the grid (most parents launch directly).
GPU_CONFIGURATIONS = [
    "threshold(128)", "threshold(128) coarsen(4)", "coarsen(8)",
    "consldt(warp)", "threshold(32) coarsen(2) consldt(warp) agg_threshold(4)",
    "consldt(block)", "threshold(64) coarsen(4) consldt(block) agg_threshold(2)",
    "consldt(multiblock(8))", "threshold(128) coarsen(8) consldt(multiblock(64))",
    "consldt(grid)", "threshold(128) coarsen(4) consldt(grid)",
    "consldt(block) buffer(pool, 2)", "threshold(32) consldt(warp) buffer(pool, 1)",
    "consldt(grid) buffer(pool, 16)",
    "consldt(block) -DPDCC_POOL_BYTES_{site}=65536", "consldt(multiblock(4)) -DPDCC_POOL_BYTES_{site}=65536",
]
# Small random inputs per seed (the bench runs the large ones).
GPU_INPUTS = {
    "spmv": lambda seed: ("--size", str(200_000 * seed), "--param", str(0.6 + 0.3 * seed)),
    "bfs": lambda seed: ("--size", str(32768 * seed)),
    "sssp": lambda seed: ("--size", str(32768 * seed)),
    "triangles": lambda seed: ("--size", str(10 + seed)),
    "bezier": lambda seed: ("--size", str(8192 * seed)),
}
# tree's one launch is recursive: its consolidations are tests/test_recursive_samples.py's.
GPU_SAMPLES = [name for name in SAMPLES if name in GPU_INPUTS]
GPU_SEEDS = (1, 2)


def annotated_with(name: str, configuration: str, directory: Path) -> tuple[Path, list[str]]:
    """The sample with its '#pragma dp' replaced by the configuration's clauses, and its -D flags."""
    annotated = (ROOT / "samples" / name / f"{name}_dp.cu").read_text()
    pragma = re.search(r"^[ \t]*#pragma dp .*$", annotated, re.MULTILINE)
    assert pragma, f"{name} has no '#pragma dp' line"
    parent = re.findall(r"__global__ void (\w+)\(", annotated[:pragma.start()])[-1]
    clauses, *defines = configuration.format(site=f"{parent}_0").split(" -D")
    source = directory / f"{name}_dp.cu"
    source.write_text(annotated[:pragma.start()] + f"  #pragma dp {clauses}" + annotated[pragma.end():])
    return source, ["-D" + d for d in defines]


@pytest.fixture(scope="module")
def gpu_builds(tmp_path_factory) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    """Every sample in every configuration, built by pdcc in parallel (one nvcc per core)."""
    root = tmp_path_factory.mktemp("gpu-builds")

    def build(job: tuple[str, str]):
        name, configuration = job
        directory = root / f"{name}-{GPU_CONFIGURATIONS.index(configuration)}"
        directory.mkdir()
        source, defines = annotated_with(name, configuration, directory)
        done = pdcc("-arch=sm_90", "-O3", "-q", "-I", "samples/common", "-I", f"samples/{name}", *defines,
                    str(source), "-o", str(directory / name), "--report", str(directory / "report.json"))
        return job, done, directory

    jobs = [(name, configuration) for name in GPU_SAMPLES for configuration in GPU_CONFIGURATIONS]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return {job: (done, directory) for job, done, directory in pool.map(build, jobs)}


@pytest.mark.gpu
@pytest.mark.parametrize("configuration", GPU_CONFIGURATIONS)
@pytest.mark.parametrize("name", GPU_SAMPLES)
def test_pdcc_built_sample_matches_the_cpu_reference(name: str, configuration: str, gpu_builds):
    done, directory = gpu_builds[(name, configuration)]
    assert done.returncode == 0, done.stderr
    remarks = json.loads((directory / "report.json").read_text())["remarks"]
    assert any(r["kind"] == "applied" for r in remarks), "the configuration must transform the sample"
    binary = directory / name
    for seed in GPU_SEEDS:
        result = run_sample(binary, *GPU_INPUTS[name](seed), "--seed", str(seed), "--reps", "1")
        print(f"{name} [{configuration}] seed {seed}: {result['detail'] or 'correct'}")
        assert result["correct"], f"seed {seed}: {result['detail']}"


CACHE_CHECK = """
#include "sample.cuh"
int main() {
  int builds = 0;
  auto make = [&] { ++builds; return sample::rmat_graph(8, 4, 7); };
  sample::Csr a = sample::cached_csr("rmat-8-4-7", make), b = sample::cached_csr("rmat-8-4-7", make);
  std::printf("%d %d\\n", builds, a.n == b.n && a.row_ptr == b.row_ptr && a.col == b.col && a.val == b.val);
}
"""


@pytest.mark.nvcc
def test_generated_inputs_are_cached_on_disk_and_rebuilt_when_broken(tmp_path: Path):
    (tmp_path / "check.cu").write_text(CACHE_CHECK)
    built = subprocess.run(["nvcc", "-arch=sm_90", "-I", str(ROOT / "samples" / "common"), "check.cu", "-o", "check"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr

    def run(**env) -> str:
        return subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, **env}).stdout.strip()

    assert run(PDCC_SAMPLE_CACHE="") == "2 1"                     # no cache: built each time
    cache = tmp_path / "cache"
    cache.mkdir()
    assert run(PDCC_SAMPLE_CACHE=str(cache)) == "1 1"             # built once, then read back equal
    assert run(PDCC_SAMPLE_CACHE=str(cache)) == "0 1"             # read by the next run
    for broken in (b"\x05\x00",                                              # cut short
                   struct.pack("<iq", 2, 1 << 60),                             # absurd sizes
                   struct.pack("<iq3i2i2f", 2, 2, 0, 5, 2, 9, 0, 1.0, 1.0)):   # the right length, impossible rows
        (cache / "rmat-8-4-7.csr").write_bytes(broken)
        assert run(PDCC_SAMPLE_CACHE=str(cache)) == "1 1"                     # rebuilt, not trusted
    assert [p.name for p in cache.iterdir()] == ["rmat-8-4-7.csr"]
