"""Code from parsed templates with typed holes (LibCST's `parse_template_statement`, for pycparser).

A template is C text with holes `{name}`; `statements(template, name=value, ...)` parses it once with
pycparser and fills each hole by its value's type:

- an expression tree (`c_ast.Node`) fills an expression hole;
- a list of expression trees fills an argument list (`f({args})`);
- a statement (an `ir` node, or a tuple of them) fills a hole written as a statement (`{body};`);
- a string fills a type hole (`{record} r = ...;`): it is the name of a type, never code.

A `// comment` ending a template line is kept on the statement that starts on that line; a line that is
only a comment becomes a comment statement. Names in the runtime's namespace (`pdcc::find_record`) may be
written as they are. Anything else is an error in pdcc, found by its tests.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from collections.abc import Mapping

from pycparser import c_ast, c_parser

from pragmadp import ir
from pragmadp.cgen.printer import CudaGenerator

HOLE = "pdcc_hole__"
_COMMENT_STATEMENT = "pdcc_comment__"
_KNOWN_TYPES = ("cudaError_t", "bool")  # not dim3: `dim3(x, y)` is a call in templates; declare one with a type hole
_HOLE_PATTERN = re.compile(r"\{(\w+)\}")
_GENERATOR = CudaGenerator()
_RUNTIME_NAMESPACE, _RUNTIME_PREFIX = "pdcc::", "pdcc__ns__"  # C has no `::`: renamed for the parse, and back
_FIRST_LINE = 3  # of the template in the parsed program: after the typedefs and the function's head


def statements(template: str, **holes: object) -> tuple[ir.Stmt, ...]:
    """The template's statements with every hole filled (each hole must be given, each value used)."""
    written = set(_HOLE_PATTERN.findall(template))
    if written != set(holes):
        raise ValueError(f"template holes not filled: {sorted(written - set(holes))}, "
                         f"values no hole takes: {sorted(set(holes) - written)}")
    parsed, comments = _parse(template, tuple(sorted(n for n, v in holes.items() if isinstance(v, str))))
    return _with_pragmas(parsed, holes, comments)


def statement(template: str, **holes: object) -> ir.Stmt:
    """The one statement of a template."""
    (only,) = statements(template, **holes)
    return only


def block(template: str, **holes: object) -> ir.Block:
    """The one `{ ... }` of a template (a function's body)."""
    found = statement(template, **holes)
    assert isinstance(found, ir.Block)
    return found


def expression(template: str, **holes: object) -> ir.Expr:
    """An expression from a template (`{count} >= {threshold}`)."""
    found = statement(template + ";", **holes)
    assert isinstance(found, ir.ExprStmt)
    return found.expr


@functools.cache
def _parse(template: str, type_holes: tuple[str, ...]) -> tuple[list[c_ast.Node], Mapping[int, str]]:
    """pycparser's statements of the template (cached: templates are constants) and line -> comment."""
    lines, comments = [], {}
    for number, line in enumerate(template.splitlines(), start=1):
        code, _, comment = line.partition("//")
        if comment and not code.strip():
            code = f"{_COMMENT_STATEMENT}{number};"
        if comment:
            comments[number + _FIRST_LINE - 1] = comment.strip()  # keyed by the line in the parsed program
        lines.append(_HOLE_PATTERN.sub(lambda m: HOLE + m.group(1), code).replace(_RUNTIME_NAMESPACE, _RUNTIME_PREFIX))
    typedefs = "".join(f"typedef int {name};" for name in (*_KNOWN_TYPES, *(HOLE + t for t in type_holes)))
    program = f"{typedefs}\nvoid pdcc_template__(void) {{\n" + "\n".join(lines) + "\n}\n"
    tree = c_parser.CParser().parse(program)
    return tree.ext[-1].body.block_items or [], comments


def _line(node: c_ast.Node) -> int:
    return node.coord.line if node.coord is not None else 0


def _statement(node: c_ast.Node, holes: dict, comments: Mapping[int, str]) -> ir.Stmt:
    comment = comments.get(_line(node), "")
    if isinstance(node, c_ast.ID) and node.name.startswith(_COMMENT_STATEMENT):
        return ir.Comment(comment)
    if isinstance(node, c_ast.ID) and node.name.startswith(HOLE):
        hole = node.name[len(HOLE):]
        value = holes[hole]
        if isinstance(value, tuple):
            return ir.Sequence(value)
        if not isinstance(value, (ir.Comment, ir.Declaration, ir.ExprStmt, ir.Launch, ir.Block, ir.Sequence, ir.If,
                                  ir.For, ir.Return, ir.Break)):
            raise TypeError(f"template hole '{hole}' is a statement, not {type(value).__name__}")
        return value
    if isinstance(node, c_ast.Compound):
        items = _with_pragmas(node.block_items or [], holes, comments)
        if len(items) == 1 and len(node.block_items or []) == 2 and isinstance(items[0], ir.For):
            # `#pragma unroll N` and its loop, as pycparser wraps them in a loop's body (a template's braces
            # around only these two would read the same: they change nothing)
            return items[0]
        return ir.Block(items, comment)
    if isinstance(node, c_ast.If):
        return ir.If(_expression(node.cond, holes), _statement(node.iftrue, holes, comments),
                     _statement(node.iffalse, holes, comments) if node.iffalse is not None else None, comment)
    if isinstance(node, c_ast.For):
        return ir.For(_expression(node.init, holes) if node.init is not None else None,
                      _expression(node.cond, holes) if node.cond is not None else None,
                      _expression(node.next, holes) if node.next is not None else None,
                      _statement(node.stmt, holes, comments), comment)
    if isinstance(node, c_ast.Decl):
        type_text = _GENERATOR._generate_type(node.type, emit_declname=False)
        for hole in re.findall(HOLE + r"(\w+)", type_text):
                type_text = type_text.replace(HOLE + hole, holes[hole])
        init = _expression(node.init, holes) if node.init is not None else None
        return ir.Declaration(type_text, node.name, init, comment)
    if isinstance(node, c_ast.Return):
        return ir.Return(_expression(node.expr, holes) if node.expr is not None else None)
    if isinstance(node, c_ast.Break):
        return ir.Break()
    return ir.ExprStmt(_expression(node, holes), comment)


def _with_pragmas(items: list[c_ast.Node], holes: dict, comments: Mapping[int, str]) -> tuple[ir.Stmt, ...]:
    """The statements of a block, each `#pragma unroll N` folded into the loop after it (the only pragma
    templates use)."""
    found: list[ir.Stmt] = []
    unroll = 0
    for item in items:
        if isinstance(item, c_ast.Pragma):
            matched = re.fullmatch(r"unroll (\d+)", item.string.strip())
            if matched is None:
                raise ValueError(f"a template may hold '#pragma unroll N' before a loop, not '#pragma {item.string}'")
            unroll = int(matched.group(1))
            continue
        statement = _statement(item, holes, comments)
        if unroll:
            if not isinstance(statement, ir.For):
                raise ValueError("'#pragma unroll' in a template must come right before a loop")
            statement, unroll = dataclasses.replace(statement, unroll=unroll), 0
        found.append(statement)
    if unroll:
        raise ValueError("'#pragma unroll' in a template must come right before a loop")
    return tuple(found)


def _expression(node: c_ast.Node, holes: dict) -> c_ast.Node:
    """A copy of the expression with its holes filled."""
    if isinstance(node, c_ast.ID) and node.name.startswith(HOLE):
        hole = node.name[len(HOLE):]
        value = holes[hole]
        if not isinstance(value, c_ast.Node):
            raise TypeError(f"template hole '{hole}' is an expression, not {type(value).__name__}")
        return value
    if isinstance(node, c_ast.ID) and node.name.startswith(_RUNTIME_PREFIX):
        return c_ast.ID(_RUNTIME_NAMESPACE + node.name[len(_RUNTIME_PREFIX):])
    clone = copy.copy(node)
    for slot in node.__slots__:
        if slot in ("coord", "__weakref__"):
            continue
        value = getattr(node, slot, None)
        if isinstance(value, c_ast.Node):
            setattr(clone, slot, _expression(value, holes))
        elif isinstance(value, list):
            setattr(clone, slot, _expanded(value, holes))
    return clone


def _expanded(items: list, holes: dict) -> list:
    """A list of expressions (arguments) in which a hole may stand for several."""
    result = []
    for item in items:
        if isinstance(item, c_ast.ID) and item.name.startswith(HOLE) and isinstance(holes.get(item.name[len(HOLE):]), list):
            result.extend(holes[item.name[len(HOLE):]])
        elif isinstance(item, c_ast.Node):
            result.append(_expression(item, holes))
        else:
            result.append(item)
    return result
