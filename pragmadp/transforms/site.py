"""The statement pdcc writes in place of an annotated launch: where the passes start, and how every
launch pdcc writes is made safe before it is printed.

The base evaluates the configuration once into `pdcc_grid`/`pdcc_block` (and the arguments, when
evaluating them again could differ), then launches. Each pass rewrites this IR. Last, `safe` expands
every `ir.Launch`: clear stale errors, launch, and when the launch failed (on an H200, launches past the
pending-launch pool fail silently) run its fallback, the child's serial version, or, for a child that
cannot run serially, retry with back-off until the pool drains, stopping the kernel loudly (`__trap`)
rather than losing work. A launch of a kernel pdcc wrote goes through the runtime's launch budget
(`pdcc::launched`, pdcc_rt.cuh), which keeps pdcc's launches from filling the pending-launch pool, where the
device runtime can spin for ever: when the budget is spent, the fallback runs at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from pragmadp import ir
from pragmadp.cgen import templates
from pragmadp.cuda import lift
from pragmadp.cuda.frontend import Node, Site, walk
from pragmadp.transforms.base import Context

RETRY_LIMIT_NS = 64 << 16  # back-off doubles from 64 ns; past about 4 ms per wait pdcc stops the kernel
GRID, BLOCK = ir.name("pdcc_grid"), ir.name("pdcc_block")

_CHECKED = """\
(void)cudaGetLastError();
{launch};
if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
  {fallback};"""

_BUDGETED = """\
if (!pdcc::launched({launch})) // over the launch budget, or the launch failed: no work lost
  {fallback};"""

_RETRIED = """\
{hold};
(void)cudaGetLastError();
{launch};
for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
  // the launch failed (pending-launch pool full?): let launches drain, retry; never drop work
  if (pdcc_wait > {limit}) __trap();
  __nanosleep(pdcc_wait);
  {launch};
}"""


@dataclass(frozen=True)
class Base:
    """The site's starting IR and the values the passes build on."""

    code: ir.Block
    arguments: tuple[ir.Expr, ...]    # one per child parameter, defaults filled in (hoisted when needed)


def is_simple(node: Node) -> bool:
    """No calls, assignments or increments: evaluating it again gives the same value."""
    return not any(n.type in ("call_expression", "assignment_expression", "update_expression", "comma_expression",
                              "new_expression", "delete_expression", "lambda_expression") for n in walk(node))


def base(context: Context, site: Site, parameters: tuple[ir.Parameter, ...], typed: bool) -> Base:
    """The launch as written, its configuration and (when needed) its arguments evaluated once.

    `typed`: hoisted arguments get the parameter's own type (not for template children, whose
    parameter types name the child's template parameters, nor for arrays, which decay to pointers)."""
    launch = site.launch
    written = lift.launch(context.unit, launch.call)
    arguments: list[ir.Expr] = list(written.args)
    hoisted: list[ir.Stmt] = []
    if not all(is_simple(a) for a in launch.arguments):
        for index, argument in enumerate(list(arguments)):
            parameter = parameters[index] if index < len(parameters) else None
            name = f"pdcc_arg{index}"
            if parameter is not None and typed and not parameter.name.endswith("...") and "[" not in parameter.declaration:
                head, _, tail = parameter.declaration.rpartition(parameter.name)  # `const float* y`, renamed
                hoisted.append(ir.Declaration("", f"{head}{name}{tail}", argument))
            else:
                hoisted.append(ir.Declaration("auto", name, argument))
            arguments[index] = ir.name(name)
    arguments += [ir.Verbatim(None, p.default) for p in parameters[len(arguments):] if p.default is not None]
    call = ir.KernelCall(written.kernel, [GRID, BLOCK, *written.config[2:]], list(arguments))
    code = ir.Block((ir.Sequence((), tag="counts"),
                     ir.Declaration("const dim3", "pdcc_grid", written.config[0]),
                     ir.Declaration("const dim3", "pdcc_block", written.config[1]),
                     *hoisted, ir.Launch(call)))
    return Base(code, tuple(arguments))


def safe(code: ir.Stmt) -> ir.Stmt:
    """Every `ir.Launch` expanded into the launch, its check and its fallback (see the module's doc)."""
    def expand(node: ir.Stmt) -> ir.Stmt | None:
        if not isinstance(node, ir.Launch):
            return None
        launch = ir.ExprStmt(node.call)
        if node.fallback is not None and node.counted:
            return ir.Sequence(templates.statements(_BUDGETED, launch=ir.Lambda((), ir.Block((launch,))),
                                                    fallback=node.fallback))
        if node.fallback is not None:
            return ir.Sequence(templates.statements(_CHECKED, launch=launch, fallback=node.fallback))
        hold = (templates.statement("pdcc::hold_launch(); // counted: the grid gives it back as it starts"),) \
            if node.counted else ()
        return ir.Sequence(templates.statements(_RETRIED, launch=launch, hold=hold,
                                                limit=c_ast.Constant("unsigned int", f"{RETRY_LIMIT_NS}u")))
    return ir.transform(code, expand)
