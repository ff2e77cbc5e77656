"""The statement pdcc writes in place of an annotated launch, built up by the passes in order.

The base evaluates the configuration once into `pdcc_grid`/`pdcc_block` (and the arguments, when
evaluating them again could differ); threshold adds a guard and a serial path; coarsen swaps the
launched kernel and grid. Every launch pdcc writes checks for failure and falls back: to the serial path
when the child can run serially, else to retries with back-off, so no work is silently lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pragmadp.cuda.frontend import GENERATED_MARK, Node, Site, Unit, walk
from pragmadp.source import Rope
from pragmadp.transforms import Rewrite
from pragmadp.transforms.outline import Child

RETRY_LIMIT_NS = 64 << 16  # back-off doubles from 64 ns; past about 4 ms per wait pdcc stops the kernel


@dataclass
class SiteCode:
    kernel: str                     # the launched function, e.g. ns::child<float>
    arguments: list[str]
    extra_config: str               # ", smem, stream" as written
    counts: list[str] = field(default_factory=list)   # lines before the grid is computed (thread counts)
    setup: list[str] = field(default_factory=list)    # lines after it (hoisted arguments)
    launch_setup: list[str] = field(default_factory=list)  # lines only the launch at the site needs
    grid: str = "pdcc_grid"
    grid_init: str = ""
    block_init: str = ""
    passes: list[str] = field(default_factory=list)
    guard: str | None = None        # launch only when true (threshold)
    serial: str | None = None       # the child's work in this thread, when it can run serially
    child_args: list[str] = field(default_factory=list)  # one value per child parameter (defaults filled in)
    aggregate: tuple[str, ...] = ()  # lines that append a record instead of launching (aggregation)

    def launch(self) -> str:
        return f"{self.kernel}<<<{self.grid}, pdcc_block{self.extra_config}>>>({', '.join(self.arguments)});"

    def render(self, site: Site, indent: str) -> str:
        lines = [f"{{ // pdcc: site {site.name}: {', '.join(self.passes)}", *self.counts,
                 f"  const dim3 pdcc_grid = {self.grid_init};",
                 f"  const dim3 pdcc_block = {self.block_init};", *self.setup,
                 *(self.launch_setup if not self.aggregate else [])]
        pad = "    " if self.guard else "  "
        launch = [pad + line for line in self.aggregate] if self.aggregate else self.checked_launch(pad)
        if self.guard:
            lines += [f"  if ({self.guard}) {{", *launch, "  } else {", f"    {self.serial}", "  }"]
        else:
            lines += launch
        lines.append("}")
        return "".join(f"{indent}{line}\n" for line in lines)

    def checked_launch(self, pad: str) -> list[str]:
        """The launch, its failure check and the fallback, each line starting with `pad`."""
        lines = [f"{pad}(void)cudaGetLastError();", f"{pad}{self.launch()} {GENERATED_MARK}"]
        if self.serial is not None:
            return lines + [f"{pad}if (cudaGetLastError() != cudaSuccess) "
                            "// the launch failed (pending-launch pool full?): no work lost",
                            f"{pad}  {self.serial}"]
        return lines + retried(pad, self.launch(), RETRY_LIMIT_NS, ["__trap();"],
                               "the launch failed (pending-launch pool full?): let launches drain, retry; "
                               "never drop work")


def retried(pad: str, launch: str, limit_ns: int, give_up: list[str], why: str) -> list[str]:
    """After a launch: while it failed, wait (doubling from 64 ns) and launch again; once a wait would
    pass `limit_ns`, run `give_up` instead (which ends with `break;` unless it stops the kernel)."""
    stop = [f"{pad}  if (pdcc_wait > {limit_ns}u) {give_up[0]}"] if len(give_up) == 1 else \
        [f"{pad}  if (pdcc_wait > {limit_ns}u) {{", *(f"{pad}    {line}" for line in give_up), f"{pad}  }}"]
    return [f"{pad}for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {{",
            f"{pad}  // {why}", *stop,
            f"{pad}  __nanosleep(pdcc_wait);",
            f"{pad}  {launch} {GENERATED_MARK}",
            f"{pad}}}"]


def is_simple(node: Node) -> bool:
    """No calls, assignments or increments: evaluating it again gives the same value."""
    return not any(n.type in ("call_expression", "assignment_expression", "update_expression", "comma_expression",
                              "new_expression", "delete_expression", "lambda_expression") for n in walk(node))


def base(unit: Unit, site: Site, child: Child) -> SiteCode:
    """The launch as written, its configuration and (when needed) its arguments evaluated once."""
    launch = site.launch
    code = SiteCode(kernel=unit.text(launch.function), arguments=[unit.text(a) for a in launch.arguments],
                    extra_config="".join(", " + unit.text(c) for c in launch.config[2:]),
                    grid_init=unit.text(launch.config[0]), block_init=unit.text(launch.config[1]))
    if not all(is_simple(a) for a in launch.arguments):
        hoisted = []
        for index, text in enumerate(code.arguments):
            parameter = child.parameters[index] if index < len(child.parameters) else None
            typed = parameter is not None and not child.template and not parameter.name.endswith("...")
            declaration = _retyped(parameter.declaration, parameter.name, f"pdcc_arg{index}") if typed \
                else f"auto pdcc_arg{index}"
            code.setup.append(f"  {declaration} = {text};")
            hoisted.append(f"pdcc_arg{index}")
        code.arguments = hoisted
    code.arguments += [p.default for p in child.parameters[len(code.arguments):] if p.default is not None]
    code.child_args = list(code.arguments)
    return code


def _retyped(declaration: str, name: str, new_name: str) -> str:
    """`const float* y` -> `const float* pdcc_arg0`: a local of the parameter's own type."""
    head, _, tail = declaration.rpartition(name)
    return f"{head}{new_name}{tail}"


def replace_statement(result: Rewrite, site: Site, code: SiteCode) -> None:
    """Swaps the launch statement (whole lines when it has them to itself) for the generated block."""
    unit = result.unit
    data = unit.source.data
    statement = site.launch.statement
    start, end = statement.start_byte, statement.end_byte
    line_start = unit.source.line_start(start)
    indent = data[line_start:start].decode()
    if indent.strip() == "":
        start = line_start
    else:
        indent = ""
    newline = data.find(b"\n", end)
    if newline >= 0 and data[end:newline].strip() == b"":
        end = newline + 1
    line = unit.source.line_of(statement.start_byte)
    result.edits.replace(start, end, Rope(unit.source).write(code.render(site, indent.replace("\t", "    ")), line))


def define_macro(result: Rewrite, site: Site, macro: str, value: str) -> None:
    """`#define PDCC_<KNOB>_<site> value` unless given with -D, just before the parent (see Rewrite.preludes)."""
    result.preludes.setdefault(site.launch.enclosing.outer.start_byte, []).append(
        f"#ifndef {macro}\n#define {macro} {value}\n#endif\n")
