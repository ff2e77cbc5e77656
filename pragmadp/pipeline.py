"""One file through pdcc: read -> parse -> bind directives -> transform -> apply edits -> text.

The command line (cli.py) runs this for each CUDA input, then nvcc, then the reports.

A bug in pdcc must never reach the user's build as a Python traceback: `transform` turns any
unexpected exception into an `InternalError`, a PdccError (PDCC900) located at the site being
transformed when it happened. Where that was is read, in this order, from
the exception (a pass may set `exc.pass_name`, a str, and `exc.span`, a source.Span of the input),
from the pass interface's `context` (a local of that name with `pass_name` and `site`, as
transforms.base.Context keeps them), and from the traceback: the pass is the outermost frame in a
`pragmadp.transforms` module (else the innermost pragmadp frame), the site the innermost frame holding a
local `site` (a frontend.Site).
"""

from __future__ import annotations

import difflib
import functools
import re
import traceback
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pragmadp.cuda import frontend, headers, pragmas, preprocessor
from pragmadp.report import rules
from pragmadp.report.remarks import PdccError, Remark
from pragmadp.source import SourceFile, Span, quoted_name
from pragmadp import ir
from pragmadp.rewrite import rewrite

_TRANSFORMS = "pragmadp.transforms."
_LINE_DIRECTIVE = re.compile(r'#line ([0-9]+) "((?:\\.|[^"\\])*)"')


@dataclass(frozen=True)
class SiteLines:
    """Where a site is in the user's file: its pragma (or, under --auto, its statement) and the statement's
    last line; nvcc's diagnostics in the code written for the site are pointed at `anchor`."""

    anchor: Span                   # the pragma line, or the statement of an --auto site
    first_line: int
    last_line: int
    name: str = ""                 # the site's macro suffix (e.g. parent_0), where the front end named it


@dataclass
class Result:
    source: SourceFile
    text: str                      # the transformed file (the input, unchanged, when nothing applies)
    remarks: list[Remark] = field(default_factory=list)
    uses_device_launches: bool = False
    knobs: list[ir.Knob] = field(default_factory=list)   # every tunable value of the file's sites (-D MACRO=...)
    sites: list[SiteLines] = field(default_factory=list)

    @property
    def data(self) -> bytes:
        """The transformed file's bytes (an input passed through unread keeps its own, whatever its encoding)."""
        return self.text.encode("utf-8", "surrogateescape")

    @property
    def changed(self) -> bool:
        return self.data != self.source.data

    @functools.cached_property
    def _output_lines(self) -> list[tuple[int | None, str]]:
        """Each line of the transformed text with the line of the user's file nvcc takes it for (None on a
        `#line` directive and under a `#line` that names another file)."""
        name = quoted_name(self.source.display_path)
        label: int | None = 1
        lines: list[tuple[int | None, str]] = []
        for text in self.text.split("\n"):
            match = _LINE_DIRECTIVE.fullmatch(text)
            if match:
                label = int(match.group(1)) if match.group(2) == name else None
                lines.append((None, text))
                continue
            lines.append((label, text))
            label = None if label is None else label + 1
        return lines

    def generated_at(self, line: int, echoed: str | None = None) -> tuple[bool, SiteLines | None]:
        """Whether what nvcc calls `line` of this file (showing the source text `echoed`, when it did) is code
        pdcc wrote, and if so the site it was written for (None: a definition pdcc added, not one site's)."""
        if not self.changed or self.source.preprocessor_line_directives:
            return False, None
        lines, total = self._output_lines, self.source.line_count
        candidates = [index for index, (label, _) in enumerate(lines) if label == line]
        if echoed is not None and echoed.strip() and len(candidates) > 1:
            # nvcc echoes the line as its front end saw it, macros expanded: the most similar line is the one
            def similarity(index: int) -> float:
                return difflib.SequenceMatcher(None, lines[index][1].strip(), echoed.strip()).ratio()
            candidates = [max(candidates, key=similarity)]
        if not candidates:
            return line > total, None
        if any(self._copied(label, text) for label, text in (lines[index] for index in candidates)):
            return False, None
        start = candidates[0]
        while start > 0 and lines[start - 1][0] is not None and not self._copied(*lines[start - 1]):
            start -= 1  # back to the start of the generated run: the pragma comment, or the block's first line
        first = lines[start][0]
        assert first is not None
        return True, next((site for site in self.sites if site.first_line <= first <= site.last_line), None)

    def _copied(self, label: int | None, text: str) -> bool:
        """A line of the output that is the user's line `label` as written."""
        return label is not None and label <= self.source.line_count and text == self.source.line_text(label)


class InternalError(PdccError):
    """A bug in pdcc met while transforming one input: the PDCC900 remark, the source, the traceback."""

    def __init__(self, remark: Remark, source: SourceFile, details: str):
        super().__init__(remark)
        self.source = source
        self.details = details     # the formatted traceback, for the reproducer


def transform(source: SourceFile, auto: str | None = None, defines: Mapping[str, str] | None = None,
              include_dirs: tuple[str, ...] = ()) -> Result:
    """Transforms one CUDA source. Raises PdccError (with its remark) when the input is wrong, and
    InternalError (a PdccError) when pdcc itself fails.

    `auto` is a clause list (e.g. "threshold(128)") applied to every device-side launch that has no
    pragma of its own, as the CGO'22 framework does without pragmas. `defines` are the command line's
    `-D` macros: the knobs pdcc itself reads (a meld site's threshold decides at transform time).
    `include_dirs` are its `-I` and `-isystem` directories, where the headers the file includes with quotes
    are found (the analyses follow calls into them).
    """
    try:
        unit = frontend.parse(source, auto=auto is not None, include_dirs=include_dirs, defines=defines)
        alignment = headers.alignment_macros_used(unit)
        if alignment:   # `struct ALIGN(16) T` with a header's ALIGN: parsed again, ALIGN(16) unseen
            unit = frontend.parse(source, auto=auto is not None, include_dirs=include_dirs, defines=defines,
                                  alignment_macros=alignment)
        if auto is not None:
            frontend.add_auto_sites(unit, auto)
        frontend.name_sites(unit)
        result = rewrite(unit, defines or {}, auto=auto is not None)
        return Result(source, result.text, result.remarks, result.uses_device_launches, result.knobs,
                      _site_lines(unit))
    except PdccError:
        raise
    except Exception as exc:  # noqa: BLE001 - every other exception is a bug in pdcc, reported as one
        raise internal_error(source, exc) from exc


def transform_path(path: str, display_path: str | None = None, auto: str | None = None,
                   defines: Mapping[str, str] | None = None, include_dirs: tuple[str, ...] = ()) -> Result:
    return transform_input(read_input(path, display_path), auto, defines, include_dirs)


def read_input(path: str, display_path: str | None = None, data: bytes | None = None) -> SourceFile:
    """An input as pdcc reads it (`data`: its bytes, already read, e.g. from standard input). A file that is not
    UTF-8 text (or holds NUL bytes) is pdcc's business only when it holds a pdcc pragma: then it is refused with a
    located PDCC301; without one it goes to nvcc untouched, as nvcc would take it (see `transform_input`)."""
    return SourceFile.load(path, display_path) if data is None else SourceFile(path, data, display_path)


def transform_input(source: SourceFile, auto: str | None = None, defines: Mapping[str, str] | None = None,
                    include_dirs: tuple[str, ...] = ()) -> Result:
    """`transform`, or the input untouched when it is not text and holds no pdcc pragma."""
    if source.unreadable is not None:
        if pragmas.pdcc_pragmas(preprocessor.scan(source.data)):
            raise source.unreadable
        return Result(source, source.data.decode("utf-8", "surrogateescape"))
    return transform(source, auto, defines, include_dirs)


def _site_lines(unit: frontend.Unit) -> list[SiteLines]:
    """Each site's lines, from its pragma (or --auto statement) to the end of its statement."""
    source = unit.source
    anchored = [(site.pragma or site.launch.statement, site.launch.statement, site.name) for site in unit.sites]
    anchored += [(pragma, statement, "") for _, pragma, statement in unit.meld_sites]
    return [SiteLines(Span(anchor.start_byte, anchor.end_byte), source.line_of(anchor.start_byte),
                      source.line_of(max(statement.start_byte, statement.end_byte - 1)), name)
            for anchor, statement, name in anchored]


def internal_error(source: SourceFile, exc: BaseException) -> InternalError:
    """The PDCC900 error for an exception that escaped a pass, at its site when it is known."""
    pass_name, span = _where(exc)
    if span is not None and not 0 <= span.start <= span.end <= len(source.data):
        span = None
    at, cause = span or Span(0, 0), one_line_cause(exc)
    if pass_name:
        error = source.error(rules.INTERNAL_ERROR, at, "pass-site" if span else "pass-file", pass_name=pass_name,
                             cause=cause)
    else:
        error = source.error(rules.INTERNAL_ERROR, at, "site" if span else "file", cause=cause)
    remark = error.remark
    remark.pass_name = pass_name or ""
    if span is None:
        remark.source_line = ""  # 1:1 stands for the whole file: no caret under its first line
    details = "".join(traceback.format_exception(exc))
    return InternalError(remark, source, details)


def one_line_cause(exc: BaseException) -> str:
    """`TypeError: message`, cut to one line of at most 200 characters."""
    text = str(exc).strip().splitlines()
    cause = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    return cause if len(cause) <= 200 else cause[:197] + "..."


def _where(exc: BaseException) -> tuple[str | None, Span | None]:
    """The pass and the site an exception escaped from: its own attributes, the pass context, the traceback."""
    pass_name = getattr(exc, "pass_name", None)
    span = getattr(exc, "span", None)
    frames = [frame for frame, _line in traceback.walk_tb(exc.__traceback__)]
    context: Any = next((frame.f_locals["context"] for frame in reversed(frames) if "context" in frame.f_locals), None)
    if not isinstance(pass_name, str) and isinstance(getattr(context, "pass_name", None), str) and context.pass_name:
        pass_name = context.pass_name
    if not isinstance(span, Span) and isinstance(getattr(context, "site", None), frontend.Site):
        span = _statement_span(context.site)
    if not isinstance(pass_name, str):
        pass_name = _pass_of(frames)
    if not isinstance(span, Span):
        span = _site_span(frames)
    return pass_name, span


def _pass_of(frames: list[types.FrameType]) -> str | None:
    modules = [frame.f_globals.get("__name__", "") for frame in frames]
    for module in modules:  # outermost first: the pass that called into helpers and analyses
        if module.startswith(_TRANSFORMS):
            return module.rsplit(".", 1)[1]
    inner = [m for m in modules if m.startswith("pragmadp.") and m != __name__]
    return inner[-1].rsplit(".", 1)[1] if inner else None


def _site_span(frames: list[types.FrameType]) -> Span | None:
    for frame in reversed(frames):  # innermost first: the site being worked on when it failed
        site = frame.f_locals.get("site")
        if isinstance(site, frontend.Site):
            return _statement_span(site)
    return None


def _statement_span(site: frontend.Site) -> Span:
    statement = site.launch.statement
    return Span(statement.start_byte, statement.end_byte)
