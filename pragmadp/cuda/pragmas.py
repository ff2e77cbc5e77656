"""Finding pdcc's pragmas as the C preprocessor does, and saying so where pdcc cannot read one.

A pragma is read from the preprocessor's view of its line (preprocessor.py): blanks after `#`, comments
inside it and line splices mean what they mean to nvcc, and a pragma in a region the preprocessor
certainly skips (`#if 0`) is not a pragma.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from pragmadp import directives
from pragmadp.cuda import preprocessor
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark
from pragmadp.source import SourceFile, Span

HEADER_LIMIT = 16 << 20  # a local header larger than this is not read for pragmas
_MACRO_PRAGMA = re.compile(rb'_Pragma\s*\(\s*"\s*(dp|meld)\b')
_QUOTED = re.compile(r'\s*"([^"\n]+)"')


@dataclass(frozen=True)
class Pragma:
    """One `#pragma dp` or `#pragma meld` line the preprocessor will see."""

    family: str            # dp | meld
    span: Span             # from '#' to the end of the logical line (without its newline)
    text: str              # the text after `pragma`: splices gone, each comment one space
    offsets: list[int]     # the file offset of each character of `text`, then of its end


def pdcc_pragmas(scan: preprocessor.Scan) -> list[Pragma]:
    """Every pdcc pragma outside the regions the preprocessor certainly skips, in source order."""
    found = []
    for line in scan.lines:
        if line.name != "pragma" or line.skipped:
            continue
        text, offsets = scan.argument(line)
        family = directives.pragma_family(text)
        if family is not None:
            found.append(Pragma(family, Span(scan.physical(line.start), scan.physical(line.end)), text, offsets))
    return found


def masked(data: bytes, pragmas: list[Pragma]) -> bytes:
    """`data` with each pdcc pragma replaced by a plain `#pragma dp` of the same length on one line, so the
    CUDA parser sees one directive where the preprocessor does (its comments and splices gone); every
    other byte, and so every offset, stays."""
    if not pragmas:
        return data
    out = bytearray(data)
    for pragma in pragmas:
        plain = b"#pragma dp"
        out[pragma.span.start:pragma.span.end] = plain + b" " * (pragma.span.end - pragma.span.start - len(plain))
    return bytes(out)


def unread_pragmas(source: SourceFile) -> list[Remark]:
    """pdcc reads the '#pragma dp' lines of the file it compiles; missed remarks where a pragma it cannot
    see would otherwise be ignored without a word: `_Pragma("dp ...")` (macros), and the local headers
    included (only regular files, only outside skipped regions, and only up to HEADER_LIMIT bytes: pdcc
    opens no file nvcc would not)."""
    scan = source.preprocessor
    remarks = []
    for match in _MACRO_PRAGMA.finditer(scan.code):
        if scan.is_skipped(match.start()):
            continue
        family = match.group(1).decode()
        remarks.append(source.remark(
            Kind.MISSED, rules.PRAGMA_NOT_READ,
            f"pdcc does not read '_Pragma(\"{family} ...\")' (nor a macro that expands to it); "
            f"write '#pragma {family} ...' on its own line before the statement",
            Span(scan.physical(match.start()), scan.physical(match.end())), pass_name="frontend"))
    directory = os.path.dirname(source.path)
    for line in scan.lines:
        if line.name != "include" or line.skipped:
            continue
        text, offsets = scan.argument(line)
        quoted = _QUOTED.match(text)
        if quoted is None:
            continue
        name = quoted.group(1)
        header = _read_regular_file(os.path.join(directory, name))
        found = next(iter(pdcc_pragmas(preprocessor.scan(header))), None) if header is not None else None
        if found is not None and header is not None:
            line_number = header.count(b"\n", 0, found.span.start) + 1
            remarks.append(source.remark(
                Kind.MISSED, rules.PRAGMA_NOT_READ,
                f"'{name}' has '#pragma {found.family}' at line {line_number}, which pdcc does not apply: it "
                "transforms the .cu files it compiles, not the headers they include; move the annotated kernel "
                "into this file", Span(offsets[quoted.start(1) - 1], offsets[quoted.end(1)] + 1),
                pass_name="frontend", args={"header": name, "line": line_number}))
    return remarks


def _read_regular_file(path: str) -> bytes | None:
    """The bytes of a regular file of at most HEADER_LIMIT bytes, else None: a FIFO, a device such as
    /dev/zero or a huge file is never read (opened without blocking, checked before reading)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > HEADER_LIMIT:
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read(HEADER_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
