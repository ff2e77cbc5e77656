"""Source files, byte spans and the lossless edit buffer.

pdcc never re-prints a file from a tree. It copies the user's bytes and splices generated text into
them, so everything outside an edit stays byte-identical. `#line` directives are added only where the
output stops following the input line by line, so nvcc's diagnostics keep naming the user's file and
line (the way Cython's --line-directives does it).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from pragmadp.cuda import preprocessor
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Location, PdccError, Remark, Rule


_NEWLINE = re.compile(b"\n")
_LINE_DIRECTIVE = re.compile(r'\s*([0-9]+)(?:\s+"((?:\\.|[^"\\])*)")?')
BOM = b"\xef\xbb\xbf"


def quoted_name(path: str) -> str:
    """A file name as it goes between the quotes of a `#line` directive."""
    return path.replace("\\", "\\\\").replace('"', '\\"')


@dataclass(frozen=True)
class Span:
    """A half-open byte range [start, end) of one source file."""

    start: int
    end: int


class SourceFile:
    """The bytes of one input file and a line index to turn byte offsets into line:column."""

    def __init__(self, path: str, data: bytes, display_path: str | None = None):
        self.path = path
        self.display_path = display_path or path
        self.data = data

    @functools.cached_property
    def _line_starts(self) -> list[int]:
        """Offsets of the line starts, built on first use (a file pdcc leaves alone never needs it). A
        byte-order mark is not part of line 1, so columns and copied text start after it."""
        return [len(BOM) if self.data.startswith(BOM) else 0, *(match.end() for match in _NEWLINE.finditer(self.data))]

    @functools.cached_property
    def preprocessor(self) -> preprocessor.Scan:
        """The file's directives as the C preprocessor sees them."""
        return preprocessor.scan(self.data)

    @functools.cached_property
    def _origins(self) -> tuple[list[int], list[tuple[int, str]]]:
        """The file's own `#line` directives (and GNU line markers) outside skipped regions: the physical
        line each one renumbers from, and the (line, quoted file name) it gives that line."""
        starts: list[int] = []
        origins: list[tuple[int, str]] = []
        scan = self.preprocessor
        name = quoted_name(self.display_path)
        for line in scan.lines:
            if line.skipped or not (line.name == "line" or line.name.isdigit()):
                continue
            text = (line.name if line.name.isdigit() else "") + scan.argument(line)[0]
            match = _LINE_DIRECTIVE.match(text)
            if match is None:
                continue  # a macro pdcc cannot expand; nvcc reports a malformed one
            name = match.group(2) if match.group(2) is not None else name
            starts.append(self.line_of(scan.physical(line.end)) + 1)
            origins.append((int(match.group(1)), name))
        return starts, origins

    def origin(self, line: int) -> tuple[int, str]:
        """The (line, quoted file name) nvcc gives physical `line`, through the file's own `#line`s."""
        starts, origins = self._origins
        index = bisect.bisect_right(starts, line) - 1
        if index < 0:
            return line, quoted_name(self.display_path)
        number, name = origins[index]
        return number + line - starts[index], name

    @classmethod
    def load(cls, path: str, display_path: str | None = None) -> "SourceFile":
        """Reads a file's bytes, turning an I/O failure into a PDCC301 error. Whether pdcc can read them as text
        is `unreadable`."""
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise PdccError.at(rules.UNREADABLE_INPUT, Location(display_path or path, 1, 1), "unreadable",
                               reason=exc.strerror or str(exc)) from exc
        return cls(path, data, display_path)

    @classmethod
    def read(cls, path: str, display_path: str | None = None) -> "SourceFile":
        """Reads a text file, turning I/O and encoding failures into a PDCC301 error."""
        source = cls.load(path, display_path)
        if source.unreadable is not None:
            raise source.unreadable
        return source

    @functools.cached_property
    def unreadable(self) -> PdccError | None:
        """The PDCC301 error, located at the first offending byte, when the file is not UTF-8 text; else None."""
        where = self.display_path
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = self.data.count(b"\n", 0, exc.start) + 1
            column = exc.start - (self.data.rfind(b"\n", 0, exc.start) + 1) + 1
            return PdccError.at(rules.UNREADABLE_INPUT, Location(where, line, column), "not-utf8")
        if b"\x00" in self.data:
            return PdccError.at(rules.UNREADABLE_INPUT, Location(where, 1, 1), "nul-bytes")
        return None

    @property
    def line_count(self) -> int:
        """The number of lines (a final line end starts no line)."""
        return len(self._line_starts) - (1 if self.data.endswith(b"\n") else 0)

    @property
    def preprocessor_line_directives(self) -> bool:
        """Whether the file has `#line` directives (or line markers) of its own."""
        return bool(self._origins[0])

    def text(self, span: Span) -> str:
        return self.data[span.start:span.end].decode("utf-8")

    def line_of(self, offset: int) -> int:
        """1-based line number of a byte offset."""
        return max(1, bisect.bisect_right(self._line_starts, offset))

    def column_of(self, offset: int) -> int:
        """1-based byte column of a byte offset."""
        return offset - self._line_starts[self.line_of(offset) - 1] + 1

    def line_start(self, offset: int) -> int:
        return self._line_starts[self.line_of(offset) - 1]

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.data)
        return self.data[start:end].decode("utf-8", errors="replace").rstrip("\r\n")

    def location(self, offset: int, end: int | None = None) -> Location:
        loc_end = None if end is None else (self.line_of(end), self.column_of(end))
        return Location(self.display_path, self.line_of(offset), self.column_of(offset),
                        loc_end[0] if loc_end else None, loc_end[1] if loc_end else None)

    def remark(self, kind: Kind, rule, message: str, span: Span, **extra) -> Remark:
        """A remark located at `span`, with the source line and a caret as long as the span's first line."""
        loc = self.location(span.start, span.end)
        line_end = self.data.find(b"\n", span.start)
        line_end = len(self.data) if line_end < 0 else line_end
        caret = max(1, min(span.end, line_end) - span.start)
        return Remark(kind, rule, message, loc, source_line=self.line_text(loc.line), caret_length=caret, **extra)

    def error(self, rule: Rule, span: Span, message: str, /, **args: Any) -> PdccError:
        """Error `message` of `rule` at `span`, its text and help rendered from `args` (remarks.Message)."""
        text, hint = rule.messages[message].render(args)
        return PdccError(self.remark(Kind.ERROR, rule, text, span, hint=hint, args=args))


@dataclass(frozen=True)
class Copied:
    """Bytes copied from the source, [start, end)."""

    start: int
    end: int


@dataclass(frozen=True)
class Generated:
    """Text pdcc writes; diagnostics inside it point at `line` of the source (the site it serves)."""

    text: str
    line: int


Piece = Copied | Generated


@dataclass
class Rope:
    """A sequence of copied and generated pieces; renders to text with the `#line` bookkeeping."""

    source: SourceFile
    pieces: list[Piece] = field(default_factory=list)

    def copy(self, start: int, end: int) -> "Rope":
        if end > start:
            self.pieces.append(Copied(start, end))
        return self

    def write(self, text: str, line: int) -> "Rope":
        if text:
            self.pieces.append(Generated(text, line))
        return self

    def write_before(self, text: str, line: int) -> "Rope":
        """A block of generated lines that nvcc takes for the lines just above `line`, so copied text
        at `line` can follow it without a `#line` directive."""
        return self.write(text, max(1, line - text.count("\n")))

    def copy_edited(self, start: int, end: int, replacements: list[tuple[int, int, str]]) -> "Rope":
        """Copies [start, end) with small one-line replacements (renamed identifiers) spliced in."""
        position = start
        for edit_start, edit_end, text in sorted(replacements):
            self.copy(position, edit_start)
            self.write(text, self.source.line_of(edit_start))
            position = edit_end
        return self.copy(position, end)

    def extend(self, other: "Rope") -> "Rope":
        self.pieces.extend(other.pieces)
        return self

    def render(self) -> str:
        """The text, with `#line` directives wherever the output stops following the source. Lines are
        named as the file's own `#line` directives name them (SourceFile.origin)."""
        out: list[str] = []
        believed = self.source.origin(1)  # the (line, file) nvcc takes the next output line for
        at_line_start = True

        def directive(origin: tuple[int, str]) -> None:
            nonlocal believed, at_line_start
            if not at_line_start:
                out.append("\n")
            out.append(f'#line {origin[0]} "{origin[1]}"\n')
            believed, at_line_start = origin, True

        for piece in self.pieces:
            if isinstance(piece, Copied):
                text = self.source.data[piece.start:piece.end].decode("utf-8")
                column = self.source.column_of(piece.start)
                origin = self.source.origin(self.source.line_of(piece.start))
                if not (believed == origin and (not at_line_start or column == 1)):
                    directive(origin)
                    out.append(" " * (column - 1))  # keep nvcc's column numbers right
                out.append(text)
                believed = self.source.origin(self.source.line_of(piece.end))  # the user's own #line included
            else:
                text = piece.text
                block = "\n" in text  # a block of generated lines: start it on a line of its own
                if block and not at_line_start:
                    out.append("\n")
                    believed, at_line_start = (believed[0] + 1, believed[1]), True
                origin = self.source.origin(piece.line)
                if at_line_start and believed != origin:
                    directive(origin)  # also text that starts a line (`// pdcc: ` before a pragma)
                if block and not text.endswith("\n"):
                    text += "\n"
                out.append(text)
                believed = (believed[0] + text.count("\n"), believed[1])
            at_line_start = text.endswith("\n") if text else at_line_start
        return "".join(out)


@dataclass(frozen=True)
class Edit:
    """Replace source bytes [start, end) with a rope (start == end inserts)."""

    start: int
    end: int
    replacement: Rope


class EditBuffer:
    """Collects non-overlapping edits of one file and renders the edited file."""

    def __init__(self, source: SourceFile):
        self.source = source
        self.edits: list[Edit] = []   # in source order; insertions at one offset in the order they came
        self._keys: list[tuple[int, int]] = []

    def replace(self, start: int, end: int, replacement: Rope) -> None:
        # The edits do not overlap, so sorted by start their ends never decrease: of the edits that start
        # before `end`, the last one reaches furthest, and it alone can overlap [start, end).
        before = bisect.bisect_left(self._keys, (end, -1)) - 1
        if before >= 0:
            edit = self.edits[before]
            if start < edit.end and edit.start < end:
                raise ValueError(f"overlapping edits at bytes {start}-{end} and {edit.start}-{edit.end}")
        index = bisect.bisect_right(self._keys, (start, end))
        self._keys.insert(index, (start, end))
        self.edits.insert(index, Edit(start, end, replacement))

    def insert(self, offset: int, replacement: Rope) -> None:
        self.replace(offset, offset, replacement)

    def rope(self) -> Rope:
        """The whole edited file as one rope, edits in source order (insertions keep their order), without
        the byte-order mark: what pdcc inserts at the start goes after it (see render)."""
        rope = Rope(self.source)
        position = len(BOM) if self.source.data.startswith(BOM) else 0
        for edit in self.edits:
            rope.copy(position, edit.start)
            rope.extend(edit.replacement)
            position = max(position, edit.end)
        rope.copy(position, len(self.source.data))
        return rope

    def render(self) -> str:
        """The edited file; the input unchanged (byte for byte) when there are no edits."""
        if not self.edits:
            return self.source.data.decode("utf-8")
        bom = "\ufeff" if self.source.data.startswith(BOM) else ""  # a byte-order mark must stay first
        return f'{bom}#line 1 "{quoted_name(self.source.display_path)}"\n' + self.rope().render()
