"""Coarsening (seed 000 §IV): each child block does the work of F original blocks.

pdcc adds `child__pdcc_coarse` after the child: a kernel whose blocks loop over the original blocks
assigned to them (x dimension, stride gridDim.x), calling the outlined body with the original block
index and grid. The launch uses ceil(grid.x / F) blocks and passes the original grid:

    dim3 pdcc_cgrid = pdcc_grid;
    pdcc_cgrid.x = (pdcc_grid.x + PDCC_COARSEN_parent_0 - 1) / PDCC_COARSEN_parent_0;
    child__pdcc_coarse<<<pdcc_cgrid, pdcc_block>>>(args, pdcc_grid);

A child that uses shared memory or barriers gets a barrier between original blocks, so one original
block's threads never overwrite shared data another's still read. Cooperative groups and inline
assembly may depend on the real grid, and a kernel that launches itself would be coarsened at
the first level of its recursion only, so such children are left as written.
"""

from __future__ import annotations

from pragmadp.cuda.frontend import Site
from pragmadp.directives import Coarsen
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.source import Span
from pragmadp.transforms import Rewrite
from pragmadp.transforms.launch import SiteCode, define_macro
from pragmadp.transforms.outline import Child, define_after_child, missed_for_obstacle, renamed, thread_call

PASS = "coarsen"
COARSE_SUFFIX = "__pdcc_coarse"
_REFUSED = (rules.CHILD_COOPERATIVE, rules.CHILD_ASM, rules.CHILD_HIDDEN_BUILTINS, rules.CHILD_RECURSIVE,
            rules.CHILD_LAUNCHES)
_NEEDS_BARRIER = (rules.CHILD_BARRIER, rules.CHILD_SHARED)
_RECURSION = (": coarsening would reach the first level of the recursion only (consolidation of recursive "
              "kernels is not supported yet)")


def apply(result: Rewrite, site: Site, clause: Coarsen, child: Child, code: SiteCode) -> str | None:
    """Coarsens the site; returns the coarsening macro, or None when the child is left as written."""
    unit = result.unit
    refused = next((o for o in child.obstacles if o.rule in _REFUSED), None)
    if refused is not None:
        why = _RECURSION if refused.rule is rules.CHILD_RECURSIVE else ""
        missed_for_obstacle(result, site, clause.span, child, refused, PASS, f"{why}; it is not coarsened")
        return None
    barrier = any(o.rule in _NEEDS_BARRIER for o in child.obstacles)
    macro = f"PDCC_COARSEN_{site.name}"
    define_macro(result, site, macro, clause.value.text)
    name = child.name + COARSE_SUFFIX
    signature = (f"{child.template}static __global__ void {name}({child.declarations}{', ' if child.parameters else ''}"
                 f"const dim3 pdcc_gridDim)")
    body = thread_call(child, "make_uint3(pdcc_bx, blockIdx.y, blockIdx.z)", "threadIdx", "pdcc_gridDim", "blockDim")
    definition = (f"\n// pdcc: '{child.name}' coarsened: each block does the work of several original blocks\n"
                  f"{signature}\n{{\n"
                  "  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {\n"
                  f"    {body}\n"
                  + ("    __syncthreads();  // the next original block reuses the shared memory\n" if barrier else "")
                  + "  }\n}\n")
    define_after_child(result, site, child, "coarse", definition, signature + ";\n")
    code.kernel = renamed(unit, site.launch.function, COARSE_SUFFIX)
    code.launch_setup += ["  " + line for line in coarse_grid(macro)]
    code.grid = "pdcc_cgrid"
    code.arguments = [*code.arguments, "pdcc_grid"]
    code.passes.append(f"blocks do {macro} original blocks each")
    result.remark(Kind.APPLIED, rules.COARSEN_APPLIED,
                  f"'{child.name}' coarsened: each block runs {macro} (= {clause.value.text}) original blocks",
                  Span(site.launch.call.start_byte, site.launch.call.end_byte), site, PASS, macro=macro,
                  default=clause.value.text, coarse_kernel=name, barrier_between_blocks=barrier)
    return macro


def coarse_grid(factor: str) -> list[str]:
    """`pdcc_cgrid`: the launch's grid `pdcc_grid` with ceil(x / factor) blocks in x."""
    return ["dim3 pdcc_cgrid = pdcc_grid;", f"pdcc_cgrid.x = (pdcc_grid.x + {factor} - 1) / {factor};"]
