"""The transformation passes, applied per site in the order threshold -> coarsen -> aggregate.

Each pass is one module. A pass reads the parsed unit, adds edits to the file's edit buffer and
reports what it did as remarks. Clauses whose pass does not exist yet get a *missed* remark and
leave the launch as written for that clause.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pragmadp.cuda.frontend import Site, Unit
from pragmadp.directives import Clause, Threshold
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark
from pragmadp.source import EditBuffer, Generated, Rope, Span


@dataclass
class Rewrite:
    """Everything the passes produce for one file."""

    unit: Unit
    edits: EditBuffer
    remarks: list[Remark] = field(default_factory=list)
    generated_for: set[int] = field(default_factory=set)   # child definitions that already have helpers
    uses_device_launches: bool = False

    def remark(self, kind: Kind, rule, message: str, span: Span, site: Site | None = None,
               pass_name: str = "", **args) -> Remark:
        remark = self.unit.source.remark(kind, rule, message, span, pass_name=pass_name,
                                         function=site.launch.enclosing.name if site else "",
                                         site=site.name if site else "", args=args)
        self.remarks.append(remark)
        return remark


def rewrite(unit: Unit) -> Rewrite:
    """Runs every pass over every site of the unit and comments out the pdcc pragmas it consumed."""
    from pragmadp.transforms import threshold  # the passes import this module's Rewrite

    result = Rewrite(unit, EditBuffer(unit.source))
    result.uses_device_launches = any(launch.on_device for launch in unit.launches)
    for site in unit.sites:
        clauses = site.directive.clauses if site.directive else ()
        for clause in clauses:
            if not isinstance(clause, Threshold):
                _not_supported(result, site, clause)
        threshold_clause = next((c for c in clauses if isinstance(c, Threshold)), None)
        if threshold_clause is not None:
            threshold.apply(result, site, threshold_clause)
    for pragma in unit.pdcc_pragmas:
        _comment_out(result, pragma)
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
    and a second pdcc run must not apply the same pragma again."""
    line = result.unit.source.line_of(pragma.start_byte)
    result.edits.insert(pragma.start_byte, Rope(result.unit.source, [Generated("// pdcc: ", line)]))
