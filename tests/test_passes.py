"""The pass interface at work: what each pass plans for a site, the knobs and remarks it reports, and
the sites it must leave alone with the right reason (issue 9, items 4, 5, 7, 8, 9, 10)."""

from __future__ import annotations

import json

import pytest

from conftest import nvcc_compile
from pragmadp.pipeline import transform
from pragmadp.report import rules
from pragmadp.report.remarks import PdccError
from pragmadp.report.render import write_report
from pragmadp.source import SourceFile

CHILD = "__global__ void child(int* x, int n) { x[threadIdx.x] = n; }\n"


def run(text: str, name: str = "input.cu"):
    return transform(SourceFile(name, text.encode()))


def test_remark_messages_are_rendered_from_their_arguments():
    result = run(CHILD + "__global__ void parent(int* x, int n) {\n#pragma dp threshold(64) coarsen(2)\n"
                 "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    assert {r.rule.id for r in result.remarks} >= {"PDCC500", "PDCC501", "PDCC550", "PDCC530"}
    for remark in result.remarks:
        if remark.rule.message:
            assert remark.message == remark.rule.render(remark.args)


def test_every_knob_is_reported_with_its_macro_default_and_domain():
    result = run(CHILD + "__global__ void parent(int* x, int n) {\n"
                 "#pragma dp threshold(64) coarsen(2) consldt(block) agg_threshold(3) buffer(pool, 8)\n"
                 "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"
                 "__global__ void other(int* x, int n) {\n#pragma dp consldt(multiblock(4))\n"
                 "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    knobs = {k.macro: k for k in result.knobs}
    assert {k.kind for k in knobs.values()} == {"threshold", "coarsen", "granularity", "agg_threshold", "records",
                                                "records_per_thread", "pool_bytes"}
    assert knobs["PDCC_THRESHOLD_parent_0"].default == "64" and knobs["PDCC_RECORDS_parent_0"].default == "8"
    assert all(k.domain[0] <= k.domain[1] for k in knobs.values())
    for knob in knobs.values():  # each one overridable with -D
        assert f"#ifndef {knob.macro}\n#define {knob.macro} {knob.default}\n#endif" in result.text


def test_a_rewritten_kernel_gets_launch_bounds_unless_it_has_its_own():
    text = CHILD + ("__global__ void parent(int* x, int n) {\n#pragma dp threshold(64)\n"
                    "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"
                    "__global__ void __launch_bounds__(256) bounded(int* x, int n) {\n#pragma dp threshold(64)\n"
                    "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    result = run(text)
    assert "__global__ void __launch_bounds__(1024) parent(int* x, int n) {" in result.text
    assert "__global__ void __launch_bounds__(256) bounded(int* x, int n) {" in result.text
    bounds = [r for r in result.remarks if r.rule is rules.LAUNCH_BOUNDS]
    assert [(r.args["kernel"], r.location.line) for r in bounds] == [("parent", 2)]


def test_a_pragma_between_if_and_its_launch_does_not_hide_the_reason_elsewhere():
    """Item 8: the pragma cuts the if for the CUDA parser (a missing ';'); a site launching that kernel
    must get its real reason (it launches kernels itself), not 'could not be parsed'."""
    text = CHILD + ("__global__ void parent(int* x, int n) {\n  if (n > 4)\n#pragma dp threshold(64)\n"
                    "    child<<<(n + 31) / 32, 32>>>(x, n);\n  else\n    x[0] = 0;\n}\n"
                    "__global__ void grand(int* x, int n) {\n#pragma dp threshold(64)\n"
                    "  parent<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    result = run(text)
    assert [r.rule.id for r in result.remarks if r.site == "grand_0"] == ["PDCC522"]
    assert [r.rule.id for r in result.remarks if r.site == "parent_0"][:1] == ["PDCC500"]


def test_each_self_launch_refusal_names_its_own_line():
    """Item 9."""
    text = ("__global__ void walk(int* x, int n) {\n  if (n <= 1) return;\n#pragma dp threshold(64)\n"
            "  walk<<<1, 32>>>(x, n / 2);\n  x[n] = 1;\n#pragma dp threshold(64)\n  walk<<<1, 32>>>(x + n / 2, n / 2);\n}\n")
    result = run(text)
    assert [(r.rule.id, r.args["line"]) for r in result.remarks] == [("PDCC514", 4), ("PDCC514", 7)]
    assert "at line 4" in result.remarks[0].message and "at line 7" in result.remarks[1].message


@pytest.mark.parametrize("clauses", ["threshold(64)", "coarsen(2)", "consldt(block)"])
def test_a_launch_with_its_grid_size_alone_is_left_as_written(clauses):
    """Item 10: `child<<<n>>>(x, n)` compiles with nvcc; pdcc says why it does not rewrite it."""
    result = run(CHILD + f"__global__ void parent(int* x, int n) {{\n#pragma dp {clauses}\n  child<<<n>>>(x, n);\n}}\n")
    assert [(r.rule.id, r.location.line, r.location.column) for r in result.remarks] == [("PDCC523", 3, 12)]
    assert "  child<<<n>>>(x, n);\n" in result.text


@pytest.mark.nvcc
def test_outputs_compile_with_every_pass(tmp_path):
    result = run(CHILD + "__global__ void parent(int* x, int n) {\n"
                 "#pragma dp threshold(64) coarsen(2) consldt(warp)\n  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    path = tmp_path / "out.cu"
    path.write_text(result.text)
    compiled = nvcc_compile(path, tmp_path)
    assert compiled.returncode == 0 and "warning" not in compiled.stderr, compiled.stderr


def test_the_json_report_lists_every_knob_for_a_tuner(tmp_path):
    result = run(CHILD + "__global__ void parent(int* x, int n) {\n#pragma dp threshold(64) coarsen(2)\n"
                 "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    report = tmp_path / "r.json"
    write_report(str(report), result.remarks, "test", str(tmp_path), result.knobs)
    knobs = json.loads(report.read_text())["knobs"]
    assert knobs == [{"macro": "PDCC_THRESHOLD_parent_0", "default": "64", "kind": "threshold", "min": 0, "max": 1 << 31},
                     {"macro": "PDCC_COARSEN_parent_0", "default": "2", "kind": "coarsen", "min": 1, "max": 1 << 16}]


# ---- found by review: each case compiled by nvcc -------------------------------------------------------

REVIEWED = {
    # an argument with a call hoists every argument; the uniform ones still reach the wrapper as written
    "hoisted_uniform": ("__device__ int next(int* c) { return atomicAdd(c, 1); }\n"
                        "__global__ void child(float* y, int m, int k) { y[threadIdx.x] = m + k; }\n"
                        "__global__ void parent(float* y, int* c, int m, int k) {\n#pragma dp consldt(block)\n"
                        "  child<<<1, 32>>>(y + next(c), m, k);\n}\n"),
    # an array parameter's hoisted copy cannot be an array
    "array_parameter": ("__device__ float* pick(float* y) { return y + 1; }\n"
                        "__global__ void child(float y[], int n) { y[threadIdx.x] = n; }\n"
                        "__global__ void parent(float* y, int n) {\n#pragma dp threshold(64)\n"
                        "  child<<<(n + 31) / 32, 32>>>(pick(y), n);\n}\n"),
    # a static, extern "C" or defaulted parent keeps its storage class, linkage and defaults on the wrapper
    "static_parent": (CHILD + "static __global__ void parent(int* x, int n = 64) {\n#pragma dp consldt(block)\n"
                      "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"
                      "void run(int* x) { parent<<<1, 32>>>(x); }\n"),
    "extern_c_parent": (CHILD + 'extern "C" __global__ void parent(int* x, int n) {\n#pragma dp consldt(warp)\n'
                        "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"),
    # a site name is an identifier whatever the function is called
    "operator_parent": (CHILD + "struct F { __device__ void operator()(int* x, int n) const {\n"
                        "#pragma dp threshold(64)\n  child<<<(n + 31) / 32, 32>>>(x, n);\n} };\n"),
    # an unnamed defaulted template parameter keeps its default (it was a PDCC900)
    "unnamed_template_parameter": ("template <typename T, typename = int, int = 3>\n"
                                   "__global__ void child(T* x, int n) { x[threadIdx.x] = n; }\n"
                                   "__global__ void parent(float* x, int n) {\n#pragma dp threshold(64) coarsen(2)\n"
                                   "  child<float><<<(n + 31) / 32, 32>>>(x, n);\n}\n"),
    # C's `(void)` is no parameter
    "void_parameters": ("__device__ int g;\n__global__ void child(void) { atomicAdd(&g, 1); }\n"
                        "__global__ void parent(int n) {\n#pragma dp threshold(64) coarsen(2)\n"
                        "  child<<<(n + 31) / 32, 32>>>();\n}\n"),
}


@pytest.mark.nvcc
@pytest.mark.parametrize("name", sorted(REVIEWED))
def test_reviewed_shapes_compile_without_warnings(name, tmp_path):
    result = run(REVIEWED[name], f"{name}.cu")
    assert any(r.kind.value == "applied" for r in result.remarks), [r.message for r in result.remarks]
    path = tmp_path / f"{name}.cu"
    path.write_text(result.text)
    compiled = nvcc_compile(path, tmp_path, "-Xcompiler", "-Wall")
    assert compiled.returncode == 0 and "warning" not in compiled.stderr, compiled.stderr


def test_the_wrapper_keeps_the_parents_linkage_storage_class_and_defaults():
    text = run(REVIEWED["static_parent"]).text
    assert "static __global__ void __launch_bounds__(1024) parent(int* x, int n = 64)\n{" in text
    assert "static __device__ pdcc::SitePool<PDCC_POOL_BYTES_parent_0> pdcc_pool_parent_0;" in text
    assert 'extern "C" __global__ void __launch_bounds__(1024) parent(int* x, int n)\n{' in \
        run(REVIEWED["extern_c_parent"]).text


def test_operator_sites_get_identifier_names():
    result = run(REVIEWED["operator_parent"])
    assert {r.site for r in result.remarks} == {"operator_0"}
    assert "#define PDCC_THRESHOLD_operator_0 64" in result.text


def test_an_out_of_line_parent_is_not_aggregated():
    result = run("namespace ns { __global__ void parent(int* x, int n); }\n" + CHILD
                 + "__global__ void ns::parent(int* x, int n) {\n#pragma dp consldt(block)\n"
                 "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    assert [(r.rule.id, r.location.line) for r in result.remarks] == [("PDCC517", 4)]
    assert "defined outside its namespace or class" in result.remarks[0].message


@pytest.mark.parametrize("pragma, column", [("coarsen(4294967296)", 20), ("consldt(multiblock(100000))", 31),
                                            ("threshold(0x100000000)", 22)])
def test_a_value_outside_its_knobs_range_is_an_error_at_the_value(pragma, column):
    with pytest.raises(PdccError) as caught:
        run(CHILD + f"__global__ void parent(int* x, int n) {{\n#pragma dp {pragma}\n"
            "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    remark = caught.value.remark
    assert (remark.rule.id, remark.location.line, remark.location.column) == ("PDCC102", 3, column)
    assert "is outside the range" in remark.message


def test_kernels_that_run_a_rewritten_device_function_are_bounded_too():
    text = CHILD + ("__device__ void helper(int* x, int n) {\n#pragma dp threshold(64)\n"
                    "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"
                    "__device__ void middle(int* x, int n) { helper(x, n); }\n"
                    "__global__ void direct(int* x, int n) { helper(x, n); }\n"
                    "__global__ void indirect(int* x, int n) { middle(x, n + 1); }\n"
                    "__global__ void unrelated(int* x) { x[0] = 1; }\n")
    result = run(text)
    assert "__global__ void __launch_bounds__(1024) direct(int* x, int n)" in result.text
    assert "__global__ void __launch_bounds__(1024) indirect(int* x, int n)" in result.text
    assert "__global__ void unrelated(int* x)" in result.text
    bounded = [r for r in result.remarks if r.rule is rules.LAUNCH_BOUNDS]
    assert [r.args["kernel"] for r in bounded] == ["direct", "indirect"]
    assert "it runs 'helper', whose launch pdcc rewrote" in bounded[0].message
