"""The one printer of pdcc's IR: statements and definitions into the rope, expressions through a
CGenerator that knows CUDA's `<<<...>>>` and the user's own text.

Style: two spaces per level, the brace on the statement's line (`if (c) {`), a function's brace on a line
of its own, a loop directly inside a loop at the same indentation (a loop nest). Comments that the IR
carries follow the code on its line.
"""

from __future__ import annotations

import re

from pycparser import c_ast, c_generator

from pragmadp import ir
from pragmadp.cuda.frontend import GENERATED_MARK  # the mark --auto recognises on pdcc's own launches
from pragmadp.source import Rope



class CudaGenerator(c_generator.CGenerator):
    """pycparser's C printer plus the CUDA and C++ pieces pdcc writes."""

    def visit_KernelCall(self, n: ir.KernelCall) -> str:
        config = ", ".join(self._visit_expr(e) for e in n.config)
        return f"{n.kernel}<<<{config}>>>({', '.join(self._visit_expr(a) for a in n.args)})"

    def visit_Verbatim(self, n: ir.Verbatim) -> str:
        return n.text

    def visit_Lambda(self, n: ir.Lambda) -> str:
        """One line for one simple statement; else several, which the statement that holds the lambda
        indents after its first."""
        lines = [line for item in n.body.items for line in statement_lines(item, "  ")]
        head = f"[&]({', '.join(n.parameters)})" if n.parameters else "[&]"
        if len(lines) == 1 and "//" not in lines[0]:
            return f"{head} {{ {lines[0].strip()} }}"
        return head + " {" + "".join(f"\n{line}" for line in lines) + "\n}"

    def visit_Cast(self, n: c_ast.Cast) -> str:
        """`(T)e`; the type is pycparser's or the user's text (a cast lifted from CUDA)."""
        written = n.to_type.text if isinstance(n.to_type, ir.Verbatim) else \
            self._generate_type(n.to_type, emit_declname=False)
        return "(" + written + ")" + self._operand(n.expr, _UNARY)

    def visit_TernaryOp(self, n: c_ast.TernaryOp) -> str:
        """`c ? a : b` with parentheses only around a conditional or an assignment inside it."""
        return f"{self._operand(n.cond, 0)} ? {self._operand(n.iftrue, 0)} : {self._operand(n.iffalse, 0)}"

    def visit_DeclarationExpr(self, n: ir.DeclarationExpr) -> str:
        return declaration_text(n.declaration)

    def visit_BinaryOp(self, n: c_ast.BinaryOp) -> str:
        """Parentheses where C's precedence needs them (left-associative operators), and where a reader
        (and gcc's -Wparentheses) wants them: arithmetic inside a bitwise operator or shift, `&&` inside `||`."""
        precedence = _PRECEDENCE[n.op]
        left, right = self._operand(n.left, precedence), self._operand(n.right, precedence + 1)
        return f"{self._clear(n.op, n.left, left)} {n.op} {self._clear(n.op, n.right, right)}"

    def _clear(self, op: str, operand: c_ast.Node, text: str) -> str:
        if isinstance(operand, c_ast.BinaryOp) and not text.startswith("(") and (
                op in _BITWISE and operand.op not in _BITWISE | {op} or op == "||" and operand.op == "&&"):
            return f"({text})"
        return text

    def _operand(self, node: c_ast.Node, weakest: int) -> str:
        """An operand, in parentheses when it binds more loosely than `weakest` allows."""
        text = self.visit(node)
        if isinstance(node, c_ast.BinaryOp):
            loose = _PRECEDENCE[node.op] < weakest
        elif isinstance(node, ir.Verbatim):
            loose = not _SIMPLE_TEXT.match(text) and not _parenthesised(text)
        else:
            loose = isinstance(node, (c_ast.TernaryOp, c_ast.Assignment))
        return f"({text})" if loose else text


_PRECEDENCE = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
               "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_UNARY = 11
_BITWISE = {"&", "|", "^", "<<", ">>"}
_SIMPLE_TEXT = re.compile(r"^[\w.]+$")


def _parenthesised(text: str) -> bool:
    """`(a + b)`: one pair of parentheses around the whole text (not `(a) + (b)`)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return False
    return True


_GENERATOR = CudaGenerator()


def expression(node: ir.Expr) -> str:
    """C text of an expression tree (parenthesised where precedence needs it)."""
    return _GENERATOR.visit(node)


def declaration_text(node: ir.Declaration) -> str:
    """`type name = init` (or `type name(init)`), without the `;`."""
    if node.direct and isinstance(node.init, c_ast.InitList):   # `T x{}`: value-initialised
        init = "{" + ", ".join(expression(e) for e in node.init.exprs) + "}"
    elif node.direct:
        init = f"({expression(node.init)})"
    else:
        init = f" = {expression(node.init)}" if node.init is not None else ""
    return (f"{node.type} {node.name}" if node.type else node.name) + init


def _trailing(comment: str, after_code: bool = False) -> str:
    """A comment on the line: two spaces after a statement's `;`, one after a `{` or a header."""
    return f"{'  ' if after_code else ' '}// {comment}" if comment else ""


def statement_lines(node: ir.Stmt, indent: str = "") -> list[str]:
    """The statement as lines of text (without newlines), each starting with `indent`."""
    inner = indent + "  "
    if isinstance(node, ir.Comment):
        return [f"{indent}// {node.text}"]
    if isinstance(node, ir.Declaration):
        return [f"{indent}{declaration_text(node)};{_trailing(node.comment, after_code=True)}"]
    if isinstance(node, ir.ExprStmt) and isinstance(node.expr, ir.KernelCall):  # pdcc marks its launches
        return [f"{indent}{expression(node.expr)}; {GENERATED_MARK}"]
    if isinstance(node, ir.ExprStmt):
        first, *rest = f"{expression(node.expr)};{_trailing(node.comment, after_code=True)}".split("\n")
        return [indent + first, *(indent + line for line in rest)]
    if isinstance(node, ir.Return):
        return [f"{indent}return{' ' + expression(node.value) if node.value is not None else ''};"]
    if isinstance(node, ir.Break):
        return [f"{indent}break;"]
    if isinstance(node, ir.Sequence):
        return [line for item in node.items for line in statement_lines(item, indent)]
    if isinstance(node, ir.Block):
        return [f"{indent}{{{_trailing(node.comment)}", *_items(node, inner), f"{indent}}}"]
    if isinstance(node, ir.If):
        # a condition of several lines (it holds a lambda) continues four columns in
        first, *rest = f"{indent}if ({expression(node.cond)})".split("\n")
        continued = [first, *(indent + "    " + line for line in rest)]
        head = continued.pop()
        if node.orelse is None and not node.comment and isinstance(node.then, (ir.ExprStmt, ir.Return, ir.Break)) \
                and not getattr(node.then, "comment", "") and not continued:
            return [f"{head} {statement_lines(node.then)[0]}"]  # `if (c) f();`
        lines = _attached(head, node.then, indent, node.comment)
        if node.orelse is not None:
            if lines[-1] == f"{indent}}}":   # `} else`
                lines[-1] += " else"
            else:
                lines.append(f"{indent}else")
            if isinstance(node.orelse, ir.If) and not node.orelse.comment:  # `else if (...)` on one line
                nested = statement_lines(node.orelse, indent)
                lines = lines[:-1] + [f"{lines[-1]} {nested[0][len(indent):]}", *nested[1:]]
            else:
                lines = lines[:-1] + _attached(lines[-1], node.orelse, indent, "")
        return continued + lines
    if isinstance(node, ir.For):
        parts = [expression(node.init) if node.init is not None else "",
                 " " + expression(node.cond) if node.cond is not None else "",
                 " " + expression(node.step) if node.step is not None else ""]
        head = f"{indent}for ({';'.join(parts)})"
        unroll = [f"{indent}#pragma unroll {node.unroll}"] if node.unroll else []
        if isinstance(node.body, ir.For) and not node.comment and not node.body.unroll:  # a nest: one indentation
            return [*unroll, head, *statement_lines(node.body, indent)]
        return [*unroll, *_attached(head, node.body, indent, node.comment)]
    if isinstance(node, ir.Verbatim):
        return [indent + node.text]
    raise TypeError(f"cannot print {type(node).__name__}")  # an ir.Launch is expanded by transforms.site.safe


def _items(block: ir.Block, indent: str) -> list[str]:
    return [line for item in block.items for line in statement_lines(item, indent)]


def _attached(head: str, body: ir.Stmt, indent: str, comment: str) -> list[str]:
    """`head {` ... `}` for a block, else `head` and the statement one level in. A loop with a `#pragma unroll`
    goes in braces: tree-sitter reads no directive as the body of a statement."""
    if isinstance(body, ir.For) and body.unroll:
        body = ir.Block((body,))
    if isinstance(body, ir.Block):
        return [f"{head} {{{_trailing(comment or body.comment)}", *_items(body, indent + "  "), f"{indent}}}"]
    return [head + _trailing(comment), *statement_lines(body, indent + "  ")]


def text(node: ir.Stmt, indent: str = "") -> str:
    return "".join(line + "\n" for line in statement_lines(node, indent))


def definition(node: ir.Definition, rope: Rope, line: int) -> Rope:
    """Writes a namespace-scope definition into `rope`; generated lines map to the source's `line`.

    A function whose body is the user's text (the outlined child) is written so that the copied body
    follows its head without a `#line` directive, keeping the user's line numbers inside it.
    """
    if isinstance(node, ir.Function) and isinstance(node.body, ir.Verbatim):
        comment = f"\n// pdcc: {node.comment}\n" if node.comment else "\n"
        template = node.template + "\n" if node.template else ""
        body = node.body
        assert body.span is not None, "a function body is the user's text"
        body_line = rope.source.line_of(body.span.start)
        rope.write_before(comment + template, body_line).write(f"{node.signature()} ", body_line)
        return rope.copy_edited(body.span.start, body.span.end, list(body.renames))
    return rope.write(definition_text(node), line)


def definition_text(node: ir.Definition) -> str:
    """A definition pdcc writes whole (not one holding the user's text)."""
    if isinstance(node, (ir.Knob, ir.Prototype, ir.Variable, ir.Include)):
        return prelude(node)
    comment = f"\n// pdcc: {node.comment}\n" if node.comment else "\n"
    template = node.template + "\n" if node.template else ""
    if isinstance(node, ir.Struct):
        fields = "".join(f"  {field.declaration};\n" for field in node.fields)
        constructor = (f"  __device__ {node.name}({', '.join(f.declaration for f in node.fields)})\n"
                       f"      : {', '.join(f'{f.name}({f.name})' for f in node.fields)} {{}}\n")
        return f"{comment}{template}struct {node.name} {{\n{fields}{constructor}}};\n"
    assert isinstance(node.body, ir.Block)
    return comment + template + node.signature() + "\n" + text(node.body)


def prelude(node: ir.Knob | ir.Prototype | ir.Variable | ir.Include) -> str:
    """A line or three at namespace scope: a knob's default, a prototype, a variable, an include."""
    if isinstance(node, ir.Knob):
        return f"#ifndef {node.macro}\n#define {node.macro} {node.default}\n#endif\n"
    if isinstance(node, ir.Variable):
        comment = f"// pdcc: {node.comment}\n" if node.comment else ""
        return f"{comment}{node.storage} {node.type} {node.name};\n"
    if isinstance(node, ir.Include):
        return f'#include "{node.header}"{_trailing("pdcc: " + node.comment, after_code=True) if node.comment else ""}\n'
    return node.function.prototype() + "\n"
