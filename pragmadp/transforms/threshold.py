"""Thresholding (seed 000 §III): below N child threads, run the child's work in the parent thread.

For a site

    #pragma dp threshold(128)
    child<<<(n + 255) / 256, 256>>>(y, n);

pdcc adds `child__pdcc_serial` after the child (every block and thread of the original configuration,
1-, 2- or 3-D, one after another, through the outlined `child__pdcc_thread`) and guards the launch:

    const auto pdcc_n = n;                       // the child-thread count, evaluated once
    const dim3 pdcc_grid = (pdcc_n + 255) / 256;
    ...
    if (pdcc_n >= PDCC_THRESHOLD_parent_0) { launch, serial on failure } else { serial }

with `PDCC_THRESHOLD_parent_0` defined (unless given with -D) before the parent.
"""

from __future__ import annotations

from pragmadp.analysis import thread_count
from pragmadp.cuda.frontend import Node, Site
from pragmadp.directives import Threshold
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.source import Span
from pragmadp.transforms import Rewrite
from pragmadp.transforms.launch import SiteCode, define_macro
from pragmadp.transforms.outline import (Child, define_after_child, missed_for_obstacle, renamed, thread_call,
                                         type_parameter_names)

PASS = "threshold"
SERIAL_SUFFIX = "__pdcc_serial"

_LOOPS = ("  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)\n"
          "  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)\n"
          "  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)\n"
          "    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)\n"
          "    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)\n"
          "    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)\n")


def serial_call(result: Rewrite, site: Site, child: Child, code: SiteCode) -> str | None:
    """A call of the child's serial version (added on first use), or None when it cannot run serially."""
    if child.obstacles:
        return None
    name = child.name + SERIAL_SUFFIX
    # Never inlined: inlined into a parent loop beside device launches it hung the grid on an H200
    # (tests/cuda/shapes.cu, threshold(32) coarsen(4), 300 parents x 4 rounds); out of line it finishes.
    signature = (f"{child.template}static __device__ __noinline__ void {name}(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim"
                 f"{', ' if child.parameters else ''}{child.declarations})")
    definition = (f"\n// pdcc: every thread of a '{child.name}' launch, one after another, in the calling thread\n"
                  f"{signature}\n{{\n{_LOOPS}      "
                  + thread_call(child, "make_uint3(pdcc_bx, pdcc_by, pdcc_bz)", "make_uint3(pdcc_tx, pdcc_ty, pdcc_tz)",
                                "pdcc_gridDim", "pdcc_blockDim") + "\n}\n")
    define_after_child(result, site, child, "serial", definition, signature + ";\n")
    arguments = "".join(", " + a for a in code.arguments)
    return f"{renamed(result.unit, site.launch.function, SERIAL_SUFFIX)}(pdcc_grid, pdcc_block{arguments});"


def apply(result: Rewrite, site: Site, clause: Threshold, child: Child, code: SiteCode) -> None:
    unit = result.unit
    launch = site.launch
    if child.obstacles:
        missed_for_obstacle(result, site, clause.span, child, child.obstacles[0], PASS, "; the launch is left as written")
        return
    stream = launch.config[3] if len(launch.config) > 3 else None
    if stream is not None and unit.text(stream) not in ("0", "nullptr", "NULL", "0L"):
        result.remark(Kind.MISSED, rules.STREAM_ORDER,
                      f"the launch goes into stream '{unit.text(stream)}' (a tail launch or an ordered stream); running "
                      f"'{child.name}' serially right away would break that order, so it is not thresholded",
                      clause.span, site, PASS, stream=unit.text(stream))
        return
    macro = f"PDCC_THRESHOLD_{site.name}"
    count = thread_count.analyse(unit, launch.config[0], launch.statement.start_byte,
                                 type_parameter_names(unit, launch.enclosing) + type_parameter_names(unit, child.function),
                                 "pdcc_n")
    define_macro(result, site, macro, clause.value.text)
    code.serial = serial_call(result, site, child, code)
    code.passes.append(f"below {macro} child threads, run '{child.name}' here")
    code.counts += [f"  const auto {d.variable} = {d.count};" for d in count.dimensions if d.grid is not None]
    if count.through_variable is None and any(d.grid is not None for d in count.dimensions):
        written = thread_count.dimensions_of(unit, launch.config[0])[0]
        grids = [d.grid if d.grid is not None else text for d, text in zip(count.dimensions, written)]
        code.grid_init = "dim3(" + ", ".join(grids) + ")" if count.written_as_dim3 else grids[0]
    code.guard = f"{_threads_expression(count, unit, launch.config[0], launch.config[1])} >= {macro}"
    result.remark(Kind.APPLIED, rules.THRESHOLD_APPLIED,
                  f"launch of '{child.name}' runs serially in the parent thread below {macro} "
                  f"(= {clause.value.text}) child threads", Span(launch.call.start_byte, launch.call.end_byte),
                  site, PASS, macro=macro, default=clause.value.text, serial_function=child.name + SERIAL_SUFFIX,
                  thread_count=count.describe())
    earlier = [other for other in unit.launches if other.enclosing is not None
               and other.enclosing.node == launch.enclosing.node
               and other.statement.start_byte < launch.statement.start_byte]
    if earlier:
        line = unit.source.line_of(earlier[-1].statement.start_byte)
        result.remark(Kind.ANALYSIS, rules.EARLIER_LAUNCH,
                      f"the launch at line {line} goes into the same stream: a launched '{child.name}' waits for it, "
                      "the serial path below the threshold does not; make sure the two do not share data",
                      clause.span, site, PASS, earlier_line=line)
    if count.found:
        forms = ", ".join(sorted({d.form for d in count.dimensions if d.count is not None}))
        message = f"child-thread count {count.describe()} from the ceiling division {forms}"
    else:
        message = "no ceiling division in the grid size; the child-thread count is grid x block"
    result.remark(Kind.ANALYSIS, rules.THREAD_COUNT, message,
                  Span(launch.config[0].start_byte, launch.config[0].end_byte), site, PASS,
                  thread_count=count.describe(), found=count.found)


def _threads_expression(count: thread_count.ThreadCount, unit, grid: Node, block: Node) -> str:
    """The number of child threads, as C: the product of the per-dimension counts."""
    factors = []
    for axis, dimension in zip("xyz", count.dimensions):
        if dimension.grid is not None:
            factors.append(dimension.variable)
        elif dimension.count is not None:
            factors.append(f"({dimension.count})")
        else:
            factors.append(f"pdcc_grid.{axis} * pdcc_block.{axis}")
    if not count.written_as_dim3:
        if count.dimensions[0].count is None and not _scalar(unit, grid):
            factors.append("pdcc_grid.y * pdcc_grid.z")  # a dim3 by another name
        if not _scalar(unit, block):
            factors.append("pdcc_block.y * pdcc_block.z")
    else:
        for axis in "xyz"[len(count.dimensions):]:
            factors.append(f"pdcc_grid.{axis} * pdcc_block.{axis}")
    if len(factors) == 1 and "*" not in factors[0]:
        return factors[0]
    return "(unsigned long long)" + " * ".join(factors)  # no overflow in 32-bit products


def _scalar(unit, size: Node) -> bool:
    """A grid or block size known to be one number (so its y and z are 1), not a dim3 or a name of unknown type."""
    if size.type == "identifier":
        declared = thread_count.local_initialiser(unit, size, size.start_byte)
        return declared is not None and not declared[1]
    return "dim3" not in unit.text(size) and size.type in ("number_literal", "binary_expression",
                                                            "parenthesized_expression")
