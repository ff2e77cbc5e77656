"""The typed model of the device code pdcc reads and writes.

Statements are frozen nodes; expressions are pycparser `c_ast` trees, extended with the two things C
lacks (`KernelCall`, a `<<<...>>>` launch, and `Verbatim`, the user's own text). A `Verbatim` leaf carries
a span of the user's file byte-exact: printed as a statement it is copied with its `#line`, printed in an
expression it is the text of the span (with the renames the pass asked for). Passes build and rewrite these
nodes; `cgen.printer` alone turns them into text, so no pass pastes C++ strings into the user's file.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeAlias

from pycparser import c_ast

from pragmadp.source import Span


class Verbatim(c_ast.Node):
    """The user's text of `span`, with (start, end, text) renames spliced in (built-ins -> parameters).
    In an expression the span may be None: user text pdcc has rewritten (a default argument written with
    the launch's template arguments)."""

    __slots__ = ("span", "text", "renames", "coord", "__weakref__")
    attr_names = ("text",)

    def __init__(self, span: Span | None, text: str, renames: tuple[tuple[int, int, str], ...] = ()):
        self.span, self.text, self.renames, self.coord = span, text, renames, None

    def children(self):
        return ()


class KernelCall(c_ast.Node):
    """`kernel<<<grid, block[, smem[, stream]]>>>(args)`: `kernel` a name (templates and scopes included)."""

    __slots__ = ("kernel", "config", "args", "coord", "__weakref__")
    attr_names = ("kernel",)

    def __init__(self, kernel: str, config: list[c_ast.Node], args: list[c_ast.Node]):
        self.kernel, self.config, self.args, self.coord = kernel, config, args, None

    def children(self):
        return tuple((f"config[{i}]", n) for i, n in enumerate(self.config)) + \
            tuple((f"args[{i}]", n) for i, n in enumerate(self.args))


class Lambda(c_ast.Node):
    """`[&](parameters) { body }`: a device lambda the runtime calls back (a site's launch of its batch)."""

    __slots__ = ("parameters", "body", "coord", "__weakref__")
    attr_names = ("parameters",)

    def __init__(self, parameters: tuple[str, ...], body: "Block"):
        self.parameters, self.body, self.coord = parameters, body, None

    def children(self):
        return ()


class DeclarationExpr(c_ast.Node):
    """The declaration that starts a `for` loop (`int k = 0`), where C puts an expression or a declaration."""

    __slots__ = ("declaration", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, declaration: "Declaration"):
        self.declaration, self.coord = declaration, None

    def children(self):
        return ()


Expr: TypeAlias = c_ast.Node


def name(identifier: str) -> c_ast.ID:
    return c_ast.ID(identifier)


def call(function: str, *arguments: Expr) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(function), c_ast.ExprList(list(arguments)) if arguments else None)


# --- statements ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comment:
    text: str


@dataclass(frozen=True)
class Declaration:
    """`type name = init;` with the type as written (`const dim3`, `const auto`, a record type); a
    declarator that wraps its name (`float (*f)(int)`) is the whole `name`, with an empty `type`."""

    type: str
    name: str
    init: Expr | None = None
    comment: str = ""
    direct: bool = False      # `type name(init...)`: a constructor's arguments (an ExprList), not `= init`


@dataclass(frozen=True)
class ExprStmt:
    expr: Expr
    comment: str = ""


@dataclass(frozen=True)
class Launch:
    """A device-side launch that must not lose work: if it fails, `fallback` does the work (the child's
    serial version), or, without one, the launch is retried until it goes through. `counted`: the kernel
    is one pdcc wrote, which gives back its launch of the runtime's launch budget as it starts, so the
    launch takes one first (and runs `fallback` when the budget is spent). `transforms.site.safe` expands
    it into the launch, its check and the fallback before printing."""

    call: KernelCall
    fallback: Stmt | None = None
    counted: bool = False

    @property
    def kernel(self) -> str:
        return self.call.kernel


@dataclass(frozen=True)
class Block:
    """`{ ... }`; `comment` follows the brace (a site's summary)."""

    items: tuple[Stmt, ...]
    comment: str = ""


@dataclass(frozen=True)
class Sequence:
    """Statements without braces, tagged so a later pass can find what an earlier one wrote."""

    items: tuple[Stmt, ...]
    tag: str = ""


@dataclass(frozen=True)
class If:
    cond: Expr
    then: Stmt
    orelse: Stmt | None = None
    comment: str = ""


@dataclass(frozen=True)
class For:
    """`for (init; cond; step) body`; a loop directly inside a loop prints as a flat nest. `unroll` > 0 puts
    `#pragma unroll N` before it."""

    init: c_ast.Node | None
    cond: Expr | None
    step: Expr | None
    body: Stmt
    comment: str = ""
    unroll: int = 0


@dataclass(frozen=True)
class Return:
    value: Expr | None = None


@dataclass(frozen=True)
class Break:
    """`break;` (pdcc's own loops: the serial version's trimmed rows)."""


Stmt = Comment | Declaration | ExprStmt | Launch | Block | Sequence | If | For | Return | Break | Verbatim


# --- definitions at namespace scope -------------------------------------------------------------------

@dataclass(frozen=True)
class Parameter:
    declaration: str   # the declaration without a default value, named
    name: str          # what a call passes on (`args...` for a pack)
    default: str | None = None


def parameter_type(parameter: Parameter) -> str:
    """`const float* in` -> `const float*`, `void (*f)(int)` -> `void (*)(int)`: the declaration unnamed."""
    declaration = parameter.declaration
    name = list(re.finditer(rf"\b{re.escape(parameter.name)}\b", declaration))[-1]
    return (declaration[:name.start()].rstrip() + declaration[name.end():]).strip()


@dataclass(frozen=True)
class Function:
    """A function pdcc writes: `template`, qualifiers (`static __device__`), the name, parameters, body."""

    qualifiers: str
    name: str
    parameters: tuple[str, ...]
    body: Block | Verbatim
    template: str = ""        # `template <...>` or ""
    comment: str = ""         # what it is, on the line above
    bounds: str = ""          # `__launch_bounds__(...)` of a kernel, written before its name

    def prototype(self) -> str:
        template = self.template + "\n" if self.template else ""
        return f"{template}{self.signature()};"

    def signature(self) -> str:
        bounds = self.bounds + " " if self.bounds else ""
        return f"{self.qualifiers} void {bounds}{self.name}({', '.join(self.parameters)})"


@dataclass(frozen=True)
class Struct:
    """A record type; its constructor takes every field in order (a call converts as the child's own
    call would, where braces would warn of narrowing)."""

    name: str
    fields: tuple[Parameter, ...]
    template: str = ""
    comment: str = ""


@dataclass(frozen=True)
class Knob:
    """A tunable value of a site: a macro the user (or `pdcc tune`) sets with -D, its default and domain."""

    macro: str
    default: str
    kind: str                 # threshold, coarsen, granularity, agg_threshold, records, records_per_thread, pool_bytes,
    #                           meld_threshold, meld_min_trips
    domain: tuple[int, int]   # the values that make sense, inclusive

    def to_dict(self) -> dict:
        return {"macro": self.macro, "default": self.default, "kind": self.kind,
                "min": self.domain[0], "max": self.domain[1]}


@dataclass(frozen=True)
class Prototype:
    """The declaration of a function pdcc defines later in the file than its first use."""

    function: Function


@dataclass(frozen=True)
class Variable:
    """A variable at namespace scope: `__device__ pdcc::SitePool<...> pdcc_pool_s;`."""

    storage: str              # __device__, __shared__
    type: str
    name: str
    comment: str = ""


@dataclass(frozen=True)
class Include:
    header: str
    comment: str = ""


Definition = Function | Struct | Knob | Prototype | Variable | Include


# --- rewriting ----------------------------------------------------------------------------------------

class KeptAsWritten(Exception):
    """A name to rename appears in the user's text that pdcc copies as written."""

    def __init__(self, name: str, text: Verbatim):
        super().__init__(name)
        self.name, self.text = name, text


def walk(item) -> Iterator:
    """Statements and expression nodes of a statement, depth first."""
    if item is None:
        return
    yield item
    if isinstance(item, (Block, Sequence)):
        for inner in item.items:
            yield from walk(inner)
    elif isinstance(item, If):
        for part in (item.cond, item.then, item.orelse):
            yield from walk(part)
    elif isinstance(item, For):
        for part in (item.init, item.cond, item.step, item.body):
            yield from walk(part)
    elif isinstance(item, ExprStmt):
        yield from walk(item.expr)
    elif isinstance(item, Declaration):
        yield from walk(item.init)
    elif isinstance(item, DeclarationExpr):
        yield from walk(item.declaration)
    elif isinstance(item, Return):
        yield from walk(item.value)
    elif isinstance(item, c_ast.Node) and not isinstance(item, Verbatim):
        for _, child in item.children():
            yield from walk(child)


def mentions(item, name: str) -> bool:
    """Whether a statement or expression reads or writes the name (outside the user's text kept as written)."""
    return any(isinstance(node, c_ast.ID) and node.name == name for node in walk(item))


def written(items) -> set[str]:
    """Variables the statements may change: assigned, incremented, their address taken, declared, or named
    in verbatim code. (A store through memory changes no variable.)"""
    names: set[str] = set()
    for item in items:
        for node in walk(item):
            target = node.lvalue if isinstance(node, c_ast.Assignment) else \
                node.expr if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--", "&") else None
            while isinstance(target, c_ast.Cast):
                target = target.expr
            if isinstance(target, c_ast.ID):
                names.add(target.name)
            if isinstance(node, Verbatim):
                names |= set(re.findall(r"[A-Za-z_]\w*", node.text))
            if isinstance(node, Declaration):
                names.add(node.name)
    return names


def rename(item, old: str, new: str):
    """The statement with the name `old` renamed `new` (declarations and uses); KeptAsWritten when `old`
    appears in the user's text that pdcc keeps as written (a `Verbatim`), which it does not rename."""
    if item is None:
        return None
    if isinstance(item, (Block, Sequence)):
        return dataclasses.replace(item, items=tuple(rename(i, old, new) for i in item.items))
    if isinstance(item, If):
        return dataclasses.replace(item, cond=rename_expression(item.cond, old, new), then=rename(item.then, old, new),
                                   orelse=rename(item.orelse, old, new))
    if isinstance(item, For):
        return dataclasses.replace(item, init=rename_expression(item.init, old, new), cond=rename_expression(item.cond, old, new),
                                   step=rename_expression(item.step, old, new), body=rename(item.body, old, new))
    if isinstance(item, ExprStmt):
        return dataclasses.replace(item, expr=rename_expression(item.expr, old, new))
    if isinstance(item, Declaration):
        name = re.sub(rf"\b{re.escape(old)}\b", new, item.name)
        return dataclasses.replace(item, name=name, init=rename_expression(item.init, old, new))
    if isinstance(item, Return):
        return dataclasses.replace(item, value=rename_expression(item.value, old, new))
    if isinstance(item, Verbatim) and re.search(rf"\b{re.escape(old)}\b", item.text):
        raise KeptAsWritten(old, item)
    return item


def rename_expression(node, old: str, new: str):
    """An expression (or a `for`'s declaration) with the name `old` renamed `new`."""
    if node is None:
        return None
    if isinstance(node, DeclarationExpr):
        return DeclarationExpr(rename(node.declaration, old, new))
    if isinstance(node, Verbatim):
        return rename(node, old, new)
    if isinstance(node, c_ast.ID):
        return c_ast.ID(new) if node.name == old else node
    return rebuilt(node, lambda slot, child: child if isinstance(node, c_ast.StructRef) and slot == "field"
                    else rename_expression(child, old, new))


def slots(node: c_ast.Node) -> list[tuple[str, c_ast.Node]]:
    """The single-node children of a c_ast node by attribute name (ExprList's list is handled apart)."""
    found = []
    for slot in getattr(node, "__slots__", ()):
        value = getattr(node, slot, None)
        if isinstance(value, c_ast.Node) and slot != "coord":
            found.append((slot, value))
    return found


def rebuilt(node: c_ast.Node, child: Callable[[str, c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """A copy of `node` with each child replaced by `child(slot, node)` (the trees stay unshared)."""
    copied = copy.copy(node)
    for slot, value in slots(node):
        setattr(copied, slot, child(slot, value))
    if isinstance(node, c_ast.ExprList):
        copied.exprs = [child("exprs", value) for value in node.exprs]
    return copied


def expression_nodes(expr: c_ast.Node) -> Iterator[c_ast.Node]:
    """An expression tree's nodes, depth first."""
    yield expr
    for _, child in expr.children():
        yield from expression_nodes(child)


def transform(node: Stmt, visit: Callable[[Stmt], Stmt | None]) -> Stmt:
    """The tree with `visit` applied bottom-up to every statement (None keeps the statement)."""
    if isinstance(node, (Block, Sequence)):
        node = dataclasses.replace(node, items=tuple(transform(item, visit) for item in node.items))
    elif isinstance(node, If):
        node = dataclasses.replace(node, then=transform(node.then, visit),
                                   orelse=transform(node.orelse, visit) if node.orelse is not None else None)
    elif isinstance(node, For):
        node = dataclasses.replace(node, body=transform(node.body, visit))
    elif isinstance(node, Launch) and node.fallback is not None:
        node = dataclasses.replace(node, fallback=transform(node.fallback, visit))
    replaced = visit(node)
    return node if replaced is None else replaced
