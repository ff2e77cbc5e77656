"""The control-flow melding samples (samples/meld_*/, issue 10): builds, pdcc's verdicts, and results.

Each sample has `<name>.cu` (annotated with `#pragma meld`: nvcc builds it as the original, pdcc melds it)
and `<name>_hand.cu` (melded by hand). Without a GPU: every file compiles warning-free with nvcc, pdcc
accepts every sample and gives every `#pragma meld` a verdict, and every program (original, hand, and
pdcc's output) runs correctly on tiny inputs with its kernels on the CPU (samples/meld_common/host/: a
stand-in for the CUDA runtime, each CUDA thread a fiber), the three agreeing. On a GPU: original, pdcc-built
and hand builds pass their checker on three random inputs each, and their outputs agree.
"""

from __future__ import annotations

import array
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_pdcc

SAMPLES_DIR = ROOT / "samples"
MELD_SAMPLES = sorted(p.name[len("meld_"):] for p in SAMPLES_DIR.glob("meld_*")
                      if (p / f"{p.name[len('meld_'):]}.cu").exists())
INCLUDES = ["-I", str(SAMPLES_DIR / "common"), "-I", str(SAMPLES_DIR / "meld_common")]
# nvcc does not know `#pragma meld` (warning 20199, "unrecognized #pragma in device code"): the original is
# built from the annotated file with that one diagnostic suppressed. pdcc comments its pragmas out.
ORIGINAL_FLAGS = ["-diag-suppress", "20199"]
HAVE_GXX = shutil.which("g++") is not None

# Three random inputs per sample for the GPU (seed 1, 2, 3): (--size, --param).
GPU_INPUTS = {
    "bitonic": [(1 << 20, 1024), (1 << 19, 128), (1 << 18, 32)],
    "merge": [(1 << 20, 64), (1 << 19, 16), (1 << 18, 1)],
    "nqueens": [(11, 4), (12, 4), (13, 5)],
    "lud": [(512, 0), (256, 0), (1024, 0)],
    "srad": [(256, 4), (512, 3), (384, 2)],
    "dct": [(1024, 0), (512, 0), (2048, 0)],
}
# Tiny inputs for the CPU stand-in (seed 1, 2).
HOST_INPUTS = {
    "bitonic": [(4096, 1024), (2048, 32)],
    "merge": [(4096, 8), (2048, 1)],
    "nqueens": [(8, 3), (9, 4)],
    "lud": [(64, 0), (48, 0)],
    "srad": [(128, 2), (144, 1)],
    "dct": [(64, 0), (128, 0)],
}


def test_six_meld_samples_each_annotated_and_melded_by_hand():
    assert MELD_SAMPLES == sorted(GPU_INPUTS) == sorted(HOST_INPUTS)
    for name in MELD_SAMPLES:
        directory = SAMPLES_DIR / f"meld_{name}"
        for path in (directory / f"{name}.cu", directory / f"{name}_hand.cu", directory / "README.md"):
            assert path.exists(), path
        assert pragma_lines(directory / f"{name}.cu"), f"{name}.cu has no '#pragma meld'"
        assert not pragma_lines(directory / f"{name}_hand.cu"), f"{name}_hand.cu is melded already: no pragma"


def pragma_lines(source: Path) -> list[int]:
    return [n for n, line in enumerate(source.read_text().splitlines(), 1)
            if re.match(r"\s*#\s*pragma\s+meld\b", line)]


def args(size: int, param: int, seed: int) -> list[str]:
    return ["--size", str(size), "--seed", str(seed)] + (["--param", str(param)] if param else [])


def result_of(done: subprocess.CompletedProcess) -> dict:
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result line (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(lines[-1])


def same_output(first: Path, second: Path, dtype: str) -> str:
    """'' when two dumps hold the same output (floats: within 1e-5 relative, a few outliers allowed as
    the sample's own checker allows them), else what differs."""
    a, b = first.read_bytes(), second.read_bytes()
    if a == b:
        return ""
    if len(a) != len(b) or dtype != "f32":
        return f"{dtype} outputs differ ({len(a)} and {len(b)} bytes)"
    x, y = array.array("f", a), array.array("f", b)
    off = sum(1 for u, v in zip(x, y) if not abs(u - v) <= 1e-5 * max(abs(u), abs(v), 1e-30))
    return "" if off <= len(x) // 100_000 else f"{off} of {len(x)} values differ by more than 1e-5"


# ---- nvcc and pdcc on the sources (CPU) ------------------------------------------------------------

@pytest.mark.nvcc
@pytest.mark.parametrize("name", MELD_SAMPLES)
@pytest.mark.parametrize("variant", ["annotated", "hand"])
def test_nvcc_compiles_every_meld_sample_warning_free(name: str, variant: str, tmp_path: Path):
    source = SAMPLES_DIR / f"meld_{name}" / (f"{name}.cu" if variant == "annotated" else f"{name}_hand.cu")
    flags = ORIGINAL_FLAGS if variant == "annotated" else []
    done = subprocess.run(["nvcc", "-arch=sm_90", "-O3", *flags, "-Xcompiler", "-Wall", *INCLUDES, "-c", str(source),
                           "-o", str(tmp_path / "x.o")], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower(), done.stderr


@pytest.mark.nvcc
@pytest.mark.parametrize("name", MELD_SAMPLES)
def test_pdcc_accepts_every_meld_sample_and_judges_every_site(name: str, tmp_path: Path):
    source = SAMPLES_DIR / f"meld_{name}" / f"{name}.cu"
    done = run_pdcc("-arch=sm_90", "-O3", "-Xcompiler", "-Wall", *INCLUDES, "-c", str(source), "-o", str(tmp_path / "x.o"),
                    "--emit", str(tmp_path), "--report", str(tmp_path / "report.json"))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower(), done.stderr
    remarks = json.loads((tmp_path / "report.json").read_text())["remarks"]
    assert not [r for r in remarks if r["kind"] == "error"], remarks
    # every site gets a verdict (applied, or missed with its reason), located at or after its pragma and
    # before the next one
    pragmas = pragma_lines(source)
    meld_lines = [r["line"] for r in remarks if r.get("pass") == "meld" and Path(r["file"]).name == source.name]
    for pragma, following in zip(pragmas, pragmas[1:] + [10 ** 9]):
        assert any(pragma <= line < following for line in meld_lines), (pragma, remarks)
    assert "#pragma meld" not in (tmp_path / source.name).read_text().replace("// pdcc: #pragma meld", "")


# ---- every program on the CPU stand-in (no GPU) ---------------------------------------------------------

LAUNCH = re.compile(r"\b([A-Za-z_]\w*)\s*<<<")
DYNAMIC_SHARED = re.compile(r"extern\s+__shared__\s+(\w+)\s+(\w+)\s*\[\s*\]\s*;")


def _top_level_split(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return parts + ([current.strip()] if current.strip() else [])


def hostify(text: str) -> str:
    """CUDA source -> C++ for the stand-in: `k<<<g, b[, s]>>>(a)` -> `host_launch(k, dim3(g), dim3(b), s, a)`,
    `extern __shared__ T x[];` -> a pointer to the block's dynamic shared memory."""
    text = DYNAMIC_SHARED.sub(lambda m: f"{m[1]}* {m[2]} = static_cast<{m[1]}*>(host_dynamic_shared());", text)
    out, position = [], 0
    while match := LAUNCH.search(text, position):
        close = text.index(">>>", match.end())
        config = _top_level_split(text[match.end():close]) + ["0"]
        opening = text.index("(", close)
        depth = 0
        for end in range(opening, len(text)):
            depth += text[end] == "("
            depth -= text[end] == ")"
            if depth == 0:
                break
        arguments = text[opening + 1:end].strip()
        out += [text[position:match.start()],
                f"host_launch({match[1]}, dim3({config[0]}), dim3({config[1]}), (size_t)({config[2]})"
                + (f", {arguments})" if arguments else ")")]
        position = end + 1
    return "".join(out) + text[position:]


def host_build(name: str, source: Path, workdir: Path) -> Path:
    """The program of `source` (the annotated file, the hand version or pdcc's output) built for the CPU."""
    workdir.mkdir(parents=True, exist_ok=True)
    for header in (SAMPLES_DIR / f"meld_{name}").glob("*.cuh"):
        (workdir / header.name).write_text(hostify(header.read_text()))
    (workdir / "main.cpp").write_text(hostify(source.read_text()))
    binary = workdir / "program"
    done = subprocess.run(["g++", "-std=c++20", "-O1", "-I", str(SAMPLES_DIR / "meld_common" / "host"), "-I", str(workdir),
                           *INCLUDES, "-x", "c++", str(workdir / "main.cpp"), "-o", str(binary)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    return binary


@pytest.fixture(scope="module")
def host_programs(tmp_path_factory) -> dict[tuple[str, str], Path | str]:
    """Every sample's original, hand and pdcc builds for the CPU stand-in (two at a time); a failure is its text."""
    root = tmp_path_factory.mktemp("meld-host")

    def build(job: tuple[str, str]) -> Path | str:
        name, variant = job
        directory = SAMPLES_DIR / f"meld_{name}"
        source = directory / (f"{name}_hand.cu" if variant == "hand" else f"{name}.cu")
        try:
            if variant == "pdcc":
                emitted = root / f"{name}-emitted"
                done = run_pdcc("-arch=sm_90", "-E", *INCLUDES, str(source), "-o", os.devnull, "-q",
                                "--emit", str(emitted))
                assert done.returncode == 0, done.stderr
                source = emitted / source.name
            return host_build(name, source, root / f"{name}-{variant}")
        except AssertionError as failure:
            return str(failure)

    jobs = [(name, variant) for name in MELD_SAMPLES for variant in ("original", "hand", "pdcc")]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return dict(zip(jobs, pool.map(build, jobs)))


@pytest.mark.skipif(not HAVE_GXX, reason="g++ is not on PATH")
@pytest.mark.parametrize("name", MELD_SAMPLES)
def test_every_build_of_a_meld_sample_is_correct_on_the_cpu_stand_in(name: str, host_programs, tmp_path: Path):
    for seed, (size, param) in enumerate(HOST_INPUTS[name], 1):
        results = {}
        for variant in ("original", "hand", "pdcc"):
            program = host_programs[(name, variant)]
            assert isinstance(program, Path), f"{variant}: {program}"
            done = subprocess.run([str(program), *args(size, param, seed), "--reps", "1",
                                   "--dump", str(tmp_path / f"{variant}-{seed}.out")],
                                  capture_output=True, text=True, timeout=300)
            result = result_of(done)
            assert result["correct"] is True and done.returncode == 0, f"{variant}, seed {seed}: {result['detail']}"
            results[variant] = result
        for variant in ("hand", "pdcc"):
            assert not same_output(tmp_path / f"original-{seed}.out", tmp_path / f"{variant}-{seed}.out",
                                   results["original"]["dtype"]), f"{variant} differs from the original, seed {seed}"


def test_a_wrong_result_fails_the_program(tmp_path: Path):
    """The checkers catch a wrong output: dct with its negative side quantised like the positive one."""
    if not HAVE_GXX:
        pytest.skip("g++ is not on PATH")
    text = (SAMPLES_DIR / "meld_dct" / "dct.cu").read_text()
    broken = tmp_path / "dct.cu"
    broken.write_text(text.replace("coefficient = -coefficient;\n  } else", "coefficient = coefficient;\n  } else"))
    assert broken.read_text() != text
    done = subprocess.run([str(host_build("dct", broken, tmp_path / "build")), "--size", "64", "--reps", "1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and result_of(done)["correct"] is False


def test_hostify_rewrites_launches_and_dynamic_shared_memory():
    text = ("extern __shared__ int shared[];\n  k<<<dim3(a, b), n, s * sizeof(int)>>>(x, f(y, z));\n"
            "  g<<<1, 32>>>();\n")
    assert hostify(text) == ("int* shared = static_cast<int*>(host_dynamic_shared());\n"
                             "  host_launch(k, dim3(dim3(a, b)), dim3(n), (size_t)(s * sizeof(int)), x, f(y, z));\n"
                             "  host_launch(g, dim3(1), dim3(32), (size_t)(0));\n")


# ---- on the GPU ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpu_programs(tmp_path_factory) -> dict[tuple[str, str], tuple[subprocess.CompletedProcess, Path]]:
    """Every sample's original (nvcc), pdcc-built and hand builds, in parallel."""
    root = tmp_path_factory.mktemp("meld-gpu")

    def build(job: tuple[str, str]):
        name, variant = job
        directory = SAMPLES_DIR / f"meld_{name}"
        binary = root / f"{name}-{variant}"
        common = ["-arch=sm_90", "-O3", *INCLUDES, "-o", str(binary)]
        if variant == "original":
            done = subprocess.run(["nvcc", *common, *ORIGINAL_FLAGS, str(directory / f"{name}.cu")],
                                  capture_output=True, text=True, cwd=ROOT)
        elif variant == "pdcc":
            done = run_pdcc(*common, "-q", str(directory / f"{name}.cu"))
        else:
            done = subprocess.run(["nvcc", *common, str(directory / f"{name}_hand.cu")], capture_output=True, text=True,
                                  cwd=ROOT)
        return job, (done, binary)

    jobs = [(name, variant) for name in MELD_SAMPLES for variant in ("original", "pdcc", "hand")]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(build, jobs))


@pytest.mark.gpu
@pytest.mark.parametrize("name", MELD_SAMPLES)
def test_original_pdcc_and_hand_builds_agree_on_random_inputs(name: str, gpu_programs, tmp_path: Path):
    for variant in ("original", "pdcc", "hand"):
        done, _ = gpu_programs[(name, variant)]
        assert done.returncode == 0, f"{variant} build: {done.stderr[-4000:]}"
    for seed, (size, param) in enumerate(GPU_INPUTS[name], 1):
        results = {}
        for variant in ("original", "pdcc", "hand"):
            done = subprocess.run([str(gpu_programs[(name, variant)][1]), *args(size, param, seed), "--reps", "1",
                                   "--dump", str(tmp_path / f"{variant}-{seed}.out")],
                                  capture_output=True, text=True, timeout=300)
            result = result_of(done)
            print(f"{name} {variant} seed {seed}: {result['input']}: {result['detail']}")
            assert result["correct"] is True and done.returncode == 0, f"{variant}, seed {seed}: {result['detail']}"
            results[variant] = result
        for variant in ("pdcc", "hand"):
            difference = same_output(tmp_path / f"original-{seed}.out", tmp_path / f"{variant}-{seed}.out",
                                     results["original"]["dtype"])
            assert not difference, f"{variant} against the original, seed {seed}: {difference}"
