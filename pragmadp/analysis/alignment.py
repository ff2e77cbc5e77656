"""Sequence alignment and the DARM cost model (seed 004 §IV-B/C).

`smith_waterman` aligns two sequences given a score for each pair (None: the pair cannot be aligned)
and a penalty per gap: the local alignment of highest score, with everything outside it left unaligned.
`cost` is DARM's static latency of an expression tree: memory access 100, division 20, multiplication
10, addition 5, every other operation 3; `saved` what melding two statements into one saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pycparser import c_ast

from pragmadp import ir

A = TypeVar("A")
B = TypeVar("B")

MEMORY, DIVISION, MULTIPLICATION, ADDITION, OTHER = 100, 20, 10, 5, 3
SELECT = OTHER   # a select costs what any other simple operation does


def smith_waterman(left: Sequence[A], right: Sequence[B], score: Callable[[int, int], float | None],
                   gap: float) -> list[tuple[int | None, int | None]]:
    """The alignment of `left` and `right` as (i, j) pairs in order, (i, None) and (None, j) for the
    elements left unaligned; every element appears exactly once."""
    rows, columns = len(left), len(right)
    table = [[0.0] * (columns + 1) for _ in range(rows + 1)]
    best, at = 0.0, (0, 0)
    for i in range(1, rows + 1):
        for j in range(1, columns + 1):
            pair = score(i - 1, j - 1)
            value = max(0.0, table[i - 1][j] - gap, table[i][j - 1] - gap,
                        table[i - 1][j - 1] + pair if pair is not None and pair > 0 else 0.0)
            table[i][j] = value
            if value > best:
                best, at = value, (i, j)
    pairs: list[tuple[int | None, int | None]] = []
    i, j = at
    while i > 0 and j > 0 and table[i][j] > 0:
        pair = score(i - 1, j - 1)
        if pair is not None and pair > 0 and table[i][j] == table[i - 1][j - 1] + pair:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif table[i][j] == table[i - 1][j] - gap:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    middle = pairs[::-1]
    before: list[tuple[int | None, int | None]] = [(k, None) for k in range(i)] + [(None, k) for k in range(j)]
    end_i, end_j = at
    after = [(k, None) for k in range(end_i, rows)] + [(None, k) for k in range(end_j, columns)]
    return before + middle + after


def cost(node: c_ast.Node | ir.Stmt | None) -> int:
    """The static latency of an expression or statement (loops counted once)."""
    if node is None:
        return 0
    if isinstance(node, (ir.Block, ir.Sequence)):
        return sum(cost(item) for item in node.items)
    if isinstance(node, ir.If):
        return cost(node.cond) + cost(node.then) + cost(node.orelse) + OTHER
    if isinstance(node, ir.For):
        return cost(node.init) + cost(node.cond) + cost(node.step) + cost(node.body) + OTHER
    if isinstance(node, ir.ExprStmt):
        return cost(node.expr)
    if isinstance(node, ir.Declaration):
        return cost(node.init)
    if isinstance(node, ir.DeclarationExpr):
        return cost(node.declaration.init)
    if isinstance(node, ir.Verbatim):
        return OTHER
    if isinstance(node, (ir.Comment, ir.Return, ir.Break, ir.Launch)):
        return 0
    return own_cost(node) + sum(cost(child) for _, child in node.children())


def own_cost(node: c_ast.Node) -> int:
    """The latency of the operation at the root of an expression tree, not counting its operands."""
    if isinstance(node, c_ast.ArrayRef) or (isinstance(node, c_ast.StructRef) and node.type == "->"):
        return MEMORY
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        return MEMORY
    operator = node.op if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment, c_ast.UnaryOp)) else ""
    operator = operator.rstrip("=") if isinstance(node, c_ast.Assignment) else operator
    if operator in ("/", "%"):
        return DIVISION
    if operator == "*":
        return MULTIPLICATION
    if operator in ("+", "-", "++", "--", "p++", "p--"):
        return ADDITION
    if isinstance(node, (c_ast.ID, c_ast.Constant, c_ast.ExprList)) or \
            isinstance(node, c_ast.Assignment) and operator == "":
        return 0   # a name, a literal, a move between registers: no instruction of their own
    return OTHER
