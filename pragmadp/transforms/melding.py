"""The melding engine of the meld pass: two statement lists into one (seed 004, DARM, §IV-B/C).

`Melder.region` melds an if/else: Smith-Waterman over the two sides' statements, each pair scored by the
latency melding saves (`analysis.alignment`); pairs of the same shape merge operand by operand, differing
operands become `Select`s on the condition (only between operands of one known type, `analysis.ctype`),
memory accesses of different shapes meld through a selected address, nested `if`s and loops meld when
isomorphic, a statement may meld into a nested `if` of the other side (region replication). What stays
unaligned is guarded; declarations move to the top of the melded block. `transforms.meld` decides whether
the result pays and reports it.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.analysis import alignment, counted_loop, ctype, writes
from pragmadp.analysis.alignment import cost, own_cost
from pragmadp.cgen import printer
from pragmadp.report import rules
from pragmadp.report.remarks import Rule, excerpt
from pragmadp.transforms import chain_selects

GAP = alignment.OTHER   # an unaligned statement costs a guard
PDCC_PRAGMA = re.compile(r"\s*#\s*pragma\s+(dp|meld)\b")


class Refused(Exception):
    """The if/else holds something melding must not move or merge; `rule` and `reason` make the remark."""

    def __init__(self, rule: Rule, reason: str):
        super().__init__(reason)
        self.rule, self.reason = rule, reason


class Select(c_ast.TernaryOp):
    """`pdcc_then ? a : b` with the type both operands have; becomes a named temporary or stays inline."""

    __slots__ = ("kind", "address", "shared")

    def __init__(self, condition: c_ast.ID, iftrue: c_ast.Node, iffalse: c_ast.Node, kind: str, address: bool,
                 shared: tuple[c_ast.Node, ...] = ()):
        super().__init__(condition, iftrue, iffalse)
        self.kind, self.address = kind, address
        self.shared = shared   # operands both arms use (`a > b` against `a < b`): evaluated once where possible


@dataclass(frozen=True)
class Merged:
    """Two expressions as one: the merged tree, the latency it saves, the selects it needs."""

    node: c_ast.Node
    saved: int
    selects: int

    @property
    def score(self) -> float:
        return self.saved - alignment.SELECT * self.selects


@dataclass
class Stats:
    saved: float = 0.0
    aligned: int = 0        # statements of both sides that run melded
    statements: int = 0     # statements of both sides
    selects: int = 0
    guarded: int = 0
    pairs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Region:
    code: ir.Block
    stats: Stats


@dataclass(frozen=True)
class Pair:
    """An aligned pair of statements as the melded statements (select temporaries first)."""

    code: tuple[ir.Stmt, ...]
    saved: float
    selects: int
    aligned: int
    guarded: int = 0


class Melder:
    """Melds the two sides of one if/else; holds the names it made and the types it knows."""

    def __init__(self, types: ctype.Types, taken: set[str], stable: frozenset[str], min_trips: str):
        self.types = types
        self.stable = stable                # names only writes by name change (`writes.stable_names`)
        self.min_trips = min_trips          # the macro below whose trip count a counted meld runs as written
        self.versioned = False              # a counted meld keeps the two loops for short trip counts
        self.taken = set(taken)
        self.blocked = ""                   # why a pair was refused for mixing address spaces
        self.uncounted_loop = False         # a melded loop's accesses were not counted as saved: it stops unrolling
        self.condition = c_ast.ID("")
        self.stats = Stats()
        self.naming = True                  # selects become named temporaries (not in an else-if chain's tail)
        self.constants: set[str] = set()    # what pdcc declares const: conditions and select temporaries

    def region(self, statement: ir.If) -> Region:
        """`{ const bool pdcc_then = c; ...the melded sides... }`."""
        self.condition = c_ast.ID(self.fresh("pdcc_then"))
        self.types.names[self.condition.name] = "bool"
        self.constants.add(self.condition.name)
        then, orelse = _items(statement.then), _items(statement.orelse)
        self.stats.statements = _count(then) + _count(orelse)
        inner_aligned = 0
        heads: list[ir.Declaration] = []   # the conditions of an else-if chain safe to evaluate for every thread
        if isinstance(statement.orelse, ir.If):   # `else if`: the rest of the chain melds first, as its own region
            condition, self.condition, stats, naming = self.condition, c_ast.ID(""), self.stats, self.naming
            self.stats, self.naming = Stats(), False   # its selects stay in its statements, to meld further
            inner = self.region(statement.orelse)
            self.naming = naming
            if inner.stats.aligned:
                orelse = list(inner.code.items)
                while orelse and isinstance(first := orelse[0], ir.Declaration) and first.type == "const bool" and \
                        first.name.startswith("pdcc_then") and first.init is not None and _harmless(first.init):
                    heads.append(first)   # evaluated where the chain evaluates it, before any body
                    orelse.pop(0)
                stats.statements = _count(then) + inner.stats.statements   # the `if` of the chain is not one
                stats.pairs += inner.stats.pairs
                stats.saved += inner.stats.saved
                stats.selects += inner.stats.selects
                inner_aligned = inner.stats.aligned
            self.condition, self.stats = condition, stats
        body = self.sequence(then, orelse, self.stats)
        if inner_aligned:   # each melded pair of the outer level counts its then side; the inner ones are counted
            self.stats.aligned = self.stats.aligned // 2 + inner_aligned
        head = ir.Declaration("const bool", self.condition.name, statement.cond)
        items = [head, *heads, *body]
        if heads and self.naming:  # a whole else-if chain: its selects over the arms' conditions, fewer
            flags = {d.name: d.init for d in heads}  # (each harmless, or it would not be a head)
            if _harmless(statement.cond):
                flags[head.name] = statement.cond
            items = chain_selects.simplified(items, flags, _text)
            self.stats.selects = _ternaries(items) - _ternaries([statement])  # what the remark counts: the code's
        return Region(ir.Block(tuple(items)), self.stats)

    def fresh(self, wanted: str) -> str:
        name, number = wanted, 2
        while name in self.taken:
            name, number = f"{wanted}_{number}", number + 1
        self.taken.add(name)
        return name

    # --- sequences -----------------------------------------------------------------------------------

    def sequence(self, then: list[ir.Stmt], orelse: list[ir.Stmt], stats: Stats) -> list[ir.Stmt]:
        """The two statement lists as one: aligned pairs melded, the rest guarded, declarations hoisted."""
        then, orelse = self._unshadow(then, orelse)
        scores: dict[tuple[int, int], Pair | None] = {}

        def score(i: int, j: int) -> float | None:
            if (i, j) not in scores:
                scores[(i, j)] = self.pair(then[i], orelse[j])
            found = scores[(i, j)]
            return found.saved - alignment.SELECT * found.selects if found is not None else None

        taken, known, versioned = set(self.taken), dict(self.types.names), self.versioned
        aligned = alignment.smith_waterman(then, orelse, score, GAP)
        # the pairs tried and not taken leave no names behind, nor a versioned loop (and its knob)
        self.taken, self.types.names, self.versioned = taken, known, versioned
        hoisted: list[ir.Stmt] = []
        out: list[ir.Stmt] = []
        run: dict[bool, list[ir.Stmt]] = {True: [], False: []}
        for i, j in aligned:
            if i is not None and j is not None:
                pair = self.pair(then[i], orelse[j])
                assert pair is not None   # it melded when scored, and melds the same way again
                out += self._guarded(run, stats)
                out += pair.code
                stats.saved += pair.saved
                stats.selects += pair.selects
                stats.aligned += pair.aligned
                stats.guarded += pair.guarded
                stats.pairs.append(f"{_first_line(then[i])} ~ {_first_line(orelse[j])}")
            else:
                side = i is not None
                item = then[i] if i is not None else orelse[j]  # type: ignore[index]
                run[side].append(self._hoist_declarations(item, hoisted))
        out += self._guarded(run, stats)
        unique = {printer_text(d): d for d in hoisted}   # a name both sides declare alike is declared once
        return list(unique.values()) + out

    def _guarded(self, run: dict[bool, list[ir.Stmt]], stats: Stats) -> list[ir.Stmt]:
        """The statements of one side that found no partner, under the condition (comments stay bare)."""
        then, orelse = [s for s in run[True] if s is not None], [s for s in run[False] if s is not None]
        run[True], run[False] = [], []
        if not any(_does(s) for s in then + orelse):
            return then + orelse
        stats.guarded += _count(then) + _count(orelse)
        negated = c_ast.UnaryOp("!", self.condition)
        if then and orelse:
            return [ir.If(self.condition, ir.Block(tuple(then)), ir.Block(tuple(orelse)))]
        if then:
            return [ir.If(self.condition, ir.Block(tuple(then)))]
        return [ir.If(negated, ir.Block(tuple(orelse)))]

    def _hoist_declarations(self, item: ir.Stmt, hoisted: list[ir.Stmt]) -> ir.Stmt:
        """An unaligned declaration goes to the top of the block uninitialised; its place keeps the
        assignment (a guard's braces would end its scope)."""
        declarations = item.items if isinstance(item, ir.Sequence) and item.tag == "declaration" else (item,)
        if not all(isinstance(d, ir.Declaration) for d in declarations):
            if isinstance(item, ir.Verbatim) and _is_declaration(item):
                raise Refused(rules.MELD_UNSUPPORTED, f"'{_first_line(item)}' declares names in a form pdcc "
                                                      "cannot move to the melded block")
            return item
        assignments: list[ir.Stmt] = []
        for declaration in declarations:
            assert isinstance(declaration, ir.Declaration)
            # value-initialised: a thread of the other side never sets it, and a compiler may still read it
            # where it evaluates both arms of a select (g++ did, reading a stray bool as 179)
            name = re.sub(r"\bconst\b\s*", "", declaration.name)
            initial = None if name.endswith("]") else c_ast.InitList([])
            hoisted.append(ir.Declaration(self._movable_type(declaration), name, initial, direct=initial is not None))
            if declaration.init is not None:
                assignments.append(ir.ExprStmt(c_ast.Assignment("=", c_ast.ID(_declared(declaration)),
                                                                declaration.init)))
        return ir.Sequence(tuple(assignments)) if assignments else None  # type: ignore[return-value]

    def _movable_type(self, declaration: ir.Declaration) -> str:
        written = re.sub(r"^\s*const\s+", "", declaration.type) if "*" not in declaration.name else declaration.type
        if re.search(r"\bauto\b", written):
            known = self.types.of(declaration.init) if declaration.init is not None else None
            if known is None:
                raise Refused(rules.MELD_UNSUPPORTED, f"the type of 'auto {declaration.name}' is not known to pdcc, "
                                                      "so it cannot be declared ahead of its initialiser")
            return known
        return written

    def _unshadow(self, then: list[ir.Stmt], orelse: list[ir.Stmt]) -> tuple[list[ir.Stmt], list[ir.Stmt]]:
        """A name one side declares that also names something else where the declaration would move above
        it (an outer variable the other side uses, or this side uses before declaring its own; a local of
        another type) gets a new name from its declaration on, so that moving the declarations to the top
        of the melded block changes what no one sees. A name both sides declare with one type stays: one
        variable serves both."""
        for side, other, suffix in ((0, 1, "then"), (1, 0, "else")):
            sides = [then, orelse]
            mine, theirs = _declaration_types(sides[side]), _declaration_types(sides[other])
            for name in sorted(mine):
                if _uses_before_declaring(sides[other], name) or _uses_before_declaring(sides[side], name) or \
                        name in theirs and theirs[name] != mine[name]:
                    new = self.fresh(f"{name}_{suffix}")
                    first = next(k for k, item in enumerate(sides[side]) if name in _declaration_types([item]))
                    try:
                        renamed = [ir.rename(item, name, new) for item in sides[side][first:]]
                    except ir.KeptAsWritten as kept:
                        raise Refused(rules.MELD_UNSUPPORTED, f"'{name}' must be renamed to meld, and it appears in "
                                      f"'{_first_line(kept.text)}', which pdcc keeps as written") from None
                    sides[side] = sides[side][:first] + renamed
                    if name in self.types.names:
                        self.types.names[new] = self.types.names[name]
            then, orelse = sides
        return then, orelse

    # --- pairs of statements -------------------------------------------------------------------------

    def pair(self, a: ir.Stmt, b: ir.Stmt) -> Pair | None:
        """Statement `a` of the then side and `b` of the else side as one, or None when they do not meld."""
        if isinstance(a, ir.ExprStmt) and isinstance(b, ir.ExprStmt):
            return self._expressions(a.expr, b.expr)
        if isinstance(a, ir.Declaration) and isinstance(b, ir.Declaration):
            return self._declarations(a, b)
        if isinstance(a, ir.Sequence) and isinstance(b, ir.Sequence) and a.tag == b.tag == "declaration" and \
                len(a.items) == len(b.items):   # `int i = 0, j = 0;` against `int i = n, j = n;`
            pairs = [self._declarations(x, y) if isinstance(x, ir.Declaration) and isinstance(y, ir.Declaration)
                     else None for x, y in zip(a.items, b.items)]
            if any(p is None for p in pairs):
                return None
            done = [p for p in pairs if p is not None]
            return Pair(tuple(s for p in done for s in p.code), sum(p.saved for p in done),
                        sum(p.selects for p in done), 2 * len(done))
        if isinstance(a, ir.If) and isinstance(b, ir.If):
            return self._ifs(a, b)
        if isinstance(a, ir.For) and isinstance(b, ir.For):
            return self._loops(a, b)
        if isinstance(b, ir.If) and isinstance(a, ir.ExprStmt):
            return self._replicate(a, b, then_side=True)
        if isinstance(a, ir.If) and isinstance(b, ir.ExprStmt):
            return self._replicate(b, a, then_side=False)
        return None

    def _expressions(self, a: c_ast.Node, b: c_ast.Node) -> Pair | None:
        if isinstance(a, c_ast.Assignment) and isinstance(b, c_ast.Assignment) and a.op == b.op and \
                isinstance(a.lvalue, c_ast.ID) and isinstance(b.lvalue, c_ast.ID) and a.lvalue.name != b.lvalue.name:
            return self._assign_apart(a, b)
        merged = self.expr(a, b, "value")
        if merged is None or merged.score <= 0:
            return None
        code = self._named_selects(merged.node, hoist=_simple(a) and _simple(b))
        last = code[-1]
        assert isinstance(last, c_ast.Node)
        return Pair((*code[:-1], ir.ExprStmt(last)), merged.saved, merged.selects, 2)

    def _assign_apart(self, a: c_ast.Assignment, b: c_ast.Assignment) -> Pair | None:
        """`x = e1` and `y = e2`: the values meld into a temporary, each side stores it (registers have
        no address to select)."""
        value = self.expr(a.rvalue, b.rvalue, "value")
        kind = self.types.of(a.rvalue) if value is not None else None
        if value is None or kind is None or kind != self.types.of(b.rvalue) or value.score <= 0:
            return None
        name = self.fresh(f"{_hint(a.lvalue)}_or_{_hint(b.lvalue)}")
        self.types.names[name] = kind
        *selects, node = self._named_selects(value.node, hoist=_simple(a) and _simple(b))
        temporary = c_ast.ID(name)
        store = ir.If(self.condition, ir.ExprStmt(c_ast.Assignment(a.op, a.lvalue, temporary)),
                      ir.ExprStmt(c_ast.Assignment(b.op, b.lvalue, temporary)))
        # the two stores cost a select's worth: a pair that stores one register scores higher
        return Pair((*selects, _temporary(kind, name, node), store), value.saved, value.selects + 1, 2)

    def _declarations(self, a: ir.Declaration, b: ir.Declaration) -> Pair | None:
        """One declaration for a name both sides declare alike, its initial value selected where the sides
        differ (whether that pays is the alignment's call: a loop's counter melds with its loop)."""
        if ctype.normalise(a.type) != ctype.normalise(b.type) or _declarator_shape(a) != _declarator_shape(b) or \
                (a.init is None) != (b.init is None) or _declared(a) != _declared(b):
            return None
        if a.init is None or b.init is None:
            return Pair((a,), 0, 0, 2)
        merged = self.expr(a.init, b.init, "value")
        if merged is None:
            return None
        *selects, node = self._named_selects(merged.node, hoist=_simple(a.init) and _simple(b.init))
        return Pair((*selects, dataclasses.replace(a, init=node)), merged.saved, merged.selects, 2)

    def _ifs(self, a: ir.If, b: ir.If) -> Pair | None:
        condition = self.expr(a.cond, b.cond, "value")
        if condition is None:
            return None
        stats = Stats()
        then = self.sequence(_items(a.then), _items(b.then), stats)
        orelse = self.sequence(_items(a.orelse), _items(b.orelse), stats) if a.orelse or b.orelse else []
        saved = condition.saved + alignment.OTHER + stats.saved
        if saved - alignment.SELECT * (condition.selects + stats.selects) <= 0:
            return None
        *selects, node = self._named_selects(condition.node, hoist=_simple(a.cond) and _simple(b.cond))
        melded = ir.If(node, ir.Block(tuple(then)), ir.Block(tuple(orelse)) if orelse else None)
        return Pair((*selects, melded), saved, condition.selects + stats.selects, 2 + stats.aligned,
                    stats.guarded)

    def _loops(self, a: ir.For, b: ir.For) -> Pair | None:
        """Two loops of the same shape: one loop whose bounds are selected (each thread still runs its own
        trip count), bodies melded."""
        if isinstance(a.init, ir.DeclarationExpr) and isinstance(b.init, ir.DeclarationExpr):
            old, new = _declared(b.init.declaration), _declared(a.init.declaration)
            if old != new:
                header = [b.init.declaration.init, b.cond, b.step]
                if new in _used_names([b.body]) or _mentions_in_verbatim(b.body, old) or \
                        any(part is not None and ir.mentions(part, new) for part in header):
                    return None   # b reads another `new` that the renamed counter would hide
                b = ir.For(ir.rename_expression(b.init, old, new), ir.rename_expression(b.cond, old, new),
                           ir.rename_expression(b.step, old, new), ir.rename(b.body, old, new))
            if _walk_apart(a, b):
                counted = self._counted_loops(a, b)
                if counted is not None:
                    return counted
            first, second = a.init.declaration, b.init.declaration  # type: ignore[union-attr]
            if ctype.normalise(first.type) != ctype.normalise(second.type) or first.init is None or \
                    second.init is None or _declarator_shape(first) != _declarator_shape(second):
                return None
            value = self.expr(first.init, second.init, "value")
            if value is None:
                return None
            start: c_ast.Node | None = ir.DeclarationExpr(dataclasses.replace(first, init=_inline(value.node)))
            saved, selects = value.saved, value.selects
        else:
            both = [self.expr(x, y, "value") if x is not None and y is not None else None for x, y in [(a.init, b.init)]]
            if (a.init is None) != (b.init is None) or (a.init is not None and both[0] is None):
                return None
            start = _inline(both[0].node) if both[0] is not None else None
            saved, selects = (both[0].saved, both[0].selects) if both[0] is not None else (0, 0)
        parts = []
        for x, y in ((a.cond, b.cond), (a.step, b.step)):
            if (x is None) != (y is None):
                return None
            merged = self.expr(x, y, "value") if x is not None and y is not None else None
            if x is not None and merged is None:
                return None
            parts.append(_inline(merged.node) if merged is not None else None)
            saved += merged.saved if merged is not None else 0
            selects += merged.selects if merged is not None else 0
        stats = Stats()
        body = self.sequence(_items(a.body), _items(b.body), stats)
        # Loops that step or test differently (`++k` against `--k`) meld into a loop whose step is a select:
        # not a counted loop, so nvcc no longer unrolls it, and the memory accesses of its body save
        # nothing (a hand meld of a forward and a backward merge: 2 loads per iteration in the PTX where the
        # original had 20, 0.56x at runs of 64 on the H200, though 1.42x at runs of 512).
        accesses = 0
        if _walk_apart(a, b):
            accesses = min(_memory_accesses(a.body), _memory_accesses(b.body))
            self.uncounted_loop = self.uncounted_loop or accesses > 0
        return Pair(self._invariant_selects(ir.For(start, parts[0], parts[1], ir.Block(tuple(body)))),
                    max(0.0, saved + stats.saved - alignment.MEMORY * accesses) + alignment.OTHER,
                    selects + stats.selects, 2 + stats.aligned, stats.guarded)

    def _invariant_selects(self, loop: ir.For) -> tuple[ir.Stmt, ...]:
        """The loop, with the selects pdcc made at the top level of its body that the loop cannot change moved
        before it, as a hand meld writes them (`float (*const row)[16] = pdcc_then ? a : b;` outside the loop
        over `j`). The loop may run no iteration, so only selects that read no memory and cannot fault move."""
        changed = ir.written([loop])   # shadowing declarations: pdcc's constants and arrays are never assigned
        body = _items(loop.body)
        moved = [item for item in body if isinstance(item, ir.Declaration) and _declared(item) in self.constants
                 and item.init is not None and self._invariant(item.init, changed)]
        if not moved:
            return (loop,)
        kept = tuple(item for item in body if not any(item is m for m in moved))
        return (*moved, dataclasses.replace(loop, body=ir.Block(kept)))

    def _invariant(self, expr: c_ast.Node, changed: set[str]) -> bool:
        """Whether an expression has one value for the whole loop and computes it without reading memory or
        faulting: constants, pdcc's own constants (each a `const` of the melded block), arrays (whose address
        nothing changes; not pointers: `&a[i][j]` of a pointer to pointers loads `a[i]`), and arithmetic over
        them without division. Never the user's variables: a call, a macro, an alias made anywhere or a static
        or global of the same name may change one in the loop, which pdcc cannot rule out by names."""
        if isinstance(expr, c_ast.Constant):
            return True
        if isinstance(expr, c_ast.ID):
            return expr.name not in changed and (expr.name in self.constants or expr.name in self.types.arrays)
        if isinstance(expr, c_ast.UnaryOp) and expr.op == "&":
            target, depth = expr.expr, 0
            while isinstance(target, c_ast.ArrayRef):
                if not self._invariant(target.subscript, changed):
                    return False
                target, depth = target.name, depth + 1
            return isinstance(target, c_ast.ID) and target.name not in changed and \
                self.types.arrays.get(target.name, 0) >= depth > 0
        if isinstance(expr, c_ast.UnaryOp) and expr.op in ("-", "+", "!", "~"):
            return self._invariant(expr.expr, changed)
        if isinstance(expr, c_ast.BinaryOp) and expr.op not in ("/", "%"):
            return self._invariant(expr.left, changed) and self._invariant(expr.right, changed)
        if isinstance(expr, c_ast.TernaryOp):
            return all(self._invariant(part, changed) for part in (expr.cond, expr.iftrue, expr.iffalse))
        return False

    def _counted_loops(self, a: ir.For, b: ir.For) -> Pair | None:
        """Two counted loops (`analysis.counted_loop`) that step or test differently, `k` up from 0 against
        `k` down from 2 * run - 1, as one loop over the trip number with each side's counter derived from
        it (`const int k = pdcc_then ? k_step : 2 * run - 1 - k_step;`): a counted loop again, which nvcc
        unrolls, so the accesses of the melded body are saved. None when either loop is not counted or a
        trip count would take arithmetic the loops did not do (pdcc adds no overflow)."""
        first, second = counted_loop.of(a, self.types, self.stable), counted_loop.of(b, self.types, self.stable)
        if first is None or second is None or first.type != second.type:
            return None
        trips = [first.trips.expression(), second.trips.expression()]
        if trips[0] is None or trips[1] is None:
            return None
        step = c_ast.ID(self.fresh(f"{first.counter}_step"))
        self.types.names[step.name] = first.type
        counters = [step if _text(c.start) == "0" and c.step > 0 else
                    c_ast.BinaryOp("+" if c.step > 0 else "-", copy.deepcopy(c.start), step) for c in (first, second)]
        counter = self.expr(counters[0], counters[1], "value")
        if counter is None:
            return None
        bound = trips[0] if _text(trips[0]) == _text(trips[1]) else c_ast.TernaryOp(self.condition, trips[0], trips[1])
        stats = Stats()
        body = self.sequence(_items(a.body), _items(b.body), stats)
        derived = ir.Declaration(f"const {first.type}", first.counter, _inline(counter.node))
        loop = ir.For(ir.DeclarationExpr(ir.Declaration(first.type, step.name, c_ast.Constant("int", "0"))),
                      c_ast.BinaryOp("<", step, bound), c_ast.UnaryOp("++", step), ir.Block((derived, *body)))
        selects = counter.selects + stats.selects + (bound is not trips[0])
        # Versioned: below `min_trips` trips the two loops run as written. On an H100 the merge sample's
        # counted meld ran 0.57x at 64 trips and 1.39x at 512 (bench/results/2026-12-06-h100-meld-merge).
        self.versioned = True
        versions = ir.If(c_ast.BinaryOp(">=", copy.deepcopy(bound), c_ast.ID(self.min_trips)), ir.Block((loop,)),
                         ir.If(self.condition, ir.Block((a,)), ir.Block((b,))))
        return Pair((versions,), stats.saved + alignment.OTHER, selects, 2 + stats.aligned, stats.guarded)

    def _replicate(self, statement: ir.Stmt, region: ir.If, then_side: bool) -> Pair | None:
        """Region replication: `statement` (of one side) melds with the body of `region` (an `if` of the
        other side) that fits it best; the `if` is made to take that body for the statement's threads."""
        best: tuple[float, bool, list[ir.Stmt], Stats] | None = None
        for into_then in (True, False):
            body = _items(region.then if into_then else region.orelse)
            if not into_then and region.orelse is None:
                continue
            stats = Stats()
            mine, theirs = [statement], body
            merged = self.sequence(mine, theirs, stats) if then_side else self.sequence(theirs, mine, stats)
            score = stats.saved - alignment.SELECT * stats.selects
            if stats.aligned and (best is None or score > best[0]):
                best = (score, into_then, merged, stats)
        if best is None or best[0] <= 0:
            return None
        _, into_then, merged, stats = best
        mine_run = self.condition if then_side else c_ast.UnaryOp("!", self.condition)
        other_run = c_ast.UnaryOp("!", self.condition) if then_side else self.condition
        # the statement's threads take the melded body; the region's own threads decide by its condition
        condition = c_ast.BinaryOp("||", mine_run, region.cond) if into_then else \
            c_ast.BinaryOp("&&", other_run, region.cond)
        untouched = region.orelse if into_then else region.then
        block = ir.Block(tuple(merged))
        if into_then:
            code = ir.If(condition, block, untouched)
        else:
            assert untouched is not None   # only an `if` with both bodies melds into its else
            code = ir.If(condition, untouched, block)
        return Pair((code,), stats.saved, stats.selects, stats.aligned, stats.guarded)

    # --- expressions ---------------------------------------------------------------------------------

    def expr(self, a: c_ast.Node, b: c_ast.Node, place: str) -> Merged | None:
        """`a` and `b` as one tree: shared structure kept, differing operands selected. `place` is
        'value' (an rvalue) or 'object' (an lvalue whose address matters)."""
        if _text(a) == _text(b):
            return Merged(a, cost(a), 0)
        if isinstance(a, c_ast.BinaryOp) and isinstance(b, c_ast.BinaryOp) and _MIRRORED.get(b.op) == a.op and \
                _text(a.left) == _text(b.right) and _text(a.right) == _text(b.left) and \
                all(self._plain_operand(x) for x in (a.left, a.right)):
            return Merged(a, cost(a), 0)   # `y >= x` is `x <= y`
        structural = None
        if type(a) is type(b):
            structural = self._same_kind(a, b)
        if isinstance(a, c_ast.BinaryOp) and isinstance(b, c_ast.BinaryOp) and a.op != b.op and \
                not {a.op, b.op} & {"&&", "||"}:
            structural = self._operator_select(a, b)
        whole = self._address_select(a, b) if is_memory(a) and is_memory(b) else \
            None if place == "object" else self._select(a, b)
        # the operands merged one by one, unless selecting the whole (value or address) costs less
        candidates = [m for m in (structural, whole) if m is not None]
        return max(candidates, key=lambda m: m.score) if candidates else None

    def _plain_operand(self, operand: c_ast.Node) -> bool:
        """A number or a pointer (no class whose `<` and `>` may disagree) computed without side effects
        (so the order of the two operands does not matter)."""
        kind = self.types.of(operand)
        return kind is not None and (writes.arithmetic(kind) or kind.endswith("*")) and _simple(operand)

    def _select(self, a: c_ast.Node, b: c_ast.Node) -> Merged | None:
        """`pdcc_then ? a : b`, for two values of one known type in one address space."""
        kind = self.types.of(a)
        if kind is None or kind != self.types.of(b) or self._volatile(a, b):
            return None
        if kind.endswith("*") and self.types.space(a) != self.types.space(b):
            self.blocked = f"'{_text(a)}' and '{_text(b)}' point into different address spaces (shared and " \
                           "global): a select of the two would lose the shared-memory access"
            return None
        if kind.endswith("]"):   # arrays (rows of a 2-D array) decay to pointers in a select
            kind = kind[:kind.rindex("[")] + "*"
        return Merged(self._choose(a, b, kind, False), 0, 1)

    def _same_kind(self, a: c_ast.Node, b: c_ast.Node) -> Merged | None:
        """Same operator: the operands merged pairwise."""
        if isinstance(a, c_ast.BinaryOp) and a.op == b.op:
            return self._build(a, [("left", "value"), ("right", "value")], b)
        if isinstance(a, c_ast.Assignment) and a.op == b.op:
            return self._build(a, [("lvalue", "object"), ("rvalue", "value")], b)
        if isinstance(a, c_ast.UnaryOp) and a.op == b.op:
            place = "object" if a.op in ("&", "++", "--", "p++", "p--") else "value"
            return self._build(a, [("expr", place)], b)
        if isinstance(a, c_ast.ArrayRef):
            if self.types.space(a.name) != self.types.space(b.name):
                self.blocked = f"'{_text(a)}' and '{_text(b)}' are in different address spaces (shared and global)"
                return None
            return self._build(a, [("name", "value"), ("subscript", "value")], b)
        if isinstance(a, c_ast.StructRef) and a.type == b.type and a.field.name == b.field.name:
            return self._build(a, [("name", "object" if a.type == "." else "value")], b)
        if isinstance(a, c_ast.FuncCall) and _text(a.name) == _text(b.name) and \
                len(a.args.exprs if a.args else []) == len(b.args.exprs if b.args else []):
            arguments = [self.expr(x, y, "value") for x, y in zip(a.args.exprs if a.args else [],
                                                                 b.args.exprs if b.args else [])]
            if any(m is None for m in arguments):
                return None
            done = [m for m in arguments if m is not None]
            return Merged(c_ast.FuncCall(a.name, c_ast.ExprList([m.node for m in done])),
                          own_cost(a) + sum(m.saved for m in done), sum(m.selects for m in done))
        if isinstance(a, c_ast.Cast) and _text(a.to_type) == _text(b.to_type):
            return self._build(a, [("expr", "value")], b)
        if isinstance(a, c_ast.TernaryOp) and not isinstance(a, Select):
            return self._build(a, [("cond", "value"), ("iftrue", "value"), ("iffalse", "value")], b)
        return None

    def _build(self, a: c_ast.Node, slots: list[tuple[str, str]], b: c_ast.Node) -> Merged | None:
        merged = copy.copy(a)
        saved, selects = own_cost(a), 0
        for slot, place in slots:
            part = self.expr(getattr(a, slot), getattr(b, slot), place)
            if part is None:
                return None
            setattr(merged, slot, part.node)
            saved, selects = saved + part.saved, selects + part.selects
        return Merged(merged, saved, selects)

    def _operator_select(self, a: c_ast.BinaryOp, b: c_ast.BinaryOp) -> Merged | None:
        """`x > y` against `x < y`: the operands meld (computed once), the two operators are selected."""
        left, right = self.expr(a.left, b.left, "value"), self.expr(a.right, b.right, "value")
        kind = self.types.of(a)
        if left is None or right is None or kind is None or kind != self.types.of(b):
            return None
        select = Select(self.condition, c_ast.BinaryOp(a.op, left.node, right.node),
                        c_ast.BinaryOp(b.op, left.node, right.node), kind, False, (left.node, right.node))
        return Merged(select, left.saved + right.saved, left.selects + right.selects + 1)

    def _address_select(self, a: c_ast.Node, b: c_ast.Node) -> Merged | None:
        """Two memory accesses of different shapes: one access through the selected address."""
        kind = self.types.address(a)
        if kind is None or kind != self.types.address(b) or self._volatile(a, b):
            return None
        if self.types.space(a) != self.types.space(b):
            self.blocked = f"'{_text(a)}' and '{_text(b)}' are in different address spaces (shared and global): " \
                           "one access through a selected address would lose the shared-memory access"
            return None
        select = self._choose(_address(a), _address(b), kind, True)
        return Merged(c_ast.UnaryOp("*", select), alignment.MEMORY, 1)

    def _choose(self, a: c_ast.Node, b: c_ast.Node, kind: str, address: bool) -> Select:
        """`pdcc_then ? a : b`; against the tail of an else-if chain that already chooses `a` first
        (`c2 ? a : z`), `pdcc_then || c2 ? a : z`: one select per run of arms that agree."""
        if isinstance(b, c_ast.TernaryOp) and _text(b.iftrue) == _text(a):
            return Select(c_ast.BinaryOp("||", self.condition, b.cond), a, b.iffalse, kind, address)
        return Select(self.condition, a, b, kind, address)

    def _volatile(self, a: c_ast.Node, b: c_ast.Node) -> bool:
        return any(isinstance(n, c_ast.ID) and n.name in self.types.volatile for n in (*ir.expression_nodes(a), *ir.expression_nodes(b)))

    def _named_selects(self, node: c_ast.Node, hoist: bool) -> list[ir.Stmt | c_ast.Node]:
        """The selects of a merged tree as named temporaries declared before it (`const float lo_or_hi =
        pdcc_then ? lo : hi;`), where that evaluates exactly what the statement did: not inside `&&`,
        `||` or `?:`, and only in a statement without calls or side effects of its own. The others stay
        inline. The last element is the tree."""
        declared: list[ir.Stmt | c_ast.Node] = []

        named: dict[tuple[str, str], str] = {}   # one temporary per distinct select of the statement

        def bind(operand: c_ast.Node) -> c_ast.Node:
            """A shared operand of a hoisted select, in a temporary of its own when it computes anything."""
            kind = self.types.of(operand)
            if kind is None:
                return visit(operand, True)
            value = visit(operand, False)
            if isinstance(value, (c_ast.ID, c_ast.Constant)):
                return value
            name = self.fresh(_hint(operand))
            self.types.names[name] = kind
            declared.append(_temporary(kind, name, value))
            return c_ast.ID(name)

        def visit(n: c_ast.Node, lazy: bool) -> c_ast.Node:
            if isinstance(n, Select) and n.shared and hoist and not lazy:
                assert isinstance(n.iftrue, c_ast.BinaryOp) and isinstance(n.iffalse, c_ast.BinaryOp)
                left, right = (bind(operand) for operand in n.shared)
                n = Select(n.cond, c_ast.BinaryOp(n.iftrue.op, left, right), c_ast.BinaryOp(n.iffalse.op, left, right),
                           n.kind, False)
            if isinstance(n, Select):
                inner = Select(n.cond, visit(n.iftrue, True), visit(n.iffalse, True), n.kind, n.address)
                if lazy or not hoist:
                    return c_ast.TernaryOp(inner.cond, inner.iftrue, inner.iffalse)
                key = (_text(inner.iftrue), _text(inner.iffalse))
                if key in named:
                    return c_ast.ID(named[key])
                name = named[key] = self.fresh(_select_name(n))
                self.types.names[name] = n.kind
                self.constants.add(name)
                declared.append(_temporary(n.kind, name, c_ast.TernaryOp(inner.cond, inner.iftrue, inner.iffalse)))
                return c_ast.ID(name)
            return ir.rebuilt(n, lambda slot, child: visit(child, lazy or _lazy_slot(n, slot)))

        hoist = hoist and self.naming
        tree = visit(node, False)
        return [*declared, tree]


# --- helpers on the IR --------------------------------------------------------------------------------

def _temporary(kind: str, name: str, value: c_ast.Node) -> ir.Declaration:
    """A temporary never assigned again, in C's declarator syntax: `const float x`, `float *const p`,
    `float (*const rows)[16]` for a pointer to rows of an array (kind `float[16]*`)."""
    if not kind.endswith("*"):
        return ir.Declaration(f"const {kind}", name, value)
    pointee = kind[:-1]
    bounds = pointee[pointee.index("["):] if "[" in pointee else ""
    base = pointee[:len(pointee) - len(bounds)]
    return ir.Declaration(base, f"(*const {name}){bounds}" if bounds else f"*const {name}", value)


def _items(statement: ir.Stmt | None) -> list[ir.Stmt]:
    """The statements of a branch; a pdcc pragma among them (one that went with an outer meld) becomes
    the comment pdcc leaves for every pragma it consumed."""
    if statement is None:
        return []
    items = list(statement.items) if isinstance(statement, ir.Block) else [statement]
    return [ir.Comment("pdcc: " + item.text.strip()) if isinstance(item, ir.Verbatim) and PDCC_PRAGMA.match(item.text)
            else item for item in items]


def _count(items: Sequence[ir.Stmt | None]) -> int:
    """The statements that do something, nested ones included (an `if` and what it holds)."""
    total = 0
    for item in items:
        if isinstance(item, (ir.Block, ir.Sequence)):
            total += _count(list(item.items))
        elif isinstance(item, ir.If):
            total += 1 + _count([item.then, item.orelse])
        elif isinstance(item, ir.For):
            total += 1 + _count([item.body])
        elif _does(item):
            total += 1
    return total


def _does(item: ir.Stmt | None) -> bool:
    """Whether the statement does anything (comments do not)."""
    if item is None or isinstance(item, ir.Comment):
        return False
    if isinstance(item, ir.Verbatim):
        return not item.text.lstrip().startswith(("//", "/*"))
    if isinstance(item, ir.Sequence):
        return any(_does(i) for i in item.items)
    return True


def _is_declaration(item: ir.Verbatim) -> bool:
    return bool(re.match(r"^\s*(const\s+|unsigned\s+|signed\s+)*[A-Za-z_][\w:<>]*[\s*&]+[A-Za-z_]\w*\s*[\[=;,(]",
                         item.text)) and not re.match(r"^\s*(return|delete|goto|throw)\b", item.text)


def _declared(declaration: ir.Declaration) -> str:
    match = re.search(r"[A-Za-z_]\w*", declaration.name.replace("const", " "))
    assert match is not None, declaration.name
    return match.group(0)


def _declarator_shape(declaration: ir.Declaration) -> str:
    return re.sub(r"[A-Za-z_]\w*", "x", declaration.name.replace(" ", ""), count=1)


def _declaration_types(items: list[ir.Stmt]) -> dict[str, str]:
    """The names a statement list declares at its own level, with their types as written."""
    found = {}
    for item in items:
        for inner in (item.items if isinstance(item, ir.Sequence) else (item,)):
            if isinstance(inner, ir.Declaration):
                found[_declared(inner)] = ctype.normalise(inner.type) + _declarator_shape(inner)
    return found


def _uses_before_declaring(items: list[ir.Stmt], name: str) -> bool:
    """Whether the list mentions `name` before (or without) declaring it at its own level."""
    for item in items:
        if name in _declaration_types([item]):
            return False
        if name in _used_names([item]):
            return True
    return False


def _used_names(items: list[ir.Stmt | None]) -> set[str]:
    """Every name the statements mention, in trees or in their own text."""
    found: set[str] = set()
    for item in items:
        for node in ir.walk(item):
            if isinstance(node, ir.Verbatim):
                found |= set(re.findall(r"[A-Za-z_]\w*", node.text))
            elif isinstance(node, c_ast.ID):
                found.add(node.name)
            elif isinstance(node, ir.Declaration):
                found.add(_declared(node))
    return found


def _mentions_in_verbatim(statement: ir.Stmt, name: str) -> bool:
    return any(isinstance(n, ir.Verbatim) and re.search(rf"\b{re.escape(name)}\b", n.text)
               for n in ir.walk(statement))












def _lazy_slot(node: c_ast.Node, slot: str) -> bool:
    """Operands C evaluates only sometimes: the right of && and ||, the arms of ?:."""
    if isinstance(node, c_ast.BinaryOp):
        return node.op in ("&&", "||") and slot == "right"
    return isinstance(node, c_ast.TernaryOp) and slot in ("iftrue", "iffalse")


def _simple(node: c_ast.Node | None) -> bool:
    """No call and no side effect besides the statement's own assignment at its root."""
    if node is None:
        return True
    root = node.rvalue if isinstance(node, c_ast.Assignment) else \
        None if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--") else node
    parts = [root] if root is not None else []
    if isinstance(node, c_ast.Assignment):
        parts.append(node.lvalue)
    for part in parts:
        for inner in ir.expression_nodes(part):
            if isinstance(inner, (c_ast.FuncCall, c_ast.Assignment, ir.Verbatim)) or \
                    isinstance(inner, c_ast.UnaryOp) and inner.op in ("++", "--", "p++", "p--"):
                return False
    return True


def _inline(node: c_ast.Node) -> c_ast.Node:
    """A merged tree with every select written in place (a loop's header runs each iteration)."""
    if isinstance(node, Select):
        return c_ast.TernaryOp(node.cond, _inline(node.iftrue), _inline(node.iffalse))
    return ir.rebuilt(node, lambda _slot, child: _inline(child))




def _address(access: c_ast.Node) -> c_ast.Node:
    """`&a[i]`, and `p` for `*p` (not `&*p`)."""
    if isinstance(access, c_ast.UnaryOp) and access.op == "*":
        return access.expr
    return c_ast.UnaryOp("&", access)


def _walk_apart(a: ir.For, b: ir.For) -> bool:
    """The two loops step or test differently (`++k` against `--k`, `<` against `>=`)."""
    return _text(a.step or c_ast.ID("")) != _text(b.step or c_ast.ID("")) or _test(a.cond) != _test(b.cond)


def _test(condition: c_ast.Node | None) -> str:
    """The comparison a loop tests with (`<`, `>=`), or its whole text when it is not one comparison."""
    if isinstance(condition, c_ast.BinaryOp) and condition.op in ("<", "<=", ">", ">=", "!=", "=="):
        return condition.op
    return _text(condition) if condition is not None else ""


def _ternaries(items: Sequence[ir.Stmt]) -> int:
    return sum(1 for item in items for node in ir.walk(item) if isinstance(node, c_ast.TernaryOp))


def _memory_accesses(statement: ir.Stmt) -> int:
    return sum(1 for node in ir.walk(statement) if isinstance(node, c_ast.Node) and is_memory(node))


def _harmless(expr: c_ast.Node) -> bool:
    """Evaluating it for a thread that did not would change nothing: no memory access, call, division
    or side effect."""
    for node in ir.expression_nodes(expr):
        if is_memory(node) or isinstance(node, (c_ast.FuncCall, c_ast.Assignment, ir.Verbatim)) or \
                isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--") or \
                isinstance(node, c_ast.BinaryOp) and node.op in ("/", "%"):
            return False
    return True


def is_memory(node: c_ast.Node) -> bool:
    """An array element, a dereference or a member through a pointer: a load or a store."""
    return isinstance(node, c_ast.ArrayRef) or isinstance(node, c_ast.UnaryOp) and node.op == "*" or \
        isinstance(node, c_ast.StructRef) and node.type == "->"


def _hint(node: c_ast.Node) -> str:
    """A short name for what an operand is, for the select that chooses it."""
    if isinstance(node, c_ast.ID):
        return node.name.split("::")[-1]
    if isinstance(node, c_ast.Constant):
        return "k" + re.sub(r"\W", "_", node.value).strip("_")
    if isinstance(node, c_ast.ArrayRef):
        index = node.subscript
        return _hint(node.name) + (f"_{_hint(index)}" if isinstance(index, (c_ast.ID, c_ast.Constant)) else "")
    if isinstance(node, c_ast.StructRef):
        return node.field.name
    if isinstance(node, c_ast.UnaryOp):
        return _hint(node.expr)
    if isinstance(node, c_ast.BinaryOp):
        return _OPERATOR_WORDS.get(node.op, "value")
    return "value"


def _select_name(select: Select) -> str:
    """`lo_or_hi`; `m_element` for two addresses into one array (`&m[i + w] : &m[i]`), `x_value` for two
    values of one (`x[i + 1] : x[i - 1]`), rather than `m_or_m`."""
    first, second = _hint(select.iftrue), _hint(select.iffalse)
    if first != second:
        return f"{first}_or_{second}"
    return f"{first}_element" if select.address else f"{first}_value"


_MIRRORED = {**counted_loop.MIRRORED, "==": "==", "!=": "!="}
_OPERATOR_WORDS = {">": "greater", "<": "less", ">=": "at_least", "<=": "at_most", "==": "equal", "!=": "differ",
                   "+": "sum", "-": "difference", "*": "product", "/": "quotient", "%": "remainder", "&": "bits",
                   "|": "bits", "^": "bits", "<<": "shifted", ">>": "shifted", "&&": "both", "||": "either"}


def _text(node: c_ast.Node) -> str:
    return printer.expression(_inline(node))


def printer_text(item: ir.Stmt) -> str:
    return printer.text(item)


def _first_line(item: ir.Stmt) -> str:
    text = printer.text(item).strip().splitlines()[0] if item is not None else ""
    return excerpt(text.rstrip("{ ;"))
