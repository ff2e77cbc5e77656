"""The meld pass: what it melds, what it refuses and why, and the pieces it is built from (the
Smith-Waterman alignment, the C types a select needs, the divergence analysis). Whole outputs are in the
meld goldens; the differential tests run melded code against the original."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import host_build_and_run
from pragmadp import ir
from pragmadp.analysis import alignment, counted_loop, ctype, writes
from pragmadp.cgen import printer
from pragmadp.cuda import frontend, lift
from pragmadp.cuda.frontend import walk
from pragmadp.pipeline import transform, transform_path
from pragmadp.report.json_report import render_json
from pragmadp.source import PdccError, SourceFile


def meld(body: str, before: str = "", defines: dict[str, str] | None = None, head: str = "int *out, const int *in, "
         "float *f, int n"):
    code = f"{before}__global__ void k({head})\n{{\n  int t = threadIdx.x;\n{body}\n}}\n"
    return transform(SourceFile("m.cu", code.encode()), defines=defines)


def rules_of(result) -> list[str]:
    return [r.rule.id for r in result.remarks]


def host_run(tmp_path: Path, original: str, melded: str, main: str, min_trips: int = 0) -> str:
    """The original and the melded file compiled together as host C++ (tests/meld/shim.h stands in for the
    built-ins), each in its namespace, with `main`; what it prints. A counted meld runs melded from
    `min_trips` trips (0: always; its versions below are the loops as written)."""
    melded = re.sub(r"^(#define PDCC_MELD_MIN_TRIPS_\w+) \d+$", rf"\1 {min_trips}", melded, flags=re.M)
    source = tmp_path / "k.cpp"
    source.write_text('#include "shim.h"\n#include <cstdio>\nnamespace original {\n' + original + "}\n"
                      "namespace melded {\n" + re.sub(r"^#line.*$", "", melded, flags=re.M) + "}\n" + main)
    return host_build_and_run(source, tmp_path).stdout


_COMPARE = ("  for (int i = 0; i < 64; i++) if (a[i] != b[i]) { printf(\"thread %d: %d %d\\n\", i, a[i], b[i]); return 1; }\n"
            "  puts(\"same\");\n}\n")


def test_a_divergent_branch_with_similar_sides_is_melded_with_selects():
    result = meld("#pragma meld\n  if (t & 1) { out[t] = in[t] * 3; } else { out[t] = in[t] * 5; }")
    assert "PDCC800" in rules_of(result)
    assert "const int k3_or_k5 = pdcc_then ? 3 : 5;" in result.text
    assert "out[t] = in[t] * k3_or_k5;" in result.text
    applied = next(r for r in result.remarks if r.rule.id == "PDCC800")
    assert applied.args["aligned"] == 2 and applied.args["selects"] == 1 and float(applied.args["score"]) >= 0.2


def test_operands_of_different_types_are_never_selected():
    """`c ? int : float` would convert the int to float: the two stores stay apart, each guarded."""
    result = meld("#pragma meld\n  if (t & 1) { f[t] = t; } else { f[t] = f[n]; }")
    assert "pdcc_then ? t : f[n]" not in result.text


def test_loads_meld_by_selecting_the_address_never_by_loading_both():
    result = meld("#pragma meld\n  if (t & 1) { out[t] = in[t + 1]; } else { out[t] = *(in + n); }")
    assert "PDCC800" in rules_of(result)
    assert "const int *const in_or_sum = pdcc_then ? &in[t + 1] : in + n;" in result.text
    assert "out[t] = *in_or_sum;" in result.text


def test_two_addresses_into_one_array_are_named_for_the_array():
    result = meld("#pragma meld\n  if (t & 1) { out[t] = in[t * 2 + n]; } else { out[t] = in[t + 1u]; }")
    assert "const int *const in_element = pdcc_then ? &in[t * 2 + n] : &in[t + 1u];" in result.text


def _meld_with_header(tmp_path: Path, header: str, defines: dict[str, str] | None = None):
    """A loop whose start and bound come from a macro of a header, melded."""
    (tmp_path / "tile.cuh").write_text(header)
    code = '#include "tile.cuh"\n__global__ void k(int* out) {\n  int t = threadIdx.x, i;\n#pragma meld\n' \
           "  if (t < BS) { for (i = 0; i < BS / 2; i++) out[i * 64 + t] = t; }\n" \
           "  else { for (i = BS / 2; i < BS; i++) out[i * 64 + t] = t; }\n}\n"
    (tmp_path / "m.cu").write_text(code)
    return transform_path(str(tmp_path / "m.cu"), defines=defines)


def test_a_macro_of_a_header_has_the_type_of_its_integer_value(tmp_path: Path):
    """`#define BS 16` in a header is an int: the loops' starts and bounds are selected operand by operand."""
    result = _meld_with_header(tmp_path, "#ifndef BS\n#define BS 16\n#endif\n")
    assert "for (i = pdcc_then ? 0 : BS / 2; i < (pdcc_then ? BS / 2 : BS); i++)" in result.text


@pytest.mark.parametrize("header, defines", [
    ("#ifndef BS\n#define BS 16\n#endif\n", {"BS": "16u"}),   # -D overrides the header's default: unsigned
    ("#ifdef WIDE\n#define BS 16l\n#else\n#define BS 16\n#endif\n", None),   # two types, one per branch
    ("#define BS (sizeof(int) * 4)\n", None),                   # not an integer literal
])
def test_a_macro_whose_type_pdcc_cannot_be_sure_of_is_not_selected_against_an_int(tmp_path: Path, header, defines):
    """`pdcc_then ? 0 : BS / 2` would convert 0 to BS's type, and `i < ...` would compare as that type: not
    made unless BS is an int wherever it may come from."""
    result = _meld_with_header(tmp_path, header, defines)
    assert "pdcc_then ? 0 : BS / 2" not in result.text


@pytest.mark.parametrize("header", [
    "#ifdef FAST\n#define BS 16\n#else\nstatic const unsigned BS = 16;\n#endif\n",   # a variable in one branch
    "#define BS 16\n#undef BS\ntemplate <unsigned BS> struct T {};\n",             # undefined, then a parameter
    "#define BS 16\n#undef BS\nenum : unsigned { BS = 16 };\n",                     # an enumerator
])
def test_a_macro_name_that_is_also_declared_or_undefined_has_no_type(tmp_path: Path, header):
    """Where BS is used it may be the unsigned variable: `pdcc_then ? t - 32 : BS` would divide as int."""
    (tmp_path / "tile.cuh").write_text(header)
    (tmp_path / "m.cu").write_text('#include "tile.cuh"\n__global__ void k(int* out, int m) {\n  int t = threadIdx.x;\n'
                                   "#pragma meld\n  if (t < 16) { out[t] = m / (t - 32); } else { out[t] = m / BS; }\n}\n")
    assert "pdcc_then ? t - 32 : BS" not in transform_path(str(tmp_path / "m.cu")).text


def test_integer_macros_come_from_the_file_its_headers_and_the_command_line(tmp_path: Path):
    (tmp_path / "tile.cuh").write_text("#define TILE 32u\n#define HALF(x) ((x) / 2)\n#define SKEW\n")
    (tmp_path / "m.cu").write_text('#include "tile.cuh"\n#define ROWS 0x10\n#if 0\n#define GONE 1\n#endif\n')
    unit = frontend.parse(SourceFile.load(str(tmp_path / "m.cu")),
                          defines={"DEPTH": "4", "MODE": "fast", "WIDE": "1'000", "UDL": "1_0"})
    assert ctype.integer_macros(unit) == {"ROWS": "int", "TILE": "unsigned int", "DEPTH": "int", "WIDE": "int"}


def test_selects_a_melded_loop_does_not_change_are_made_once_before_it():
    """Over constants and arrays only: their values are the loop's whole run long."""
    result = meld("  __shared__ int row[8][32], col[8][32];\n#pragma meld\n"
                  "  if (t & 1) { for (int k = 0; k < n; k++) row[2][k] += in[t] * 3; }\n"
                  "  else { for (int k = 0; k < n; k++) col[3][k] += in[n] * 5; }")
    before, loop = result.text.split("for (int k = 0;")
    for hoisted in ("const int k3_or_k5 = pdcc_then ? 3 : 5;",
                    "int (*const row_k2_or_col_k3)[32] = pdcc_then ? &row[2] : &col[3];"):
        assert hoisted in before
    assert "const int t_or_n = pdcc_then ? t : n;" in loop   # the user's variables: a call or alias may change them


@pytest.mark.parametrize("before, local, then, orelse, stays", [
    ("", "", "out[k] = in[k] * 3; out[k + n] = n / t + in[k];", "out[k] = in[k + 1] * 5; out[k + n] = t * 2 - in[k];",
     ["pdcc_then ? k : k + 1", "pdcc_then ? n / t : t * 2"]),          # the counter; a division may fault
    ("__device__ int g;\n__device__ void bump() { g += 1; }\n", "", "out[k] = in[k] * 3 + g; bump();",
     "out[k] = in[k] * 5 + n; bump();", ["pdcc_then ? g : n"]),          # a global a call changes
    ("__device__ void inc(int& v) { v += 1; }\n", "int acc = 1;", "out[k] = in[k] * 3 + acc; inc(acc);",
     "out[k] = in[k] * 5 + n; inc(acc);", ["pdcc_then ? acc : n"]),      # passed by reference
    ("", "int acc = 1; int* alias = &acc;", "out[k] = in[k] * 3 + acc; *alias += 1;",
     "out[k] = in[k] * 5 + n; *alias += 1;", ["pdcc_then ? acc : n"]),   # changed through a pointer to it
    ("", "", "const int x = t > 2 ? 1 : 2; out[k] = in[k] * 3 + x;",
     "const int x = t > 2 ? 1 : 2; out[k] = in[k] * 5 + x;", ["const int x = t > 2 ? 1 : 2;"]),  # the user's own
    # a third review's: a global named as a local elsewhere, a macro that writes, a reference through an
    # expression, a pointer a call makes
    ("__device__ int g;\n__device__ void bump() { g += 1; }\n", "if (n > 100) { int g = 5; out[0] = g; }",
     "out[k] = in[k] * 3 + g; bump();", "out[k] = in[k] * 5 + n; bump();", ["pdcc_then ? g : n"]),
    ("#define STEP_ACC acc += 1\n", "int acc = 1;", "out[k] = in[k] * 3 + acc; STEP_ACC;",
     "out[k] = in[k] * 5 + n; STEP_ACC;", ["pdcc_then ? acc : n"]),
    ("__device__ void inc(int& v) { v += 1; }\n", "int acc = 1;", "out[k] = in[k] * 3 + acc; inc(n > 0 ? acc : acc);",
     "out[k] = in[k] * 5 + n; inc(n > 0 ? acc : acc);", ["pdcc_then ? acc : n"]),
    ("__device__ int* ptr_of(int& r) { return &r; }\n", "int acc = 1; int* p = ptr_of(acc);",
     "out[k] = in[k] * 3 + acc; *p += 1;", "out[k] = in[k] * 5 + n; *p += 1;", ["pdcc_then ? acc : n"]),
])
def test_selects_that_a_melded_loop_may_change_or_that_read_memory_stay_in_it(before, local, then, orelse, stays):
    """The loop may run no iteration, and a call or an alias may change what a name holds."""
    body = f"  {local}\n#pragma meld\n  if (t & 1) {{ for (int k = 0; k < n; k++) {{ {then} }} }}\n" \
           f"  else {{ for (int k = 0; k < n; k++) {{ {orelse} }} }}"
    result = meld(body, before)
    loop = result.text[result.text.index("for (int k = 0;"):]
    assert "PDCC800" in rules_of(result) and all(inside in loop for inside in stays)


def test_an_address_through_a_pointer_to_pointers_stays_in_the_loop():
    """`&rows[i][t]` loads `rows[i]`: made before a loop that runs no iteration, it would read memory the
    program never read."""
    result = meld("#pragma meld\n  if (t & 1) { for (int j = 0; j < n; j++) rows[n][t] += 2.0f * j; }\n"
                  "  else { for (int j = 0; j < n; j++) *(f + t) += 3.0f * j; }", head="float **rows, float *f, int n")
    assert "pdcc_then ? &rows[n][t] : f + t" in result.text[result.text.index("for (int j = 0;"):]


def test_registers_stored_apart_keep_their_own_store():
    result = meld("  int a = 0, b = 0;\n#pragma meld\n  if (t & 1) { a = in[t] * 7 + 1; } else { b = in[t] * 5 + 2; }\n"
                  "  out[t] = a + b;")
    assert "PDCC800" in rules_of(result)
    assert "&a" not in result.text and "&b" not in result.text   # no address of a register


@pytest.mark.parametrize("body, rule, line, column", [
    ("#pragma meld\n  if (t & 1) { out[t] = 1; __syncthreads(); } else { out[t] = 2; }", "PDCC810", 5, 28),
    ("#pragma meld\n  if (t & 1) { out[t] = __shfl_sync(0xffffffffu, t, 0); } else { out[t] = t; }", "PDCC811", 5, 25),
    ("#pragma meld\n  if (t & 1) { out[t] = 1; return; } else { out[t] = 2; }", "PDCC813", 5, 28),
    ("#pragma meld\n  if (t & 1) { atomicAdd(out, 1); } else { out[0] += 1; }", "PDCC814", 5, 3),
    ("  __shared__ int s[32];\n#pragma meld\n  if (t & 1) { s[t % 32] = in[t]; } else { out[t] = in[t]; }\n"
     "  out[n] = s[t % 32];", "PDCC815", 6, 3),
    ("#pragma meld\n  if (t & 1) { __shared__ int s[4]; s[0] = 1; out[t] = s[0]; } else { out[t] = 2; }", "PDCC817", 5, 16),
    ("#pragma meld\n  if (n > 2) { out[t] = 1; } else { out[t] = 2; }", "PDCC803", 5, 6),
    ("  volatile int* v = out;\n#pragma meld\n  if (t & 1) { v[t] = 1; } else { out[t] = 2; }", "PDCC814", 6, 3),
    ("#pragma meld\n  if (t & 1) { cooperative_groups::this_thread_block().sync(); out[t] = 1; } else { out[t] = 2; }",
     "PDCC812", 5, 16),
    ("#pragma meld\n  if (t & 1) { out[t] = 1; goto done; } else { out[t] = 2; }\ndone:\n  out[0] = 0;", "PDCC813", 5, 28),
    ("  for (int i = 0; i < n; i++) {\n#pragma meld\n  if (t & 1) { out[t] = i; continue; } else { out[t] = 2; }\n  }",
     "PDCC813", 6, 28),
])
def test_refusals_name_their_reason_and_place(body, rule, line, column):
    result = meld(body)
    remark = next(r for r in result.remarks if r.rule.id == rule)
    assert (remark.location.line, remark.location.column) == (line, column)
    assert "PDCC800" not in rules_of(result)
    assert "pdcc_then" not in result.text


@pytest.mark.parametrize("helper, rule, words", [
    ("__device__ void settle(int* p) { p[0] = 1; __syncthreads(); }", "PDCC810",
     "'settle', which the branch calls, synchronises threads, and melding would change which threads reach the "
     "barrier together ('__syncthreads' in 'settle')"),
    ("__device__ int lanes() { return __popc(__activemask()); }\n"
     "__device__ void settle(int* p) { p[0] = lanes(); }", "PDCC811", "('__activemask' in 'lanes')"),
    ("namespace tile { __device__ void settle(int* p) { asm volatile(\"\"); } }", "PDCC817", "inline assembly"),
    ("#define settle(p) __syncthreads()", "PDCC810", "macro 'settle' stands for '__syncthreads'"),   # a macro's
    ("#define SHFL __shfl_sync\n#define settle(p) ((p)[0] = SHFL(~0u, (p)[0], 0))", "PDCC811",
     "macro 'settle' stands for '__shfl_sync'"),
    ("#define settle(p) (threadIdx.x + (__syncthreads(), 0))", "PDCC810", "stands for '__syncthreads'"),  # every word
    ("#ifndef SYNCED\n#define settle(p)\n#else\n#define settle(p) __syncthreads()\n#endif", "PDCC810",
     "stands for '__syncthreads'"),   # every definition
])
def test_a_callee_that_synchronises_or_talks_within_its_warp_is_not_melded(helper: str, rule: str, words: str):
    """Melding runs both sides' calls of one function as one call by all the threads: a callee whose barrier,
    warp intrinsic or assembly sees which threads run it together would see others."""
    call = "tile::settle" if "namespace" in helper else "settle"
    result = meld(f"#pragma meld\n  if (t & 1) {{ {call}(out); out[t] = 1; }} else {{ {call}(out + n); out[t] = 2; }}",
                  before=helper + "\n")
    remark = next(r for r in result.remarks if r.rule.id == rule)
    assert words in remark.message and "PDCC800" not in rules_of(result) and "pdcc_then" not in result.text


@pytest.mark.parametrize("macro, side, rule", [
    ("#define BARRIER __syncthreads()", "BARRIER;", "PDCC810"),                  # an object-like macro
    ("#define SMEM __shared__", "SMEM float s[4]; s[t & 3] = 1; out[t] = s[0];", "PDCC817"),
    ("__device__ int lane_sum(int v) { return __shfl_down_sync(~0u, v, 1); }\n#define SUM(v) lane_sum(v)",
     "out[t] = SUM(n);", "PDCC811"),                                            # a macro's call of a function
    ("__device__ int ext(int);\n#define EXT(v) ext(v)", "out[t] = EXT(n);", "PDCC817"),   # of another unit's
])
def test_a_macro_that_stands_for_a_barrier_shared_memory_or_a_warp_call_is_not_melded(macro: str, side: str, rule: str):
    result = meld(f"#pragma meld\n  if (t & 1) {{ {side} out[t] = 1; }} else {{ {side} out[t] = 2; }}",
                  before=macro + "\n")
    assert rule in rules_of(result) and "PDCC800" not in rules_of(result) and "pdcc_then" not in result.text


def test_a_macro_of_the_command_line_is_seen_by_the_meld_refusals():
    result = meld("#pragma meld\n  if (t & 1) { SYNC(); out[t] = 1; } else { SYNC(); out[t] = 2; }",
                  defines={"SYNC()": "__syncthreads()"})
    assert "PDCC810" in rules_of(result) and "PDCC800" not in rules_of(result) and "pdcc_then" not in result.text


def test_a_callee_in_a_header_is_seen_by_the_meld_refusals(tmp_path: Path):
    (tmp_path / "tile.cuh").write_text("__device__ inline void settle(int* p) { p[0] = __shfl_sync(~0u, p[0], 0); }\n")
    code = '#include "tile.cuh"\n__global__ void k(int* out, int n) {\n  int t = threadIdx.x;\n#pragma meld\n' \
           "  if (t & 1) { settle(out); out[t] = 1; } else { settle(out + n); out[t] = 2; }\n}\n"
    (tmp_path / "m.cu").write_text(code)
    result = transform_path(str(tmp_path / "m.cu"))
    (remark,) = [r for r in result.remarks if r.rule.id == "PDCC811"]
    assert (remark.location.line, remark.location.column) == (5, 16) and "('__shfl_sync' in 'settle')" in remark.message


def test_a_volatile_pointer_elsewhere_in_the_file_does_not_make_its_initialiser_volatile():
    before = "__global__ void other(int* out) {\n  volatile int* v = out;\n  v[0] = 1;\n}\n"
    result = meld("#pragma meld\n  if (t & 1) { out[t] = in[t] * 3; } else { out[t] = in[t] * 5; }", before=before)
    assert "PDCC800" in rules_of(result) and "PDCC814" not in rules_of(result)


def test_an_else_if_chain_without_a_final_else_melds_and_keeps_the_threads_that_take_no_branch(tmp_path):
    result = meld("#pragma meld\n  if (t & 1) { out[t] = in[t] * 3; } else if (t & 2) { out[t] = in[t] * 5; }")
    assert "PDCC800" in rules_of(result)
    original = meld("  if (t & 1) { out[t] = in[t] * 3; } else if (t & 2) { out[t] = in[t] * 5; }").text
    main = ("int main() {\n  int in[64], a[64], b[64]; float f[1];\n"
            "  for (int i = 0; i < 64; i++) { in[i] = i * 7 - 100; a[i] = b[i] = -1; }\n"
            "  for (unsigned t = 0; t < 64; t++) { threadIdx.x = t; original::k(a, in, f, 3); melded::k(b, in, f, 3); }\n"
            + _COMPARE)
    ran = host_run(tmp_path, original, result.text, main)
    assert ran == "same\n", ran + result.text


def test_short_arithmetic_on_both_sides_is_left_as_written():
    result = meld("  int v = in[t];\n#pragma meld\n  if (v < 0) { v = -v; v += n >> 1; v /= n; v = -v; } "
                  "else { v += n >> 1; v /= n; }\n  out[t] = v;")
    remark = next(r for r in result.remarks if r.rule.id == "PDCC805")
    assert (remark.args["then_cost"], remark.args["else_cost"]) == (38, 28)
    assert "pdcc_then" not in result.text


def test_loops_that_step_differently_and_are_not_counted_do_not_count_their_memory_accesses_as_saved():
    """A loop stepping by two against one stepping by one melds into a loop whose step is a select: not a
    counted loop, not unrolled (a forward and a backward merge ran 0.56x melded that way by hand at runs of
    64), so its accesses save nothing."""
    result = meld("#pragma meld\n  if (t & 1) { for (int i = 0; i < n; i += 2) out[t * n + i] = in[i] * 3; } "
                  "else { for (int i = n - 1; i >= 0; i--) out[t * n + i] = in[i] * 5; }")
    remark = next(r for r in result.remarks if r.rule.id == "PDCC802")
    assert "the two loops step or test differently" in remark.message
    counted = meld("#pragma meld\n  if (t & 1) { for (int i = 0; i < n; i++) out[t * n + i] = in[i] * 3; } "
                   "else { for (int i = 1; i < n; i++) out[t * n + i] = in[i] * 5; }")
    assert "PDCC800" in rules_of(counted)
    assert "for (int i = pdcc_then ? 0 : 1; i < n; i++)" in counted.text


def test_counted_loops_walking_opposite_ways_meld_into_one_counted_loop():
    """`i` up from 0 and `i` down from n - 1 both run n times: one loop over the trip number, each side's
    counter derived from it, so nvcc sees a counted loop again."""
    result = meld("#pragma meld\n  if (t & 1) { for (int i = 0; i < n; i++) out[t * n + i] = in[i] * 3; } "
                  "else { for (int i = n - 1; i >= 0; i--) out[t * n + i] = in[i] * 5; }")
    assert "PDCC800" in rules_of(result), result.remarks
    assert "for (int i_step = 0; i_step < n; ++i_step) {" in result.text
    assert "const int i = pdcc_then ? i_step : n - 1 - i_step;" in result.text
    different = meld("#pragma meld\n  if (t & 1) { for (int i = 2; i <= n; i++) out[t * n + i] = in[i] * 3; } "
                     "else { for (int i = n; i > 0; --i) out[t * n + i] = in[i] * 5; }")
    assert "PDCC800" not in rules_of(different)   # n - 1 trips against n: the trip count would take arithmetic


def test_a_counted_pair_only_scored_leaves_no_trip_count_knob():
    """The then side's up-loop could pair with the else side's down-loop (a counted meld), but the identical
    down-loops align instead: no versioned loop is written, so no PDCC_MELD_MIN_TRIPS knob either."""
    loop = "for (int k = 2 * n - 1; k >= n; --k) { out[k] = in[k] * 3 + in[k + 1] * 5 + in[k + 2]; f[k] = in[k] * 7; }"
    result = meld(f"#pragma meld\n  if (t % 2 == 0) {{\n    for (int k = 0; k < n; ++k) {{ out[k] = in[k] + 1; }}\n"
                  f"    {loop}\n  }} else {{\n    {loop}\n  }}")
    assert "PDCC800" in rules_of(result)
    assert "_step" not in result.text and "PDCC_MELD_MIN_TRIPS" not in result.text
    assert [k.kind for k in result.knobs] == ["meld_threshold"]


@pytest.mark.parametrize("loop", ["for (int i = m; i < n; i += 2) {}", "for (unsigned i = n; i > 0; --i) {}",
                                  "for (int i = 0; i < n; i++) { n--; }", "for (int i = 0; i < n; i++) { i++; }",
                                  "for (int i = 0; i < n; i++) { bump(n); }", "for (int i = 0; i != n; i++) {}",
                                  "for (int i = 0; i < in[0]; i++) {}", "for (long i = 0; i < n; i++) {}",
                                  "for (int i = 0; i < n; i--) {}"])
def test_what_is_not_a_counted_loop(loop):
    """A step other than one, an unsigned counter (its trip count would wrap), a bound or counter the body
    changes (or may, through a reference), a test other than an ordering, a bound read from memory, a
    bound of another type than the counter, a step away from the bound."""
    assert _counted(loop) is None


@pytest.mark.parametrize("loop, trips", [("for (int i = 0; i < n; i++) {}", "n"), ("for (int i = n - 1; i >= 0; --i) {}", "n"),
                                         ("for (int i = 2 * n - 1; i >= n; i--) {}", "n"), ("for (int i = 1; n >= i; i += 1) {}", "n"),
                                         ("for (int i = m; i < m + 8; ++i) {}", "8"), ("for (int i = n; i > m; i -= 1) {}", None),
                                         ("for (long long i = 0; i < 4; i++) {}", "4"),
                                         ("for (int i = n - 2000000000; i < n + 2000000000; ++i) {}", None)])
def test_a_counted_loop_knows_its_trip_count(loop, trips):
    """As C only where it is one name or a constant (pdcc adds no arithmetic that could overflow)."""
    counted = _counted(loop)
    assert counted is not None
    expression = counted.trips.expression()
    assert (printer.expression(expression) if expression is not None else None) == trips


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("name, before, then, orelse", [
    # the bound changes through a reference the function made: the loops re-read it, a counted meld would not
    ("alias", "  int c = n;\n  int& r = c;\n", "for (int k = 0; k < c; ++k) out[t * 16 + k] = k * 3 + t;",
     "for (int k = c - 1; k >= 0; --k) { out[t * 16 + k] = k * 3 + t; r--; }"),
    # the bound is a file variable a call may change
    ("global", "", "for (int k = 0; k < limit; ++k) out[t * 16 + k] = k * 3 + t;",
     "for (int k = limit - 1; k >= 0; --k) { out[t * 16 + k] = k * 3 + t; consume(); }"),
    # the else loop reads the outer `i`, which the then loop's counter of the same name would hide
    ("capture", "  int i = n;\n", "for (int i = 0; i < m; ++i) out[t * 16 + i] = i * 3 + t;",
     "for (int j = i - 1; j >= 0; --j) out[t * 16 + j] = j * 3 + t;"),
    # a class whose < and > disagree: `b > a` is not `a < b`
    ("class", "  V a{n}, b{m};\n", "if (a < b) out[t] = 1; else out[t] = 2;", "if (b > a) out[t] = 3; else out[t] = 4;"),
])
def test_melding_keeps_what_the_loops_and_comparisons_read(name, before, then, orelse, tmp_path):
    """Review findings, each compiled as host C++ before and after melding for every thread and bound."""
    kernel = ("struct V { int x; __device__ bool operator<(V o) const { return x < o.x; }\n"
              "  __device__ bool operator>(V o) const { return x >= o.x; } };\n"
              "__device__ int limit = 4;\n__device__ void consume() { limit = limit - 1; }\n"
              "__global__ void k(int* out, int n, int m) {\n  int t = threadIdx.x;\n" + before +
              f"#pragma meld\n  if (t & 1) {{\n    {then}\n  }} else {{\n    {orelse}\n  }}\n}}\n")
    result = transform(SourceFile("k.cu", kernel.encode()))
    if name != "capture":
        assert "_step" not in result.text, result.text
    main = ("int main() {\n  static int a[256], b[256];\n"
            "  for (int n = -3; n < 10; n++) for (int m = -3; m < 10; m++) {\n"
            "    for (int i = 0; i < 256; i++) a[i] = b[i] = -1;\n"
            "    for (unsigned t = 0; t < 8; t++) { threadIdx.x = t; original::limit = melded::limit = n;\n"
            "      original::k(a, n, m); melded::k(b, n, m); }\n"
            "    for (int i = 0; i < 256; i++) if (a[i] != b[i]) { printf(\"n %d m %d: %d %d %d\\n\", n, m, i, a[i], b[i]); return 1; }\n"
            "  }\n  puts(\"same\");\n}\n")
    ran = host_run(tmp_path, kernel, result.text, main)
    assert ran == "same\n", ran + result.text


def _counted(loop: str):
    code = f"__device__ void bump(int& x);\n__global__ void k(const int* in, int n, int m) {{\n  {loop}\n}}\n" \
           "void host() { k<<<1, 1>>>(0, 0, 0); }\n"   # a launch: the front end parses the file
    unit = frontend.parse(SourceFile("c.cu", code.encode()))
    function = next(f for f in unit.functions if f.name == "k")
    statement = next(n for n in walk(function.node) if n.type == "for_statement")
    lifted = lift.statement(unit, statement, trees=True)
    assert isinstance(lifted, ir.For)
    return counted_loop.of(lifted, unit.analysis(ctype.of_function, function.node), writes.stable_names(unit, function.node))


def test_a_mirrored_comparison_is_the_same_comparison():
    result = meld("#pragma meld\n  if (t & 1) { if (in[t] <= in[n]) out[t] = in[t]; } "
                  "else { if (in[n] >= in[t]) out[t] = in[n]; }")
    assert "PDCC800" in rules_of(result)
    assert "if (in[t] <= in[n])" in result.text and ">=" not in result.text.split("pdcc_then")[-1]


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("run", [0, 1, 5, -3])
@pytest.mark.parametrize("min_trips", [0, 3, 256])
def test_a_forward_and_a_backward_merge_melded_into_one_counted_loop_merge_the_same(run, min_trips, tmp_path):
    """The merge sample's shape (two threads per pair of runs, one merging from the front, one from the
    back), compiled as host C++ before and after melding: every thread writes the same keys, whether the
    counted meld or its version for short trip counts (the loops as written) runs."""
    kernel = ("__global__ void k(const int* in, int* out, int run) {\n  int t = threadIdx.x;\n"
              "  const int* a = in + t / 2 * 2 * (run > 0 ? run : 0);\n  const int* b = a + run;\n"
              "  int* merged = out + t / 2 * 2 * (run > 0 ? run : 0);\n#pragma meld\n"
              "  if (t % 2 == 0) {\n    int i = 0, j = 0;\n    for (int k = 0; k < run; ++k) {\n"
              "      int x = a[i], y = b[j];\n      if (x <= y) { merged[k] = x; ++i; } else { merged[k] = y; ++j; }\n"
              "    }\n  } else {\n    int i = run - 1, j = run - 1;\n    for (int k = 2 * run - 1; k >= run; --k) {\n"
              "      int x = a[i], y = b[j];\n      if (y >= x) { merged[k] = y; --j; } else { merged[k] = x; --i; }\n"
              "    }\n  }\n}\n")
    result = transform(SourceFile("k.cu", kernel.encode()))
    assert "PDCC800" in rules_of(result), result.remarks
    assert "k_step < run" in result.text and "if (run >= PDCC_MELD_MIN_TRIPS_k_0) {" in result.text
    main = ("#include <algorithm>\nint main() {\n  const int run = " + str(run) + ", m = 8 * (run > 0 ? run : 1);\n"
            "  static int in[4096], a[4096], b[4096];\n"
            "  for (int i = 0; i < m; i++) in[i] = (int)(((unsigned)i * 2654435761u) >> 24) % 7;\n"
            "  for (int i = 0; i + run <= m && run > 0; i += run) std::sort(in + i, in + i + run);\n"
            "  for (int i = 0; i < m; i++) a[i] = b[i] = -1;\n"
            "  for (unsigned t = 0; t < 8; t++) { threadIdx.x = t; original::k(in, a, run); melded::k(in, b, run); }\n"
            + _COMPARE.replace("i < 64", "i < m"))
    ran = host_run(tmp_path, kernel, result.text, main, min_trips)
    assert ran == "same\n", ran + result.text


def test_a_break_inside_a_loop_of_the_branch_does_not_leave_it():
    result = meld("#pragma meld\n  if (t & 1) { for (int i = 0; i < n; i++) { if (in[i]) break; out[i] = i * 3; } }"
                  " else { for (int i = 0; i < n; i++) { if (in[i]) break; out[i] = i * 5; } }")
    assert "PDCC813" not in rules_of(result)


def test_divergence_is_found_through_variables_and_loads():
    result = meld("  int v = in[t];\n  int w = v * 2;\n#pragma meld\n  if (w > 3) { out[t] = 1; } else { out[t] = 2; }")
    assert "PDCC803" not in rules_of(result)
    uniform = meld("  int w = n * 2;\n#pragma meld\n  if (w > blockIdx.x) { out[t] = 1; } else { out[t] = 2; }")
    remark = next(r for r in uniform.remarks if r.rule.id == "PDCC803")
    assert "w > blockIdx.x" in remark.message
    # A kernel's parameter is the same in every thread; a device function's may not be.
    branch = "#pragma meld\n  if (n & 1) { out[0] = 1; } else { out[0] = 2; }\n}\n"
    kernel = transform(SourceFile("k.cu", f"__global__ void k(int* out, int n) {{\n{branch}".encode()))
    device = transform(SourceFile("d.cu", f"__device__ void d(int* out, int n) {{\n{branch}".encode()))
    assert "PDCC803" in rules_of(kernel) and "PDCC800" in rules_of(device)
    # A __shared__ scalar one thread sets reads the same in every thread of the block; a local it sets does not,
    # nor (the analysis goes by name) a shared one that a local of another scope shadows, nor a volatile one.
    for flag, rule in (("__shared__ int w;", "PDCC803"), ("int w = 0;", "PDCC800"),
                       ("__shared__ int w;\n  for (int w = 0; w < t; w++) out[w] = 0;", "PDCC800"),
                       ("volatile __shared__ int w;", "PDCC800")):
        shared = meld(f"  {flag}\n  if (t == 0) w = in[0];\n  __syncthreads();\n#pragma meld\n"
                      "  if (w > 3) { out[t] = t * 3; } else { out[t] = t * 5; }")
        assert rule in rules_of(shared), (flag, rules_of(shared))


def test_the_threshold_decides_and_the_knob_overrides_it():
    body = "#pragma meld threshold(0.45)\n  if (t & 4) { out[t] = t * 3; out[t + 1] = 7; } else { out[t] = t * 5; f[t] = 1.0f; }"
    below = meld(body)
    assert "PDCC802" in rules_of(below) and "pdcc_then" not in below.text
    lowered = meld(body, defines={"PDCC_MELD_THRESHOLD_k_0": "0.1"})
    assert "PDCC800" in rules_of(lowered)
    assert [k.macro for k in lowered.knobs] == ["PDCC_MELD_THRESHOLD_k_0"]
    report = json.loads(render_json(lowered.remarks, "test", lowered.knobs))
    assert report["knobs"][0]["kind"] == "meld_threshold"


def test_a_knob_outside_zero_to_one_is_an_error_at_the_pragma():
    with pytest.raises(PdccError) as raised:
        meld("#pragma meld\n  if (t & 1) { out[t] = 1; } else { out[t] = 2; }", defines={"PDCC_MELD_THRESHOLD_k_0": "3"})
    assert raised.value.remark.rule.id == "PDCC102" and "between 0 and 1" in raised.value.remark.message


def test_a_threshold_named_by_a_macro_must_come_from_the_command_line():
    body = "#pragma meld threshold(MY_T)\n  if (t & 1) { out[t] = t * 3; } else { out[t] = t * 5; }"
    with pytest.raises(PdccError) as raised:
        meld(body)
    assert "-DMY_T=0.3" in raised.value.remark.hint
    assert "PDCC800" in rules_of(meld(body, defines={"MY_T": "0.1"}))


def test_auto_melds_divergent_branches_without_a_pragma_and_only_reports_what_it_melds():
    code = ("__global__ void k(int *out, const int *in, int n)\n{\n  int t = threadIdx.x;\n"
            "  if (t & 1) { out[t] = in[t] * 3; } else { out[t] = in[t] * 5; }\n"
            "  if (n > 2) { out[0] = 1; } else { out[0] = 2; }\n"
            "#pragma meld off\n  if (t & 2) { out[t] = in[t] * 3; } else { out[t] = in[t] * 5; }\n}\n")
    result = transform(SourceFile("a.cu", code.encode()), auto="threshold(32)")
    assert rules_of(result) == ["PDCC800", "PDCC801"]
    assert result.text.count("const bool pdcc_then") == 1
    again = transform(SourceFile("a.cu", result.text.encode()), auto="threshold(32)")
    assert again.text == result.text


def test_auto_melds_a_file_that_has_no_pragma_and_no_launch():
    # Such a file is not parsed at all without --auto; with it, its device code is read.
    code = ("__device__ int pick(int t, const int *in)\n{\n  int r;\n"
            "  if (t & 1) { r = in[t] * 3; } else { r = in[t] * 5; }\n  return r;\n}\n"
            "__global__ void k(int *out, const int *in)\n{\n  int t = threadIdx.x;\n"
            "  if (t & 1) { out[t] = in[t] * 3; } else { out[t] = in[t] * 5; }\n}\n")
    result = transform(SourceFile("a.cu", code.encode()), auto="threshold(32)")
    # Both melded: a device function's parameter `t` may hold each thread's own value.
    assert rules_of(result).count("PDCC800") == 2 and result.text.count("const bool pdcc_then") == 2
    assert transform(SourceFile("a.cu", code.encode())).text == code   # nothing without --auto


def test_a_meld_in_host_code_is_a_missed_remark():
    code = "void h(int *o, int t) {\n#pragma meld\n  if (t & 1) { o[0] = 1; } else { o[0] = 2; }\n}\n"
    result = transform(SourceFile("h.cu", code.encode()))
    assert "PDCC817" in rules_of(result) and "pdcc_then" not in result.text


def test_a_pragma_inside_a_melded_branch_goes_with_it():
    result = meld("#pragma meld\n  if (t & 1) {\n#pragma meld\n    if (t & 2) { out[t] = 1; } else { out[t] = 2; }\n"
                  "  } else {\n    if (t & 2) { out[t] = 3; } else { out[t] = 4; }\n  }")
    assert rules_of(result).count("PDCC800") == 1 and "PDCC817" not in rules_of(result)
    assert next(r for r in result.remarks if r.rule.id == "PDCC800").site == "k_0"   # the outer one
    assert result.text.count("const bool pdcc_then") == 1
    assert "// pdcc: #pragma meld" in result.text and "\n#pragma meld" not in result.text


# --- the alignment --------------------------------------------------------------------------------

@settings(max_examples=200, derandomize=True)
@given(st.lists(st.integers(0, 4), max_size=8), st.lists(st.integers(0, 4), max_size=8))
def test_the_alignment_keeps_both_orders_and_every_element_once(left, right):
    pairs = alignment.smith_waterman(left, right, lambda i, j: 10.0 if left[i] == right[j] else None, 3)
    lefts = [i for i, _ in pairs if i is not None]
    rights = [j for _, j in pairs if j is not None]
    assert sorted(lefts) == list(range(len(left))) and sorted(rights) == list(range(len(right)))
    aligned = [(i, j) for i, j in pairs if i is not None and j is not None]
    assert all(left[i] == right[j] for i, j in aligned)
    assert aligned == sorted(aligned) and [j for _, j in aligned] == sorted(j for _, j in aligned)


def test_the_alignment_finds_the_best_common_run():
    left, right = ["a", "x", "b", "c"], ["a", "b", "y", "c"]
    pairs = alignment.smith_waterman(left, right, lambda i, j: 10.0 if left[i] == right[j] else None, 1)
    assert [(i, j) for i, j in pairs if i is not None and j is not None] == [(0, 0), (2, 1), (3, 3)]


def test_darm_costs():
    from pycparser import c_parser
    tree = c_parser.CParser().parse("void f() { x = a[i] / b + c * d - e; }").ext[0].body.block_items[0]
    assert alignment.cost(tree) == alignment.MEMORY + alignment.DIVISION + alignment.MULTIPLICATION + \
        2 * alignment.ADDITION


# ---- an else-if chain's selects over the comparisons its conditions are made of ---------------------------

STENCIL = """\
  int tx = t % 16, ty = t / 16;
  int v;
#pragma meld
  if (ty == 0 && tx == 0) { v = in[n + tx]; out[t] = v * 3; }
  else if (ty == 0 && tx == 15) { v = in[n + tx]; out[t] = v * 5; }
  else if (ty == 0) { v = in[n + tx]; out[t] = v * 7; }
  else { v = in[t - 16]; out[t] = v * 9; }
"""


def test_a_chains_select_is_read_off_the_truth_table_of_its_comparisons():
    """Three arms take one address, the last another: which one is `ty == 0`, whatever tx is, so the select
    is that one comparison (as written by hand), and the arms' flags nothing reads any more are gone."""
    result = meld(STENCIL)
    assert "PDCC800" in rules_of(result)
    assert "const int sum_or_difference = ty == 0 ? n + tx : t - 16;" in result.text
    assert "ty == 0 ? (tx == 0 ? 3 : (tx == 15 ? 5 : 7)) : 9" in result.text  # one select per value, in order
    assert "pdcc_then" not in result.text.split("meld site")[1]


def test_a_condition_over_a_variable_the_block_writes_stays_its_flag():
    """`u & 1` read where the select is would see the u the first arm changed: the flag, evaluated at the
    top, is what the select reads."""
    result = meld("  int u = in[t];\n#pragma meld\n  if (t < 4) { u = in[n]; out[t] = u + 1; }\n"
                  "  else if ((u & 1) != 0) { u = in[n + 1]; out[t] = u + 1; }\n  else { out[t] = in[t + 2]; }")
    assert "PDCC800" in rules_of(result)
    text = result.text
    assert "const bool pdcc_then_2 = (u & 1) != 0;" in text
    assert "const int n_or_sum = t < 4 ? n : n + 1;" in text                   # t is never written: opened
    assert "const int sum_or_in = pdcc_then || pdcc_then_2 ? u + 1 : in[t + 2];" in text  # two selects over
    # the comparisons would take more than this one


@pytest.mark.parametrize("flags, select, expected", [
    # two arms of three agree: one comparison decides
    ({"a": "x == 0 && y == 0", "b": "x == 0"}, "a || b ? p : q", "x == 0 ? p : q"),
    # no single comparison settles a value: the nested select stays
    ({"a": "x == 0", "b": "y == 0"}, "a ? p : (b ? q : r)", "x == 0 ? p : (y == 0 ? q : r)"),
    # a select that is one flag already reads its comparison instead
    ({"a": "x == 0"}, "a ? p : q", "x == 0 ? p : q"),
])
def test_chain_selects_unit(flags: dict[str, str], select: str, expected: str):
    from pycparser import c_parser
    from pragmadp import ir
    from pragmadp.transforms import chain_selects
    from pragmadp.transforms.melding import _text

    parse = lambda e: c_parser.CParser().parse(f"void f() {{ {e}; }}").ext[0].body.block_items[0]  # noqa: E731
    declarations = [ir.Declaration("const bool", name, parse(c)) for name, c in flags.items()]
    items = chain_selects.simplified([*declarations, ir.ExprStmt(parse(select))],
                                     {d.name: d.init for d in declarations}, _text)
    assert [i for i in items if isinstance(i, ir.Declaration)] == []  # no flag is read any more
    assert _text(items[-1].expr) == expected


@pytest.mark.parametrize("literal, kind", [
    ("0", "int"), ("2147483647", "int"), ("2147483648", "long"), ("3000000000", "long"), ("0x7fffffff", "int"),
    ("0x80000000", "unsigned int"), ("0xFFFFFFFF", "unsigned int"), ("0x100000000", "long"), ("017", "int"),
    ("020000000000", "unsigned int"), ("0b1", "int"), ("1'000'000", "int"), ("4294967296u", "unsigned long"),
    ("0xffffffffu", "unsigned int"), ("0x8000000000000000", "unsigned long"), ("1LLU", "unsigned long long"),
    ("5ll", "long long"), ("9223372036854775808", None), ("-3000000000", "long"), ("-2147483648", "long"),
    ("-0x80000000", "unsigned int"), ("-7", "int")])
def test_an_integer_literal_has_the_first_type_of_its_list_that_holds_it(literal, kind):
    # [lex.icon]: a select between two literals is declared with their type, so a wrong one changes values.
    from pycparser import c_ast
    from pragmadp.analysis.ctype import _literal
    assert _literal(c_ast.Constant("number", literal)) == kind


_LITERAL_MELDS = {  # branch pairs whose literals are not ints; melded into an int select they change value
    "sign": "out[t] = (in[t] & 0x80000000) > 1;", "other": "out[t] = (in[t] & 0x40000000) > 1;",
    "divide": "out[t] = in[t] / 0xFFFFFFFF;", "by3": "out[t] = in[t] / 3;",
    "wide": "out[t] = (int)((in[t] * 3000000000) >> 32);", "narrow": "out[t] = (int)((in[t] * 7) >> 1);",
    "negative": "out[t] = (int)((in[t] * -3000000000) >> 32);", "small": "out[t] = (int)((in[t] * -7) >> 1);"}


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")
@pytest.mark.parametrize("then, orelse, melded", [("sign", "other", True), ("wide", "narrow", True), ("negative", "small", True),
                                                  ("divide", "by3", False)])  # unsigned int against int: no select
def test_melded_literals_keep_their_values(then, orelse, melded, tmp_path):
    """The original and the melded kernel, compiled as host C++ (tests/meld/shim.h), agree for every thread
    on inputs of both signs."""
    kernel = ("__global__ void k(int* out, const int* in) {\n  int t = threadIdx.x;\n#pragma meld\n"
              f"  if (t % 3 == 0) {{\n    {_LITERAL_MELDS[then]}\n  }} else {{\n    {_LITERAL_MELDS[orelse]}\n  }}\n}}\n")
    result = transform(SourceFile("k.cu", kernel.encode()))
    assert [r.rule.id for r in result.remarks if r.kind.value == "applied"] == (["PDCC800"] if melded else []), \
        result.remarks
    main = ("int main() {\n  int in[64], a[64], b[64];\n"
            "  for (int i = 0; i < 64; i++) in[i] = (int)((unsigned)i * 2654435761u);\n"
            "  for (unsigned t = 0; t < 64; t++) { threadIdx.x = t; original::k(a, in); melded::k(b, in); }\n" + _COMPARE)
    ran = host_run(tmp_path, kernel, result.text, main)
    assert ran == "same\n", ran + result.text


def test_a_call_of_a_device_function_of_another_translation_unit_is_not_melded():
    result = meld("#pragma meld\n  if (t & 1) { settle(out); out[t] = 1; } else { settle(out + n); out[t] = 2; }",
                  before="__device__ void settle(int* p);\n")
    remark = next(r for r in result.remarks if r.rule.id == "PDCC817")
    assert "'settle', which the branch calls, is or calls a device function of another translation unit" \
           in remark.message and "pdcc_then" not in result.text



@pytest.mark.parametrize("before, call, rule, words", [
    ("  auto lanes = [&](int v) { return v + __popc(__activemask()); };\n", "lanes", "PDCC811",
     "'lanes', a lambda the branch calls: '__activemask' exchanges values"),
    ("  auto plain = [&](int v) { return v * 3; };\n", "plain", None, ""),
])
def test_a_lambda_a_side_calls_is_looked_into(before: str, call: str, rule: str | None, words: str):
    result = meld(before + f"#pragma meld\n  if (t & 1) {{ out[t] = {call}(in[t]); }} else {{ out[t] = {call}(in[n]); }}")
    if rule is None:
        assert "PDCC800" in rules_of(result)
    else:
        remark = next(r for r in result.remarks if r.rule.id == rule)
        assert words in remark.message and "pdcc_then" not in result.text


@pytest.mark.parametrize("local, head", [
    ("", "int *out, const int *in, int (*op)(int), int n"),                        # a parameter
    ("  Sync op;\n", "int *out, const int *in, int n"),                          # a local declared without a value
])
def test_a_function_object_or_pointer_a_side_calls_is_not_melded(local: str, head: str):
    before = "struct Sync { __device__ int operator()(int v) const { __syncthreads(); return v; } };\n"
    result = meld(local + "#pragma meld\n  if (t & 1) { out[t] = op(in[t]); } else { out[t] = op(in[n]); }",
                  before, head=head)
    remark = next(r for r in result.remarks if r.rule.id == "PDCC817")
    assert "'op' is a function object or pointer, whose body pdcc does not see" in remark.message
