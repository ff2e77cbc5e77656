"""The aggregate pass: which launches it takes, which arguments it passes once, what it reports."""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import ROOT, assert_compiles, nvcc_compile
from pragmadp.ir import Parameter
from pragmadp.pipeline import transform
from pragmadp.source import SourceFile
from pragmadp.ir import parameter_type
from pragmadp.transforms.site import RETRY_LIMIT_NS

CHILD = "__global__ void child(float* out, const float* in, float a, int n) { int i = threadIdx.x; if (i < n) out[i] = a * in[i]; }\n"


def run(parent_body: str, clauses: str = "consldt(block)", child: str = CHILD, parent_head: str = ""):
    code = (child + parent_head + "__global__ void parent(float* out, const float* in, float a, int n) {\n"
            + textwrap.indent(textwrap.dedent(parent_body).replace("PRAGMA", f"#pragma dp {clauses}"), "  ") + "}\n")
    return transform(SourceFile("a.cu", code.encode()))


LAUNCH = """
int m = n - threadIdx.x;
PRAGMA
child<<<(m + 31) / 32, 32>>>(out + threadIdx.x, in, a, m);
"""


def applied(result):
    return next(r for r in result.remarks if r.rule.id == "PDCC560")


@pytest.mark.parametrize("granularity", ["warp", "block", "multiblock(4)", "grid"])
def test_every_granularity_applies_and_reports_storage(granularity: str):
    result = run(LAUNCH, f"consldt({granularity})")
    assert applied(result).args["granularity"] == granularity.split("(")[0]
    storage = next(r for r in result.remarks if r.rule.id == "PDCC561")
    assert storage.args["pool_bytes"] == 64 << 20 and "a record that does not fit launches directly" in storage.message
    assert storage.args["records_per_thread"] == 1 and "#define PDCC_RECORDS_PER_THREAD_parent_0 1" in result.text
    assert "static __device__ void parent__pdcc_body(" in result.text
    assert "__global__ void __launch_bounds__(1024) parent(float* out, const float* in, float a, int n)\n{" in result.text
    assert "pdcc::aggregated_launch(child__pdcc_agg_parent_0, in, a)" in result.text


def test_arguments_the_same_for_the_whole_group_are_passed_once():
    remark = applied(run(LAUNCH))
    assert remark.args["uniform_arguments"] == ["in", "a"]
    assert remark.args["varying_arguments"] == ["out", "n"]


def test_a_parameter_the_parent_changes_is_not_uniform():
    remark = applied(run("a = a * 2.0f;\n" + LAUNCH))
    assert "a" in remark.args["varying_arguments"]


@pytest.mark.parametrize("alias", [
    "float* q = out + 1;\nq[0] = 2.0f;",           # a pointer made from `out`, written through
    "float* q;\nq = out;\n*q = 2.0f;",             # the same, assigned
    "float& r = out[2];\nr = 2.0f;",               # a reference
    "auto q = out + 1;\nq[0] = 2.0f;",             # a pointer of a type pdcc does not spell out
    "Box b{out};\nb.p[0] = 2.0f;",                 # a pointer kept in a struct
    "store(out + 3);"])                              # a pointer made from it, given to a function
def test_memory_written_through_an_alias_is_not_read_once_per_group(alias: str):
    # `out[0]` read at the group's flush could see a write the launching thread made after its launch.
    body = LAUNCH.replace("(out + threadIdx.x, in, a, m)", "(out, in, out[0], m)") + alias + "\n"
    remark = applied(run(body, child=CHILD + "__device__ void store(float* p) { *p = 1.0f; }\nstruct Box { float* p; };\n"))
    assert remark.args["varying_arguments"][:2] == ["out", "a"], remark.args


def test_numbers_and_pointers_to_const_made_from_parameters_are_no_aliases():
    body = LAUNCH + "float v = sqrtf(a * 2.0f);\nconst float* row = in + n;\nout[0] = v + row[0] + fmaxf(a + 1.0f, 0.f);\n"
    assert applied(run(body)).args["uniform_arguments"] == ["in", "a"]


def test_a_read_only_parameter_stays_uniform_beside_aliases_of_others():
    # `peek(in[1])` passes a value read through `in`, not a pointer to its memory.
    body = LAUNCH.replace("(out + threadIdx.x, in, a, m)", "(out + threadIdx.x, in, in[0], m)") + \
        "float* q = out;\n*q = peek(in[1]);\n"
    child = CHILD + "__device__ float peek(float v) { return v; }\n"
    assert applied(run(body, child=child)).args["uniform_arguments"] == ["in", "a"]


def test_block_index_is_uniform_for_a_block_not_for_several():
    body = LAUNCH.replace("(out + threadIdx.x, in, a, m)", "(out + threadIdx.x, in + blockIdx.x, a, m)")
    assert "in" in applied(run(body, "consldt(block)")).args["uniform_arguments"]
    assert "in" in applied(run(body, "consldt(multiblock(2))")).args["varying_arguments"]


def test_a_local_that_shadows_a_parameter_is_not_uniform():
    body = LAUNCH.replace("int m = n - threadIdx.x;", "int m = n - threadIdx.x;\nconst float* in = nullptr;")
    assert "in" in applied(run(body)).args["varying_arguments"]


def test_work_clause_marks_arguments_as_varying():
    remark = applied(run(LAUNCH, "consldt(block) work(a)"))
    assert "a" in remark.args["varying_arguments"]


def test_aggregation_threshold_and_record_capacity_become_macros():
    result = run(LAUNCH, "consldt(warp) agg_threshold(3) buffer(pool, 64)")
    assert "#define PDCC_AGG_THRESHOLD_parent_0 3" in result.text
    assert "#define PDCC_RECORDS_parent_0 64" in result.text
    assert "pdcc_group_parent_0.open<pdcc::RecordOf<decltype(child__pdcc_agg_parent_0)>>(pdcc_pool_parent_0, " \
           "PDCC_RECORDS_parent_0, 1);" in result.text
    assert "pdcc_group_parent_0.flush<pdcc::RecordOf<decltype(child__pdcc_agg_parent_0)>>(pdcc_pool_parent_0, 1, " \
           "PDCC_AGG_THRESHOLD_parent_0, " in result.text


@pytest.mark.parametrize("clauses, knob, other", [
    ("consldt(block) buffer(pool, 64)", "PDCC_RECORDS_parent_0", "PDCC_RECORDS_PER_THREAD_parent_0"),
    ("consldt(block)", "PDCC_RECORDS_PER_THREAD_parent_0", "PDCC_RECORDS_parent_0")])
def test_a_site_has_one_storage_knob_the_one_its_pragma_selects(clauses: str, knob: str, other: str):
    """CAP records per group with buffer(KIND, CAP), else records per thread of the group: the other of the
    two would do nothing at that site."""
    result = run(LAUNCH, clauses)
    assert knob in {k.macro for k in result.knobs} and other not in {k.macro for k in result.knobs}
    assert other not in result.text and f"#ifndef {knob}\n" in result.text


@pytest.mark.parametrize("loop", [
    "for (int k = 0; k < 3; ++k) {\n  BODY\n}", "while (m > 0) {\n  BODY\n  m -= 32;\n}",
    "do {\n  if (n) {\n    BODY\n  }\n} while (0);", "for (int k : {1, 2}) {\n  BODY\n}",
    "for (int k = 0; k < 3; ++k)\n  BODY", "while (m > 0)\n  // one launch per round\n  BODY"])
def test_a_launch_in_a_loop_reserves_several_records_per_thread(loop: str):
    body = "int m = n - threadIdx.x;\n" + loop.replace("BODY", "PRAGMA\nchild<<<(m + 31) / 32, 32>>>(out, in, a, m);")
    result = run(body, "consldt(grid)")
    storage = next(r for r in result.remarks if r.rule.id == "PDCC561")
    assert storage.args["records_per_thread"] == 4 and "the launch is in a loop" in storage.message
    assert "#define PDCC_RECORDS_PER_THREAD_parent_0 4" in result.text


def test_a_loop_around_the_parent_body_is_not_a_loop_around_the_launch():
    body = "for (int k = 0; k < 3; ++k) { n += k; }\n" + LAUNCH
    storage = next(r for r in run(body).remarks if r.rule.id == "PDCC561")
    assert storage.args["records_per_thread"] == 1


@pytest.mark.parametrize("child, body, rule, words", [
    (CHILD.replace("int i = threadIdx.x;", "int i = threadIdx.x; __syncthreads();"), LAUNCH, "PDCC510",
     "an aggregated block holds idle threads"),
    (CHILD, LAUNCH.replace("child<<<", "parent<<<").replace("(out + threadIdx.x, in, a, m)", "(out, in, a, m)"),
     "PDCC514", "consolidation"),
    ("template <typename T>\n" + CHILD.replace("float* out", "T* out"), LAUNCH, "PDCC517", "explicit template arguments"),
])
def test_launches_pdcc_does_not_aggregate(child: str, body: str, rule: str, words: str):
    result = run(body, child=child)
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert missed and missed[0].rule.id == rule and words in missed[0].message
    assert "__pdcc_agg_" not in result.text


@pytest.mark.parametrize("launch, words", [
    ("child<<<(m + 31) / 32, 32, 64>>>(out + threadIdx.x, in, a, m);", "dynamic shared memory or a stream"),
    ("child<<<(m + 31) / 32, 32, 0, 0>>>(out + threadIdx.x, in, a, m);", "dynamic shared memory or a stream"),
])
def test_launch_configuration_one_grid_cannot_honour(launch: str, words: str):
    result = run(LAUNCH.replace("child<<<(m + 31) / 32, 32>>>(out + threadIdx.x, in, a, m);", launch))
    assert words in result.remarks[0].message and "__pdcc_agg_" not in result.text


def test_parent_launched_from_the_device_is_not_aggregated():
    code = (CHILD + "__global__ void parent(float* out, const float* in, float a, int n) {\n"
            "#pragma dp consldt(block)\n  child<<<(n + 31) / 32, 32>>>(out, in, a, n);\n}\n"
            "__global__ void top(float* out, const float* in) { parent<<<1, 32>>>(out, in, 1.0f, 8); }\n")
    result = transform(SourceFile("a.cu", code.encode()))
    assert "itself launched from the device" in result.remarks[0].message


def test_child_defined_after_its_parent_is_not_aggregated():
    code = ("__global__ void child(float* out, int n);\n__global__ void parent(float* out, int n) {\n"
            "#pragma dp consldt(block)\n  child<<<(n + 31) / 32, 32>>>(out, n);\n}\n"
            "__global__ void child(float* out, int n) { if (threadIdx.x < n) out[threadIdx.x] = 0; }\n")
    result = transform(SourceFile("a.cu", code.encode()))
    assert result.remarks[0].rule.id == "PDCC517" and "defined after its parent" in result.remarks[0].message


@pytest.mark.parametrize("argument", ["new float[n]", "(n, in)", "[=] { return in; }()"])
def test_an_argument_that_evaluates_to_something_new_each_time_is_not_uniform(argument: str):
    body = LAUNCH.replace("(out + threadIdx.x, in, a, m)", f"(out + threadIdx.x, {argument}, a, m)")
    assert "in" in applied(run(body)).args["varying_arguments"]


def test_a_parameter_passed_to_a_function_or_bound_to_a_reference_is_not_uniform():
    helper = "__device__ void advance(const float*& p, int t) { p += t; }\n"
    by_call = applied(run("advance(in, threadIdx.x);\n" + LAUNCH, parent_head=helper))
    by_reference = applied(run("const float*& r = in;\nr += 1;\n" + LAUNCH))
    assert "in" in by_call.args["varying_arguments"] and "in" in by_reference.args["varying_arguments"]


@pytest.mark.nvcc
def test_static_parent_and_static_child_compile(tmp_path):
    code = (CHILD.replace("__global__", "static __global__") +
            "static __global__ void parent(float* out, const float* in, float a, int n) {\n"
            + textwrap.indent(LAUNCH.replace("PRAGMA", "#pragma dp threshold(8) coarsen(2) consldt(block)"), "  ")
            + "}\n")
    assert_compiles(transform(SourceFile("s.cu", code.encode())).text, tmp_path, "s.cu")


def test_the_flush_gets_the_aggregated_launch_and_the_one_record_launch():
    """The runtime's flush retries the first and falls back to the second (tests/cuda/runtime_check.cu); the
    site builds its record from the launch's arguments and launches it directly when storage is full."""
    text = run(LAUNCH, "consldt(block)").text
    assert ("  pdcc_group_parent_0.flush<pdcc::RecordOf<decltype(child__pdcc_agg_parent_0)>>(pdcc_pool_parent_0, 1, "
            "1u, pdcc::aggregated_launch(child__pdcc_agg_parent_0, in, a), pdcc::direct_launch(child__pdcc_counted, child__pdcc_serial, "
            "in, a));\n" in text)
    assert ("    const pdcc::RecordOf<decltype(child__pdcc_agg_parent_0)> pdcc_rec(pdcc_grid, pdcc_block, out + threadIdx.x, "
            "in, a, m);\n"
            "    if (!pdcc_group_parent_0.append(pdcc_rec)) // storage full: launch this one directly\n"
            "      pdcc::launch_record(pdcc_rec, child__pdcc_counted, child__pdcc_serial, in, a);\n" in text)
    assert ("static __global__ void __launch_bounds__(1024) child__pdcc_agg_parent_0(const pdcc::Batch<pdcc::Record<float*, "
            "pdcc::Uniform, pdcc::Uniform, int>> pdcc_batch, const float* in, float a)\n{\n"
            "  pdcc::launch_started();\n"
            "  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, child__pdcc_thread, in, a);\n}\n" in text)


def test_launch_bounds_keep_every_kernel_launchable_at_1024_threads():
    """With -rdc=true registers are fixed at device link: the wrapper and the aggregated kernel get
    bounds (the user's own where written) so that a 1024-thread block can always start."""
    plain = run(LAUNCH).text
    assert "__global__ void __launch_bounds__(1024) parent(" in plain
    assert "static __global__ void __launch_bounds__(1024) child__pdcc_agg_parent_0(" in plain
    bounded = run(LAUNCH, child=CHILD.replace("void child", "void __launch_bounds__(256, 2) child"),
                  parent_head="__launch_bounds__(512)\n").text
    assert "__global__ void __launch_bounds__(512) parent(" in bounded
    assert "static __global__ void __launch_bounds__(256, 2) child__pdcc_agg_parent_0(" in bounded


@pytest.mark.parametrize("launch, words", [
    ("child<<<(m + 31) / 32, 32>>>(out + threadIdx.x, in, a);", "the launch passes 3 arguments to 'child', which takes 4"),
    ("child<<<(m + 31) / 32, 32>>>(out + threadIdx.x, in, a, m, m);",
     "the launch passes 5 arguments to 'child', which takes 4"),
])
def test_a_launch_with_the_wrong_number_of_arguments_is_left_for_nvcc_to_report(launch: str, words: str):
    result = run(LAUNCH.replace("child<<<(m + 31) / 32, 32>>>(out + threadIdx.x, in, a, m);", launch))
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC517"] and words in missed[0].message
    assert launch in result.text and "__pdcc_agg_" not in result.text


@pytest.mark.nvcc
def test_a_default_argument_fills_a_record_field_and_compiles(tmp_path):
    child = CHILD.replace("int n)", "int n = 8)")
    result = run(LAUNCH.replace("(out + threadIdx.x, in, a, m)", "(out + threadIdx.x, in, a)"), child=child)
    assert applied(result).args["uniform_arguments"] == ["in", "a", "n"]
    assert_compiles(result.text, tmp_path)


def test_a_child_with_a_parameter_pack_is_not_aggregated():
    child = "template <typename... Ts>\n__global__ void child(float* out, Ts... rest) { out[threadIdx.x] = 0; }\n"
    result = run("PRAGMA\nchild<int, int><<<1, 32>>>(out, 1, n);\n", child=child)
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert missed[0].rule.id == "PDCC517" and "parameter pack" in missed[0].message


def test_a_parent_with_an_unnamed_function_pointer_parameter_is_not_aggregated():
    code = ("__global__ void child(int* out, const int* in, int n) { if (threadIdx.x < n) out[threadIdx.x] = in[0]; }\n"
            "__global__ void parent(int*, const int*, void (*)(int)) {\n  int* out = nullptr;\n"
            "#pragma dp consldt(block)\n  child<<<1, 32>>>(out, out, 4);\n}\n")
    result = transform(SourceFile("a.cu", code.encode()))
    missed = [r for r in result.remarks if r.kind.value == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC517"]
    assert "parent 'parent' has a parameter pdcc cannot forward (an unnamed function pointer" in missed[0].message
    assert "child<<<1, 32>>>(out, out, 4);" in result.text and "__pdcc_agg_" not in result.text


@pytest.mark.nvcc
def test_a_parents_unsigned_value_for_an_int_field_and_a_const_parameter_compile_without_warnings(tmp_path):
    """Braces would narrow `unsigned` into the record's `int` (#2361-D); a `const` field once made the
    record impossible to store."""
    child = "__global__ void child(float* out, const int n) { if (threadIdx.x < n) out[threadIdx.x] = n; }\n"
    code = (child + "__global__ void parent(float* out, unsigned n) {\n  unsigned m = n + threadIdx.x;\n"
            "#pragma dp consldt(block)\n  child<<<1, 32>>>(out + threadIdx.x, m);\n}\n")
    source = tmp_path / "n.cu"
    source.write_text(transform(SourceFile("n.cu", code.encode())).text)
    compiled = nvcc_compile(source, tmp_path, "-Xcompiler", "-Wall")
    assert compiled.returncode == 0 and "warning" not in compiled.stderr, compiled.stderr


@pytest.mark.nvcc
@pytest.mark.parametrize("expected", sorted((ROOT / "tests" / "golden").glob("aggregate*.expected.cu")), ids=lambda p: p.name)
def test_aggregated_golden_output_compiles_without_warnings_under_wall(expected, tmp_path):
    compiled = nvcc_compile(expected, tmp_path, "-Xcompiler", "-Wall")
    warnings = [line for line in compiled.stderr.splitlines() if "warning" in line.lower()]
    assert compiled.returncode == 0 and not warnings, compiled.stderr


def compiled_without_warnings(text: str, tmp_path) -> None:
    source = tmp_path / "t.cu"
    source.write_text(text)
    compiled = nvcc_compile(source, tmp_path, "-Xcompiler", "-Wall")
    assert compiled.returncode == 0 and "warning" not in compiled.stderr.lower(), compiled.stderr


SHARED_CHILD = ("__global__ void child(float* out, const float* in, float a, int n) {\n"
                "  __shared__ float seen[32];\n  seen[threadIdx.x % 32] = a;\n"
                "  if (threadIdx.x < n) out[threadIdx.x] = seen[threadIdx.x % 32] * in[threadIdx.x];\n}\n")


@pytest.mark.nvcc
@pytest.mark.parametrize("clauses, direct", [
    ("consldt(block)", "pdcc::launch_record(pdcc_rec, child, pdcc::Retry(), in, a);"),
    ("coarsen(2) consldt(warp)",
     "pdcc::launch_record(pdcc_rec, pdcc::coarsened(child__pdcc_coarse, PDCC_COARSEN_parent_0), pdcc::Retry(), in, a);")])
def test_a_child_that_cannot_run_serially_is_retried_when_launched_on_its_own(clauses: str, direct: str, tmp_path):
    """Its `__shared__` array keeps it from running in the parent thread: a record's direct launch is
    retried (launch_record with pdcc::Retry, as site.py retries the launches it writes)."""
    result = run(LAUNCH, clauses, child=SHARED_CHILD)
    assert direct in result.text and "__pdcc_serial" not in result.text
    compiled_without_warnings(result.text, tmp_path)


def test_the_runtime_retries_a_direct_launch_as_long_as_generated_launches_retry():
    header = (ROOT / "pragmadp" / "runtime" / "pdcc_rt.cuh").read_text()
    limit = re.search(r"constexpr unsigned kLaunchRetryLimitNs = (\d+)u << (\d+);", header)
    assert limit is not None and int(limit.group(1)) << int(limit.group(2)) == RETRY_LIMIT_NS


@pytest.mark.nvcc
def test_a_record_of_a_namespaced_child_names_its_types_where_the_child_is(tmp_path):
    """`Span` is visible in `lib` only: the parent names the record through the aggregated kernel."""
    code = ("namespace lib {\nstruct Span { float* data; int n; };\n"
            "__global__ void fill(Span s, float v) { if (threadIdx.x < s.n) s.data[threadIdx.x] = v; }\n}\n"
            "__global__ void parent(float* out, int n) {\n  lib::Span s{out + threadIdx.x * 32, n};\n"
            "#pragma dp consldt(block)\n  lib::fill<<<1, 32>>>(s, 1.0f);\n}\n")
    text = transform(SourceFile("a.cu", code.encode())).text
    assert "lib::fill__pdcc_agg_parent_0(const pdcc::Batch<pdcc::Record<Span, pdcc::Uniform>> pdcc_batch" not in text
    assert "fill__pdcc_agg_parent_0(const pdcc::Batch<pdcc::Record<Span, pdcc::Uniform>> pdcc_batch, float v)" in text
    assert "const pdcc::RecordOf<decltype(lib::fill__pdcc_agg_parent_0)> pdcc_rec(" in text
    compiled_without_warnings(text, tmp_path)


@pytest.mark.nvcc
def test_a_record_type_with_a_template_argument_left_to_its_default_compiles(tmp_path):
    child = ("template <typename T, typename Index = int>\n"
             "__global__ void child(T* out, Index n) { if ((Index)threadIdx.x < n) out[threadIdx.x] = 1; }\n")
    code = child + ("__global__ void parent(float* out, unsigned n) {\n#pragma dp threshold(8) coarsen(2) consldt(warp)\n"
                    "  child<float><<<(n + 31) / 32, 32>>>(out, n - threadIdx.x);\n}\n")
    text = transform(SourceFile("a.cu", code.encode())).text
    assert "pdcc::Batch<pdcc::Record<pdcc::Uniform, Index>> pdcc_batch, T* out)" in text
    compiled_without_warnings(text, tmp_path)


@pytest.mark.parametrize("declaration, name, type_", [
    ("const float* in", "in", "const float*"), ("float *out", "out", "float *"), ("void (*f)(int)", "f", "void (*)(int)"),
    ("int n_in[4]", "n_in", "int[4]"), ("const int n", "n", "const int"), ("ns::Vec<N> n", "n", "ns::Vec<N>")])
def test_a_record_field_has_the_parameters_type(declaration: str, name: str, type_: str):
    assert parameter_type(Parameter(declaration, name)) == type_
