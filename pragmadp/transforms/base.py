"""The pass interface: what a pass is given, what it answers, and the context it asks things of.

A pass is a module with `NAME`, the clause it serves (`CLAUSE`), its `RULES`, and

    plan(site: SitePlan, context: Context) -> Applied | Missed

`site.code` is the IR of the site's statement as the earlier passes left it; a pass that applies returns
the rewritten IR (threshold wraps the launch in a guard, coarsen swaps the launch that threshold produced,
aggregate replaces it by an append), the knobs it introduced and its remarks. Definitions it needs (the
child's serial version, a coarsened kernel) are asked for with `context.define(request)`, which builds
each once however many sites ask and returns the symbol to call. Analyses are asked of the unit
(`context.unit.analysis(provider, node)`) and computed once per node.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pragmadp import ir
from pragmadp.cuda.frontend import Function, Site, Unit
from pragmadp.directives import Clause
from pragmadp.directives import Value
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark, Rule
from pragmadp.source import Span

C = TypeVar("C", bound=Clause)

RUNTIME_HEADER = "pdcc_rt.cuh"  # in pragmadp/runtime/, which pdcc puts on nvcc's include path
RUNTIME_INCLUDE = f'#include "{RUNTIME_HEADER}"'


@dataclass(frozen=True)
class Applied:
    """A pass did its work: the site's new IR, a few words for the site's comment, knobs and remarks."""

    code: ir.Stmt
    summary: str
    knobs: tuple[ir.Knob, ...] = ()
    remarks: tuple[Remark, ...] = ()


@dataclass(frozen=True)
class Missed:
    """A pass was asked for and could not apply; its remarks say why. The site's IR stays as it was."""

    remarks: tuple[Remark, ...]


@dataclass
class SitePlan:
    """One site on its way through the passes."""

    site: Site
    child: Any               # child.Child: the launched kernel, its parameters and obstacles
    code: ir.Stmt            # the statement that will replace the launch, as the passes so far left it
    arguments: tuple[ir.Expr, ...]   # one value per child parameter (defaults filled in, hoisted if needed)
    applied: list[str] = field(default_factory=list)   # what each pass that applied did, in order
    knobs: list[ir.Knob] = field(default_factory=list)  # of the passes that applied (aggregate reads coarsen's)
    # how threshold runs the child in the parent thread, where a later pass owns the child's serial form (a
    # consolidated recursion: consolidate.serial_call); None: the child's own serial version
    serial: Callable[[Context, SitePlan], ir.ExprStmt] | None = None

    def clause(self, kind: type[C]) -> C:
        """The site's clause a pass serves (the driver runs a pass only for sites that have it)."""
        found = self.site.directive.clause(kind)
        assert found is not None, kind
        return found


class Request(Protocol):
    """A definition a pass needs: built once per key, placed at `anchor` (a byte offset of the source)."""

    @property
    def key(self) -> Hashable: ...

    @property
    def symbol(self) -> str: ...

    def anchor(self, context: Context) -> tuple[int, int]:
        """(byte offset to insert at, source line generated text maps to)."""
        ...

    def build(self, context: Context) -> tuple[ir.Definition, ...]: ...


@dataclass
class Placed:
    """Definitions at one place of the file: after a child (its derived functions, each mapped to the
    child's line) or before a function (knobs and prototypes, read by nvcc as the lines just above it)."""

    offset: int
    line: int
    before: bool
    definitions: list[ir.Definition] = field(default_factory=list)
    _once: set[ir.Definition] = field(default_factory=set, repr=False)

    def add_once(self, definition: ir.Definition) -> None:
        """A knob, prototype or include that several sites ask for, written once (a set, not a scan)."""
        if definition not in self._once:
            self._once.add(definition)
            self.definitions.append(definition)


class Context:
    """What passes ask of the file: definitions (made once) and remarks; analyses are asked of the unit
    (`unit.analysis(provider, node)`, computed once per node)."""

    def __init__(self, unit: Unit):
        self.unit = unit
        self.source = unit.source
        self.placed: dict[tuple[int, bool], Placed] = {}
        self._defined: dict[Hashable, str] = {}
        self.pass_name = ""   # the pass at work, for remarks and internal errors
        self.site: Site | None = None
        self.edits: list[tuple[Span, str]] = []           # the user's text a pass changes outside its site
        self.state: dict[str, Any] = {}                   # a pass's own bookkeeping across sites
        self.wrapped: set = set()                         # kernels whose body a pass moved into a device function
        self._after_sites: list[Callable[[Context], None]] = []
        self.defines: dict[str, str] = {}                 # -D macros of the command line

    def edit(self, span: Span, text: str) -> None:
        """Replaces the user's text of `span` (a parent's header that a pass renames)."""
        self.edits.append((span, text))

    def include(self, header: str, comment: str) -> None:
        """`#include "header"` at the top of the file, once."""
        self._at(0, 1, before=False).add_once(ir.Include(header, comment))

    def place_after(self, function: Function, definition: ir.Definition) -> None:
        """A definition on the line after `function` (a wrapper kernel)."""
        from_line = self.source.line_of(function.node.start_byte)
        self._at(after_definition(self.source, function), from_line, before=False).definitions.append(definition)

    def after_sites(self, step: Callable[[Context], None]) -> None:
        """Runs `step` once every site of the file is planned (a parent's wrapper needs all its sites)."""
        self._after_sites.append(step)

    def finish(self) -> None:
        for step in self._after_sites:
            step(self)

    def define(self, request: Request) -> str:
        """The symbol of the requested definition, building and placing it the first time."""
        if request.key not in self._defined:
            self._defined[request.key] = request.symbol
            built = request.build(self)   # may define what it needs first, so those come before it
            offset, line = request.anchor(self)
            self._at(offset, line, before=False).definitions.extend(built)
        return self._defined[request.key]

    def place_before(self, function: Function, definition: ir.Knob | ir.Prototype | ir.Variable) -> None:
        """A knob, prototype or variable just before `function` (once: a knob of several sites, a prototype)."""
        outer = function.outer.start_byte
        self._at(self.source.line_start(outer), self.source.line_of(outer), before=True).add_once(definition)

    def _at(self, offset: int, line: int, before: bool) -> Placed:
        """Definitions after a child come before the knobs of a parent that starts right there."""
        return self.placed.setdefault((offset, before), Placed(offset, line, before))

    def remark(self, kind: Kind, rule: Rule, span: Span, **args) -> Remark:
        """A remark of the pass at work, its message rendered from `args` by the rule."""
        site = self.site
        return self.source.remark(kind, rule, rule.render(args), span, pass_name=self.pass_name,
                                  function=site.launch.enclosing.name if site and site.launch.enclosing else "",
                                  site=site.name if site else "", args=args)

    def knob(self, function: Function, knob: ir.Knob, written: Value | None = None) -> ir.Knob:
        """Places `#ifndef MACRO / #define MACRO default` before the function that uses it; a value the
        pragma `written` outside the knob's domain is an error at the value (a coarsening factor past
        65536 would reach the runtime as 0)."""
        number = written.number() if written is not None else None
        if written is not None and isinstance(number, int) and not knob.domain[0] <= number <= knob.domain[1]:
            raise self.source.error(rules.BAD_VALUE, written.span, "out-of-range", value=written.text, kind=knob.kind,
                                    low=knob.domain[0], high=knob.domain[1], macro=knob.macro)
        self.place_before(function, knob)
        return knob


def replace_launches(code: ir.Stmt, kernel: str, rewrite: Callable[[ir.Launch], ir.Launch]) -> ir.Stmt:
    """`code` with every launch of `kernel` rewritten (a later pass builds on what an earlier wrote)."""
    return ir.transform(code, lambda n: rewrite(n) if isinstance(n, ir.Launch) and n.kernel == kernel else None)



def after_definition(source, function: Function) -> int:
    """The byte offset of the line after the function's definition, where generated code goes."""
    newline = source.data.find(b"\n", function.outer.end_byte)
    return newline + 1 if newline >= 0 else len(source.data)
