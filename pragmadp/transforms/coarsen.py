"""Coarsening (seed 000 §IV): each child block does the work of F original blocks.

pdcc adds `child__pdcc_coarse` after the child: a kernel whose blocks loop over the original blocks
assigned to them (x dimension, stride gridDim.x), calling the outlined body with the original block
index and grid. Every launch of the child that the site's IR holds (threshold's guarded launch too)
becomes a launch of the coarsened kernel with ceil(grid.x / F) blocks that passes the original grid:

    child__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_0 - 1) / PDCC_COARSEN_parent_0,
                              pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(args, pdcc_grid);

The coarsened kernel gives back its launch of the runtime's launch budget as it starts, so each launch of
it is counted (`ir.Launch.counted`).

A child that uses shared memory or barriers gets a barrier between original blocks, so one original
block's threads never overwrite shared data another's still read. Cooperative groups and inline
assembly may depend on the real grid, and a kernel that launches itself would be coarsened at
the first level of its recursion only, so such children are left as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pragmadp import ir
from pragmadp.cgen import templates
from pragmadp.directives import Coarsen, Consolidate
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.transforms import child as children
from pragmadp.transforms.base import RUNTIME_HEADER, Applied, Context, Missed, SitePlan, replace_launches
from pragmadp.transforms.child import AfterChild, launch_bounds

NAME = "coarsen"
CLAUSE = Coarsen
RULES = (rules.COARSEN_APPLIED,)
COARSE_SUFFIX = "__pdcc_coarse"
REFUSED = (rules.CHILD_COOPERATIVE, rules.CHILD_ASM, rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE,
           rules.CHILD_LAUNCHES, rules.CHILD_UNSEEN, rules.CHILD_WAITS)   # (a block may wait for one it now follows)
_NEEDS_BARRIER = (rules.CHILD_BARRIER, rules.CHILD_SHARED)
_RECURSION = ": coarsening would reach the first level of the recursion only (consldt(...) consolidates it)"
_CONSOLIDATED = ": coarsening does not compose with consldt on a recursion (a consumer block already strides over " \
                "the threads of its item)"

_BLOCKS = """\
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    {thread};
    {between};
  }
}"""
_BARRIER = "__syncthreads(); // the next original block reuses the shared memory"


@dataclass(frozen=True)
class CoarseKernel(AfterChild):
    """`child__pdcc_coarse`: blocks that loop over the original blocks given to them."""

    barrier: bool
    suffix: ClassVar[str] = COARSE_SUFFIX

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        thread = children.thread_call(context, self.child, self.site,
                                      templates.expression("make_uint3(pdcc_bx, blockIdx.y, blockIdx.z)"),
                                      ir.name("threadIdx"), ir.name("pdcc_gridDim"), ir.name("blockDim"))
        between = (templates.statement(_BARRIER),) if self.barrier else ()
        context.include(RUNTIME_HEADER, "the device runtime")
        function = ir.Function("static __global__", self.symbol, (*self.child.declarations, "const dim3 pdcc_gridDim"),
                               templates.block(_BLOCKS, thread=thread, between=between), self.child.template,
                               f"'{self.child.name}' coarsened: each block does the work of several original blocks",
                               launch_bounds(context, self.child))
        self.declare_before_parent(context, function)
        return (function,)


def plan(plan: SitePlan, context: Context) -> Applied | Missed:
    site, child, unit = plan.site, plan.child, context.unit
    clause = plan.clause(Coarsen)
    refused = next((o for o in child.obstacles if o.rule in REFUSED), None)
    if refused is not None:
        why = "" if refused.rule is not rules.CHILD_RECURSIVE else \
            _CONSOLIDATED if site.directive.clause(Consolidate) is not None else _RECURSION
        reason, line = children.obstacle_reason(unit, refused, site)
        return Missed((context.remark(Kind.MISSED, refused.rule, clause.span, child=child.name, reason=reason,
                                      outcome=f"{why}; it is not coarsened", line=line),))
    barrier = any(o.rule in _NEEDS_BARRIER for o in child.obstacles)
    macro = f"PDCC_COARSEN_{site.name}"
    knob = context.knob(site.parent, ir.Knob(macro, clause.value.text, "coarsen", (1, 1 << 16)), clause.value)
    context.define(CoarseKernel(child, site, barrier))
    coarse = children.renamed(unit, site.launch.function, COARSE_SUFFIX)
    grid = templates.expression("dim3((pdcc_grid.x + {factor} - 1) / {factor}, pdcc_grid.y, pdcc_grid.z)",
                                factor=ir.name(macro))

    def coarsened(launch: ir.Launch) -> ir.Launch:
        call = launch.call
        return ir.Launch(ir.KernelCall(coarse, [grid, *call.config[1:]], [*call.args, ir.name("pdcc_grid")]),
                         launch.fallback, counted=True)

    remark = context.remark(Kind.APPLIED, rules.COARSEN_APPLIED, unit.span(site.launch.call), child=child.name,
                            macro=macro, default=clause.value.text, coarse_kernel=child.name + COARSE_SUFFIX,
                            barrier_between_blocks=barrier)
    return Applied(replace_launches(plan.code, unit.text(site.launch.function), coarsened),
                   f"blocks do {macro} original blocks each", (knob,), (remark,))
