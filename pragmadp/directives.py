"""The pragma language: Lark parse tree -> typed directive objects with source spans.

The grammar (grammar/pragma.lark) decides what is well-formed; this module decides what is
meaningful (value kinds and ranges, duplicates, conflicts) and turns every problem into a
compiler-style error at the exact bytes of the offending text.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import lark

from pragmadp.report import rules
from pragmadp.report.remarks import PdccError, Rule
from pragmadp.source import SourceFile, Span

# The grammar is designed at the top of the repository; a wheel carries a copy inside the package (setup.py's
# build step puts it there), which is looked for first.
_PACKAGED_GRAMMAR = Path(__file__).resolve().parent / "grammar" / "pragma.lark"
GRAMMAR_PATH = _PACKAGED_GRAMMAR if _PACKAGED_GRAMMAR.is_file() else \
    Path(__file__).resolve().parent.parent / "grammar" / "pragma.lark"

DP_CLAUSES = ("threshold", "coarsen", "consldt", "agg_threshold", "buffer", "work", "threads", "blocks")
MELD_CLAUSES = ("threshold",)
GRANULARITIES = ("warp", "block", "multiblock", "grid")
BUFFER_KINDS = ("pool", "default", "malloc")


@functools.cache
def _parser() -> lark.Lark:
    return lark.Lark(GRAMMAR_PATH.read_text(), parser="lalr", propagate_positions=True)


# A C integer literal (decimal, octal, hex or binary, with its u/l suffixes) and a decimal floating literal.
_INTEGER = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU](ll|LL|l|L)?|(ll|LL|l|L)[uU]?)?")
_FLOATING = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?[fFlL]?")
_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words that cannot be macro names a user defines for a value: C++ keywords and the standard type names.
NOT_MACROS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
dim3 uint3 threadIdx blockIdx blockDim gridDim""".split())


@dataclass(frozen=True)
class Value:
    """A clause value: an integer or decimal literal, or a macro name the user defines."""

    text: str
    span: Span

    @property
    def is_macro(self) -> bool:
        return _MACRO_NAME.fullmatch(self.text) is not None

    def number(self) -> float | int | None:
        """The value of a C integer literal (None past 2^64 - 1, which no C type holds) or of a decimal
        floating literal; None for anything else."""
        if _INTEGER.fullmatch(self.text):
            digits = self.text.rstrip("uUlL")
            sign = -1 if digits.startswith("-") else 1
            digits = digits.lstrip("+-")
            base = 16 if digits[:2] in ("0x", "0X") else 2 if digits[:2] in ("0b", "0B") else 8 if digits[0] == "0" else 10
            magnitude = int(digits[2:] if base in (16, 2) else digits, base)
            return sign * magnitude if magnitude < 1 << 64 else None
        if _FLOATING.fullmatch(self.text):
            return float(self.text.rstrip("fFlL"))
        return None


@dataclass(frozen=True)
class Clause:
    name: str
    span: Span


@dataclass(frozen=True)
class Threshold(Clause):
    value: Value


@dataclass(frozen=True)
class Coarsen(Clause):
    value: Value


@dataclass(frozen=True)
class Consolidate(Clause):
    granularity: str              # warp | block | multiblock | grid
    blocks_per_group: Value | None  # K of multiblock(K)


@dataclass(frozen=True)
class AggThreshold(Clause):
    value: Value


@dataclass(frozen=True)
class Buffer(Clause):
    kind: str                     # pool | malloc (`default` is accepted as pool)
    capacity: Value | None


@dataclass(frozen=True)
class Work(Clause):
    names: tuple[str, ...]


@dataclass(frozen=True)
class Threads(Clause):
    expression: Value   # C code, evaluated where each level's consumer is launched


@dataclass(frozen=True)
class Blocks(Clause):
    expression: Value


@dataclass(frozen=True)
class MeldThreshold(Clause):
    value: Value


C = TypeVar("C", bound=Clause)


@dataclass(frozen=True)
class Directive:
    """One `#pragma dp` or `#pragma meld`; `span` covers the whole `#pragma` line(s)."""

    family: str                   # "dp" | "meld"
    span: Span
    off: bool
    clauses: tuple[Clause, ...]

    def clause(self, kind: type[C]) -> C | None:
        return next((c for c in self.clauses if isinstance(c, kind)), None)

    @property
    def text(self) -> str:
        return " ".join(c.name for c in self.clauses) or ("off" if self.off else "")


def char_offsets(text: str, start: int) -> list[int]:
    """The offsets of a text's characters written contiguously from byte `start`, then of its end."""
    offsets = [start]
    for character in text:
        offsets.append(offsets[-1] + len(character.encode()))
    return offsets


def pragma_family(pragma_text: str) -> str | None:
    """'dp' or 'meld' when the text after `#pragma` belongs to pdcc, else None (e.g. `unroll`)."""
    match = re.match(r"\s*(dp|meld)\b", pragma_text)
    return match.group(1) if match else None


def parse_directive(source: SourceFile, pragma_span: Span, text: str, offsets: Sequence[int]) -> Directive:
    """Parses the text of one pragma (after `#pragma`, as the preprocessor sees it) into a checked Directive.
    `offsets` holds the file offset of each character of `text`, then of its end, for the error locations."""

    def span_of(start: int, end: int) -> Span:  # character offsets in `text` -> file bytes
        start, end = min(start, len(text)), min(max(start, end), len(text))
        if end == start:  # a point: just after the character before it (not past a splice or comment)
            point = offsets[start - 1] + len(text[start - 1].encode()) if start else offsets[0]
            return Span(point, point)
        return Span(offsets[start], offsets[end - 1] + len(text[end - 1].encode()))

    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise _syntax_error(source, text, exc, span_of) from None
    pragma = tree.children[0]
    assert isinstance(pragma, lark.Tree)   # the grammar's start rule is one dp_pragma or meld_pragma
    family = "dp" if pragma.data == "dp_pragma" else "meld"
    off = any(isinstance(child, lark.Token) and child.type == "OFF" for child in pragma.children)
    builder = _ClauseBuilder(source, family, span_of)
    clauses = tuple(builder.build(child) for child in pragma.children if isinstance(child, lark.Tree))
    directive = Directive(family, pragma_span, off, clauses)
    _check_combination(source, directive)
    return directive


def _syntax_error(source: SourceFile, text: str, exc: lark.exceptions.UnexpectedInput, span_of):
    pos = getattr(exc, "pos_in_stream", None)
    if pos is None or pos < 0:
        pos = len(text)
    token = getattr(exc, "token", None)
    found: str | None = None  # the text met instead of what the grammar expects; None at the pragma's end
    if token is not None and token.type == "$END":
        pos = len(text.rstrip())
    elif token is not None:
        found = str(token)
    elif pos < len(text):
        found = text[pos]
    expected = sorted(_describe(name) for name in (getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()))
    length = len(str(token)) if token is not None and token.type != "$END" else 1
    span, described = span_of(pos, pos + max(1, length)), ", ".join(dict.fromkeys(expected))
    if found is None:
        return source.error(rules.PRAGMA_SYNTAX, span, "ends-early", expected=described)
    return source.error(rules.PRAGMA_SYNTAX, span, "unexpected", found=found, expected=described)


_TERMINAL_WORDS = {"LPAR": "'('", "RPAR": "')'", "COMMA": "','", "NAME": "a name", "SIGNED_NUMBER": "a number", "OTHER_VALUE": "a value",
                   "OPERATOR": "an operator", "OFF": "'off'", "$END": "end of pragma",
                   "<END-OF-FILE>": "end of pragma"}


def _describe(terminal: str) -> str:
    return _TERMINAL_WORDS.get(terminal.upper(), f"'{terminal.lower()}'")


class _ClauseBuilder:
    """Turns each clause subtree into its typed Clause, checking values as it goes."""

    def __init__(self, source: SourceFile, family: str, span_of):
        self.source = source
        self.family = family
        self.span_of = span_of
        self.seen: dict[str, Span] = {}

    def span(self, node) -> Span:
        if isinstance(node, lark.Token):
            return self.span_of(node.start_pos, node.end_pos)
        return self.span_of(node.meta.start_pos, node.meta.end_pos)

    def error(self, rule: Rule, node, message: str, /, **args) -> PdccError:
        return self.source.error(rule, self.span(node), message, **args)

    def misspelt(self, rule: Rule, token, message: str, choices: Sequence[str], cutoff: float,
                 /, **args) -> PdccError:
        """An unknown word: the error `message`, or `message`-suggested naming the closest of `choices`."""
        close = difflib.get_close_matches(str(token), choices, n=1, cutoff=cutoff)
        if close:
            return self.error(rule, token, f"{message}-suggested", suggestion=close[0], **args)
        return self.error(rule, token, message, **args)

    def build(self, node: lark.Tree) -> Clause:
        name = "threshold" if node.data == "meld_threshold" else str(node.data)
        if name == "unknown_clause":
            raise self._unknown(node)
        span = self.span(node)
        if name in self.seen:
            first = self.source.location(self.seen[name].start)
            raise self.source.error(rules.DUPLICATE_CLAUSE, span, "duplicate", clause=name, first_column=first.column)
        self.seen[name] = span
        args = node.children
        if name == "threshold":
            kind = MeldThreshold if self.family == "meld" else Threshold
            check = self._fraction if self.family == "meld" else functools.partial(self._integer, minimum=0)
            return kind(name, span, check(args[0], name))
        if name == "coarsen":
            return Coarsen(name, span, self._integer(args[0], name, minimum=1))
        if name == "agg_threshold":
            return AggThreshold(name, span, self._integer(args[0], name, minimum=1))
        if name == "consldt":
            return self._consolidate(span, args[0])
        if name == "buffer":
            return self._buffer(span, args)
        if name == "work":
            return Work(name, span, tuple(str(token) for token in args))
        at = self.span(args[0])
        return (Threads if name == "threads" else Blocks)(name, span, Value(self.source.text(at), at))

    def _unknown(self, node: lark.Tree) -> Exception:
        token = node.children[0]
        known = DP_CLAUSES if self.family == "dp" else MELD_CLAUSES
        return self.misspelt(rules.UNKNOWN_CLAUSE, token, "unknown", known, 0.6, clause=str(token), family=self.family,
                             known=", ".join(known))

    def _value(self, node: lark.Tree) -> Value:
        token = node.children[0]
        value = Value(str(token), self.span(token))
        if value.is_macro and value.text in NOT_MACROS:
            raise self.error(rules.BAD_VALUE, node, "keyword", value=value.text)
        return value

    def _integer(self, node: lark.Tree, clause: str, minimum: int) -> Value:
        value = self._value(node)
        number = value.number()
        if value.is_macro or (isinstance(number, int) and number >= minimum):
            return value
        if minimum == 0:
            raise self.error(rules.BAD_VALUE, node, "not-non-negative", clause=clause, value=value.text)
        raise self.error(rules.BAD_VALUE, node, "below-minimum", clause=clause, value=value.text, minimum=minimum)

    def _fraction(self, node: lark.Tree, clause: str) -> Value:
        value = self._value(node)
        number = value.number()
        if value.is_macro or (number is not None and 0 <= number <= 1):
            return value
        raise self.error(rules.BAD_VALUE, node, "not-a-fraction", clause=clause, value=value.text)

    def _consolidate(self, span: Span, node: lark.Tree) -> Consolidate:
        name_token, argument = node.children
        granularity = str(name_token)
        if granularity not in GRANULARITIES:
            raise self.misspelt(rules.BAD_VALUE, name_token, "granularity", GRANULARITIES, 0.5, granularity=granularity)
        if granularity == "multiblock":
            if argument is None:
                raise self.error(rules.BAD_VALUE, name_token, "multiblock-count")
            return Consolidate("consldt", span, granularity, self._integer(argument, "multiblock", minimum=1))
        if argument is not None:
            raise self.error(rules.BAD_VALUE, argument, "granularity-argument", granularity=granularity)
        return Consolidate("consldt", span, granularity, None)

    def _buffer(self, span: Span, args: list) -> Buffer:
        kind_token, capacity = args
        kind = str(kind_token)
        if kind not in BUFFER_KINDS:
            raise self.misspelt(rules.BAD_VALUE, kind_token, "buffer-kind", BUFFER_KINDS, 0.5, kind=kind)
        value = self._integer(capacity, "buffer", minimum=1) if capacity is not None else None
        return Buffer("buffer", span, "pool" if kind == "default" else kind, value)


def _check_combination(source: SourceFile, directive: Directive) -> None:
    """Clauses that are each fine but make no sense together."""
    if directive.family == "dp" and not directive.off and not directive.clauses:
        raise source.error(rules.CONFLICTING_CLAUSES, directive.span, "no-clause")
    if directive.off and directive.clauses:
        raise source.error(rules.CONFLICTING_CLAUSES, directive.clauses[0].span, "off-with-clauses")
    consolidate = directive.clause(Consolidate)
    needs_consolidation = [c for c in directive.clauses if isinstance(c, (AggThreshold, Buffer, Work, Threads, Blocks))]
    if needs_consolidation and consolidate is None:
        clause = needs_consolidation[0]
        raise source.error(rules.CONFLICTING_CLAUSES, clause.span, "needs-consldt", clause=clause.name)
    aggregate_threshold = directive.clause(AggThreshold)
    if aggregate_threshold and consolidate is not None and consolidate.granularity not in ("warp", "block"):
        raise source.error(rules.CONFLICTING_CLAUSES, aggregate_threshold.span, "agg-threshold-granularity",
                           granularity=consolidate.granularity)
