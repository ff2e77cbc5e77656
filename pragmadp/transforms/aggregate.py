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
from pragmadp.transforms.launch import SiteCode, define_macro, is_simple, retried
from pragmadp.transforms.outline import (Child, after_definition, define_after_child, launch_template_arguments,
                                         renamed, template_prefix, thread_call)
from pragmadp.transforms.outline import parameters as outline_parameters
from pragmadp.transforms.outline import template_arguments as outline_template_arguments
from pragmadp.transforms.threshold import SERIAL_SUFFIX

PASS = "consldt"
DEFAULT_POOL_BYTES = 64 << 20
RECORDS_PER_THREAD_IN_LOOPS = 4
MAX_GROUPS = 65536
RUNTIME_HEADER = "pdcc_rt.cuh"  # in pragmadp/runtime/, which pdcc puts on nvcc's include path
RUNTIME_INCLUDE = f'#include "{RUNTIME_HEADER}"'
AGGREGATED_RETRY_LIMIT_NS = 1 << 18  # about 0.5 ms of waiting in all before the one-by-one fallback
_REFUSED = (rules.CHILD_BARRIER, rules.CHILD_WARP, rules.CHILD_COOPERATIVE, rules.CHILD_ASM,
            rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE, rules.CHILD_LAUNCHES)
_UNIFORM_BUILTINS = {"gridDim", "blockDim"}
_IDLE = " (an aggregated block holds idle threads)"
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
    code.aggregate = (f"const {names['record']} pdcc_rec = {{{', '.join(record_values + ['pdcc_grid', 'pdcc_block'])}}};",
                      f"if (!pdcc_append_{s}(pdcc_rec))  // storage full: launch this one directly",
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
        if parameter.name.endswith("...") or mentions_work or not is_simple(node) or \
                any(unit.text(n) not in allowed for n in identifiers):
            varying.append(index)
        else:
            uniform.append(index)
    return varying, uniform


def _define_child_side(result: Rewrite, site: Site, child: Child, varying: list[int], uniform: list[int],
                       code: SiteCode, coarsen: str) -> None:
    """The record type, the aggregated kernel and the one-record launch, after the child."""
    s = site.name
    coarsened = coarsen != "1"
    fields = "".join(f"  {child.parameters[i].declaration};\n" for i in varying)
    uniform_declarations = "".join(", " + child.parameters[i].declaration for i in uniform)
    record = f"pdcc_record_{s}{child.template_args}"
    arguments = [f"pdcc_rec.{child.parameters[i].name}" if i in varying else child.parameters[i].name
                 for i in range(len(child.parameters))]
    body = thread_call(child, "make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z)", "pdcc_t", "pdcc_rec.pdcc_grid",
                       "pdcc_rec.pdcc_block", arguments)
    one = SiteCode(kernel=f"{child.name}{COARSE_SUFFIX if coarsened else ''}{child.template_args}",
                   arguments=[*arguments, "pdcc_grid"] if coarsened else arguments, extra_config="",
                   grid="pdcc_cgrid" if coarsened else "pdcc_grid")
    if not child.obstacles:
        one.serial = (f"{child.name}{SERIAL_SUFFIX}{child.template_args}(pdcc_grid, pdcc_block"
                      + "".join(", " + a for a in arguments) + ");")
    coarse_setup = "".join(f"  {line}\n" for line in coarse_grid("pdcc_coarsen")) if coarsened else ""
    text = (f"\n// pdcc: one parent's launch of '{child.name}' at site {s}, kept for the aggregated launch\n"
            f"{child.template}struct pdcc_record_{s} {{\n{fields}  dim3 pdcc_grid;\n  dim3 pdcc_block;\n}};\n"
            f"\n// pdcc: the launches of a group of parents at site {s} as one grid\n"
            f"{child.template}static __global__ void {child.name}__pdcc_agg_{s}(const {record}* pdcc_records, "
            f"const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen{uniform_declarations})\n{{\n"
            "  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);\n"
            f"  const {record} pdcc_rec = pdcc_records[pdcc_r];\n"
            "  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller\n"
            "  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;\n"
            "  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),\n"
            "                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));\n"
            "  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);\n"
            "  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)\n"
            f"    {body}\n}}\n"
            "\n// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)\n"
            f"{child.template}static __device__ void {child.name}__pdcc_direct_{s}(const {record}& pdcc_rec"
            f"{uniform_declarations}, unsigned pdcc_coarsen)\n{{\n"
            "  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;\n  const dim3 pdcc_block = pdcc_rec.pdcc_block;\n"
            f"{coarse_setup}" + "".join(line + "\n" for line in one.checked_launch("  ")) + "}\n")
    define_after_child(result, site, child, f"agg:{s}", text)


def wrap_parents(result: Rewrite) -> None:
    """Outlines each aggregating parent's body and wraps it in a kernel that sets up and flushes its groups."""
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
        wrapper = (f"\n// pdcc: '{parent.name}' as launched: its body, then one flush per aggregated site\n"
                   f"{template_prefix(unit, parent)}__global__ void {unit.text(bounds) + ' ' if bounds is not None else ''}"
                   f"{parent.name}({declarations})\n{{\n"
                   + "".join(_prologue(a) for a in aggregations)
                   + f"  {body_name}{targs}({names});\n"
                   + "".join(_epilogue(a) for a in aggregations)
                   + "".join(f"  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_{a.site.name});\n"
                           for a in aggregations)
                   + "}\n")
        result.edits.insert(after_definition(source, parent), Rope(source).write(wrapper, line))


def _per_block(granularity: str) -> bool:
    return granularity in ("warp", "block")


def _group_state(aggregation: Aggregation) -> str:
    """Namespace-scope state of one site and the function that appends a record to its group."""
    s = aggregation.site.name
    common = (f"__device__ pdcc::Pool pdcc_pool_{s};\n"
              f"__device__ __align__(128) unsigned char pdcc_storage_{s}[PDCC_POOL_BYTES_{s}];\n"
              f"__shared__ unsigned pdcc_scratch_{s}[33];\n")
    if _per_block(aggregation.granularity):
        group, threads = ("pdcc::linear_thread() >> 5", "32u") if aggregation.granularity == "warp" \
            else ("0u", "pdcc::block_threads()")
        return (f"// pdcc: site {s}'s groups ({aggregation.granularity}): records per group, this block's storage\n"
                f"__shared__ unsigned pdcc_count_{s}[32];\n__shared__ unsigned char* pdcc_chunk_{s};\n{common}"
                f"static __device__ __forceinline__ unsigned pdcc_capacity_{s}(unsigned pdcc_record_bytes) {{\n"
                f"  return pdcc::records_that_fit(PDCC_RECORDS_{s} ? PDCC_RECORDS_{s} : {threads} * "
                f"PDCC_RECORDS_PER_THREAD_{s},\n"
                f"                                PDCC_POOL_BYTES_{s}, (unsigned long long)gridDim.x * gridDim.y * "
                f"gridDim.z,\n"
                f"                                {_groups_per_block(aggregation)}, pdcc_record_bytes);\n}}\n"
                f"template <typename Record>\nstatic __device__ bool pdcc_append_{s}(const Record& pdcc_rec)\n{{\n"
                f"  if (pdcc_chunk_{s} == nullptr) return false;\n"
                f"  const unsigned pdcc_group = {group}, pdcc_capacity = pdcc_capacity_{s}(sizeof(Record));\n"
                f"  const unsigned pdcc_slot = atomicAdd(&pdcc_count_{s}[pdcc_group], 1u);\n"
                "  if (pdcc_slot >= pdcc_capacity) return false;  // full: the caller launches directly\n"
                f"  reinterpret_cast<Record*>(pdcc_chunk_{s})[pdcc_group * pdcc_capacity + pdcc_slot] = pdcc_rec;\n"
                "  __threadfence();  // visible to the child grid another thread of the group launches\n"
                "  return true;\n}\n")
    groups = "1" if aggregation.granularity == "grid" else str(MAX_GROUPS)
    return (f"// pdcc: site {s}'s groups ({aggregation.granularity}), shared by their blocks\n"
            f"__device__ pdcc::GroupSlot pdcc_groups_{s}[{groups}];\n__shared__ pdcc::GroupSlot* pdcc_group_{s};\n"
            f"__shared__ int pdcc_flag_{s};  // this block is its group's last\n"
            f"{common}"
            f"static __device__ __forceinline__ unsigned pdcc_blocks_per_group_{s}() {{ return "
            + ("gridDim.x * gridDim.y * gridDim.z" if aggregation.granularity == "grid" else f"PDCC_GRANULARITY_{s}")
            + "; }\n"
            f"template <typename Record>\nstatic __device__ bool pdcc_append_{s}(const Record& pdcc_rec)\n{{\n"
            f"  pdcc::GroupSlot* pdcc_group = pdcc_group_{s};\n"
            "  if (pdcc_group == nullptr || pdcc_group->records == nullptr) return false;\n"
            "  const unsigned pdcc_slot = atomicAdd(&pdcc_group->count, 1u);\n"
            "  if (pdcc_slot >= pdcc_group->capacity) return false;  // full: the caller launches directly\n"
            "  reinterpret_cast<Record*>(pdcc_group->records)[pdcc_slot] = pdcc_rec;\n"
            "  __threadfence();  // visible to the block that launches for the group\n"
            "  return true;\n}\n")


def _groups_per_block(aggregation: Aggregation) -> str:
    return "((pdcc::block_threads() + 31u) / 32u)" if aggregation.granularity == "warp" else "1u"


def _prologue(aggregation: Aggregation) -> str:
    s, record = aggregation.site.name, aggregation.names["record"]
    if _per_block(aggregation.granularity):
        return (f"  if (pdcc::linear_thread() < 32u) pdcc_count_{s}[pdcc::linear_thread()] = 0u;\n"
                f"  if (pdcc::linear_thread() == 0u)  // this block's records for site {s}, then their scanned ends\n"
                f"    pdcc_chunk_{s} = pdcc::pool_take(pdcc_pool_{s}, pdcc_storage_{s}, PDCC_POOL_BYTES_{s},\n"
                f"        (unsigned long long){_groups_per_block(aggregation)} * pdcc_capacity_{s}(sizeof({record})) * "
                f"(sizeof({record}) + 4u));\n"
                "  __syncthreads();\n")
    return (f"  if (pdcc::linear_thread() == 0u) {{  // join this block's group for site {s}\n"
            "    const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;\n"
            f"    const unsigned pdcc_k = pdcc_blocks_per_group_{s}();\n"
            f"    const unsigned pdcc_capacity = pdcc::records_that_fit(\n"
            f"        PDCC_RECORDS_{s} ? PDCC_RECORDS_{s} : (unsigned long long)pdcc_k * pdcc::block_threads() * "
            f"PDCC_RECORDS_PER_THREAD_{s},\n"
            f"        PDCC_POOL_BYTES_{s}, (pdcc_blocks + pdcc_k - 1) / pdcc_k, 1u, sizeof({record}));\n"
            f"    pdcc_group_{s} = (pdcc_blocks + pdcc_k - 1) / pdcc_k <= sizeof(pdcc_groups_{s}) / sizeof(pdcc::GroupSlot)\n"
            f"        ? pdcc::join_group(pdcc_groups_{s}, pdcc::linear_block() / pdcc_k, pdcc_pool_{s}, pdcc_storage_{s},\n"
            f"                           PDCC_POOL_BYTES_{s}, pdcc_capacity, sizeof({record}))\n"
            "        : nullptr;  // more groups than slots: every parent launches directly\n"
            "  }\n  __syncthreads();\n")


def _flush(aggregation: Aggregation, after: str = "", after_few: str = "") -> str:
    """Scan the group's records and launch them as one grid; few records go one by one.

    After the aggregated launch no thread waits for the launching one (no barrier, no shuffle): the
    leader alone handles a failed launch, then runs `after`; the one-by-one branch ends with `after_few`
    (both free a multi-block group's slot).
    """
    names = aggregation.names
    uniform = "".join(", " + value for value in aggregation.uniform_values)
    coarsen = aggregation.coarsen
    if aggregation.granularity == "warp":
        scan = f"pdcc::warp_scan_records(pdcc_records, pdcc_ends, pdcc_n, {coarsen}, pdcc_mask, &pdcc_widest)"
        leader, stride, start = "pdcc_lane == 0u", "__popc(pdcc_mask)", "pdcc_lane"
    else:
        scan = (f"pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, {coarsen}, "
                f"pdcc_scratch_{aggregation.site.name}, &pdcc_widest)")
        leader, stride, start = "pdcc::linear_thread() == 0u", "pdcc::block_threads()", "pdcc::linear_thread()"
    launch = f"{names['agg']}<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, {coarsen}{uniform});"
    one_by_one = ["for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)",
                  f"  {names['direct']}(pdcc_records[pdcc_i]{uniform}, {coarsen});", "break;"]
    return (f"    if (pdcc_n >= {_few(aggregation)}) {{\n"
            "      unsigned pdcc_widest = 0;\n"
            f"      const unsigned pdcc_total = {scan};\n"
            f"      if ({leader}) {{\n"
            "        (void)cudaGetLastError();\n"
            f"        {launch} {GENERATED_MARK}\n"
            + "".join(line + "\n" for line in retried(
                "        ", launch, AGGREGATED_RETRY_LIMIT_NS, one_by_one,
                "the aggregated launch failed (pending-launch pool full?): let launches drain and retry, "
                "at last launch each record on its own"))
            + f"{after}"
            "      }\n"
            "    } else {  // too few records to be worth a group launch\n"
            f"      for (unsigned pdcc_i = {start}; pdcc_i < pdcc_n; pdcc_i += {stride})\n"
            f"        {names['direct']}(pdcc_records[pdcc_i]{uniform}, {coarsen});\n"
            f"{after_few}"
            "    }\n")


_free_slot = ("        pdcc_slot->records = nullptr;  // free the slot for the parent's next launch\n"
              "        pdcc_slot->capacity = 0u;\n        pdcc_slot->count = 0u;\n        pdcc_slot->blocks_done = 0u;\n"
              "        __threadfence();\n        atomicExch(&pdcc_slot->state, 0);\n")


def _few(aggregation: Aggregation) -> str:
    return f"PDCC_AGG_THRESHOLD_{aggregation.site.name}" if aggregation.threshold else "1u"


def _epilogue(aggregation: Aggregation) -> str:
    s, record = aggregation.site.name, aggregation.names["record"]
    if aggregation.granularity == "warp":
        return (f"  {{ // pdcc: flush site {s}: one aggregated launch per warp\n"
                "    const unsigned pdcc_mask = pdcc::warp_lanes(), pdcc_lane = pdcc::linear_thread() & 31u;\n"
                "    __syncwarp(pdcc_mask);\n"
                f"    const unsigned pdcc_capacity = pdcc_capacity_{s}(sizeof({record})), "
                "pdcc_group = pdcc::linear_thread() >> 5;\n"
                f"    const unsigned pdcc_groups = (pdcc::block_threads() + 31u) / 32u;\n"
                f"    {record}* pdcc_records = reinterpret_cast<{record}*>(pdcc_chunk_{s}) + pdcc_group * pdcc_capacity;\n"
                f"    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(reinterpret_cast<{record}*>(pdcc_chunk_{s})"
                " + pdcc_groups * pdcc_capacity) + pdcc_group * pdcc_capacity;\n"
                f"    const unsigned pdcc_n = pdcc_chunk_{s} ? min(pdcc_count_{s}[pdcc_group], pdcc_capacity) : 0u;\n"
                + _flush(aggregation)
                + "  }\n")
    if aggregation.granularity == "block":
        return (f"  {{ // pdcc: flush site {s}: one aggregated launch per block\n"
                "    __syncthreads();\n"
                f"    const unsigned pdcc_capacity = pdcc_capacity_{s}(sizeof({record}));\n"
                f"    {record}* pdcc_records = reinterpret_cast<{record}*>(pdcc_chunk_{s});\n"
                "    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);\n"
                f"    const unsigned pdcc_n = pdcc_chunk_{s} ? min(pdcc_count_{s}[0], pdcc_capacity) : 0u;\n"
                + _flush(aggregation)
                + "  }\n")
    return (f"  {{ // pdcc: flush site {s}: the last block of each group launches for the whole group\n"
            "    __threadfence();\n    __syncthreads();\n"
            f"    pdcc::GroupSlot* pdcc_slot = pdcc_group_{s};\n"
            "    if (pdcc::linear_thread() == 0u) {\n"
            "      const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;\n"
            f"      const unsigned pdcc_k = pdcc_blocks_per_group_{s}(), pdcc_first = pdcc::linear_block() / pdcc_k * pdcc_k;\n"
            "      const unsigned pdcc_members = min(pdcc_k, pdcc_blocks - pdcc_first);\n"
            f"      pdcc_flag_{s} = pdcc_slot != nullptr && atomicAdd(&pdcc_slot->blocks_done, 1u) == pdcc_members - 1u;\n"
            "    }\n    __syncthreads();\n"
            f"    if (pdcc_flag_{s}) {{\n"
            "      __threadfence();\n"
            f"      {record}* pdcc_records = reinterpret_cast<{record}*>(pdcc_slot->records);\n"
            "      const unsigned pdcc_capacity = pdcc_slot->capacity;\n"
            "      unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);\n"
            "      const unsigned pdcc_n = min(*(volatile unsigned*)&pdcc_slot->count, pdcc_capacity);\n"
            "      __syncthreads();\n"
            + "".join("  " + line + "\n" for line in _flush(
                aggregation, after=_free_slot,
                after_few="      __syncthreads();  // every thread is done with the records\n"
                          "      if (pdcc::linear_thread() == 0u) {\n" + _free_slot + "      }\n").splitlines())
            + "    }\n  }\n")
