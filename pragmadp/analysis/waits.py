"""Does a function wait for another thread? (for the serial check, serial.py)

A loop waits when its way out (its condition, or that of an `if` in it that leaves it by `break`, `return` or
`goto`) reads memory that other threads write while it runs: directly, through a variable the loop assigns, or
through a device function it calls. Such a read is a load through a `volatile` pointer or reference (a
parameter, a local, a cast `*(volatile int*)p`) or of a `volatile` global or member, an atomic that only reads
(`atomicAdd(p, 0)`, `atomicOr(p, 0)`, `atomicAnd(p, ~0)`, `atomicCAS(p, v, v)`), an atomic load function
(`__atomic_load_n`, `cuda::std::atomic_load`, `__nv_atomic_load_n`), the `load` or `wait` of an atomic object
(`cuda::atomic_ref<int>(*p).load()`), or `__ldcv`. pdcc's serial version runs a child's threads one after
another in one thread: a thread that waits for a later one waits forever.

An atomic that changes memory is no wait: taking work (`i = atomicAdd(&next, 1)`) makes progress by itself,
and a lock taken with `atomicCAS`/`atomicExch` is released by the thread that took it before the next one runs.
A loop that only reads shared memory in its body (`if (load_relaxed(&dist[v]) > d)` over a vertex's edges)
does not wait on it either.
"""

from __future__ import annotations

from collections.abc import Iterator

from pragmadp.cuda import headers
from pragmadp.cuda.frontend import Function, Node, Unit, called_name, local_bindings, unwrapped_declarator, walk

_LOOPS = ("while_statement", "do_statement", "for_statement")
_LEAVES = ("break_statement", "return_statement", "goto_statement")
_LOAD_FUNCTIONS = {"__atomic_load_n", "__atomic_load", "__nv_atomic_load_n", "__nv_atomic_load", "atomic_load",
                   "atomic_load_explicit", "__ldcv"}
_IDENTITY = {"atomicAdd": ("0",), "atomicSub": ("0",), "atomicOr": ("0",), "atomicXor": ("0",),
             "atomicAnd": ("~0", "~0u", "-1", "0xffffffff", "0xFFFFFFFF", "~0ull", "0xffffffffffffffff")}
_SCOPES = ("", "_block", "_system")   # atomicAdd_block, atomicOr_system ...


def waiting_loop(unit: Unit, owner: Unit, function: Function) -> tuple[Node, Node] | None:
    """The first loop of `function` (defined in `owner`: the file `unit` or one of its headers) whose way out
    reads memory other threads write, and that read."""
    if function.node.type != "function_definition":   # a class's member initialisers (serial._initialisers)
        return None
    for loop in walk(function.node):
        if loop.type in _LOOPS:
            assigned = _assigned(owner, loop)
            for way_out in _ways_out(loop):
                for node in walk(way_out):
                    read = _shared_read(unit, owner, function.node, node, set())
                    if read is None and node.type == "identifier":
                        read = next((r for value in assigned.get(owner.text(node), ()) for n in walk(value)
                                     if (r := _shared_read(unit, owner, function.node, n, set())) is not None), None)
                    if read is not None:
                        return loop, read
    return None


def _ways_out(loop: Node) -> Iterator[Node]:
    """The loop's condition, and the condition of each `if` in it whose branches leave it."""
    condition = loop.child_by_field_name("condition")
    if condition is not None:
        yield condition
    body = loop.child_by_field_name("body")
    for node in walk(body) if body is not None else ():
        condition = node.child_by_field_name("condition")
        if node.type == "if_statement" and condition is not None:
            branches = [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
            if any(n.type in _LEAVES for branch in branches if branch is not None for n in walk(branch)):
                yield condition


def _assigned(owner: Unit, loop: Node) -> dict[str, list[Node]]:
    """The values the loop gives its variables (`v = ...`, `int v = ...`), by name."""
    found: dict[str, list[Node]] = {}
    for node in walk(loop):
        if node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        elif node.type == "init_declarator":
            left, right = node.child_by_field_name("declarator"), node.child_by_field_name("value")
        else:
            continue
        if left is not None and right is not None and left.type == "identifier":
            found.setdefault(owner.text(left), []).append(right)
    return found


def _shared_read(unit: Unit, owner: Unit, function_node: Node, node: Node, visited: set[str]) -> Node | None:
    """`node` if it reads memory other threads write as it runs, or the read in a device function it calls."""
    if node.type == "type_descriptor":   # a cast to a volatile pointer or reference: `*(volatile int*)p`
        return (node.parent or node) if _volatile(owner, node) and any(
            n.type in ("abstract_pointer_declarator", "abstract_reference_declarator") for n in node.children) \
            else None
    if node.type in ("identifier", "field_identifier"):
        bound = local_bindings(owner, function_node).get(owner.text(node)) if node.type == "identifier" else None
        if bound is not None:   # a parameter or local: a pointer or reference to volatile memory
            return node if bound.type != "lambda_expression" and _volatile(owner, bound) and any(
                n.type in ("pointer_declarator", "reference_declarator") for d in
                bound.children_by_field_name("declarator") for n in walk(d)) else None
        return node if owner.text(node) in owner.analysis(_volatile_names) else None
    if node.type != "call_expression":
        return None
    name, listed = called_name(owner, node), node.child_by_field_name("arguments")
    if name is None or listed is None:
        return None
    arguments = [owner.text(a) for a in listed.named_children]
    if name in _LOAD_FUNCTIONS or any(len(arguments) == 2 and name == f + s and arguments[1] in identity
                                      for f, identity in _IDENTITY.items() for s in _SCOPES) or \
            name in ("atomicCAS", "atomicCAS_block", "atomicCAS_system") and len(arguments) == 3 and \
            arguments[1] == arguments[2]:
        return node
    function = node.child_by_field_name("function")
    if name in ("load", "wait") and function is not None and function.type == "field_expression":
        target = function.child_by_field_name("argument")
        bound = local_bindings(owner, function_node).get(owner.text(target)) if target is not None else None
        if target is not None and "atomic" in owner.text(bound if bound is not None else target):
            return node
    if name in visited:
        return None
    visited.add(name)
    return next((r for callee_owner, callee in headers.device_bodies(unit, name) for n in walk(callee.node)
                 if (r := _shared_read(unit, callee_owner, callee.node, n, visited)) is not None), None)


def _volatile(owner: Unit, declaration: Node) -> bool:
    return any(c.type == "type_qualifier" and owner.text(c) == "volatile" for c in declaration.children)


def _volatile_names(owner: Unit) -> frozenset[str]:
    """Variables and members declared `volatile` outside functions: globals other threads may write."""
    names = set()
    for declaration in walk(owner.tree.root_node):
        if declaration.type in ("declaration", "field_declaration") and _volatile(owner, declaration) and \
                not _in_function(declaration):
            for declarator in declaration.children_by_field_name("declarator"):
                inner = unwrapped_declarator(declarator)
                name = next((n for n in walk(inner) if n.type in ("identifier", "field_identifier")), None) \
                    if inner is not None else None
                if name is not None:
                    names.add(owner.text(name))
    return frozenset(names)


def _in_function(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "lambda_expression"):
            return True
        parent = parent.parent
    return False
