"""The lift: the user's device code, from tree-sitter's concrete tree into pdcc's IR.

What the IR models becomes IR nodes (blocks, `if`, `for`, `while`, `return`, expression statements,
declarations with one initialised name, and launches with their configuration and arguments); the
expressions inside them, and every statement the IR does not model, stay the user's text as
`ir.Verbatim(span)`. So a pass can rewrite the shape of the code it understands (a launch, a branch)
and carries the rest byte-exact.
"""

from __future__ import annotations

from pycparser import c_ast

from pragmadp import ir
from pragmadp.cuda.frontend import Node, Unit, kernel_call_syntax


def statement(unit: Unit, node: Node, trees: bool = False) -> ir.Stmt:
    """The IR of one statement; whatever the IR does not model is the statement's own text.

    With `trees`, expressions are lifted as expression trees (`tree`) and `for` loops and declarations
    of several names are modelled too: what melding needs to compare and merge two branches.
    """
    def lift(child: Node) -> ir.Stmt:
        return statement(unit, child, trees)

    def value(child: Node) -> ir.Expr:
        return tree(unit, child) if trees else expression(unit, child)

    if node.type == "compound_statement":
        return ir.Block(tuple(lift(child) for child in node.named_children))
    if node.type == "expression_statement" and node.named_children:
        inner = node.named_children[0]
        if inner.type == "call_expression" and kernel_call_syntax(inner) is not None:
            return ir.Launch(launch(unit, inner))
        return ir.ExprStmt(value(inner))
    if node.type == "return_statement":
        values = [child for child in node.named_children if child.type != "comment"]
        return ir.Return(value(values[0]) if values else None)
    condition = _condition(node) if node.type in ("if_statement", "while_statement") else None
    lifted = value(condition) if condition is not None else None
    if node.type == "if_statement" and lifted is not None and not _has(node, "constexpr"):
        alternative = node.child_by_field_name("alternative")
        orelse = _else(alternative) if alternative is not None else None
        if alternative is None or orelse is not None:
            return ir.If(lifted, lift(_field(node, "consequence")), lift(orelse) if orelse is not None else None)
    if node.type == "while_statement" and lifted is not None:  # as `for (; c;)`: one loop node in the IR
        return ir.For(None, lifted, None, lift(_field(node, "body")))
    if node.type == "for_statement" and trees:
        loop = _for(unit, node)
        if loop is not None:
            return loop
    if node.type == "declaration" and _one_initialised_name(node):
        declarator = _field(node, "declarator")
        type_end = declarator.start_byte
        return ir.Declaration(unit.source.data[node.start_byte:type_end].decode().strip(),
                              unit.text(_field(declarator, "declarator")), value(_field(declarator, "value")))
    if node.type == "declaration" and trees:
        declarations = _declarations(unit, node)
        if declarations is not None:
            return declarations[0] if len(declarations) == 1 else ir.Sequence(declarations, tag="declaration")
    return ir.Verbatim(unit.span(node), unit.text(node))


def tree(unit: Unit, node: Node) -> ir.Expr:
    """An expression as a pycparser tree: names, literals, operators, subscripts, members, calls, casts,
    conditionals; anything else (sizeof, lambdas, `new`, initialiser lists) is a `Verbatim` leaf."""
    kind = node.type
    named = [child for child in node.named_children if child.type != "comment"]
    if kind == "parenthesized_expression" and len(named) == 1:
        return tree(unit, named[0])
    if kind in ("identifier", "qualified_identifier", "template_function", "this", "field_identifier"):
        return c_ast.ID(unit.text(node))
    if kind in ("true", "false", "null", "nullptr"):
        return c_ast.ID(unit.text(node))
    if kind in ("number_literal", "char_literal", "string_literal"):
        return c_ast.Constant(kind.split("_")[0], unit.text(node))
    operator = node.child_by_field_name("operator")
    if kind == "binary_expression" and operator is not None:
        return c_ast.BinaryOp(unit.text(operator), tree(unit, _field(node, "left")), tree(unit, _field(node, "right")))
    if kind == "assignment_expression" and operator is not None:
        return c_ast.Assignment(unit.text(operator), tree(unit, _field(node, "left")), tree(unit, _field(node, "right")))
    if kind in ("unary_expression", "pointer_expression") and operator is not None:
        return c_ast.UnaryOp(unit.text(operator), tree(unit, _field(node, "argument")))
    if kind == "update_expression" and operator is not None:
        argument = _field(node, "argument")
        postfix = operator.start_byte > argument.start_byte
        return c_ast.UnaryOp(("p" if postfix else "") + unit.text(operator), tree(unit, argument))
    if kind == "subscript_expression":
        indices = [c for c in _field(node, "indices").named_children if c.type != "comment"]
        if len(indices) == 1:
            return c_ast.ArrayRef(tree(unit, _field(node, "argument")), tree(unit, indices[0]))
    if kind == "field_expression" and operator is not None:
        return c_ast.StructRef(tree(unit, _field(node, "argument")), unit.text(operator),
                               c_ast.ID(unit.text(_field(node, "field"))))
    if kind == "call_expression" and kernel_call_syntax(node) is None:
        arguments = [tree(unit, a) for a in _field(node, "arguments").named_children if a.type != "comment"]
        return c_ast.FuncCall(tree(unit, _field(node, "function")), c_ast.ExprList(arguments))
    if kind == "conditional_expression":
        return c_ast.TernaryOp(tree(unit, _field(node, "condition")), tree(unit, _field(node, "consequence")),
                               tree(unit, _field(node, "alternative")))
    if kind == "cast_expression":
        return c_ast.Cast(expression(unit, _field(node, "type")), tree(unit, _field(node, "value")))
    if kind == "comma_expression":
        return c_ast.ExprList([tree(unit, _field(node, "left")), tree(unit, _field(node, "right"))])
    return expression(unit, node)


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


def _condition(node: Node) -> Node | None:
    """The condition of `if (c)` or `while (c)` without its parentheses; None for one that declares
    (`if (int x = f(); x)`), which the IR does not model."""
    values = [child for child in _field(node, "condition").named_children if child.type != "comment"]
    return values[0] if len(values) == 1 and values[0].type != "declaration" else None


def _for(unit: Unit, node: Node) -> ir.For | None:
    """`for (init; cond; step) body` with an expression or one declaration as `init`; None for a range
    `for`, a comma declaration or anything else the IR does not model."""
    init_node = node.child_by_field_name("initializer")
    init: c_ast.Node | None = None
    if init_node is not None and init_node.type == "declaration":
        declarations = _declarations(unit, init_node)
        if declarations is None or len(declarations) != 1:
            return None
        init = ir.DeclarationExpr(declarations[0])
    elif init_node is not None:
        init = tree(unit, init_node)
    condition, update = node.child_by_field_name("condition"), node.child_by_field_name("update")
    return ir.For(init, tree(unit, condition) if condition is not None else None,
                  tree(unit, update) if update is not None else None, statement(unit, _field(node, "body"), True))


def _declarations(unit: Unit, node: Node) -> tuple[ir.Declaration, ...] | None:
    """`T a = x, *p, b[4];` as one Declaration per name, each with the whole type; None for what cannot be
    split that way (initialiser lists, constructor calls, references and function declarators are kept
    as written)."""
    declarators = node.children_by_field_name("declarator")
    if not declarators:
        return None
    base = unit.source.data[node.start_byte:declarators[0].start_byte].decode().strip()
    found = []
    for declarator in declarators:
        value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
        name = _field(declarator, "declarator") if declarator.type == "init_declarator" else declarator
        if (value is not None and value.type in ("initializer_list", "argument_list")) or \
                name.type not in ("identifier", "pointer_declarator", "array_declarator"):
            return None
        found.append(ir.Declaration(base, unit.text(name), tree(unit, value) if value is not None else None))
    return tuple(found)


def _one_initialised_name(node: Node) -> bool:
    """`T name = value;` (not `T a, b;`, `T a[4];`, `T a{1};`, `T a(x);`)."""
    declarators = node.children_by_field_name("declarator")
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return False
    value = declarators[0].child_by_field_name("value")
    return value is not None and value.type not in ("initializer_list", "argument_list") and \
        _field(declarators[0], "declarator").type == "identifier"
