"""Fuzzing pdcc (issue 9): generated pragmas against the C preprocessor's rules, mutated real CUDA files,
and a sampled nvcc build of valid variants of real files.

Every property holds for every input: no traceback (a PdccError with a location is an answer, an
InternalError is a bug), a valid pragma is never silently ignored, same input same output, pdcc on its
own output changes nothing, and what nvcc compiles before pdcc it compiles after.

Hypothesis runs derandomized (fixed seeds, no example database), so CI sees the same inputs every run.
Each form the fuzzing once found broken is pinned in a regression list with its exact input.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_cuda
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, nvcc_compile
from pragmadp.pipeline import InternalError, transform
from pragmadp.report.remarks import Kind, PdccError
from pragmadp.source import SourceFile

FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow])

# ---- the outcome of one transformation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What pdcc made of one input: the text and remarks, or the error; equal outcomes mean the same answer."""

    text: str | None
    remarks: tuple[tuple, ...]
    error: tuple | None


def outcome(text: str, path: str = "fuzz.cu") -> Outcome:
    """Runs pdcc's pipeline on `text`; a traceback (an InternalError included) fails the test with the input."""
    try:
        result = transform(SourceFile(path, text.encode("utf-8")))
    except InternalError as exc:
        raise AssertionError(f"internal error on input {text!r}:\n{exc.details}") from exc
    except PdccError as exc:
        loc = exc.remark.location
        assert loc.file == path and loc.line >= 1 and loc.column >= 1, exc.remark.render_text()
        return Outcome(None, (), (exc.remark.rule.id, loc.line, loc.column, exc.remark.message))
    remarks = tuple((r.kind, r.rule.id, r.site, r.location, r.message) for r in result.remarks)
    return Outcome(result.text, remarks, None)


# ---- (a) generated pragmas, the C preprocessor as the oracle ---------------------------------------------------

KERNEL = "__global__ void child(int* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }\n"
LAUNCH = "  child<<<(n + 31) / 32, 32>>>(x, n);\n"
PRAGMA_LINE = 3  # the physical line the generated pragma starts on

WHITESPACE = [" ", "\t", "  "]
SPLICES = ["\\\n", " \\\n", "\\\n  "]


@dataclass(frozen=True)
class GeneratedPragma:
    text: str      # the physical lines, without the final newline
    logical: str   # what the preprocessor sees: splices joined, comments replaced by a space
    valid: bool


def _clause(draw) -> tuple[str, list[str], bool]:
    """A clause as (name, tokens, valid)."""
    value = st.one_of(st.integers(0, 10 ** 6).map(str), st.integers(1, 4096).map(hex),
                      st.integers(1, 4096).map(lambda v: f"0{v:o}"), st.sampled_from(["TUNED", "MY_T", "N_1"]))
    positive = st.one_of(st.integers(1, 64).map(str), st.sampled_from(["FACTOR"]))
    kind = draw(st.sampled_from(["threshold", "coarsen", "consldt", "misspelled", "bad value"]))
    if kind == "threshold":
        return "threshold", ["threshold", "(", draw(value), ")"], True
    if kind == "coarsen":
        return "coarsen", ["coarsen", "(", draw(positive), ")"], True
    if kind == "consldt":
        granularity = draw(st.sampled_from(["warp", "block", "grid", "multiblock"]))
        tail = ["(", draw(positive), ")"] if granularity == "multiblock" else []
        return "consldt", ["consldt", "(", granularity, *tail, ")"], True
    if kind == "misspelled":
        return "treshold", [draw(st.sampled_from(["treshold", "coarsn", "frobnicate"])), "(", "4", ")"], False
    name, bad = draw(st.sampled_from([("threshold", "-4"), ("threshold", "1.5"), ("coarsen", "0"),
                                      ("consldt", "blok")]))
    return name, [name, "(", *bad.split(" "), ")"], False


def _word(token: str) -> bool:
    return bool(re.fullmatch(r"\w+", token))


@st.composite
def pragmas(draw) -> GeneratedPragma:
    """`#pragma dp` with clauses, spaced, commented and continued as a preprocessor allows (or not)."""
    clauses = [_clause(draw) for _ in range(draw(st.integers(1, 3)))]
    names = [name for name, _tokens, _valid in clauses]
    valid = all(ok for _name, _tokens, ok in clauses) and len(set(names)) == len(names)
    tokens = ["pragma", "dp"] + [token for _name, clause_tokens, _ok in clauses for token in clause_tokens]
    comments = ["/* tuned */", " /**/ "]
    physical = [draw(st.sampled_from(["", " ", "\t", "/**/ "])), "#", draw(st.sampled_from(["", "/**/"] + WHITESPACE))]
    for previous, token in zip(tokens, tokens[1:]):
        if _word(previous) and _word(token):  # the gap must keep the two words apart
            gap = draw(st.sampled_from(WHITESPACE + comments + [" \\\n", "\\\n  "]))
        else:
            gap = draw(st.sampled_from([""] + WHITESPACE + comments + SPLICES))
        physical += [previous, gap]
    physical.append(tokens[-1])
    if draw(st.booleans()):  # a splice inside a word (physical[3] is `pragma`, physical[5] `dp`)
        k = draw(st.sampled_from([k for k, part in enumerate(physical) if _word(part) and len(part) > 1]))
        cut = draw(st.integers(1, len(physical[k]) - 1))
        physical[k] = physical[k][:cut] + "\\\n" + physical[k][cut:]
    physical.append(draw(st.sampled_from(["", " ", "\t", " // tuned"] + comments)))
    text = "".join(physical)
    return GeneratedPragma(text, preprocessed(text), valid)


def preprocessed(text: str) -> str:
    """Translation phases 2 and 3 of C: splices joined, then each comment one space, whitespace collapsed."""
    joined = re.sub(r"/\*.*?\*/", " ", text.replace("\\\n", ""))
    return " ".join(joined.split("//", 1)[0].split())


def program(pragma: str) -> str:
    return KERNEL + "__global__ void parent(int* x, int n) {\n" + pragma + "\n" + LAUNCH + "}\n"


def check_pragma(pragma: GeneratedPragma) -> None:
    """No traceback; a valid pragma gets a remark at its site; an invalid one a located PDCC1xx error."""
    result = outcome(program(pragma.text), "e.cu")
    last_line = PRAGMA_LINE + pragma.text.count("\n")
    if pragma.valid:
        assert result.error is None, f"{pragma.text!r} is valid ({pragma.logical!r}) but: {result.error}"
        kinds = {kind for kind, _rule, site, _loc, _msg in result.remarks if site == "parent_0"}
        assert kinds & {Kind.APPLIED, Kind.MISSED}, f"{pragma.text!r} was ignored: {result.remarks}"
    else:
        assert result.error is not None, f"{pragma.text!r} is invalid ({pragma.logical!r}) but was accepted"
        rule, line, _column, _message = result.error
        assert rule.startswith("PDCC1") and PRAGMA_LINE <= line <= last_line, (pragma.text, result.error)


@settings(FUZZ, max_examples=1000)
@given(pragmas())
def test_generated_pragmas(pragma: GeneratedPragma):
    check_pragma(pragma)


@FUZZ
@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_characters="\x7f"), max_size=40))
def test_any_text_after_pragma_dp_is_answered(clauses: str):
    """Whatever follows `#pragma dp`: remarks, or an error from the pragma on (a `/*` or a splice may carry
    it into the next lines), never a traceback."""
    result = outcome(program("#pragma dp " + clauses), "e.cu")
    assert result.error is None or result.error[1] >= PRAGMA_LINE, (clauses, result.error)


@pytest.mark.parametrize("pragma", [
    "# pragma dp threshold(4)",
    "#\tpragma dp threshold(4)",
    "  #  pragma  dp  threshold( 4 )",
    "#/**/pragma dp threshold(4)",
    "#pragma dp /* tuned */ threshold(128)",
    "#pragma dp threshold(128 /* tuned */)",
    "#pragma dp thre\\\nshold(4)",
    "#pragma dp coarsen( \\\nFACTOR\\\n)",
    "#pragma dp threshold(0200)",
    "#p\\\nragma dp threshold(4)",
])
def test_pragma_forms_the_preprocessor_accepts(pragma: str):
    """Each form was ignored, rejected or a crash once (issue 9 item 11)."""
    check_pragma(GeneratedPragma(pragma, preprocessed(pragma), valid=True))


# ---- (b) mutated real CUDA files ---------------------------------------------------------------------------------

CORPUS = sorted(ROOT.glob("samples/*/*_dp.cu")) + sorted(
    path for path in (ROOT / "tests" / "golden").glob("*.cu") if not path.name.endswith(".expected.cu"))
TOKENS = ["{", "}", ";", "(", ")", ",", "<<<", ">>>", "\\\n", "/*", "*/", "//", '"', "'", "#", "\n", "\t",
          "#pragma dp threshold(8)\n", "#pragma dp consldt(block)\n", "#pragma dp coarsen(2)\n", "#if 0\n",
          "#endif\n", "__global__", "template <typename T>", "return;", "__syncthreads();", "µ", "\ufeff",
          "child<<<n>>>(x, n);", "k<<<1, 1>>>();", "int", "dim3", "blockIdx.x", "0", "-1", "1e9"]


@st.composite
def mutated_files(draw) -> tuple[Path, str]:
    """A corpus file with 1 to 3 mutations: delete, duplicate or swap lines, insert a token, drop a list item
    (an argument, a launch's configuration value), truncate, change a byte."""
    path = draw(st.sampled_from(CORPUS))
    text = path.read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 3))):
        lines = text.splitlines(keepends=True) or [""]
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        at = draw(st.integers(0, len(text)))
        commas = [m.start() for m in re.finditer(",", text)] or [0]
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "drop", "truncate", "change"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        if kind in ("delete", "duplicate", "swap"):
            text = "".join(lines)
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "drop":  # from a comma up to the next comma, `)` or `>>>`
            comma = draw(st.sampled_from(commas))
            end = re.compile(r"[,)>]").search(text, comma + 1)
            text = text[:comma] + text[end.start() if end else len(text):]
        elif kind == "truncate":
            text = text[:at]
        else:
            text = text[:at] + draw(st.characters(min_codepoint=9, max_codepoint=126)) + text[at + 1:]
    return path, text


def check_mutated(path: Path, text: str) -> None:
    """No traceback, same answer twice, pdcc's output is a fixed point of pdcc, and input that parses
    without an error node gives output that does too (the syntactic part of valid in, valid out)."""
    name = str(path)  # local includes resolve beside the original, as in a build
    first = outcome(text, name)
    assert outcome(text, name) == first, f"two runs differ on {text!r}"
    if first.text is None or first.text == text:
        return
    again = outcome(first.text, name)
    assert again.error is None and again.text == first.text, f"pdcc changes its own output of {text!r}"
    if not _has_error_node(text):
        assert not _has_error_node(first.text), f"pdcc's output of {text!r} does not parse"


def _has_error_node(text: str) -> bool:
    tree = _PARSER.parse(text.encode("utf-8"))
    return tree.root_node.has_error


_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


@settings(FUZZ, max_examples=400)
@given(mutated_files())
def test_mutated_real_files(case: tuple[Path, str]):
    check_mutated(*case)


def test_a_launch_with_one_configuration_value_is_answered():
    """Found by this fuzzer (issue 9 item 10): an IndexError in the launch rewriting once."""
    check_mutated(ROOT / "tests" / "golden" / "fuzz.cu", program("#pragma dp threshold(4)").replace(
        "child<<<(n + 31) / 32, 32>>>(x, n);", "child<<<n>>>(x, n);"))


# ---- (c) a sampled nvcc build: what nvcc compiles before pdcc, it compiles after ----------------------------------

CLAUSE_SETS = ["threshold(1)", "threshold(4096)", "coarsen(3)", "threshold(32) coarsen(2)", "consldt(warp)",
               "consldt(block) agg_threshold(2)", "consldt(grid)", "consldt(multiblock(2)) buffer(pool, 8)",
               "threshold(64) coarsen(4) consldt(block)", "threshold(TUNED_T)"]
PRAGMA = re.compile(r"^([ \t]*#[ \t]*pragma[ \t]+dp)[ \t]+(?!off\b).*$", re.MULTILINE)


def valid_variant(seed: int) -> tuple[Path, str]:
    """A corpus file whose pragmas get other valid clauses, with blank lines and comments added: the
    kind of change after which nvcc still compiles the input."""
    rng = random.Random(seed)
    path = rng.choice(CORPUS)
    text = PRAGMA.sub(lambda m: f"{m.group(1)} {rng.choice(CLAUSE_SETS)}", path.read_text(encoding="utf-8"))
    lines = text.splitlines(keepends=True)
    for _ in range(3):  # lines move: the #line directives must follow
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["\n", "// fuzz\n", "/* fuzz */\n"]))
    return path, "".join(lines)


@pytest.mark.nvcc
@pytest.mark.parametrize("seed", range(5))
def test_valid_in_valid_out_with_nvcc(seed: int, tmp_path: Path):
    path, text = valid_variant(seed)
    includes = [f"-I{path.parent}", f"-I{ROOT / 'samples' / 'common'}", "-DTUNED_T=64"]  # a value's macro is the user's
    (tmp_path / "before.cu").write_text(text, encoding="utf-8")
    before = nvcc_compile(tmp_path / "before.cu", tmp_path, *includes)
    assert before.returncode == 0, f"variant {seed} of {path.name} is not valid CUDA:\n{before.stderr}"
    result = outcome(text, str(path))
    assert result.error is None, f"variant {seed} of {path.name}: {result.error}"
    (tmp_path / "after.cu").write_text(result.text, encoding="utf-8")
    after = nvcc_compile(tmp_path / "after.cu", tmp_path, *includes)
    assert after.returncode == 0, f"pdcc's output of variant {seed} of {path.name} does not compile:\n{after.stderr}"
