"""The transformation passes, applied per site in the order threshold -> coarsen -> aggregate.

Each pass is one module. A site's passes build one `launch.SiteCode` in order (threshold adds the
guard and the serial path, coarsen swaps in the coarsened kernel), which then replaces the launch.
Definitions the passes need (`outline.py`: the child's outlined body and its variants) are added after
the child. Clauses whose pass does not exist yet get a *missed* remark and leave the launch as written
for that clause.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pragmadp.cuda import pragmas
from pragmadp.cuda.frontend import Site, Unit
from pragmadp.directives import AggThreshold, Buffer, Clause, Coarsen, Consolidate, Threshold, Work
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark
from pragmadp.source import EditBuffer, Generated, Rope, Span


@dataclass
class Rewrite:
    """Everything the passes produce for one file."""

    unit: Unit
    edits: EditBuffer
    remarks: list[Remark] = field(default_factory=list)
    generated_for: set[tuple[int, str]] = field(default_factory=set)  # (child definition, helper) already added
    uses_device_launches: bool = False
    preludes: dict[int, list[str]] = field(default_factory=dict)  # parent start -> text to put before it
    aggregations: dict[int, list] = field(default_factory=dict)  # parent node start -> aggregated sites in it

    def remark(self, kind: Kind, rule, message: str, span: Span, site: Site | None = None,
               pass_name: str = "", **args) -> Remark:
        remark = self.unit.source.remark(kind, rule, message, span, pass_name=pass_name,
                                         function=site.launch.enclosing.name if site else "",
                                         site=site.name if site else "", args=args)
        self.remarks.append(remark)
        return remark


def rewrite(unit: Unit) -> Rewrite:
    """Runs the passes over every site of the unit and comments out the pdcc pragmas it consumed."""
    from pragmadp.transforms import aggregate, coarsen, launch, outline, threshold  # they import Rewrite

    result = Rewrite(unit, EditBuffer(unit.source))
    result.uses_device_launches = any(launch_.on_device for launch_ in unit.launches)
    for site in unit.sites:
        directive = site.directive
        for clause in directive.clauses:
            if not isinstance(clause, (Threshold, Coarsen, Consolidate, AggThreshold, Buffer, Work)):
                _not_supported(result, site, clause)
        threshold_clause, coarsen_clause = directive.clause(Threshold), directive.clause(Coarsen)
        consolidate_clause = directive.clause(Consolidate)
        first = threshold_clause or coarsen_clause or consolidate_clause
        if first is None:
            continue
        child = outline.find_child(result, site, first.name, first.span)
        if child is None:
            continue
        code = launch.base(unit, site, child)
        if threshold_clause is not None:
            threshold.apply(result, site, threshold_clause, child, code)
        if code.serial is None and (coarsen_clause or consolidate_clause):  # fallback, before coarsening
            code.serial = threshold.serial_call(result, site, child, code)
        coarsen_macro = coarsen.apply(result, site, coarsen_clause, child, code) if coarsen_clause else None
        if consolidate_clause is not None:
            aggregate.apply(result, site, directive, child, code, coarsen_macro)
        if code.passes:
            launch.replace_statement(result, site, code)
    if result.aggregations:
        aggregate.wrap_parents(result)
    for parent_start, definitions in result.preludes.items():
        source = unit.source
        result.edits.insert(source.line_start(parent_start),
                            Rope(source).write_before("".join(definitions), source.line_of(parent_start)))
    for pragma in unit.pdcc_pragmas:
        _comment_out(result, pragma)
    result.remarks.extend(pragmas.unread_pragmas(unit.source))
    for directive, _pragma, statement in unit.meld_sites:
        result.remark(Kind.MISSED, rules.CLAUSE_NOT_SUPPORTED,
                      "'#pragma meld' is not supported yet; the if/else is left as written",
                      Span(statement.start_byte, statement.start_byte + 2), pass_name="meld")
    return result


def _not_supported(result: Rewrite, site: Site, clause: Clause) -> None:
    result.remark(Kind.MISSED, rules.CLAUSE_NOT_SUPPORTED,
                  f"clause '{clause.name}' is not supported yet; the launch is left as written for it",
                  clause.span, site, pass_name=clause.name, clause=clause.name)


def _comment_out(result: Rewrite, pragma) -> None:
    """`#pragma dp ...` -> `// pdcc: #pragma dp ...`: nvcc warns about unknown pragmas in device code,
    and a second pdcc run must not apply the same pragma again. Further lines of the pragma (a block
    comment that goes on) are commented too."""
    source = result.unit.source
    result.edits.insert(pragma.start_byte, Rope(source, [Generated("// pdcc: ", source.line_of(pragma.start_byte))]))
    end = pragma.end_byte - 1 if source.data[pragma.end_byte - 1:pragma.end_byte] == b"\n" else pragma.end_byte
    position = source.data.find(b"\n", pragma.start_byte, end)
    while position >= 0:
        result.edits.insert(position + 1, Rope(source, [Generated("// ", source.line_of(position + 1))]))
        position = source.data.find(b"\n", position + 1, end)
