"""Every error pdcc reports: message, file:line:col, rule id, and that nothing is produced."""

from __future__ import annotations

import json
import textwrap
from types import SimpleNamespace

import pytest

from pragmadp.analysis import thread_count
from pragmadp.cuda import frontend
from pragmadp.directives import DP_CLAUSES
from pragmadp.pipeline import InternalError, transform
from pragmadp.report import rules
from pragmadp.report.json_report import render_json
from pragmadp.report.remarks import Kind, PdccError
from pragmadp.report.sarif import render_sarif
from pragmadp.source import SourceFile, Span

KERNEL = "__global__ void child(int* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }\n"


def error_of(code: str) -> PdccError:
    with pytest.raises(PdccError) as caught:
        transform(SourceFile("e.cu", textwrap.dedent(code).encode()))
    return caught.value


def site(pragma: str, launch: str = "child<<<(n + 31) / 32, 32>>>(x, n);") -> str:
    return KERNEL + f"__global__ void parent(int* x, int n) {{\n#pragma {pragma}\n  {launch}\n}}\n"


@pytest.mark.parametrize("pragma, code, line, column, message", [
    ("dp treshold(4)", "PDCC101", 3, 12, "unknown clause 'treshold' in '#pragma dp'; did you mean 'threshold'?"),
    ("dp coarsn(4)", "PDCC101", 3, 12, "did you mean 'coarsen'?"),
    ("dp frobnicate", "PDCC101", 3, 12, "unknown clause 'frobnicate' in '#pragma dp'"),
    ("dp threshold(-4)", "PDCC102", 3, 22, "'threshold' takes a non-negative integer or a macro name, not '-4'"),
    ("dp coarsen(0)", "PDCC102", 3, 20, "'coarsen' takes an integer >= 1"),
    ("dp threshold(1.5)", "PDCC102", 3, 22, "not '1.5'"),
    ("dp consldt(blok)", "PDCC102", 3, 20, "unknown granularity 'blok' in 'consldt'"),
    ("dp consldt(multiblock)", "PDCC102", 3, 20, "'multiblock' needs the number of blocks per group"),
    ("dp consldt(warp(2))", "PDCC102", 3, 25, "granularity 'warp' takes no argument"),
    ("dp consldt(block) buffer(heap, 4)", "PDCC102", 3, 34, "unknown buffer kind 'heap'"),
    ("dp threshold(4) threshold(8)", "PDCC103", 3, 25, "duplicate clause 'threshold'"),
    ("dp off threshold(8)", "PDCC100", 3, 16, "unexpected 'threshold' in pragma; expected end of pragma"),
    ("dp agg_threshold(4)", "PDCC104", 3, 12, "'agg_threshold' needs a 'consldt(...)' clause"),
    ("dp consldt(grid) agg_threshold(4)", "PDCC104", 3, 26, "'agg_threshold' applies to warp and block groups only"),
    ("dp threshold(", "PDCC100", 3, 22, "pragma ends too early; expected a name, a number"),
    ("dp threshold 4", "PDCC100", 3, 22, "unexpected '4' in pragma; expected '('"),
    ("meld threshold(2)", "PDCC102", 3, 24, "profitability between 0 and 1"),
])
def test_bad_pragmas(pragma: str, code: str, line: int, column: int, message: str):
    remark = error_of(site(pragma)).remark
    assert remark.rule.id == code
    assert (remark.location.file, remark.location.line, remark.location.column) == ("e.cu", line, column)
    assert message in remark.message or message in remark.hint
    text = remark.render_text()
    assert text.startswith(f"e.cu:{line}:{column}: error[{code}]: ")
    assert f"#pragma {pragma}" in text.splitlines()[1]
    caret_line = text.splitlines()[2]
    assert caret_line.index("^") == 2 + column - 1


def test_an_error_carries_its_named_arguments_into_json_and_sarif(tmp_path):
    remark = error_of(site("dp treshold(4)")).remark
    expected = {"clause": "treshold", "family": "dp", "suggestion": "threshold", "known": ", ".join(DP_CLAUSES)}
    assert remark.args == expected
    assert remark.message == rules.UNKNOWN_CLAUSE.messages["unknown-suggested"].render(expected)[0]
    (error,) = json.loads(render_json([remark], "test"))["remarks"]
    assert (error["kind"], error["ruleId"], error["args"]) == ("error", "PDCC101", expected)
    (result,) = json.loads(render_sarif([remark], "test", str(tmp_path)))["runs"][0]["results"]
    assert (result["level"], result["message"]["text"]) == ("error", remark.message)
    assert result["properties"]["args"] == expected


def test_pragma_not_followed_by_a_launch():
    remark = error_of(site("dp threshold(4)", "x[0] = n;")).remark
    assert remark.rule.id == "PDCC201"
    assert (remark.location.line, remark.location.column) == (4, 3)
    assert "must be followed by a kernel launch statement" in remark.message


def test_pragma_at_the_end_of_a_block():
    remark = error_of(KERNEL + "__global__ void parent(int* x) {\n  x[0] = 1;\n#pragma dp threshold(4)\n}\n").remark
    assert remark.rule.id == "PDCC201" and remark.location.line == 4


def test_pragma_on_a_host_launch():
    code = KERNEL + "void host(int* x, int n) {\n#pragma dp threshold(4)\n  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n"
    remark = error_of(code).remark
    assert remark.rule.id == "PDCC202"
    assert (remark.location.line, remark.location.column) == (4, 3)
    assert "annotates a launch in host code ('host')" in remark.message


def test_pragma_on_a_launch_in_a_host_device_function():
    code = KERNEL + ("__host__ __device__ void both(int* x, int n) {\n#pragma dp threshold(4)\n"
                     "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    assert error_of(code).remark.rule.id == "PDCC202"


def test_annotated_launch_that_cannot_be_parsed():
    remark = error_of(site("dp threshold(4)", "child<<<(n + 31) / 32, 32>>>(x, );")).remark
    assert remark.rule.id == "PDCC203"
    assert remark.location.line == 4
    assert "the file is left untouched" in remark.message


def test_meld_not_before_an_if():
    code = KERNEL + "__global__ void p(int* x) {\n#pragma meld\n  x[0] = 1;\n}\n"
    remark = error_of(code).remark
    assert remark.rule.id == "PDCC204" and remark.location.line == 4


def test_parse_errors_elsewhere_do_not_stop_a_clean_site():
    code = site("dp threshold(4)") + "\nvoid broken( { int ;\n"
    result = transform(SourceFile("e.cu", code.encode()))
    assert [r.rule.id for r in result.remarks if r.kind is Kind.APPLIED] == ["PDCC500"]
    assert result.text.endswith("\nvoid broken( { int ;\n")


def test_unreadable_and_binary_inputs(tmp_path):
    with pytest.raises(PdccError) as caught:
        SourceFile.read(str(tmp_path / "missing.cu"))
    assert caught.value.remark.rule.id == "PDCC301" and "cannot read input file" in caught.value.remark.message
    binary = tmp_path / "b.cu"
    binary.write_bytes(b"__global__ void k() {}\n\xff\xfe")
    with pytest.raises(PdccError) as caught:
        SourceFile.read(str(binary))
    assert caught.value.remark.location.line == 2 and "not UTF-8" in caught.value.remark.message


def test_an_empty_dp_pragma_is_an_error():
    remark = error_of(site("dp")).remark
    assert remark.rule.id == "PDCC104" and "needs at least one clause, or 'off'" in remark.message


def test_two_pragmas_before_one_launch():
    code = KERNEL + ("__global__ void parent(int* x, int n) {\n#pragma dp threshold(4)\n#pragma dp coarsen(2)\n"
                     "  child<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    remark = error_of(code).remark
    assert remark.rule.id == "PDCC201" and "two '#pragma dp' lines before one launch" in remark.message
    assert remark.location.line == 3


# ---- internal errors: a bug in pdcc is a located PDCC900 error, never a traceback ----------------------------------

def internal_error_of(code: str) -> InternalError:
    with pytest.raises(InternalError) as caught:
        transform(SourceFile("e.cu", code.encode()))
    return caught.value


def injected(*_args, **_kwargs):
    raise TypeError("injected failure\nwith a second line")


def test_an_exception_in_a_pass_is_an_internal_error_at_its_site(monkeypatch):
    monkeypatch.setattr(thread_count, "analyse", injected)
    error = internal_error_of(site("dp threshold(4)"))
    remark = error.remark
    assert isinstance(error, PdccError) and remark.rule.id == "PDCC900"
    assert remark.message == "internal error in pass threshold at this site: TypeError: injected failure"
    assert (remark.location.file, remark.location.line, remark.location.column) == ("e.cu", 4, 3)
    assert remark.render_text().startswith("e.cu:4:3: error[PDCC900]: internal error in pass threshold")
    assert "child<<<(n + 31) / 32, 32>>>(x, n);" in remark.render_text()
    assert error.source.data == site("dp threshold(4)").encode()
    assert "TypeError: injected failure" in error.details and "Traceback" in error.details


def test_a_pass_may_name_itself_and_its_site_on_the_exception(monkeypatch):
    code = site("dp threshold(4)")
    launch = code.index("child<<<(n")

    def failing_pass(*_args, **_kwargs):
        exc = KeyError("record")
        exc.pass_name, exc.span = "aggregate", Span(launch, launch + 5)
        raise exc

    monkeypatch.setattr(thread_count, "analyse", failing_pass)
    remark = internal_error_of(code).remark
    assert remark.message == "internal error in pass aggregate at this site: KeyError: 'record'"
    assert (remark.location.line, remark.location.column, remark.caret_length) == (4, 3, 5)


def test_the_pass_context_names_the_pass(monkeypatch):
    def failing_plan(*_args, **_kwargs):
        context = SimpleNamespace(pass_name="coarsen", site=None)  # as transforms.base.Context keeps them
        raise IndexError(f"list index out of range in {context.pass_name}")

    monkeypatch.setattr(thread_count, "analyse", failing_plan)
    remark = internal_error_of(site("dp threshold(4)")).remark
    assert remark.message.startswith("internal error in pass coarsen at this site: IndexError: list index")
    assert remark.location.line == 4


def test_an_exception_outside_any_site_is_located_at_the_file(monkeypatch):
    def no_parser():
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(frontend, "_parser", no_parser)
    remark = internal_error_of(site("dp threshold(4)")).remark
    assert remark.render_text() == ("e.cu:1:1: error[PDCC900]: internal error in pass frontend on this file: "
                                    "RecursionError: maximum recursion depth exceeded")


def test_errors_in_the_input_stay_what_they_are():
    assert not isinstance(error_of(site("dp treshold(4)")), InternalError)
