"""Which names a piece of device code may change: what makes a value differ between two points.

Aggregation passes an argument once per group only when no parent can change it; the thread-count
analysis reads a grid size through a local variable only when nothing changes the variable's inputs
before the launch. Both ask the same conservative question.
"""

from __future__ import annotations

import re

from pragmadp.analysis import ctype
from pragmadp.cuda.frontend import Node, Unit, declared_name, kernel_call_syntax, required, walk


def assigned_names(unit: Unit, body: Node, after: int = 0) -> frozenset[str]:
    """Names that `body` (from byte `after` on) assigns, increments, takes the address of, binds to a
    reference or a pointer (`T* q = p + i`, `q = p`: a write through `q` may reach what `p` points to),
    passes to a function (which may take it by reference, or write through a pointer made from it:
    `f(x)`, `f(p + i)`), or declares again (shadowing). Before `after`, what makes an alias still counts (`&x`,
    `T& r = x`, `T* q = p`, a lambda capturing by reference): a write through it may come later. Not
    tracked: writes through pointers the body does not make (two parameters pointing at the same memory),
    and a callee's reference to an element (`f(p[i])` with `f(int&)`).
    Computed once per body and point."""
    return unit.analysis(_assigned_names, body, after)


def _assigned_names(unit: Unit, body: Node, after: int) -> frozenset[str]:
    names: set[str] = set()
    types = ctype.declared_types(unit, body.parent) if body.parent is not None else {}
    for node in walk(body):
        names |= _aliased(unit, node, types)   # before `after` too: a write through the alias may come later
        if node.start_byte < after and not (_in_lambda_capturing_by_reference(unit, node)
                                            or node.type == "pointer_expression" and unit.text(node).startswith("&")):
            continue
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "pointer_expression" and unit.text(node).startswith("&"):
            target = node.child_by_field_name("argument")
        elif node.type == "init_declarator":  # a local that may shadow a name
            target = node.child_by_field_name("declarator")
        elif node.type == "argument_list" and node.parent is not None and node.parent.type == "call_expression" and \
                kernel_call_syntax(node.parent) is None:
            for argument in node.named_children:   # by reference (`f(x)`), or a pointer made from it (`f(p + i)`)
                names |= {unit.text(argument)} if argument.type == "identifier" else \
                    _addressing(unit, _pointer_operands(argument), types)
        elif node.type == "declaration":
            names.update(unit.text(n) for d in node.children_by_field_name("declarator")
                         if d.type != "init_declarator" for n in walk(d) if n.type == "identifier")
        if target is not None:
            names.update(unit.text(n) for n in walk(target) if n.type == "identifier")
    return frozenset(names)


def stable_names(unit: Unit, function: Node) -> frozenset[str]:
    """The names that change only where the function (its definition node) writes them by name: its
    parameters and locals of arithmetic type, neither volatile nor `__shared__`, of which it makes no alias
    (no address taken, reference bound or capture by reference), and the file's integer macros. A loop
    whose body does not write such a name may read it once for all its iterations."""
    body = function.child_by_field_name("body")
    if body is None:
        return frozenset()
    aliased = assigned_names(unit, body, after=body.end_byte)   # before `after`, only what makes an alias
    types = unit.analysis(ctype.of_function, function)
    local = {name for name, kind in ctype.declared_types(unit, function).items()
             if arithmetic(kind) and name not in aliased and name not in types.volatile and name not in types.shared}
    return frozenset(local | set(unit.analysis(ctype.integer_macros)))


def _aliased(unit: Unit, node: Node, types: dict[str, str | None]) -> set[str]:
    """The names `node` makes an alias of, through which a later write may reach them or what they point to:
    a reference bound to anything (`T& r = x`, `auto& r = a[i]`), or a value that may address memory stored
    anywhere but in an arithmetic variable (`T* q = p + i`, `auto q = p`, `tmp = out`, `s.p = out`,
    `Box b{out}`)."""
    if node.type == "init_declarator":
        declarator, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
        if declarator is None or value is None:
            return set()
        if any(n.type == "reference_declarator" for n in walk(declarator)):
            return {unit.text(n) for n in walk(value) if n.type == "identifier"}
        name = declared_name(declarator)
        kind = types.get(unit.text(name)) if name is not None else None
        if arithmetic(kind) or kind is not None and re.fullmatch(r"const [^*\[]*\*", kind):
            return set()   # a number, or a pointer to const, through which nothing is written
        return _addressing(unit, _pointer_operands(value), types)
    if node.type == "assignment_expression" and unit.text(required(node, "operator")) == "=":
        target = required(node, "left")
        if target.type == "identifier" and arithmetic(types.get(unit.text(target))):
            return set()
        return _addressing(unit, _pointer_operands(required(node, "right")), types)
    return set()


def _addressing(unit: Unit, identifiers: list[Node], types: dict[str, str | None]) -> set[str]:
    """The names among `identifiers` that may address memory: all but those declared with an arithmetic type."""
    return {unit.text(n) for n in identifiers if not arithmetic(types.get(unit.text(n)))}


_ARITHMETIC = {"bool", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "size_t",
               "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
               "const", "volatile"}


def arithmetic(kind: str | None) -> bool:
    """A declared type that holds a number, never an address (None: not known, so it may)."""
    return kind is not None and "*" not in kind and "[" not in kind and set(kind.split()) <= _ARITHMETIC


def _pointer_operands(argument: Node) -> list[Node]:
    """The identifiers an expression may pass on as an address: `x`, `p + i`, `(T*)p`, `c ? p : q`,
    `{p, n}`, not what it reads through them (`p[i]`, `p->n`, `f(p)`: values, unless a callee takes a
    reference to an element, which is not tracked)."""
    if argument.type == "identifier":
        return [argument]
    if argument.type in ("subscript_expression", "field_expression", "call_expression"):
        return []
    return [n for child in argument.named_children for n in _pointer_operands(child)]


def _in_lambda_capturing_by_reference(unit: Unit, node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "lambda_expression":
            captures = parent.child_by_field_name("captures")
            return captures is not None and "&" in unit.text(captures)
        parent = parent.parent
    return False
