"""The functions and macros of the headers a file includes with quotes, for the analyses that follow calls.

Whether a child kernel's threads may run one after another, or only as the blocks they were launched as,
depends on what its callees do (analysis/serial.py), and a project's device functions often live in its
own headers (`#include "tile.cuh"`). Those are read: every header included with quotes, found as the
preprocessor finds it (beside the including file, then in the command's -I and -isystem directories), and
the headers they include in turn, at most MAX_HEADERS, each file once however it is reached. A header is
scanned for its directives when found, and parsed only when a name looked up occurs in it. Bytes that are
not UTF-8 (a Latin-1 comment) are read as spaces.

Not read, and so not seen: headers included with `<...>` (CUDA's, the C++ library's, CUB's), a header past
MAX_HEADERS or larger than preprocessor.HEADER_LIMIT (`not_read`: remark PDCC603), and functions of other
translation units. A function defined only there is assumed not to cooperate.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
import re
from collections.abc import Iterator

from pragmadp.cuda import frontend, preprocessor
from pragmadp.cuda.frontend import Function, Unit
from pragmadp.source import SourceFile

MAX_HEADERS = 256


class Header:
    """One header read: its source, parsed on the first lookup that may find something in it."""

    def __init__(self, source: SourceFile, alignment_macros: list[bytes]):
        self.source = source
        self.alignment_macros = alignment_macros  # the command's, the file's and every header's, one shared list

    @functools.cached_property
    def unit(self) -> Unit:
        return frontend.index(self.source, tuple(self.alignment_macros))


@dataclasses.dataclass(frozen=True)
class NotRead:
    """A header the file includes with quotes, directly or not, that pdcc does not read: where it is included
    (the including file and the quoted name's span there) and why."""

    source: SourceFile
    span: tuple[int, int]
    name: str
    why: str


def included(unit: Unit) -> tuple[Header, ...]:
    """The headers the unit's file includes with quotes, directly or through one another, in the order
    they are first included; computed once per unit."""
    return unit.analysis(_included).headers


def alignment_macros_used(unit: Unit) -> tuple[bytes, ...]:
    """The headers' macros for `__align__(n)` (`#define ALIGN(n) __align__(n)`) that the file names, which its
    parser must not see (frontend.parse): not those a header `#undef`s at its end, whose names the file may use
    for something else; none for a file pdcc had no reason to parse."""
    if unit.tree.root_node.end_byte == 0:
        return ()
    own = set(frontend.attribute_macros(unit.source, unit.defines))   # masked in the first parse already
    reading = unit.analysis(_included)
    return tuple(m for m in dict.fromkeys(reading.alignment_macros)
                 if m not in own and m.rstrip(b"(") not in reading.undefined and
                 re.search(rb"\b%s%s" % (re.escape(m.rstrip(b"(")), rb"\s*\(" if m.endswith(b"(") else rb"\b"),
                           unit.source.data))


def not_read(unit: Unit) -> tuple[NotRead, ...]:
    """The headers found and not read (too large, not a regular file, past MAX_HEADERS): the analyses do not
    see their functions."""
    return unit.analysis(_included).unread


def definitions(unit: Unit, name: str) -> list[tuple[Unit, Function]]:
    """Every definition of a function called `name` (its plain name: a namespace's, a class's or a template
    function of that name too), in the file and in its headers, with the unit each is in."""
    found = [(unit, f) for f in unit.definitions(name)]
    word = re.sub(r"\W", "", name).encode()   # `operator()` may be written `operator ()`, `~Tile` `~ Tile`
    return found + [(header.unit, f) for header in included(unit) if word in header.source.data
                    for f in header.unit.definitions(name)]


def bodies(unit: Unit, name: str) -> list[tuple[Unit, Function]]:
    """The definitions with a body a call of `name` from device code may reach: whatever their qualifiers
    say (a function device code calls runs on the device, and `#define DEV __device__` hides the word)."""
    return [(owner, f) for owner, f in definitions(unit, name) if f.body is not None]


def device_bodies(unit: Unit, name: str) -> list[tuple[Unit, Function]]:
    """The definitions of `name` device code may reach: all with a body but those that say `__host__` alone."""
    return [(owner, f) for owner, f in bodies(unit, name) if not host_only(unit, f)]


def classes(unit: Unit, name: str) -> list[tuple[Unit, frontend.Node]]:
    """Every struct, class or union called `name` (its plain name: a namespace's or a template of that name too,
    or a typedef's of an unnamed one) defined with a body, in the file and in its headers, with the unit each is
    in."""
    return [(u, node) for u in units_naming(unit, name) for node in u.analysis(_types)[0].get(name, ())]


def aliases(unit: Unit, name: str) -> list[tuple[Unit, frontend.Node]]:
    """The types a `typedef` or `using` of that name stands for (other than a struct it defines), in the file
    and in its headers, with the unit each is in."""
    return [(u, node) for u in units_naming(unit, name) for node in u.analysis(_types)[1].get(name, ())]


def host_only(unit: Unit, function: Function) -> bool:
    """Whether a definition says `__host__` and neither `__device__` nor a macro that may spell it: device code
    cannot call it."""
    return function.qualifiers == {"__host__"} and not any(
        child.type != "compound_statement" and frontend.node_text(child) in unit.analysis(_device_macros)
        for child in function.node.children)


def units_naming(unit: Unit, name: str) -> list[Unit]:
    """The file's unit and those of its headers whose text holds `name` (parsed only then)."""
    word = name.encode()
    return [unit, *(header.unit for header in included(unit) if word in header.source.data)]


def _types(unit: Unit) -> tuple[dict[str, list[frontend.Node]], dict[str, list[frontend.Node]]]:
    defined: dict[str, list[frontend.Node]] = collections.defaultdict(list)
    aliased: dict[str, list[frontend.Node]] = collections.defaultdict(list)
    for node in frontend.walk(unit.tree.root_node):
        if node.type in _CLASSES and node.child_by_field_name("body") is not None:
            name = frontend.plain_type_name(unit, node.child_by_field_name("name"))
            if name is not None:
                defined[name].append(node)
        elif node.type in ("type_definition", "alias_declaration"):
            target = node.child_by_field_name("type")
            if target is not None and target.type == "type_descriptor":
                target = target.child_by_field_name("type")
            names = node.children_by_field_name("declarator") if node.type == "type_definition" else \
                [node.child_by_field_name("name")]
            for declared in names:
                if declared is not None and declared.type == "type_identifier" and target is not None:
                    body = target.type in _CLASSES and target.child_by_field_name("body") is not None
                    (defined if body else aliased)[unit.text(declared)].append(target)
    return defined, aliased


_CLASSES = ("struct_specifier", "class_specifier", "union_specifier")


def declared_on_device(unit: Unit, name: str) -> bool:
    """Whether the file or one of its headers declares a `__device__` (or `__global__`) function `name`,
    written so or through a macro (`#define DEV __device__` ... `DEV void f(int*);`)."""
    word = name.encode()
    units = [unit, *(header.unit for header in included(unit) if word in header.source.data)]
    return any(name in u.device_prototypes for u in units) or \
        any(u.prototype_words.get(name, frozenset()) & unit.analysis(_device_macros) for u in units)


def directives(unit: Unit, name: str) -> Iterator[str]:
    """The text after `#name` of each such line of the file and of its quoted headers (outside the regions the
    preprocessor certainly skips), in that order."""
    for source in (unit.source, *(header.source for header in included(unit))):
        for _, text, _ in source.preprocessor.directives(name):
            yield text


def macro_definitions(unit: Unit) -> Iterator[str]:
    """The text after `#define` of every macro the file may see: the command's -D first, as the preprocessor
    defines them before the file (`-D'SYNC()=__syncthreads()'` is `SYNC() __syncthreads()`), then the file's and
    its quoted headers' `#define` lines."""
    for name, value in unit.defines.items():
        yield f"{name} {value}"
    yield from directives(unit, "define")


def _device_macros(unit: Unit) -> frozenset[str]:
    """Object-like macros whose replacement says `__device__` or `__global__` (`#define HD __host__ __device__`),
    directly or through another such macro (`#define QUAL HD`)."""
    replacements = [(m.group(1), set(re.findall(r"\w+", m.group(2))))
                    for m in map(OBJECT_MACRO.match, macro_definitions(unit)) if m]
    found = {"__device__", "__global__"}
    while True:
        more = {name for name, words in replacements if words & found} - found
        if not more:
            return frozenset(found - {"__device__", "__global__"})
        found |= more


OBJECT_MACRO = re.compile(r"\s*([A-Za-z_]\w*)(?![\w(])(.*)", re.S)  # a `#define` of a name not followed by `(`


@dataclasses.dataclass(frozen=True)
class _Reading:
    """What reading a file's quoted includes found."""

    headers: tuple[Header, ...]
    unread: tuple[NotRead, ...]
    alignment_macros: list[bytes]   # the command's, the file's and the headers' (`Header.alignment_macros`)
    undefined: frozenset[bytes] = frozenset()   # those a header ends with `#undef` (and no later one defines)


def _included(unit: Unit) -> _Reading:
    found: list[Header] = []
    unread: list[NotRead] = []
    alignment = frontend.attribute_macros(unit.source, unit.defines)
    undefined: set[bytes] = set()
    seen = set()
    try:
        status = os.stat(unit.source.path)
        seen.add((status.st_dev, status.st_ino))
    except OSError:
        pass  # standard input
    pending = collections.deque([unit.source])
    while pending:
        source = pending.popleft()
        for include in preprocessor.quoted_includes(source.preprocessor, os.path.dirname(source.path),
                                                    unit.include_dirs):
            if include.identity in seen:
                continue
            seen.add(include.identity)
            if include.unread or len(found) >= MAX_HEADERS:
                why = include.unread or f"past the {MAX_HEADERS} headers pdcc reads, with the headers it includes"
                unread.append(NotRead(source, include.span, include.name, why))
                if not include.unread:
                    return _Reading(tuple(found), tuple(unread), alignment, frozenset(undefined))
                continue
            # named as a compiler names it: beside the including file, from that file's name; else as found
            shown = os.path.join(os.path.dirname(source.display_path), include.name) if include.beside else include.path
            header = SourceFile(include.path, _as_text(include.data), shown)
            found.append(Header(header, alignment))
            defined = frontend.attribute_macros(header, {})
            alignment.extend(defined)
            undefined = (undefined - {m.rstrip(b"(") for m in defined}) | _undefined(header, defined)
            pending.append(header)
    return _Reading(tuple(found), tuple(unread), alignment, frozenset(undefined))


def _undefined(header: SourceFile, macros: list[bytes]) -> set[bytes]:
    """The macros of a header that it `#undef`s after their last `#define` (`#define ALIGN(n) __align__(n)` ...
    `#undef ALIGN`): the file that includes it may use the name for something else."""
    last: dict[bytes, str] = {}
    for directive in header.preprocessor.lines if macros else ():
        if directive.name in ("define", "undef") and not directive.skipped:
            words = header.preprocessor.argument(directive)[0].split()
            if words:
                last[re.split(rb"\(", words[0].encode("utf-8", "surrogateescape"))[0]] = directive.name
    return {name for name in (m.rstrip(b"(") for m in macros) if last.get(name) == "undef"}


def _as_text(data: bytes) -> bytes:
    """`data` with every byte that is not part of a UTF-8 character replaced by a space: the same length, so
    every offset stays."""
    try:
        data.decode("utf-8")
        return data
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        return "".join(" " if "\udc80" <= c <= "\udcff" else c for c in text).encode("utf-8")
