"""The pragma language: every clause parses into its typed directive, with spans; property tests
generate whole pragmas (clauses, values, spacing, line continuations) and arbitrary garbage."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pragmadp import directives as d
from pragmadp.cuda.pragmas import pdcc_pragmas
from pragmadp.pipeline import transform_path
from pragmadp.report.remarks import PdccError
from pragmadp.source import SourceFile


def parse(text: str) -> d.Directive:
    """The directive of `  #pragma TEXT`, read as the preprocessor reads it."""
    source = SourceFile("p.cu", f"  #pragma {text}\n".encode())
    pragma = pdcc_pragmas(source.preprocessor)[0]
    return d.parse_directive(source, pragma.span, pragma.text, pragma.offsets)


def test_the_seed_form_parses_verbatim():
    directive = parse("dp consldt(block) buffer(default, 256) work(work_item)")
    consolidate, buffer, work = directive.clauses
    assert (consolidate.granularity, consolidate.blocks_per_group) == ("block", None)
    assert (buffer.kind, buffer.capacity.text) == ("pool", "256")
    assert work.names == ("work_item",)


def test_every_clause():
    directive = parse("dp threshold(128) coarsen(COARSE) consldt(block) agg_threshold(4) buffer(malloc) "
                      "work(a, b) threads(n * (2 + k)) blocks(max(1, n / 32))")
    by_type = {type(c): c for c in directive.clauses}
    assert by_type[d.Threshold].value.number() == 128
    assert by_type[d.Coarsen].value.is_macro and by_type[d.Coarsen].value.text == "COARSE"
    assert by_type[d.Consolidate].granularity == "block"
    assert parse("dp consldt(multiblock(8))").clauses[0].blocks_per_group.text == "8"
    assert by_type[d.AggThreshold].value.number() == 4
    assert (by_type[d.Buffer].kind, by_type[d.Buffer].capacity) == ("malloc", None)
    assert by_type[d.Work].names == ("a", "b")
    assert by_type[d.Threads].expression.text == "n * (2 + k)"
    assert by_type[d.Blocks].expression.text == "max(1, n / 32)"


def test_off_and_meld():
    assert parse("dp off").off and parse("dp off").clauses == ()
    meld = parse("meld threshold(0.25)")
    assert meld.family == "meld" and meld.clauses[0].value.number() == 0.25
    assert parse("meld").clauses == () and parse("meld off").off


def test_spans_point_at_the_clause_text():
    source_text = "  #pragma dp threshold(0x80) coarsen(4)\n"
    directive = parse("dp threshold(0x80) coarsen(4)")
    threshold, coarsen = directive.clauses
    assert source_text.encode()[threshold.span.start:threshold.span.end] == b"threshold(0x80)"
    assert source_text.encode()[coarsen.value.span.start:coarsen.value.span.end] == b"4"
    assert threshold.value.number() == 128


def test_pragma_family_ignores_other_pragmas():
    assert d.pragma_family("unroll 4") is None
    assert d.pragma_family("dpx threshold(3)") is None
    assert d.pragma_family(" dp threshold(3)") == "dp"


# --- property tests ---------------------------------------------------------------------------

names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True)
integers = st.integers(min_value=1, max_value=1 << 20)
values = st.one_of(integers.map(str), integers.map(hex), names)
spaces = st.sampled_from([" ", "  ", "\t", " \\\n  "])

clauses = {
    "threshold": values.map(lambda v: f"threshold({v})"),
    "coarsen": values.map(lambda v: f"coarsen({v})"),
    "consldt": st.one_of(st.sampled_from(["warp", "block", "grid"]),
                         values.map(lambda v: f"multiblock({v})")).map(lambda g: f"consldt({g})"),
    "buffer": st.tuples(st.sampled_from(["pool", "default", "malloc"]), st.one_of(st.none(), values)).map(
        lambda t: f"buffer({t[0]})" if t[1] is None else f"buffer({t[0]}, {t[1]})"),
    "work": st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), min_size=1, max_size=3).map(
        lambda ns: f"work({', '.join(ns)})"),
}


@st.composite
def pragmas(draw):
    chosen = draw(st.lists(st.sampled_from(sorted(clauses)), unique=True, min_size=1))
    if any(c in ("buffer", "work") for c in chosen) and "consldt" not in chosen:
        chosen.append("consldt")
    texts = [draw(clauses[name]) for name in chosen]
    separators = [draw(spaces) for _ in texts]
    return chosen, "dp" + "".join(sep + text for sep, text in zip(separators, texts))


@given(pragmas())
@settings(max_examples=300, deadline=None)
def test_generated_pragmas_parse_into_their_clauses(case):
    chosen, text = case
    directive = parse(text)
    assert [c.name for c in directive.clauses] == chosen
    line = f"  #pragma {text}\n".encode()
    for clause in directive.clauses:
        clause_text = line[clause.span.start:clause.span.end].decode()
        assert clause_text.startswith(clause.name + "(") and clause_text.endswith(")")


@given(st.text(alphabet="dpthresoldcanw()0123456789,_ -+.\\\n", max_size=40))
@settings(max_examples=500, deadline=None)
def test_any_text_parses_or_fails_with_a_located_error(garbage):
    text = "dp " + garbage.replace("\n", " ")
    try:
        parse(text)
    except PdccError as error:
        remark = error.remark
        assert remark.rule.id.startswith("PDCC1")
        assert remark.location.line == 1
        assert 3 <= remark.location.column <= len(f"  #pragma {text}") + 1  # the pragma, or text in it


def test_comments_inside_a_pragma_are_ignored():
    assert [c.name for c in parse("dp threshold(64) // tuned on H200").clauses] == ["threshold"]
    assert [c.name for c in parse("dp /* first */ threshold(64) /* then */ coarsen(2)").clauses] == ["threshold", "coarsen"]


def test_pragmas_pdcc_cannot_see_are_reported_not_ignored(tmp_path):
    (tmp_path / "kernels.cuh").write_text("__global__ void c(int* x) {}\n// note\n#pragma dp threshold(8)\n")
    (tmp_path / "quiet.cuh").write_text("/* an example:\n#pragma dp threshold(8)\n*/\n")
    code = ('#include "kernels.cuh"\n#include "absent.cuh"\n#define DP _Pragma("dp threshold(64)")\n'
            "__global__ void p(int* x) { c<<<1, 32>>>(x); }  // _Pragma(\"dp off\")\n"
            '#include "quiet.cuh"\nconst char* s = "// not a comment"; /* _Pragma("dp x") */\n')
    (tmp_path / "p.cu").write_text(code)
    remarks = [r for r in transform_path(str(tmp_path / "p.cu")).remarks if r.rule.id == "PDCC602"]
    assert [(r.location.line, r.location.column) for r in remarks] == [(3, 12), (1, 10)]
    assert "'_Pragma(\"dp ...\")'" in remarks[0].message and "'#pragma dp ...'" in remarks[0].message
    assert "'kernels.cuh' has '#pragma dp' at line 3" in remarks[1].message and remarks[1].kind.value == "missed"
