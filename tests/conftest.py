"""Shared fixtures: nvcc and GPU detection, golden-file updating, compiling generated CUDA."""

from __future__ import annotations

import shutil
import subprocess
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
    return subprocess.run(["nvcc", "-arch=sm_90", "-rdc=true", "-c", str(source), "-o", str(workdir / "out.o"),
                           *extra], capture_output=True, text=True, cwd=workdir)
