"""Shared fixtures: nvcc and GPU detection, golden-file updating, compiling generated CUDA."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HAVE_NVCC = shutil.which("nvcc") is not None


def _have_gpu() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


HAVE_GPU = _have_gpu()


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite tests/golden/*.expected.cu from the current pdcc output")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "nvcc" in item.keywords and not HAVE_NVCC:
            item.add_marker(pytest.mark.skip(reason="nvcc is not on PATH"))
        if "gpu" in item.keywords and not HAVE_GPU:
            item.add_marker(pytest.mark.skip(reason="no NVIDIA GPU on this machine"))


@pytest.fixture
def update_goldens(request) -> bool:
    return request.config.getoption("--update-goldens")


def nvcc_compile(source: Path, workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    """Compiles one file as the issue asks of every generated output: nvcc -arch=sm_90 -rdc=true -c."""
    runtime = ROOT / "pragmadp" / "runtime"  # pdcc puts it on the include path when a file needs it
    return subprocess.run(["nvcc", "-arch=sm_90", "-rdc=true", "-c", str(source), "-o", str(workdir / "out.o"),
                           f"-I{runtime}", *extra], capture_output=True, text=True, cwd=workdir)


def assert_compiles(text: str, workdir: Path, name: str = "t.cu") -> None:
    """Writes a transformed file and asserts that nvcc compiles it without a warning (what it said shown if
    not): generated code is held to the user's standards."""
    source = workdir / name
    source.write_text(text)
    compiled = nvcc_compile(source, workdir)
    assert compiled.returncode == 0, compiled.stderr
    assert "warning" not in compiled.stderr, compiled.stderr


def host_build_and_run(source: Path, workdir: Path) -> subprocess.CompletedProcess:
    """Device code compiled as host C++ by g++ (tests/meld/shim.h stands in for the built-ins), then run:
    the differential tests' way of checking per-thread semantics without a GPU."""
    binary = workdir / source.stem
    built = subprocess.run(["g++", "-std=c++17", "-O1", "-w", f"-I{ROOT / 'tests' / 'meld'}", str(source), "-o",
                            str(binary)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return subprocess.run([str(binary)], capture_output=True, text=True)


def run_pdcc(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """pdcc as a user runs it: a separate process (this checkout first on the module path)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    environment = dict(os.environ, PYTHONPATH=path, **(env or {}))
    return subprocess.run([sys.executable, "-m", "pragmadp", *args], cwd=cwd, capture_output=True, text=True,
                          env=environment)
