"""The C preprocessor's view of a file, as far as pdcc needs it: which lines are directives, what they
say once line splices and comments are gone, and which regions it certainly skips.

The preprocessor removes every backslash-newline first (translation phase 2), then replaces each
comment by one space (phase 3), and only then looks for lines whose first token is `#` (phase 4), with
any blanks or comments around the `#`. pdcc reads its pragmas the same way, so `# pragma dp`,
`#pragma dp /* tuned */ threshold(8)` and `thre\\<newline>shold(8)` mean what they mean to nvcc. Without
the macro set only `#if 0` (and the `#else` of `#if 1`) is known to be skipped; every other condition
is taken as possibly true.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

_SPLICE = re.compile(rb"\\\r?\n")
# Comments and the strings and character literals that may contain comment-like text, in one pass.
_COMMENT_OR_STRING = re.compile(rb'/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?', re.S)
_DIRECTIVE = re.compile(rb"^[ \t\f\v\r]*#[ \t\f\v]*([A-Za-z_]\w*|[0-9]+)?", re.M)
_CONSTANT_CONDITION = re.compile(r"\s*\(?\s*([01])\s*\)?\s*")
_CONDITIONALS = {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"}
_QUOTED = re.compile(r'\s*"([^"\n]+)"')
HEADER_LIMIT = 16 << 20  # a header larger than this is not read


@dataclass(frozen=True)
class DirectiveLine:
    """One directive: `name` is the word after `#` (`pragma`, `include`, `line`, or digits for a GNU
    line marker); offsets are in the spliced text (see Scan.physical)."""

    name: str
    start: int          # the '#'
    argument: int       # just after the name
    end: int            # end of the logical line, before its newline
    skipped: bool       # in a region the preprocessor certainly skips


@dataclass
class Scan:
    """The directives of one file, and the maps from the preprocessor's text back to the file's bytes."""

    code: bytes                             # spliced, every comment blanked to spaces of the same length
    comments: list[tuple[int, int]]         # spans of the comments in `code`
    lines: list[DirectiveLine]
    skipped: list[tuple[int, int]]          # regions certainly skipped, in `code` offsets
    _splices: list[int] = field(default_factory=list)   # `code` offsets where a splice was removed
    _removed: list[int] = field(default_factory=list)   # bytes removed up to and including each one

    def physical(self, offset: int) -> int:
        """The file offset of a `code` offset."""
        index = bisect.bisect_right(self._splices, offset)
        return offset + (self._removed[index - 1] if index else 0)

    def is_skipped(self, offset: int) -> bool:
        index = bisect.bisect_right(self.skipped, (offset, float("inf"))) - 1
        return index >= 0 and self.skipped[index][0] <= offset < self.skipped[index][1]

    def directives(self, name: str) -> Iterator[tuple[DirectiveLine, str, list[int]]]:
        """Each `#name` line outside the regions certainly skipped, with its argument (see `argument`)."""
        for line in self.lines:
            if line.name == name and not line.skipped:
                yield (line, *self.argument(line))

    def argument(self, line: DirectiveLine) -> tuple[str, list[int]]:
        """The text after the directive's name as the preprocessor sees it (each comment one space), and
        the file offset of each of its characters followed by the file offset of its end."""
        text: list[str] = []
        offsets: list[int] = []
        position = line.argument
        first = bisect.bisect_left(self.comments, (line.argument, 0))
        for start, end in [*self.comments[first:], (line.end, line.end)]:
            start, end = min(start, line.end), min(end, line.end)
            piece = self.code[position:start].decode("utf-8", errors="replace")
            offset = position
            for character in piece:
                text.append(character)
                offsets.append(self.physical(offset))
                offset += len(character.encode("utf-8", errors="replace"))
            if start >= line.end:
                break
            text.append(" ")
            offsets.append(self.physical(start))
            position = end
        offsets.append(self.physical(line.end))
        return "".join(text), offsets


@dataclass(frozen=True)
class Include:
    """A header a file includes with quotes, found: the name as written, the file offsets of the quoted name
    (quotes included), whether it was found beside the including file (else in an include directory), the
    path it was found at, the file's identity (device, inode: one file reached by two paths is one header)
    and its bytes, or, when pdcc does not read it, why (`unread`; its bytes are then empty)."""

    name: str
    span: tuple[int, int]
    beside: bool
    path: str
    identity: tuple[int, int]
    data: bytes
    unread: str = ""


def quoted_includes(scan: Scan, directory: str, include_dirs: Sequence[str]) -> list[Include]:
    """The headers the file's `#include "NAME"` lines read, found as the preprocessor finds them: beside the
    including file (`directory`), then in the command's include directories in order; the first file found
    is the header. Only lines outside the regions certainly skipped, and only regular files of at most
    HEADER_LIMIT bytes are read: pdcc opens no file nvcc would not, and never reads a FIFO or a device (such
    a header is in the list, `unread` saying why). A header not found is left to nvcc to report."""
    found = []
    for _, text, offsets in scan.directives("include"):
        quoted = _QUOTED.match(text)
        if quoted is None:
            continue
        name = quoted.group(1)
        for index, place in enumerate((directory, *include_dirs)):
            path = os.path.join(place, name)
            read = _read_header(path)
            if read is None:
                continue  # nothing there: the search goes on
            identity, data, unread = read
            span = (offsets[quoted.start(1) - 1], offsets[quoted.end(1)] + 1)
            found.append(Include(name, span, index == 0, path, identity, data, unread))
            break
    return found


def _read_header(path: str) -> tuple[tuple[int, int], bytes, str] | None:
    """None when there is no file at `path` (nor a directory there); else the file's identity, its bytes when
    it is a regular file of at most HEADER_LIMIT bytes, and why not otherwise (a FIFO, a device such as
    /dev/zero or a huge file is never read: opened without blocking, checked before reading)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            return None
        identity = (status.st_dev, status.st_ino)
        if not stat.S_ISREG(status.st_mode):
            return identity, b"", "not a regular file"
        if status.st_size > HEADER_LIMIT:
            return identity, b"", f"{status.st_size / (1 << 20):.0f} MiB, over the {HEADER_LIMIT >> 20} MiB pdcc reads"
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return identity, handle.read(HEADER_LIMIT + 1), ""
    except OSError:
        return None
    finally:
        os.close(descriptor)


def scan(data: bytes) -> Scan:
    """The directive lines of `data` with the regions the preprocessor certainly skips."""
    splices: list[int] = []
    removed: list[int] = []
    if b"\\\n" in data or b"\\\r\n" in data:
        pieces, position, total = [], 0, 0
        for match in _SPLICE.finditer(data):
            pieces.append(data[position:match.start()])
            total += match.end() - match.start()
            splices.append(match.start() - total + (match.end() - match.start()))
            removed.append(total)
            position = match.end()
        pieces.append(data[position:])
        data = b"".join(pieces)
    comments: list[tuple[int, int]] = []

    def blank(match: re.Match) -> bytes:
        if match.group().startswith(b"/"):
            comments.append(match.span())
            return b" " * (match.end() - match.start())
        return match.group()

    code = _COMMENT_OR_STRING.sub(blank, data) if b"/" in data else data
    lines, skipped = _directives(code)
    return Scan(code, comments, lines, skipped, splices, removed)


@dataclass
class _Conditional:
    """One #if group: whether the branch now open is certainly skipped, and whether an earlier branch was
    certainly (True), certainly not (False) or possibly (None) taken."""

    skipping: bool
    taken: bool | None
    outer_skipping: bool


def _directives(code: bytes) -> tuple[list[DirectiveLine], list[tuple[int, int]]]:
    lines: list[DirectiveLine] = []
    skipped: list[tuple[int, int]] = []
    stack: list[_Conditional] = []
    skip_start = 0
    for match in _DIRECTIVE.finditer(code):
        end = code.find(b"\n", match.end())
        end = len(code) if end < 0 else end
        name = (match.group(1) or b"").decode()
        was_skipping = _skipping(stack)
        if name in _CONDITIONALS:
            condition = _constant(code[match.end():end]) if name in ("if", "elif") else None
            _conditional(stack, name, condition)
        now_skipping = _skipping(stack)
        lines.append(DirectiveLine(name, code.index(b"#", match.start()), match.end(), end,
                                   was_skipping and now_skipping))
        if now_skipping and not was_skipping:
            skip_start = end
        elif was_skipping and not now_skipping:
            skipped.append((skip_start, match.start()))
    if _skipping(stack):
        skipped.append((skip_start, len(code)))  # an unterminated #if 0
    return lines, skipped


def _skipping(stack: list[_Conditional]) -> bool:
    return bool(stack) and (stack[-1].skipping or stack[-1].outer_skipping)


def _constant(condition: bytes) -> bool | None:
    match = _CONSTANT_CONDITION.fullmatch(condition.decode("utf-8", errors="replace"))
    return None if match is None else match.group(1) == "1"


def _conditional(stack: list[_Conditional], name: str, condition: bool | None) -> None:
    """Updates the #if stack for one conditional directive."""
    if name.startswith("if"):
        stack.append(_Conditional(condition is False, condition, _skipping(stack)))
        return
    if not stack:
        return  # an #else or #endif without #if: nvcc reports it
    top = stack[-1]
    if name == "endif":
        stack.pop()
    elif name == "else":
        top.skipping = top.taken is True
        top.taken = True
    else:  # elif, elifdef, elifndef
        if top.taken is True:
            top.skipping = True
        else:
            top.skipping = condition is False
            top.taken = condition if top.taken is False else (True if condition else None)
