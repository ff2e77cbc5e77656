"""Finding pdcc's pragmas as the C preprocessor does, and saying so where pdcc cannot read one.

A pragma is read from the preprocessor's view of its line (preprocessor.py): blanks after `#`, comments
inside it and line splices mean what they mean to nvcc, and a pragma in a region the preprocessor
certainly skips (`#if 0`) is not a pragma.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pragmadp import directives
from pragmadp.cuda import preprocessor
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Remark
from pragmadp.source import SourceFile, Span

_MACRO_PRAGMA = re.compile(rb'_Pragma\s*\(\s*"\s*(dp|meld)\b')


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
    for line, text, offsets in scan.directives("pragma"):
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


def unread_pragmas(source: SourceFile, include_dirs: Sequence[str] = ()) -> list[Remark]:
    """pdcc reads the '#pragma dp' lines of the file it compiles; missed remarks where a pragma it cannot
    see would otherwise be ignored without a word: `_Pragma("dp ...")` (macros), and the headers the file
    includes with quotes (found as the preprocessor finds them, preprocessor.quoted_includes)."""
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
    for header in preprocessor.quoted_includes(scan, os.path.dirname(source.path), include_dirs):
        if header.unread:
            continue   # said by headers.not_read
        found = next(iter(pdcc_pragmas(preprocessor.scan(header.data))), None)
        if found is not None:
            line_number = header.data.count(b"\n", 0, found.span.start) + 1
            remarks.append(source.remark(
                Kind.MISSED, rules.PRAGMA_NOT_READ,
                f"'{header.name}' has '#pragma {found.family}' at line {line_number}, which pdcc does not apply: it "
                "transforms the .cu files it compiles, not the headers they include; move the annotated kernel "
                "into this file", Span(*header.span), pass_name="frontend", args={"header": header.name, "line": line_number}))
    return remarks
