"""The selects of a melded else-if chain, as few as its conditions allow.

Melded from its tail up, a chain's selects nest one per run of arms: in an SRAD stencil

    n = *(pdcc_then || pdcc_then_2 ? &north[ty] : (pdcc_then_3 || pdcc_then_4 ? &temp[ty - 1] : ...)) - jc;

where each `pdcc_then_k` is one arm's condition (`ty == 0 && tx == 0`). Which value such a select takes is
a function of the comparisons the conditions are made of (`ty == 0`, `tx == 0`, ...); read off their
truth table it is often one comparison, `*(ty == 0 ? &north[ty] : &temp[ty - 1])`, as a programmer
melding by hand writes it. The comparisons are taken as independent (none is assumed to exclude
another), so the shorter select equals the nested one on every assignment, possible or not. Only
conditions without memory accesses, calls or side effects are read this way (pdcc evaluates them at the
top of the melded block already), and a condition that reads a variable the block writes stays its flag
(evaluated again where the select is, it could see another value).
"""

from __future__ import annotations

import copy
import itertools

from pycparser import c_ast

from pragmadp import ir

MAX_COMPARISONS = 8   # a truth table of 256 rows at most
_LOGICAL = ("&&", "||")


def simplified(items: list[ir.Stmt], flags: dict[str, c_ast.Node], text) -> list[ir.Stmt]:
    """The statements with each select over the chain's `flags` (name -> the arm's condition) rewritten
    over the comparisons when that takes no more selects, and the declarations of flags nothing reads any
    more dropped. `text` prints an expression (to compare values)."""
    changed = False
    written = ir.written(items)
    opened = {name: condition for name, condition in flags.items()
              if not any(isinstance(n, c_ast.ID) and n.name in written for n in ir.expression_nodes(condition))}

    def expression(node: c_ast.Node) -> c_ast.Node:
        nonlocal changed
        if isinstance(node, c_ast.TernaryOp) and _over_flags(node.cond, flags):
            shorter = _shorter(node, flags, opened, text)
            if shorter is not None:
                changed = True
                return shorter
        return ir.rebuilt(node, lambda slot, child: expression(child))

    def statement(item: ir.Stmt) -> ir.Stmt | None:
        if isinstance(item, ir.Declaration) and item.init is not None and not item.direct:
            return ir.Declaration(item.type, item.name, expression(item.init), item.comment)
        if isinstance(item, ir.ExprStmt):
            return ir.ExprStmt(expression(item.expr), item.comment)
        if isinstance(item, ir.If):
            return ir.If(expression(item.cond), item.then, item.orelse, item.comment)
        return None

    rewritten = [ir.transform(item, statement) for item in items]
    if not changed:
        return items
    read = {n.name for item in rewritten for n in ir.walk(item) if isinstance(n, c_ast.ID)}
    verbatim = " ".join(n.text for item in rewritten for n in ir.walk(item) if isinstance(n, ir.Verbatim))
    kept = [item for item in rewritten if not (isinstance(item, ir.Declaration) and item.name in flags
                                               and item.name not in read and item.name not in verbatim)]
    return kept


def _over_flags(condition: c_ast.Node, flags: dict[str, c_ast.Node]) -> bool:
    """`pdcc_then_2`, `pdcc_then || pdcc_then_2`, `!pdcc_then`: made of flags alone."""
    if isinstance(condition, c_ast.ID):
        return condition.name in flags
    if isinstance(condition, c_ast.BinaryOp) and condition.op in _LOGICAL:
        return _over_flags(condition.left, flags) and _over_flags(condition.right, flags)
    if isinstance(condition, c_ast.UnaryOp) and condition.op == "!":
        return _over_flags(condition.expr, flags)
    return False


def _comparisons(condition: c_ast.Node, flags: dict[str, c_ast.Node], text, found: dict[str, c_ast.Node]) -> None:
    """The comparisons a condition is made of (through the flags it names that may be opened; another
    flag is one comparison itself), by their text."""
    if isinstance(condition, c_ast.ID) and condition.name in flags:
        _comparisons(flags[condition.name], flags, text, found)
    elif isinstance(condition, c_ast.BinaryOp) and condition.op in _LOGICAL:
        _comparisons(condition.left, flags, text, found)
        _comparisons(condition.right, flags, text, found)
    elif isinstance(condition, c_ast.UnaryOp) and condition.op == "!":
        _comparisons(condition.expr, flags, text, found)
    else:
        found.setdefault(text(condition), condition)


def _truth(condition: c_ast.Node, row: dict[str, bool], flags: dict[str, c_ast.Node], text) -> bool:
    if isinstance(condition, c_ast.ID) and condition.name in flags:
        return _truth(flags[condition.name], row, flags, text)
    if isinstance(condition, c_ast.BinaryOp) and condition.op in _LOGICAL:
        left = _truth(condition.left, row, flags, text)
        right = _truth(condition.right, row, flags, text)
        return left and right if condition.op == "&&" else left or right
    if isinstance(condition, c_ast.UnaryOp) and condition.op == "!":
        return not _truth(condition.expr, row, flags, text)
    return row[text(condition)]


def _taken(select: c_ast.Node, row: dict[str, bool], flags: dict[str, c_ast.Node], opened: dict[str, c_ast.Node],
           text) -> c_ast.Node:
    """The value the nested select takes for one assignment of the comparisons."""
    while isinstance(select, c_ast.TernaryOp) and _over_flags(select.cond, flags):
        select = select.iftrue if _truth(select.cond, row, opened, text) else select.iffalse
    return select


def _shorter(select: c_ast.TernaryOp, flags: dict[str, c_ast.Node], opened: dict[str, c_ast.Node], text) \
        -> c_ast.Node | None:
    """The select over the comparisons, when it takes no more selects than the nested one (each of its
    conditions is one comparison, as a reader would write it), else None."""
    comparisons: dict[str, c_ast.Node] = {}
    stack: list[c_ast.Node] = [select]
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.TernaryOp) and _over_flags(node.cond, flags):
            _comparisons(node.cond, opened, text, comparisons)
            stack += [node.iftrue, node.iffalse]
    if len(comparisons) > MAX_COMPARISONS:
        return None
    names = list(comparisons)
    values: dict[str, c_ast.Node] = {}
    rows = []
    for bits in itertools.product((False, True), repeat=len(names)):
        value = _taken(select, dict(zip(names, bits)), flags, opened, text)
        values.setdefault(text(value), value)
        rows.append((bits, text(value)))
    built = _build(rows, [comparisons[n] for n in names], values)
    return built[0] if built is not None and built[1] <= _selects(select, flags) else None


def _build(rows: list[tuple[tuple[bool, ...], str]], comparisons: list[c_ast.Node], values: dict[str, c_ast.Node]) \
        -> tuple[c_ast.Node, int] | None:
    """A select over single comparisons that takes the rows' values, and its number of selects: the
    comparison (either way) under which most rows take one value first, the rest recursively; None when
    no comparison settles one."""
    taken = {value for _, value in rows}
    if len(taken) == 1:
        return copy.deepcopy(values[taken.pop()]), 0
    best: tuple[int, bool, list] | None = None
    for index, holds in itertools.product(range(len(comparisons)), (True, False)):
        part = [row for row in rows if row[0][index] == holds]
        if part and len(part) < len(rows) and len({value for _, value in part}) == 1 \
                and (best is None or len(part) > len(best[2])):
            best = (index, holds, part)
    if best is None:
        return None
    index, holds, part = best
    rest = _build([row for row in rows if row[0][index] != holds], comparisons, values)
    if rest is None:
        return None
    settled = copy.deepcopy(values[part[0][1]])
    other, selects = rest
    return c_ast.TernaryOp(copy.deepcopy(comparisons[index]), settled if holds else other,
                           other if holds else settled), selects + 1


def _selects(select: c_ast.Node, flags: dict[str, c_ast.Node]) -> int:
    """The selects over flags the nested select is made of."""
    if isinstance(select, c_ast.TernaryOp) and _over_flags(select.cond, flags):
        return 1 + _selects(select.iftrue, flags) + _selects(select.iffalse, flags)
    return 0
