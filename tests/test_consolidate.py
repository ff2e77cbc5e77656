"""The consolidate pass (seed 003): which recursions it takes, what it writes, its knobs and its remarks."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, assert_compiles, host_build_and_run, nvcc_compile
from pragmadp.pipeline import transform, transform_path
from pragmadp.report.remarks import PdccError
from pragmadp.source import SourceFile

# A tree walk in the seed's shape: a grid over the children of a node, one launch per child with children.
WALK = """\
__global__ void walk(const int* child_ptr, const int* children, int* depth, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  int n = child_ptr[c + 1] - child_ptr[c];
  if (n > 0) {
    #pragma dp PRAGMA
    walk<<<(n + 127) / 128, 128>>>(child_ptr, children, depth, c);
  }
  AFTER
}
"""


def run(code: str, auto: str | None = None):
    return transform(SourceFile("w.cu", textwrap.dedent(code).encode()), auto=auto)


def walk(pragma: str = "consldt(block)", after: str = "", **replacements: str):
    code = WALK.replace("PRAGMA", pragma).replace("AFTER", after)
    for old, new in replacements.items():
        code = code.replace(old.replace("_", " "), new)
    return run(code)


def remarks(result, rule: str) -> list:
    return [r for r in result.remarks if r.rule.id == rule]


def test_the_seeds_form_is_consolidated_and_located():
    result = walk("consldt(block) buffer(default, 256) work(c)")
    (applied,) = remarks(result, "PDCC570")
    assert (applied.location.line, applied.location.column) == (10, 5)  # the launch
    assert applied.args["granularity"] == "block" and applied.args["varying_arguments"] == ["node"]
    assert "run packed (several items per block; only the threads its guard at line 4 lets through)" in applied.message
    (storage,) = remarks(result, "PDCC571")
    assert (storage.location.line, storage.location.column) == (9, 16)  # the consldt clause
    assert "PDCC_BUFFER_walk_0 (= 256) items per block" in storage.message and storage.args["pool_bytes"] == 64 << 20
    assert not [r for r in result.remarks if r.kind.value == "missed"]
    # the item counts the threads its guard lets through, which size the next level's consumer grid
    assert "pdcc_queue_walk.append_packed(pdcc_queue_walk.first_level(), walk__pdcc_direct, walk__pdcc_live, " \
           "pdcc_grid, pdcc_block, child_ptr, children, depth, c);" in result.text
    assert "static __device__ void walk__pdcc_body(const int* child_ptr" in result.text
    assert "__global__ void __launch_bounds__(1024) walk(const int* child_ptr" in result.text
    assert "__pdcc_agg_" not in result.text and "walk<<<" not in result.text  # no launch of the kernel is left


def test_knobs_have_kinds_and_domains():
    knobs = {k.kind: k for k in walk("consldt(block) buffer(default, 256)").knobs}
    assert {kind: (k.macro, k.default) for kind, k in knobs.items()} == {
        "pool_bytes": ("PDCC_POOL_BYTES_walk_0", str(64 << 20)), "buffer": ("PDCC_BUFFER_walk_0", "256"),
        "threads": ("PDCC_THREADS_walk_0", "128"), "blocks": ("PDCC_BLOCKS_walk_0", "0")}
    assert knobs["threads"].domain == (1, 1024) and knobs["blocks"].domain == (0, (1 << 31) - 1)


def test_threads_and_blocks_configure_the_consumer_and_are_not_unsupported_clauses():
    result = walk("consldt(grid) threads(64) blocks(NUM_BLOCKS)")
    assert not remarks(result, "PDCC600")
    assert "#define PDCC_THREADS_walk_0 64\n" in result.text and "#define PDCC_BLOCKS_walk_0 NUM_BLOCKS\n" in result.text
    assert "pdcc_queue_walk.next_level(pdcc_level, PDCC_THREADS_walk_0, PDCC_BLOCKS_walk_0, " \
           "pdcc::level_launch(walk__pdcc_level, child_ptr, children, depth))" in result.text


def test_a_consumer_block_past_1024_threads_is_an_error_at_the_clause():
    with pytest.raises(PdccError) as caught:
        walk("consldt(block) threads(2048)")
    assert caught.value.remark.rule.id == "PDCC102" and caught.value.remark.location.line == 9


@pytest.mark.parametrize("pragma, name, what, column", [
    ("consldt(grid) threads(32 * n)", "n", "local variable", 43),
    ("consldt(grid) blocks(node + 1)", "node", "parameter", 37),
    ("consldt(block) threads(kSizes.x) blocks(depth[0])", "depth", "parameter", 56)])
def test_a_consumer_configured_by_a_variable_of_the_kernel_is_an_error_at_the_name(pragma, name, what, column):
    # The consumer is launched outside the kernel, where the name does not exist: nvcc would reject the output.
    with pytest.raises(PdccError) as caught:
        walk(pragma)
    remark = caught.value.remark
    assert remark.rule.id == "PDCC102" and (remark.location.line, remark.location.column) == (9, column)
    assert f"names '{name}', a {what} of 'walk'" in remark.message


def test_a_consumer_configured_by_file_scope_names_compiles(tmp_path):
    # `cfg::c` and `kSizes.n` are not the kernel's `c` and `n`.
    code = "namespace cfg { constexpr int c = 64; }\nstruct Sizes { int n; };\n__constant__ Sizes kSizes;\n" + \
        WALK.replace("PRAGMA", "consldt(grid) threads(cfg::c * 2) blocks(kSizes.n)").replace("AFTER", "")
    result = run(code)
    assert remarks(result, "PDCC570")
    assert_compiles(result.text, tmp_path)


def test_threads_on_a_launch_of_another_kernel_is_still_not_supported():
    code = ("__global__ void child(int* x) { x[threadIdx.x] = 1; }\n"
            "__global__ void parent(int* x) {\n#pragma dp consldt(block) threads(64)\n  child<<<1, 32>>>(x);\n}\n")
    result = run(code)
    assert [r.args["clause"] for r in remarks(result, "PDCC600")] == ["threads"]
    assert remarks(result, "PDCC560") and not remarks(result, "PDCC570")  # aggregation's, as before


@pytest.mark.parametrize("launch, per_item", [("walk<<<1, 1>>>", "a thread per item"),
                                              ("walk<<<1, 32>>>", "packed (several items per block; only"),
                                              ("walk<<<(n + 127) / 128, 128>>>", "packed (several items per block; only")])
def test_items_of_one_thread_run_a_thread_per_item(launch: str, per_item: str):
    result = walk(**{"walk<<<(n_+_127)_/_128,_128>>>": launch})
    assert per_item in remarks(result, "PDCC570")[0].message
    assert ("PDCC_BUFFER_walk_0, true> pdcc_queue_walk;" in result.text) == (per_item == "a thread per item")
    assert ("PDCC_BUFFER_walk_0, false, false, true> pdcc_queue_walk;" in result.text) == ("packed" in per_item)


def test_arguments_passed_on_unchanged_travel_once():
    """`depth` is written through (`depth[c] = ...`), never given another value: it is not in the items."""
    result = walk()
    assert "pdcc::Record<pdcc::Uniform, pdcc::Uniform, pdcc::Uniform, int>" in result.text
    reassigned = walk(after="depth = nullptr;")  # after the launch: it stores, reads nothing
    assert "pdcc::Record<pdcc::Uniform, pdcc::Uniform, int*, int>" in reassigned.text


@pytest.mark.parametrize("body, varying", [
    ("atomicAdd(depth, 1);", []),                      # an atomic takes the pointer by value
    ("bump(depth);", []),                              # so does a function of the file without a reference
    ("swap_in(depth);", ["depth"]),                    # a reference parameter may rebind it
    ("util::bump_in(depth);", []),                     # qualified and template calls are resolved too
    ("bump_as(depth);", []),                           # (a deduced template parameter: by value)
    ("bump_as<int*&>(depth);", ["depth"]),             # explicit template arguments may make it a reference
    ("thrust::swap(depth, depth);", ["depth"]),        # no function of the file has that namespace
    ("unknown(depth);", ["depth"]),                    # a function pdcc cannot read may take a reference
    ("int* d = depth; d[0] = 1;", []),
    ("{ int* depth = nullptr; (void)depth; }", ["depth"]),  # a local of the same name: conservative
])
def test_what_may_rebind_a_parameter(body: str, varying: list[str]):
    helpers = "__device__ void bump(int* p) { ++*p; }\n__device__ void swap_in(int*& p) { p = nullptr; }\n" \
              "namespace util { __device__ void bump_in(int* p) { ++*p; } }\n" \
              "template <typename T> __device__ void bump_as(T p) { ++*p; }\n" \
              "struct P { __device__ static void swap(int* a, int* b) {} };\n"
    code = helpers + WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "").replace(
        "  int first", f"  {body}\n  int first")
    applied = remarks(run(code), "PDCC570")[0]
    assert applied.args["varying_arguments"] == varying + ["node"]


@pytest.mark.parametrize("helper, varying", [
    ("__device__ inline void bump(int* p) { ++*p; }", []),
    ("__device__ inline void bump(int*& p) { p = nullptr; }", ["depth"]),
    ("__device__ inline void bump(int* p) { ++*p; }\n__device__ inline void bump(int*& p, int n) { p += n; }",
     ["depth"]),  # overloads: pdcc does not choose between them
])
def test_a_header_function_that_takes_a_pointer_by_value_leaves_it_out_of_the_items(tmp_path: Path, helper: str,
                                                                                    varying: list[str]):
    (tmp_path / "bump.cuh").write_text(f"namespace util {{ {helper} }}\n")
    code = '#include "bump.cuh"\n' + WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "").replace(
        "  int first", "  util::bump(depth);\n  int first")
    (tmp_path / "w.cu").write_text(code)
    applied = remarks(transform_path(str(tmp_path / "w.cu")), "PDCC570")[0]
    assert applied.args["varying_arguments"] == varying + ["node"]


def test_work_names_force_an_argument_into_the_item_and_an_unused_name_is_reported():
    result = walk("consldt(block) work(child_ptr, missing)")
    assert remarks(result, "PDCC570")[0].args["varying_arguments"] == ["child_ptr", "node"]
    (unused,) = remarks(result, "PDCC574")
    assert unused.args["clause"] == "work(missing)" and "no argument of the launch mentions 'missing'" in unused.message


@pytest.mark.parametrize("after, name, line, column", [
    ("int d = depth[node];", "depth", 12, 3),
    ("if (i == 0) { depth[node] += 1; }", "depth", 12, 17),
])
def test_post_work_is_missed_at_the_statement_and_the_launch_stays(after: str, name: str, line: int, column: int):
    result = walk(after=after)
    (missed,) = remarks(result, "PDCC572")
    assert missed.kind.value == "missed" and missed.args["name"] == name and missed.args["launch_line"] == 10
    assert (missed.location.line, missed.location.column) == (line, column)
    assert "walk<<<(n + 127) / 128, 128>>>(child_ptr, children, depth, c);" in result.text
    assert "pdcc_queue" not in result.text


@pytest.mark.parametrize("code, name, line", [
    # the child writes its `a`, which this launch fills with the parent's `b`
    ("__global__ void flip(int* a, int* b, int* out, int n) {\n  a[n] = n;\n  if (n > 0) {\n#pragma dp consldt(block)\n"
     "    flip<<<1, 1>>>(b, a, out, n - 1);\n    out[n] = b[n - 1];\n  }\n}\n", "b", 6),
    # a pointer made from what the grids write, read after the launch
    ("__global__ void walk(int* depth, int* out, int node, int n) {\n  const int* d = depth + 1;\n  depth[node] = n;\n"
     "  if (n > 0) {\n#pragma dp consldt(warp)\n    walk<<<1, 1>>>(depth, out, node + 1, n - 1);\n"
     "    out[node] = d[node];\n  }\n}\n", "d", 7)])
def test_post_work_is_found_through_the_arguments_and_the_parents_aliases(code: str, name: str, line: int):
    (missed,) = remarks(run(code), "PDCC572")
    assert missed.args["name"] == name and missed.location.line == line
    assigned = code.replace("const int* d = depth + 1;", "auto d = depth;\n  int* e;\n  e = d;").replace("d[node]", "e[node]")
    if assigned != code:   # the same through `auto` and an assignment
        assert remarks(run(assigned), "PDCC572")[0].args["name"] == "e"


def test_an_offset_the_launch_adds_to_an_address_is_not_what_the_grids_write():
    code = ("__global__ void qs(int* data, int lo, int n, int d) {\n  data[lo] = d;\n  int left = n / 2;\n"
            "  if (n > 1) {\n#pragma dp consldt(block)\n    qs<<<1, 32>>>(data + left, 0, n - left, d + 1);\n"
            "    int start = left + 1;\n    data[0] = start;\n  }\n}\n")
    result = run(code)
    assert remarks(result, "PDCC570") and not remarks(result, "PDCC572"), result.remarks


@pytest.mark.parametrize("after", ["depth[node] = 7;",              # a store after the launch reads nothing
                                   "int m = child_ptr[node];",      # the kernel never writes child_ptr
                                   "// nothing"])
def test_statements_after_the_launch_that_read_nothing_the_grids_write_are_fine(after: str):
    assert remarks(walk(after=after), "PDCC570")


def test_in_a_loop_what_comes_before_the_launch_runs_after_it_too():
    code = """\
        __global__ void visit(int* seen, const int* next, int node) {
          for (int k = 0; k < 2; ++k) {
            int s = seen[node + k];
            if (s == 0) {
              #pragma dp consldt(warp)
              visit<<<1, 1>>>(seen, next, next[node] + k);
            }
            seen[node] = 1;
          }
        }
        """
    (missed,) = remarks(run(code), "PDCC572")
    assert (missed.location.line, missed.args["name"]) == (3, "seen")


def test_an_else_branch_is_not_after_the_launch():
    code = """\
        __global__ void tri(int* out, int n) {
          if (n > 1) {
            #pragma dp consldt(grid)
            tri<<<1, 1>>>(out, n - 1);
          } else {
            out[0] += out[1];
          }
        }
        """
    assert remarks(run(code), "PDCC570")


def test_a_self_launch_without_a_base_case_is_refused():
    code = "__global__ void spin(int* x, int n) {\n  x[0] = n;\n#pragma dp consldt(block)\n  spin<<<1, 1>>>(x, n + 1);\n}\n"
    (missed,) = [r for r in run(code).remarks if r.kind.value == "missed"]
    assert missed.rule.id == "PDCC514" and "without a base case" in missed.message and "consolidation" in missed.message


def test_a_return_before_the_launch_is_a_base_case():
    code = ("__global__ void down(int* x, int n) {\n  if (n == 0) return;\n  x[n] = 1;\n"
            "#pragma dp consldt(block)\n  down<<<1, 1>>>(x, n - 1);\n}\n")
    assert remarks(run(code), "PDCC570")


def test_a_pragma_between_if_and_its_launch_keeps_the_launch_conditional():
    code = ("__global__ void down(int* x, int n) {\n  x[n] = 1;\n  if (n > 0)\n#pragma dp consldt(block)\n"
            "    down<<<1, 1>>>(x, n - 1);\n}\n")
    assert remarks(run(code), "PDCC570")


@pytest.mark.parametrize("body", ["__shared__ int tile[4]; tile[0] = 1;", "i = __shfl_sync(0xffffffffu, i, 0);"])
def test_children_whose_threads_cooperate_run_block_by_block_as_launched(body: str):
    """Shared memory and warp intrinsics see the same threads when the consumer's blocks have the items'
    block size and run each item's blocks in turn: the queue says so, and there is no threads knob."""
    result = walk(**{"int_first": f"{body}\n  int first"})
    (applied,) = remarks(result, "PDCC570")
    assert "run block by block, as launched, by a consumer of 128 threads per block" in applied.message
    assert "PDCC_BUFFER_walk_0, false, true> pdcc_queue_walk;" in result.text
    assert "pdcc_queue_walk.next_level(pdcc_level, 128, PDCC_BLOCKS_walk_0," in result.text
    assert "PDCC_THREADS_walk_0" not in result.text
    assert not [r for r in result.remarks if r.kind.value == "missed"]


def test_the_buffer_of_items_run_as_launched_counts_their_blocks():
    result = walk("consldt(block) buffer(default, 4)", int_first="__shared__ int tile[4]; tile[0] = 1;\n  int first")
    (storage,) = remarks(result, "PDCC571")
    assert "PDCC_BUFFER_walk_0 (= 4) item blocks (an item takes one per block of its grid) per block" in storage.message
    assert "(= 4) items per block" in remarks(walk("consldt(block) buffer(default, 4)"), "PDCC571")[0].message


@pytest.mark.parametrize("replacements, reason", [
    # a barrier after a return some threads take: looping over blocks, the others would wait for them
    ({"int_first": "__syncthreads();\n  int first"}, "the return at line 5 may be taken by some threads of a block"),
    # the same barrier, no early return, but a block size computed per launch
    ({"int_first": "__syncthreads();\n  int first", "if (i >= child_ptr[node + 1] - first) return;": "",
      "128>>>": "n>>>"}, "the same one-dimensional block size"),
])
def test_children_that_synchronise_run_as_launched_only_when_they_can(replacements: dict, reason: str):
    code = WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "")
    for old, new in replacements.items():
        code = code.replace(old.replace("_", " ") if old == "int_first" else old, new)
    result = run(code)
    (missed,) = [r for r in result.remarks if r.kind.value == "missed"]
    assert missed.rule.id == "PDCC510" and reason in missed.message, missed.message
    assert "pdcc_queue" not in result.text


@pytest.mark.parametrize("flag, runs_as_launched", [("__shared__ bool last;", True), ("bool last = false;", False)])
def test_the_last_block_pattern_returns_uniformly_through_a_shared_flag(flag: str, runs_as_launched: bool, tmp_path):
    """`if (threadIdx.x == 0) last = atomicAdd(...) == gridDim.x - 1; __syncthreads(); if (!last) return;`:
    thread 0 decides, but a __shared__ scalar reads the same in every thread of the block, so the return is
    taken by whole blocks and the barriers' blocks run as launched. A local the same thread sets is not."""
    code = WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "").replace(
        "  int i = blockIdx.x", f"  {flag}\n  __syncthreads();\n  if (threadIdx.x == 0) last = atomicAdd(depth, 1) "
        "== gridDim.x - 1;\n  __syncthreads();\n  if (!last) return;\n  int i = blockIdx.x").replace(
        "  if (i >= child_ptr[node + 1] - first) return;\n", "")
    result = run(code)
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    if runs_as_launched:
        assert remarks(result, "PDCC570") and not missed, [r.message for r in missed]
        assert "as launched" in remarks(result, "PDCC570")[0].message
        assert_compiles(result.text, tmp_path)
    else:
        assert [r.rule.id for r in missed] == ["PDCC510"]
        assert "the return at line 6 may be taken by some threads of a block" in missed[0].message


@pytest.mark.parametrize("head", [
    # an early-exit flag: written by an atomic and read through a volatile cast, or a volatile pointer to it
    "__shared__ int found;\n  if (threadIdx.x == 0) found = 0;\n  __syncthreads();\n  for (int k = 0; k < 8; ++k) {\n"
    "    if (*(volatile int*)&(found)) return;\n    if (children[k * 128 + threadIdx.x] == node) atomicExch(&found, 1);\n  }",
    "__shared__ int found;\n  volatile int* seen = &found;\n  if (threadIdx.x == 0) found = 0;\n  __syncthreads();\n"
    "  for (int k = 0; k < 8; ++k) {\n    if (*seen) return;\n    if (children[k * 128 + threadIdx.x] == node) "
    "atomicOr(&found, 1);\n  }",
    # the same flag written and read in a loop without a barrier
    "__shared__ int found;\n  if (threadIdx.x == 0) found = 0;\n  __syncthreads();\n  for (int k = 0; k < 8; ++k) {\n"
    "    if (found) return;\n    if (children[k * 128 + threadIdx.x] == node) found = 1;\n  }",
    # a uniform flag, but only the threads that did not `continue` reach the return
    "__shared__ int stop;\n  if (threadIdx.x == 0) stop = depth[node] > 4;\n  __syncthreads();\n"
    "  for (int k = 0; k < 1; ++k) {\n    if (threadIdx.x >= child_ptr[node + 1] - child_ptr[node]) continue;\n"
    "    if (stop) return;\n  }",
    # a parameter that a __shared__ of an inner scope shadows keeps its per-thread value
    "{ __shared__ int node; if (threadIdx.x == 0) node = 1; __syncthreads(); depth[0] += node; }\n"
    "  node = node + threadIdx.x;\n  if (node > 100) return;",
])
def test_returns_some_threads_of_a_block_may_take_are_refused(head: str):
    """Found by review: a __shared__ flag is block-uniform only where no thread reads it as others write it,
    and a return after a divergent `continue` is not reached by every thread."""
    code = WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "").replace(
        "  int i = blockIdx.x", f"  {head}\n  __syncthreads();\n  int i = blockIdx.x").replace(
        "  if (i >= child_ptr[node + 1] - first) return;\n", "")
    result = run(code)
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"], [r.message for r in result.remarks]
    assert "may be taken by some threads of a block" in missed[0].message
    assert "pdcc_queue" not in result.text


def test_a_barrier_under_a_uniform_return_runs_as_launched_and_its_threshold_is_missed():
    """A return every thread of a block takes together (it depends on the node, not the thread) leaves no
    barrier waiting; a threshold would run an item's threads one after another in one thread, which its
    barriers forbid: missed, the consolidation stays."""
    code = WALK.replace("PRAGMA", "threshold(64) consldt(block) threads(256)").replace("AFTER", "").replace(
        "  int i = blockIdx.x", "  if (child_ptr[node] < 0) return;\n  __syncthreads();\n  int i = blockIdx.x").replace(
        "  if (i >= child_ptr[node + 1] - first) return;\n", "")
    result = run(code)
    assert remarks(result, "PDCC570") and "walk__pdcc_serial" not in result.text
    (threshold,) = [r for r in result.remarks if r.kind.value == "missed"]
    assert (threshold.rule.id, threshold.pass_name, threshold.location.column) == ("PDCC510", "threshold", 16)
    assert threshold.message.endswith(
        "no launch runs in the launching thread (the site's other clauses are applied or missed on their own)")
    (threads,) = remarks(result, "PDCC574")
    assert "the consumer's blocks have the items' own block size (128)" in threads.message


def test_a_kernel_another_kernel_launches_is_not_consolidated():
    code = WALK.replace("PRAGMA", "consldt(block)").replace("AFTER", "") + \
        "__global__ void root(const int* p, const int* c, int* d) {\n  walk<<<1, 8>>>(p, c, d, 0);\n}\n"
    (missed,) = remarks(run(code), "PDCC573")
    assert "'root' launches 'walk' too (line 15)" in missed.message


def test_a_recursion_is_consolidated_whole_or_not_at_all():
    code = ("__global__ void two(int* x, int n) {\n  if (n <= 0) return;\n#pragma dp consldt(block)\n"
            "  two<<<1, 1>>>(x, n - 1);\n#pragma dp threshold(8)\n  two<<<1, 1>>>(x, n - 2);\n}\n")
    result = run(code)
    (missed,) = remarks(result, "PDCC573")
    assert "the launch of 'two' at line 6 has no consldt(...)" in missed.message
    assert "pdcc_queue" not in result.text


def test_when_one_site_of_a_recursion_is_refused_the_others_say_so():
    code = ("__global__ void two(int* x, int n) {\n  if (n <= 0) return;\n#pragma dp consldt(block)\n"
            "  two<<<1, 1>>>(x, n - 1);\n#pragma dp consldt(block)\n  two<<<1, 1, 0, 0>>>(x, n - 2);\n}\n")
    result = run(code)
    assert [(r.rule.id, r.site) for r in result.remarks if r.kind.value == "missed"] == [
        ("PDCC573", "two_0"), ("PDCC517", "two_1")]
    assert "the launch of 'two' at line 6 cannot be" in result.remarks[0].message


def test_a_launch_the_driver_leaves_as_written_keeps_the_whole_recursion_as_written():
    code = ("__global__ void two(int* x, int n) {\n  if (n <= 0) return;\n#pragma dp consldt(block)\n"
            "  two<<<1, 1>>>(x, n - 1);\n#pragma dp consldt(block)\n  two<<<1>>>(x, n - 2);\n}\n")
    result = run(code)
    assert [(r.rule.id, r.site) for r in result.remarks if r.kind.value == "missed"] == [
        ("PDCC573", "two_0"), ("PDCC523", "two_1")]
    assert "pdcc_queue" not in result.text


def test_a_template_kernel_is_not_consolidated_yet():
    code = ("template <typename T>\n__global__ void down(T* x, int n) {\n  if (n == 0) return;\n"
            "#pragma dp consldt(block)\n  down<T><<<1, 1>>>(x, n - 1);\n}\n")
    (missed,) = [r for r in run(code).remarks if r.kind.value == "missed"]
    assert missed.rule.id == "PDCC517" and "is a template" in missed.message


def test_multiblock_is_not_a_consolidation_granularity():
    (missed,) = [r for r in walk("consldt(multiblock(4))").remarks if r.kind.value == "missed"]
    assert missed.rule.id == "PDCC600" and "consolidation per multiblock" in missed.message


def test_agg_threshold_is_reported_and_the_rest_applies():
    result = walk("consldt(block) agg_threshold(4)")
    assert remarks(result, "PDCC570") and remarks(result, "PDCC600")[0].args["clause"] == "agg_threshold"


def test_two_launches_share_one_queue_configured_by_the_first():
    code = """\
        __global__ void split(float* data, int lo, int hi) {
          if (hi - lo < 2) return;
          int p = lo + (hi - lo) / 2;
          #pragma dp consldt(warp) threads(128)
          split<<<1, 1>>>(data, lo, p);
          #pragma dp consldt(warp) threads(64)
          split<<<1, 1>>>(data, p, hi);
        }
        """
    result = run(code)
    assert [r.site for r in remarks(result, "PDCC570")] == ["split_0", "split_1"]
    assert "shares the queue and consumer of site split_0" in remarks(result, "PDCC570")[1].message
    (unused,) = remarks(result, "PDCC574")
    assert unused.site == "split_1" and unused.args["clause"] == "threads"
    assert [k.macro for k in result.knobs] == ["PDCC_POOL_BYTES_split_0", "PDCC_BUFFER_split_0", "PDCC_THREADS_split_0",
                                               "PDCC_BLOCKS_split_0"]
    assert result.text.count("pdcc_queue_split.append(pdcc_level, split__pdcc_direct") == 2  # in the consumer's copy


@pytest.mark.parametrize("auto, granularity, threshold", [
    ("consldt(block)", "block", False), ("consldt(warp)", "warp", False),
    ("threshold(128)", "block", True),               # pdcc's default --auto: consolidation added, the threshold kept
    ("threshold(64) consldt(multiblock(8))", "block", True),  # an aggregation granularity gives way to block
])
def test_auto_consolidates_a_self_launch(auto: str, granularity: str, threshold: bool):
    """issue 11 item 6: --auto treats a launch of a kernel by itself with the default consolidation clauses."""
    code = ("__global__ void down(int* x, int n) {\n  if (n == 0) return;\n  down<<<1, 1>>>(x, n - 1);\n}\n"
            "void up(int* x, int n) {\n  down<<<1, 32>>>(x, n);\n}\n")
    result = run(code, auto=auto)
    (applied,) = remarks(result, "PDCC570")
    assert applied.args["granularity"] == granularity and bool(remarks(result, "PDCC500")) == threshold
    assert not [r for r in result.remarks if r.kind.value == "missed"]


@pytest.mark.nvcc
@pytest.mark.parametrize("head", ["__global__ void __launch_bounds__(256) down", "static __global__ void down",
                                  'extern "C" __global__ void down'])
def test_the_kernel_keeps_its_bounds_linkage_and_storage(head: str, tmp_path: Path):
    code = f"{head}(int* x, int n) {{\n  if (n == 0) return;\n  x[n] = n;\n#pragma dp consldt(block)\n" \
           "  down<<<1, 1>>>(x, n - 1);\n}\n"
    result = run(code)
    assert remarks(result, "PDCC570")
    wrapper = head.replace("__global__ void", "__global__ void __launch_bounds__(1024)") if "bounds" not in head \
        else head
    assert f"{wrapper}(int* x, int n)\n{{" in result.text
    assert_compiles(result.text, tmp_path, "d.cu")


def test_a_threshold_runs_small_items_in_the_launching_thread_through_a_leaf_copy():
    """issue 11 item 6: threshold composes with consolidation; before, the threshold was missed (PDCC514)."""
    result = walk("threshold(64) consldt(block) work(c)")
    assert not [r for r in result.remarks if r.kind.value == "missed"]
    (applied,) = remarks(result, "PDCC500")
    assert applied.args["serial_function"] == "walk__pdcc_serial" and remarks(result, "PDCC570")
    text = result.text
    # level 0 and the consumer's items: an item below the threshold runs here, at the level of the site
    assert text.count("walk__pdcc_serial(pdcc_queue_walk.first_level(), pdcc_grid, pdcc_block, child_ptr, children, "
                      "depth, c);") == 1
    assert text.count("walk__pdcc_serial(pdcc_level, pdcc_grid, pdcc_block, child_ptr, children, depth, c);") == 1
    # every (block, thread) of a small item through the leaf, whose own launches are appended: no nesting
    serial = text[text.index("void walk__pdcc_serial(const pdcc::Level", text.index("walk__pdcc_leaf(const")):]
    serial = serial[:serial.index("\n}\n")]
    assert "walk__pdcc_leaf(pdcc_level, make_uint3(pdcc_bx, pdcc_by, pdcc_bz)" in serial and "__pdcc_item" not in serial
    leaf = text[text.index("static __device__ void walk__pdcc_leaf("):]
    leaf = leaf[:leaf.index("// pdcc: every thread of a small item of 'walk'")]
    assert "walk__pdcc_serial" not in leaf and "PDCC_THRESHOLD" not in leaf
    assert "// pdcc: site walk_0: consolidated per block (in a small item run here: appended whatever its size)" in leaf
    assert "pdcc_queue_walk.append_packed(pdcc_level, walk__pdcc_direct, walk__pdcc_live, pdcc_grid, pdcc_block" in leaf
    assert text.index("walk__pdcc_leaf(const") < text.index("walk__pdcc_serial(const pdcc::Level pdcc_level, const "
                                                             "dim3 pdcc_gridDim, const dim3 pdcc_blockDim, const int* "
                                                             "child_ptr, const int* children, int* depth, int node)\n")


def test_a_threshold_on_a_recursion_that_is_not_consolidated_is_still_missed():
    result = walk("threshold(64) consldt(block)", after="x = depth[c];")
    assert "PDCC514" in {r.rule.id for r in result.remarks if r.kind.value == "missed"}
    assert "walk__pdcc_serial" not in result.text and "walk<<<" in result.text


def test_a_threshold_on_a_sleeping_recursion_runs_no_item_in_the_launching_thread():
    """PDCC525: a lane running a small item serially beside lanes whose items go past the buffer (launched) would
    hang at the child's __nanosleep; the consolidation stays, the threshold is missed."""
    for sleeps in ({"depth[c] = depth[node] + 1;": "depth[c] = depth[node] + 1;\n  __nanosleep(8);"},  # before
                   {"after": "__nanosleep(8);"}):                                                       # after
        result = walk("threshold(64) consldt(block)", **sleeps)
        assert remarks(result, "PDCC570") and "walk__pdcc_serial" not in result.text
        assert [(r.rule.id, r.pass_name) for r in result.remarks if r.kind.value == "missed"] == \
            [("PDCC525", "threshold")]


def test_a_recursion_whose_kernel_waits_for_another_thread_is_not_consolidated():
    """PDCC526: a consumer runs several items one after another; an item waiting for a later one never ends."""
    result = walk("consldt(block)", **{"depth[c] = depth[node] + 1;":
                                       "while (atomicAdd(&depth[node], 0) < 0) {}\n  depth[c] = depth[node] + 1;"})
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC526"] and "waits in a loop for another thread" in missed[0].message
    assert not remarks(result, "PDCC570") and "walk<<<(n + 127) / 128, 128>>>" in result.text


@pytest.mark.nvcc
def test_threshold_with_consolidation_compiles(tmp_path: Path):
    for granularity in ("warp", "block", "grid"):
        result = walk(f"threshold(32) consldt({granularity})")
        assert_compiles(result.text, tmp_path, name=f"walk_{granularity}.cu")


# ---- mutual recursion: kernels that launch one another ------------------------------------------------------

PING_PONG = """\
__global__ void pong(int* x, int n, float w);
__global__ void ping(int* x, int n) {
  x[n] += 1;
  PING_GUARD
#pragma dp consldt(block)
  pong<<<1, 32>>>(x, n - 1, 0.5f);
}
__global__ void pong(int* x, int n, float w) {
  x[n] += 2;
  PONG_GUARD
#pragma dp consldt(block)
  ping<<<1, 1>>>(x, n - 1);
  PONG_AFTER
}
"""


def ping_pong(ping_guard: str = "if (n <= 0) return;", pong_guard: str = "if (n <= 0) return;", after: str = "",
              extra: str = ""):
    return run(PING_PONG.replace("PING_GUARD", ping_guard).replace("PONG_GUARD", pong_guard)
               .replace("PONG_AFTER", after) + extra)


def test_kernels_that_launch_each_other_are_consolidated_together():
    result = ping_pong()
    applied = remarks(result, "PDCC570")
    assert [(r.site, r.args["kernel"], r.args["launcher"]) for r in applied] == [("ping_0", "pong", "'ping'"),
                                                                                 ("pong_0", "ping", "'pong'")]
    assert "a mutual recursion of 'ping' and 'pong'" in applied[1].message
    assert "a block per item" in applied[0].message and "a thread per item" in applied[1].message
    (storage,) = remarks(result, "PDCC571")
    assert "work queue of each of 'ping' and 'pong'" in storage.message
    assert "two runs of it must not overlap" in storage.message
    text = result.text
    # One queue per kernel, each with its own record (pong's has the float); one consumer runs both.
    assert "pdcc::Record<int*, int>, PDCC_POOL_BYTES_ping_0, pdcc::kBlockGroups, PDCC_BUFFER_ping_0, true> pdcc_queue_ping" in text
    assert "pdcc::Record<int*, int, float>, PDCC_POOL_BYTES_ping_0, pdcc::kBlockGroups, PDCC_BUFFER_ping_0, false> pdcc_queue_pong" in text
    assert "pdcc_queue_pong.append(pdcc_level, pong__pdcc_direct, pdcc_grid, pdcc_block, x, n - 1, 0.5f);" in text
    assert "pdcc_queue_ping.append(pdcc_level, ping__pdcc_direct, pdcc_grid, pdcc_block, x, n - 1);" in text
    consumer = text[text.index("void __launch_bounds__(1024) ping__pdcc_level(pdcc::Level pdcc_level)\n{"):]
    assert consumer.splitlines()[3:6] == [
        "    pdcc_queue_ping.run_level(pdcc_level, ping__pdcc_item);",
        "    pdcc_queue_pong.run_level(pdcc_level, pong__pdcc_item);",
        "    if (!pdcc_queue_ping.next_level(pdcc_level, PDCC_THREADS_ping_0, PDCC_BLOCKS_ping_0, "
        "pdcc::level_launch(ping__pdcc_level), pdcc_queue_pong)) return;"]
    assert "pong__pdcc_level" not in text  # no second consumer
    assert not [r for r in result.remarks if r.kind.value == "missed"]


@pytest.mark.nvcc
def test_a_mutual_recursion_compiles_with_and_without_a_threshold(tmp_path: Path):
    for pragma in ("consldt(block)", "threshold(8) consldt(warp)"):
        result = run(PING_PONG.replace("PING_GUARD", "if (n <= 0) return;").replace("PONG_GUARD", "if (n <= 0) return;")
                     .replace("PONG_AFTER", "").replace("consldt(block)", pragma))
        assert len(remarks(result, "PDCC570")) == 2, result.remarks
        assert_compiles(result.text, tmp_path)


def test_a_cycle_of_launches_without_a_condition_is_refused_and_one_condition_is_enough():
    endless = ping_pong(ping_guard="", pong_guard="")
    missed = [r for r in endless.remarks if r.kind.value == "missed"]
    assert [(r.rule.id, r.site) for r in missed] == [("PDCC514", "ping_0"), ("PDCC514", "pong_0")], missed
    assert "'ping' launches 'pong', which launches it back the same way, at line 6 on every path" in missed[0].message
    assert "pdcc_queue" not in endless.text
    assert len(remarks(ping_pong(ping_guard=""), "PDCC570")) == 2  # pong's guard ends every cycle


@pytest.mark.parametrize("body, endless", [
    ("do {\n#pragma dp consldt(block)\n  tri<<<1, 32>>>(x, n - 1);\n} while (0);", True),  # runs once at least
    ("do {\n  if (n > 3) break;\n#pragma dp consldt(block)\n  tri<<<1, 32>>>(x, n - 1);\n} while (0);", False),
    ("while (n > 0) {\n#pragma dp consldt(block)\n  tri<<<1, 32>>>(x, n - 1);\n  break;\n}", False)])
def test_a_launch_in_a_do_while_body_is_made_on_every_path_unless_the_body_can_leave_first(body, endless):
    result = run(f"__global__ void tri(int* x, int n) {{\n  x[threadIdx.x] += n;\n{body}\n}}\n")
    refused = [r for r in result.remarks if r.rule.id == "PDCC514" and "without a base case" in r.message]
    assert bool(refused) == endless and bool(remarks(result, "PDCC570")) != endless, result.remarks


def test_a_mutual_recursion_launched_from_elsewhere_in_device_code_is_refused_whole():
    result = ping_pong(extra="__global__ void start(int* x) {\n  pong<<<1, 32>>>(x, 9, 1.0f);\n}\n")
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC573", "PDCC573"]
    assert "'start' launches 'pong' too (line 16)" in missed[0].message
    assert "pdcc_queue" not in result.text


def test_post_work_in_one_kernel_of_a_mutual_recursion_stops_both():
    result = ping_pong(after="int seen = x[n - 1];")
    (post,) = remarks(result, "PDCC572")
    assert post.args["name"] == "x" and post.location.line == 13
    assert remarks(result, "PDCC573") and not remarks(result, "PDCC570")


def test_a_launch_one_way_only_is_no_recursion():
    """ping launches pong under consldt, pong never launches ping: that is aggregation's, not consolidation's."""
    result = run("__global__ void pong(int* x, int n) { x[n] = 1; }\n__global__ void ping(int* x, int n) {\n"
                 "#pragma dp consldt(block)\n  pong<<<1, 32>>>(x, n);\n}\n")
    assert remarks(result, "PDCC560") and not remarks(result, "PDCC570")


@pytest.mark.nvcc
@pytest.mark.parametrize("floats, links", [(12288, True), (12289, False)])
def test_pdcc_adds_no_shared_memory_to_a_consolidated_kernel(floats: int, links: bool, tmp_path: Path):
    """48 KiB of static __shared__ is the most a kernel may declare, checked when the device code links:
    pdcc's consumer, direct kernel and wrapper add none of their own (the consumer's blocks learn whether
    they go on through a barrier, not shared memory), so a kernel at the limit still links, and one past it
    does not (the check is real)."""
    code = ("constexpr int kTile = 128;\n__global__ void tiles(float* data, int n) {\n"
            f"  __shared__ float tile[{floats}];\n  tile[threadIdx.x] = data[threadIdx.x];\n  __syncthreads();\n"
            "  data[threadIdx.x] = tile[kTile - 1 - threadIdx.x];\n  if (n > kTile) {\n#pragma dp consldt(block)\n"
            "    tiles<<<1, kTile>>>(data + kTile, n - kTile);\n  }\n}\n"
            "int main() { tiles<<<1, kTile>>>(nullptr, 0); return 0; }\n")
    result = run(code)
    assert "block by block, as launched" in remarks(result, "PDCC570")[0].message
    source = tmp_path / "t.cu"
    source.write_text(result.text)
    linked = subprocess.run(["nvcc", "-arch=sm_90", "-rdc=true", f"-I{ROOT / 'pragmadp' / 'runtime'}", str(source),
                             "-o", str(tmp_path / "t"), "-lcudadevrt"], capture_output=True, text=True)
    assert (linked.returncode == 0) == links, linked.stderr
    if not links:
        assert "uses too much shared data" in linked.stderr



# --- items run packed: only the threads before the child's guard (analysis/thread_guard.item_guard) --------

GUARDED = """\
__global__ void walk(const int* child_ptr, int* depth, int node) {
  OPENING
  depth[node] += 1;
  int n = child_ptr[node + 1] - child_ptr[node];
  if (n > 0) {
    #pragma dp consldt(block)
    walk<<<CONFIG>>>(child_ptr, depth, node + 1);
  }
}
"""
_INDEX = "int i = blockIdx.x * blockDim.x + threadIdx.x;"


def guarded(opening: str, config: str = "(n + 127) / 128, 128"):
    return run("__device__ int load(const int* p) { return *p; }\n__device__ int global_node;\n" +
               GUARDED.replace("OPENING", opening).replace("CONFIG", config))


_GUARDED_OPENINGS = [
    (f"{_INDEX}\n  int first = child_ptr[node];\n  if (i >= child_ptr[node + 1] - first) return;",
     "int first = child_ptr[node];\n  const auto pdcc_bound = child_ptr[node + 1] - first;\n"
     "  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](int i) { return i >= pdcc_bound; });"),
    ("const unsigned i = threadIdx.x + blockDim.x * blockIdx.x; const auto first = child_ptr[node], last = "
     "child_ptr[node + 1];\n  if ((last - first) <= i) { return; }",
     "const auto pdcc_bound = last - first;\n"
     "  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](unsigned i) { return (pdcc_bound) <= i; });"),
    ("long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= (long long)child_ptr[node + 1] - "
     "*(child_ptr + node) + sizeof(int) - 4) return;",
     "pdcc_threads = pdcc::threads_before(pdcc_threads, [&](long long i) { return i >= pdcc_bound; });"),
]


@pytest.mark.parametrize("opening, live", _GUARDED_OPENINGS)
def test_a_child_whose_guard_reads_memory_runs_only_the_threads_before_it(opening: str, live: str):
    text = guarded(opening).text
    function = text[text.index("static __device__ void walk__pdcc_live(unsigned long long& pdcc_threads, "
                               "const int* child_ptr, int* depth, int node) {"):]
    assert live in function[:function.index("\n}\n")]
    # the appends evaluate it (the consumer reads what they counted)
    assert "pdcc_queue_walk.run_level_packed(pdcc_level, walk__pdcc_item, child_ptr, depth);" in text
    assert text.count("pdcc_queue_walk.append_packed(") == 2 and text.count(", walk__pdcc_live, pdcc_grid, ") == 2


@pytest.mark.nvcc
@pytest.mark.parametrize("opening", [opening for opening, _ in _GUARDED_OPENINGS])
def test_a_packed_consumer_compiles_without_warnings(opening: str, tmp_path: Path):
    """The live function (an unsigned index against an `auto` bound of int, a cast bound) and the packed
    consumer, as nvcc compiles every output: no error and no warning."""
    source = tmp_path / "p.cu"
    source.write_text(guarded(opening).text)
    compiled = nvcc_compile(source, tmp_path)
    assert compiled.returncode == 0 and "warning" not in compiled.stderr, compiled.stderr


@pytest.mark.parametrize("opening", [
    f"{_INDEX} int first = load(child_ptr + node); if (i >= child_ptr[node + 1] - first) return;",  # a call
    f"{_INDEX} int first = child_ptr[node]++; if (i >= child_ptr[node + 1] - first) return;",   # a write
    f"{_INDEX} if (i >= (depth[0] = 3)) return;",
    f"{_INDEX} int first = child_ptr[node] + threadIdx.x; if (i >= first) return;",  # differs by thread
    f"{_INDEX} int j = i; if (i >= child_ptr[node]) return;",
    f"{_INDEX} int first = child_ptr[global_node]; if (i >= first) return;",  # a name not of the kernel
    f"{_INDEX} volatile int first = child_ptr[node]; if (i >= first) return;",
    f"{_INDEX} depth[0] = 1; if (i >= child_ptr[node]) return;",  # a statement before the guard
    f"{_INDEX} if (i >= child_ptr[node]) return; else depth[0] = 1;",
    f"{_INDEX} if ((unsigned)i >= child_ptr[node]) return;",  # the index cast
    f"{_INDEX} if (i > child_ptr[node]) return;",
    "int i = blockIdx.x * blockDim.x + threadIdx.y; if (i >= child_ptr[node]) return;",
])
def test_other_openings_run_every_thread_of_an_item(opening: str):
    text = guarded(opening).text
    assert "__pdcc_live" not in text
    assert "pdcc_queue_walk.run_level(pdcc_level, walk__pdcc_item, child_ptr, depth);" in text


def test_items_run_a_thread_each_or_as_launched_are_not_trimmed():
    opening = f"{_INDEX} if (i >= child_ptr[node]) return;"
    assert "__pdcc_live" not in guarded(opening, "1, 1").text
    as_launched = guarded(opening + " __shared__ int tile[4]; tile[0] = i;")
    assert "block by block" in remarks(as_launched, "PDCC570")[0].message and "__pdcc_live" not in as_launched.text


_LIVE_DRIVER = r"""
#include <cstdio>
%(threads_before)s
%(live)s
int main() {
  unsigned seed = 11;
  auto next = [&](unsigned m) { seed = seed * 1103515245u + 12345u; return (seed >> 8) %% m; };
  for (int round = 0; round < 3000; ++round) {
    BOUND lim[2];
    lim[0] = (BOUND)(next(8));
    lim[1] = lim[0] + (BOUND)((long long)next(330) - 30) + (BOUND)(next(2) ? 0.5 : 0.0);
    unsigned long long threads = next(5) == 0 ? 0ull : 1ull + next(300), live = threads;
    walk__pdcc_live(live, lim, 1, nullptr);
    for (unsigned long long t = 0; t < threads; ++t) {
      INDEX i = (INDEX)t;
      const BOUND base = lim[0];
      if ((TEST) != (t >= live)) {
        std::printf("round %%d: %%llu threads, bound %%g: the live ones end at %%llu, thread %%llu differs\n", round,
                    threads, (double)(lim[1] - lim[0]), live, t);
        return 1;
      }
    }
  }
  std::printf("same\n");
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("index, bound, test", [("int", "int", "i >= lim[node] - base"),
                                                ("unsigned", "int", "i >= lim[node] - base"),
                                                ("int", "unsigned", "lim[node] - base <= i"),
                                                ("long long", "float", "i >= lim[node] - base"),
                                                ("size_t", "long long", "(lim[node] - base) <= i"),
                                                ("int", "double", "i >= lim[node] - base")])
def test_an_items_live_threads_are_those_its_guard_lets_through(index: str, bound: str, test: str, tmp_path: Path):
    """walk__pdcc_live and pdcc::threads_before (cut from the runtime header), compiled as host C++, against
    the guard evaluated thread by thread, on random bounds and launches (negative bounds too: against an
    unsigned index they turn no thread away; fractional ones against an integer index)."""
    child = (f"__global__ void walk(const {bound}* lim, int node, int* hits) {{\n  {index} i = blockIdx.x * "
             f"blockDim.x + threadIdx.x;\n  const {bound} base = lim[0];\n  if ({test}) return;\n  hits[i] += 1;\n"
             "  if (node > 0) {\n    #pragma dp consldt(block)\n    walk<<<(node + 127) / 128, 128>>>(lim, node - 1, hits);\n"
             "  }\n}\n")
    text = run(child).text
    start = text.index("// pdcc: the threads of an item of 'walk'")
    live = re.sub(r"^#line.*$", "", text[start:text.index("\n}\n", start) + 3], flags=re.M)
    header = (ROOT / "pragmadp" / "runtime" / "pdcc_rt.cuh").read_text()
    first = header.index("template <typename TurnedAway>")
    threads_before = header[first:header.index("\n}\n", first) + 3]
    source = tmp_path / "live.cpp"
    source.write_text(f'#include "shim.h"\nnamespace pdcc {{\n{threads_before}}}\n#define INDEX {index}\n'
                      f"#define BOUND {bound}\n#define TEST {test.replace('node', '1')}\n" +
                      _LIVE_DRIVER % {"threads_before": "", "live": live})
    ran = host_build_and_run(source, tmp_path)
    assert ran.returncode == 0 and ran.stdout == "same\n", ran.stdout


def test_a_recursion_through_a_device_function_is_left_as_written_and_says_where_consldt_works():
    code = ("__global__ void walk(int* x, int n);\n__device__ void go(int* x, int n) {\n  if (n > 0) {\n"
            "#pragma dp consldt(block)\n    walk<<<1, 1>>>(x, n - 1);\n  }\n}\n"
            "__global__ void walk(int* x, int n) {\n  x[n] = 1;\n  go(x, n);\n}\n")
    result = run(code)
    (missed,) = [r for r in result.remarks if r.kind.value == "missed"]
    assert missed.rule.id == "PDCC514" and "not in device function 'go'" in missed.message
    assert "consldt at the child's launch of itself" not in missed.message and not remarks(result, "PDCC570")


HELPERS = """\
__device__ void record(int* out, int v) { out[0] = v; }
__device__ int peek(const int* out) { return out[0]; }
__device__ void count(int* n) { atomicAdd(&n[0], 1); atomicCAS(&n[1], 0, 1); }
__device__ void setref(int& x, int v) { x = v; }
__device__ void bounds(int n, int* lo, int* hi) { *lo = n / 2; *hi = n; }
struct Rec { __device__ void put(int* out, int v) { out[1] = v; } };
"""


@pytest.mark.parametrize("before, after, missed", [
    ("record(out, n);", "sink[n] = peek(out);", "out"),       # written and read, both through helpers
    ("record(out, n);", "sink[n] = out[0];", "out"),
    ("count(out);", "count(out);", None),                       # a counter: atomics whose results go unused
    ("count(out);", "atomicAdd(out, 1);", None),
    ("count(out);", "int seen = atomicAdd(out, 1); sink[n] = seen;", "out"),   # the result read: a read
    ("sink[0] = 1;", "sink[n] = peek(out);", None),             # the grids write nothing `out` points at
    ("setref(out[0], n);", "sink[n] = out[0];", "out"),         # through a reference parameter
    ("Rec r; r.put(out, n);", "sink[n] = out[1];", "out"),      # through a method
    ("int lo, hi; bounds(n, &lo, &hi);", "sink[lo] = hi;", None),   # a thread's own numbers, filled by a helper
    ("count(out);", "(void)atomicAdd(out + n, 1);", None),     # a discarded atomic, cast to void, at an offset
])
def test_post_work_is_followed_through_the_device_functions_the_kernel_calls(before: str, after: str,
                                                                            missed: str | None):
    code = HELPERS + ("__global__ void k(int* out, int* sink, int n) {\n  BEFORE\n  if (n > 0) {\n"
                      "#pragma dp consldt(block)\n    k<<<1, 1>>>(out, sink, n - 1);\n    AFTER\n  }\n}\n")
    result = run(code.replace("BEFORE", before).replace("AFTER", after))
    post = remarks(result, "PDCC572")
    assert [r.args["name"] for r in post] == ([missed] if missed else []), result.remarks
    assert bool(remarks(result, "PDCC570")) == (missed is None)
    if missed:
        assert post[0].location.line == HELPERS.count("\n") + 6   # the statement after the launch


def test_a_deep_chain_of_helpers_is_followed_once_per_function():
    """Each helper calls the next twice: followed call by call, 2^40 visits; once per function, 40."""
    chain = ["__device__ void h40(int* p) { p[0] = 1; }"]
    chain += [f"__device__ void h{i}(int* p) {{ h{i + 1}(p); h{i + 1}(p + 1); }}" for i in range(39, -1, -1)]
    code = "\n".join(chain) + ("\n__global__ void k(int* out, int* sink, int n) {\n  h0(out);\n  if (n > 0) {\n"
                               "#pragma dp consldt(block)\n    k<<<1, 1>>>(out, sink, n - 1);\n    sink[n] = out[0];\n"
                               "  }\n}\n")
    assert [r.args["name"] for r in remarks(run(code), "PDCC572")] == ["out"]
