"""Control-flow melding (seed 004, DARM) at source level: `#pragma meld [threshold(X)]` before an if/else.

When the threads of a warp disagree on a branch, the warp runs both sides one after the other. If the
two sides do similar work, melding runs that work once for all threads:

    #pragma meld                                   {  // pdcc: meld site sort_0: ...
    if ((tid & k) == 0) {                            const bool pdcc_then = (tid & k) == 0;
      if (s[tid] > s[ixj]) swap(s, tid, ixj);        if (pdcc_then ? s[tid] > s[ixj] : s[tid] < s[ixj])
    } else {                                           swap(s, tid, ixj);
      if (s[tid] < s[ixj]) swap(s, tid, ixj);      }
    }

The two sides' statements are aligned with Smith-Waterman, each pair scored by what melding it saves
(DARM's costs, `analysis.alignment`); nested `if`s and loops meld when their shapes match, and a
statement may meld into a nested `if` of the other side (region replication: that `if` is made to take
the melded path for the other side's threads). Operands that differ become selects on the condition,
evaluated once into a named temporary where that cannot change what is evaluated when; loads and stores
meld by selecting the address, never by evaluating both sides; calls meld only with the same callee.
Declarations are hoisted to the top of the melded block (renamed where the other side uses the name);
statements left unaligned stay guarded, `if (pdcc_then) {...}` / `if (!pdcc_then) {...}`. A select is
only made between operands of provably equal types (`analysis.ctype`): a C select converts both to a
common type. The site melds when the profitability (saved latency over the latency of both sides, at
most 0.5) reaches the threshold, default 0.2 (knob `PDCC_MELD_THRESHOLD_<site>`, read by pdcc).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import alignment, ctype, divergence, serial, writes
from pragmadp.analysis.alignment import cost
from pragmadp.cuda import lift
from pragmadp.cuda.frontend import Function, Node, Unit, declared_names, enclosing_function, local_bindings, walk
from pragmadp.directives import Directive, MeldThreshold, Value
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark, Rule, excerpt
from pragmadp.source import Span
from pragmadp.transforms.base import Applied, Context, Missed
from pragmadp.transforms.melding import PDCC_PRAGMA, Melder, Refused, is_memory

NAME = "meld"
CLAUSE = MeldThreshold
RULES = (rules.MELD_APPLIED, rules.MELD_ALIGNMENT, rules.MELD_UNPROFITABLE, rules.MELD_UNIFORM, rules.MELD_TOO_SHORT,
         rules.MELD_BARRIER,
         rules.MELD_WARP, rules.MELD_COOPERATIVE, rules.MELD_JUMP, rules.MELD_ATOMIC, rules.MELD_ADDRESS_SPACE,
         rules.MELD_UNSUPPORTED)
DEFAULT_THRESHOLD = 0.2
MIN_TRIPS = 256         # a counted meld's loop runs melded from this many trips (PDCC_MELD_MIN_TRIPS_<site>)
SHORT_COST = 40         # a side this cheap in DARM cycles, all arithmetic, is not worth melding
_PAIRS_SHOWN = 6        # the alignment remark names this many pairs, then counts the rest

_BARRIERS = {"__syncthreads", "__syncwarp", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
             "__barrier_sync", "__threadfence_block"}
_WARP = re.compile(r"^__(shfl|ballot|any|all|activemask|match|reduce|vote)")
# What a called device function (of the file or a header) may do that melding its calls would change: the
# rule of the refusal and why.
_CALLEE_REFUSALS = {
    rules.CHILD_BARRIER: (rules.MELD_BARRIER, "synchronises threads, and melding would change which threads reach "
                                              "the barrier together"),
    rules.CHILD_WARP: (rules.MELD_WARP, "exchanges values between the lanes that run it together"),
    rules.CHILD_COOPERATIVE: (rules.MELD_COOPERATIVE, "uses cooperative groups"),
    rules.CHILD_ASM: (rules.MELD_UNSUPPORTED, "holds inline assembly, which pdcc cannot see into"),
    rules.CHILD_UNSEEN: (rules.MELD_UNSUPPORTED, "is or calls a device function of another translation unit, "
                                                 "which pdcc cannot see into"),
}
_COOPERATIVE = re.compile(r"cooperative_groups|\bcg::|this_thread_block|tiled_partition|this_grid|coalesced_threads")
_LOOPS = ("for_statement", "while_statement", "do_statement", "for_range_loop")
SITE_COMMENT = re.compile(r"// meld site \w+: profitability ")   # the comment opening a melded block (plan)


@dataclass(frozen=True)
class MeldSite:
    """A `#pragma meld` bound to its if statement."""

    directive: Directive
    statement: Node          # the if_statement
    function: Function
    name: str                # e.g. sort_0: the suffix of the site's knob

    @property
    def macro(self) -> str:
        return f"PDCC_MELD_THRESHOLD_{self.name}"

    @property
    def min_trips(self) -> str:
        return f"PDCC_MELD_MIN_TRIPS_{self.name}"


def plan(site: MeldSite, context: Context) -> Applied | Missed:
    """The melded block for the site's if/else, or why it stays as written."""
    unit = context.unit
    refused = _refusal(unit, site.statement)
    if refused is not None:
        rule, node, reason = refused
        return Missed((_remark(context, site, Kind.MISSED, rule, unit.span(node), reason=reason,
                                outcome="; the if/else is left as written"),))
    condition = site.statement.child_by_field_name("condition")
    assert condition is not None   # an if_statement has one
    why = unit.analysis(divergence.of_function, site.function.node).why(unit, condition)
    if why is None:
        return Missed((_remark(context, site, Kind.ANALYSIS, rules.MELD_UNIFORM, unit.span(condition),
                               condition=excerpt(unit.text(condition).strip("() ")),
                               why="it reads only parameters, constants and block-wide values"),))
    lifted = lift.statement(unit, site.statement, trees=True)
    if not isinstance(lifted, ir.If):
        return Missed((_remark(context, site, Kind.MISSED, rules.MELD_UNSUPPORTED, unit.span(condition),
                               reason="the condition declares a variable, which pdcc does not meld",
                               outcome="; the if/else is left as written"),))
    short_sides = _too_short(lifted)
    if short_sides is not None:
        return Missed((_remark(context, site, Kind.MISSED, rules.MELD_TOO_SHORT, unit.span(condition),
                               then_cost=short_sides[0], else_cost=short_sides[1]),))
    melder = Melder(unit.analysis(ctype.of_function, site.function.node), _names(unit, site.function),
                    unit.analysis(writes.stable_names, site.function.node), site.min_trips)
    try:
        melded = melder.region(lifted)
    except Refused as refusal:
        return Missed((_remark(context, site, Kind.MISSED, refusal.rule, unit.span(site.statement),
                               reason=refusal.reason, outcome="; the if/else is left as written"),))
    threshold = _threshold(site, context)
    total = cost(lifted.then) + cost(lifted.orelse)
    score = melded.stats.saved / total if total else 0.0
    span = Span(site.statement.start_byte, site.statement.start_byte + 2)
    shown = melded.stats.pairs[:_PAIRS_SHOWN]
    more = len(melded.stats.pairs) - len(shown)
    pairs = "; ".join(shown) + (f"; and {more} more" if more > 0 else "") if shown else "no statements"
    alignment_remark = _remark(context, site, Kind.ANALYSIS, rules.MELD_ALIGNMENT, span, pairs=pairs)
    knob = ir.Knob(site.macro, _format(threshold), "meld_threshold", (0, 1))
    if score < threshold or not melded.stats.aligned:
        why_not = "" if melded.stats.aligned else ": no statements of the two sides can be melded"
        if melder.uncounted_loop:
            why_not = ": the two loops step or test differently and are not both counted loops with trip " \
                      "counts pdcc can write, so the melded loop would not be a counted loop nvcc unrolls, and " \
                      "its memory accesses save nothing"
        if melder.blocked and not melded.stats.aligned:
            return Missed((_remark(context, site, Kind.MISSED, rules.MELD_ADDRESS_SPACE, span,
                                   reason=melder.blocked, outcome="; the if/else is left as written"),))
        return Missed((alignment_remark, _remark(context, site, Kind.MISSED, rules.MELD_UNPROFITABLE, span,
                                                 score=f"{score:.2f}", macro=site.macro,
                                                 threshold=_format(threshold), why=why_not)))
    stats = melded.stats
    applied = _remark(context, site, Kind.APPLIED, rules.MELD_APPLIED, span, aligned=stats.aligned,
                      statements=stats.statements, score=f"{score:.2f}", macro=site.macro,
                      threshold=_format(threshold), selects=stats.selects, guarded=stats.guarded)
    summary = f"meld site {site.name}: profitability {score:.2f}, {stats.aligned} of {stats.statements} " \
              f"statements melded, {stats.selects} selects"
    knobs: tuple[ir.Knob, ...] = (knob,)
    if melder.versioned:
        knobs += (context.knob(site.function, ir.Knob(site.min_trips, str(MIN_TRIPS), "meld_min_trips", (0, 1 << 31))),)
    return Applied(dataclasses.replace(melded.code, comment=summary), "melded", knobs, (applied, alignment_remark))


def _too_short(statement: ir.If) -> tuple[int, int] | None:
    """The two sides' costs when both are short arithmetic: no memory access, loop or call, at most
    SHORT_COST each. The DCT quantisation diamond melded by hand ran 32 lanes per instruction instead of 21
    and 38% fewer instructions, in the same time on the H200: the loads and stores around it decide."""
    costs = []
    for side in (statement.then, statement.orelse):
        nodes = list(ir.walk(side))
        if any(isinstance(n, (ir.For, ir.Verbatim, c_ast.FuncCall)) or is_memory(n) for n in nodes):
            return None
        costs.append(cost(side))
    return (costs[0], costs[1]) if max(costs) <= SHORT_COST else None


def _threshold(site: MeldSite, context: Context) -> float:
    """The site's knob from -D if given, else the pragma's value (a macro name given with -D), else 0.2:
    pdcc decides at transform time, so it reads the knob itself."""
    clause = site.directive.clause(MeldThreshold)
    written = clause.value if clause is not None else None
    for name in (site.macro, written.text if written is not None and written.is_macro else None):
        if name is not None and name in context.defines:
            value = Value(context.defines[name], written.span if written is not None else
                          Span(site.statement.start_byte, site.statement.start_byte + 2))
            number = value.number()
            if number is None or not 0 <= number <= 1:
                raise context.source.error(rules.BAD_VALUE, value.span, "knob-not-a-fraction", macro=name,
                                           value=value.text)
            return float(number)
    if written is not None and written.is_macro:
        raise context.source.error(rules.BAD_VALUE, written.span, "fraction-macro-undefined", value=written.text)
    number = written.number() if written is not None else None
    return float(number) if number is not None else DEFAULT_THRESHOLD


def _format(value: float) -> str:
    return f"{value:g}"


def _remark(context: Context, site: MeldSite, kind: Kind, rule: Rule, span: Span, **args) -> Remark:
    return context.source.remark(kind, rule, rule.render(args), span, pass_name=NAME, function=site.function.name,
                                 site=site.name, args=args)


# --- what melding refuses ---------------------------------------------------------------------------

def _refusal(unit: Unit, statement: Node) -> tuple[Rule, Node, str] | None:
    """The first construct in the if statement that melding must not touch, with why."""
    for node in walk(statement):
        kind = node.type
        if kind == "call_expression":
            refused = _call_refusal(unit, node)
            if refused is not None:
                return refused
        if kind in ("identifier", "namespace_identifier", "type_identifier", "qualified_identifier") and \
                _COOPERATIVE.search(unit.text(node)):
            return rules.MELD_COOPERATIVE, node, f"'{unit.text(node)}' is a cooperative group"
        if kind in ("identifier", "type_identifier"):   # a macro for a barrier (`SYNC()`, `BARRIER;`) or `__shared__`
            refused = _macro_refusal(unit, node)
            if refused is not None:
                return refused
        if kind in ("return_statement", "goto_statement") or \
                kind == "break_statement" and not _inside(node, statement, _LOOPS + ("switch_statement",)) or \
                kind == "continue_statement" and not _inside(node, statement, _LOOPS):
            word = kind.split("_")[0]
            return rules.MELD_JUMP, node, f"'{word}' leaves the branch, so the two sides do not end together"
        if kind == "kernel_call_syntax":
            return rules.MELD_UNSUPPORTED, node, "a kernel launch inside the branch is left to '#pragma dp'"
        if kind in ("gnu_asm_expression", "labeled_statement", "throw_statement"):
            return rules.MELD_UNSUPPORTED, node, f"pdcc does not move or guard {kind.replace('_', ' ')}s"
        if kind == "declaration" and re.search(r"\b(__shared__|static|extern)\b", unit.text(node).split("=")[0]):
            return rules.MELD_UNSUPPORTED, node, "a static or shared declaration cannot move to the melded block"
        inside_directive = node.parent is not None and node.parent.type.startswith("preproc_")
        if kind.startswith("preproc_") and not inside_directive and \
                not (kind == "preproc_call" and PDCC_PRAGMA.match(unit.text(node))):
            return rules.MELD_UNSUPPORTED, node, "a preprocessor directive inside the branch would apply to " \
                                                 "code pdcc moves"
        if kind == "reference_declarator":
            return rules.MELD_UNSUPPORTED, node, "a reference cannot be declared before it is bound"
    sides = [_side_accesses(unit, side) for side in _sides(statement)]
    if len(sides) == 2 and sides[0] != sides[1]:
        only = sorted((sides[0] | sides[1]) - (sides[0] & sides[1]))
        return rules.MELD_ATOMIC, statement, f"{', '.join(only)} appears on one side only: an atomic or volatile " \
                                             "access must not be merged with a plain one"
    return None


def _macro_refusal(unit: Unit, node: Node) -> tuple[Rule, Node, str] | None:
    """Why melding must not touch a macro's use: what it stands for would be refused written out."""
    name = unit.text(node)
    for obstacle in serial.macro_obstacles(unit, name):
        if obstacle.rule is rules.CHILD_SHARED:
            return rules.MELD_UNSUPPORTED, node, f"macro '{name}' stands for '__shared__': a shared declaration " \
                                                 "cannot move to the melded block"
        if obstacle.rule in _CALLEE_REFUSALS:
            rule, why = _CALLEE_REFUSALS[obstacle.rule]
            where = "" if obstacle.function == name else f" in '{obstacle.function}'"
            return rule, node, f"macro '{name}' stands for '{obstacle.text}'{where}, which {why}"
    return None


def _call_refusal(unit: Unit, call: Node) -> tuple[Rule, Node, str] | None:
    """Why melding must not touch a call: a barrier or warp intrinsic itself, a device function that does
    what melding would change (melded calls run as one call by the threads of both sides), a lambda of the
    function whose body does, or a function object or pointer, whose body pdcc does not see."""
    callee = call.child_by_field_name("function")
    name = unit.text(callee) if callee is not None else ""
    if name in _BARRIERS:
        return rules.MELD_BARRIER, call, f"'{name}' synchronises threads; melding would change which threads reach " \
                                         "it together"
    if _WARP.match(name):
        return rules.MELD_WARP, call, f"'{name}' exchanges values between the lanes that run it together"
    reached = next((o for o in serial.called(unit, call) if o.rule in _CALLEE_REFUSALS), None)
    if reached is not None:
        rule, why = _CALLEE_REFUSALS[reached.rule]
        what = "" if reached.text == name else f" ('{reached.text}' in '{reached.function}')"
        return rule, call, f"'{name}', which the branch calls, {why}{what}"
    local = _local_callee(unit, call)
    if local is None:
        return None
    if local.type != "lambda_expression":
        return rules.MELD_UNSUPPORTED, call, f"'{name}' is a function object or pointer, whose body pdcc does not see"
    body = local.child_by_field_name("body")
    inner = next((r for n in walk(body) if n.type == "call_expression" and (r := _call_refusal(unit, n)) is not None),
                 None) if body is not None else None
    return (inner[0], call, f"'{name}', a lambda the branch calls: {inner[2]}") if inner is not None else None


def _local_callee(unit: Unit, call: Node) -> Node | None:
    """What a call of a variable of the enclosing function is bound to: the lambda it is initialised with, else
    its declaration (a function object, a function pointer, a parameter); None for a call of a function."""
    callee = call.child_by_field_name("function")
    enclosing = enclosing_function(unit, call)
    if callee is None or callee.type != "identifier" or enclosing is None:
        return None
    return local_bindings(unit, enclosing.node).get(unit.text(callee))


def _inside(node: Node, limit: Node, kinds: tuple[str, ...]) -> bool:
    parent = node.parent
    while parent is not None and parent != limit:
        if parent.type in kinds:
            return True
        parent = parent.parent
    return False


def _sides(statement: Node) -> list[Node]:
    consequence = statement.child_by_field_name("consequence")
    alternative = statement.child_by_field_name("alternative")
    return [n for n in (consequence, alternative) if n is not None]


def _side_accesses(unit: Unit, side: Node) -> set[str]:
    """The atomic functions a side calls and the volatile names it reads or writes."""
    found = set()
    for node in walk(side):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and unit.text(callee).startswith("atomic"):
                found.add(f"'{unit.text(callee)}'")
        if node.type == "identifier" and unit.text(node) in unit.analysis(_volatile_names):
            found.add(f"volatile '{unit.text(node)}'")
    return found


def _volatile_names(unit: Unit) -> set[str]:
    """The names the file declares volatile (by name: one declared so anywhere counts everywhere)."""
    names = set()
    for node in walk(unit.tree.root_node):
        if node.type in ("declaration", "parameter_declaration") and re.search(r"\bvolatile\b", unit.text(node)):
            names |= {unit.text(n) for n in declared_names(node)}
    return names


def _names(unit: Unit, function: Function) -> set[str]:
    """Every identifier of the function: new names must not collide with any of them."""
    return {unit.text(n) for n in walk(function.node) if n.type in ("identifier", "field_identifier", "type_identifier")}


# --- melding ----------------------------------------------------------------------------------------
