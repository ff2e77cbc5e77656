"""Can a child kernel's threads run one after another in the parent thread? (seed 000 §III-C)

Not when they cooperate: barriers, shared memory, warp-level intrinsics and cooperative groups all
assume the threads of a block run together. Nor when the child launches itself, since serialising a
recursive launch recurses on the parent's stack, or launches other kernels: pdcc's copies of its body
are made from the source and would hold those launches without their pragmas and checks. Inline assembly
is refused because pdcc cannot see what it does. Nor when the child reads `threadIdx`/`blockIdx`/
`blockDim`/`gridDim` through a helper function, a macro or a lambda: pdcc rewrites the built-ins only in
the child's own body. Device functions the child calls (by name, qualified name, template or method call:
every function of that name) are checked too, in this file and in the headers it includes with quotes
(cuda/headers.py), whatever their qualifiers say (`#define DEV __device__` hides the word; a function
device code calls runs on the device) unless they say `__host__` alone, which device code cannot call. So
are a function object's `operator()` (every one of that name) and the constructors and destructor of an
object the child makes (`_callees` says which forms), with their initialiser lists, the class's members'
default values, and the same for the bases and members it builds implicitly (`_parts`: through template
arguments, aliases and unnamed structs too). A device function they declare but do not define (another
translation unit's, with -rdc) is an obstacle of its own, since pdcc cannot see what it does (PDCC524). So
is `__nanosleep`: a yield point in the serial loop hangs the warp beside its launching lanes (PDCC525). So is a
loop that waits for memory another thread writes (waits.py, PDCC526): run serially, the thread it waits for
would never run. A macro that stands for any of these words, directly or through other macros, counts as every
word it stands for (`_macro_words`). Functions they do not declare (CUDA's, the C++ library's, a header included
with <...>) and overloaded operators other than `()` are not followed and are assumed not to cooperate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pragmadp.analysis import waits
from pragmadp.cuda import headers
from pragmadp.cuda.frontend import (Function, Node, Unit, called_name, kernel_call_syntax, launched_identifier,
                                    local_bindings, node_text, plain_type_name, required, unwrapped_declarator,
                                    walk)
from pragmadp.report import rules
from pragmadp.report.remarks import Rule, excerpt

_BARRIERS = re.compile(r"^(__syncthreads(_count|_and|_or)?|__syncwarp|__barrier_sync)$")
_WARP = re.compile(r"^(__shfl\w*|__ballot\w*|__any_sync|__all_sync|__uni_sync|__activemask|__match_\w+|"
                   r"__reduce_\w+_sync|__fns|__any|__all)$")
_COOPERATIVE = re.compile(r"^(cooperative_groups|this_thread_block|this_grid|this_multi_grid|this_cluster|"
                          r"tiled_partition|coalesced_threads|thread_block|grid_group|thread_block_tile)$")
_ASM = {"gnu_asm_expression", "asm_statement"}


@dataclass(frozen=True)
class Obstacle:
    """Why a child cannot run serially: the rule, a message and where (possibly in a callee)."""

    rule: Rule
    message: str
    node: Node        # in the child's file: the obstacle, or the call that leads to it in a header
    function: str     # the function it is in
    text: str         # the obstacle's own text (`__syncthreads`, `threadIdx`), wherever it is


_BUILTINS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def obstacles(unit: Unit, child: Function) -> tuple[Obstacle, ...]:
    """Every reason `child` cannot be serialised, in source order (callees where they are called);
    computed once per child."""
    return unit.analysis(_obstacles, child.node)


def _obstacles(unit: Unit, child_node: Node) -> tuple[Obstacle, ...]:
    child = unit.function_of(child_node)
    assert child is not None   # every function definition of the unit is indexed
    return tuple(_search(unit, child, unit, child, None, set(), unit.analysis(_macro_words)))


def _macro_words(unit: Unit) -> dict[str, frozenset[str]]:
    """Macros and the words they stand for, through other macros (theirs in place of their names): among them
    built-in indices (`#define TID (blockIdx.x * ...)`), barriers, warp intrinsics, `__nanosleep`, cooperative
    groups, `__shared__`, `asm` (`#define SYNC() __syncthreads()`), and functions they call (`#define REDUCE(v)
    warp_reduce(v)`). Every definition of a name counts (one in each branch of an `#if`), its parameters and
    string literals left out; a macro of no word is left out. Read from the command's -D and the preprocessor's
    view of the `#define` lines of the file and of the headers it includes."""
    named: dict[str, set[str]] = {}
    for text in headers.macro_definitions(unit):
        definition = _DEFINITION.match(text)
        if definition is not None:
            parameters = set(_WORD.findall(definition.group(2) or ""))
            body = _STRINGS.sub(" ", definition.group(3))
            named.setdefault(definition.group(1), set()).update(w for w in _WORD.findall(body) if w not in parameters)
    return _reachable_words(named)


def _reachable_words(named: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    """For each macro, the words of its own definitions and of every macro they reach, in place of those macros'
    names: Tarjan's strongly connected components without recursion (chains may be thousands long), each group of
    macros that reach one another sharing one set, computed after the groups it reaches."""
    found: dict[str, frozenset[str]] = {}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def macros_in(name: str) -> Iterator[str]:
        return iter([w for w in named[name] if w in named])

    for root in named:
        if root in index:
            continue
        work = [(root, macros_in(root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            name, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    work.append((successor, macros_in(successor)))
                    break
                if successor not in found:   # on the stack: in this group
                    low[name] = min(low[name], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[name])
                if low[name] == index[name]:
                    group = [stack.pop()]   # the group: the stack down to this macro
                    while group[-1] != name:
                        group.append(stack.pop())
                    written = set().union(*(named[m] for m in group))
                    # a macro's name stays only where the preprocessor leaves it, in its own expansion (`#define
                    # f(a) f(a, 0)` calls the function f); another macro's stands for that macro's words
                    words = {w for w in written if w not in named or w in group}
                    words |= set().union(*(found[w] for w in written if w in found))
                    for member in group:
                        found[member] = frozenset(words)
    return {name: these for name, these in found.items() if these}


_DEFINITION = re.compile(r"\s*([A-Za-z_]\w*)(\([^)]*\))?(.*)", re.S)
_WORD = re.compile(r"[A-Za-z_]\w*")
_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"' + r"|(?<!\w)'(?:\\.|[^'\\])*'")   # (not 1'000's separators)


def _searched_word(word: str) -> bool:
    return word in _BUILTINS or _word_rule(word) is not None


def _word_rule(word: str) -> Rule | None:
    """The obstacle a word of device code is by itself."""
    return next((rule for test, rule in _WORD_RULES if test(word)), None)


def _word_obstacle(child: Function, word: str, where: str, at: Node, function: str) -> Obstacle:
    rule = _word_rule(word)
    assert rule is not None   # asked only of a word that is an obstacle
    return Obstacle(rule, f"child '{child.name}' " + _WORD_MESSAGES[rule].format(word=word, where=where), at, function,
                    word)


_WORD_MESSAGES = {
    rules.CHILD_ASM: "contains inline assembly{where}",
    rules.CHILD_SHARED: "uses __shared__ memory{where}",
    rules.CHILD_BARRIER: "synchronises its threads with '{word}'{where}",
    rules.CHILD_WARP: "uses the warp intrinsic '{word}'{where}",
    rules.CHILD_SLEEPS: "calls '{word}'{where}, a point where the warp may yield: a warp whose lanes run the serial "
                        "version while others launch hangs there on sm_90",
    rules.CHILD_COOPERATIVE: "uses cooperative groups ('{word}'){where}",
}
_ASM_WORDS = ("asm", "__asm__", "__asm")
_ANYWHERE = ("__shared__", *_ASM_WORDS)   # keywords, not names: obstacles whatever node they are
_WORD_RULES = ((lambda w: w in _ASM_WORDS, rules.CHILD_ASM),
               (lambda w: w == "__shared__", rules.CHILD_SHARED), (_BARRIERS.match, rules.CHILD_BARRIER),
               (_WARP.match, rules.CHILD_WARP), (lambda w: w == "__nanosleep", rules.CHILD_SLEEPS),
               (_COOPERATIVE.match, rules.CHILD_COOPERATIVE))



def _hidden_builtin(unit: Unit, node, in_callee: bool, macros: dict[str, frozenset[str]]) -> str | None:
    """How `node` reads a built-in pdcc cannot rename, if it does."""
    if node.type == "identifier":
        text = unit.text(node)
        if text in _BUILTINS and in_callee:
            return f"'{text}'"
        if _BUILTINS & macros.get(text, frozenset()):
            return f"macro '{text}'"
    if node.type == "lambda_expression" and not in_callee and any(
            n.type == "identifier" and unit.text(n) in _BUILTINS for n in walk(node)):
        return "a lambda"
    return None


@dataclass(frozen=True)
class _Callee:
    """A function `_function_obstacles` found called, to be searched where the call is (depth first)."""

    owner: Unit
    function: Function
    entry: Node | None


def _search(unit: Unit, child: Function, owner: Unit, function: Function, entry: Node | None, visited: set[str],
            macros: dict[str, frozenset[str]]) -> Iterator[Obstacle]:
    """The obstacles of `function`, defined in `owner` (the child's unit, or a header it includes), and of
    the functions it calls, depth first. In a header, each obstacle stands at `entry`, the call in the child's
    file that leads there, and its message says where in the header it is. A stack of searches rather than
    recursion: a call chain may be thousands of functions deep."""
    searches = [_function_obstacles(unit, child, owner, function, entry, visited, macros)]
    while searches:
        found = next(searches[-1], None)
        if found is None:
            searches.pop()
        elif isinstance(found, _Callee):
            searches.append(_function_obstacles(unit, child, found.owner, found.function, found.entry, visited,
                                                macros))
        else:
            yield found


def _function_obstacles(unit: Unit, child: Function, owner: Unit, function: Function, entry: Node | None,
                        visited: set[str], macros: dict[str, frozenset[str]]) -> Iterator[Obstacle | _Callee]:
    """`_search`'s step: the obstacles of `function` itself, and the callees to search (each where it is
    called, before what follows the call)."""
    visited.add(function.name)
    waiting = waits.waiting_loop(unit, owner, function, macros)
    for node in _code(function):
        where = _where(unit, child, owner, function, node)
        at = node if entry is None else entry
        if waiting is not None and node == waiting[0]:
            read = waits.read_text(waiting[1])
            yield Obstacle(rules.CHILD_WAITS, f"child '{child.name}' waits in a loop for another thread (its way "
                           f"out reads '{excerpt(read, 40)}', which other threads write){where}", at,
                           function.name, read)
        text = owner.text(node) if node.child_count == 0 or node.type in _ASM else ""
        hidden = _hidden_builtin(owner, node, function is not child, macros)
        if hidden is not None:
            yield Obstacle(rules.CHILD_HIDDEN_BUILTINS, f"child '{child.name}' reads thread or block indices through "
                           f"{hidden}{where}, which pdcc does not rewrite", at, function.name, owner.text(node))
            continue
        name_like = node.type in ("identifier", "namespace_identifier", "type_identifier", "field_identifier")
        names: tuple[str, ...] = ()   # of the functions the node may call
        if name_like and text in macros:   # `SYNC()` for `__syncthreads()`: every word it stands for
            for word in sorted(w for w in macros[text] if _word_rule(w) is not None):
                yield _word_obstacle(child, word, f" through macro '{text}'{where}", at, function.name)
            # and the functions it may call (`#define REDUCE(v) warp_reduce(v)`), or itself when it is one too
            names = tuple(n for w in (text, *sorted(w for w in macros[text] if not _searched_word(w)))
                          for n in (w, f"~{w}"))   # (a class it names: its constructors and destructor)
        elif node.type in _ASM or (name_like or text in _ANYWHERE) and _word_rule(text) is not None:
            yield _word_obstacle(child, "asm" if node.type in _ASM else text, where, at, function.name)
        elif not name_like:
            if node.type == "kernel_call_syntax":
                call = node.parent
                launched_node = call.child_by_field_name("function") if call is not None else None
                assert call is not None and launched_node is not None   # <<<...>>> is part of a call expression
                launched = node_text(launched_identifier(launched_node))
                launch_at = call if entry is None else entry
                if launched == child.name:
                    yield Obstacle(rules.CHILD_RECURSIVE, f"child '{child.name}' launches itself{where}", launch_at,
                                   function.name, launched)
                else:
                    yield Obstacle(rules.CHILD_LAUNCHES, f"child '{child.name}' launches '{launched}'{where} (nested "
                                   "dynamic parallelism: pdcc's copies of its body would launch it unchecked)",
                                   launch_at, function.name, launched)
        else:
            names = _callees(owner, function, node, text)
        for name in _with_parts(unit, names):
            if name in visited:
                continue
            defined = headers.device_bodies(unit, name)
            built = [] if name.startswith("~") else headers.classes(unit, name)
            for callee_unit, callee in [*defined, *((u, _initialisers(c, name)) for u, c in built)]:
                yield _Callee(callee_unit, callee, entry if entry is not None or callee_unit is unit else at)
            if not defined and headers.declared_on_device(unit, name):
                visited.add(name)
                yield Obstacle(rules.CHILD_UNSEEN, f"child '{child.name}' calls '{name}'{where}, a device function "
                               "declared but not defined in this file or the headers it includes (another "
                               "translation unit): pdcc cannot see whether it synchronises, shares memory or reads "
                               "thread indices", at, function.name, name)


def called(unit: Unit, call: Node) -> tuple[Obstacle, ...]:
    """The obstacles of the device functions a call (not a launch) may reach, in the file and its headers,
    each standing at the call: what a pass that moves the call must know of it (melding makes both sides'
    calls one). Computed once per call."""
    return unit.analysis(_called, call)


def _called(unit: Unit, call: Node) -> tuple[Obstacle, ...]:
    text = called_name(unit, call)
    if text is None or kernel_call_syntax(call) is not None:
        return ()
    return _reached(unit, text, call, unit.analysis(_macro_words))


def _reached(unit: Unit, name: str, at: Node, macros: dict[str, frozenset[str]]) -> tuple[Obstacle, ...]:
    """The obstacles of the device functions called `name`, each standing at `at`; one of another translation
    unit is one itself."""
    callees = headers.device_bodies(unit, name)
    if not callees and headers.declared_on_device(unit, name):
        return (Obstacle(rules.CHILD_UNSEEN, f"'{name}' is defined in another translation unit", at, name, name),)
    return tuple(o for owner, callee in callees for o in _search(unit, callee, owner, callee, at, set(), macros))


def macro_obstacles(unit: Unit, name: str) -> tuple[Obstacle, ...]:
    """What a macro of the file or its headers stands for (`#define SYNC() __syncthreads()`: a barrier), and
    what the functions it calls do, for a pass that moves code naming it (melding), which says where the macro
    is used. Computed once per name."""
    return unit.analysis(_macro_obstacles, name)


def _macro_obstacles(unit: Unit, name: str) -> tuple[Obstacle, ...]:
    macros = unit.analysis(_macro_words)
    if name not in macros:
        return ()
    words = sorted(macros[name])
    found = [Obstacle(rule, f"macro '{name}' stands for '{word}'", unit.tree.root_node, name, word)
             for word in words if (rule := _word_rule(word)) is not None]
    for word in (name, *(w for w in words if not _searched_word(w))):
        found += _reached(unit, word, unit.tree.root_node, macros)
    return tuple(found)


def _where(unit: Unit, child: Function, owner: Unit, function: Function, node: Node) -> str:
    """Where in the child's callees a node is: nothing in the child itself, ` (in 'f', which it calls)` in
    a function of its file, ` (in 'f', which it calls, tile.cuh:12)` in a header's, ` (in a member initialiser of
    'Tile', which it builds)` in a class's."""
    if function is child:
        return ""
    line = "" if owner is unit else f", {owner.source.display_path}:{owner.source.line_of(node.start_byte)}"
    if function.node.type != "function_definition":
        return f" (in a member initialiser of '{function.name}', which it builds{line})"
    return f" (in '{function.name}', which it calls{line})"


def _code(function: Function) -> Iterator[Node]:
    """The nodes a call of `function` runs: a constructor's initialiser list, then its body; for a class's
    `_initialisers`, its members' default values (those of unnamed member structs too)."""
    if function.node.type != "function_definition":
        for member in _members(function.node):
            value = member.child_by_field_name("default_value")
            if value is not None:
                yield from walk(value)
        return
    for part in function.node.children:
        if part.type == "field_initializer_list" or part == function.body:
            yield from walk(part)


def _initialisers(definition: Node, name: str) -> Function:
    """What building an object of a class runs besides its constructors' bodies: its members' default values
    (`int tid = threadIdx.x;`, run by every constructor, the implicit one too), searched as a function would be
    (`_code`)."""
    return Function(name, definition, definition, None, frozenset())


def _callees(owner: Unit, function: Function, node: Node, text: str) -> tuple[str, ...]:
    """The names of the functions `node` runs, as the unit indexes them:
    - a called function's (`f(x)`, `ns::f(x)`, `t.f(x)`), and its destructor's when it is a class's temporary
      (`Guard()`: `Guard` is its constructor);
    - also `operator()` when a plain call's name is one of the function's variables or parameters not bound
      to a lambda (a function object: every `operator()` of the file and its headers; a lambda's body is
      searched where it is written);
    - a class's constructors and destructor where an object of it is made: a declaration (`Tile t(3);`,
      `ns::Tile<4> t{3};`, `struct Tile t;`, an array of them), a range-for's variable, a temporary in braces
      (`Tile{3}`), `new Tile(3)` (its constructors only), and `delete p` of a local or parameter `Tile* p`
      (its destructor only).
    `_with_parts` adds the classes such an object builds implicitly (bases, members). Not followed: function
    objects that are globals, references or members, and overloaded operators other than `()`."""
    if node.type == "identifier" and node.parent is not None and node.parent.type == "delete_expression":
        bound = local_bindings(owner, function.node).get(text)   # `delete p`: the destructor of p's class
        named = plain_type_name(owner, bound.child_by_field_name("type")) if bound is not None else None
        return (f"~{named}",) if named is not None else ()
    if node.type in ("identifier", "field_identifier") and _names_the_callee(node):
        plain = node.type == "identifier" and node.parent is not None and node.parent.type == "call_expression"
        objects = ("operator()",) if plain and text in owner.analysis(_function_objects, function.node) else ()
        return (text, f"~{text}", *objects)
    if node.type != "type_identifier":
        return ()
    outer = node   # climb `ns::Tile`, `Tile<4>`, `struct Tile` to the type the declaration names
    while outer.parent is not None and outer.parent.type in _TYPE_WRAPPERS and \
            (outer.parent.type != "qualified_identifier" or outer.parent.child_by_field_name("name") == outer):
        outer = outer.parent
    made = outer.parent
    if made is None or made.child_by_field_name("type") != outer:
        return ()
    if made.type == "new_expression":
        return (text,)
    if made.type in ("for_range_loop", "compound_literal_expression") or made.type == "declaration" and any(
            map(_constructs, made.children_by_field_name("declarator"))):
        return (text, f"~{text}")
    return ()


def _with_parts(unit: Unit, names: tuple[str, ...]) -> tuple[str, ...]:
    """`names`, and for each class among them whose constructor or destructor is named, those of the classes
    an object of it builds implicitly (`_parts`)."""
    found = list(names)
    for name in names:
        destructor = name.startswith("~")
        found += [f"~{part}" if destructor else part for part in unit.analysis(_parts, name.lstrip("~"))]
    return tuple(found)


def _parts(unit: Unit, name: str) -> tuple[str, ...]:
    """The classes an object of class `name` builds without a word in the code: its bases, its members that are
    objects (not pointers, references or static members), and theirs in turn, found in the file and its headers
    (every class of that name). Computed once per name."""
    found: list[str] = []
    pending = [name]
    while pending:
        looked_up = pending.pop()
        for owner, definition in [*headers.classes(unit, looked_up), *headers.aliases(unit, looked_up)]:
            own = plain_type_name(owner, definition.child_by_field_name("name"))   # `typedef struct Foo {...} Bar`
            for part in [*([own] if own not in (None, looked_up) else []), *_direct_parts(owner, definition)]:
                if part != name and part not in found:
                    found.append(part)
                    pending.append(part)
    return tuple(found)


def _direct_parts(owner: Unit, definition: Node) -> Iterator[str]:
    """The names of the classes a class definition builds: its bases, the classes of its members that are
    objects and those their template arguments name (`Box<Tile> b;`: Box and Tile, either may be built), and
    what an alias names stands for."""
    for clause in (c for c in definition.named_children if c.type == "base_class_clause"):
        for base in clause.named_children:
            yield from _named_types(owner, base)
    if definition.type in ("type_definition", "alias_declaration", "type_descriptor") or \
            definition.child_by_field_name("body") is None:   # an alias's target type
        yield from _named_types(owner, definition)
        return
    for member in _members(definition):
        kind = member.child_by_field_name("type")
        if kind is not None and any(_constructs(d, in_class=True) for d in member.children_by_field_name("declarator")):
            yield from _named_types(owner, kind)


def _members(definition: Node) -> Iterator[Node]:
    """A class definition's field declarations other than static ones, with those of the unnamed structs and
    unions its members are (`struct { Tile t; } in;`), whose objects it holds."""
    for member in required(definition, "body").named_children:
        if member.type != "field_declaration" or any(c.type == "storage_class_specifier" and
                                                     node_text(c) == "static" for c in member.children):
            continue
        yield member
        kind = member.child_by_field_name("type")
        if kind is not None and kind.type in ("struct_specifier", "class_specifier", "union_specifier") and \
                kind.child_by_field_name("name") is None and kind.child_by_field_name("body") is not None:
            yield from _members(kind)


def _named_types(owner: Unit, type_node: Node) -> Iterator[str]:
    """The classes a type names: its own and every one its template arguments name (`ns::Box<Tile*>`: Box,
    Tile; taking a pointer's class for built errs on the safe side)."""
    own = plain_type_name(owner, type_node)
    if own is not None:
        yield own
    yield from (owner.text(n) for n in walk(type_node) if n.type == "type_identifier" and owner.text(n) != own)


# What a type's name may sit in within the type a declaration names: `ns::Tile`, `Tile<4>`, `struct Tile`, and a
# template argument, `Box<Tile>` (an object of Box<Tile> may build a Tile).
_TYPE_WRAPPERS = ("qualified_identifier", "template_type", "struct_specifier", "class_specifier", "union_specifier",
                  "type_descriptor", "template_argument_list")


def _function_objects(unit: Unit, function_node: Node) -> frozenset[str]:
    """The names a function declares (parameters and locals) that may hold a function object: all but those
    initialised with a lambda (whose body is searched where it is written). Computed once per function."""
    return frozenset(name for name, bound in local_bindings(unit, function_node).items()
                     if bound.type != "lambda_expression")


def _constructs(declarator: Node, in_class: bool = False) -> bool:
    """Whether a declarator makes an object (`t(3)`, `t{3}`, `t`, `t[4]`), not a pointer or reference to one,
    wherever in the declarator it is (`*p[4]`, `(&r)[4]`). In a function body `Tile t(n);` parses as a function's
    declaration, which a function body hardly ever holds: taken as the object it almost certainly is; in a class
    (`in_class`) it is the method it says."""
    node = unwrapped_declarator(declarator)
    while node is not None:
        if node.type in ("pointer_declarator", "reference_declarator") or \
                in_class and node.type == "function_declarator":
            return False
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None or node.type != "parenthesized_declarator" else \
            next(iter(node.named_children), None)
    return True


def _names_the_callee(identifier: Node) -> bool:
    """Whether an identifier names the function a call calls: `f(...)`, `ns::f(...)`, `f<T>(...)`, a method
    `tile.f(...)` or `tile->f(...)` (every function of that name is searched), not a kernel launch."""
    outer = identifier
    while outer.parent is not None and (outer.parent.type in ("qualified_identifier", "template_function") and
                                        outer.parent.child_by_field_name("name") == outer or
                                        outer.parent.type == "field_expression" and
                                        outer.parent.child_by_field_name("field") == outer):
        outer = outer.parent
    call = outer.parent
    return call is not None and call.type == "call_expression" and call.child_by_field_name("function") == outer \
        and kernel_call_syntax(call) is None
