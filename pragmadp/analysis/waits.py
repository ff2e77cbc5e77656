"""Does a function wait for another thread? (for the serial check, serial.py)

A loop (or a `goto` back to a label before it, whose ways out are the conditions around it) waits when nothing but
memory other threads write lets it end: its condition reads such memory, or an `if` or `switch` around a `continue`
of it does (the rest of the iteration, its progress, waits on it; not when a `for`'s update makes that progress), or
it has no condition that can change (`for (;;)`, `while (true)`, `while (i < n)` with neither changed in it) and an
`if` in it that leaves it (`break`, `return`, `goto`) does; directly, through a variable, member or element the loop
sets from such a read, under a condition on one (`if (atomicAdd(x, 0)) ++i;`, `ready(p) && s.i++;`) or in an inner
loop such a read ends (`for (k = 0; k < n; ++k) if (*flag) break;`), or through a device function it calls. Such a
read is a load through a `volatile` pointer or reference (a parameter, a local, a cast `*(volatile int*)p`, a macro
for one) or of a `volatile` global or member, an atomic that only reads (`atomicAdd(p, 0)`, `atomicOr(p, 0u)`,
`atomicAnd(p, ~0)`, `atomicCAS(p, v, v)`), an atomic load function (`__atomic_load_n`, `cuda::std::atomic_load`,
`__nv_atomic_load_n`, `__ldcv`, `__ldcg`), the use of an object whose type names `atomic`
(`cuda::atomic_ref<int>(*p).load()`, `*flag` of a `cuda::atomic<int>* flag`, a member `q->ready.load()`,
`flag.test()`), or, in a loop that fences memory (`__threadfence()`) and neither stores nor calls anything else, any
load through a subscript, a pointer or `->`; types behind a `typedef` or `using` count as what they stand for.
pdcc's serial version runs a child's threads one after another in one thread: a thread that waits for a later one
waits forever.

No wait: an atomic that changes memory (taking work, `i = atomicAdd(&next, 1)`; a CAS update loop; a lock taken with
`atomicCAS`/`atomicExch` alone, released by its thread before the next runs), a shared read in a loop that a bound
ends anyway (`for (i = 0; i < n; ++i) if (*found) return;`), a loop that runs once (`do { ... } while (0)`). On the
safe side: a condition that joins a bound and such a read (`i < n && !*found`) is a wait, and so is a loop one of
whose ways out it changes out of sight (through a reference, a pointer or a macro: `while (i < n) advance(x, i);`,
`for (;;) { poll(x, f); if (f) break; }`) when anything in it is such a read. Not seen: a macro that is itself a
whole loop, an alias of an alias, a lambda passed to a function the loop calls or copied to another variable.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from pragmadp.cuda import headers
from pragmadp.cuda.frontend import (Function, Node, Unit, called_name, declared_name, local_bindings, required,
                                    unparenthesised, unwrapped_declarator, walk)

Read = tuple[Unit, Node]   # a read of memory other threads write, and the unit it is written in
_Around = tuple[Node, "_Around"] | None   # loops and conditions around a node, innermost first: a linked list

_LOOPS = ("while_statement", "do_statement", "for_statement")
_LOAD_FUNCTIONS = {"__atomic_load_n", "__atomic_load", "__nv_atomic_load_n", "__nv_atomic_load", "atomic_load",
                   "atomic_load_explicit", "__ldcv", "__ldcg"}
_ZERO = re.compile(r"\(?\s*(0+|0[xX]0+|0*\.0*|0+\.?0*[eE][+-]?\d+)[uUlLfF]*\s*\)?")
_ALL_ONES = re.compile(r"\(?\s*(~\s*0+[uUlL]*|-\s*1|0[xX](f{8}|F{8}|f{16}|F{16})[uUlL]*)\s*\)?")
_IDENTITY = {"atomicAdd": _ZERO, "atomicSub": _ZERO, "atomicOr": _ZERO, "atomicXor": _ZERO, "atomicAnd": _ALL_ONES}
_FENCES = {"__threadfence", "__threadfence_block", "__threadfence_system", "atomic_thread_fence"}
_SCOPES = ("", "_block", "_system")   # atomicAdd_block, atomicOr_system ...
_DECLARING = ("init_declarator", "declaration", "parameter_declaration", "optional_parameter_declaration",
              "pointer_declarator", "reference_declarator", "field_declaration")


def waiting_loop(unit: Unit, owner: Unit, function: Function, macros: dict[str, frozenset[str]]) \
        -> tuple[Node, Read] | None:
    """The first loop of `function` (defined in `owner`: the file `unit` or one of its headers) that only memory
    other threads write lets end, and that read; computed once per function. `macros`: what each macro of the
    file stands for (serial._macro_words)."""
    if function.node.type != "function_definition":   # a class's member initialisers
        return None
    memo = unit.analysis(_memo, "loops")
    if function.node not in memo:
        memo[function.node] = _waiting_loop(unit, owner, function, macros)
    return memo[function.node]


def read_text(read: Read) -> str:
    """The source text of a read, a cast's whole expression (`(volatile int*)x`, `static_cast<...>(p)`)."""
    owner, node = read
    if node.type == "type_descriptor":
        while node.parent is not None and node.parent.type in ("template_argument_list", "template_function"):
            node = node.parent
        node = node.parent or node
    return owner.text(node)


def _memo(unit: Unit, kind: str) -> dict:
    """A table of answers per function (`kind`: which question), kept with the unit: each function is read once
    however many children and loops reach it."""
    return {}


def _waiting_loop(unit: Unit, owner: Unit, function: Function, macros: dict[str, frozenset[str]]) \
        -> tuple[Node, Read] | None:
    changes = _changes(owner, function.node)
    own: dict[tuple[Node, bool], _Scan] = {}      # what a part reads and names, itself,
    merged: dict[tuple[Node, bool], _Found] = {}  # and with the lambdas it calls (both kept for every loop)

    def first_read(loop: _Region, body: list[Node], ways_out: Iterator[Node]) -> Read | None:
        fenced = changes.fenced(loop)

        def scan(part: Node) -> _Found:
            if (part, fenced) not in merged:
                read: Read | None = None
                names: set[str] = set()
                pending, seen = [part], {part}
                while pending and read is None:   # the part, and the function's lambdas it calls
                    scanned = pending.pop()
                    if (scanned, fenced) not in own:
                        own[scanned, fenced] = _scan(unit, owner, function.node, scanned, macros, fenced,
                                                     changes.lambdas)
                    read, found, calls = own[scanned, fenced]
                    names |= found
                    pending += [c for c in calls if c not in seen]
                    seen.update(calls)
                merged[part, fenced] = (read, frozenset() if read is not None else frozenset(names))
            return merged[part, fenced]

        carried: dict[str, Read | None] = {}   # a variable, and the read it carries in this loop
        for way_out in ways_out:
            read, names = scan(way_out)
            for name in names if read is None else ():
                if name not in carried:
                    carried[name] = _carried(changes, loop, name, scan)
                if (read := carried[name]) is not None:
                    break
            if read is None and _fixed(owner, way_out, changes, loop):
                # what would change it is out of sight (a reference, a pointer, a macro): any read may
                read = next((r for part in body if (r := scan(part)[0]) is not None), None)
            if read is not None:
                return read
        return None

    for loop in walk(function.node):
        if loop.type not in _LOOPS or _constant(owner, loop.child_by_field_name("condition")) is False:
            continue   # (`do { ... } while (0)` runs once)
        body = loop.child_by_field_name("body")
        if (read := first_read(loop, [body] if body is not None else [], _ways_out(owner, loop, changes))):
            return loop, read
    for jump, region, statements in changes.goto_loops():
        if (read := first_read(region, statements, _goto_ways_out(jump, region, changes))) is not None:
            return jump.node, read
    return None


@dataclass(frozen=True)
class _Span:
    """Where a loop made of a `goto` back to a label is: from the label to the `goto`."""

    start_byte: int
    end_byte: int


_Region = Node | _Span   # a loop, or a loop made of a goto


def _goto_ways_out(jump: _Exit, region: _Span, changes: _Changes) -> Iterator[Node]:
    """What decides whether a loop made of a `goto` back ends: the conditions around the `goto` within it; for
    one taken always, those around each statement that leaves it (a `return` or `goto` of the same function or
    lambda, a `break` of a loop or `switch` around the label)."""
    deciding = jump.deciding(region)
    if deciding:
        yield from deciding
        return
    for exit in changes.exits(region):
        if exit.node != jump.node and exit.scope == jump.scope and exit.target < region.start_byte:
            yield from exit.deciding(region)


_Found = tuple[Read | None, frozenset[str]]   # what a part reads that other threads write, or the names it uses
_Scan = tuple[Read | None, frozenset[str], frozenset[Node]]   # the same, and the lambdas it calls


def _scan(unit: Unit, owner: Unit, function_node: Node, part: Node, macros: dict[str, frozenset[str]],
          fenced: bool, lambdas: dict[str, list[Node]]) -> _Scan:
    """The first read of memory other threads write in a part of a function, or else the names it uses (its
    variables and the members and elements it names: `s.i`, `c[0]`) and the function's lambdas it calls (every
    lambda a variable of that name is set to). `fenced`: in a loop that fences memory (`while (x[0] == 0)
    __threadfence();`), where a plain load is read again each time round, a load through a subscript, a pointer
    or `->` counts as one."""
    names: set[str] = set()
    calls: set[Node] = set()
    for node in walk(part):
        if (read := _read(unit, owner, function_node, node, macros)) is not None:
            return read, frozenset(), frozenset()
        if fenced and _plain_load(owner, node):
            return (owner, node), frozenset(), frozenset()
        if (name := _changed_name(owner, node)) is not None:
            names.add(name)
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        if callee is not None and callee.type == "identifier":
            calls.update(lambdas.get(owner.text(callee), ()))
    return None, frozenset(names), frozenset(calls)


def _carried(changes: _Changes, loop: _Region, name: str, scan: Callable[[Node], _Found]) -> Read | None:
    """The read of memory other threads write that a variable the loop sets carries: set from one directly, or
    from a variable that carries one (`int f = atomicAdd(x, 0); if (f) ++i;`: i too), or under what reads one.
    Everything the variable is set from is scanned, once (`scan`, whose answers serve every loop of the function:
    a nest's inner loops are parts of each outer loop's question)."""
    seen, searched, pending = {name}, set(), [name]
    deciding: dict[int, list[Node]] = {}   # by the id of the conditions around changes (siblings share them)
    while pending:
        for change in changes.of(pending.pop(), loop):
            if id(change.around) not in deciding:
                deciding[id(change.around)] = change.deciding(loop)
            for part in (change.node, *deciding[id(change.around)]):
                if part in searched:
                    continue
                searched.add(part)
                read, names = scan(part)
                if read is not None:
                    return read
                pending.extend(names - seen)
                seen |= names
    return None


def _ways_out(owner: Unit, loop: Node, changes: _Changes) -> Iterator[Node]:
    """What decides whether the loop ends: its condition, and the condition of each `if` or `switch` around a
    `continue` of this loop (which skips what the loop does after it, its progress too, unless a `for`'s update
    changes what its condition reads); without a condition that can change (`true`, `1`, `i < n` with neither
    changed in the loop), also that of each one around a statement that leaves it (a `break` of this loop, a
    `return` of this function, a `goto`). One walk down, each node holding the conditions above it (Node.parent
    walks down from the root), into inner loops only when a `return` or `goto` there could leave this one."""
    condition, update = loop.child_by_field_name("condition"), loop.child_by_field_name("update")
    body = loop.child_by_field_name("body")
    may_end = condition is not None and _constant(owner, condition) is None
    if condition is not None and may_end:
        yield condition
    bounded = condition is not None and may_end and not _fixed(owner, condition, changes, loop)
    stepped = condition is not None and update is not None and any(   # a `continue` runs the update all the same
        n.type == "identifier" and changes.of(owner.text(n), update) for n in walk(condition))
    # a node, the conditions around it, whether a `break` there leaves something inner, and a `continue`
    stack: list[tuple[Node, _Around, bool, bool]] = [(body, None, False, False)] if body is not None else []
    yielded: set[Node] = set()
    while stack:
        node, conditions, inner_break, inner_continue = stack.pop()
        leaves = node.type in ("return_statement", "goto_statement") or \
            node.type == "break_statement" and not inner_break
        if (node.type == "continue_statement" and not inner_continue and not stepped) or (leaves and not bounded):
            while conditions is not None and conditions[0] not in yielded:   # (the outer ones: yielded with it)
                yielded.add(conditions[0])
                yield conditions[0]
                conditions = conditions[1]
            continue
        if node.type == "lambda_expression" or bounded and node.type in (*_LOOPS, "for_range_loop"):
            continue   # a lambda's returns leave the lambda; an inner loop's continues, the inner loop
        inner_continue = inner_continue or node.type in (*_LOOPS, "for_range_loop")
        inner_break = inner_break or inner_continue or node.type == "switch_statement"
        test = node.child_by_field_name("condition") if node.type in ("if_statement", "switch_statement") else None
        stack.extend((child, (test, conditions) if test is not None and child != test else conditions, inner_break,
                      inner_continue) for child in node.children)


def _constant(owner: Unit, condition: Node | None) -> bool | None:
    """A loop's condition as a constant: True for `true`, `1`, none (`for (;;)`), False for `false`, `0`; else
    None."""
    if condition is None:
        return True
    if condition.type == "condition_clause" and condition.named_child_count == 1:
        condition = condition.named_children[0]
    condition = unparenthesised(condition)
    if condition.type in ("true", "false"):
        return condition.type == "true"
    if condition.type == "number_literal" and re.fullmatch(r"[0-9]+[uUlL]*", owner.text(condition)):
        return not _ZERO.fullmatch(owner.text(condition))
    return None


_FIXED = ("identifier", "number_literal", "true", "false", "null", "char_literal", "binary_expression",
          "unary_expression", "parenthesized_expression", "condition_clause", "field_expression", "field_identifier",
          "cast_expression", "type_descriptor", "primitive_type", "sizeof_expression")


def _fixed(owner: Unit, condition: Node, changes: _Changes, loop: _Region) -> bool:
    """Whether a condition cannot change while the loop runs, for all the loop shows: names and members it does
    not change (but in a `for`'s initializer) and operators on them, no memory, no call (`while (i < n) { if
    (*flag) break; }` ends only by its break; `while (i < n) advance(x, i);` changes i out of sight)."""
    if not all(n.type in _FIXED or not n.is_named for n in walk(condition)):
        return False
    initializer = loop.child_by_field_name("initializer") if isinstance(loop, Node) else None
    return not any(c for n in walk(condition) if (name := _changed_name(owner, n)) is not None
                   for c in changes.of(name, loop)
                   if initializer is None or not initializer.start_byte <= c.node.start_byte < initializer.end_byte)


@dataclass(frozen=True)
class _Change:
    """A change a function makes to a variable, or to a member or element it names by the same text (`v = ...`,
    `int v = ...`, `++v`, `s.i++`, `c[0] = 1`)."""

    node: Node
    around: _Around   # the loops and the conditions around it

    def deciding(self, loop: _Region) -> list[Node]:
        """What decides, within `loop`, whether the change runs and with what: the conditions of the `if`s and
        `switch`es around it, the operands before it of `&&`, `||` and `?:`, and the inner loops around it whole
        (whatever ends an inner loop decides how often it runs, and what its counter holds after it:
        `for (k = 0; k < n; ++k) if (*flag) break;`), as the outermost of them and what is around that."""
        found: list[Node] = []
        around = self.around
        while around is not None and around[0].start_byte > loop.start_byte:   # (the loop itself: not)
            if around[0].type in _LOOPS:
                found.clear()   # (inside the loop: scanned with it)
            found.append(around[0])
            around = around[1]
        return found


@dataclass(frozen=True)
class _Exit(_Change):
    """A statement that may leave a loop: `return`, `break`, `goto`."""

    label: str | None     # of a `goto`
    scope: Node | None    # the lambda it is in, if any
    target: int           # of a `break`: where the loop or `switch` it leaves starts (else -1)


_Placed = TypeVar("_Placed", bound=_Change)


class _InOrder(Generic[_Placed]):
    """Changes or exits in source order, those within a loop found by bisection."""

    def __init__(self, found: list[_Placed]):
        self.all = sorted(found, key=lambda c: c.node.start_byte)
        self._starts = [c.node.start_byte for c in self.all]

    def within(self, region: _Region) -> list[_Placed]:
        return self.all[bisect_left(self._starts, region.start_byte):bisect_left(self._starts, region.end_byte)]


class _Changes:
    """A function's changes to its variables, members and elements by name (_changed_name), its memory fences, and
    what else in it may write memory (calls, stores), in source order: those in a loop are found by where they
    are (a nest of loops shares one list, not one per loop)."""

    def __init__(self, by_name: dict[str, list[_Change]], fences: list[int], effects: list[int],
                 labels: dict[tuple[Node | None, str], Node], exits: list[_Exit], lambdas: dict[str, list[Node]]):
        self._by_name = {name: _InOrder(found) for name, found in by_name.items()}
        self._fences, self._effects = sorted(fences), sorted(effects)
        self._labels = labels
        self._exits = _InOrder(exits)
        self.lambdas = lambdas   # each lambda a variable of that name is set to

    def goto_loops(self) -> Iterator[tuple[_Exit, _Span, list[Node]]]:
        """Each `goto` to a label before it (in the same function or lambda), the loop it makes, and the
        statements of that loop: the label's and those after it in its block, up to the one holding the `goto`."""
        for jump in self.exits(None):
            label = self._labels.get((jump.scope, jump.label)) if jump.label is not None else None
            if label is not None and label.start_byte < jump.node.start_byte:
                block = label.parent.named_children if label.parent is not None else [label]
                yield jump, _Span(label.start_byte, jump.node.end_byte), \
                    [n for n in block if label.start_byte <= n.start_byte < jump.node.end_byte]

    def exits(self, region: _Region | None) -> list[_Exit]:
        """The statements in `region` (None: anywhere in the function) that may leave it: `return`, `break`,
        `goto`."""
        return self._exits.all if region is None else self._exits.within(region)

    def of(self, name: str, within: _Region) -> list[_Change]:
        """The changes to `name` within a loop, or another part of the function."""
        found = self._by_name.get(name)
        return found.within(within) if found is not None else []

    def fenced(self, loop: _Region) -> bool:
        """Whether the loop fences memory (`__threadfence()`), so that it reads plain memory again each time, and
        does nothing else to memory (a fence between stores orders them; one in a loop that only loads spins)."""
        return _any_within(self._fences, loop) and not _any_within(self._effects, loop)


def _changes(owner: Unit, function_node: Node) -> _Changes:
    """The changes a function makes (`if (atomicAdd(x, 0) > 0) done = true;`, `ready(p) && ++i;`), each with
    the loops and conditions around it, and where it fences memory: one walk, each node holding them as a
    linked list."""
    found: dict[str, list[_Change]] = {}
    fences: list[int] = []
    effects: list[int] = []
    labels: dict[tuple[Node | None, str], Node] = {}
    exits: list[_Exit] = []
    lambdas: dict[str, list[Node]] = {}
    # a node, the loops and conditions around it, the lambda it is in, where the loop or switch around it starts
    stack: list[tuple[Node, _Around, Node | None, int]] = [(function_node, None, None, -1)]
    while stack:
        node, around, scope, target = stack.pop()
        if node.type == "assignment_expression":
            changed = node.child_by_field_name("left")
        elif node.type == "init_declarator" and node.child_by_field_name("value") is not None:
            changed = node.child_by_field_name("declarator")
        elif node.type == "update_expression":
            changed = node.child_by_field_name("argument")
        else:
            changed = None
        if changed is not None and (name := _changed_name(owner, changed)) is not None:
            found.setdefault(name, []).append(_Change(node, around))
        if changed is not None and changed.type != "identifier" and node.type != "init_declarator":
            effects.append(node.start_byte)
        if node.type == "call_expression":
            (fences if called_name(owner, node) in _FENCES else effects).append(node.start_byte)
        if node.type == "labeled_statement" and (label := node.child_by_field_name("label")) is not None:
            labels[scope, owner.text(label)] = node
        if node.type in ("return_statement", "break_statement", "goto_statement"):
            label = node.child_by_field_name("label")
            exits.append(_Exit(node, around, owner.text(label) if label is not None else None, scope,
                               target if node.type == "break_statement" else -1))
        if node.type == "init_declarator" and (value := node.child_by_field_name("value")) is not None and \
                value.type == "lambda_expression" and changed is not None and \
                (name := _changed_name(owner, changed)) is not None:
            lambdas.setdefault(name, []).append(value)
        inner: _Around = (node, around) if node.type in _LOOPS else around
        inner_scope = node if node.type == "lambda_expression" else scope
        inner_target = node.start_byte if node.type in (*_LOOPS, "for_range_loop", "switch_statement") else \
            -1 if node.type == "lambda_expression" else target
        decided = _deciding(node)
        for child in node.children:
            stack.append((child, (decided, inner) if decided is not None and child != decided and (
                node.type != "binary_expression" or child == node.child_by_field_name("right")) else inner,
                inner_scope, inner_target))
    return _Changes(found, fences, effects, labels, exits, lambdas)


def _any_within(starts: list[int], part: _Region) -> bool:
    """Whether a sorted list of positions has one within `part`."""
    first = bisect_left(starts, part.start_byte)
    return first < len(starts) and starts[first] < part.end_byte


def _changed_name(owner: Unit, node: Node) -> str | None:
    """What a change to `node` is kept under, and a use of it looked up by: a variable's name, or the text of a
    member, an element or a dereference without its spaces (`s.i`, `c[0]`, `*p`, `q->n`); None for anything
    else."""
    node = unparenthesised(node)
    if node.type == "identifier":
        return owner.text(node)
    if node.type in ("field_expression", "subscript_expression") or _plain_load(owner, node):
        return "".join(owner.text(node).split())
    return None


def _plain_load(owner: Unit, node: Node) -> bool:
    """Whether `node` loads memory: an element, a dereference or a member through a pointer."""
    if node.type == "subscript_expression":
        return True
    operator = node.child_by_field_name("operator") if node.type in ("pointer_expression", "field_expression") \
        else None
    return operator is not None and owner.text(operator) in ("*", "->")


def _deciding(node: Node) -> Node | None:
    """What decides whether the other parts of `node` run: the condition of an `if`, `switch` or `?:`, the left
    operand of `&&` or `||`."""
    if node.type in ("if_statement", "switch_statement", "conditional_expression"):
        return node.child_by_field_name("condition")
    if node.type == "binary_expression" and required(node, "operator").type in ("&&", "||"):
        return node.child_by_field_name("left")
    return None


def _read(unit: Unit, owner: Unit, function_node: Node, node: Node, macros: dict[str, frozenset[str]]) \
        -> Read | None:
    """Whether `node` reads memory other threads write, itself or in the device functions it calls."""
    if _reads(unit, owner, function_node, node, macros):
        return owner, node
    if node.type != "call_expression" or (name := called_name(owner, node)) is None:
        return None
    return next((r for callee_owner, callee in headers.device_bodies(unit, name)
                 if (r := _function_read(unit, callee_owner, callee, macros)) is not None), None)


def _function_read(unit: Unit, owner: Unit, function: Function, macros: dict[str, frozenset[str]]) -> Read | None:
    """The first read of memory other threads write in a function or the functions it calls, anywhere in them
    (`load_volatile(p)` is one): every function it reaches is read, without recursion (call chains may be
    long). Computed once per function; a function whose reach holds no read is known to read nothing, with
    every function in that reach."""
    memo = unit.analysis(_memo, "reads")
    if function.node in memo:
        return memo[function.node]
    reached, pending, found = {function.node}, [(owner, function)], None
    while pending and found is None:
        current_owner, current = pending.pop()
        for node in walk(current.node):
            if _reads(unit, current_owner, current.node, node, macros):
                found = (current_owner, node)
            elif node.type == "call_expression" and (name := called_name(current_owner, node)) is not None:
                for callee_owner, callee in headers.device_bodies(unit, name):
                    found = found or memo.get(callee.node)
                    if callee.node not in reached and callee.node not in memo:
                        reached.add(callee.node)
                        pending.append((callee_owner, callee))
            if found is not None:
                break
    memo.update({n: None for n in reached} if found is None else {function.node: found})
    return found


def _reads(unit: Unit, owner: Unit, function_node: Node, node: Node, macros: dict[str, frozenset[str]]) -> bool:
    """Whether `node` itself reads memory other threads write (not through a function it calls)."""
    if node.type == "type_descriptor":   # a cast to a volatile pointer or reference: `*(volatile int*)p`
        return _volatile(owner, node) and any(
            n.type in ("abstract_pointer_declarator", "abstract_reference_declarator") for n in node.children)
    if node.type in ("identifier", "field_identifier"):
        text = owner.text(node)
        if _LOAD_FUNCTIONS & macros.get(text, frozenset()) or "volatile" in macros.get(text, ()):
            return True   # `#define READ_ONCE(p) (*(volatile int*)(p))`
        bound = local_bindings(owner, function_node).get(text) if node.type == "identifier" else None
        if bound is not None and bound.type != "lambda_expression":
            declarator = next((d for d in bound.children_by_field_name("declarator")
                               if (n := declared_name(d)) is not None and owner.text(n) == text), None)
            kind = bound.child_by_field_name("type")
            written = owner.text(kind) if kind is not None else ""
            aliased = unit.analysis(_kinds, written, 1) if kind is not None and kind.type == "type_identifier" \
                else set()
            pointer = "pointer" in aliased or declarator is not None and any(
                n.type in ("pointer_declarator", "reference_declarator") for n in walk(declarator))
            return pointer and (_volatile(owner, bound) or "volatile" in aliased) or \
                ("atomic" in written or "atomic" in aliased) and _loads(owner, node)
        if bound is not None:
            return False
        kinds = unit.analysis(_kinds, text, 0)   # a global or member of the file or its headers
        return "volatile" in kinds or "atomic" in kinds and _loads(owner, node)
    if node.type != "call_expression" or (name := called_name(owner, node)) is None:
        return False
    listed = node.child_by_field_name("arguments")
    arguments = [owner.text(a) for a in listed.named_children] if listed is not None else []
    if name in _LOAD_FUNCTIONS or len(arguments) == 2 and any(
            name == f + s and identity.fullmatch(arguments[1]) for f, identity in _IDENTITY.items() for s in _SCOPES):
        return True
    if name in ("atomicCAS", "atomicCAS_block", "atomicCAS_system"):
        return len(arguments) == 3 and arguments[1] == arguments[2]
    function = node.child_by_field_name("function")
    target = function.child_by_field_name("argument") if function is not None and \
        function.type == "field_expression" else None
    return name in ("load", "wait") and target is not None and "atomic" in owner.text(target)


def _loads(owner: Unit, atomic: Node) -> bool:
    """Whether a use of an atomic object reads it and nothing more: `flag.load()`, `flag->wait(0)`, `*flag`,
    `flag.test()` (an atomic_flag), `q->flag` or `flag` converted to its value, not `next.fetch_add(1)`, `next++`
    or `next = 0`."""
    parent = atomic.parent
    if parent is not None and parent.type in _DECLARING:
        return False   # the name declared, not a use
    if atomic.type == "field_identifier" and parent is not None and parent.type == "field_expression":
        parent = parent.parent   # `q->flag`: what is done with the member
    if parent is not None and parent.type == "pointer_expression":   # `*flag`: what is done with it
        parent = parent.parent
    if parent is not None and parent.type == "field_expression":
        field = parent.child_by_field_name("field")
        return field is not None and owner.text(field) in ("load", "wait", "test")
    return parent is None or parent.type not in ("update_expression", "assignment_expression")


def _volatile(owner: Unit, declaration: Node) -> bool:
    return any(c.type == "type_qualifier" and owner.text(c) == "volatile" for c in declaration.children)


def _kinds(unit: Unit, name: str, which: int) -> set[str]:
    """What the file and its headers declare `name` as, outside functions (`_declared`): `which` 0, a variable
    or member; 1, a type alias. Computed once per name."""
    return set().union(*(u.analysis(_declared)[which].get(name, ()) for u in headers.units_naming(unit, name)))


def _declared(owner: Unit) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Names declared outside functions that say how memory is shared: variables and members `volatile` or of
    an atomic type (`__device__ volatile int ready;`, `cuda::atomic<int> head;`), and type aliases for such a
    type (`typedef volatile int vint;`, `using vptr = volatile int*;`: also `pointer`)."""
    variables: dict[str, set[str]] = {}
    aliases: dict[str, set[str]] = {}
    outside = [owner.tree.root_node]   # the nodes outside functions, walked down without entering one
    while outside:
        node = outside.pop()
        if node.type not in ("function_definition", "lambda_expression"):
            outside.extend(node.children)
        if node.type in ("declaration", "field_declaration", "type_definition", "alias_declaration"):
            kind = node.child_by_field_name("type")
            described = kind if kind is not None and kind.type == "type_descriptor" else node
            found = {"volatile"} if _volatile(owner, described) else set()
            found |= {"atomic"} if kind is not None and "atomic" in owner.text(kind) else set()
            if node.type == "alias_declaration":
                name = node.child_by_field_name("name")
                if name is not None and found:
                    pointer = any(n.type in ("abstract_pointer_declarator", "abstract_reference_declarator")
                                  for n in described.children)
                    aliases.setdefault(owner.text(name), set()).update(found | ({"pointer"} if pointer else set()))
                continue
            for declarator in node.children_by_field_name("declarator") if found else ():
                inner = unwrapped_declarator(declarator)
                name = next((n for n in walk(inner) if n.type in ("identifier", "field_identifier",
                                                                  "type_identifier")), None) if inner else None
                if name is None:
                    continue
                if node.type == "type_definition":
                    pointer = inner is not None and inner.type in ("pointer_declarator", "reference_declarator")
                    aliases.setdefault(owner.text(name), set()).update(found | ({"pointer"} if pointer else set()))
                else:
                    variables.setdefault(owner.text(name), set()).update(found)
    return variables, aliases

