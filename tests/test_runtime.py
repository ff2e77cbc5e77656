"""The device runtime header on its own: scans, find-record and multi-block groups (tests/cuda)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

CHECK = ROOT / "tests" / "cuda" / "runtime_check.cu"


def build(tmp_path: Path) -> Path:
    binary = tmp_path / "runtime_check"
    done = subprocess.run(["nvcc", "-arch=sm_90", "-lineinfo", "-I", str(ROOT / "pragmadp" / "runtime"), str(CHECK),
                           "-o", str(binary)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return binary


@pytest.mark.nvcc
def test_runtime_check_compiles(tmp_path: Path):
    assert build(tmp_path).stat().st_size > 0


@pytest.mark.gpu
def test_runtime_scans_find_records_and_groups_on_the_gpu(tmp_path: Path):
    done = subprocess.run([str(build(tmp_path))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "runtime ok" in done.stdout, done.stdout + done.stderr
