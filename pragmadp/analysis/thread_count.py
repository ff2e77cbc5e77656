"""How many child threads does a launch ask for? (seed 000 §III-D)

Programmers give a grid size, not a thread count, and compute the grid by ceiling division of the
thread count N by the block size b. The forms of §III-D are recognised, with casts, `ceil` and
`min`/`max` clamps around them, per dimension of a `dim3`, and through a local variable whose
initialiser holds the division. N is found the seed's way: take the division's left side and drop the
constants and copies of b added to or subtracted from it. The result is a heuristic that only chooses
between serial and parallel execution; it never changes what the program computes.

  (a) (N - 1)/b + 1     (b) (N + b - 1)/b     (c) N/b + (N % b == 0 ? 0 : 1)
  (d) ceil((float)N/b)  (e) ceil(N/(float)b)  (f) dim3(any of the above, ...)
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from pragmadp import cgen
from pragmadp.analysis import writes
from pragmadp.cuda.frontend import Node, Unit, enclosing_function, required, walk

_CEIL = {"ceil", "ceilf", "ceill"}
_CLAMP = {"min", "max", "umin", "umax", "llmin", "llmax"}


@dataclass(frozen=True)
class Dimension:
    """The child-thread count of one grid dimension.

    `count` is a C expression for N, or None when no ceiling division was found (then the count is
    grid x block). `grid` is the grid expression rewritten to use `variable` for N so N is evaluated
    once, or None when the grid must be kept as written.
    """

    count: str | None
    grid: str | None
    variable: str
    form: str


@dataclass(frozen=True)
class ThreadCount:
    dimensions: list[Dimension]      # one per written grid dimension (1 to 3)
    written_as_dim3: bool            # dim3(...) or {...}: `grid` values are per-dimension arguments
    through_variable: str | None     # the local variable the grid came from, if any

    @property
    def found(self) -> bool:
        return any(d.count is not None for d in self.dimensions)

    def describe(self) -> str:
        parts = [d.count if d.count is not None else "grid x block" for d in self.dimensions]
        where = f" (through '{self.through_variable}')" if self.through_variable else ""
        return " * ".join(parts) + where


def analyse(unit: Unit, grid: Node, before: int, type_names: tuple[str, ...], prefix: str) -> ThreadCount:
    """The thread count of a launch whose grid expression is `grid` (launch statement at byte `before`)."""
    variable = None
    expressions, as_dim3 = dimensions_of(unit, grid)
    if grid.type == "identifier":
        initialiser = local_initialiser(unit, grid, before)
        if initialiser is not None:
            variable = unit.text(grid)
            expressions, as_dim3 = initialiser
    suffixes = "xyz"
    dimensions = []
    for index, text in enumerate(expressions[:3]):
        name = f"{prefix}{suffixes[index]}" if len(expressions) > 1 or as_dim3 else prefix
        dimensions.append(_dimension(text, type_names, name, rewrite=variable is None))
    return ThreadCount(dimensions, as_dim3, variable)


def dimensions_of(unit: Unit, node: Node) -> tuple[list[str], bool]:
    """Per-dimension grid expressions of `dim3(a, b)`, `dim3{a, b}`, `{a, b}`; else the whole expression."""
    if node.type == "call_expression" and unit.text(required(node, "function")) == "dim3":
        return [unit.text(a) for a in required(node, "arguments").named_children if a.type != "comment"], True
    if node.type == "compound_literal_expression" and unit.text(required(node, "type")) == "dim3":
        node = required(node, "value")
    if node.type == "initializer_list":
        return [unit.text(a) for a in node.named_children if a.type != "comment"], True
    return [unit.text(node)], False


def local_initialiser(unit: Unit, identifier: Node, before: int) -> tuple[list[str], bool] | None:
    """The initialiser of the nearest local declaration of `identifier` that precedes the launch, unless
    the function may change the variable or a name in the initialiser after the declaration (then the
    initialiser no longer tells the launch's size)."""
    name = unit.text(identifier)
    scope = identifier.parent
    while scope is not None and scope.type != "function_definition":
        if scope.type == "compound_statement":
            earlier = [s for s in scope.named_children if s.type == "declaration" and s.end_byte <= before]
            for declaration in reversed(earlier):
                found = _initialiser_in(unit, declaration, name)
                if found is not None:
                    inputs = {unit.text(n) for n in walk(declaration) if n.type == "identifier"}
                    function = enclosing_function(unit, identifier)
                    assert function is not None and function.body is not None   # the scope is in its body
                    changed = writes.assigned_names(unit, function.body, declaration.end_byte)
                    return None if inputs & changed else found
        scope = scope.parent
    return None


def _initialiser_in(unit: Unit, declaration: Node, name: str) -> tuple[list[str], bool] | None:
    is_dim3 = unit.text(required(declaration, "type")) == "dim3"
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type != "init_declarator":
            continue
        if unit.text(required(declarator, "declarator")) != name:
            continue
        value = required(declarator, "value")
        if value.type in ("argument_list", "initializer_list") and is_dim3:  # dim3 g(a, b); dim3 g{a, b};
            return [unit.text(a) for a in value.named_children if a.type != "comment"], True
        expressions, as_dim3 = dimensions_of(unit, value)
        return expressions, as_dim3 or is_dim3
    return None


def _dimension(text: str, type_names: tuple[str, ...], variable: str, rewrite: bool) -> Dimension:
    tree = cgen.parse_expression(text, type_names)
    match = _ceiling_division(tree) if tree is not None else None
    if match is None:
        return Dimension(None, None, variable, "none")
    count, substitutable, form = match
    if substitutable and rewrite:
        grid = cgen.to_c(cgen.replace(tree, count, c_ast.ID(variable)))
        return Dimension(cgen.to_c(count), grid, variable, form)
    if cgen.has_side_effects(count):  # evaluating it a second time would change the program
        return Dimension(None, None, variable, "none")
    return Dimension(cgen.to_c(count), None, variable, form)


def _strip(node: c_ast.Node) -> c_ast.Node:
    """Looks through casts and rounding calls, which do not change which value N is."""
    while True:
        if isinstance(node, c_ast.Cast):
            node = node.expr
        elif isinstance(node, c_ast.FuncCall) and _call_name(node) in _CEIL and len(node.args.exprs) == 1:
            node = node.args.exprs[0]
        else:
            return node


def _call_name(node: c_ast.FuncCall) -> str | None:
    return node.name.name if isinstance(node.name, c_ast.ID) else None


def _is_constant(node: c_ast.Node) -> bool:
    node = _strip(node)
    if isinstance(node, c_ast.Constant):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+", "sizeof"):
        return node.op == "sizeof" or _is_constant(node.expr)
    return False


def _is_rounding_term(node: c_ast.Node) -> bool:
    """The `+ (N % b != 0)` / `+ (N % b ? 1 : 0)` / `+ ((N % b == 0) ? 0 : 1)` of form (c)."""
    node = _strip(node)
    if isinstance(node, c_ast.TernaryOp):
        return _mentions_remainder(node.cond) and _is_constant(node.iftrue) and _is_constant(node.iffalse)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("!=", ">", "=="):
        return _mentions_remainder(node)
    return False


def _mentions_remainder(node: c_ast.Node) -> bool:
    if isinstance(node, c_ast.BinaryOp) and node.op == "%":
        return True
    return any(_mentions_remainder(child) for _, child in node.children())


def _ceiling_division(node: c_ast.Node) -> tuple[c_ast.Node, bool, str] | None:
    """(N, whether N is one subtree of the grid expression, form) or None."""
    node = _strip(node)
    if isinstance(node, c_ast.FuncCall) and _call_name(node) in _CLAMP and node.args and len(node.args.exprs) == 2:
        first, second = node.args.exprs
        if _is_constant(first) != _is_constant(second):  # max(1, (n + 255) / 256)
            return _ceiling_division(second if _is_constant(first) else first)
        return None
    if isinstance(node, c_ast.BinaryOp) and node.op == "+":
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if _is_constant(other):
                found = _division(_strip(side))
                return (found[0], found[1], "(N - 1)/b + 1") if found else None
            if _is_rounding_term(other):
                found = _division(_strip(side))
                return (found[0], found[1], "N/b + (N % b != 0)") if found else None
        return None
    return _division(node)


def _division(node: c_ast.Node) -> tuple[c_ast.Node, bool, str] | None:
    if not (isinstance(node, c_ast.BinaryOp) and node.op == "/"):
        return None
    divisor = _strip(node.right)
    terms = _additive_terms(_strip(node.left), positive=True)
    kept = [(positive, term) for positive, term in terms
            if not _is_constant(term) and not cgen.same(_strip(term), divisor)]
    if not kept:
        return None
    had_casts = isinstance(node.left, c_ast.Cast) or isinstance(node.right, c_ast.Cast)
    form = "ceil(N/b)" if had_casts else ("(N + b - 1)/b" if len(terms) > len(kept) else "N/b")
    if len(kept) == 1 and kept[0][0]:
        return kept[0][1], True, form
    expression = None
    for positive, term in kept:
        if expression is None:
            expression = term if positive else c_ast.UnaryOp("-", term)
        else:
            expression = c_ast.BinaryOp("+" if positive else "-", expression, term)
    return expression, False, form


def _additive_terms(node: c_ast.Node, positive: bool) -> list[tuple[bool, c_ast.Node]]:
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
        return (_additive_terms(node.left, positive)
                + _additive_terms(node.right, positive if node.op == "+" else not positive))
    return [(positive, _strip(node) if isinstance(node, c_ast.Cast) else node)]
