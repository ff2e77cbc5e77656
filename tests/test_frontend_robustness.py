"""The front end reads CUDA as nvcc does (issue 9, items 10-12): pragmas as the C preprocessor sees them,
values as C reads them, byte-order marks and the user's own #line directives kept, no file opened that
nvcc would not open, and no traceback on deep expressions."""

from __future__ import annotations

import os
import re
import threading

import pytest

from conftest import run_pdcc
from pragmadp.pipeline import transform
from pragmadp.report.remarks import PdccError
from pragmadp.source import SourceFile

CHILD = "__global__ void child(int* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 0; }\n"


def program(pragma: str, before: str = "", launch: str = "child<<<(n + 31) / 32, 32>>>(x, n);") -> str:
    return before + CHILD + f"__global__ void parent(int* x, int n) {{\n{pragma}\n  {launch}\n}}\n"


def applied(code: str | bytes, name: str = "t.cu") -> list[str]:
    data = code.encode() if isinstance(code, str) else code
    return [r.rule.id for r in transform(SourceFile(name, data)).remarks if r.rule.id in ("PDCC500", "PDCC550")]


def error_of(code: str | bytes) -> PdccError:
    with pytest.raises(PdccError) as caught:
        transform(SourceFile("e.cu", code.encode() if isinstance(code, str) else code))
    return caught.value


# --- item 11: pragmas as the C preprocessor sees them ---------------------------------------------

@pytest.mark.parametrize("pragma", [
    "# pragma dp threshold(8)",
    "#\tpragma dp threshold(8)",
    "  #  pragma   dp threshold(8)",
    "#pragma dp /* tuned */ threshold(128)",
    "#pragma dp threshold(128 /* tuned */)",
    "/* lead */ #pragma dp threshold(8)",
    "#pragma dp thre\\\nshold(8)",
    "#p\\\nragma dp threshold(8)",
    "#pragma dp threshold(8) /* a comment\n   over two lines */",
    "#pragma dp threshold(0200)",
    "#pragma dp threshold(0x80u)",
    "#pragma dp threshold(0b1000'0000)".replace("'", ""),
])
def test_pragmas_read_as_the_preprocessor_reads_them(pragma):
    assert applied(program(pragma)) == ["PDCC500"]


def test_the_value_of_an_octal_literal_is_what_c_says():
    text = transform(SourceFile("t.cu", program("#pragma dp threshold(0200)").encode())).text
    assert "#define PDCC_THRESHOLD_parent_0 0200" in text  # nvcc reads 0200 as 128


LAUNCH = "  child<<<(n + 31) / 32, 32>>>(x, n);\n"


@pytest.mark.parametrize("pragma", [
    "#if 0\n#pragma dp threshold(\n#endif\n#pragma dp threshold(8)\n" + LAUNCH,
    "#if 1\n#pragma dp threshold(8)\n" + LAUNCH + "#else\n#pragma dp bogus\n" + LAUNCH + "#endif",
    "#if 0\n#if 1\n#pragma dp bogus\n#endif\n#elif 0\n#pragma dp bogus\n#else\n#pragma dp threshold(8)\n" + LAUNCH
    + "#endif",
])
def test_pragmas_the_preprocessor_skips_do_not_stop_the_build(pragma):
    assert applied(program(pragma, launch="")) == ["PDCC500"]


def test_a_pragma_under_an_unknown_condition_is_read():
    error = error_of(program("#ifdef TUNED\n#pragma dp bogus(1)\n#endif\n#pragma dp threshold(8)"))
    assert error.remark.rule.id == "PDCC101" and error.remark.location.line == 4


def test_a_pragma_inside_a_block_comment_is_not_read():
    assert applied(program("/*\n#pragma dp bogus\n*/")) == []


def test_carriage_return_line_ends_are_refused_with_a_location():
    error = error_of(program("#pragma dp threshold(8)").replace("\n", "\r"))
    remark = error.remark
    assert remark.rule.id == "PDCC301" and "carriage return alone" in remark.message
    assert (remark.location.line, remark.location.column) == (1, len(CHILD))


def test_crlf_line_ends_are_read():
    assert applied(program("#pragma dp threshold(8)").replace("\n", "\r\n")) == ["PDCC500"]


@pytest.mark.parametrize("value, message", [
    ("١٢٨", "not '١٢٨'"),
    ("128f", "not '128f'"),
    ("int", "'int' is a C++ keyword or type name, not a macro name"),
    ("18446744073709551616", "not '18446744073709551616'"),
    ("08", "not '08'"),
    ("1e3", "not '1e3'"),
])
def test_values_nvcc_cannot_compile_are_located_errors(value, message):
    remark = error_of(program(f"#pragma dp threshold({value})")).remark
    assert remark.rule.id == "PDCC102" and message in remark.message
    assert (remark.location.line, remark.location.column) == (3, len("#pragma dp threshold(") + 1)


def test_a_bad_value_behind_a_comment_and_a_splice_is_located_in_the_file():
    remark = error_of(program("#pragma dp /* x */ coarsen(\\\n0)")).remark
    assert remark.rule.id == "PDCC102" and (remark.location.line, remark.location.column) == (4, 1)


def test_a_bad_value_stops_the_build_with_its_location(tmp_path):
    (tmp_path / "v.cu").write_text(program("#pragma dp threshold(128f)"))
    done = run_pdcc("-arch=sm_90", "-rdc=true", "-c", "v.cu", cwd=tmp_path)
    assert done.returncode != 0
    assert "v.cu:3:22: error[PDCC102]: 'threshold' takes a non-negative integer" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "v.o").exists()


# --- item 12: valid input stays valid ----------------------------------------------------------------

def test_a_byte_order_mark_stays_first():
    data = b"\xef\xbb\xbf" + program("#pragma dp threshold(8) consldt(block)").encode()
    text = transform(SourceFile("t.cu", data)).text
    assert text.startswith('\ufeff#line 1 "t.cu"\n')
    assert text.count("\ufeff") == 1


def _nvcc_lines(text: str) -> list[tuple[str, int, str]]:
    """(file, line) nvcc gives each output line that is not a #line directive."""
    out, name, line = [], "?", 1
    for row in text.split("\n"):
        match = re.fullmatch(r'#line (\d+) "([^"]*)"', row)
        if match:
            line, name = int(match.group(1)), match.group(2)
            continue
        out.append((name, line, row))
        line += 1
    return out


def test_line_directives_follow_the_users_own():
    code = '#line 100 "orig.cu"\n' + program("#pragma dp threshold(8)") + "int tail_marker;\n"
    text = transform(SourceFile("t.cu", code.encode())).text
    where = {row: (name, line) for name, line, row in _nvcc_lines(text)}
    assert where["int tail_marker;"] == ("orig.cu", 105)
    assert where["}"] == ("orig.cu", 104)
    assert next(place for row, place in where.items() if "parent(int* x, int n) {" in row) == ("orig.cu", 101)
    assert all(name in ("t.cu", "orig.cu") for name, _, _ in _nvcc_lines(text))


def test_gnu_line_markers_and_skipped_line_directives():
    code = ('# 7 "gen.cu" 1\n#if 0\n#line 1 "never.cu"\n#endif\n' + program("#pragma dp threshold(8)")
            + "int tail_marker;\n")
    text = transform(SourceFile("t.cu", code.encode())).text
    where = {row: (name, line) for name, line, row in _nvcc_lines(text)}
    assert where["int tail_marker;"] == ("gen.cu", 7 + 3 + 5)


# --- item 10: no file nvcc would not open, no traceback on deep expressions -----------------------------

@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("skipped", [True, False])
def test_includes_of_devices_and_fifos_are_not_read(tmp_path, target, skipped):
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    include = f'#include "{target}"\n'
    code = program("#pragma dp threshold(8)", before=f"#if 0\n{include}#endif\n" if skipped else include)
    (tmp_path / "t.cu").write_text(code)
    result = {}
    worker = threading.Thread(target=lambda: result.update(r=transform(SourceFile("t.cu", code.encode(), None))),
                              daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert "r" in result, "pdcc hung or failed reading an include"


def test_a_header_with_a_pragma_is_still_reported(tmp_path):
    (tmp_path / "k.cuh").write_text("#if 0\n#pragma dp threshold(1)\n#endif\n# pragma dp threshold(8)\n")
    (tmp_path / "t.cu").write_text('#include "k.cuh"\n' + program("#pragma dp threshold(8)"))
    remarks = [r for r in transform(SourceFile.read(str(tmp_path / "t.cu"))).remarks if r.rule.id == "PDCC602"]
    assert len(remarks) == 1 and "'k.cuh' has '#pragma dp' at line 4" in remarks[0].message


def test_a_grid_of_many_terms_is_analysed_without_a_traceback():
    grid = "(" + " + ".join(f"n{i % 7}" for i in range(300)) + " + 31) / 32"
    code = (CHILD + "__global__ void parent(int* x, int n0, int n1, int n2, int n3, int n4, int n5, int n6) {\n"
            f"#pragma dp threshold(8)\n  child<<<{grid}, 32>>>(x, n0);\n}}\n")
    result = transform(SourceFile("t.cu", code.encode()))
    assert [r.rule.id for r in result.remarks][:2] == ["PDCC500", "PDCC501"]
    assert "child__pdcc_counted<<<pdcc_grid, pdcc_block>>>(x, n0);" in result.text
