"""C expressions as trees: parse a CUDA expression into pycparser's c_ast, and print trees back.

pycparser reads C, not CUDA C++: expressions are normalised first (`std::ceil` -> `ceil`,
`static_cast<T>(e)` -> `((T)(e))`) and the type names that may appear in casts are declared as
typedefs. An expression pycparser still cannot read is simply not analysed (the caller falls back).
"""

from __future__ import annotations

import re

from pycparser import c_ast, c_generator, c_parser

_KNOWN_TYPES = ("size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                "uint32_t", "uint64_t", "uint", "dim3", "uint3", "half", "bool")
_PARSER = c_parser.CParser()  # built once: building one costs more than most parses
_STD_PREFIX = re.compile(r"\bstd::(?=\w+\s*\()")
_STATIC_CAST = re.compile(r"\bstatic_cast\s*<\s*([\w\s\*]+?)\s*>\s*\(")


def _normalise(text: str) -> str:
    text = _STD_PREFIX.sub("", text)
    # static_cast<T>(e) -> ((T)(e)): the opening '(' of the cast's argument stays where it was.
    return _STATIC_CAST.sub(lambda m: f"(({m.group(1)})", text)


def parse_expression(text: str, type_names: tuple[str, ...] = ()) -> c_ast.Node | None:
    """The c_ast of a C expression, or None when pycparser cannot read it or it is nested more than
    MAX_DEPTH deep (the caller then falls back, e.g. to grid x block)."""
    text = _normalise(text)
    if "static_cast" in text or "::" in text or "<<<" in text:
        return None
    typedefs = "".join(f"typedef int {name};\n" for name in dict.fromkeys((*_KNOWN_TYPES, *type_names))
                       if name != "bool")
    program = f"{typedefs}void pdcc_probe__(void) {{ pdcc_value__ = ({text}); }}\n"
    try:
        tree = _PARSER.parse(program)
    except Exception:  # pycparser raises ParseError and, on odd input, plain AssertionError
        return None
    function = tree.ext[-1]
    statement = function.body.block_items[0]
    return statement.rvalue if _depth(statement.rvalue) <= MAX_DEPTH else None


MAX_DEPTH = 100  # deeper trees (a sum of hundreds of terms) would overflow the recursive printer and analyses


def _depth(node: c_ast.Node) -> int:
    """The depth of a tree, measured without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for _, child in node.children())
    return deepest


def to_c(node: c_ast.Node) -> str:
    """C text of an expression tree (fully parenthesised where precedence needs it)."""
    return c_generator.CGenerator().visit(node)


def same(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Structural equality of two expressions."""
    return to_c(a) == to_c(b)


def replace(tree: c_ast.Node, target: c_ast.Node, replacement: c_ast.Node) -> c_ast.Node:
    """A copy of `tree` with every subtree equal to `target` replaced by `replacement`."""
    if same(tree, target):
        return replacement
    clone = tree.__class__.__new__(tree.__class__)
    for slot in tree.__slots__:
        if slot == "__weakref__":
            continue
        value = getattr(tree, slot, None)
        if isinstance(value, c_ast.Node):
            value = replace(value, target, replacement)
        elif isinstance(value, list):
            value = [replace(v, target, replacement) if isinstance(v, c_ast.Node) else v for v in value]
        setattr(clone, slot, value)
    return clone


_PURE_CALLS = {"ceil", "ceilf", "floor", "floorf", "min", "max", "fmin", "fmax", "fminf", "fmaxf", "abs", "fabs",
               "fabsf", "sqrt", "sqrtf", "log2", "log2f", "umin", "umax", "llmin", "llmax"}


def has_side_effects(node: c_ast.Node) -> bool:
    """True when evaluating the expression twice could differ from evaluating it once."""
    if isinstance(node, c_ast.Assignment):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return True
    if isinstance(node, c_ast.FuncCall):
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        if name not in _PURE_CALLS:
            return True
    return any(has_side_effects(child) for _, child in node.children())
