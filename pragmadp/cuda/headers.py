"""The functions of the headers a file includes with quotes, for the analyses that follow calls.

Whether a child kernel's threads may run one after another, or only as the blocks they were launched as,
depends on what its callees do (analysis/serial.py), and a project's device functions often live in its
own headers (`#include "tile.cuh"`). Those are read: every header included with quotes, found as the
preprocessor finds it (beside the including file, then in the command's -I directories), and the headers
they include in turn, at most MAX_HEADERS. Headers included with `<...>` (CUDA's, the C++ library's, CUB's)
are not read: a function defined only there is assumed not to cooperate, as one of another translation unit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pragmadp.cuda import frontend, preprocessor
from pragmadp.cuda.frontend import Function, Unit
from pragmadp.source import SourceFile

MAX_HEADERS = 256


@dataclass(frozen=True)
class Header:
    """One header read: the name its #include writes, and its functions."""

    name: str
    unit: Unit


def included(unit: Unit) -> tuple[Header, ...]:
    """The headers the unit's file includes with quotes, directly or through one another, in the order
    they are first included; computed once per unit."""
    return unit.analysis(_included)


def definitions(unit: Unit, name: str) -> list[tuple[Unit, Function]]:
    """The definitions of function `name` with the unit each is in: the file's own when it has any, else
    those of its headers."""
    own = [(unit, f) for f in unit.definitions(name)]
    return own or [(header.unit, f) for header in included(unit) for f in header.unit.definitions(name)]


def _included(unit: Unit) -> tuple[Header, ...]:
    headers: list[Header] = []
    seen = {os.path.normpath(unit.source.path)}
    pending = [unit.source]
    while pending and len(headers) < MAX_HEADERS:
        source = pending.pop(0)
        scan = source.preprocessor if source is unit.source else preprocessor.scan(source.data)
        for include in preprocessor.quoted_includes(scan, os.path.dirname(source.path), unit.include_dirs):
            if include.path in seen or len(headers) >= MAX_HEADERS:
                continue
            seen.add(include.path)
            header = SourceFile(include.path, include.data, include.name)
            if header.unreadable is not None:  # not text: nvcc's to report
                continue
            headers.append(Header(include.name, frontend.index(header)))
            pending.append(header)
    return tuple(headers)
