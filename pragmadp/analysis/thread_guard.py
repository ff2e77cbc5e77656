"""Which threads of a child kernel return at once? (for the serial version's loops, and consolidated items)

A child launched on a ceiling-divided grid usually opens with

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

so that the threads past `n` in the last block do nothing. The serial version runs every thread of the
grid in one parent thread, one after another: for a launch of 5 items on a block of 128 threads it would
make 128 calls, 123 of which return at once. When the child opens exactly so, the serial version stops
each row of threads at the first x index the guard turns away (the index grows with the thread, so every
later thread of the row, and every later block, is turned away too) and makes 5 calls.

Recognised: the first statement declares one integer variable (32 bits or more) initialised with the
global x index (`blockIdx.x * blockDim.x + threadIdx.x` in any order, with parentheses and casts to such
types), and the second is `if (i >= P) return;` or `if (P <= i) return;` (parentheses and braces
allowed; no cast in the comparison, which would change its types; no `else`), where P is an integer
parameter of the child, taken by value. Nothing runs before the guard, so the
threads it turns away have no effect at all. The serial version keeps the guard's own types (the index's
declared type, the parameter's), and trims only launches of at most 2^31 - 1 threads in x, where the
index cannot wrap.

A consolidated item (transforms/consolidate.py) is run by a consumer block, not launched: its threads past
the bound would take lanes of the block for nothing. `item_guard` also recognises a bound read from memory,
with declarations before it that only read (`int first = child_ptr[node]; if (i >= child_ptr[node + 1] -
first) return;`): each append evaluates them once for its item (as if every thread of the item had read
them right after the launch, which the launched grid allows too), and the consumer runs only the threads
before the bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pragmadp import ir
from pragmadp.cuda.frontend import Node, Unit, unparenthesised, walk

_INTEGERS = re.compile(r"^(?:(?:signed|unsigned)\s+)?(?:int|long|long\s+int|long\s+long|long\s+long\s+int)$|"
                       r"^(?:signed|unsigned)$|^(?:std::)?(?:size_t|ptrdiff_t|u?int(?:32|64)_t)$")
_TYPE_PARTS = {"type_qualifier", "primitive_type", "sized_type_specifier", "type_identifier", "qualified_identifier"}


@dataclass(frozen=True)
class Guard:
    """The child's threads with x index `>= bound` return at once; `index_type` is the index's type."""

    index_type: str
    bound: str


def guard(unit: Unit, body: Node, parameters: tuple[ir.Parameter, ...]) -> Guard | None:
    """The guard `body` (a child's compound statement) opens with, or None; computed once per child."""
    return unit.analysis(_guard, body, parameters)


def _guard(unit: Unit, body: Node, parameters: tuple[ir.Parameter, ...]) -> Guard | None:
    statements = [n for n in body.named_children if n.type != "comment"]
    if len(statements) < 2 or statements[0].type != "declaration" or statements[1].type != "if_statement":
        return None
    declared = _index_declaration(unit, statements[0])
    if declared is None:
        return None
    index, index_type = declared
    bound = _turned_away(unit, statements[1], index)
    if bound is None or not any(p.name == bound and _INTEGERS.match(_unqualified(ir.parameter_type(p)))
                                for p in parameters):
        return None
    return Guard(index_type, bound)


@dataclass(frozen=True)
class ItemGuard:
    """A child that opens `T i = <global x index>;`, then declarations that only read, then `if (i >= B)
    return;` (`statement`, its comparison `test`, with `bound` B): the threads past the bound only read, so a
    consolidated item evaluates those declarations and B once and runs only the threads before B."""

    index: str
    index_type: str
    statement: Node   # the if statement
    test: Node
    bound: Node


def item_guard(unit: Unit, body: Node, parameters: tuple[ir.Parameter, ...]) -> ItemGuard | None:
    """The guard a consolidated child's body opens with, or None; computed once per child.

    Unlike the serial version's guard, B may be any expression that only reads (no call, assignment or
    increment) the parameters and the prologue's names, and the prologue may declare such names: a child
    launched per node of a graph usually bounds its threads by `row_ptr[v + 1] - row_ptr[v]`."""
    return unit.analysis(_item_guard, body, parameters)


def _item_guard(unit: Unit, body: Node, parameters: tuple[ir.Parameter, ...]) -> ItemGuard | None:
    statements = [n for n in body.named_children if n.type != "comment"]
    declared = _index_declaration(unit, statements[0]) if statements and statements[0].type == "declaration" else None
    if declared is None:
        return None
    index, index_type = declared
    readable = {p.name for p in parameters}
    for statement in statements[1:]:
        if statement.type == "if_statement":
            test = _compared(unit, statement, index)
            if test is None or not _only_reads(unit, test[1], readable):
                return None
            return ItemGuard(index, index_type, statement, test[0], test[1])
        names = _reading_declaration(unit, statement, readable)
        if names is None:
            return None
        readable |= names
    return None


# What an expression that only reads may be made of: names and literals, operators without side effects,
# subscripts, members, casts and sizeof (and their types).
_READING = {"identifier", "number_literal", "char_literal", "true", "false", "null", "nullptr",
            "parenthesized_expression", "binary_expression", "unary_expression", "pointer_expression",
            "subscript_expression", "subscript_argument_list", "field_expression", "field_identifier",
            "conditional_expression", "cast_expression", "sizeof_expression", "type_descriptor",
            "abstract_pointer_declarator", *_TYPE_PARTS}


def _only_reads(unit: Unit, expression: Node, readable: set[str]) -> bool:
    """Whether the expression reads only `readable` names (the parameters and the prologue's), and changes
    nothing: no call, assignment or increment (`_READING`)."""
    for node in walk(expression):
        if not node.is_named:
            continue
        if node.type not in _READING:
            return False
        if node.type == "identifier" and unit.text(node) not in readable:
            return False
    return True


def _reading_declaration(unit: Unit, declaration: Node, readable: set[str]) -> set[str] | None:
    """The names a prologue declaration (`const int first = row_ptr[v];`) declares, each initialised by an
    expression that only reads; None for anything else (static, volatile, arrays, no initialiser)."""
    if declaration.type != "declaration":
        return None
    names: set[str] = set()
    for part in declaration.named_children:
        if part.type in _TYPE_PARTS or part.type == "placeholder_type_specifier":
            if unit.text(part) == "volatile":
                return None
            continue
        name, value = part.child_by_field_name("declarator"), part.child_by_field_name("value")
        if part.type != "init_declarator" or name is None or name.type != "identifier" or value is None \
                or not _only_reads(unit, value, readable | names):
            return None
        names.add(unit.text(name))
    return names or None


def _index_declaration(unit: Unit, declaration: Node) -> tuple[str, str] | None:
    """(name, type without const) of `T i = <global x index>;`, the declaration's only declarator."""
    declarators = [n for n in declaration.named_children if n.type not in _TYPE_PARTS]
    if len(declarators) != 1 or declarators[0].type != "init_declarator":
        return None
    name, value = declarators[0].child_by_field_name("declarator"), declarators[0].child_by_field_name("value")
    parts = [unit.text(n) for n in declaration.named_children if n.type in _TYPE_PARTS and unit.text(n) != "const"]
    index_type = " ".join(parts)
    if name is None or name.type != "identifier" or value is None or not _INTEGERS.match(index_type):
        return None
    return (unit.text(name), index_type) if _is_global_x_index(unit, value) else None


def _is_global_x_index(unit: Unit, node: Node) -> bool:
    """`blockIdx.x * blockDim.x + threadIdx.x`, in any order, with parentheses and widening casts."""
    total = _bare(unit, node)
    if total is None or total.type != "binary_expression" or _operator(unit, total) != "+":
        return False
    sides = _operands(unit, total)
    product = next((s for s in sides if s.type == "binary_expression" and _operator(unit, s) == "*"), None)
    if product is None or not any(unit.text(s) == "threadIdx.x" for s in sides):
        return False
    return {unit.text(f) for f in _operands(unit, product)} == {"blockIdx.x", "blockDim.x"}


def _operands(unit: Unit, node: Node) -> list[Node]:
    """The two operands of a binary expression, bare."""
    return [bare for side in ("left", "right") if (bare := _bare(unit, node.child_by_field_name(side))) is not None]


def _turned_away(unit: Unit, statement: Node, index: str) -> str | None:
    """P of `if (index >= P) return;` or `if (P <= index) return;` (no else), else None. The operands may
    be parenthesised but not cast: a cast changes the comparison the serial loops would have to repeat."""
    compared = _compared(unit, statement, index)
    bound = compared[1] if compared is not None else None
    return unit.text(bound) if bound is not None and bound.type == "identifier" else None


def _compared(unit: Unit, statement: Node, index: str) -> tuple[Node, Node] | None:
    """(the comparison, B) of `if (index >= B) return;` or `if (B <= index) return;` (no else; the index
    uncast, both sides may be parenthesised), else None."""
    if statement.child_by_field_name("alternative") is not None:
        return None
    condition = statement.child_by_field_name("condition")
    consequence = statement.child_by_field_name("consequence")
    if condition is None or consequence is None or not _returns_nothing(consequence):
        return None
    tested = unparenthesised(condition.named_children[0]) if condition.named_children else None
    if tested is None or tested.type != "binary_expression":
        return None
    left, right = (unparenthesised(tested.child_by_field_name(side)) for side in ("left", "right"))
    if left is None or right is None:
        return None
    operator = _operator(unit, tested)
    if operator == ">=" and left.type == "identifier" and unit.text(left) == index:
        return tested, right
    if operator == "<=" and right.type == "identifier" and unit.text(right) == index:
        return tested, left
    return None


def _returns_nothing(node: Node) -> bool:
    inner = [n for n in node.named_children if n.type != "comment"]
    if node.type == "compound_statement":
        return len(inner) == 1 and _returns_nothing(inner[0])
    return node.type == "return_statement" and not inner


def _bare(unit: Unit, node: Node | None) -> Node | None:
    """The node without enclosing parentheses and casts to an integer type of 32 bits or more."""
    while node is not None:
        if node.type == "parenthesized_expression" and len(node.named_children) == 1:
            node = node.named_children[0]
        elif node.type == "cast_expression" and _INTEGERS.match(_words(unit, node.child_by_field_name("type"))):
            node = node.child_by_field_name("value")
        else:
            return node
    return None


def _operator(unit: Unit, node: Node) -> str:
    operator = node.child_by_field_name("operator")
    return unit.text(operator) if operator is not None else ""


def _words(unit: Unit, node: Node | None) -> str:
    return " ".join(unit.text(node).split()) if node is not None else ""


def _unqualified(type_text: str) -> str:
    """`const int` -> `int`."""
    return " ".join(w for w in type_text.split() if w != "const")
