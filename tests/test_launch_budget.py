"""The launch budget (pdcc_rt.cuh): pdcc's launches never fill the pending-launch pool.

On an H200 a device launch past the pool (2,048 pending launches) sometimes spins for ever inside the
device runtime instead of failing (tests/cuda/shapes.cu hung in 1-2 of 10 runs). So every launch of a
kernel pdcc wrote takes one of PDCC_LAUNCH_BUDGET launches first and its grid gives it back as it starts;
a launch the budget has no room for runs its fallback. The CPU tests check that invariant on every
golden output (a kernel that gives back is only ever launched after taking one, and the reverse); the
GPU tests run the configurations that overflow the pool many times, and a budget of 0.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from test_cuda_programs import build_program, shape_builds  # noqa: F401 (a fixture: the builds of every shape)

GOLDEN = ROOT / "tests" / "golden"
COUNTED_KERNEL = re.compile(r"__global__ void (?:__launch_bounds__\([^)]*\) )?(\w+__pdcc_(?:counted|coarse|direct|agg_\w+))\(")
LAUNCH = re.compile(r"([\w:]+?)(?:<[^<>]*>)?<<<")


def _outputs() -> list[Path]:
    return sorted(GOLDEN.glob("*.expected.cu"))


def _bodies(text: str) -> dict[str, str]:
    """Each counted kernel's definition: from its head to the next blank line."""
    return {m.group(1): text[m.end():text.find("\n\n", m.end())] for m in COUNTED_KERNEL.finditer(text)}


@pytest.mark.parametrize("output", _outputs(), ids=lambda p: p.name)
def test_every_counted_kernel_gives_its_launch_back_first(output: Path):
    for kernel, body in _bodies(output.read_text()).items():
        first = body.split("{", 1)[1].strip().splitlines()[0]
        assert first == "pdcc::launch_started();", (kernel, body)


@pytest.mark.parametrize("output", _outputs(), ids=lambda p: p.name)
def test_every_launch_of_a_counted_kernel_takes_one_and_no_other_does(output: Path):
    lines = output.read_text().splitlines()
    counted = set(_bodies(output.read_text()))
    for number, line in enumerate(lines):
        launch = LAUNCH.search(line)
        if launch is None or "pdcc: generated" not in line:
            continue
        kernel = launch.group(1).split("::")[-1]
        before = "\n".join(lines[max(0, number - 2):number])
        if "__nanosleep(pdcc_wait);" in before:
            continue  # the retry of a launch above, which took its launch already
        taken = "pdcc::launched([&] {" in before or "pdcc::hold_launch();" in before
        assert taken == (kernel in counted), (output.name, number + 1, line, before)


def test_the_goldens_have_each_kind_of_counted_launch():
    """The invariants above are checked on the kernels pdcc counts (a consolidated recursion's direct
    kernel, launched by the runtime's WorkQueue, too), gated and held."""
    texts = "\n".join(p.read_text() for p in _outputs())
    assert "__pdcc_direct(const pdcc::Level" in texts
    assert "__pdcc_counted<<<" in texts and "__pdcc_coarse<<<" in texts and "pdcc::aggregated_launch(" in texts
    assert "pdcc::hold_launch();" in texts


def _runs(binary: Path, times: int) -> list[str]:
    verdicts = []
    for _ in range(times):
        try:
            done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=20)
            verdicts.append("ok" if done.returncode == 0 and "shapes ok" in done.stdout else done.stdout + done.stderr)
        except subprocess.TimeoutExpired:
            verdicts.append("hung (20 s)")
    return verdicts


# The configurations that make some 15,000 launches of 3,000 parents: far past the pool (shapes' own).
PAST_THE_POOL = ["threshold(32)", "threshold(32) coarsen(4)", "consldt(block) buffer(pool, 3)"]


@pytest.mark.gpu
@pytest.mark.parametrize("configuration", PAST_THE_POOL)
def test_launches_past_the_pool_never_hang(configuration: str, shape_builds: dict[str, Path]):
    assert _runs(shape_builds[configuration] / "shapes", 10) == ["ok"] * 10


@pytest.mark.gpu
def test_a_spent_budget_runs_every_launch_in_the_parent(tmp_path: Path):
    done = build_program("shapes", "threshold(32) coarsen(2) consldt(block) buffer(pool, 3)", tmp_path,
                         "-DPDCC_LAUNCH_BUDGET=0")
    assert done.returncode == 0, done.stderr
    binary = tmp_path / "shapes"
    assert _runs(binary, 2) == ["ok"] * 2
