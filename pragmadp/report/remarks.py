"""One model for everything pdcc tells the user: LLVM-style optimization remarks and errors.

Every pass reports through `Remark` objects; every renderer (terminal, JSON, SARIF, Markdown) reads
the same list, so what code review sees and what the terminal shows cannot disagree.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Kind(str, enum.Enum):
    APPLIED = "applied"    # a transformation was done (LLVM: Passed)
    MISSED = "missed"      # a transformation was asked for and not done, with the reason
    ANALYSIS = "analysis"  # a fact the user may want (extracted thread count, reserved memory, ...)
    ERROR = "error"        # pdcc cannot go on; nothing is written


@dataclass(frozen=True)
class Rule:
    """A stable rule id (kept across releases so SARIF baselines and CI filters keep working).

    `message` is the remark's text as a format string over its named arguments (LLVM's `ore::NV`): a
    remark of a rule with a message is always rendered from its arguments, so the text a person reads and
    the data a tool reads cannot disagree.
    """

    id: str
    name: str
    summary: str
    message: str = ""

    def render(self, args: dict[str, Any]) -> str:
        """The message with every argument in place (a missing one is a bug in pdcc: KeyError)."""
        return self.message.format_map(args)


@dataclass(frozen=True)
class Location:
    file: str
    line: int      # 1-based
    column: int    # 1-based, in bytes of the line, like gcc and nvcc
    end_line: int | None = None
    end_column: int | None = None


@dataclass
class Remark:
    kind: Kind
    rule: Rule
    message: str
    location: Location
    pass_name: str = ""
    function: str = ""
    site: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    source_line: str = ""        # the text of the line, for the caret display
    caret_length: int = 1
    hint: str = ""               # e.g. "did you mean 'threshold'?"

    @property
    def code(self) -> str:
        return self.rule.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "ruleId": self.rule.id,
            "rule": self.rule.name,
            "pass": self.pass_name,
            "message": self.message,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "function": self.function,
            "site": self.site,
            "args": dict(self.args),
        }

    def render_text(self) -> str:
        """Compiler-style text: `file:line:col: error[PDCC101]: message`, the line, a caret."""
        severity = {Kind.ERROR: "error", Kind.MISSED: "remark", Kind.APPLIED: "remark",
                    Kind.ANALYSIS: "remark"}[self.kind]
        loc = self.location
        head = f"{loc.file}:{loc.line}:{loc.column}: {severity}[{self.rule.id}]: {self.message}"
        lines = [head]
        if self.source_line:
            text = self.source_line.rstrip("\n")
            lines.append(f"  {text}")
            pad = "".join(ch if ch == "\t" else " " for ch in text[: loc.column - 1])
            lines.append(f"  {pad}^" + "~" * max(0, self.caret_length - 1))
        if self.hint:
            lines.append(f"  = help: {self.hint}")
        return "\n".join(lines)


class PdccError(Exception):
    """An error that stops pdcc for one input; carries the remark that explains it."""

    def __init__(self, remark: Remark):
        super().__init__(remark.message)
        self.remark = remark
