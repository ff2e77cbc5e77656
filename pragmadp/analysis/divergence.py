"""Divergence: may threads of one warp disagree on a value?

A branch diverges when its condition may differ between the threads of a warp. A value does when it
depends on `threadIdx` (directly, through variables, through loads indexed by it), on a call pdcc cannot
see into (an atomic's old value, a random generator), on memory the function itself writes, or on
assignments made under a divergent condition or loop. A kernel's parameters, `blockIdx`, `blockDim`,
`gridDim` and constants are uniform; a `__device__` function's parameters are not (its callers may pass
each thread its own value). A `__shared__` scalar is uniform whoever writes it: a program without data races
reads it only where no thread of the block is writing it, so every thread of the block reads the same value
(`if (threadIdx.x == 0) last = ...; __syncthreads(); if (!last) return;`). The analysis is flow-insensitive
over one function, by name, and errs towards "divergent": melding a branch that does not diverge costs a
little, refusing one that does loses the whole gain.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pragmadp.analysis import ctype
from pragmadp.cuda.frontend import (LOOPS, Node, Unit, called_name, declared_names, kernel_call_syntax,
                                    unparenthesised, walk)

_THREAD_VARYING = {"threadIdx", "__lane_id", "laneid", "clock", "clock64", "__clock", "curand", "curand_uniform",
                   "curand_normal"}
_PURE = {"min", "max", "abs", "fabs", "fabsf", "sqrt", "sqrtf", "rsqrtf", "expf", "exp", "logf", "log", "sinf",
         "cosf", "powf", "pow", "floorf", "ceilf", "floor", "ceil", "fminf", "fmaxf", "__popc", "__clz", "__ffs"}
_DECLARATIONS = ("declaration", "parameter_declaration")
_BARRIER = re.compile(r"^(__syncthreads(_count|_and|_or)?|__barrier_sync)$")   # block-wide ones
_ROUNDS = 8   # a fixpoint over names settles in as many rounds as the longest chain of assignments


@dataclass
class Divergence:
    """The names of one function that may differ between threads of a warp, with why for each."""

    names: dict[str, str] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)      # arrays and pointers the function stores through
    uniform_calls: set[str] = field(default_factory=set)  # device functions of the file that never see the thread

    def why(self, unit: Unit, node: Node) -> str | None:
        """Why `node` (an expression) may diverge, or None when it is uniform."""
        for inner in walk(node):
            if inner.type == "identifier":
                name = unit.text(inner)
                if name in _THREAD_VARYING:
                    return f"it reads '{name}'"
                if name in self.names:
                    return f"'{name}' {self.names[name]}"
            elif inner.type == "call_expression" and kernel_call_syntax(inner) is None:
                callee = inner.child_by_field_name("function")
                name = unit.text(callee) if callee is not None else ""
                if name not in _PURE and name not in self.uniform_calls:
                    return f"it calls '{name}', which may return a different value in each thread"
            elif inner.type in ("subscript_expression", "pointer_expression", "field_expression"):
                base = inner.child_by_field_name("argument")
                if inner.type == "pointer_expression" and unit.text(inner).startswith("&"):
                    continue
                if base is not None and base.type == "identifier" and unit.text(base) in self.written:
                    return f"it loads from '{unit.text(base)}', which the function writes"
        return None


def of_function(unit: Unit, function: Node) -> Divergence:
    """A provider for `unit.analysis`: the divergent names of a function (its definition node)."""
    found = Divergence(uniform_calls=unit.analysis(_uniform_functions))
    body = function.child_by_field_name("body")
    if body is None:
        return found
    kernel = next((f.is_kernel for f in unit.functions if f.node == function), False)
    parameters = function.child_by_field_name("declarator")
    for parameter in () if kernel or parameters is None else walk(parameters):
        if parameter.type == "identifier" and parameter.parent is not None and parameter.parent != parameters \
                and parameter.parent.type != "function_declarator":
            found.names[unit.text(parameter)] = "is a parameter of a device function, whose callers may pass each " \
                                                "thread its own value"
    assignments = list(_assignments(unit, body))
    types = unit.analysis(ctype.of_function, function)
    # Memory the function stores to, and what it reads through volatile names: others write it meanwhile.
    found.written = {target for target, _, _, memory in assignments if memory} | types.volatile
    shared = _shared_scalars(unit, function, types)
    for _ in range(_ROUNDS):
        before = len(found.names)
        for target, value, controls, memory in assignments:
            if memory or target in found.names or target in shared:
                continue
            why = found.why(unit, value) if value is not None else None
            control = next((c for c in controls if found.why(unit, c)), None)
            if why:
                found.names[target] = f"is assigned a value that diverges ({why})"
            elif control is not None:
                found.names[target] = f"is assigned under a condition that diverges ('{unit.text(control)}')"
        if len(found.names) == before:
            break
    return found


def _assignments(unit: Unit, body: Node):
    """(name, value node or None, enclosing conditions, through memory) for every write in `body`."""
    for node in walk(body):
        if node.type == "init_declarator":
            name, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
            if name is not None and name.type == "identifier":
                yield unit.text(name), value, _controls(node), False
        elif node.type in ("assignment_expression", "update_expression"):
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            value = node.child_by_field_name("right") or target
            if target is None:
                continue
            root, memory = target, False
            while root.type in ("subscript_expression", "pointer_expression", "field_expression",
                                "parenthesized_expression"):
                memory = memory or root.type != "parenthesized_expression"
                inner = root.child_by_field_name("argument") or (root.named_children[0] if root.named_children else None)
                if inner is None:
                    break
                root = inner
            if root.type == "identifier":
                yield unit.text(root), value, _controls(node), memory


def _shared_scalars(unit: Unit, function: Node, types: ctype.Types) -> set[str]:
    """The function's `__shared__` names, not arrays (`__shared__ bool last;`), that every thread of a block
    reads alike: declared once in it (the analysis goes by name, and a parameter or a local of another scope
    may share it); not `volatile`, never behind `&` (an atomic, a volatile cast or a pointer reaches them while
    other threads write them: an early-exit flag), and not written in a loop without a barrier (read there as
    others write it)."""
    declared = Counter(unit.text(name) for node in walk(function) if node.type in _DECLARATIONS
                       for name in declared_names(node))
    read_as_written: set[str] = set()
    for node in walk(function):
        if node.type == "pointer_expression" and unit.text(node).startswith("&"):
            read_as_written.add(unit.text(unparenthesised(node.child_by_field_name("argument")) or node))
        elif node.type in LOOPS and not any(_BARRIER.match(called_name(unit, n) or "") for n in walk(node)
                                            if n.type == "call_expression"):
            read_as_written.update(name for name, _, _, memory in _assignments(unit, node) if not memory)
    return {name for name in types.shared - types.volatile - types.arrays.keys() if declared[name] == 1} - \
        read_as_written


def _controls(node: Node) -> list[Node]:
    """The conditions of the `if`s and loops around `node` (a loop's condition decides how often it runs)."""
    found, parent = [], node.parent
    while parent is not None and parent.type != "function_definition":
        if parent.type in ("if_statement", "while_statement", "do_statement", "for_statement"):
            condition = parent.child_by_field_name("condition")
            if condition is not None:
                found.append(condition)
        parent = parent.parent
    return found


def _uniform_functions(unit: Unit) -> set[str]:
    """Device functions of the file whose bodies never name a thread-varying built-in or call (their
    result depends on their arguments alone, as far as divergence goes)."""
    uniform = set()
    for function in unit.functions:
        if function.runs_on_device and function.body is not None and not function.is_kernel:
            names = {unit.text(n) for n in walk(function.body) if n.type == "identifier"}
            if not names & _THREAD_VARYING and not any(name.startswith("atomic") for name in names):
                uniform.add(function.name)
    return uniform
