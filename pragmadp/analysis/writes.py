"""Which names a piece of device code may change: what makes a value differ between two points.

Aggregation passes an argument once per group only when no parent can change it; the thread-count
analysis reads a grid size through a local variable only when nothing changes the variable's inputs
before the launch. Both ask the same conservative question.
"""

from __future__ import annotations

from pragmadp.cuda.frontend import Node, Unit, kernel_call_syntax, walk


def assigned_names(unit: Unit, body: Node, after: int = 0) -> frozenset[str]:
    """Names that `body` (from byte `after` on) assigns, increments, takes the address of, binds to a
    reference, passes to a function (which may take them by reference), or declares again (shadowing).
    Before `after`, what makes an alias still counts (`&x`, `T& r = x`, a lambda capturing by reference):
    a write through it may come later. Writes to memory through other pointers are not tracked.
    Computed once per body and point."""
    return unit.analysis(_assigned_names, body, after)


def _assigned_names(unit: Unit, body: Node, after: int) -> frozenset[str]:
    names: set[str] = set()
    for node in walk(body):
        if node.start_byte < after and not (_makes_alias(unit, node) or _in_lambda_capturing_by_reference(unit, node)):
            continue
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "pointer_expression" and unit.text(node).startswith("&"):
            target = node.child_by_field_name("argument")
        elif node.type == "init_declarator":  # a local that may shadow a name, or a reference to one
            target = node.child_by_field_name("declarator")
            value = node.child_by_field_name("value")
            if target is not None and value is not None and any(n.type == "reference_declarator" for n in walk(target)):
                names.update(unit.text(n) for n in walk(value) if n.type == "identifier")
        elif node.type == "argument_list" and node.parent is not None and node.parent.type == "call_expression" and \
                kernel_call_syntax(node.parent) is None:
            names.update(unit.text(a) for a in node.named_children if a.type == "identifier")
        elif node.type == "declaration":
            names.update(unit.text(n) for d in node.children_by_field_name("declarator")
                         if d.type != "init_declarator" for n in walk(d) if n.type == "identifier")
        if target is not None:
            names.update(unit.text(n) for n in walk(target) if n.type == "identifier")
    return frozenset(names)


def _makes_alias(unit: Unit, node: Node) -> bool:
    if node.type == "pointer_expression":
        return unit.text(node).startswith("&")
    if node.type != "init_declarator":
        return False
    declarator = node.child_by_field_name("declarator")
    assert declarator is not None   # a required field
    return any(n.type == "reference_declarator" for n in walk(declarator))


def _in_lambda_capturing_by_reference(unit: Unit, node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "lambda_expression":
            captures = parent.child_by_field_name("captures")
            return captures is not None and "&" in unit.text(captures)
        parent = parent.parent
    return False
