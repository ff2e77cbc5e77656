"""Can a child kernel's threads run one after another in the parent thread? (seed 000 §III-C)

Not when they cooperate: barriers, shared memory, warp-level intrinsics and cooperative groups all
assume the threads of a block run together. Nor when the child launches itself, since serialising a
recursive launch recurses on the parent's stack, or launches other kernels: pdcc's copies of its body
are made from the source and would hold those launches without their pragmas and checks. Inline assembly is refused because pdcc cannot see
what it does. Nor when the child reads `threadIdx`/`blockIdx`/`blockDim`/`gridDim` through a helper
function, a macro or a lambda: pdcc rewrites the built-ins only in the child's own body. Device
functions the child calls in this file are checked too; functions defined elsewhere cannot be seen and
are assumed not to cooperate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pragmadp.cuda.frontend import Function, Node, Unit, kernel_call_syntax, launched_identifier, node_text, walk
from pragmadp.report import rules
from pragmadp.report.remarks import Rule

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
    node: Node
    function: str


_BUILTINS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def obstacles(unit: Unit, child: Function) -> tuple[Obstacle, ...]:
    """Every reason `child` cannot be serialised, in source order (callees where they are called);
    computed once per child."""
    return unit.analysis(_obstacles, child.node)


def _obstacles(unit: Unit, child_node: Node) -> tuple[Obstacle, ...]:
    child = unit.function_of(child_node)
    assert child is not None   # every function definition of the unit is indexed
    return tuple(_search(unit, child, child, set(), unit.analysis(_builtin_macros)))


def _builtin_macros(unit: Unit) -> frozenset[str]:
    """Macros whose replacement text names a built-in index (`#define TID (blockIdx.x * ...)`), read from
    the preprocessor's view of the file's `#define` lines."""
    scan = unit.source.preprocessor
    names = set()
    for line in scan.lines:
        if line.name == "define" and not line.skipped:
            definition = _DEFINITION.match(scan.argument(line)[0])
            if definition is not None and _BUILTIN_WORD.search(definition.group(2)):
                names.add(definition.group(1))
    return frozenset(names)


_DEFINITION = re.compile(r"\s*([A-Za-z_]\w*)(?:\([^)]*\))?(.*)", re.S)
_BUILTIN_WORD = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\b")


def _hidden_builtin(unit: Unit, node, in_callee: bool, macros: set[str]) -> str | None:
    """How `node` reads a built-in pdcc cannot rename, if it does."""
    if node.type == "identifier":
        text = unit.text(node)
        if text in _BUILTINS and in_callee:
            return f"'{text}'"
        if text in macros:
            return f"macro '{text}'"
    if node.type == "lambda_expression" and not in_callee and any(
            n.type == "identifier" and unit.text(n) in _BUILTINS for n in walk(node)):
        return "a lambda"
    return None


def _search(unit: Unit, child: Function, function: Function, visited: set[str], macros: set[str]):
    visited.add(function.name)
    where = "" if function is child else f" (in '{function.name}', which it calls)"
    assert function.body is not None   # children and callees are searched only when they have a body
    for node in walk(function.body):
        hidden = _hidden_builtin(unit, node, function is not child, macros)
        if hidden is not None:
            yield Obstacle(rules.CHILD_HIDDEN_BUILTINS, f"child '{child.name}' reads thread or block indices through "
                           f"{hidden}{where}, which pdcc does not rewrite", node, function.name)
            continue
        text = unit.text(node) if node.child_count == 0 or node.type in _ASM else ""
        if node.type in _ASM or text in ("asm", "__asm__", "__asm"):
            yield Obstacle(rules.CHILD_ASM, f"child '{child.name}' contains inline assembly{where}", node, function.name)
        elif text == "__shared__":
            yield Obstacle(rules.CHILD_SHARED, f"child '{child.name}' uses __shared__ memory{where}", node, function.name)
        elif node.type not in ("identifier", "namespace_identifier", "type_identifier", "field_identifier"):
            if node.type == "kernel_call_syntax":
                call = node.parent
                launched_node = call.child_by_field_name("function") if call is not None else None
                assert call is not None and launched_node is not None   # <<<...>>> is part of a call expression
                launched = node_text(launched_identifier(launched_node))
                if launched == child.name:
                    yield Obstacle(rules.CHILD_RECURSIVE, f"child '{child.name}' launches itself{where}", call,
                                   function.name)
                else:
                    yield Obstacle(rules.CHILD_LAUNCHES, f"child '{child.name}' launches '{launched}'{where} (nested "
                                   "dynamic parallelism: pdcc's copies of its body would launch it unchecked)",
                                   call, function.name)
        elif _BARRIERS.match(text):
            yield Obstacle(rules.CHILD_BARRIER, f"child '{child.name}' synchronises its threads with '{text}'{where}",
                           node, function.name)
        elif _WARP.match(text):
            yield Obstacle(rules.CHILD_WARP, f"child '{child.name}' uses the warp intrinsic '{text}'{where}", node,
                           function.name)
        elif _COOPERATIVE.match(text):
            yield Obstacle(rules.CHILD_COOPERATIVE, f"child '{child.name}' uses cooperative groups ('{text}'){where}",
                           node, function.name)
        elif node.type == "identifier" and node.parent is not None and node.parent.type == "call_expression" and \
                text not in visited and kernel_call_syntax(node.parent) is None:  # a launch is not a call
            for callee in unit.definitions(text):
                if callee.runs_on_device and callee.body is not None:
                    yield from _search(unit, child, callee, visited, macros)
