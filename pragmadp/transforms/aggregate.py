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

The group protocol itself (storage, append, scan, flush, retries, slots) is C++ in the runtime header
`pragmadp/runtime/pdcc_rt.cuh`; a site adds its record type, the aggregated kernel, the one-record launch,
its pool and group variables and a few calls of the header's classes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import writes
from pragmadp.cgen import templates
from pragmadp.cuda import frontend, lift
from pragmadp.cuda.frontend import Function, Node, Site, launched_identifier, required, walk
from pragmadp.directives import AggThreshold, Buffer, Consolidate, Value, Work
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.transforms import child as children
from pragmadp.transforms import site as sites
from pragmadp.transforms.base import Applied, Context, Missed, SitePlan
from pragmadp.transforms.child import AfterChild, Child
from pragmadp.transforms.coarsen import COARSE_SUFFIX, MAX_THREADS, launch_bounds
from pragmadp.transforms.threshold import SERIAL_SUFFIX, SerialVersion

NAME = "consldt"
CLAUSE = Consolidate
RULES = (rules.AGGREGATE_APPLIED, rules.AGGREGATE_STORAGE)
DEFAULT_POOL_BYTES = 64 << 20
RECORDS_PER_THREAD_IN_LOOPS = 4
MAX_GROUPS = 65536  # group slots of a multiblock(K) site; more groups than that launch directly
RUNTIME_HEADER = "pdcc_rt.cuh"  # in pragmadp/runtime/, which pdcc puts on nvcc's include path
RUNTIME_INCLUDE = f'#include "{RUNTIME_HEADER}"'
REFUSED = (rules.CHILD_BARRIER, rules.CHILD_WARP, rules.CHILD_COOPERATIVE, rules.CHILD_ASM,
           rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE, rules.CHILD_LAUNCHES)
_UNIFORM_BUILTINS = {"gridDim", "blockDim"}
_IDLE = " (an aggregated block holds idle threads)"
_GROUP_TYPES = {"warp": "WarpGroups", "block": "BlockGroup", "multiblock": "MultiBlockGroup", "grid": "MultiBlockGroup"}
_WHY_REFUSED = {rules.CHILD_BARRIER: _IDLE, rules.CHILD_WARP: _IDLE, rules.CHILD_COOPERATIVE: _IDLE,
                rules.CHILD_RECURSIVE: " (that is consolidation, not supported yet)"}

_AGGREGATED_BODY = """\
{
  const {block_type} pdcc_a = pdcc::aggregated_block(pdcc_batch, pdcc_coarsen, blockIdx.x, threadIdx.x);
  if (pdcc_a.idle) return;
  for (unsigned int pdcc_bx = pdcc_a.block.x; pdcc_bx < pdcc_a.record.pdcc_grid.x; pdcc_bx += pdcc_a.stride)
    {thread};
}"""
_APPEND = """\
{record};
if (!{group}.append(pdcc_rec)) // storage full: launch this one directly
  {direct};"""
_WRAPPER = """\
{
  {open};
  {body};
  {flush};
}"""
_OPEN = "{group}.{open}({pool}, {records}, {per_thread});"
_OPEN_GROUPS = "{group}.{open}({pool}, {records}, {per_thread}, {blocks_per_group});"
_FLUSH = "{group}.{flush}({pool}, {coarsen}, {few}, {launch}, {direct});"


@dataclass(frozen=True)
class Aggregation:
    """One aggregated site as its parent's wrapper kernel sees it."""

    site: Site
    granularity: str
    record: str                     # the record type as named in the parent (`ns::pdcc_record_s<float>`)
    aggregated: str                 # the aggregated kernel, likewise
    direct: str                     # the one-record launch, likewise
    coarsen: ir.Expr                # the coarsening factor (its macro, or 1)
    uniform: tuple[ir.Expr, ...]    # the arguments passed once per group
    few: ir.Expr                    # agg_threshold's macro, or 1


@dataclass
class Parent:
    """An aggregating parent: its sites, wrapped once every site of the file is planned."""

    function: Function
    aggregations: list[Aggregation] = field(default_factory=list)


@dataclass(frozen=True)
class ChildSide(AfterChild):
    """The record type, the aggregated kernel and the one-record launch of a site, after the child."""

    varying: tuple[int, ...]
    uniform: tuple[int, ...]
    coarsened: bool

    @property
    def key(self):
        return (self.child.function.node.start_byte, "aggregate", self.site.name)

    @property
    def symbol(self) -> str:
        return f"{self.child.name}__pdcc_agg_{self.site.name}"

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        child, s = self.child, self.site.name
        record = f"pdcc_record_{s}{child.template_args}"
        fields = tuple(child.parameters[i] for i in self.varying) + (
            ir.Parameter("dim3 pdcc_grid", "pdcc_grid"), ir.Parameter("dim3 pdcc_block", "pdcc_block"))
        uniform = tuple(child.parameters[i].declaration for i in self.uniform)

        def arguments(record_value: str) -> list[ir.Expr]:
            return [ir.name(f"{record_value}.{p.name}") if i in self.varying else ir.name(p.name)
                    for i, p in enumerate(child.parameters)]

        thread = children.thread_call(context, child, self.site,
                                      templates.expression("make_uint3(pdcc_bx, pdcc_a.block.y, pdcc_a.block.z)"),
                                      ir.name("pdcc_a.thread"), ir.name("pdcc_a.record.pdcc_grid"),
                                      ir.name("pdcc_a.record.pdcc_block"), arguments("pdcc_a.record"))
        aggregated = ir.Function("static __global__", self.symbol,
                                 (f"const pdcc::Batch<{record}> pdcc_batch", "unsigned pdcc_coarsen", *uniform),
                                 templates.block(_AGGREGATED_BODY, block_type=f"pdcc::AggregatedBlock<{record}>",
                                                 thread=thread),
                                 child.template, f"the launches of a group of parents at site {s} as one grid",
                                 launch_bounds(context, child))
        direct = ir.Function("static __device__", f"{child.name}__pdcc_direct_{s}",
                             (f"const {record}& pdcc_rec", *uniform, "unsigned pdcc_coarsen"),
                             self._direct_body(context, arguments("pdcc_rec")), child.template,
                             "one record launched on its own (storage full, too few parents, or the aggregated "
                             "launch failed)")
        return (ir.Struct(f"pdcc_record_{s}", fields, child.template,
                          f"one parent's launch of '{child.name}' at site {s}, kept for the aggregated launch"),
                aggregated, direct)

    def _direct_body(self, context: Context, arguments: list[ir.Expr]) -> ir.Block:
        """The record's launch, made safe like every launch pdcc writes (serial fallback, or retries)."""
        child = self.child
        kernel, grid, passed = child.name + child.template_args, sites.GRID, list(arguments)
        if self.coarsened:
            kernel = child.name + COARSE_SUFFIX + child.template_args
            grid = templates.expression("dim3((pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen, pdcc_grid.y, "
                                        "pdcc_grid.z)")
            passed.append(sites.GRID)
        fallback = None
        if child.runs_serially:
            context.define(SerialVersion(child, self.site))
            fallback = ir.ExprStmt(ir.call(child.name + SERIAL_SUFFIX + child.template_args, sites.GRID, sites.BLOCK,
                                           *arguments))
        launch = ir.Launch(ir.KernelCall(kernel, [grid, sites.BLOCK], passed), fallback)
        code = ir.Block((ir.Declaration("const dim3", "pdcc_grid", ir.name("pdcc_rec.pdcc_grid")),
                         ir.Declaration("const dim3", "pdcc_block", ir.name("pdcc_rec.pdcc_block")), launch))
        safe = sites.safe(code)
        assert isinstance(safe, ir.Block)
        return safe


def refusal(context: Context, site: Site, child: Child) -> tuple[rules.Rule, str] | None:
    """Why this site's launches cannot be aggregated, or None."""
    unit, launch, parent = context.unit, site.launch, site.parent
    found = next((o for o in child.obstacles if o.rule in REFUSED), None)
    if found is not None:
        return found.rule, children.obstacle_reason(unit, found, site)[0] + _WHY_REFUSED.get(found.rule, "")
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
    context.define(ChildSide(child, site, varying, uniform, coarsen is not None))
    buffer: Buffer | None = directive.clause(Buffer)
    in_loop = frontend.in_loop(launch)
    records_per_thread = RECORDS_PER_THREAD_IN_LOOPS if in_loop else 1
    threshold = directive.clause(AggThreshold)
    capacity = buffer.capacity if buffer is not None else None
    written: list[tuple[ir.Knob, Value | None]] = [  # each knob, and the pragma's value it comes from
        (ir.Knob(f"PDCC_POOL_BYTES_{s}", str(DEFAULT_POOL_BYTES), "pool_bytes", (1 << 16, 1 << 40)), None),
        (ir.Knob(f"PDCC_RECORDS_{s}", capacity.text if capacity else "0", "records", (0, 1 << 24)), capacity),
        (ir.Knob(f"PDCC_RECORDS_PER_THREAD_{s}", str(records_per_thread), "records_per_thread", (1, 64)), None)]
    if granularity == "multiblock":
        assert clause.blocks_per_group is not None   # multiblock(K) always has its K
        written.append((ir.Knob(f"PDCC_GRANULARITY_{s}", clause.blocks_per_group.text, "granularity", (1, 1 << 16)),
                        clause.blocks_per_group))
    if threshold is not None:
        written.append((ir.Knob(f"PDCC_AGG_THRESHOLD_{s}", threshold.value.text, "agg_threshold", (1, MAX_THREADS)),
                        threshold.value))
    knobs = [context.knob(site.parent, knob, value) for knob, value in written]
    prefix = unit.source.data[launch.function.start_byte:launch_identifier_start(launch)].decode()  # `ns::`
    template_arguments = children.launch_template_arguments(launch)
    targs = unit.text(template_arguments) if template_arguments is not None else ""
    record = f"{prefix}pdcc_record_{s}{targs}"
    factor = ir.name(coarsen.macro) if coarsen is not None else c_one()
    direct = children.renamed(unit, launch.function, f"__pdcc_direct_{s}")
    # Uniform values as written: the wrapper passes them too, and it cannot see the site's hoisted copies.
    as_written = tuple(lift.expression(unit, launch.arguments[i]) if i < len(launch.arguments)
                       else plan.arguments[i] for i in uniform)
    aggregation = Aggregation(site, granularity, record, children.renamed(unit, launch.function, f"__pdcc_agg_{s}"),
                              direct, factor, as_written,
                              ir.name(f"PDCC_AGG_THRESHOLD_{s}") if threshold is not None else c_one("1u"))
    _parent(context, site.parent).aggregations.append(aggregation)

    def append(node: ir.Stmt) -> ir.Stmt | None:
        if not isinstance(node, ir.Launch):
            return None
        values = c_ast.ExprList([*(plan.arguments[i] for i in varying), sites.GRID, sites.BLOCK])
        return ir.Sequence(templates.statements(
            _APPEND, record=ir.Declaration(f"const {record}", "pdcc_rec", values, direct=True), group=ir.name(f"pdcc_group_{s}"),
            direct=ir.ExprStmt(ir.call(direct, ir.name("pdcc_rec"), *(plan.arguments[i] for i in uniform), factor))))

    blocks = f"({clause.blocks_per_group.text})" if clause.blocks_per_group is not None else ""  # multiblock(K)
    kind = buffer.kind if buffer else "pool"
    wanted = f"PDCC_RECORDS_{s}" if buffer and buffer.capacity else \
        f"PDCC_RECORDS_PER_THREAD_{s} (= {records_per_thread}{', the launch is in a loop' if in_loop else ''}) " \
        "records per parent thread"
    remarks = (
        context.remark(Kind.APPLIED, rules.AGGREGATE_APPLIED, unit.span(launch.call), child=child.name,
                       granularity=granularity, blocks=blocks, uniform_count=len(uniform), parameters=len(child.parameters),
                       uniform_arguments=[child.parameters[i].name for i in uniform],
                       varying_arguments=[child.parameters[i].name for i in varying]),
        context.remark(Kind.ANALYSIS, rules.AGGREGATE_STORAGE, clause.span, pool_macro=f"PDCC_POOL_BYTES_{s}",
                       pool_mib=DEFAULT_POOL_BYTES >> 20, wanted=wanted, fields=len(varying),
                       malloc="" if kind == "pool" else " (buffer(malloc) is served from the pool too)",
                       pool_bytes=DEFAULT_POOL_BYTES, capacity_macro=f"PDCC_RECORDS_{s}",
                       records_per_thread=records_per_thread))
    return Applied(ir.transform(plan.code, append), f"aggregated per {granularity}", tuple(knobs), remarks)


def c_one(text: str = "1") -> ir.Expr:
    return templates.expression(text)


def launch_identifier_start(launch) -> int:
    return launched_identifier(launch.function).start_byte


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
        holes = dict(group=group, open=ir.name(f"open<{aggregation.record}>"), pool=pool,
                     records=ir.name(f"PDCC_RECORDS_{s}"), per_thread=ir.name(f"PDCC_RECORDS_PER_THREAD_{s}"))
        if granularity == "multiblock":
            opened.append(templates.statement(_OPEN_GROUPS, blocks_per_group=ir.name(f"PDCC_GRANULARITY_{s}"), **holes))
        elif granularity == "grid":
            opened.append(templates.statement(_OPEN_GROUPS, blocks_per_group=templates.expression("pdcc::grid_blocks()"),
                                              **holes))
        else:
            opened.append(templates.statement(_OPEN, **holes))
        batch = ir.name("pdcc_batch")
        launch = ir.Lambda((f"const pdcc::Batch<{aggregation.record}>& pdcc_batch",), ir.Block((
            ir.ExprStmt(ir.KernelCall(aggregation.aggregated, [ir.name("pdcc_batch.blocks"), ir.name("pdcc_batch.threads")],
                                      [batch, aggregation.coarsen, *aggregation.uniform])),
            ir.Return(ir.call("cudaGetLastError")))))
        direct = ir.Lambda((f"const {aggregation.record}& pdcc_rec",), ir.Block((
            ir.ExprStmt(ir.call(aggregation.direct, ir.name("pdcc_rec"), *aggregation.uniform, aggregation.coarsen)),)))
        flushed.append(templates.statement(_FLUSH, group=group, flush=ir.name(f"flush<{aggregation.record}>"),
                                           pool=pool, coarsen=aggregation.coarsen, few=aggregation.few, launch=launch,
                                           direct=direct))
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
