"""pdcc never makes a program unlaunchable (issue 9, item 7).

Every kernel of every golden output and of every sample built by pdcc in the GPU test configurations
must allow, after device link, every block size the original program's kernel allowed (1024 threads unless
the user's own `__launch_bounds__` or registers allow fewer); a kernel pdcc generates answers for the
child it was made from. Each case runs twice: `cpu` reads the linked cubin (registers and launch bounds
nvlink wrote), `gpu` asks the driver about the same cubin. Both print kernel, registers and block limit.
"""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

import pytest

from conftest import ROOT
from conftest import run_pdcc as pdcc
from launchable import MAX_BLOCK, Kernel, LinkError, compile_and_link, device_link, driver_kernels, kernels, max_threads
from test_samples import GPU_CONFIGURATIONS, GPU_SAMPLES, annotated_with

GOLDEN = ROOT / "tests" / "golden"
GOLDENS = sorted(p for p in GOLDEN.glob("*.cu") if not p.name.endswith(".expected.cu"))
RUNTIME = f"-I{ROOT / 'pragmadp' / 'runtime'}"

SAMPLE_CASES = [(name, configuration) for name in GPU_SAMPLES for configuration in GPU_CONFIGURATIONS]

def read(cubin: bytes, reader: str) -> list[Kernel]:
    """The kernels of a linked cubin, read from the cubin itself (`cpu`) or from the driver (`gpu`)."""
    found = kernels(cubin)
    return found if reader == "cpu" else driver_kernels(cubin, [k.symbol for k in found])


def cases(subjects: list, ids: list[str]) -> list:
    """Each subject read both ways: from the linked cubin (CPU) and by the driver (GPU)."""
    params = []
    for subject, name in zip(subjects, ids):
        params += [pytest.param(subject, "cpu", marks=[pytest.mark.nvcc], id=f"{name}-cpu"),
                   pytest.param(subject, "gpu", marks=[pytest.mark.nvcc, pytest.mark.gpu], id=f"{name}-gpu")]
    return params


def assert_launchable(rewritten: list[Kernel], original: list[Kernel]) -> None:
    """Each kernel allows at least the block size its original allowed: the kernel of the same name, or
    for `child__pdcc_*`, the child."""
    allowed: dict[str, int] = {}
    for kernel in original:
        allowed[kernel.function] = min(kernel.max_threads, allowed.get(kernel.function, MAX_BLOCK))
    rows, short = [], []
    for kernel in rewritten:
        required = allowed.get(kernel.function.split("__pdcc_")[0], MAX_BLOCK)
        rows.append(f"  {kernel.function}: {kernel.registers} registers, at most {kernel.max_threads} threads "
                    f"per block (original: {required})")
        if kernel.max_threads < required:
            short.append(rows[-1])
    print("\n".join(rows))
    assert not short, "kernels that no longer launch with every block size the original allowed:\n" + "\n".join(short)


def golden_flags(source: Path) -> list[str]:
    first_line = source.read_text().splitlines()[0]
    return first_line.split("nvcc-flags:", 1)[1].split() if "nvcc-flags:" in first_line else []


@pytest.mark.parametrize("source, reader", cases(GOLDENS, [p.stem for p in GOLDENS]))
def test_golden_outputs_stay_launchable(source: Path, reader: str, tmp_path: Path):
    flags = [RUNTIME, *golden_flags(source)]
    expected = source.with_name(source.stem + ".expected.cu")
    (tmp_path / "original").mkdir()
    original = compile_and_link(source, tmp_path / "original", *flags)
    assert_launchable(read(compile_and_link(expected, tmp_path, *flags), reader), read(original, reader))


@pytest.fixture(scope="module")
def sample_cubins(tmp_path_factory) -> dict:
    """Each sample as written (nvcc) and in each configuration (pdcc), device-linked, built in parallel;
    a failed build is its error message."""
    root = tmp_path_factory.mktemp("launchable")

    def build(job: tuple[str, str | None]) -> bytes | str:
        name, configuration = job
        directory = root / f"{name}-{'original' if configuration is None else GPU_CONFIGURATIONS.index(configuration)}"
        directory.mkdir()
        includes = ["-I", str(ROOT / "samples" / "common"), "-I", str(ROOT / "samples" / name)]
        try:
            if configuration is None:
                return compile_and_link(ROOT / "samples" / name / f"{name}_dp.cu", directory, *includes)
            source, defines = annotated_with(name, configuration, directory)
            done = pdcc("-arch=sm_90", "-rdc=true", "-cubin", "-q", *includes, *defines, str(source),
                        "-o", str(directory / "rdc.cubin"))
            if done.returncode != 0:
                return done.stderr
            return device_link(directory / "rdc.cubin", directory / "linked.cubin")
        except LinkError as error:
            return str(error)

    jobs = [(name, None) for name in GPU_SAMPLES] + SAMPLE_CASES
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(zip(jobs, pool.map(build, jobs)))


@pytest.mark.parametrize("case, reader", cases(SAMPLE_CASES, [f"{n}-{c}" for n, c in SAMPLE_CASES]))
def test_samples_built_by_pdcc_stay_launchable(case: tuple[str, str], reader: str, sample_cubins: dict):
    rewritten, original = sample_cubins[case], sample_cubins[(case[0], None)]
    assert isinstance(original, bytes), original
    assert isinstance(rewritten, bytes), rewritten
    assert_launchable(read(rewritten, reader), read(original, reader))


KNOWN_SHAPES = r"""
#define N 96
__global__ void heavy(const float* in, float* out) {  // about 72 registers: fewer than 1024 threads
  float v[N];
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = in[threadIdx.x + i * 1024];
  float s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) { s += v[i] * v[(i * 7 + 3) % N]; v[(i * 5 + 1) % N] += s; }
  out[threadIdx.x] = s;
}
__global__ void __launch_bounds__(256) bounded(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
static __global__ void hidden(float* out) { out[threadIdx.x] = 1; }
namespace ns { template <typename T> __global__ void __launch_bounds__(1024) put(T* out) { out[threadIdx.x] = 1; } }
void launch(float* out) { hidden<<<1, 1>>>(out); ns::put<<<1, 1>>>(out); }
"""


@pytest.mark.nvcc
def test_the_cubin_reading_finds_registers_bounds_and_every_kind_of_kernel(tmp_path: Path):
    (tmp_path / "shapes.cu").write_text(KNOWN_SHAPES)
    found = {k.function: k for k in kernels(compile_and_link(tmp_path / "shapes.cu", tmp_path))}
    assert sorted(found) == ["bounded", "heavy", "hidden", "put"]   # no device-runtime kernel, static ones too
    assert found["heavy"].registers > 64 and found["heavy"].max_threads == max_threads(found["heavy"].registers, None) < 1024
    assert found["bounded"].max_threads == 256 and found["put"].max_threads == 1024 and found["hidden"].max_threads == 1024


def test_registers_limit_the_block_as_the_driver_computes_it():
    # the driver's answers on the H200 (2026-12-01) at 72, 77, 100 and 102 registers
    assert max_threads(64, None) == 1024 and max_threads(65, None) == 896 and max_threads(72, None) == 896
    assert max_threads(77, None) == 768 and max_threads(100, None) == max_threads(102, None) == 512
    assert max_threads(131, None) == 384 and max_threads(255, None) == 256
    assert max_threads(32, 256) == 256 and max_threads(128, 1024) == 512


@pytest.mark.nvcc
@pytest.mark.gpu
def test_the_driver_agrees_with_the_cubin_reading(tmp_path: Path):
    (tmp_path / "shapes.cu").write_text(KNOWN_SHAPES)
    cubins = [compile_and_link(tmp_path / "shapes.cu", tmp_path)]
    for source in GOLDENS:
        (tmp_path / source.stem).mkdir()
        cubins.append(compile_and_link(source.with_name(source.stem + ".expected.cu"), tmp_path / source.stem,
                                       RUNTIME, *golden_flags(source)))
    for cubin in cubins:
        expected = kernels(cubin)
        assert driver_kernels(cubin, [k.symbol for k in expected]) == expected
