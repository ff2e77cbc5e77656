"""The transform step of the pipeline: every site through its passes, then the edits of the file.

For each site the driver finds the launched kernel (`transforms.child`), builds the site's starting IR
(`transforms.site`), and runs the passes whose clause the site has, in the order of `PASSES`: each one
plans on the IR the previous ones left (`transforms.base`). A site that some pass changed gets launch
safety (`site.safe`) and is printed in place of the launch; the definitions the passes asked for, and
their knobs, are printed where the context placed them. Clauses without a pass get a missed remark.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from pragmadp import ir
from pragmadp.cgen import printer
from pragmadp.cuda import headers, pragmas
from pragmadp.cuda.frontend import Function, Node, Site, Unit, enclosing_function, kernel_call_syntax, required, walk
from pragmadp.directives import Directive
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark
from pragmadp.source import EditBuffer, Generated, Rope, Span
from pragmadp.transforms import aggregate, coarsen, consolidate, meld, threshold
from pragmadp.transforms import child as children
from pragmadp.transforms import site as sites
from pragmadp.transforms.base import Applied, Context, SitePlan

PASSES = (threshold, coarsen, aggregate, consolidate)


@dataclass
class Rewritten:
    """What the passes made of one file."""

    text: str
    remarks: list[Remark] = field(default_factory=list)
    knobs: list[ir.Knob] = field(default_factory=list)
    uses_device_launches: bool = False


def rewrite(unit: Unit, defines: Mapping[str, str] | None = None, auto: bool = False) -> Rewritten:
    """Runs the passes over every site of the unit and comments out the pdcc pragmas it consumed;
    `defines` are the command line's -D macros (knobs pdcc reads itself); with `auto` (--auto) every
    divergent if/else of device code is a meld candidate too."""
    context = Context(unit)
    context.defines = dict(defines or {})
    edits = EditBuffer(unit.source)
    result = Rewritten("", uses_device_launches=any(launch.on_device for launch in unit.launches))
    rewritten: dict[Node, tuple[Function, Site]] = {}  # kernels that hold a rewritten site, or call one that does
    for site in unit.sites:
        context.site = site
        replacement = _site(context, site, result)
        if replacement is not None:
            _replace_statement(edits, site.launch.statement, replacement)
            for kernel in _kernels_running(unit, site.parent):
                rewritten.setdefault(kernel.node, (kernel, site))
    context.site, context.pass_name = None, ""
    context.finish()
    for span, text in context.edits:
        edits.replace(span.start, span.end, Rope(unit.source).write(text, unit.source.line_of(span.start)))
    for node, (kernel, site) in rewritten.items():
        if node not in context.wrapped:
            _bound(context, edits, kernel, site, result)
    melded = _meld(context, edits, result, auto)
    # at one offset, what follows the code before it (the runtime's #include, definitions after a child)
    # comes before what precedes the function there (its knobs and prototypes), whichever pass placed first
    for placed in sorted(context.placed.values(), key=lambda p: (p.offset, p.before)):
        edits.insert(placed.offset, _placed_rope(unit, placed))
    for pragma in unit.pdcc_pragmas:
        if not any(m.start_byte <= pragma.start_byte < m.end_byte for m in melded):  # printed with its if
            _comment_out(edits, unit, pragma)
    result.remarks += pragmas.unread_pragmas(unit.source, unit.include_dirs)
    if unit.sites or unit.meld_sites or melded:   # the analyses of a site read the headers; say what they could not
        result.remarks += [_header_not_read(missing) for missing in headers.not_read(unit)]
    result.text = edits.render()
    return result


def _header_not_read(missing: headers.NotRead) -> Remark:
    """PDCC603 at the #include of a header the analyses could not read."""
    args = {"header": missing.name, "why": missing.why}
    return missing.source.remark(Kind.ANALYSIS, rules.HEADER_NOT_READ, rules.HEADER_NOT_READ.render(args),
                                 Span(*missing.span), pass_name="frontend", args=args)


def _meld(context: Context, edits: EditBuffer, result: Rewritten, auto: bool) -> list[Node]:
    """Each `#pragma meld` if/else through the meld pass; one inside an if that melded goes with it.
    Under --auto, every other if/else of device code too, reported only where it melds (a file has
    many branches pdcc rightly leaves alone). Returns the if statements it replaced."""
    unit = context.unit
    melded: list[Node] = []
    numbers: dict[str, int] = {}
    sites = [(d, s, False) for d, _p, s in unit.meld_sites if not d.off]
    if auto:
        taken = {s for _d, _p, s in unit.meld_sites}
        sites += [(_AUTO_MELD, s, True) for s in _auto_meld_candidates(unit) if s not in taken]
    for directive, statement, automatic in sorted(sites, key=lambda s: s[1].start_byte):
        function = enclosing_function(unit, statement)
        context.pass_name = meld.NAME
        if function is None or not function.runs_on_device:
            result.remarks.append(context.remark(Kind.MISSED, rules.MELD_UNSUPPORTED, Span(statement.start_byte,
                                  statement.start_byte + 2), reason="the if/else is in host code; pdcc melds branches "
                                  "of __global__ and __device__ functions", outcome=""))
            continue
        outer = next((m for m in melded if m.start_byte <= statement.start_byte < m.end_byte), None)
        if outer is not None:
            continue  # its branches are part of the melded if around it
        number = numbers[function.name] = numbers.get(function.name, -1) + 1
        outcome = meld.plan(meld.MeldSite(directive, statement, function, f"{function.name}_{number}"), context)
        if isinstance(outcome, Applied) or not automatic:
            result.remarks += outcome.remarks
        if isinstance(outcome, Applied):
            result.knobs += outcome.knobs
            melded.append(statement)
            _replace_statement(edits, statement, outcome.code)
    context.pass_name = ""
    return melded


_AUTO_MELD = Directive("meld", Span(0, 0), False, ())


def _auto_meld_candidates(unit: Unit) -> list[Node]:
    """The if statements of device code that head an if/else (not the `if` of an `else if`), outside
    pdcc's own code (whose conditions name `pdcc_` values, and the blocks it melded) and not under
    `#pragma meld off`."""
    found = []
    for function in unit.functions:
        if not function.runs_on_device or function.body is None or "__host__" in function.qualifiers:
            continue
        for node in walk(function.body):
            if node.type != "if_statement" or node.child_by_field_name("alternative") is None or node.has_error:
                continue
            if node.parent is not None and node.parent.type == "else_clause":
                continue
            condition = node.child_by_field_name("condition")
            before = node.prev_named_sibling
            consumed = before is not None and before.type == "comment" and \
                unit.text(before).startswith("// pdcc: #pragma meld")   # a pragma an earlier run read
            if condition is not None and "pdcc_" not in unit.text(condition) and not consumed and \
                    not _inside_meld_site(unit, node):
                found.append(node)
    return found


def _inside_meld_site(unit: Unit, node: Node) -> bool:
    """Inside a block an earlier run melded (it opens with `// meld site NAME: ...`): the user's ifs
    there were melded already, or guard what did not meld."""
    parent = node.parent
    while parent is not None:
        first = parent.named_children[0] if parent.type == "compound_statement" and parent.named_children else None
        if first is not None and first.type == "comment" and meld.SITE_COMMENT.match(unit.text(first)):
            return True
        parent = parent.parent
    return False


def _site(context: Context, site: Site, result: Rewritten) -> ir.Block | None:
    """The statement that replaces the site's launch, or None when no pass applies."""
    directive = site.directive
    served = tuple(p.CLAUSE for p in PASSES)
    settings = _SETTINGS + (consolidate.SETTINGS if consolidate.recursive(context.unit, site) else ())
    for clause in directive.clauses:
        if not isinstance(clause, served) and clause.name not in settings:
            context.pass_name = clause.name
            result.remarks.append(context.remark(Kind.MISSED, rules.CLAUSE_NOT_SUPPORTED, clause.span,
                                                 construct=f"clause '{clause.name}'", clause=clause.name,
                                                 outcome="the launch is left as written for it"))
    passes = [p for p in PASSES if directive.clause(p.CLAUSE) is not None and _serves(p, context.unit, site)]
    if not passes:
        return None
    context.pass_name = passes[0].NAME
    first_clause = directive.clause(passes[0].CLAUSE)
    assert first_clause is not None   # the site has the clause of every pass in `passes`
    first = first_clause.span
    if len(site.launch.config) < 2:
        result.remarks.append(context.remark(
            Kind.MISSED, rules.LAUNCH_FORM, first, reason="the launch gives its grid size alone (`<<<grid>>>`), where pdcc "
            "needs a grid and a block size", outcome="; the launch is left as written"))
        return None
    found = children.find(context, site)
    if isinstance(found, children.NotFound):
        result.remarks.append(context.remark(Kind.MISSED, found.rule, first,
                                             child=site.launch.kernel_name, reason=found.reason,
                                             outcome="; the launch is left as written"))
        return None
    base = sites.base(context, site, found.parameters, typed=not found.template)
    plan = SitePlan(site, found, base.code, base.arguments)
    if threshold in passes and consolidate in passes and consolidate.runs_small_items_here(plan, context):
        plan.serial = consolidate.serial_call  # small items run here, their own launches appended
    for pass_ in passes:
        context.pass_name = pass_.NAME
        outcome = pass_.plan(plan, context)
        result.remarks += outcome.remarks
        if isinstance(outcome, Applied):
            plan.code = outcome.code
            plan.applied.append(outcome.summary)
            plan.knobs += outcome.knobs
            result.knobs += outcome.knobs
    if not plan.applied:
        return None
    code = plan.code
    if found.runs_serially:  # a failed launch runs the child here rather than waiting for the pool
        code = ir.transform(code, lambda n: _budgeted(context, plan, n) if isinstance(n, ir.Launch) else None)
    assert isinstance(code, ir.Block)
    code = sites.safe(code)
    assert isinstance(code, ir.Block)   # safe() expands the launches inside the block, keeping the block
    return dataclasses.replace(code, comment=f"pdcc: site {site.name}: {', '.join(plan.applied)}")


def _budgeted(context: Context, plan: SitePlan, launch: ir.Launch) -> ir.Launch:
    """A launch of a child that can run serially, as pdcc makes it: with the serial version as fallback and,
    for the child as written, of `child__pdcc_counted`, counted by the runtime's launch budget (a consolidated
    recursion's own launches excepted: consolidation owns them)."""
    fallback = launch.fallback or threshold.serial_call(context, plan)
    if launch.kernel != context.unit.text(plan.site.launch.function) or plan.serial is not None:
        return dataclasses.replace(launch, fallback=fallback)
    call = ir.KernelCall(threshold.counted_kernel(context, plan), launch.call.config, launch.call.args)
    return ir.Launch(call, fallback, counted=True)


def _serves(pass_, unit: Unit, site: Site) -> bool:
    """`consldt` on a launch of a kernel by itself (or by a kernel it launches back) is consolidation (seed 003),
    on any other launch aggregation."""
    if pass_ in (aggregate, consolidate):
        return (pass_ is consolidate) == consolidate.recursive(unit, site)
    return True


def _kernels_running(unit: Unit, function: Function) -> list[Function]:
    """The kernels whose threads run `function`: itself if it is a kernel, else every kernel of the file
    that calls it, directly or through other device functions."""
    callers = unit.analysis(_callers)
    found, seen, todo = [], {function.name}, [function]
    while todo:
        current = todo.pop()
        if current.is_kernel:
            found.append(current)
            continue
        for caller in callers.get(current.name, ()):
            if caller.name not in seen:
                seen.add(caller.name)
                todo.append(caller)
    return sorted(found, key=lambda f: f.node.start_byte)


def _callers(unit: Unit) -> dict[str, list[Function]]:
    """Name -> the device functions and kernels of the file that call it (not launches): one walk per file."""
    callers: dict[str, list[Function]] = {}
    for function in unit.functions:
        if not function.runs_on_device or function.body is None:
            continue
        for node in walk(function.body):
            callee = node.child_by_field_name("function") if node.type == "call_expression" else None
            if callee is not None and callee.type == "identifier" and kernel_call_syntax(node) is None:
                callers.setdefault(unit.text(callee), []).append(function)
    return callers


def _bound(context: Context, edits: EditBuffer, kernel: Function, site: Site, result: Rewritten) -> None:
    """A rewritten kernel keeps launching with every block size it allowed: with -rdc=true its registers
    are fixed at device link, where the serial path and the device runtime's calls can push it past the 64
    a 1024-thread block allows (error 701 at launch). `__launch_bounds__(1024)` makes ptxas keep it within
    them; a kernel with the user's own bounds keeps those. A kernel that calls a device function holding a
    rewritten site is bounded too (the function's code runs in the kernel's threads)."""
    if any(n.type == "launch_bounds" for n in kernel.node.children):
        return
    function_declarator = kernel.parameters.parent if kernel.parameters is not None else None
    if function_declarator is None:  # a header the parser could not read: nvcc reports it, pdcc adds nothing there
        return
    declarator = required(function_declarator, "declarator")
    line = context.source.line_of(declarator.start_byte)
    edits.insert(declarator.start_byte, Rope(context.source).write(f"__launch_bounds__({_MAX_THREADS}) ", line))
    context.site, context.pass_name = site, "launch-bounds"
    via = "" if kernel.node == site.parent.node else f"it runs '{site.parent.name}', whose launch pdcc rewrote, and "
    result.remarks.append(context.remark(Kind.ANALYSIS, rules.LAUNCH_BOUNDS, context.unit.span(declarator),
                                         kernel=kernel.name, threads=_MAX_THREADS,
                                         why=f": {via}its registers are fixed at device link (-rdc=true), where the "
                                             "serial path and the device runtime can raise them"))
    context.site, context.pass_name = None, ""


_MAX_THREADS = children.MAX_THREADS
_SETTINGS = ("agg_threshold", "buffer", "work")  # clauses that configure a pass rather than ask for one


def _replace_statement(edits: EditBuffer, source: Node, code: ir.Stmt) -> None:
    """Swaps a statement (whole lines when it has them to itself) for the generated block."""
    data = edits.source.data
    start, end = source.start_byte, source.end_byte
    line_start = edits.source.line_start(start)
    indent = data[line_start:start].decode()
    if indent.strip() == "":
        start = line_start
    else:
        indent = ""
    newline = data.find(b"\n", end)
    if newline >= 0 and data[end:newline].strip() == b"":
        end = newline + 1
    line = edits.source.line_of(source.start_byte)
    edits.replace(start, end, Rope(edits.source).write(printer.text(code, indent.replace("\t", "    ")), line))


def _placed_rope(unit: Unit, placed) -> Rope:
    """Definitions after a child, or the knobs and prototypes before a function."""
    rope = Rope(unit.source)
    if placed.before:  # prototypes, knobs, then the variables that use them
        ordered = sorted(placed.definitions, key=lambda d: (isinstance(d, (ir.Knob, ir.Variable)),
                                                            isinstance(d, ir.Variable)))
        return rope.write_before("".join(printer.prelude(d) for d in ordered), placed.line)
    written = ""  # consecutive definitions pdcc writes whole go in one piece: one `#line` for them all
    for definition in placed.definitions:
        if isinstance(definition, ir.Function) and isinstance(definition.body, ir.Verbatim):
            printer.definition(definition, rope.write(written, placed.line), placed.line)
            written = ""
        else:
            written += printer.definition_text(definition)
    return rope.write(written, placed.line)


def _comment_out(edits: EditBuffer, unit: Unit, pragma) -> None:
    """`#pragma dp ...` -> `// pdcc: #pragma dp ...`: nvcc warns about unknown pragmas in device code,
    and a second pdcc run must not apply the same pragma again. Further lines of the pragma (a block
    comment that goes on) are commented too."""
    source = unit.source
    edits.insert(pragma.start_byte, Rope(source, [Generated("// pdcc: ", source.line_of(pragma.start_byte))]))
    end = pragma.end_byte - 1 if source.data[pragma.end_byte - 1:pragma.end_byte] == b"\n" else pragma.end_byte
    position = source.data.find(b"\n", pragma.start_byte, end)
    while position >= 0:
        edits.insert(position + 1, Rope(source, [Generated("// ", source.line_of(position + 1))]))
        position = source.data.find(b"\n", position + 1, end)
