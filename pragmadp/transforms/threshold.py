"""Thresholding (seed 000 §III): below N child threads, run the child's work in the parent thread.

For a site

    #pragma dp threshold(128)
    child<<<(n + 255) / 256, 256>>>(y, n);

pdcc adds `child__pdcc_serial` after the child (every block and thread of the original configuration,
1-, 2- or 3-D, one after another, through the outlined `child__pdcc_thread`; when the child opens by
turning away the threads past an x bound, the rows stop there: analysis/thread_guard.py) and guards the
launch:

    const auto pdcc_n = n;                       // the child-thread count, evaluated once
    const dim3 pdcc_grid = (pdcc_n + 255) / 256;
    ...
    if (pdcc_n >= PDCC_THRESHOLD_parent_0) { launch, serial on failure } else { serial }

with `PDCC_THRESHOLD_parent_0` defined (unless given with -D) before the parent. The driver makes the
launch one of `child__pdcc_counted` (`CountedKernel`), the child's body in a kernel that gives back its
launch of the runtime's launch budget as it starts (pdcc_rt.cuh): a launch past the budget runs serially
too, never waiting in the device runtime for room in the pending-launch pool.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from pragmadp import ir
from pragmadp.analysis import thread_count, thread_guard
from pragmadp.cgen import templates
from pragmadp.cuda.frontend import Node, Site
from pragmadp.directives import Coarsen, Consolidate, Threshold
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.transforms import child as children
from pragmadp.transforms.base import RUNTIME_HEADER, Applied, Context, Missed, SitePlan
from pragmadp.transforms.child import AfterChild, launch_bounds

NAME = "threshold"
CLAUSE = Threshold
RULES = (rules.THRESHOLD_APPLIED, rules.THREAD_COUNT, rules.STREAM_ORDER, rules.EARLIER_LAUNCH)
SERIAL_SUFFIX = "__pdcc_serial"
COUNTED_SUFFIX = "__pdcc_counted"
_UNORDERED_STREAMS = ("0", "nullptr", "NULL", "0L")

# The serial version's loops. The innermost is unrolled by 4 so that the loads of consecutive child threads
# overlap: spmv's threshold(128) build ran 2.70 -> 2.01 ms on an H100 (bench/results/
# 2026-12-06-h100-serial-unroll-6ae651a/), and the out-of-line loop keeps no yield point, which is what makes
# it safe beside launching lanes of the same warp (bench/results/2026-12-06-h100-inline-serial-split/, and
# SerialVersion).
SERIAL_LOOPS = """\
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
  #pragma unroll 4
  for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
    {thread};
}"""

# The same loops for a child that turns away the threads past an x bound (analysis/thread_guard.py): each
# row of threads stops at the first one turned away, and the blocks after it are not entered. Only where
# the x index cannot wrap (at most 2^31 - 1 threads in x); the index and the bound keep the child's types.
SERIAL_LOOPS_TRIMMED = """\
{
  const bool pdcc_no_wrap = (unsigned long long)pdcc_gridDim.x * pdcc_blockDim.x <= 0x7fffffffull;
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx) {
    const {index} pdcc_first = pdcc_bx * pdcc_blockDim.x;
    // the threads of this block and of the blocks after it return at once
    if (pdcc_no_wrap && pdcc_first >= {bound}) break;
    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx) {
      const {index} pdcc_index = pdcc_first + pdcc_tx;
      // this thread and the rest of its row return at once
      if (pdcc_no_wrap && pdcc_index >= {bound}) break;
      {thread};
    }
  }
}"""

_COUNTED_BODY = """\
{
  pdcc::launch_started();
  {thread};
}"""


@dataclass(frozen=True)
class SerialVersion(AfterChild):
    """`child__pdcc_serial`: every thread of a launch of the child, one after another, in the caller.

    Never inlined: inlined into a parent loop beside device launches it hung the grid on an H200 and an H100
    (tests/cuda/shapes.cu, threshold(32), 300 parents x 4 rounds); out of line it finishes. What hangs is a
    yield point in the serial loop (ptxas puts YIELDs in the parent's loops; one __nanosleep in the out-of-line
    loop hangs it too), which lets the warp run its launching lanes mid-loop: bench/results/
    2026-12-06-h100-inline-serial-split/.
    A child that opens by turning away the threads past a bound gets trimmed loops (thread_guard).
    """

    suffix: ClassVar[str] = SERIAL_SUFFIX

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        thread = children.thread_call(context, self.child, self.site,
                                      ir.call("make_uint3", *map(ir.name, ("pdcc_bx", "pdcc_by", "pdcc_bz"))),
                                      ir.call("make_uint3", *map(ir.name, ("pdcc_tx", "pdcc_ty", "pdcc_tz"))),
                                      ir.name("pdcc_gridDim"), ir.name("pdcc_blockDim"))
        body = self.child.function.body
        guard = thread_guard.guard(context.unit, body, self.child.parameters) if body is not None else None
        loops = templates.block(SERIAL_LOOPS, thread=thread) if guard is None else \
            templates.block(SERIAL_LOOPS_TRIMMED, thread=thread, index=guard.index_type, bound=ir.name(guard.bound))
        function = ir.Function("static __device__ __noinline__", self.symbol,
                               ("const dim3 pdcc_gridDim", "const dim3 pdcc_blockDim", *self.child.declarations),
                               loops, self.child.template,
                               f"every thread of a '{self.child.name}' launch, one after another, in the calling thread")
        self.declare_before_parent(context, function)
        return (function,)


@dataclass(frozen=True)
class CountedKernel(AfterChild):
    """`child__pdcc_counted`: the child as pdcc launches it through the runtime's launch budget, its
    outlined body after the budget's launch is given back (the user's kernel stays as written)."""

    suffix: ClassVar[str] = COUNTED_SUFFIX

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        context.include(RUNTIME_HEADER, "the device runtime")
        thread = children.thread_call(context, self.child, self.site, *map(ir.name, children.BUILTIN_ORDER))
        function = ir.Function("static __global__", self.symbol, self.child.declarations,
                               templates.block(_COUNTED_BODY, thread=thread), self.child.template,
                               f"'{self.child.name}' as pdcc launches it, through the launch budget (pdcc_rt.cuh)",
                               launch_bounds(context, self.child))
        self.declare_before_parent(context, function)
        return (function,)


def counted_kernel(context: Context, plan: SitePlan) -> str:
    """The name a counted launch of the child calls (defines `child__pdcc_counted` on first use)."""
    context.define(CountedKernel(plan.child, plan.site))
    return children.renamed(context.unit, plan.site.launch.function, COUNTED_SUFFIX)


def serial_call(context: Context, plan: SitePlan) -> ir.ExprStmt:
    """The child's work of this launch in the calling thread (defines the serial version on first use)."""
    context.define(SerialVersion(plan.child, plan.site))
    name = children.renamed(context.unit, plan.site.launch.function, SERIAL_SUFFIX)
    return ir.ExprStmt(ir.call(name, ir.name("pdcc_grid"), ir.name("pdcc_block"), *plan.arguments))


def plan(plan: SitePlan, context: Context) -> Applied | Missed:
    site, child, unit = plan.site, plan.child, context.unit
    clause = plan.clause(Threshold)
    launch = site.launch
    if child.obstacles and plan.serial is None:  # (a consolidated recursion's serial form is consolidation's)
        consolidated = any(isinstance(c, Consolidate) for c in site.directive.clauses)
        # on a consolidated recursion, a sleeping child is what keeps small items from running here
        obstacle = next((o for o in child.obstacles if consolidated and o.rule is rules.CHILD_SLEEPS),
                        child.obstacles[0])
        reason, line = children.obstacle_reason(unit, obstacle, site)
        others = any(isinstance(c, (Coarsen, Consolidate)) for c in site.directive.clauses)
        outcome = ("; no launch runs in the launching thread (the site's other clauses are applied or missed "
                   "on their own)") if others else "; the launch is left as written"
        return Missed((context.remark(Kind.MISSED, obstacle.rule, clause.span, child=child.name, reason=reason,
                                      outcome=outcome, line=line),))
    stream = launch.config[3] if len(launch.config) > 3 else None
    if stream is not None and unit.text(stream) not in _UNORDERED_STREAMS:
        return Missed((context.remark(Kind.MISSED, rules.STREAM_ORDER, clause.span, stream=unit.text(stream),
                                      child=child.name),))
    macro = f"PDCC_THRESHOLD_{site.name}"
    knob = ir.Knob(macro, clause.value.text, "threshold", (0, 1 << 31))
    context.knob(site.parent, knob, clause.value)
    count = thread_count.analyse(unit, launch.config[0], launch.statement.start_byte,
                                 children.type_parameter_names(unit, site.parent)
                                 + children.type_parameter_names(unit, child.function), "pdcc_n")
    serial = (plan.serial or serial_call)(context, plan)
    guard = templates.expression("{threads} >= {threshold}", threads=_threads(count, unit, launch.config[0],
                                                                              launch.config[1]),
                                 threshold=ir.name(macro))

    def rewrite(node: ir.Stmt) -> ir.Stmt | None:
        if isinstance(node, ir.Sequence) and node.tag == "counts":
            return dataclasses.replace(node, items=tuple(
                ir.Declaration("const auto", d.variable, ir.Verbatim(None, d.count))
                for d in count.dimensions if d.grid is not None and d.count is not None))
        if isinstance(node, ir.Declaration) and node.name == "pdcc_grid" and count.through_variable is None \
                and any(d.grid is not None for d in count.dimensions):
            written = thread_count.dimensions_of(unit, launch.config[0])[0]
            grids = [d.grid if d.grid is not None else text for d, text in zip(count.dimensions, written)]
            grid = "dim3(" + ", ".join(grids) + ")" if count.written_as_dim3 else grids[0]
            return dataclasses.replace(node, init=ir.Verbatim(None, grid))
        if isinstance(node, ir.Launch):
            return ir.If(guard, ir.Block((dataclasses.replace(node, fallback=serial),)), ir.Block((serial,)))
        return None

    remarks = [context.remark(Kind.APPLIED, rules.THRESHOLD_APPLIED, unit.span(launch.call), child=child.name,
                              macro=macro, default=clause.value.text, serial_function=child.name + SERIAL_SUFFIX,
                              thread_count=count.describe())]
    earlier = [other for other in unit.launches_in(site.parent)
               if other.statement.start_byte < launch.statement.start_byte]
    if earlier:
        remarks.append(context.remark(Kind.ANALYSIS, rules.EARLIER_LAUNCH, clause.span, child=child.name,
                                      earlier_line=unit.source.line_of(earlier[-1].statement.start_byte)))
    if count.found:
        forms = ", ".join(sorted({d.form for d in count.dimensions if d.count is not None}))
        derivation = f"the ceiling division {forms}"
    else:
        derivation = "grid x block (no ceiling division in the grid size)"
    remarks.append(context.remark(Kind.ANALYSIS, rules.THREAD_COUNT, unit.span(launch.config[0]),
                                  thread_count=count.describe(), derivation=derivation, found=count.found))
    return Applied(ir.transform(plan.code, rewrite), f"below {macro} child threads, run '{child.name}' here",
                   (knob,), tuple(remarks))


def _threads(count: thread_count.ThreadCount, unit, grid: Node, block: Node) -> ir.Expr:
    """The number of child threads: the product of the per-dimension counts, in 64 bits when a product."""
    factors: list[ir.Expr] = []
    for axis, dimension in zip("xyz", count.dimensions):
        if dimension.grid is not None:
            factors.append(ir.name(dimension.variable))
        elif dimension.count is not None:
            factors.append(ir.Verbatim(None, f"({dimension.count})"))
        else:
            factors += [_member("pdcc_grid", axis), _member("pdcc_block", axis)]
    if not count.written_as_dim3:
        if count.dimensions[0].count is None and not _scalar(unit, grid):
            factors += [_member("pdcc_grid", "y"), _member("pdcc_grid", "z")]  # a dim3 by another name
        if not _scalar(unit, block):
            factors += [_member("pdcc_block", "y"), _member("pdcc_block", "z")]
    else:
        for axis in "xyz"[len(count.dimensions):]:
            factors += [_member("pdcc_grid", axis), _member("pdcc_block", axis)]
    if len(factors) == 1:
        return factors[0]
    product = templates.expression("(unsigned long long){first}", first=factors[0])  # no overflow in 32 bits
    for factor in factors[1:]:
        product = templates.expression("{left} * {right}", left=product, right=factor)
    return product


def _member(variable: str, axis: str) -> ir.Expr:
    return templates.expression(f"{variable}.{axis}")


def _scalar(unit, size: Node) -> bool:
    """A grid or block size known to be one number (so its y and z are 1), not a dim3 or a name of unknown type."""
    if size.type == "identifier":
        declared = thread_count.local_initialiser(unit, size, size.start_byte)
        return declared is not None and not declared[1]
    return "dim3" not in unit.text(size) and size.type in ("number_literal", "binary_expression",
                                                            "parenthesized_expression")
