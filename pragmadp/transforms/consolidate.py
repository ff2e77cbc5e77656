"""Consolidation of recursive kernels (seed 003): a kernel that launches itself runs level by level.

For a kernel annotated at its own launch (the seed's form is accepted as it is)

    __global__ void walk(const int* child_ptr, int* depth, int node) {
      ...
      if (n > 0) {
        #pragma dp consldt(block) buffer(default, 256) work(c)
        walk<<<(n + 127) / 128, 128>>>(child_ptr, depth, c);
      }
    }

a thread no longer launches: it appends its work item (the arguments that vary, here `c`, with the
launch's grid and block) to the queue of the next level, `pdcc_queue_walk.append(level, ...)`. `walk`
as the program launches it becomes a wrapper that runs the body where it stands (now
`walk__pdcc_body`) as level 0; its last block to finish tail-launches `walk__pdcc_level`, the consumer of
level 1, whose threads run `walk__pdcc_item` (the body again, its built-ins parameters named as the
built-ins, the sites rewritten the same way) for every (block, thread) of every item: a thread per item
when the launch is `<<<1, 1>>>`, a block per item, or, when the child opens with a guard that turns
threads away (thread_guard.item_guard), packed: each append counts the threads that get past it
(`walk__pdcc_live`), and a block runs those of several items in one loop. Each consumer's last block
tail-launches the next level until one appends nothing. A tail launch starts once its grid and that grid's children are
done and keeps no launch of the levels before pending, so the recursion may be as deep as it likes
without device synchronization. A consumer grid of at most one block per SM goes on with a narrow next
level itself, its blocks waiting at a grid barrier (cheaper than a tail launch). An item past its
level's buffer is launched directly (`walk__pdcc_direct`,
through the launch budget; when the budget is spent it stays in the queue's memory, which the next level's
consumer runs whole; a full queue's item is launched, retried). The protocol is `pdcc::WorkQueue` in the
runtime header.

Kernels that launch one another under consldt (mutual recursion: `ping` launches `pong`, which launches
`ping`) are one recursion: each keeps its own queue (its own record), and one consumer per level,
`ping__pdcc_level`, runs the items of every queue, so level L of all of them is one grid and its last
block tail-launches level L + 1 for all; their items store every argument. A recursion is consolidated
whole or not at all: every launch of its kernels from the device must be one of its consolidated launches. Work after a launch that reads what the launched grids write
(post-work) cannot wait for them without synchronization: a missed remark points at it and the
launches stay as written. Children that cooperate (barriers, shared memory, warp intrinsics,
cooperative groups) are not consolidated: an item's threads do not run as the blocks they were
launched as.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import ctype, divergence, serial, thread_guard, writes
from pragmadp.cgen import printer, templates
from pragmadp.cuda import headers
from pragmadp.cuda.frontend import (LOOPS, Function, Node, Site, Unit, called_name, declared_name, declared_names,
                                    kernel_call_syntax, launched_identifier, node_text, required, scoped_name, walk)
from pragmadp.directives import AggThreshold, Blocks, Buffer, Consolidate, Threads, Value, Work
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark, Rule
from pragmadp.source import Span
from pragmadp.transforms import child as children
from pragmadp.transforms import site as sites
from pragmadp.transforms.base import RUNTIME_HEADER, Applied, Context, Missed, SitePlan
from pragmadp.transforms.child import MAX_THREADS, launch_bounds
from pragmadp.transforms.threshold import SERIAL_LOOPS

NAME = "consolidate"
CLAUSE = Consolidate
SETTINGS = ("threads", "blocks")  # clauses only this pass reads (besides buffer and work, which aggregation reads too)
RULES = (rules.CONSOLIDATE_APPLIED, rules.CONSOLIDATE_STORAGE, rules.CONSOLIDATE_POST_WORK, rules.CONSOLIDATE_REFUSED,
         rules.CONSOLIDATE_CLAUSE_UNUSED)
DEFAULT_POOL_BYTES = 64 << 20
DEFAULT_THREADS = 256
_GROUPS = {"warp": "pdcc::kWarpGroups", "block": "pdcc::kBlockGroups", "grid": "pdcc::kGridGroup"}
_NOT_AS_LAUNCHED = " (a consolidated item's threads do not run together as the blocks and warps it was launched as)"
_NO_BLOCK_SIZE = " (its items' blocks run as launched only when every launch gives the same one-dimensional block " \
    "size, a number or a constant of the file, which the consumer's blocks then have)"
_REFUSED = {rules.CHILD_BARRIER: _NO_BLOCK_SIZE, rules.CHILD_SHARED: _NO_BLOCK_SIZE, rules.CHILD_WARP: _NO_BLOCK_SIZE,
            rules.CHILD_COOPERATIVE: _NOT_AS_LAUNCHED, rules.CHILD_ASM: "", rules.CHILD_HIDDEN_BUILTINS: "",
            rules.CHILD_LAUNCHES: "", rules.CHILD_UNSEEN: "", rules.CHILD_WAITS: ""}
_COOPERATING = (rules.CHILD_BARRIER, rules.CHILD_SHARED, rules.CHILD_WARP)  # fine when blocks run as launched
_SAME_AS_LAUNCHED = {"threadIdx", "blockDim"}  # what a callee reads of them is the item's too, then
_OUTCOME = "; the launches are left as written"
# Statements and expressions under which a launch may not run: the recursion has a way to end.
_CONDITIONAL = {"if_statement", "for_statement", "for_range_loop", "while_statement", "do_statement", "switch_statement",
                "case_statement", "conditional_expression", "try_statement", "lambda_expression"}
_DECLARING = {"init_declarator", "parameter_declaration", "declaration", "pointer_declarator", "reference_declarator",
              "array_declarator"}
_EXITS = {"return_statement", "goto_statement", "throw_statement"}
_ADDRESSING = {"subscript_expression", "field_expression", "pointer_expression", "parenthesized_expression",
               "cast_expression"}

_APPEND = "{queue}.append({level}, {direct}, {arguments});"
_APPEND_PACKED = "{queue}.append_packed({level}, {direct}, {live}, {arguments});"
_FIRST_LEVEL = "{queue}.first_level()"
_LEVEL_DONE = "{queue}.level_done({level}, {threads}, {blocks}, pdcc::level_launch({consumer}, {once}), {others});"
_WRAPPER = """\
{
  {body};
  {done};
}"""
_RUN_LEVEL = "{queue}.run_level(pdcc_level, {item}, {once});"
_RUN_LEVEL_PACKED = "{queue}.run_level_packed(pdcc_level, {item}, {once});"
_CONSUMER = """\
{
  for (;;) {
    {runs};
    if (!{queue}.next_level(pdcc_level, {threads}, {blocks}, pdcc::level_launch({consumer}, {once}), {others}))
      return;
  }
}"""
_DIRECT = """\
{
  pdcc::launch_started();
  {item}(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, {arguments});
}"""


def recursive(unit: Unit, site: Site) -> bool:
    """Whether the site launches the kernel it is in, or a kernel whose consolidated launches lead back to
    it (mutual recursion): consolidation's to serve, not aggregation's."""
    launched = site.launch.kernel_name
    return site.parent.is_kernel and (launched == site.parent.name or site.parent.name in _reach(unit).get(launched, ()))


def _consolidated_launches(unit: Unit) -> dict[str, set[str]]:
    """Kernel -> the kernels of the file it launches under consldt(...)."""
    kernels = {f.name for f in unit.functions if f.is_kernel}
    edges: dict[str, set[str]] = {}
    for site in unit.sites:
        if site.parent.is_kernel and site.launch.kernel_name in kernels and site.directive.clause(Consolidate):
            edges.setdefault(site.parent.name, set()).add(site.launch.kernel_name)
    return edges


def _reach(unit: Unit) -> dict[str, frozenset[str]]:
    """Kernel -> the kernels its consolidated launches reach, directly or through others."""
    return unit.analysis(_reachable)


def _reachable(unit: Unit) -> dict[str, frozenset[str]]:
    edges = _consolidated_launches(unit)
    return {start: _closure(edges, start) for start in edges}


def _closure(edges: dict[str, set[str]], start: str) -> frozenset[str]:
    """The kernels one or more launches lead to from `start`."""
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        kernel = todo.pop()
        if kernel not in seen:
            seen.add(kernel)
            todo += edges.get(kernel, ())
    return frozenset(seen)


@dataclass(frozen=True)
class Problem:
    """Why a site, or the whole recursion, is not consolidated: a missed remark's rule, place and arguments."""

    rule: Rule
    span: Span | None     # None: at each site's consldt clause
    args: dict
    line: int             # the launch it stops (the obstacle's line for the whole recursion), for the other sites' remarks


@dataclass
class Member:
    """One kernel of a recursion: its queue, its copies of the body and the kernels that run its items."""

    function: Function
    child: children.Child                 # the kernel as the child of its launches
    sites: list[Site]                     # the consolidated launches of it, in source order
    uniform: tuple[int, ...] = ()         # parameters every launch passes on unchanged: not stored per item
    thread_per_item: bool = False         # every launch is <<<1, 1>>>: a consumer thread runs a whole item
    serial: bool = False                  # a site has a threshold: small items run in the launching thread
    guard: thread_guard.ItemGuard | None = None  # its opening guard, when consumer blocks run its items packed

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def queue(self) -> ir.Expr:
        return ir.name(f"pdcc_queue_{self.function.name}")

    def symbol(self, suffix: str) -> str:
        return f"{self.function.name}__pdcc_{suffix}"


@dataclass
class Recursion:
    """Kernels with consolidated launches of themselves or of each other (a strongly connected set, one
    kernel for a kernel that launches itself): what their sites share. Their levels run together: level L
    of every kernel is one grid, whose consumer runs the items of each kernel's queue."""

    members: list[Member]                 # in source order; the first's queue counts the levels' blocks
    sites: list[Site]                     # the consldt launches between them, in source order
    problems: dict[Node | None, Problem]  # by site statement; None: a problem of the whole recursion
    copies: dict[Node, ir.Stmt] = field(default_factory=dict)  # site statement -> its code in the body's copy
    leaves: dict[Node, ir.Stmt] = field(default_factory=dict)  # site statement -> its code in the leaf copy
    as_launched: str | None = None        # the block size every launch gives, when the items' blocks run as launched

    @property
    def first(self) -> str:
        """The site whose knobs configure the queues and the consumer."""
        return self.sites[0].name

    @property
    def lead(self) -> Member:
        return self.members[0]

    @property
    def names(self) -> str:
        """The kernels, for remarks: 'walk', or 'ping' and 'pong'."""
        quoted = [f"'{m.name}'" for m in self.members]
        return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" and {quoted[-1]}"

    def member(self, kernel: str) -> Member:
        return next(m for m in self.members if m.name == kernel)


def runs_small_items_here(plan: SitePlan, context: Context) -> bool:
    """Whether the site's recursion is consolidated with items that a thread may run alone (asked before the
    passes plan it: the threshold pass then runs small items through `serial_call`). Items whose blocks run
    as launched (their threads synchronise) cannot, nor a child that sleeps (PDCC525: lanes beside it may launch
    an item past the buffer): the threshold is then missed for them."""
    recursion = _recursion(context, plan.site)
    return not recursion.problems and recursion.as_launched is None and \
        not any(o.rule is rules.CHILD_SLEEPS for o in plan.child.obstacles)


def serial_call(context: Context, plan: SitePlan) -> ir.ExprStmt:
    """A threshold on a consolidated launch: below it the item runs in the launching thread,
    `walk__pdcc_serial(level, grid, block, arguments)` (`_append` gives each copy of the site its level), every
    (block, thread) of it through `walk__pdcc_leaf`, the body whose launches are all appended to the next
    level. So a small item costs no launch and no queue slot, and serial runs never nest: the leaf's own
    items, small or not, wait for the next level."""
    member = _recursion(context, plan.site).member(plan.site.launch.kernel_name)
    member.serial = True
    return ir.ExprStmt(ir.call(member.symbol("serial"), ir.name("pdcc_grid"), ir.name("pdcc_block"), *plan.arguments))


def plan(plan: SitePlan, context: Context) -> Applied | Missed:
    """Turns the site's launch into an append to the next level's queue, or says why not."""
    site, unit = plan.site, context.unit
    clause = plan.clause(Consolidate)
    recursion = _recursion(context, site)
    member = recursion.member(site.launch.kernel_name)
    problem = recursion.problems.get(None) or recursion.problems.get(site.launch.statement)
    if problem is not None:
        return Missed((context.remark(Kind.MISSED, problem.rule, problem.span or clause.span, **problem.args),))
    if recursion.problems:  # another site stops the recursion
        other = min(recursion.problems.values(), key=lambda p: p.line)
        return Missed((context.remark(Kind.MISSED, rules.CONSOLIDATE_REFUSED, clause.span, kernel=member.name,
                                      reason=f"a recursion is consolidated whole or not at all, and the launch of "
                                             f"'{other.args.get('kernel', member.name)}' at line {other.line} cannot be"),))
    first = site is recursion.sites[0]
    knobs = _knobs(context, recursion) if first else ()
    if first:
        context.after_sites(functools.partial(_build, recursion=recursion))
    granularity = clause.granularity
    summary = f"consolidated per {granularity}"
    level = templates.expression(_FIRST_LEVEL, queue=recursion.lead.queue)
    code = _append(plan, recursion, level)
    comment = f"pdcc: site {site.name}: {', '.join([*plan.applied, summary])}"
    recursion.copies[site.launch.statement] = dataclasses.replace(_append(plan, recursion, ir.name("pdcc_level")),
                                                                  comment=comment)
    recursion.leaves[site.launch.statement] = dataclasses.replace(
        _leaf(plan, recursion), comment=f"pdcc: site {site.name}: {summary} (in a small item run here: appended "
                                        "whatever its size)")
    varying = [p.name for i, p in enumerate(plan.child.parameters) if i not in member.uniform]
    mutual = len(recursion.members) > 1
    shared = "" if first else f"; it shares the {'' if mutual else 'queue and '}consumer of site {recursion.first}"
    if mutual:
        shared += f" (a mutual recursion of {recursion.names}: one consumer per level runs each kernel's queue)"
    remarks = [context.remark(Kind.APPLIED, rules.CONSOLIDATE_APPLIED, unit.span(site.launch.call),
                              kernel=member.name, launcher="itself" if site.parent.name == member.name
                              else f"'{site.parent.name}'", granularity=granularity,
                              fields=", ".join(varying) or "no argument", varying_arguments=varying,
                              mapping=_mapping(unit, recursion, member),
                              threads_macro=recursion.as_launched or f"PDCC_THREADS_{recursion.first}", shared=shared)]
    if first:
        remarks.append(_storage_remark(context, recursion, clause.span))
    remarks += _unused_clauses(context, plan, recursion, first)
    return Applied(code, summary, knobs, tuple(remarks))


def _mapping(unit: Unit, recursion: Recursion, member: Member) -> str:
    """How the consumer runs the kernel's items, for PDCC570."""
    if recursion.as_launched is not None:
        return "block by block, as launched,"
    if member.thread_per_item:
        return "a thread per item"
    if member.guard is None:
        return "a block per item"
    return f"packed (several items per block; only the threads its guard at line " \
           f"{unit.source.line_of(member.guard.test.start_byte)} lets through)"


def _append(plan: SitePlan, recursion: Recursion, level: ir.Expr) -> ir.Stmt:
    """The site's code: the launch's configuration and arguments evaluated as before, then the append (and
    a threshold's serial run, at the same level)."""
    member = recursion.member(plan.site.launch.kernel_name)

    def append(node: ir.Stmt) -> ir.Stmt | None:
        if _runs_serially(node, member):
            assert isinstance(node, ir.ExprStmt) and isinstance(node.expr, c_ast.FuncCall) and node.expr.args
            return ir.ExprStmt(ir.call(member.symbol("serial"), level, *node.expr.args.exprs))
        if not isinstance(node, ir.Launch):
            return None
        arguments = [sites.GRID, sites.BLOCK, *plan.arguments]
        direct = ir.name(member.symbol("direct"))
        if member.guard is not None:
            return templates.statement(_APPEND_PACKED, queue=member.queue, level=level, direct=direct,
                                       live=ir.name(member.symbol("live")), arguments=arguments)
        return templates.statement(_APPEND, queue=member.queue, level=level, direct=direct, arguments=arguments)
    return ir.transform(plan.code, append)


def _leaf(plan: SitePlan, recursion: Recursion) -> ir.Stmt:
    """The site's code in the leaf copy (the body as `serial_call` runs it): the append alone, whatever the
    threshold."""
    member = recursion.member(plan.site.launch.kernel_name)

    def unguarded(node: ir.Stmt) -> ir.Stmt | None:
        if isinstance(node, ir.If) and isinstance(node.orelse, ir.Block) and len(node.orelse.items) == 1 \
                and _runs_serially(node.orelse.items[0], member):
            then = node.then
            return then.items[0] if isinstance(then, ir.Block) and len(then.items) == 1 else then
        return None
    return ir.transform(_append(plan, recursion, ir.name("pdcc_level")), unguarded)


def _runs_serially(node: ir.Stmt, member: Member) -> bool:
    """Whether the statement is `serial_call`'s."""
    return isinstance(node, ir.ExprStmt) and isinstance(node.expr, c_ast.FuncCall) \
        and isinstance(node.expr.name, c_ast.ID) and node.expr.name.name == member.symbol("serial")


def _knobs(context: Context, recursion: Recursion) -> tuple[ir.Knob, ...]:
    """The queue's and the consumer's knobs, named after the first site, with the first site's clauses."""
    site = recursion.sites[0]
    s, directive = site.name, site.directive
    buffer, threads, blocks = directive.clause(Buffer), directive.clause(Threads), directive.clause(Blocks)
    capacity = buffer.capacity if buffer is not None else None
    launched = recursion.member(site.launch.kernel_name)
    threads_per_item = None if launched.thread_per_item else _literal_threads(context.unit, site.launch.config[1])
    default_threads = str(threads_per_item or DEFAULT_THREADS)
    written: list[tuple[ir.Knob, Value | None]] = [
        (ir.Knob(f"PDCC_POOL_BYTES_{s}", str(DEFAULT_POOL_BYTES), "pool_bytes", (1 << 16, 1 << 40)), None),
        (ir.Knob(f"PDCC_BUFFER_{s}", capacity.text if capacity is not None else "0", "buffer", (0, 1 << 24)), capacity),
        (ir.Knob(f"PDCC_THREADS_{s}", threads.expression.text if threads else default_threads, "threads",
                 (1, MAX_THREADS)), threads.expression if threads else None),
        (ir.Knob(f"PDCC_BLOCKS_{s}", blocks.expression.text if blocks else "0", "blocks", (0, (1 << 31) - 1)),
         blocks.expression if blocks else None)]
    if recursion.as_launched is not None:  # the consumer's blocks have the items' block size, no other
        written = [(knob, value) for knob, value in written if knob.kind != "threads"]
    for clause in (c for c in (threads if recursion.as_launched is None else None, blocks) if c is not None):
        _check_configuration(context, recursion, clause.name, clause.expression)
    context.include(RUNTIME_HEADER, "the device runtime")  # first: a kernel at the top of the file has its knobs there
    return tuple(context.knob(recursion.lead.function, knob, value) for knob, value in written)


def _check_configuration(context: Context, recursion: Recursion, clause: str, expression: Value) -> None:
    """`threads(E)` and `blocks(E)` become macros used where each level's consumer is launched, so E may not
    name a parameter or local of the recursion's kernels: an error at the name, before nvcc would say it."""
    unit = context.unit
    for member in recursion.members:
        variables = _variables(unit, member.function)
        for match in re.finditer(r"(?<![\w.:])(?<!->)[A-Za-z_]\w*", expression.text):
            what = variables.get(match.group())
            if what is not None:
                at = Span(expression.span.start + match.start(), expression.span.start + match.end())
                raise context.source.error(rules.BAD_VALUE, at, "names-a-kernel-variable", clause=clause,
                                           name=match.group(), what=what, kernel=member.name)


def _variables(unit: Unit, function: Function) -> dict[str, str]:
    """The names a kernel declares, each as 'parameter' or 'local variable'."""
    found: dict[str, str] = {}
    for node in walk(function.node):
        if node.type in ("parameter_declaration", "declaration"):
            for name in declared_names(node):
                found.setdefault(unit.text(name), "parameter" if node.type == "parameter_declaration" else "local variable")
    return found


def _literal_threads(unit: Unit, block: Node) -> int | None:
    """The threads of a block size written as numbers (`128`, `dim3(4, 2)`), else None."""
    arguments = block.child_by_field_name("arguments") if block.type == "call_expression" else None
    is_dim3 = arguments is not None and unit.text(required(block, "function")) == "dim3"
    sizes = list(arguments.named_children) if arguments is not None and is_dim3 else [block]
    threads = 1
    for size in sizes:
        number = Value(unit.text(size), unit.span(size)).number() if size.type == "number_literal" else None
        if not isinstance(number, int) or number <= 0:
            return None
        threads *= number
    return threads


def _storage_remark(context: Context, recursion: Recursion, span: Span) -> Remark:
    site = recursion.sites[0]
    clause, buffer = site.directive.clause(Consolidate), site.directive.clause(Buffer)
    assert clause is not None   # a consolidated site
    capacity = buffer.capacity if buffer is not None else None
    # Items run as launched take a slot per block of their grid, and the buffer counts slots.
    slots = "items" if recursion.as_launched is None else "item blocks (an item takes one per block of its grid)"
    per_level = "half the pool" if capacity is None else \
        f"PDCC_BUFFER_{site.name} (= {capacity.text}) {slots} per {clause.granularity} of the launches it runs, " \
        "at most half the pool"
    if buffer is not None and buffer.kind == "malloc":
        per_level += " (buffer(malloc) is served from the pool too)"
    kernels = recursion.names if len(recursion.members) == 1 else f"each of {recursion.names}"
    return context.remark(Kind.ANALYSIS, rules.CONSOLIDATE_STORAGE, span, kernels=kernels,
                          pool_macro=f"PDCC_POOL_BYTES_{site.name}", pool_mib=DEFAULT_POOL_BYTES >> 20,
                          per_level=per_level, pool_bytes=DEFAULT_POOL_BYTES, buffer_macro=f"PDCC_BUFFER_{site.name}")


def _unused_clauses(context: Context, plan: SitePlan, recursion: Recursion, first: bool) -> list[Remark]:
    """Remarks for the clauses of this site that change nothing: work names no argument mentions, the
    configuration of a later site (the first one's configures the recursion), agg_threshold."""
    directive, launch, unit = plan.site.directive, plan.site.launch, context.unit
    remarks = []
    work = directive.clause(Work)
    mentioned = {unit.text(n) for a in launch.arguments for n in walk(a) if n.type == "identifier"}
    if work is not None:
        remarks += [context.remark(Kind.ANALYSIS, rules.CONSOLIDATE_CLAUSE_UNUSED, work.span, clause=f"work({name})",
                                   why=f"no argument of the launch mentions '{name}'; a work item holds the arguments "
                                       "that vary") for name in work.names if name not in mentioned]
    settings = [c for c in (directive.clause(Buffer), directive.clause(Threads), directive.clause(Blocks)) if c]
    for setting in settings if not first else ():
        remarks.append(context.remark(Kind.ANALYSIS, rules.CONSOLIDATE_CLAUSE_UNUSED, setting.span, clause=setting.name,
                                      why=f"the queues and the consumer of {recursion.names} are configured "
                                          f"at site {recursion.first}, the first of their launches"))
    threads = directive.clause(Threads)
    if first and threads is not None and recursion.as_launched is not None:
        remarks.append(context.remark(Kind.ANALYSIS, rules.CONSOLIDATE_CLAUSE_UNUSED, threads.span, clause=threads.name,
                                      why=f"the consumer's blocks have the items' own block size ({recursion.as_launched}): "
                                          "their threads synchronise, so each block runs as it was launched"))
    threshold = directive.clause(AggThreshold)
    if threshold is not None:
        remarks.append(context.remark(Kind.MISSED, rules.CLAUSE_NOT_SUPPORTED, threshold.span,
                                      construct="'agg_threshold' on a consolidated launch", clause=threshold.name,
                                      outcome="the items are consolidated whatever their number"))
    return remarks


# --- which recursions can be consolidated ------------------------------------------------------------

def _recursion(context: Context, site: Site) -> Recursion:
    """The recursion of the site's launch, looked at once for all its sites: the kernel that launches itself,
    or the kernels whose consolidated launches lead from each to every other."""
    recursions: dict[Node, Recursion] = context.state.setdefault(NAME, {})
    unit = context.unit
    reach = _reach(unit)
    names = {site.parent.name} | {k for k in reach.get(site.parent.name, ()) if site.parent.name in reach.get(k, ())}
    kernels = sorted((f for f in unit.functions if f.is_kernel and f.name in names and f.body is not None),
                     key=lambda f: f.node.start_byte)
    if kernels[0].node not in recursions:
        found = sorted((s for s in unit.sites if s.parent.name in names and s.launch.kernel_name in names
                        and s.directive.clause(Consolidate) is not None), key=lambda s: s.launch.statement.start_byte)
        members, missing = [], None
        for function in kernels:
            launching = [s for s in found if s.launch.kernel_name == function.name]
            child = children.find(context, launching[0]) if launching else None
            if isinstance(child, children.Child):
                members.append(Member(function, child, launching))
            else:
                missing = missing or (function, child)
        recursion = Recursion(members, found, {})
        if any(o.rule in _COOPERATING for m in members for o in m.child.obstacles):
            recursion.as_launched = _common_block_size(unit, recursion)
        if missing is not None:
            function, why = missing
            line = unit.source.line_of(function.node.start_byte)
            recursion.problems = {None: _why_not(rules.CHILD_UNKNOWN, function.name, why.reason if why else
                                                 f"no consolidated launch of '{function.name}'", line)}
        else:
            recursion.problems = _problems(context, recursion)
        if not recursion.problems:
            for member in members:
                member.uniform = _uniform(unit, member) if len(members) == 1 else ()
                member.thread_per_item = recursion.as_launched is None and all(
                    unit.text(s.launch.config[0]) == unit.text(s.launch.config[1]) == "1" for s in member.sites)
                member.guard = _item_guard(unit, recursion, member)
        recursions[kernels[0].node] = recursion
    return recursions[kernels[0].node]


def _problems(context: Context, recursion: Recursion) -> dict[Node | None, Problem]:
    """What stops the whole recursion (key None) or one of its sites."""
    problems: dict[Node | None, Problem] = {}
    whole = _recursion_problem(context, recursion)
    if whole is not None:
        problems[None] = whole
    written = frozenset().union(*(_written_through(context.unit, m.function) for m in recursion.members))
    unconditional: dict[str, set[str]] = {}  # kernel -> the kernels it launches on every path
    for s in recursion.sites:
        if _unconditional(context.unit, s.parent, s.launch.statement):
            unconditional.setdefault(s.parent.name, set()).add(s.launch.kernel_name)
    for site in recursion.sites:
        problem = _site_problem(context, recursion, site, written, unconditional)
        if problem is not None:
            problems[site.launch.statement] = problem
    return problems


def _common_block_size(unit: Unit, recursion: Recursion) -> str | None:
    """The one-dimensional block size every launch of the recursion gives, as the consumer's launch can write
    it: a number or a name that no kernel of the recursion declares (a constant of the file, `kBlock`); None
    when they differ, have more dimensions or are computed."""
    texts = {"".join(unit.text(s.launch.config[1]).split()) for s in recursion.sites if len(s.launch.config) >= 2}
    if len(texts) != 1:
        return None
    block = recursion.sites[0].launch.config[1]
    if block.type == "number_literal":
        threads = _literal_threads(unit, block)
        return str(threads) if threads is not None and threads <= MAX_THREADS else None
    name = unit.text(block)
    local = any(unit.text(n) == name for m in recursion.members for n in walk(m.function.node)
                if n.type == "identifier" and n.parent is not None and n.parent.type in _DECLARING
                and n.parent.child_by_field_name("declarator") == n)  # the name declared, not a size or value
    return name if block.type == "identifier" and not local else None


def _as_launched_keeps(obstacle: serial.Obstacle) -> bool:
    """Whether a kernel with the obstacle still runs as written when its items' blocks run as launched: its
    barriers, shared memory and warp intrinsics see the same threads, and a callee's `threadIdx` and
    `blockDim` are the item's (one-dimensional blocks of the same size)."""
    return obstacle.rule in _COOPERATING or (obstacle.rule is rules.CHILD_HIDDEN_BUILTINS
                                             and obstacle.text in _SAME_AS_LAUNCHED)


def _divergent_return(unit: Unit, function: Function) -> Node | None:
    """A return of the kernel's body that some threads of a block may take and others not: under a condition
    that may differ between its threads, or in a loop some of them go on with (`continue`) or leave (`break`)
    under such a condition before the others reach the return."""
    assert function.body is not None   # a kernel that launches
    divergent = divergence.of_function(unit, function.node)

    def diverges(node: Node, top: Node) -> bool:
        """Whether a condition around `node`, inside `top`, may differ between threads."""
        outer = node.parent
        while outer is not None and outer != top:
            condition = outer.child_by_field_name("condition")
            if outer.type in _CONDITIONAL and condition is not None and divergent.why(unit, condition) is not None:
                return True
            outer = outer.parent
        return False

    for node in walk(function.body):
        if node.type != "return_statement":
            continue
        if diverges(node, function.body):
            return node
        loop = node.parent
        while loop is not None and loop != function.body:
            jumps = (n for n in walk(loop) if n.type in ("continue_statement", "break_statement"))
            if loop.type in LOOPS and any(diverges(jump, loop) for jump in jumps):
                return node
            loop = loop.parent
    return None


def _why_not(rule: Rule, kernel: str, reason: str, line: int) -> Problem:
    """A problem said by a rule whose message is `{reason}{outcome}`, at the consldt clause."""
    return Problem(rule, None, dict(kernel=kernel, reason=reason, outcome=_OUTCOME, line=line), line)


def _recursion_problem(context: Context, recursion: Recursion) -> Problem | None:
    """What stops every site: a kernel's body or signature, or a launch of one that is not consolidated."""
    unit = context.unit
    calls = {s.launch.call for s in recursion.sites}  # the recursion's own launches are no obstacle
    for member in recursion.members:
        function = member.function
        name, line = function.name, unit.source.line_of(function.node.start_byte)
        obstacle = next((o for o in member.child.obstacles if o.rule in _REFUSED and o.node not in calls
                         and not (recursion.as_launched is not None and _as_launched_keeps(o))), None)
        if obstacle is not None:
            reason, at = children.obstacle_reason(unit, obstacle, member.sites[0])
            return _why_not(obstacle.rule, name, reason + _REFUSED[obstacle.rule], at)
        synchronises = any(o.rule is rules.CHILD_BARRIER for o in member.child.obstacles)
        leaving = _divergent_return(unit, function) if recursion.as_launched is not None and synchronises else None
        if leaving is not None:
            at = unit.source.line_of(leaving.start_byte)
            return _why_not(rules.CHILD_BARRIER, name, f"'{name}' synchronises its threads, and the return at line {at} "
                            "may be taken by some threads of a block and not others: a consumer block runs items' "
                            "blocks in a loop, in the same threads, which cannot leave the block as an "
                            "exiting thread leaves its barriers", at)
        if function.template_parameters is not None:
            return _why_not(rules.CHILD_UNSUPPORTED, name, f"'{name}' is a template, whose work queue would be one per "
                            "instantiation (not written by pdcc yet)", line)
        if any(p.name.endswith("...") for p in member.child.parameters):
            return _why_not(rules.CHILD_UNSUPPORTED, name, f"'{name}' has a parameter pack, which a work item cannot "
                            "hold", line)
        declarator = function.parameters.parent if function.parameters is not None else None
        if declarator is not None and required(declarator, "declarator").type != "identifier":
            return _why_not(rules.CHILD_UNSUPPORTED, name, f"'{name}' is defined outside its namespace or class, where "
                            "pdcc cannot add the kernels that run its levels", line)
    consolidated = {s.launch.statement for s in recursion.sites}
    members = {m.function.node for m in recursion.members}
    for member in recursion.members:
        name = member.name
        for launch in unit.device_launches_of(name):
            if launch.statement in consolidated:
                continue
            at = unit.source.line_of(launch.statement.start_byte)
            if launch.enclosing is not None and launch.enclosing.node in members:
                reason = f"the launch of '{name}' at line {at} has no consldt(...), and a recursion is consolidated " \
                         "whole or not at all"
            else:
                caller = launch.enclosing.name if launch.enclosing else "file scope"
                reason = f"'{caller}' launches '{name}' too (line {at}), and two recursions of it would share one " \
                         "work queue"
            return Problem(rules.CONSOLIDATE_REFUSED, None, dict(kernel=name, reason=reason, line=at), at)
    return None


def _site_problem(context: Context, recursion: Recursion, site: Site, written: frozenset[str],
                  unconditional: dict[str, set[str]]) -> Problem | None:
    """What stops one site: a granularity or configuration a work item cannot keep, no base case, post-work."""
    unit, launch, name = context.unit, site.launch, site.launch.kernel_name
    line = unit.source.line_of(launch.statement.start_byte)
    clause = site.directive.clause(Consolidate)
    assert clause is not None   # a consolidated site
    if clause.granularity not in _GROUPS:
        return Problem(rules.CLAUSE_NOT_SUPPORTED, None, dict(construct=f"consolidation per {clause.granularity}",
                       clause=clause.name, outcome="use warp, block or grid; the launches are left as written"), line)
    if len(launch.config) < 2:  # the driver leaves this launch as written (PDCC523), so the others must stay too
        return _why_not(rules.LAUNCH_FORM, name, "the launch gives its grid size alone (`<<<grid>>>`)", line)
    if len(launch.config) > 2:
        return _why_not(rules.CHILD_UNSUPPORTED, name, "the launch names dynamic shared memory or a stream, which a "
                        "work item does not keep", line)
    if len(launch.arguments) > len(recursion.member(name).child.parameters):
        return _why_not(rules.CHILD_UNSUPPORTED, name, f"the launch passes more arguments than '{name}' takes", line)
    if _endless(unconditional, site):
        what = "itself" if name == site.parent.name else f"'{name}', which launches it back the same way,"
        return _why_not(rules.CHILD_RECURSIVE, name, f"'{site.parent.name}' launches {what} at line {line} on every "
                        "path (no condition and no return before it): a recursion without a base case, which "
                        "consolidation would run level after level without end", line)
    post = _post_work(unit, recursion, site, written)
    if post is not None:
        statement, read = post
        return Problem(rules.CONSOLIDATE_POST_WORK, unit.span(statement), dict(kernel=name, name=read, launch_line=line),
                       line)
    return None


def _endless(unconditional: dict[str, set[str]], site: Site) -> bool:
    """Whether every thread that runs the site's kernel makes the launch, and every thread of the launched
    kernel makes launches that lead back the same way: a cycle of unconditional launches never ends."""
    parent, launched = site.parent.name, site.launch.kernel_name
    return launched in unconditional.get(parent, ()) and (launched == parent or parent in _closure(unconditional, launched))


def _unconditional(unit: Unit, function: Function, statement: Node) -> bool:
    """Whether every thread that starts the kernel reaches the launch: no branch or loop around it (a
    pragma between `if (...)` and the launch cuts the if for the parser, not for the compiler), no
    return or goto before it."""
    node = statement.parent
    while node is not None and node != function.body:
        # A do-while runs its body once at least: only a break or continue in it may skip the launch.
        runs_once = node.type == "do_statement" and not any(n.type in ("break_statement", "continue_statement")
                                                             for n in walk(node))
        if node.type in _CONDITIONAL and not runs_once:
            return False
        node = node.parent
    before = statement.prev_named_sibling
    while before is not None and before.type in ("preproc_call", "comment"):
        before = before.prev_named_sibling
    if before is not None and before.type in _CONDITIONAL and before.end_byte > 0:
        body = before.child_by_field_name("consequence") or before.child_by_field_name("body")
        if body is None or body.start_byte == body.end_byte:
            return False
    assert function.body is not None   # a kernel that launches
    return not any(n.type in _EXITS and n.start_byte < statement.start_byte for n in walk(function.body))


def _base(node: Node | None) -> str | None:
    """The variable an address is formed from: `depth` in `depth[c]`, `&depth[c]`, `p->x`, `*(q + 1)`."""
    while node is not None and node.type != "identifier":
        if node.type in _ADDRESSING:
            node = node.child_by_field_name("argument") or node.child_by_field_name("value") or node.named_child(0)
        elif node.type == "binary_expression":
            node = node.child_by_field_name("left")
        else:
            return None
    return node.text.decode() if node is not None and node.text is not None else None


def _written_through(unit: Unit, function: Function) -> frozenset[str]:
    """The variables through which the kernel writes memory (`depth[c] = ...`, `*p += 1`, `atomicAdd(&n[i], 1)`,
    `fill(depth, n)` where a device function of the file or its headers writes through that parameter): what a
    grid it launches may write, seen from the launching thread. Not its numbers (`int lo; bounds(&lo)`): each
    thread's own. (A callee's writes through its own locals, or in a function pdcc cannot read, are not seen.)"""
    types = ctype.declared_types(unit, function.node)
    return frozenset(n for n in _writes_through(unit, unit, function) if not writes.arithmetic(types.get(n)))


def _writes_through(unit: Unit, owner: Unit, function: Function) -> frozenset[str]:
    """_written_through of `function`, defined in `owner` (the kernel's unit or a header's), numbers included, and
    its reference parameters it assigns (`int& x ... x = v`); computed once per function (a recursion of
    helpers sees nothing more of a function it is already inside)."""
    memo: dict[Node, frozenset[str]] = unit.analysis(_memo, "writes")
    if function.node not in memo:
        memo[function.node] = frozenset()   # entered: a call back into it adds nothing
        memo[function.node] = _writes_of(unit, owner, function)
    return memo[function.node]


def _memo(unit: Unit, kind: str) -> dict:
    """A table kept with the unit, filled by the analysis named `kind` as it goes."""
    return {}


def _writes_of(unit: Unit, owner: Unit, function: Function) -> frozenset[str]:
    assert function.body is not None   # a kernel that launches, or a callee with a body
    parameters = children.parameters(owner, function) or []
    references = {p.name for p in parameters if "&" in p.declaration}
    names = set()
    for node in walk(function.body):
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "call_expression" and kernel_call_syntax(node) is None:
            callee = called_name(owner, node)
            passed = _arguments(node)
            if callee is not None and callee.startswith("atomic"):
                names.add(_base(passed[0] if passed else None) or "")
                continue
            for callee_unit, definition, its_parameters in _device_callees(unit, callee):
                inner = _writes_through(unit, callee_unit, definition)
                names.update(_base(a) or "" for p, a in zip(its_parameters, passed) if p.name in inner)
        if target is not None and (target.type != "identifier" or owner.text(target) in references):
            names.add(_base(target) or "")
    return frozenset(names - {""})


def _arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return arguments.named_children if arguments is not None else []


def _device_callees(unit: Unit, callee: str | None) -> list[tuple[Unit, Function, list[ir.Parameter]]]:
    """The functions of the file and its headers a call of `callee` (its plain name) from device code may reach
    (headers.bodies), with the unit each is in and its parameters (none whose parameter list pdcc cannot
    read)."""
    found = []
    for owner, definition in headers.bodies(unit, callee) if callee is not None else ():
        parameters = children.parameters(owner, definition)
        if parameters is not None:
            found.append((owner, definition, parameters))
    return found


def _post_work(unit: Unit, recursion: Recursion, site: Site, written: frozenset[str]) -> tuple[Node, str] | None:
    """The first statement that may run after the site's launch in the launching thread (after it in its
    blocks, or anywhere in a loop around it) and reads a variable the kernel writes through, and the name."""
    launches = {s.launch.statement for s in recursion.sites}
    written = _seen_by_the_parent(unit, recursion, site, written)
    node = site.launch.statement
    while node != site.parent.body and node.parent is not None:
        parent = node.parent
        if parent.type in LOOPS:
            later = [parent]
        elif parent.type == "compound_statement":
            later = [s for s in parent.named_children if s.start_byte >= node.end_byte]
        else:
            later = []
        for statement in later:
            read = _first_read(unit, statement, written, launches)
            if read is not None:
                return read
        node = parent
    return None


def _seen_by_the_parent(unit: Unit, recursion: Recursion, site: Site, written: frozenset[str]) -> frozenset[str]:
    """The parent's names for what the launched grids write: the address each argument is formed from for
    a parameter the kernel writes through (`flip<<<...>>>(b, a + i)` where the child writes its `a`: the
    parent's `b`), and the parent's variables that address the same memory (`const int* d = depth`,
    `auto d = depth + 1`, `d = depth`; not numbers computed from them)."""
    parameters = recursion.member(site.launch.kernel_name).child.parameters
    names = set(written)
    for parameter, argument in zip(parameters, site.launch.arguments):
        base = _base(argument)
        if parameter.name in written and base is not None:
            names.add(base)
    assert site.parent.body is not None   # a kernel that launches
    types = ctype.declared_types(unit, site.parent.node)
    aliases = []   # (alias, the variable its address is formed from)
    for node in walk(site.parent.body):
        if node.type == "init_declarator" and node.child_by_field_name("value") is not None:
            alias, value = declared_name(required(node, "declarator")), required(node, "value")
        elif node.type == "assignment_expression" and required(node, "left").type == "identifier":
            alias, value = required(node, "left"), required(node, "right")
        else:
            continue
        base = _base(value)
        if alias is not None and base is not None and not writes.arithmetic(types.get(unit.text(alias))):
            aliases.append((unit.text(alias), base))
    for _ in range(len(aliases)):   # an alias of an alias: one more round each
        grown = {alias for alias, base in aliases if alias not in names and base in names}
        if not grown:
            break
        names |= grown
    return frozenset(names)


def _first_read(unit: Unit, statement: Node, written: frozenset[str], skipped: set[Node]) -> tuple[Node, str] | None:
    """The innermost statement of `statement` that reads a name of `written` (not only writing through it),
    outside the `skipped` statements (the recursive launches), and the name."""
    for node in walk(statement):
        if node.type != "identifier" or unit.text(node) not in written or _only_written_through(unit, unit, node):
            continue
        inner: Node | None = node
        while inner is not None and not (inner.type.endswith("statement") or inner.type == "declaration"):
            inner = inner.parent
        if inner is not None and not any(s.start_byte <= node.start_byte < s.end_byte for s in skipped):
            return inner, unit.text(node)
    return None


def _only_written_through(unit: Unit, owner: Unit, identifier: Node) -> bool:
    """Whether this use of a name (in `owner`, the kernel's unit or a header's) reads nothing through it: it
    addresses what a plain assignment stores (_stored_through), what an atomic whose result is discarded
    updates (`atomicAdd(&n[0], 1);`, `(void)atomicAdd(n + i, 1);`: it observes no value), or what a device
    function of the file or its headers only writes so through that parameter (`count_failure(n);`)."""
    if _stored_through(owner, identifier):
        return True
    argument = _argument_of(identifier)
    if argument is None:
        return False
    call, index = argument
    callee = called_name(owner, call)
    if callee is not None and callee.startswith("atomic"):
        return index == 0 and _discarded(call)
    callees = _device_callees(unit, callee)
    return bool(callees) and all(_parameter_only_written(unit, callee_unit, definition, parameters, index)
                                 for callee_unit, definition, parameters in callees)


def _parameter_only_written(unit: Unit, owner: Unit, function: Function, parameters: list[ir.Parameter],
                            index: int) -> bool:
    """Whether `function` (in `owner`) only writes through its parameter `index` (_only_written_through of
    each use); computed once per function and parameter (inside a recursion of helpers: no)."""
    memo: dict[tuple[Node, int], bool] = unit.analysis(_memo, "only-written")
    key = (function.node, index)
    if key not in memo:
        memo[key] = False   # entered: a call back into it reads, as far as this answer goes
        name = parameters[index].name if index < len(parameters) else None
        memo[key] = name is not None and all(
            _only_written_through(unit, owner, use) for use in walk(required(function.node, "body"))
            if use.type == "identifier" and owner.text(use) == name)
    return memo[key]


def _argument_of(identifier: Node) -> tuple[Node, int] | None:
    """The call (not a launch) whose argument an identifier is, or forms the address of (`f(p)`, `f(&p[i])`,
    `f(p + i)`), and which argument."""
    child, parent = _address_of(identifier, offsets=True)
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    if parent is None or call is None or call.type != "call_expression" or kernel_call_syntax(call) is not None:
        return None
    return call, parent.named_children.index(child)


def _address_of(identifier: Node, offsets: bool = False) -> tuple[Node, Node | None]:
    """The outermost expression that only forms an address from a name (`p[i]`, `p->x`, `*p`, `&p[i]`; with
    `offsets`, `p + i` too), and what it is part of."""
    child, parent = identifier, identifier.parent
    while parent is not None and (
            parent.type in _ADDRESSING and parent.child_by_field_name("argument") == child or
            offsets and parent.type == "binary_expression" and parent.child_by_field_name("left") == child
            and node_text(required(parent, "operator")) in ("+", "-")):
        child, parent = parent, parent.parent
    return child, parent


def _discarded(call: Node) -> bool:
    """Whether a call's value goes unused: its statement is the call, maybe cast to void (`(void)f(x);`)."""
    node = call.parent
    while node is not None and node.type in ("parenthesized_expression", "cast_expression"):
        node = node.parent
    return node is not None and node.type == "expression_statement"


def _stored_through(unit: Unit, identifier: Node) -> bool:
    """`depth[c] = v`, `p->x = v`, `*p = v`, `p = q`: the name only addresses (or is) what a plain assignment
    stores, and reads nothing."""
    child, parent = _address_of(identifier)
    return parent is not None and parent.type == "assignment_expression" \
        and parent.child_by_field_name("left") == child and unit.text(required(parent, "operator")) == "="


def _uniform(unit: Unit, member: Member) -> tuple[int, ...]:
    """Parameters that every site passes on as they are (and the kernel never gives another value): the
    same for every item of every level, so they travel once, as arguments of the consumer, not in each item."""
    assigned = _rebound(unit, member.function)
    uniform = []
    for index, parameter in enumerate(member.child.parameters):
        if parameter.name in assigned:
            continue
        passed_on = True
        for site in member.sites:
            work = site.directive.clause(Work)
            arguments = site.launch.arguments
            passed_on = passed_on and index < len(arguments) and unit.text(arguments[index]) == parameter.name \
                and (work is None or parameter.name not in work.names)
        if passed_on:
            uniform.append(index)
    return tuple(uniform)


def _rebound(unit: Unit, function: Function) -> frozenset[str]:
    """Variables the kernel may give another value (not what they point at, which `depth[c] = 1` changes):
    assigned or incremented themselves, their address taken, bound to a reference, passed to a function
    other than an atomic (which takes pointers by value, but another may take a reference), declared again."""
    assert function.body is not None   # a kernel that launches
    names = set()
    for node in walk(function.body):
        targets: list[Node | None] = []
        if node.type == "assignment_expression":
            targets = [node.child_by_field_name("left")]
        elif node.type in ("update_expression", "pointer_expression") and not unit.text(node).startswith("*"):
            targets = [node.child_by_field_name("argument")]
        elif node.type == "init_declarator" and any(n.type == "reference_declarator" for n in walk(required(node, "declarator"))):
            targets = [node.child_by_field_name("value")]
        elif node.type == "call_expression" and kernel_call_syntax(node) is None:
            arguments = node.child_by_field_name("arguments")
            targets = [a for i, a in enumerate(arguments.named_children if arguments is not None else ())
                       if _by_reference(unit, node, i)]
        elif node.type == "declaration":  # a local of the same name hides the parameter from there on
            targets = [next((n for n in walk(d) if n.type == "identifier"), None)
                       for d in node.children_by_field_name("declarator")]
        for target in targets:
            while target is not None and target.type == "parenthesized_expression":
                target = target.named_child(0)
            if target is not None and target.type == "identifier":
                names.add(unit.text(target))
    return frozenset(names)


def _by_reference(unit: Unit, call: Node, index: int) -> bool:
    """Whether a call may take its argument `index` by reference. Not an atomic (pointers by value), nor a
    call by name (`f(x)`, `ns::f(x)`) of the one function of that name and namespace in the file or its
    headers whose parameter is no reference. Anything else may: a method, a call with explicit template
    arguments (`f<int&>(x)`), overloads, a function pdcc cannot read."""
    function = required(call, "function")
    callee = node_text(launched_identifier(function))
    if callee.startswith("atomic"):
        return False
    if function.type not in ("identifier", "qualified_identifier") or \
            any(n.type == "template_function" for n in walk(function)):
        return True
    called = "".join(unit.text(function).split()).lstrip(":")
    reached = [(owner, f) for owner, f in headers.definitions(unit, callee)
               if (scoped := scoped_name(owner, f)) is not None and (scoped == called or scoped.endswith("::" + called))]
    parameters = children.parameters(*reached[0]) if len(reached) == 1 else None
    return parameters is None or index >= len(parameters) or "&" in parameters[index].declaration


# --- what a consolidated kernel becomes -----------------------------------------------------------------

def _build(context: Context, recursion: Recursion) -> None:
    """Once every site is planned: for each kernel of the recursion its queue, its body outlined in place,
    the body's copy for the consumer, `walk__pdcc_direct` (one item) and `walk` (level 0, as the program
    launches it); then `walk__pdcc_level`, the consumer of a level's items of every kernel. What the kernels'
    bodies refer to (queues, prototypes) is placed before the first of them."""
    lead, s = recursion.lead, recursion.first
    granularity = recursion.sites[0].directive.clause(Consolidate)
    assert granularity is not None   # a consolidated site
    once = [ir.name(lead.child.parameters[i].name) for i in lead.uniform]  # mutual recursions pass none once
    threads = templates.expression(recursion.as_launched or f"PDCC_THREADS_{s}")
    done = functools.partial(templates.statement, _LEVEL_DONE, queue=lead.queue, threads=threads,
                             blocks=ir.name(f"PDCC_BLOCKS_{s}"), consumer=ir.name(lead.symbol("level")), once=once,
                             others=[m.queue for m in recursion.members[1:]])
    runs = tuple(templates.statement(_RUN_LEVEL_PACKED if m.guard else _RUN_LEVEL, queue=m.queue,
                                     item=ir.name(m.symbol("item")), once=once) for m in recursion.members)
    per_item = {"a thread per item" if m.thread_per_item else "several items' live threads per block" if m.guard
                else "a block per item" for m in recursion.members}
    if recursion.as_launched is not None:
        per_item = {f"each block of an item as launched ({recursion.as_launched} threads) in a block per item"}
    consumer = ir.Function("static __global__", lead.symbol("level"),
                           ("pdcc::Level pdcc_level", *(lead.child.parameters[i].declaration for i in lead.uniform)),
                           templates.block(_CONSUMER, runs=runs, queue=lead.queue, threads=threads,
                                           blocks=ir.name(f"PDCC_BLOCKS_{s}"), consumer=ir.name(lead.symbol("level")),
                                           once=once, others=[m.queue for m in recursion.members[1:]]),
                           "", f"the consumer of {recursion.names}: the items appended at the level before, "
                           f"{' or '.join(sorted(per_item))}, level after level while they are few "
                           "(pdcc_rt.cuh)", f"__launch_bounds__({MAX_THREADS})")
    if len(recursion.members) > 1:
        context.place_before(lead.function, ir.Prototype(consumer))
    for member in recursion.members:
        _build_member(context, recursion, member, granularity.granularity, done,
                      consumer if member is recursion.members[-1] else None)


def _build_member(context: Context, recursion: Recursion, member: Member, granularity: str, done,
                  consumer: ir.Function | None) -> None:
    """One kernel's queue, direct kernel, copies and wrapper (and the consumer, after the last kernel)."""
    unit, function, lead, s = context.unit, member.function, recursion.lead, recursion.first
    parameters = children.parameters(unit, function) or []
    names = [ir.name(p.name) for p in parameters]
    record = "pdcc::Record<" + ", ".join("pdcc::Uniform" if i in member.uniform else ir.parameter_type(p)
                                          for i, p in enumerate(parameters)) + ">"
    context.place_before(lead.function, ir.Variable(
        "static __device__", f"pdcc::WorkQueue<{record}, PDCC_POOL_BYTES_{s}, {_GROUPS[granularity]}, "
        f"PDCC_BUFFER_{s}, {'true' if member.thread_per_item else 'false'}"
        f"{', true' if recursion.as_launched is not None else ''}"
        f"{', false, true' if member.guard else ''}>", f"pdcc_queue_{function.name}",
        f"the work items of '{function.name}', two levels of them (pdcc_rt.cuh)"))
    declarations = tuple(p.declaration for p in parameters)
    bounds = launch_bounds(context, member.child)  # the kernel's own, else every block size
    direct = ir.Function("static __global__", member.symbol("direct"), ("const pdcc::Level pdcc_level", *declarations),
                         templates.block(_DIRECT, item=ir.name(member.symbol("item")), arguments=names), "",
                         f"one work item of '{function.name}' that did not fit its level's queue, as a grid of its own",
                         bounds)
    context.place_before(lead.function, ir.Prototype(direct))
    children.outline_in_place(context, function, member.symbol("body"))
    linkage = 'extern "C" ' if function.outer.type == "linkage_specification" else ""
    is_static = any(unit.text(n) == "static" for n in function.node.children if n.type == "storage_class_specifier")
    wrapper = ir.Function(f"{linkage}{'static ' if is_static else ''}__global__", function.name,
                          tuple(p.declaration + (f" = {p.default}" if p.default is not None else "") for p in parameters),
                          templates.block(_WRAPPER, body=ir.ExprStmt(ir.call(member.symbol("body"), *names)),
                                          done=done(level=templates.expression(_FIRST_LEVEL, queue=lead.queue))),
                          "", f"'{function.name}' as launched: level 0 of the recursion, then the levels its items make",
                          bounds)
    item = _copy(context, recursion, member, "item", recursion.copies, "appending at its level")
    live: tuple[ir.Function, ...] = ()
    if member.guard is not None:  # the appends, in every member's body, count the threads it lets through
        live = (_live(context, member, member.guard),)
        context.place_before(lead.function, ir.Prototype(live[0]))
    definitions: tuple[ir.Definition, ...] = (item, *live, direct, *((consumer,) if consumer else ()), wrapper)
    if member.serial:
        leaf = _copy(context, recursion, member, "leaf", recursion.leaves, "run in the launching thread (a small "
                     "item), appending every launch at its level")
        serial = ir.Function("static __device__ __noinline__", member.symbol("serial"),
                             ("const pdcc::Level pdcc_level", "const dim3 pdcc_gridDim", "const dim3 pdcc_blockDim",
                              *declarations),
                             templates.block(SERIAL_LOOPS, thread=ir.ExprStmt(ir.call(
                                 member.symbol("leaf"), ir.name("pdcc_level"),
                                 ir.call("make_uint3", *map(ir.name, ("pdcc_bx", "pdcc_by", "pdcc_bz"))),
                                 ir.call("make_uint3", *map(ir.name, ("pdcc_tx", "pdcc_ty", "pdcc_tz"))),
                                 ir.name("pdcc_gridDim"), ir.name("pdcc_blockDim"), *names))), "",
                             f"every thread of a small item of '{function.name}', one after another, in the thread "
                             "that would have appended it")
        context.place_before(lead.function, ir.Prototype(serial))
        definitions = (leaf, serial, *definitions)
    for definition in definitions:
        context.place_after(function, definition)


def _copy(context: Context, recursion: Recursion, member: Member, suffix: str, sites_code: dict[Node, ir.Stmt],
          purpose: str) -> ir.Function:
    """`walk__pdcc_item` (or `walk__pdcc_leaf`): the body again, for one (block, thread) of an item. Its
    parameters are named as the built-ins, so the user's code (and the sites' code `sites_code`, rewritten
    as in place but appending at the item's level) reads the item's indices, not the consumer's."""
    unit, function = context.unit, member.function
    body = function.body
    assert body is not None   # a kernel that launches
    renames = children.commented_pragmas(unit, body)
    for statement, code in sites_code.items():
        if body.start_byte <= statement.start_byte < body.end_byte:
            start, end, indent = _lines(unit, statement)
            renames.append((start, end, printer.text(code, indent)))
    parameters = children.parameters(unit, function) or []
    return ir.Function("static __device__", member.symbol(suffix),
                       ("const pdcc::Level pdcc_level", "const uint3 blockIdx", "const uint3 threadIdx",
                        "const dim3 gridDim", "const dim3 blockDim", *(p.declaration for p in parameters)),
                       ir.Verbatim(Span(body.start_byte, body.end_byte), unit.text(body), tuple(sorted(renames))),
                       "", f"the body of '{function.name}' for one (block, thread) of a work item, {purpose}")


def _item_guard(unit: Unit, recursion: Recursion, member: Member) -> thread_guard.ItemGuard | None:
    """The guard of a kernel whose items consumer blocks run packed (not a thread, or a block as launched,
    per item): the threads it turns away need not run at all."""
    if member.thread_per_item or recursion.as_launched is not None or member.function.body is None:
        return None
    return thread_guard.item_guard(unit, member.function.body, tuple(children.parameters(unit, member.function) or ()))


_LIVE = """const auto pdcc_bound = {bound};
pdcc_threads = pdcc::threads_before(pdcc_threads, [&]({index_type} {index}) {{ return {test}; }});
"""


def _live(context: Context, member: Member, guard: thread_guard.ItemGuard) -> ir.Function:
    """`walk__pdcc_live(threads, arguments...)`: the body's declarations before its guard and the guard's
    bound, evaluated once, leave in `threads` the threads of the item that get past the guard
    (pdcc::threads_before bisects with the guard's own comparison)."""
    unit, body = context.unit, member.function.body
    assert body is not None   # a kernel that launches
    index_start, index_end, _ = _lines(unit, next(n for n in body.named_children if n.type != "comment"))
    start, end, indent = _lines(unit, guard.statement)
    bound = guard.bound.start_byte - guard.test.start_byte
    test = unit.text(guard.test)
    test = test[:bound] + "pdcc_bound" + test[bound + len(unit.text(guard.bound)):]
    code = "".join(f"{indent}{line}\n" for line in _LIVE.format(
        bound=unit.text(guard.bound), index_type=guard.index_type, index=guard.index, test=test).splitlines())
    closing = body.end_byte - 1
    rest_end = unit.source.line_start(closing) if unit.text(body)[:-1].rstrip(" \t").endswith("\n") else closing
    renames = ((index_start, index_end, ""), (start, end, code), (end, max(end, rest_end), ""))
    return ir.Function("static __device__", member.symbol("live"),
                       ("unsigned long long& pdcc_threads", *(p.declaration for p in
                                                               children.parameters(unit, member.function) or [])),
                       ir.Verbatim(Span(body.start_byte, body.end_byte), unit.text(body), renames), "",
                       f"the threads of an item of '{member.name}' that get past its guard at line "
                       f"{unit.source.line_of(guard.test.start_byte)}, counted at the append: only those run")


def _lines(unit: Unit, statement: Node) -> tuple[int, int, str]:
    """The bytes a site's code replaces (its lines, when the statement has them to itself) and its indentation,
    as the driver replaces the statement in place."""
    data, source = unit.source.data, unit.source
    start, end = statement.start_byte, statement.end_byte
    line_start = source.line_start(start)
    indent = data[line_start:start].decode()
    if indent.strip() == "":
        start = line_start
    else:
        indent = ""
    newline = data.find(b"\n", end)
    if newline >= 0 and data[end:newline].strip() == b"":
        end = newline + 1
    return start, end, indent.replace("\t", "    ")
