"""The code model: templates with typed holes, the printer's precedence, IR rewriting."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pycparser import c_ast, c_parser

from pragmadp import ir
from pragmadp.cgen import printer, templates


def test_template_fills_expression_statement_and_argument_holes():
    body = ir.ExprStmt(ir.call("work", ir.name("i")))
    loop = templates.statement("for (int i = 0; i < {n}; ++i) // every item\n  {body};",
                               n=ir.name("count"), body=body)
    assert printer.text(loop) == "for (int i = 0; i < count; ++i) // every item\n  work(i);\n"  # a header: one space
    call = templates.statement("f(a, {rest});", rest=[ir.name("b"), ir.name("c")])
    assert printer.text(call) == "f(a, b, c);\n"


def test_template_type_hole_and_comment_lines():
    code = templates.statements("// the record\n{record} r = {value};  // of one parent", record="const rec_t",
                                value=ir.name("v"))
    assert printer.text(ir.Sequence(code)) == "// the record\nconst rec_t r = v;  // of one parent\n"  # after code: two


@pytest.mark.parametrize("template, holes, error", [
    ("f({x});", {}, ValueError),                                     # a hole left empty
    ("f();", {"x": ir.name("x")}, ValueError),                       # a value no hole takes
    ("f({x});", {"x": ir.ExprStmt(ir.name("y"))}, TypeError),         # a statement in an expression
    ("{s};", {"s": ir.name("y")}, TypeError),                        # an expression as a statement
])
def test_template_holes_are_typed(template, holes, error):
    with pytest.raises(error):
        templates.statements(template, **holes)


def test_a_templates_unroll_pragma_goes_with_its_loop_and_prints_in_braces_where_it_is_a_body():
    """tree-sitter reads no directive as a statement's body: inside a nest or an if, the loop gets braces."""
    nest = templates.statement("for (a = 0; a < n; ++a)\n#pragma unroll 4\nfor (b = 0; b < m; ++b)\n  f(a, b);")
    assert isinstance(nest, ir.For) and isinstance(nest.body, ir.For) and nest.body.unroll == 4
    assert printer.text(nest) == ("for (a = 0; a < n; ++a) {\n  #pragma unroll 4\n  for (b = 0; b < m; ++b)\n"
                                  "    f(a, b);\n}\n")
    (loop,) = templates.statements("#pragma unroll 2\nfor (c = 0; c < 2; ++c) h(c);")
    assert printer.text(ir.If(ir.name("x"), loop, ir.ExprStmt(ir.call("g")))) == (
        "if (x) {\n  #pragma unroll 2\n  for (c = 0; c < 2; ++c)\n    h(c);\n} else\n  g();\n")


@pytest.mark.parametrize("template", ["x = 1;\n#pragma unroll 2", "#pragma unroll 2\nx = 1;", "#pragma once\nx = 1;"])
def test_a_template_pragma_other_than_unroll_before_a_loop_is_an_error(template):
    with pytest.raises(ValueError, match="#pragma"):
        templates.statements(template)


def test_printer_keeps_the_users_text_and_marks_launches():
    launch = ir.ExprStmt(ir.KernelCall("ns::k<float>", [ir.name("g"), ir.name("b")], [ir.Verbatim(None, "x + 1")]))
    block = ir.Block((ir.Declaration("const dim3", "g", ir.Verbatim(None, "(n + 31) / 32")), launch), "site")
    assert printer.text(block) == ("{ // site\n  const dim3 g = (n + 31) / 32;\n"
                                   "  ns::k<float><<<g, b>>>(x + 1); // pdcc: generated\n}\n")


def test_verbatim_operands_are_parenthesised_unless_simple():
    product = templates.expression("{a} * {b} * {c}", a=ir.Verbatim(None, "n - 1"), b=ir.Verbatim(None, "(m)"),
                                   c=ir.Verbatim(None, "k.x"))
    assert printer.expression(product) == "(n - 1) * (m) * k.x"


def test_transform_rewrites_every_launch_bottom_up():
    launch = ir.Launch(ir.KernelCall("k", [ir.name("g"), ir.name("b")], []))
    code = ir.Block((ir.If(ir.name("c"), ir.Block((launch,)), ir.Block((launch,))),))
    renamed = ir.transform(code, lambda n: ir.Launch(ir.KernelCall("k2", n.call.config, []))
                           if isinstance(n, ir.Launch) else None)
    assert [launch.kernel for launch in _launches(renamed)] == ["k2", "k2"]
    assert [launch.kernel for launch in _launches(code)] == ["k", "k"]  # the nodes are frozen: a new tree


def _launches(code: ir.Stmt) -> list[ir.Launch]:
    found: list[ir.Launch] = []
    ir.transform(code, lambda n: found.append(n) if isinstance(n, ir.Launch) else None)
    return found


_OPERATORS = ["+", "-", "*", "/", "%", "<<", ">>", "<", ">=", "==", "!=", "&", "|", "^", "&&", "||"]
_LEAVES = st.sampled_from([c_ast.ID("a"), c_ast.ID("b"), c_ast.Constant("int", "2")])


def _expressions():
    return st.recursive(_LEAVES, lambda inner: st.builds(c_ast.BinaryOp, st.sampled_from(_OPERATORS), inner, inner),
                        max_leaves=12)


def _shape(node: c_ast.Node) -> tuple:
    if isinstance(node, c_ast.BinaryOp):
        return (node.op, _shape(node.left), _shape(node.right))
    return (getattr(node, "name", None) or node.value,)


@settings(max_examples=300, derandomize=True)
@given(_expressions())
def test_printed_expressions_parse_back_to_the_same_tree(expression):
    text = printer.expression(expression)
    parsed = c_parser.CParser().parse(f"int a, b; int f(void) {{ return {text}; }}").ext[-1].body.block_items[0].expr
    assert _shape(parsed) == _shape(expression), text
