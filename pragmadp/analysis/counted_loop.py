"""Counted loops: `for (T k = start; k < end; ++k)` and its three mirror forms, with their trip counts.

Melding a loop that walks up with one that walks down (a merge from the front and one from the back)
needs one loop both sides can run: a counted loop over the trip number, each side's counter derived from
it. This analysis says when a loop is one, how many times it runs (as a linear form over the names its
bounds read, so `end - start` of two loops can be compared), and where its counter starts and goes.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import ctype
from pragmadp.cgen import printer
from pragmadp.directives import Value
from pragmadp.source import Span

# Signed counters only: with an unsigned one, `end - start` of a loop that does not run wraps to a huge
# trip count instead of a negative one.
SIGNED_COUNTERS = frozenset({"int", "long", "long long", "signed", "long int", "long long int", "signed int"})
_STEPS = {"++": 1, "p++": 1, "--": -1, "p--": -1}
# what the test `k OP end`, stepping by `step`, adds to the distance: `k <= end` runs end - start + 1 times
_TESTS = {("<", 1): 0, ("<=", 1): 1, (">", -1): 0, (">=", -1): 1}
MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}   # `a < b` is `b > a`


@dataclass(frozen=True)
class Linear:
    """`constant + sum(coefficient * atom)`, an atom being an expression (by its text) of names only."""

    constant: int = 0
    terms: tuple[tuple[str, int], ...] = ()
    atoms: dict[str, c_ast.Node] = field(default_factory=dict, compare=False, hash=False)

    def plus(self, other: Linear, sign: int = 1) -> Linear:
        terms = dict(self.terms)
        for atom, coefficient in other.terms:
            terms[atom] = terms.get(atom, 0) + sign * coefficient
        return Linear(self.constant + sign * other.constant,
                      tuple(sorted((a, c) for a, c in terms.items() if c != 0)), {**self.atoms, **other.atoms})

    def times(self, factor: int) -> Linear:
        terms = tuple((a, c * factor) for a, c in self.terms) if factor else ()
        return Linear(self.constant * factor, terms, self.atoms)

    def expression(self) -> c_ast.Node | None:
        """The form as C when it is one atom, or a constant that an `int` holds (every counter type here
        does): no arithmetic that the loops did not do, so no new overflow; else None."""
        if not self.terms:
            return c_ast.Constant("int", str(self.constant)) if 0 <= self.constant < 2 ** 31 else None
        if len(self.terms) == 1 and self.terms[0][1] == 1 and self.constant == 0:
            return copy.deepcopy(self.atoms[self.terms[0][0]])
        return None


@dataclass(frozen=True)
class Counted:
    """A counted loop: its counter's name and type, where it starts, which way it steps, how often."""

    counter: str
    type: str
    start: c_ast.Node
    step: int
    trips: Linear


def of(loop: ir.For, types: ctype.Types, stable: frozenset[str]) -> Counted | None:
    """The loop as a counted loop, or None: a declared signed counter stepped by one, tested against a
    bound that nothing in the loop changes, and not written (nor its address taken) in the body. The
    bounds may read only constants and `stable` names (`writes.stable_names`: changed only by writes that
    name them) that the body does not write: the trip count is then fixed when the loop starts."""
    if not isinstance(loop.init, ir.DeclarationExpr) or loop.init.declaration.init is None:
        return None
    declaration = loop.init.declaration
    counter, kind = declaration.name, ctype.normalise(declaration.type)
    if kind not in SIGNED_COUNTERS or not counter.isidentifier():
        return None
    step = _step(loop.step, counter)
    test = _test(loop.cond, counter)
    if step is None or test is None:
        return None
    op, end = test
    if (op, step) not in _TESTS:
        return None
    start = _linear(declaration.init)
    bound = _linear(end)
    if start is None or bound is None:
        return None
    read = {n.name for part in (declaration.init, end) for n in ir.expression_nodes(part) if isinstance(n, c_ast.ID)}
    if not read <= stable or _written(loop.body) & (read | {counter}):
        return None
    for part in (declaration.init, end):   # the bounds must have the counter's type (no mixed comparison)
        if types.of(part) not in (kind, "int") or types.of(part) == "int" and kind != "int" and \
                not isinstance(part, c_ast.Constant):
            return None
    trips = bound.plus(start, -1) if step == 1 else start.plus(bound, -1)
    return Counted(counter, kind, declaration.init, step, trips.plus(Linear(_TESTS[(op, step)])))


def _step(step: c_ast.Node | None, counter: str) -> int | None:
    if isinstance(step, c_ast.UnaryOp) and step.op in _STEPS and _is(step.expr, counter):
        return _STEPS[step.op]
    if isinstance(step, c_ast.Assignment) and step.op in ("+=", "-=") and _is(step.lvalue, counter) and \
            isinstance(step.rvalue, c_ast.Constant) and step.rvalue.value == "1":
        return 1 if step.op == "+=" else -1
    return None


def _test(condition: c_ast.Node | None, counter: str) -> tuple[str, c_ast.Node] | None:
    """(`<`, end) for `k < end`, also written `end > k`."""
    if not isinstance(condition, c_ast.BinaryOp) or condition.op not in MIRRORED:
        return None
    if _is(condition.left, counter) and not ir.mentions(condition.right, counter):
        return condition.op, condition.right
    if _is(condition.right, counter) and not ir.mentions(condition.left, counter):
        return MIRRORED[condition.op], condition.left
    return None


def _linear(expr: c_ast.Node) -> Linear | None:
    """The expression as a linear form, or None when it reads more than names and integer constants."""
    if isinstance(expr, c_ast.Constant):
        value = _integer(expr)
        return Linear(value) if value is not None else None
    if isinstance(expr, c_ast.BinaryOp) and expr.op in ("+", "-"):
        left, right = _linear(expr.left), _linear(expr.right)
        return left.plus(right, 1 if expr.op == "+" else -1) if left is not None and right is not None else None
    if isinstance(expr, c_ast.UnaryOp) and expr.op == "-":
        inner = _linear(expr.expr)
        return Linear().plus(inner, -1) if inner is not None else None
    if isinstance(expr, c_ast.BinaryOp) and expr.op == "*":
        for number, other in ((expr.left, expr.right), (expr.right, expr.left)):
            factor = _integer(number) if isinstance(number, c_ast.Constant) else None
            inner = _linear(other) if factor is not None else None
            if inner is not None and factor is not None:
                return inner.times(factor)
    if all(isinstance(n, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp)) for n in ir.expression_nodes(expr)) \
            and not any(isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "*", "&")
                        for n in ir.expression_nodes(expr)):
        text = printer.expression(expr)
        return Linear(0, ((text, 1),), {text: expr})
    return None


def _integer(constant: c_ast.Constant) -> int | None:
    value = Value(constant.value, Span(0, 0)).number()   # the pragma language's reading of a C literal
    return value if isinstance(value, int) else None


def _written(body: ir.Stmt) -> set[str]:
    """The names the body may change: assigned, stepped, address taken, passed bare to a call (which
    may take it by reference), or mentioned in text pdcc keeps as written."""
    written: set[str] = set()
    for node in ir.walk(body):
        if isinstance(node, ir.Verbatim):
            written |= set(_identifiers(node.text))
        elif isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            written.add(node.lvalue.name)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&") and \
                isinstance(node.expr, c_ast.ID):
            written.add(node.expr.name)
        elif isinstance(node, c_ast.FuncCall) and node.args is not None:
            written |= {a.name for a in node.args.exprs if isinstance(a, c_ast.ID)}
        elif isinstance(node, ir.Declaration):
            written.add(node.name)   # a name declared again in the body hides the bound's
    return written


def _identifiers(text: str) -> list[str]:
    return re.findall(r"[A-Za-z_]\w*", text)


def _is(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name

