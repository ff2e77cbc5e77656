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

from dataclasses import dataclass

from pragmadp.analysis import writes
from pragmadp.cuda import frontend
from pragmadp.cuda.frontend import GENERATED_MARK, Site, launched_identifier, walk
from pragmadp.directives import AggThreshold, Buffer, Consolidate, Work
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.source import Rope, Span
from pragmadp.transforms import Rewrite
from pragmadp.transforms.coarsen import COARSE_SUFFIX, coarse_grid
from pragmadp.transforms.launch import SiteCode, define_macro, is_simple
from pragmadp.transforms.outline import (Child, after_definition, define_after_child, launch_template_arguments,
                                         renamed, template_prefix, thread_call)
from pragmadp.transforms.outline import parameters as outline_parameters
from pragmadp.transforms.outline import template_arguments as outline_template_arguments
from pragmadp.transforms.threshold import SERIAL_SUFFIX

PASS = "consldt"
DEFAULT_POOL_BYTES = 64 << 20
RECORDS_PER_THREAD_IN_LOOPS = 4
MAX_GROUPS = 65536  # group slots of a multiblock(K) site; more groups than that launch directly
DEFAULT_BOUNDS = "__launch_bounds__(1024)"  # -rdc=true fixes registers at device link: stay launchable at 1024
RUNTIME_HEADER = "pdcc_rt.cuh"  # in pragmadp/runtime/, which pdcc puts on nvcc's include path
RUNTIME_INCLUDE = f'#include "{RUNTIME_HEADER}"'
_REFUSED = (rules.CHILD_BARRIER, rules.CHILD_WARP, rules.CHILD_COOPERATIVE, rules.CHILD_ASM,
            rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE, rules.CHILD_LAUNCHES)
_UNIFORM_BUILTINS = {"gridDim", "blockDim"}
_IDLE = " (an aggregated block holds idle threads)"
_GROUP_TYPES = {"warp": "WarpGroups", "block": "BlockGroup", "multiblock": "MultiBlockGroup", "grid": "MultiBlockGroup"}
_WHY_REFUSED = {rules.CHILD_BARRIER: _IDLE, rules.CHILD_WARP: _IDLE, rules.CHILD_COOPERATIVE: _IDLE,
                rules.CHILD_RECURSIVE: " (that is consolidation, not supported yet)"}


@dataclass
class Aggregation:
    """What the parent's wrapper kernel must do for one aggregated site (prologue and epilogue)."""

    site: Site
    granularity: str
    names: dict[str, str]        # record type, aggregated kernel and one-record launch, as seen from the parent
    coarsen: str                 # the coarsening factor (its macro, or 1)
    uniform_values: list[str]    # the arguments passed once per group, as written at the site
    threshold: bool              # agg_threshold given


def apply(result: Rewrite, site: Site, directive, child: Child, code: SiteCode, coarsen_macro: str | None) -> None:
    """Aggregates the site's launches, or leaves them as they are with a missed remark saying why."""
    unit = result.unit
    clause: Consolidate = directive.clause(Consolidate)
    launch = site.launch
    reason = _refusal(result, site, child)
    if reason is not None:
        rule, message = reason
        result.remark(Kind.MISSED, rule, f"{message}; the launches are not aggregated", clause.span, site, PASS,
                      child=child.name)
        return
    s = site.name
    granularity = clause.granularity
    identifier = launched_identifier(launch.function)
    prefix = unit.source.data[launch.function.start_byte:identifier.start_byte].decode()  # e.g. `ns::`
    targs = _template_args_text(unit, launch)
    varying, uniform = _split_arguments(result, site, child, directive.clause(Work), granularity)
    names = {"record": f"{prefix}pdcc_record_{s}{targs}", "agg": renamed(unit, launch.function, f"__pdcc_agg_{s}"),
             "direct": renamed(unit, launch.function, f"__pdcc_direct_{s}")}
    coarsen = coarsen_macro or "1"
    _define_child_side(result, site, child, varying, uniform, code, coarsen)
    pool_macro, capacity, per_thread = f"PDCC_POOL_BYTES_{s}", f"PDCC_RECORDS_{s}", f"PDCC_RECORDS_PER_THREAD_{s}"
    define_macro(result, site, pool_macro, str(DEFAULT_POOL_BYTES))
    buffer: Buffer | None = directive.clause(Buffer)
    define_macro(result, site, capacity, buffer.capacity.text if buffer and buffer.capacity else "0")
    in_loop = frontend.in_loop(launch)
    records_per_thread = RECORDS_PER_THREAD_IN_LOOPS if in_loop else 1
    define_macro(result, site, per_thread, str(records_per_thread))
    threshold = directive.clause(AggThreshold)
    if granularity == "multiblock":
        define_macro(result, site, f"PDCC_GRANULARITY_{s}", clause.blocks_per_group.text)
    if threshold is not None:
        define_macro(result, site, f"PDCC_AGG_THRESHOLD_{s}", threshold.value.text)
    record_values = [code.child_args[i] for i in varying]
    code.aggregate = (f"const {names['record']} pdcc_rec({', '.join(record_values + ['pdcc_grid', 'pdcc_block'])});",
                      f"if (!pdcc_group_{s}.append(pdcc_rec))  // storage full: launch this one directly",
                      f"  {names['direct']}(pdcc_rec" + "".join(", " + code.child_args[i] for i in uniform)
                      + f", {coarsen});")
    code.passes.append(f"aggregated per {granularity}")
    uniform_values = [unit.text(launch.arguments[i]) if i < len(launch.arguments) else child.parameters[i].default
                      for i in uniform]
    result.aggregations.setdefault(launch.enclosing.node.start_byte, []).append(
        Aggregation(site, granularity, names, coarsen, uniform_values, threshold is not None))
    kind = buffer.kind if buffer else "pool"
    result.remark(Kind.APPLIED, rules.AGGREGATE_APPLIED,
                  f"launches of '{child.name}' aggregated per {granularity}"
                  + (f"({clause.blocks_per_group.text})" if granularity == "multiblock" else "")
                  + f"; {len(uniform)} of {len(child.parameters)} arguments passed once per group",
                  Span(launch.call.start_byte, launch.call.end_byte), site, PASS, granularity=granularity,
                  uniform_arguments=[child.parameters[i].name for i in uniform],
                  varying_arguments=[child.parameters[i].name for i in varying])
    wanted = capacity if buffer and buffer.capacity else \
        f"{per_thread} (= {records_per_thread}{', the launch is in a loop' if in_loop else ''}) records per parent thread"
    result.remark(Kind.ANALYSIS, rules.AGGREGATE_STORAGE,
                  f"record storage: a pool of {pool_macro} (= {DEFAULT_POOL_BYTES >> 20} MiB) reserved on the device; "
                  f"each group takes {wanted}, of {len(varying)} arguments plus grid and block, at run time, "
                  "up to its share of the pool; a record that does not fit launches directly"
                  + ("" if kind == "pool" else " (buffer(malloc) is served from the pool too)"),
                  clause.span, site, PASS, pool_bytes=DEFAULT_POOL_BYTES, pool_macro=pool_macro,
                  capacity_macro=capacity, records_per_thread=records_per_thread)


def _template_args_text(unit, launch) -> str:
    arguments = launch_template_arguments(launch)
    return unit.text(arguments) if arguments is not None else ""


def _refusal(result: Rewrite, site: Site, child: Child):
    """Why this site's launches cannot be aggregated, or None."""
    launch = site.launch
    found = next((o for o in child.obstacles if o.rule in _REFUSED), None)
    if found is not None:
        return found.rule, found.message + _WHY_REFUSED.get(found.rule, "")
    if child.function.outer.start_byte > launch.enclosing.outer.start_byte:
        return rules.CHILD_UNSUPPORTED, f"child '{child.name}' is defined after its parent"
    if child.template and not _template_args_text(result.unit, launch):
        return rules.CHILD_UNSUPPORTED, f"the launch of template '{child.name}' has no explicit template arguments"
    if not launch.enclosing.is_kernel:
        return rules.CHILD_UNSUPPORTED, f"the launch is in device function '{launch.enclosing.name}', not a kernel"
    if len(launch.config) > 2:
        return rules.CHILD_UNSUPPORTED, "the launch names dynamic shared memory or a stream, which one aggregated " \
                                        "launch cannot honour for every parent"
    if any(p.name.endswith("...") for p in child.parameters):
        return rules.CHILD_UNSUPPORTED, f"child '{child.name}' has a parameter pack, which a record cannot hold"
    if len(launch.arguments) > len(child.parameters) or \
            any(p.default is None for p in child.parameters[len(launch.arguments):]):
        return rules.CHILD_UNSUPPORTED, f"the launch passes {len(launch.arguments)} arguments to '{child.name}', " \
                                        f"which takes {len(child.parameters)}"
    if outline_parameters(result.unit, launch.enclosing) is None:
        return rules.CHILD_UNSUPPORTED, f"parent '{launch.enclosing.name}' has a parameter pdcc cannot forward (an " \
                                        "unnamed function pointer or C varargs), so its body cannot be outlined"
    if any(other.kernel_name == launch.enclosing.name and other.on_device for other in result.unit.launches):
        return rules.CHILD_UNSUPPORTED, f"'{launch.enclosing.name}' is itself launched from the device, so grids " \
                                        "of it may run at once and share the site's record pool"
    return None


def _split_arguments(result: Rewrite, site: Site, child: Child, work: Work | None, granularity: str):
    """(varying, uniform) parameter indices: uniform arguments are the same for every parent of a group."""
    unit = result.unit
    parent = site.launch.enclosing
    parameters = {unit.text(n) for p in parent.parameters.named_children for n in walk(p)
                  if n.type == "identifier" and n.parent.type != "parameter_list"} - {""}
    stable = parameters - writes.assigned_names(unit, parent.body)
    allowed = stable | _UNIFORM_BUILTINS | ({"blockIdx"} if _per_block(granularity) else set())
    varying, uniform = [], []
    for index, parameter in enumerate(child.parameters):
        if index >= len(site.launch.arguments):
            uniform.append(index)  # a default value
            continue
        node = site.launch.arguments[index]
        identifiers = [n for n in walk(node) if n.type == "identifier"]
        mentions_work = work is not None and any(unit.text(n) in work.names for n in identifiers)
        if mentions_work or not is_simple(node) or \
                any(unit.text(n) not in allowed for n in identifiers):
            varying.append(index)
        else:
            uniform.append(index)
    return varying, uniform


def _define_child_side(result: Rewrite, site: Site, child: Child, varying: list[int], uniform: list[int],
                       code: SiteCode, coarsen: str) -> None:
    """The record type, the aggregated kernel and the one-record launch, after the child.

    The record is built with a constructor, not braces, so that a parent's `unsigned` passed for an `int`
    parameter converts as in a call (braces warn of narrowing); `pdcc::aggregated_block` (the runtime)
    finds a block's record, original block and thread.
    """
    s = site.name
    coarsened = coarsen != "1"
    fields = [child.parameters[i] for i in varying]
    uniform_declarations = "".join(", " + child.parameters[i].declaration for i in uniform)
    record = f"pdcc_record_{s}{child.template_args}"
    arguments = [f"pdcc_rec.{child.parameters[i].name}" if i in varying else child.parameters[i].name
                 for i in range(len(child.parameters))]
    body = thread_call(child, "make_uint3(pdcc_bx, pdcc_a.block.y, pdcc_a.block.z)", "pdcc_a.thread",
                       "pdcc_a.record.pdcc_grid", "pdcc_a.record.pdcc_block",
                       [a.replace("pdcc_rec.", "pdcc_a.record.", 1) for a in arguments])
    one = SiteCode(kernel=f"{child.name}{COARSE_SUFFIX if coarsened else ''}{child.template_args}",
                   arguments=[*arguments, "pdcc_grid"] if coarsened else arguments, extra_config="",
                   grid="pdcc_cgrid" if coarsened else "pdcc_grid")
    if not child.obstacles:
        one.serial = (f"{child.name}{SERIAL_SUFFIX}{child.template_args}(pdcc_grid, pdcc_block"
                      + "".join(", " + a for a in arguments) + ");")
    coarse_setup = "".join(f"  {line}\n" for line in coarse_grid("pdcc_coarsen")) if coarsened else ""
    bounds = next((result.unit.text(n) for n in child.function.node.children if n.type == "launch_bounds"),
                  DEFAULT_BOUNDS)
    text = (f"\n// pdcc: one parent's launch of '{child.name}' at site {s}, kept for the aggregated launch\n"
            f"{child.template}struct pdcc_record_{s} {{\n" + "".join(f"  {f.declaration};\n" for f in fields)
            + "  dim3 pdcc_grid;\n  dim3 pdcc_block;\n"
            f"  __device__ pdcc_record_{s}(" + "".join(f"{f.declaration}, " for f in fields)
            + "dim3 pdcc_grid, dim3 pdcc_block)\n      : "
            + "".join(f"{f.name}({f.name}), " for f in fields) + "pdcc_grid(pdcc_grid), pdcc_block(pdcc_block) {}\n};\n"
            f"\n// pdcc: the launches of a group of parents at site {s} as one grid\n"
            f"{child.template}static __global__ void {bounds} {child.name}__pdcc_agg_{s}(const pdcc::Batch<{record}> "
            f"pdcc_batch, unsigned pdcc_coarsen{uniform_declarations})\n{{\n"
            f"  const pdcc::AggregatedBlock<{record}> pdcc_a = pdcc::aggregated_block(pdcc_batch, pdcc_coarsen, "
            "blockIdx.x, threadIdx.x);\n"
            "  if (pdcc_a.idle) return;\n"
            "  for (unsigned int pdcc_bx = pdcc_a.block.x; pdcc_bx < pdcc_a.record.pdcc_grid.x; "
            "pdcc_bx += pdcc_a.stride)\n"
            f"    {body}\n}}\n"
            "\n// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)\n"
            f"{child.template}static __device__ void {child.name}__pdcc_direct_{s}(const {record}& pdcc_rec"
            f"{uniform_declarations}, unsigned pdcc_coarsen)\n{{\n"
            "  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;\n  const dim3 pdcc_block = pdcc_rec.pdcc_block;\n"
            f"{coarse_setup}" + "".join(line + "\n" for line in one.checked_launch("  ")) + "}\n")
    define_after_child(result, site, child, f"agg:{s}", text)


def wrap_parents(result: Rewrite) -> None:
    """Outlines each aggregating parent's body and wraps it in a kernel that opens and flushes its groups.

    The wrapper keeps the parent's own `__launch_bounds__`, else gets 1024: with -rdc=true registers are
    fixed at device link, and the protocol must not make a 1024-thread parent unlaunchable.
    """
    unit = result.unit
    source = unit.source
    source_line = source.line_of
    result.edits.insert(0, Rope(source).write(f"{RUNTIME_INCLUDE}  // pdcc: the device runtime\n", 1))
    for aggregations in result.aggregations.values():
        parent = aggregations[0].site.launch.enclosing
        body_name = f"{parent.name}__pdcc_body"
        storage = "" if any(n.type == "storage_class_specifier" for n in parent.node.children) else "static "
        header_edits = [(n.start_byte, n.end_byte, f"{storage}__device__") for n in parent.node.children
                        if unit.text(n) == "__global__"]
        bounds = next((n for n in parent.node.children if n.type == "launch_bounds"), None)
        if bounds is not None:
            header_edits.append((bounds.start_byte, bounds.end_byte, ""))
        name_node = parent.parameters.parent.child_by_field_name("declarator")
        header_edits.append((name_node.start_byte, name_node.end_byte, body_name))
        for start, end, text in header_edits:
            result.edits.replace(start, end, Rope(source).write(text, source_line(start)))
        line = source_line(parent.node.start_byte)
        for aggregation in aggregations:
            result.preludes.setdefault(parent.outer.start_byte, []).append(_group_state(aggregation))
        parameters = outline_parameters(unit, parent)
        declarations = ", ".join(p.declaration for p in parameters)
        names = ", ".join(p.name for p in parameters)
        targs = outline_template_arguments(unit, parent)
        wrapper = (f"\n// pdcc: '{parent.name}' as launched: its groups opened, its body, its groups flushed\n"
                   f"{template_prefix(unit, parent)}__global__ void "
                   f"{unit.text(bounds) if bounds is not None else DEFAULT_BOUNDS} {parent.name}({declarations})\n{{\n"
                   + "".join(_open(a) for a in aggregations)
                   + f"  {body_name}{targs}({names});\n"
                   + "".join(_flush(a) for a in aggregations)
                   + "}\n")
        result.edits.insert(after_definition(source, parent), Rope(source).write(wrapper, line))


def _per_block(granularity: str) -> bool:
    return granularity in ("warp", "block")


def _group_state(aggregation: Aggregation) -> str:
    """Namespace-scope state of one site: its pool (and group slots) and its groups in shared memory."""
    s, granularity = aggregation.site.name, aggregation.granularity
    slots = {"multiblock": f", {MAX_GROUPS}", "grid": ", 1"}.get(granularity, "")
    return (f"// pdcc: site {s}'s record storage and its {granularity} groups (pdcc_rt.cuh)\n"
            f"__device__ pdcc::SitePool<PDCC_POOL_BYTES_{s}{slots}> pdcc_pool_{s};\n"
            f"__shared__ pdcc::{_GROUP_TYPES[granularity]} pdcc_group_{s};\n")


def _open(aggregation: Aggregation) -> str:
    """Every thread of the block sets up the site's groups (storage from the pool) before the body."""
    s, granularity = aggregation.site.name, aggregation.granularity
    blocks_per_group = {"multiblock": f", PDCC_GRANULARITY_{s}", "grid": ", pdcc::grid_blocks()"}.get(granularity, "")
    return (f"  pdcc_group_{s}.open<{aggregation.names['record']}>(pdcc_pool_{s}, PDCC_RECORDS_{s}, "
            f"PDCC_RECORDS_PER_THREAD_{s}{blocks_per_group});\n")


def _flush(aggregation: Aggregation) -> str:
    """Every thread of the block flushes the site's groups after the body: the runtime scans, launches
    (retrying, then one record at a time) and frees the storage; the site supplies the two launches."""
    s, names, coarsen = aggregation.site.name, aggregation.names, aggregation.coarsen
    record = names["record"]
    uniform = "".join(", " + value for value in aggregation.uniform_values)
    few = f"PDCC_AGG_THRESHOLD_{s}" if aggregation.threshold else "1u"
    return (f"  pdcc_group_{s}.flush<{record}>(pdcc_pool_{s}, {coarsen}, {few}, "
            f"[&](const pdcc::Batch<{record}>& pdcc_batch) {{\n"
            f"    {names['agg']}<<<pdcc_batch.blocks, pdcc_batch.threads>>>(pdcc_batch, {coarsen}{uniform}); "
            f"{GENERATED_MARK}\n"
            "    return cudaGetLastError();\n"
            f"  }}, [&](const {record}& pdcc_rec) {{ {names['direct']}(pdcc_rec{uniform}, {coarsen}); }});\n")
