"""The lift: the user's device code, from tree-sitter's concrete tree into pdcc's IR.

What the IR models becomes IR nodes (blocks, `if`, `for`, `while`, `return`, expression statements,
declarations with one initialised name, and launches with their configuration and arguments); the
expressions inside them, and every statement the IR does not model, stay the user's text as
`ir.Verbatim(span)`. So a pass can rewrite the shape of the code it understands (a launch, a branch)
and carries the rest byte-exact.
"""

from __future__ import annotations

from pragmadp import ir
from pragmadp.cuda.frontend import Node, Unit, kernel_call_syntax


def statement(unit: Unit, node: Node) -> ir.Stmt:
    """The IR of one statement; whatever the IR does not model is the statement's own text."""
    if node.type == "compound_statement":
        return ir.Block(tuple(statement(unit, child) for child in node.named_children))
    if node.type == "expression_statement" and node.named_children:
        inner = node.named_children[0]
        if inner.type == "call_expression" and kernel_call_syntax(inner) is not None:
            return ir.Launch(launch(unit, inner))
        return ir.ExprStmt(expression(unit, inner))
    if node.type == "return_statement":
        values = [child for child in node.named_children if child.type != "comment"]
        return ir.Return(expression(unit, values[0]) if values else None)
    condition = _condition(unit, node) if node.type in ("if_statement", "while_statement") else None
    if node.type == "if_statement" and condition is not None and not _has(node, "constexpr"):
        alternative = node.child_by_field_name("alternative")
        orelse = _else(alternative) if alternative is not None else None
        if alternative is None or orelse is not None:
            return ir.If(condition, statement(unit, _field(node, "consequence")),
                         statement(unit, orelse) if orelse is not None else None)
    if node.type == "while_statement" and condition is not None:  # as `for (; c;)`: one loop node in the IR
        return ir.For(None, condition, None, statement(unit, _field(node, "body")))
    if node.type == "declaration" and _one_initialised_name(node):
        declarator = _field(node, "declarator")
        value = _field(declarator, "value")
        type_end = declarator.start_byte
        return ir.Declaration(unit.source.data[node.start_byte:type_end].decode().strip(),
                              unit.text(_field(declarator, "declarator")), expression(unit, value))
    return ir.Verbatim(unit.span(node), unit.text(node))


def launch(unit: Unit, call: Node) -> ir.KernelCall:
    """`k<<<grid, block[, smem[, stream]]>>>(args)` with each part the user's text."""
    syntax = kernel_call_syntax(call)
    assert syntax is not None  # the caller found the `<<<>>>`
    config = [expression(unit, c) for c in syntax.named_children if c.type != "comment"]
    arguments = call.child_by_field_name("arguments")
    values = [expression(unit, a) for a in arguments.named_children if a.type != "comment"] if arguments else []
    return ir.KernelCall(unit.text(_field(call, "function")), config, values)


def expression(unit: Unit, node: Node) -> ir.Verbatim:
    return ir.Verbatim(unit.span(node), unit.text(node))


def _field(node: Node, name: str) -> Node:
    found = node.child_by_field_name(name)
    assert found is not None, f"a {node.type} without its {name}"
    return found


def _has(node: Node, token: str) -> bool:
    return any(child.type == token for child in node.children)


def _else(alternative: Node) -> Node | None:
    """The one statement of an `else` clause."""
    statements = [child for child in alternative.named_children if child.type != "comment"]
    return statements[0] if len(statements) == 1 else None


def _condition(unit: Unit, node: Node) -> ir.Verbatim | None:
    """The condition of `if (c)` or `while (c)` without its parentheses; None for one that declares
    (`if (int x = f(); x)`), which the IR does not model."""
    values = [child for child in _field(node, "condition").named_children if child.type != "comment"]
    return expression(unit, values[0]) if len(values) == 1 and values[0].type != "declaration" else None


def _one_initialised_name(node: Node) -> bool:
    """`T name = value;` (not `T a, b;`, `T a[4];`, `T a{1};`, `T a(x);`)."""
    declarators = node.children_by_field_name("declarator")
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return False
    value = declarators[0].child_by_field_name("value")
    return value is not None and value.type not in ("initializer_list", "argument_list") and \
        _field(declarators[0], "declarator").type == "identifier"
