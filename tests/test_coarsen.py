"""The coarsen pass: which children it takes, and what it writes around them."""

from __future__ import annotations

import textwrap

import pytest

from conftest import HAVE_NVCC, assert_compiles
from pragmadp.pipeline import transform
from pragmadp.source import SourceFile


def run(child_body: str, clauses: str = "coarsen(4)"):
    code = textwrap.dedent(f"""\
        __global__ void child(int* x, int n) {{ {child_body} }}
        __global__ void parent(int* x, int n) {{
        #pragma dp {clauses}
          child<<<(n + 31) / 32, 32>>>(x, n);
        }}
        """)
    return transform(SourceFile("c.cu", code.encode()))


def test_plain_child_is_coarsened_with_a_serial_fallback():
    result = run("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 1;")
    assert [r.rule.id for r in result.remarks] == ["PDCC550", "PDCC530"]
    assert ("child__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_0 - 1) / PDCC_COARSEN_parent_0, "
            "pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(x, n, pdcc_grid);") in result.text
    assert "if (!pdcc::launched([&] {" in result.text and "child__pdcc_serial(pdcc_grid" in result.text
    assert "__syncthreads();  // the next original block" not in result.text


def test_child_with_shared_memory_gets_a_barrier_between_blocks_and_retries():
    result = run("__shared__ int s[32]; s[threadIdx.x] = n; __syncthreads(); x[threadIdx.x] = s[31 - threadIdx.x];")
    assert result.remarks[0].args["barrier_between_blocks"] is True
    assert "__syncthreads();  // the next original block reuses the shared memory" in result.text
    assert "__nanosleep(pdcc_wait);" in result.text and "__trap();" in result.text
    assert "pdcc::hold_launch();" in result.text  # counted whatever the budget says: the launch must be made
    assert "__pdcc_serial" not in result.text


@pytest.mark.parametrize("body, rule", [
    ("cooperative_groups::this_grid().sync();", "PDCC513"),
    ('asm("mov.u32 %0, %%nctaid.x;" : "=r"(n));', "PDCC516"),
    ('__syncthreads(); asm("mov.u32 %0, %%nctaid.x;" : "=r"(n));', "PDCC516"),  # not only the first obstacle
])
def test_children_tied_to_the_real_grid_are_not_coarsened(body: str, rule: str):
    result = run(body)
    assert [r.rule.id for r in result.remarks] == [rule]
    assert "it is not coarsened" in result.remarks[0].message
    assert "child<<<(n + 31) / 32, 32>>>(x, n);" in result.text


@pytest.mark.parametrize("clauses, why", [
    ("coarsen(4)", "first level of the recursion only (consldt(...) consolidates it)"),
    ("threshold(64) coarsen(4) consldt(block)", "a consumer block already strides over the threads of its item")])
def test_a_kernel_that_launches_itself_is_not_coarsened(clauses: str, why: str, tmp_path):
    code = textwrap.dedent(f"""\
        __global__ void walk(const int* next, int* seen, int node) {{
          seen[node] = 1;
          int n = next[node];
          if (n > 0) {{
        #pragma dp {clauses}
            walk<<<(n + 31) / 32, 32>>>(next, seen, n);
          }}
        }}
        """)
    result = transform(SourceFile("w.cu", code.encode()))
    missed = next(r for r in result.remarks if r.pass_name == "coarsen")
    assert missed.rule.id == "PDCC514" and why in missed.message and "not supported" not in missed.message
    assert "__pdcc_coarse" not in result.text
    if HAVE_NVCC:
        assert_compiles(result.text, tmp_path, "w.cu")


def test_nothing_pdcc_writes_synchronises_on_the_device():
    result = run("x[threadIdx.x] = n;", "threshold(64) coarsen(4)")
    assert "cudaDeviceSynchronize" not in result.text and "cudaLimitDevRuntimeSyncDepth" not in result.text


@pytest.mark.nvcc
@pytest.mark.parametrize("body", ["x[threadIdx.x] = n;",
                                  "__shared__ int s[32]; s[threadIdx.x] = n; __syncthreads(); x[threadIdx.x] = s[0];"])
def test_coarsened_code_compiles(body: str, tmp_path):
    assert_compiles(run(body, "threshold(64) coarsen(4)").text, tmp_path, "c.cu")
