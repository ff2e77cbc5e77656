"""One model for everything pdcc tells the user: LLVM-style optimization remarks and errors.

Every pass reports through `Remark` objects; every renderer (terminal, JSON, SARIF, Markdown) reads
the same list, so what code review sees and what the terminal shows cannot disagree.

Every text is rendered from named arguments (LLVM's `ore::NV`), and the arguments travel with the remark
into the JSON and SARIF reports, so the sentence a person reads and the data a tool reads cannot disagree:

- a remark's rule has one `message`, a format string; a remark may carry more arguments than its sentence
  shows (data for tools only, e.g. the serial function's name);
- an error's rule has `messages`, each a `Message` named for what went wrong: its text and its `= help:`
  line, both format strings over the same arguments (a help line without data is simply one without
  fields). The code that raises the error picks one by name:
  `source.error(rules.BAD_VALUE, span, "out-of-range", value="70000", kind="coarsen", low=1, high=65536, macro=...)`.
  An error's arguments are exactly the names its text and help use: one missing or one unused is a bug in
  pdcc (KeyError). Where the sentence differs (a suggestion found or not), that is another message, never
  an argument holding a piece of a sentence. A message with a help line alone is help known only later
  (where PDCC900's reproducer went, which the command line adds).

Errors in a source file are `PdccError`s (a located remark); errors of the pdcc command itself (its
options, its report path, nvcc) are `CommandError`s, printed as `pdcc: error[ID]: ...`.
"""

from __future__ import annotations

import enum
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def excerpt(text: str, width: int = 60) -> str:
    """Source text as one line of at most `width` characters, for a remark."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


class Kind(str, enum.Enum):
    APPLIED = "applied"    # a transformation was done (LLVM: Passed)
    MISSED = "missed"      # a transformation was asked for and not done, with the reason
    ANALYSIS = "analysis"  # a fact the user may want (extracted thread count, reserved memory, ...)
    ERROR = "error"        # pdcc cannot go on; nothing is written


@dataclass(frozen=True)
class Message:
    """One thing an error says: its text and its help line, format strings over the same named arguments."""

    text: str
    hint: str = ""

    @property
    def names(self) -> frozenset[str]:
        """The argument names the text and the help line use."""
        return frozenset(name for template in (self.text, self.hint)
                         for _, name, _, _ in string.Formatter().parse(template) if name is not None)

    def render(self, args: Mapping[str, Any]) -> tuple[str, str]:
        """The text and the help line with every argument in place; an argument missing or one the
        message does not use is a bug in pdcc (KeyError)."""
        extra = set(args) - self.names
        if extra:
            raise KeyError(f"arguments {sorted(extra)} are not used by {self.text!r}")
        return self.text.format_map(args), self.hint.format_map(args)


@dataclass(frozen=True)
class Rule:
    """A stable rule id (kept across releases so SARIF baselines and CI filters keep working).

    `message` is a remark's text over its named arguments; `messages` are an error's texts, by name (see
    the module docstring).
    """

    id: str
    name: str
    summary: str
    message: str = ""
    messages: Mapping[str, Message] = field(default_factory=dict, hash=False)

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

    @classmethod
    def at(cls, rule: Rule, location: Location, message: str, /, **args: Any) -> PdccError:
        """Error `message` of `rule` at `location`, with no source line shown (e.g. a whole file)."""
        text, hint = rule.messages[message].render(args)
        return cls(Remark(Kind.ERROR, rule, text, location, hint=hint, args=args))


class CommandError(Exception):
    """An error of the pdcc command itself, in no source file: error `message` of `rule` over `args`."""

    def __init__(self, rule: Rule, message: str, /, **args: Any):
        self.rule = rule
        self.text, self.hint = rule.messages[message].render(args)
        super().__init__(self.text)

    def render_text(self) -> str:
        """`pdcc: error[PDCC303]: message`, and the help line when there is one."""
        help_line = f"\n  = help: {self.hint}" if self.hint else ""
        return f"pdcc: error[{self.rule.id}]: {self.text}{help_line}"
