"""Launch aggregation (seed 000 §V, KLAP): one child launch per group of parents.

At the site, a parent that would launch appends a record (the arguments that vary per parent, its
grid and block) to its group's storage, or launches directly when the storage is full. When every
parent of the group is done, one thread launches `child__pdcc_agg_<site>`: each of its blocks finds its
record by binary search over the scanned block counts, idles the threads beyond the record's block size,
and runs the (coarsened) outlined body. Arguments that are the same for the whole group are passed once.

Groups: `warp` and `block` flush at the end of the parent, where every thread of the group arrives (the
parent's body is outlined into `parent__pdcc_body`, so early `return`s are fine); `multiblock(K)` and
`grid` groups are flushed by the last of their blocks to finish, on the device. `agg_threshold(P)`
(warp, block): fewer than P records launch one by one. Storage is a per-site pool (`PDCC_POOL_BYTES_<site>`)
handed out per group at run time, sized from the real launch: the group's threads times the records per
thread (1, or 4 for a launch inside a loop: `PDCC_RECORDS_PER_THREAD_<site>`), or `buffer(KIND, CAP)`'s CAP
records per group, but never more than the group's fair share of the pool, so every group gets storage.
A record that does not fit and a failed aggregated launch fall back to launching (or running) the child
directly, so no work is lost.

The group protocol, the record type and the launches (storage, append, scan, flush, retries, slots,
`pdcc::Record`, `pdcc::launch_record`) are C++ in the runtime header `pragmadp/runtime/pdcc_rt.cuh`; a
site adds its aggregated kernel, its pool and group variables and a few calls of the header.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import writes
from pragmadp.cgen import templates
from pragmadp.cuda import frontend, lift
from pragmadp.cuda.frontend import Function, Node, Site, required, walk
from pragmadp.directives import AggThreshold, Buffer, Consolidate, Value, Work
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.transforms import child as children
from pragmadp.transforms import site as sites
from pragmadp.transforms.base import RUNTIME_HEADER, Applied, Context, Missed, SitePlan
from pragmadp.transforms.child import MAX_THREADS, AfterChild, Child, ThreadFunction, launch_bounds
from pragmadp.transforms.coarsen import COARSE_SUFFIX
from pragmadp.transforms.threshold import SERIAL_SUFFIX, SerialVersion, counted_kernel

NAME = "consldt"
CLAUSE = Consolidate
RULES = (rules.AGGREGATE_APPLIED, rules.AGGREGATE_STORAGE)
DEFAULT_POOL_BYTES = 64 << 20
RECORDS_PER_THREAD_IN_LOOPS = 4
MAX_GROUPS = 65536  # group slots of a multiblock(K) site; more groups than that launch directly
REFUSED = (rules.CHILD_BARRIER, rules.CHILD_WARP, rules.CHILD_COOPERATIVE, rules.CHILD_ASM,
           rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE, rules.CHILD_LAUNCHES, rules.CHILD_UNSEEN)
_UNIFORM_BUILTINS = {"gridDim", "blockDim"}
_IDLE = " (an aggregated block holds idle threads)"
_GROUP_TYPES = {"warp": "WarpGroups", "block": "BlockGroup", "multiblock": "MultiBlockGroup", "grid": "MultiBlockGroup"}
_WHY_REFUSED = {rules.CHILD_BARRIER: _IDLE, rules.CHILD_WARP: _IDLE, rules.CHILD_COOPERATIVE: _IDLE,
                rules.CHILD_RECURSIVE: " (consldt at the child's launch of itself consolidates its recursion)"}

_AGGREGATED_BODY = """\
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, {thread}, {once});
}"""
_APPEND = """\
{record};
if (!{group}.append(pdcc_rec)) // storage full: launch this one directly
  pdcc::launch_record(pdcc_rec, {direct});"""
_WRAPPER = """\
{
  {open};
  {body};
  {flush};
}"""
_OPEN = "{group}.{open}({pool}, {records}, {per_thread});"
_OPEN_GROUPS = "{group}.{open}({pool}, {records}, {per_thread}, {blocks_per_group});"
_FLUSH = "{group}.{flush}({pool}, {coarsen}, {few}, pdcc::aggregated_launch({aggregated}), pdcc::direct_launch({direct}));"


@dataclass(frozen=True)
class Aggregation:
    """One aggregated site as its parent's wrapper kernel sees it."""

    site: Site
    granularity: str
    record: str                     # the record type as named in the parent, through the aggregated kernel
    aggregated: str                 # the aggregated kernel, likewise (`ns::child__pdcc_agg_s<float>`)
    direct: tuple[ir.Expr, ...]     # how one record launches: the kernel (or `pdcc::coarsened(...)`), the
                                    # serial version (or `pdcc::Retry()`)
    coarsen: ir.Expr                # the coarsening factor (its macro, or 1)
    uniform: tuple[ir.Expr, ...]    # the arguments passed once per group
    few: ir.Expr                    # agg_threshold's macro, or 1
    wanted: tuple[ir.Expr, ir.Expr]  # records per group (or 0) and records per thread, for open()


@dataclass
class Parent:
    """An aggregating parent: its sites, wrapped once every site of the file is planned."""

    function: Function
    aggregations: list[Aggregation] = field(default_factory=list)


@dataclass(frozen=True)
class AggregatedKernel(AfterChild):
    """`child__pdcc_agg_<site>`, after the child: the launches of a group of parents as one grid. Its
    `pdcc::Batch` parameter spells the site's record type with the child's own parameter types."""

    uniform: tuple[int, ...]

    @property
    def key(self):
        return (self.child.function.node.start_byte, "aggregate", self.site.name)

    @property
    def symbol(self) -> str:
        return f"{self.child.name}__pdcc_agg_{self.site.name}"

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        child = self.child
        record = "pdcc::Record<" + ", ".join("pdcc::Uniform" if i in self.uniform else ir.parameter_type(p)
                                              for i, p in enumerate(child.parameters)) + ">"
        thread = context.define(ThreadFunction(child, self.site)) + child.template_args
        uniform = [child.parameters[i] for i in self.uniform]
        body = templates.block(_AGGREGATED_BODY, thread=ir.name(thread), once=[ir.name(p.name) for p in uniform])
        return (ir.Function("static __global__", self.symbol,
                            (f"const pdcc::Batch<{record}> pdcc_batch", *(p.declaration for p in uniform)), body,
                            child.template, f"the launches of a group of parents at site {self.site.name} as one "
                            "grid (pdcc_rt.cuh)", launch_bounds(context, child)),)


def refusal(context: Context, site: Site, child: Child) -> tuple[rules.Rule, str] | None:
    """Why this site's launches cannot be aggregated, or None."""
    unit, launch, parent = context.unit, site.launch, site.parent
    found = next((o for o in child.obstacles if o.rule in REFUSED), None)
    if found is not None:
        why = _WHY_REFUSED.get(found.rule, "")
        if found.rule is rules.CHILD_RECURSIVE and not parent.is_kernel:
            why = f" (consldt consolidates a recursion whose launches are in its kernels, not in device function " \
                  f"'{parent.name}')"
        return found.rule, children.obstacle_reason(unit, found, site)[0] + why
    if child.function.outer.start_byte > parent.outer.start_byte:
        return rules.CHILD_UNSUPPORTED, f"child '{child.name}' is defined after its parent"
    if child.template and children.launch_template_arguments(launch) is None:
        return rules.CHILD_UNSUPPORTED, f"the launch of template '{child.name}' has no explicit template arguments"
    if not parent.is_kernel:
        return rules.CHILD_UNSUPPORTED, f"the launch is in device function '{parent.name}', not a kernel"
    if len(launch.config) > 2:
        return rules.CHILD_UNSUPPORTED, "the launch names dynamic shared memory or a stream, which one aggregated " \
                                        "launch cannot honour for every parent"
    if any(p.name.endswith("...") for p in child.parameters):
        return rules.CHILD_UNSUPPORTED, f"child '{child.name}' has a parameter pack, which a record cannot hold"
    if len(launch.arguments) > len(child.parameters) or \
            any(p.default is None for p in child.parameters[len(launch.arguments):]):
        return rules.CHILD_UNSUPPORTED, f"the launch passes {len(launch.arguments)} arguments to '{child.name}', " \
                                        f"which takes {len(child.parameters)}"
    declarator = parent.parameters.parent if parent.parameters is not None else None
    name = required(declarator, "declarator") if declarator is not None else None
    if name is not None and name.type != "identifier":
        return rules.CHILD_UNSUPPORTED, f"parent '{unit.text(name)}' is defined outside its namespace or class, " \
                                        "where pdcc cannot add the kernel that wraps its body"
    if children.parameters(unit, parent) is None:
        return rules.CHILD_UNSUPPORTED, f"parent '{parent.name}' has a parameter pdcc cannot forward (an " \
                                        "unnamed function pointer or C varargs), so its body cannot be outlined"
    if unit.device_launches_of(parent.name):
        return rules.CHILD_UNSUPPORTED, f"'{parent.name}' is itself launched from the device, so grids " \
                                        "of it may run at once and share the site's record pool"
    return None


def split_arguments(context: Context, site: Site, child: Child, work: Work | None,
                    granularity: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(varying, uniform) parameter indices: uniform arguments are the same for every parent of a group."""
    unit = context.unit
    parent = site.parent
    assert parent.parameters is not None and parent.body is not None   # a kernel that launches
    parameters = {unit.text(n) for p in parent.parameters.named_children for n in walk(p)
                  if n.type == "identifier" and n.parent is not None and n.parent.type != "parameter_list"} - {""}
    stable = parameters - writes.assigned_names(unit, parent.body)
    allowed = stable | _UNIFORM_BUILTINS | ({"blockIdx"} if granularity in ("warp", "block") else set())
    varying, uniform = [], []
    for index, _parameter in enumerate(child.parameters):
        if index >= len(site.launch.arguments):
            uniform.append(index)  # a default value
            continue
        node = site.launch.arguments[index]
        identifiers = [n for n in walk(node) if n.type == "identifier"]
        mentions_work = work is not None and any(unit.text(n) in work.names for n in identifiers)
        if mentions_work or not sites.is_simple(node) or any(unit.text(n) not in allowed for n in identifiers):
            varying.append(index)
        else:
            uniform.append(index)
    return tuple(varying), tuple(uniform)


def plan(plan: SitePlan, context: Context) -> Applied | Missed:
    """Aggregates the site's launches, or leaves them as they are with a missed remark saying why."""
    site, child, unit = plan.site, plan.child, context.unit
    directive = site.directive
    clause = plan.clause(Consolidate)
    launch = site.launch
    refused = refusal(context, site, child)
    if refused is not None:
        rule, reason = refused
        return Missed((context.remark(Kind.MISSED, rule, clause.span, child=child.name, reason=reason,
                                      outcome="; the launches are not aggregated"),))
    s, granularity = site.name, clause.granularity
    coarsen = next((k for k in plan.knobs if k.kind == "coarsen"), None)
    varying, uniform = split_arguments(context, site, child, directive.clause(Work), granularity)
    factor = ir.name(coarsen.macro) if coarsen is not None else c_one()
    direct = (direct_kernel(context, plan, coarsen), serial_version(context, plan))
    context.define(AggregatedKernel(child, site, uniform))
    buffer: Buffer | None = directive.clause(Buffer)
    in_loop = frontend.in_loop(launch)
    records_per_thread = RECORDS_PER_THREAD_IN_LOOPS if in_loop else 1
    threshold = directive.clause(AggThreshold)
    capacity = buffer.capacity if buffer is not None else None
    # The records a group wants: buffer's CAP per group, else so many per thread of the group (one knob,
    # the other of open()'s two numbers stays at its neutral value).
    if capacity is not None:
        storage = ir.Knob(f"PDCC_RECORDS_{s}", capacity.text, "records", (0, 1 << 24))
        wanted: tuple[ir.Expr, ir.Expr] = (ir.name(storage.macro), c_one())
    else:
        storage = ir.Knob(f"PDCC_RECORDS_PER_THREAD_{s}", str(records_per_thread), "records_per_thread", (1, 64))
        wanted = (c_one("0"), ir.name(storage.macro))
    written: list[tuple[ir.Knob, Value | None]] = [  # each knob, and the pragma's value it comes from
        (ir.Knob(f"PDCC_POOL_BYTES_{s}", str(DEFAULT_POOL_BYTES), "pool_bytes", (1 << 16, 1 << 40)), None),
        (storage, capacity)]
    if granularity == "multiblock":
        assert clause.blocks_per_group is not None   # multiblock(K) always has its K
        written.append((ir.Knob(f"PDCC_GRANULARITY_{s}", clause.blocks_per_group.text, "granularity", (1, 1 << 16)),
                        clause.blocks_per_group))
    if threshold is not None:
        written.append((ir.Knob(f"PDCC_AGG_THRESHOLD_{s}", threshold.value.text, "agg_threshold", (1, MAX_THREADS)),
                        threshold.value))
    knobs = [context.knob(site.parent, knob, value) for knob, value in written]
    aggregated = children.renamed(unit, launch.function, f"__pdcc_agg_{s}")
    record = f"pdcc::RecordOf<decltype({aggregated})>"
    # Uniform values as written: the wrapper passes them too, and it cannot see the site's hoisted copies.
    as_written = tuple(lift.expression(unit, launch.arguments[i]) if i < len(launch.arguments)
                       else plan.arguments[i] for i in uniform)
    aggregation = Aggregation(site, granularity, record, aggregated, direct, factor, as_written,
                              ir.name(f"PDCC_AGG_THRESHOLD_{s}") if threshold is not None else c_one("1u"), wanted)
    _parent(context, site.parent).aggregations.append(aggregation)

    def append(node: ir.Stmt) -> ir.Stmt | None:
        if not isinstance(node, ir.Launch):
            return None
        values = c_ast.ExprList([sites.GRID, sites.BLOCK, *plan.arguments])
        return ir.Sequence(templates.statements(
            _APPEND, record=ir.Declaration(f"const {record}", "pdcc_rec", values, direct=True),
            group=ir.name(f"pdcc_group_{s}"), direct=[*direct, *(plan.arguments[i] for i in uniform)]))

    blocks = f"({clause.blocks_per_group.text})" if clause.blocks_per_group is not None else ""  # multiblock(K)
    kind = buffer.kind if buffer else "pool"
    described = storage.macro if capacity is not None else \
        f"{storage.macro} (= {records_per_thread}{', the launch is in a loop' if in_loop else ''}) records per parent thread"
    remarks = (
        context.remark(Kind.APPLIED, rules.AGGREGATE_APPLIED, unit.span(launch.call), child=child.name,
                       granularity=granularity, blocks=blocks, uniform_count=len(uniform), parameters=len(child.parameters),
                       uniform_arguments=[child.parameters[i].name for i in uniform],
                       varying_arguments=[child.parameters[i].name for i in varying]),
        context.remark(Kind.ANALYSIS, rules.AGGREGATE_STORAGE, clause.span, pool_macro=f"PDCC_POOL_BYTES_{s}",
                       pool_mib=DEFAULT_POOL_BYTES >> 20, wanted=described, fields=len(varying),
                       malloc="" if kind == "pool" else " (buffer(malloc) is served from the pool too)",
                       pool_bytes=DEFAULT_POOL_BYTES, storage_macro=storage.macro,
                       records_per_thread=records_per_thread))
    return Applied(ir.transform(plan.code, append), f"aggregated per {granularity}", tuple(knobs), remarks)


def direct_kernel(context: Context, plan: SitePlan, coarsen: ir.Knob | None) -> ir.Expr:
    """The kernel a record launches on its own: `child__pdcc_counted` (counted by the launch budget; the
    child as launched when it cannot run serially), or, when the site is coarsened,
    `pdcc::coarsened(child__pdcc_coarse, PDCC_COARSEN_<site>)` (the coarsen pass defined that kernel)."""
    launched = plan.site.launch.function
    if coarsen is None:
        return ir.name(counted_kernel(context, plan) if plan.child.runs_serially else context.unit.text(launched))
    return ir.call("pdcc::coarsened", ir.name(children.renamed(context.unit, launched, COARSE_SUFFIX)),
                   ir.name(coarsen.macro))


def serial_version(context: Context, plan: SitePlan) -> ir.Expr:
    """What a record's failed direct launch falls back to: the child's serial version, or, for a child that
    cannot run serially, `pdcc::Retry()` (the launch is retried until it goes through)."""
    if not plan.child.runs_serially:
        return ir.call("pdcc::Retry")
    context.define(SerialVersion(plan.child, plan.site))
    return ir.name(children.renamed(context.unit, plan.site.launch.function, SERIAL_SUFFIX))


def c_one(text: str = "1") -> ir.Expr:
    return templates.expression(text)


def _parent(context: Context, function: Function) -> Parent:
    """The parent's record of aggregations; the first site of a parent schedules its wrapping."""
    parents: dict[Node, Parent] = context.state.setdefault(NAME, {})
    if function.node not in parents:
        parents[function.node] = Parent(function)
        context.after_sites(functools.partial(_wrap, parent=parents[function.node]))
    return parents[function.node]


def _wrap(context: Context, parent: Parent) -> None:
    """Outlines the parent's body (`parent__pdcc_body`, a device function) and adds the kernel that opens
    the groups of its sites, calls the body and flushes them. The wrapper keeps the parent's own
    `__launch_bounds__`, else gets 1024: with -rdc=true registers are fixed at device link."""
    unit, function = context.unit, parent.function
    context.include(RUNTIME_HEADER, "the device runtime")
    body_name = f"{function.name}__pdcc_body"
    is_static = any(unit.text(n) == "static" for n in function.node.children if n.type == "storage_class_specifier")
    storage = "" if is_static else "static "
    for node in function.node.children:
        if unit.text(node) == "__global__":
            context.edit(unit.span(node), f"{storage}__device__")
    bounds = next((n for n in function.node.children if n.type == "launch_bounds"), None)
    if bounds is not None:
        context.edit(unit.span(bounds), "")
    function_declarator = function.parameters.parent if function.parameters is not None else None
    assert function_declarator is not None   # a kernel that launches
    context.edit(unit.span(required(function_declarator, "declarator")), body_name)
    parameters = children.parameters(unit, function) or []
    opened, flushed = [], []
    for aggregation in parent.aggregations:
        s, granularity = aggregation.site.name, aggregation.granularity
        slots = {"multiblock": f", {MAX_GROUPS}", "grid": ", 1"}.get(granularity, "")
        context.place_before(function, ir.Variable("static __device__", f"pdcc::SitePool<PDCC_POOL_BYTES_{s}{slots}>",
                                                   f"pdcc_pool_{s}", f"site {s}'s record storage and its "
                                                   f"{granularity} groups (pdcc_rt.cuh)"))
        context.place_before(function, ir.Variable("static __shared__", f"pdcc::{_GROUP_TYPES[granularity]}",
                                                   f"pdcc_group_{s}"))
        group, pool = ir.name(f"pdcc_group_{s}"), ir.name(f"pdcc_pool_{s}")
        records, per_thread = aggregation.wanted
        holes = dict(group=group, open=ir.name(f"open<{aggregation.record}>"), pool=pool, records=records,
                     per_thread=per_thread)
        if granularity == "multiblock":
            opened.append(templates.statement(_OPEN_GROUPS, blocks_per_group=ir.name(f"PDCC_GRANULARITY_{s}"), **holes))
        elif granularity == "grid":
            opened.append(templates.statement(_OPEN_GROUPS, blocks_per_group=templates.expression("pdcc::grid_blocks()"),
                                              **holes))
        else:
            opened.append(templates.statement(_OPEN, **holes))
        flushed.append(templates.statement(
            _FLUSH, group=group, flush=ir.name(f"flush<{aggregation.record}>"), pool=pool, coarsen=aggregation.coarsen,
            few=aggregation.few, aggregated=[ir.name(aggregation.aggregated), *aggregation.uniform],
            direct=[*aggregation.direct, *aggregation.uniform]))
    body = ir.ExprStmt(ir.call(body_name + children.template_arguments(unit, function),
                               *(ir.name(p.name) for p in parameters)))
    # The wrapper is the kernel the program launches: the parent's linkage, storage class and defaults.
    linkage = 'extern "C" ' if function.outer.type == "linkage_specification" else ""
    wrapper = ir.Function(f"{linkage}{'static ' if is_static else ''}__global__", function.name,
                          tuple(p.declaration + (f" = {p.default}" if p.default is not None else "") for p in parameters),
                          templates.block(_WRAPPER, open=tuple(opened), body=body, flush=tuple(flushed)),
                          children.template_prefix(unit, function),
                          f"'{function.name}' as launched: its groups opened, its body, its groups flushed",
                          unit.text(bounds) if bounds is not None else f"__launch_bounds__({MAX_THREADS})")
    context.place_after(function, wrapper)
    context.wrapped.add(function.node)
