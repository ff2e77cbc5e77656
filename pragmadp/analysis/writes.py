"""Which names a piece of device code may change: what makes a value differ between two points.

Aggregation passes an argument once per group only when no parent can change it; the thread-count
analysis reads a grid size through a local variable only when nothing changes the variable's inputs
before the launch. Both ask the same conservative question.
"""

from __future__ import annotations

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
    pointers = {unit.text(name) for n in walk(body) if n.type == "declaration"
                for d in n.children_by_field_name("declarator") if _declares_alias(d)
                for name in [declared_name(d)] if name is not None}
    for node in walk(body):
        if node.start_byte < after and not (_makes_alias(unit, node) or _in_lambda_capturing_by_reference(unit, node)
                                            or _assigns_a_pointer(unit, node, pointers)):
            continue
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "pointer_expression" and unit.text(node).startswith("&"):
            target = node.child_by_field_name("argument")
        elif node.type == "init_declarator":  # a local that may shadow a name, or an alias of one
            target = node.child_by_field_name("declarator")
            value = node.child_by_field_name("value")
            if target is not None and value is not None and _declares_alias(target):
                names.update(unit.text(n) for n in walk(value) if n.type == "identifier")
        elif node.type == "argument_list" and node.parent is not None and node.parent.type == "call_expression" and \
                kernel_call_syntax(node.parent) is None:
            names.update(unit.text(n) for a in node.named_children for n in _pointer_operands(a))
        elif node.type == "declaration":
            names.update(unit.text(n) for d in node.children_by_field_name("declarator")
                         if d.type != "init_declarator" for n in walk(d) if n.type == "identifier")
        if target is not None:
            names.update(unit.text(n) for n in walk(target) if n.type == "identifier")
        if node.type == "assignment_expression" and target is not None and target.type == "identifier" and \
                unit.text(target) in pointers:  # `q = p + 1`: q is an alias of p from here on
            names.update(unit.text(n) for n in walk(required(node, "right")) if n.type == "identifier")
    return frozenset(names)


def _pointer_operands(argument: Node) -> list[Node]:
    """The identifiers an argument may pass on as a pointer or reference: `x`, `p + i`, `(T*)p`, `c ? p : q`,
    not what it reads through them (`p[i]`, `p->n`, `f(p)`: values, unless the callee takes a reference to an
    element, which is not tracked)."""
    if argument.type == "identifier":
        return [argument]
    if argument.type in ("subscript_expression", "field_expression", "call_expression"):
        return []
    return [n for child in argument.named_children for n in _pointer_operands(child)]


def _declares_alias(declarator: Node) -> bool:
    """`T& r`, `T* q`, `T* q[4]`: a name through which memory of what initialises it may be written."""
    return any(n.type in ("reference_declarator", "pointer_declarator") for n in walk(declarator))


def _makes_alias(unit: Unit, node: Node) -> bool:
    if node.type == "pointer_expression":
        return unit.text(node).startswith("&")
    if node.type != "init_declarator":
        return False
    declarator = node.child_by_field_name("declarator")
    assert declarator is not None   # a required field
    return _declares_alias(declarator)


def _assigns_a_pointer(unit: Unit, node: Node, pointers: set[str]) -> bool:
    target = node.child_by_field_name("left") if node.type == "assignment_expression" else None
    return target is not None and target.type == "identifier" and unit.text(target) in pointers


def _in_lambda_capturing_by_reference(unit: Unit, node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "lambda_expression":
            captures = parent.child_by_field_name("captures")
            return captures is not None and "&" in unit.text(captures)
        parent = parent.parent
    return False
