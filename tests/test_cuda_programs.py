"""Small CUDA programs in tests/cuda: the device runtime on its own, and code shapes built by pdcc."""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_pdcc

PROGRAMS = ROOT / "tests" / "cuda"

# Every granularity, with the aggregation threshold's one-by-one path, threshold and coarsening, and
# records that overflow their group's storage. The threshold configurations hung on an H200 while pdcc let
# nvcc inline the serial version into the parent's loop beside the launches; it is __noinline__ since.
SHAPE_CONFIGURATIONS = [
    "threshold(32)", "threshold(32) coarsen(4)", "consldt(warp)", "consldt(warp) agg_threshold(8)", "consldt(block)",
    "threshold(64) coarsen(4) consldt(block) agg_threshold(40)", "consldt(multiblock(3))",
    "threshold(16) coarsen(2) consldt(grid)", "consldt(block) buffer(pool, 3)",
]


def build_runtime_check(tmp_path: Path) -> Path:
    binary = tmp_path / "runtime_check"
    done = subprocess.run(["nvcc", "-arch=sm_90", "-lineinfo", "-I", str(ROOT / "pragmadp" / "runtime"),
                           str(PROGRAMS / "runtime_check.cu"), "-o", str(binary), "-Xcompiler", "-Wall"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    return binary


def build_program(name: str, configuration: str, directory: Path, *flags: str) -> subprocess.CompletedProcess:
    """tests/cuda/NAME.cu with the configuration's clauses where CLAUSES stands, built by pdcc into `directory`
    (the program `directory/NAME`, its report `directory/report.json`)."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / f"{name}.cu"
    source.write_text((PROGRAMS / f"{name}.cu").read_text().replace("#pragma dp CLAUSES", f"#pragma dp {configuration}"))
    return run_pdcc("-arch=sm_90", "-O3", "-q", "-I", str(PROGRAMS), *flags, str(source), "-o", str(directory / name),
                    "--report", str(directory / "report.json"))


def built_in_parallel(name: str, configurations: list[str], root: Path) -> dict[str, Path]:
    """Every configuration of tests/cuda/NAME.cu built at once (one pdcc and nvcc per core: on the GPU box
    the builds, not the runs, are what the tests' time goes on), each in a folder of its own."""
    def build(index: int) -> tuple[str, Path]:
        directory = root / f"{name}-{index}"
        done = build_program(name, configurations[index], directory)
        assert done.returncode == 0, f"{configurations[index]}: {done.stderr}"
        return configurations[index], directory
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(build, range(len(configurations))))


@pytest.fixture(scope="module")
def shape_builds(tmp_path_factory) -> dict[str, Path]:
    return built_in_parallel("shapes", SHAPE_CONFIGURATIONS, tmp_path_factory.mktemp("shapes"))


@pytest.mark.nvcc
def test_runtime_check_compiles(tmp_path: Path):
    assert build_runtime_check(tmp_path).stat().st_size > 0


@pytest.mark.gpu
def test_runtime_scans_and_group_protocol_on_the_gpu(tmp_path: Path):
    done = subprocess.run([str(build_runtime_check(tmp_path))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "runtime ok" in done.stdout, done.stdout + done.stderr


@pytest.mark.nvcc
@pytest.mark.parametrize("configuration", SHAPE_CONFIGURATIONS)
def test_shapes_build_with_every_site_transformed(configuration: str, shape_builds: dict[str, Path]):
    remarks = json.loads((shape_builds[configuration] / "report.json").read_text())["remarks"]
    applied = {r["site"] for r in remarks if r["kind"] == "applied"}
    assert applied == {"parent_0", "parent_1"}, remarks
    assert not [r for r in remarks if r["kind"] == "missed"]


@pytest.mark.gpu
@pytest.mark.parametrize("configuration", SHAPE_CONFIGURATIONS)
def test_shapes_count_every_child_thread_once(configuration: str, shape_builds: dict[str, Path]):
    done = subprocess.run([str(shape_builds[configuration] / "shapes")], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "shapes ok" in done.stdout, done.stdout + done.stderr


# Consolidated recursions (seed 003): every granularity, a given consumer configuration, and a buffer of one
# item per group, which sends items past the queue's capacity to direct launches.
RECURSION_CONFIGURATIONS = ["consldt(warp)", "consldt(block)", "consldt(grid)", "consldt(grid) threads(32) blocks(4)",
                            "consldt(block) buffer(pool, 1)", "threshold(2) consldt(block)",
                            "threshold(64) consldt(warp)"]


@pytest.fixture(scope="module")
def recursion_builds(tmp_path_factory) -> dict[str, Path]:
    return built_in_parallel("recursion_check", RECURSION_CONFIGURATIONS, tmp_path_factory.mktemp("recursion"))


def consolidated_sites(directory: Path) -> list[dict]:
    """The PDCC570 remarks of a build's report, which must have no missed remark."""
    remarks = json.loads((directory / "report.json").read_text())["remarks"]
    assert not [r for r in remarks if r["kind"] == "missed"], remarks
    return [r for r in remarks if r["ruleId"] == "PDCC570"]


def assert_runs(binary: Path, *args: str, says: str) -> None:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120)
    print(done.stdout)
    assert done.returncode == 0 and says in done.stdout, done.stdout + done.stderr


@pytest.mark.nvcc
@pytest.mark.parametrize("configuration", RECURSION_CONFIGURATIONS)
def test_recursion_check_builds_with_every_recursion_consolidated(configuration: str, recursion_builds: dict[str, Path]):
    sites = {r["site"] for r in consolidated_sites(recursion_builds[configuration])}
    assert sites == {"chain_0", "tree_0", "fan_0", "ping_0", "pong_0"}


@pytest.mark.gpu
@pytest.mark.parametrize("levels", [10, 10_000])
@pytest.mark.parametrize("configuration", RECURSION_CONFIGURATIONS)
def test_consolidated_recursions_visit_every_item_once_at_any_depth(configuration: str, levels: int,
                                                                   recursion_builds: dict[str, Path]):
    """A chain of `levels` levels (a naive chain stops near 2,048 on an H200), a binary tree 16 levels deep and a
    mutual recursion (ping and pong) as deep as the chain."""
    assert_runs(recursion_builds[configuration] / "recursion_check", str(levels), "16", says="recursion ok")


# Consolidated recursions whose threads cooperate within their blocks (barriers, shared memory, shuffles):
# their items' blocks run as launched, each in a consumer block of the same size.
AS_LAUNCHED_CONFIGURATIONS = ["consldt(block)", "consldt(warp)", "consldt(grid) blocks(4)",
                              "consldt(block) buffer(pool, 1)"]


@pytest.fixture(scope="module")
def as_launched_builds(tmp_path_factory) -> dict[str, Path]:
    return built_in_parallel("as_launched_check", AS_LAUNCHED_CONFIGURATIONS, tmp_path_factory.mktemp("as-launched"))


@pytest.mark.nvcc
@pytest.mark.parametrize("configuration", AS_LAUNCHED_CONFIGURATIONS)
def test_as_launched_check_builds_with_both_recursions_run_as_launched(configuration: str,
                                                                      as_launched_builds: dict[str, Path]):
    applied = consolidated_sites(as_launched_builds[configuration])
    assert {r["site"] for r in applied} == {"chain_0", "tree_0", "wide_0"}
    assert all("block by block, as launched" in r["message"] for r in applied)


@pytest.mark.gpu
@pytest.mark.parametrize("levels", [10, 10_000])
@pytest.mark.parametrize("configuration", AS_LAUNCHED_CONFIGURATIONS)
def test_recursions_that_synchronise_their_blocks_run_as_launched_at_any_depth(configuration: str, levels: int,
                                                                              as_launched_builds: dict[str, Path]):
    assert_runs(as_launched_builds[configuration] / "as_launched_check", str(levels), "12", says="as launched ok")
