"""Finds kernels, device-side launches and `#pragma dp`/`#pragma meld` sites in a CUDA file.

tree-sitter-cuda gives a concrete syntax tree with byte offsets for the whole file, host C++
included, and keeps going past code it cannot parse (ERROR nodes). pdcc only needs the parts around
each annotated site to be clean: a broken lambda elsewhere must not stop a clean launch from being
rewritten, while a broken annotated launch must be reported, not guessed at.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Optional, TypeVar
from dataclasses import dataclass, field

import tree_sitter
import tree_sitter_cuda

from pragmadp import directives
from pragmadp.cuda import pragmas
from pragmadp.directives import Directive
from pragmadp.report import rules
from pragmadp.source import SourceFile, Span

Node = tree_sitter.Node

# Parents at which a declaration sits at namespace scope (where pdcc may add definitions).
_SCOPE_TYPES = {"translation_unit", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else",
                "preproc_elif", "preproc_elifdef"}


@functools.cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


@functools.cache
def _query() -> tree_sitter.Query:
    """The nodes the Unit indexes: function definitions, kernel launches and function declarations (their
    declarators, also of functions returning a pointer or a reference)."""
    return tree_sitter.Query(tree_sitter.Language(tree_sitter_cuda.language()),
                             "(function_definition) @function (call_expression (kernel_call_syntax)) @launch "
                             "(declaration declarator: (function_declarator) @prototype) "
                             "(declaration declarator: (_ declarator: (function_declarator) @prototype)) "
                             "(field_declaration declarator: (function_declarator) @prototype) "
                             "(field_declaration declarator: (_ declarator: (function_declarator) @prototype))")


@dataclass
class Function:
    """A function definition: a kernel (`__global__`), a device or a host function."""

    name: str
    node: Node                     # function_definition
    outer: Node                    # the declaration at namespace scope (template_declaration, ...)
    template_parameters: Node | None
    qualifiers: frozenset[str]     # among __global__, __device__, __host__

    @property
    def is_kernel(self) -> bool:
        return "__global__" in self.qualifiers

    @property
    def runs_on_device(self) -> bool:
        return bool(self.qualifiers & {"__global__", "__device__"})

    @property
    def body(self) -> Node | None:
        """The compound statement; None for a definition without one (`T() = default;`)."""
        return self.node.child_by_field_name("body")

    @property
    def parameters(self) -> Node | None:
        declarator = _declarator(self.node)
        return declarator.child_by_field_name("parameters") if declarator is not None else None


@dataclass
class Launch:
    """A kernel launch `k<<<grid, block[, smem[, stream]]>>>(args);`."""

    statement: Node                # expression_statement
    call: Node                     # call_expression
    function: Node                 # the launched name, e.g. ns::child<float, 4>
    config: list[Node]             # 2 to 4 configuration expressions
    arguments: list[Node]
    enclosing: Function | None     # None at file scope (cannot happen in valid code)

    @property
    def kernel_name(self) -> str:
        return node_text(launched_identifier(self.function))

    @property
    def on_device(self) -> bool:
        return self.enclosing is not None and self.enclosing.runs_on_device


@dataclass
class Site:
    """A `#pragma dp` (or `--auto`) bound to the launch it annotates."""

    directive: Directive           # --auto gives a site without a pragma its clauses, placed at the launch
    pragma: Node | None            # None for a site made by --auto
    launch: Launch
    name: str = ""                 # e.g. parent_0: the suffix of the site's macros

    @property
    def parent(self) -> Function:
        """The function that makes the site's launch (a site is only ever made for a launch in device code)."""
        assert self.launch.enclosing is not None
        return self.launch.enclosing


@dataclass
class Unit:
    """One parsed CUDA file with everything the passes look up."""

    source: SourceFile
    tree: tree_sitter.Tree
    functions: list[Function] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    pdcc_pragmas: list[Node] = field(default_factory=list)   # every dp/meld pragma node, bound or not
    pragma_at: dict[int, pragmas.Pragma] = field(default_factory=dict)  # the pragmas read, by start offset
    meld_sites: list[tuple[Directive, Node, Node]] = field(default_factory=list)
    include_dirs: tuple[str, ...] = ()    # the command's -I and -isystem directories (quoted includes)
    defines: Mapping[str, str] = field(default_factory=dict)  # the command's -D macros: name -> value
    device_prototypes: set[str] = field(default_factory=set)  # functions declared __device__ or __global__
    prototype_words: dict[str, frozenset[str]] = field(default_factory=dict)  # other prototypes: the words that
    # may be a macro for __device__ (`DEV void f();`: DEV), which headers.declared_on_device resolves
    # Indexes and cached analyses, so that no question about one site walks the whole file again.
    _by_name: dict[str, list[Function]] = field(default_factory=dict, repr=False)
    _by_node: dict[Node, Function] = field(default_factory=dict, repr=False)
    _launch_of: dict[Node, Launch] = field(default_factory=dict, repr=False)
    _analyses: dict[tuple, object] = field(default_factory=dict, repr=False)

    def add_function(self, function: Function) -> None:
        self.functions.append(function)
        self._by_name.setdefault(function.name, []).append(function)
        self._by_node[function.node] = function

    def add_launch(self, launch: Launch) -> None:
        self.launches.append(launch)
        self._launch_of[launch.statement] = launch

    def definitions(self, name: str) -> list[Function]:
        return list(self._by_name.get(name, ()))

    def function_of(self, node: Node) -> Function | None:
        """The Function of a function_definition node."""
        return self._by_node.get(node)

    def launches_in(self, function: Function) -> list[Launch]:
        """The launches `function` makes, in source order."""
        return self.analysis(_launches_by_function).get(function.node, [])

    def device_launches_of(self, kernel: str) -> list[Launch]:
        """The launches of kernel `kernel` made from device code, in source order."""
        return self.analysis(_device_launches_by_kernel).get(kernel, [])

    def launch_of(self, statement: Node) -> Launch | None:
        """The launch a statement makes, if it is one."""
        return self._launch_of.get(statement)

    def analysis(self, provider, *arguments):
        """`provider(unit, *arguments)`, computed once per unit and arguments (nodes are keys): an analysis
        is asked for wherever it is needed and never recomputed, so each site costs what it touches."""
        key = (provider, *arguments)
        if key not in self._analyses:
            self._analyses[key] = provider(self, *arguments)
        return self._analyses[key]

    def text(self, node: Node) -> str:
        return self.source.data[node.start_byte:node.end_byte].decode("utf-8")

    def span(self, node: Node) -> Span:
        return Span(node.start_byte, node.end_byte)


def parse(source: SourceFile, auto: bool = False, include_dirs: tuple[str, ...] = (),
          defines: Mapping[str, str] | None = None, alignment_macros: tuple[bytes, ...] = ()) -> Unit:
    """Parses a file and binds each pdcc pragma to its statement (raising PdccError on misuse). `auto`
    (--auto): device code's branches are sites too, so a file with device code is read whole.
    `include_dirs`: the command's -I and -isystem directories (headers.py reads the headers the file
    includes); `defines`: its -D macros (what a macro's value is, analysis/ctype.py); `alignment_macros`: its
    headers' macros for `__align__(n)`, masked from the parser as the file's own are."""
    found = []
    if b"pragma" in source.data or b"\\\n" in source.data or b"\\\r\n" in source.data:  # a splice may hide it
        _refuse_lone_carriage_returns(source)
        found = pragmas.pdcc_pragmas(source.preprocessor)
    # A file with neither a pdcc pragma nor a launch (nor, under --auto, device code) holds nothing pdcc
    # reads: it is not parsed at all (tree-sitter takes seconds and gigabytes on a 50 MB file), and stands
    # as an empty document.
    concerns_pdcc = found or b"<<<" in source.data or \
        auto and (b"__global__" in source.data or b"__device__" in source.data)
    macros = [*alignment_macros, *attribute_macros(source, defines or {})] if concerns_pdcc else []
    tree = _parser().parse(_without_attribute_macros(pragmas.masked(source.data, found), macros) if concerns_pdcc
                           else b"")
    unit = Unit(source, tree, pragma_at={pragma.span.start: pragma for pragma in found}, include_dirs=include_dirs,
                defines=dict(defines or {}))
    captures = _add_functions(unit)
    for node in sorted(captures.get("launch", ()), key=lambda n: (n.start_byte, -n.end_byte)):
        launch = _launch(unit, node)
        if launch is not None:
            unit.add_launch(launch)
    for pragma in found:
        pragma_node = _pragma_node(tree, pragma.span.start)
        if pragma_node is None:
            raise source.error(rules.NOT_A_LAUNCH, pragma.span, "own-line", family=pragma.family)
        unit.pdcc_pragmas.append(pragma_node)
        _bind(unit, pragma_node, pragma)
    return unit


# CUDA's alignment and built-in type markers, which tree-sitter-cuda does not know: `struct __align__(16) T {...}`
# parses as a function `T` of type `struct __align__`. The parser sees spaces in their place (offsets stay), and
# in place of the macros that stand for one alone (`#define ALIGN(n) __align__(n)`: `struct ALIGN(16) T`; the
# file's, its headers', or `-D'ALIGN(n)=__align__(n)'`),
# in code only: strings, character literals (not a digit separator's quote, 1'000), comments and preprocessor
# lines (where a blank macro value would make tree-sitter take the next line for it) are matched first and kept;
# a literal left open runs to the end of its line, a comment to the end of the file (else each quote or `/*` after
# it would rescan the rest: quadratic).
_KEPT = rb"""
    "(?:\\.|[^"\\\n])*"? | (?<!\w)'(?:\\.|[^'\\\n])*'? | //[^\n]* | /\*.*?(?:\*/|\Z) | ^[ \t]*\#(?:\\.|[^\\\n])*"""
_ARGUMENTS = r"\((?:[^()]|\([^()]*\))*\)"   # one level of nested parentheses: `__align__(sizeof(float4))`
_MARKERS = r"__(?:builtin_)?align__\s*" + _ARGUMENTS + r" | __device_builtin__"
_MARKER_DEFINITION = re.compile(r"\s*(\w+)(\([^)]*\))?\s+(?:" + _MARKERS + r")\s*", re.VERBOSE)


@functools.lru_cache(maxsize=64)
def _attribute_markers(macros: tuple[bytes, ...]) -> re.Pattern[bytes]:
    named = b"".join(rb" | \b" + re.escape(m.rstrip(b"(")) + (rb"\s*" + _ARGUMENTS.encode() if m.endswith(b"(")
                                                              else rb"\b") for m in macros)
    return re.compile(_KEPT + rb" | (?P<marker>\b(?:" + _MARKERS.encode() + rb")" + named + rb")",
                      re.VERBOSE | re.MULTILINE | re.DOTALL)


def attribute_macros(source: SourceFile, defines: Mapping[str, str]) -> list[bytes]:
    """A file's macros for a marker (`#define ALIGN(n) __align__(n)`, outside the regions the preprocessor
    skips) and the command's (`-D'ALIGN(n)=__align__(n)'`): each name, with `(` after it when the macro takes
    arguments, since only a use with them stands for the marker."""
    texts = [f"{name} {value}" for name, value in defines.items()]
    if b"_align__" in source.data or b"__device_builtin__" in source.data:   # (`__builtin_align__` too)
        texts += [text for _, text, _ in source.preprocessor.directives("define")]
    return [(m.group(1) + ("(" if m.group(2) else "")).encode("utf-8", "surrogateescape")
            for m in map(_MARKER_DEFINITION.fullmatch, texts) if m is not None]


def _without_attribute_macros(data: bytes, macros: Sequence[bytes]) -> bytes:
    if b"_align__" not in data and b"__device_builtin__" not in data and not macros:
        return data
    return _attribute_markers(tuple(dict.fromkeys(macros))).sub(
        lambda m: b" " * len(m.group()) if m.group("marker") else m.group(), data)


def index(source: SourceFile, alignment_macros: tuple[bytes, ...]) -> Unit:
    """A header's functions, for the analyses that follow calls into it (headers.py): parsed whole, its
    pragmas neither read nor bound (pdcc transforms the files it compiles, not their headers).
    `alignment_macros`: the command's, the file's and the headers' macros for `__align__(n)` (see `parse`)."""
    unit = Unit(source, _parser().parse(_without_attribute_macros(source.data, alignment_macros)))
    _add_functions(unit)
    return unit


def _add_functions(unit: Unit) -> dict[str, list[Node]]:
    """Indexes the unit's function definitions, outer ones first (for enclosing_function), and the names of
    the device functions it declares; returns every capture of the query (in C: no Python walk of the file)."""
    captures = tree_sitter.QueryCursor(_query()).captures(unit.tree.root_node)
    for node in sorted(captures.get("function", ()), key=lambda n: (n.start_byte, -n.end_byte)):
        unit.add_function(_function(unit, node))
    for declarator in captures.get("prototype", ()):
        declaration, name = declarator.parent, declarator.child_by_field_name("declarator")
        while declaration is not None and declaration.type not in ("declaration", "field_declaration"):
            declaration = declaration.parent
        plain = unit.text(name).split("::")[-1] if name is not None else ""
        if " " in plain and not plain.startswith("operator"):   # `DEV std::size_t f()` misread: `size_t f`
            plain = plain.split()[-1]
        # (a reserved name, `__expf`, is CUDA's however declared; a prototype the preprocessor skips is none)
        if declaration is None or not plain or plain.startswith("__") or \
                unit.source.preprocessor.is_skipped(declaration.start_byte):
            continue
        if any(unit.text(c) in ("__device__", "__global__") for c in declaration.children):
            unit.device_prototypes.add(plain)
        else:   # the words before the declarator (`DEV unsigned f()` nests DEV in the sized type)
            words = frozenset(unit.text(n) for c in declaration.children if c.end_byte <= declarator.start_byte
                              for n in walk(c) if n.type in ("identifier", "type_identifier"))
            if words:
                unit.prototype_words[plain] = unit.prototype_words.get(plain, frozenset()) | words
    return captures


def _refuse_lone_carriage_returns(source: SourceFile) -> None:
    """nvcc ends a line at a carriage return alone (classic Mac OS line ends); pdcc's line bookkeeping does
    not, so such a file is refused rather than read with its pragmas lost."""
    lone = _LONE_CR.search(source.data)
    if lone is not None:
        raise source.error(rules.UNREADABLE_INPUT, Span(lone.start(), lone.start() + 1), "lone-carriage-return")


_LONE_CR = re.compile(rb"\r(?!\n)")


def _pragma_node(tree: tree_sitter.Tree, start: int) -> Node | None:
    """The parser's directive node of the pragma that starts at byte `start`."""
    node = tree.root_node.descendant_for_byte_range(start, start + 1)
    while node is not None and node.type != "preproc_call":
        node = node.parent
    return node if node is not None and node.start_byte == start else None


def _launches_by_function(unit: Unit) -> dict[Node, list[Launch]]:
    index: dict[Node, list[Launch]] = {}
    for launch in unit.launches:
        if launch.enclosing is not None:
            index.setdefault(launch.enclosing.node, []).append(launch)
    return index


def _device_launches_by_kernel(unit: Unit) -> dict[str, list[Launch]]:
    index: dict[str, list[Launch]] = {}
    for launch in unit.launches:
        if launch.on_device:
            index.setdefault(launch.kernel_name, []).append(launch)
    return index


def node_text(node: Node) -> str:
    """The text of a node of a tree parsed from bytes (tree-sitter's `text` is None only without them)."""
    text = node.text
    assert text is not None
    return text.decode()


def required(node: Node, field_name: str) -> Node:
    """The child in a field the grammar always fills for this kind of node (tree-sitter types every field
    as optional)."""
    child = node.child_by_field_name(field_name)
    assert child is not None, (node.type, field_name)
    return child


_MaybeNode = TypeVar("_MaybeNode", Node, Optional[Node])


def unparenthesised(node: _MaybeNode) -> _MaybeNode:
    """The expression inside the parentheses around it (`((x))`: `x`), or the node itself."""
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def walk(node: Node) -> Iterator[Node]:
    """Every node below (and including) `node`, in source order."""
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            current = cursor.node
            assert current is not None   # a cursor made by Node.walk is always on a node
            yield current
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


def declared_names(declaration: Node) -> Iterator[Node]:
    """The identifiers a declaration (or parameter declaration) declares: `p` in `int *p = q`, `a` in
    `float a[4]`, `r` in `int& r = x`, not the names of its initialisers."""
    for declarator in declaration.children_by_field_name("declarator"):
        name = declared_name(declarator)
        if name is not None:
            yield name


def declared_name(declarator: Node) -> Node | None:
    """The identifier one declarator declares (None for an abstract one)."""
    node: Node | None = declarator
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator") or \
            next((c for c in node.named_children if c.type.endswith("declarator") or c.type == "identifier"), None)
    return node


def unwrapped_declarator(declarator: Node) -> Node | None:
    """What an init_declarator declares, without its value (`s[4] = {}`: `s[4]`); any other declarator as it is;
    None for an init_declarator that tree-sitter left without one."""
    while declarator.type == "init_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return None
        declarator = inner
    return declarator


def plain_type_name(unit: Unit, node: Node | None) -> str | None:
    """The name a type is declared under, without scope, template arguments or tag (`ns::Box<4>`, `struct Box`:
    `Box`); None for
    a type of no name of its own (`int`, `decltype(x)`)."""
    while node is not None and node.type in ("qualified_identifier", "template_type", "struct_specifier",
                                             "class_specifier", "union_specifier"):
        node = node.child_by_field_name("name")
    return unit.text(node) if node is not None and node.type == "type_identifier" else None


def local_bindings(unit: Unit, function_node: Node) -> dict[str, Node]:
    """Each name a function declares (parameters and locals) and what a call of it reaches: the lambda it is
    initialised with, else its declaration (a function object, a function pointer, a parameter). The first
    declaration of a name stands for it. Computed once per function."""
    return unit.analysis(_local_bindings, function_node)


def _local_bindings(unit: Unit, function_node: Node) -> dict[str, Node]:
    found: dict[str, Node] = {}
    for node in walk(function_node):
        if node.type in ("parameter_declaration", "optional_parameter_declaration", "declaration"):
            for declarator in node.children_by_field_name("declarator"):
                name = declared_name(declarator)
                value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
                if name is not None:
                    found.setdefault(unit.text(name), value if value is not None and value.type ==
                                     "lambda_expression" else node)
    return found


def _declarator(function_node: Node) -> Node | None:
    node = function_node.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


def _function(unit: Unit, node: Node) -> Function:
    declarator = _declarator(node)
    name_node = declarator.child_by_field_name("declarator") if declarator else None
    name = unit.text(name_node).split("::")[-1] if name_node else ""
    if name.startswith(("operator", "~")):   # `operator ()`, `~ Tile` as `operator()`, `~Tile` (not `operator new`)
        name = re.sub(r"\s+(?=\W)|(?<=\W)\s+", "", name)
    qualifiers = frozenset(unit.text(child) for child in node.children
                           if unit.text(child) in ("__global__", "__device__", "__host__"))
    outer = node
    template_parameters = None
    while outer.parent is not None and outer.parent.type not in _SCOPE_TYPES:
        if outer.parent.type == "template_declaration" and template_parameters is None:
            template_parameters = outer.parent.child_by_field_name("parameters")
        outer = outer.parent
    return Function(name, node, outer, template_parameters, qualifiers)


def scoped_name(unit: Unit, function: Function) -> str | None:
    """The name a call outside any class reaches the function by, with its namespaces (`ns::f`, `ns::S::f`
    for a method defined outside its class, written so); None for a method defined in its class body."""
    declarator = _declarator(function.node)
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if name is None:
        return None
    scopes = []
    node = function.node.parent
    while node is not None:
        if node.type == "field_declaration_list":
            return None
        if node.type == "namespace_definition" and node.child_by_field_name("name") is not None:
            scopes.append(unit.text(required(node, "name")))
        node = node.parent
    return "::".join([*reversed(scopes), "".join(unit.text(name).split())])


def kernel_call_syntax(call: Node) -> Node | None:
    """The `<<<...>>>` of a call expression that is a kernel launch, else None."""
    return next((child for child in call.children if child.type == "kernel_call_syntax"), None)


LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})   # node types


def in_loop(launch: Launch) -> bool:
    """Whether the launch sits in a loop of its function (a thread may then launch several times)."""
    assert launch.enclosing is not None   # a site's launch is in a function
    node: Node | None = launch.statement
    while node is not None and node != launch.enclosing.body:
        if node.type in LOOPS or _body_of_a_loop_cut_by_a_pragma(node):
            return True
        node = node.parent
    return False


def _body_of_a_loop_cut_by_a_pragma(statement: Node) -> bool:
    """`for (...)` or `while (...)`, a pragma line, then `statement`: the parser ends the loop (bodiless)
    at the pragma, but for the compiler the statement is the loop's body."""
    previous = statement.prev_named_sibling
    while previous is not None and previous.type in ("preproc_call", "comment"):
        previous = previous.prev_named_sibling
    if previous is None or previous.type not in ("for_statement", "for_range_loop", "while_statement"):
        return False
    body = previous.child_by_field_name("body")
    return body is None or body.start_byte == body.end_byte


def launched_identifier(function: Node) -> Node:
    """The plain name inside a launched expression: `child` in `ns::child<float, 4>`."""
    node = function
    while node.type in ("qualified_identifier", "template_function"):
        name = node.child_by_field_name("name")
        assert name is not None   # a required field of both
        node = name
    return node


def called_name(unit: Unit, call: Node) -> str | None:
    """The plain name of the function a call calls: `f` in `f(x)`, `ns::f<T>(x)`, `t.f(x)`, `p->f(x)`; None
    for a call through an expression (`(*fp)(x)`, `table[i](x)`)."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "field_expression":
        function = function.child_by_field_name("field")
    name = launched_identifier(function) if function is not None else None
    return unit.text(name) if name is not None and name.type in ("identifier", "field_identifier") else None


def enclosing_function(unit: Unit, node: Node) -> Function | None:
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        parent = parent.parent
    if parent is None:
        return None
    return unit.function_of(parent) or _function(unit, parent)


def _launch(unit: Unit, call: Node) -> Launch | None:
    statement = call.parent
    if statement is None or statement.type != "expression_statement":
        return None
    syntax = kernel_call_syntax(call)
    function = call.child_by_field_name("function")
    assert syntax is not None and function is not None   # the query matched a call with <<<...>>>
    config = [child for child in syntax.named_children if child.type != "comment"]
    arguments_node = call.child_by_field_name("arguments")
    arguments = [a for a in arguments_node.named_children if a.type != "comment"] if arguments_node else []
    return Launch(statement, call, function, config, arguments,
                  enclosing_function(unit, call))


def _next_statement(node: Node) -> Node | None:
    sibling = node.next_named_sibling
    while sibling is not None and sibling.type == "comment":
        sibling = sibling.next_named_sibling
    return sibling


def _bind(unit: Unit, pragma: Node, read: pragmas.Pragma) -> None:
    directive = directives.parse_directive(unit.source, read.span, read.text, read.offsets)
    statement = _next_statement(pragma)
    if directive.family == "meld":
        if statement is None or statement.type != "if_statement":
            raise unit.source.error(rules.NOT_AN_IF, unit.span(statement) if statement is not None else read.span,
                                    "not-an-if")
        unit.meld_sites.append((directive, pragma, statement))
        return
    launch = unit.launch_of(statement) if statement is not None else None
    if launch is None and statement is not None and statement.type == "preproc_call" and \
            statement.start_byte in unit.pragma_at:
        raise unit.source.error(rules.NOT_A_LAUNCH, read.span, "two-pragmas")
    if launch is None:
        where = unit.span(statement) if statement is not None else read.span
        if statement is not None and statement.has_error:
            raise unit.source.error(rules.UNPARSABLE_REGION, _first_error(unit, statement), "statement")
        raise unit.source.error(rules.NOT_A_LAUNCH, where, "no-launch")
    if launch.statement.has_error:
        raise unit.source.error(rules.UNPARSABLE_REGION, _first_error(unit, launch.statement), "launch")
    if not launch.on_device:
        caller = launch.enclosing.name if launch.enclosing else "file scope"
        raise unit.source.error(rules.HOST_LAUNCH, unit.span(launch.call), "host-code", caller=caller)
    assert launch.enclosing is not None   # on the device
    if "__host__" in launch.enclosing.qualifiers:
        raise unit.source.error(rules.HOST_LAUNCH, unit.span(launch.call), "host-device",
                                function=launch.enclosing.name)
    unit.sites.append(Site(directive, pragma, launch))


def _first_error(unit: Unit, node: Node) -> Span:
    for child in walk(node):
        if child.is_error or child.is_missing:
            return unit.span(child) if child.end_byte > child.start_byte else Span(child.start_byte, child.start_byte + 1)
    return unit.span(node)


def name_sites(unit: Unit) -> None:
    """Gives each site its macro suffix `<function>_<index>`, unique in the file and stable across runs."""
    counts: dict[str, int] = {}
    taken: set[str] = set()
    for site in sorted(unit.sites, key=lambda s: s.launch.statement.start_byte):
        base = re.sub(r"\W+", "_", site.parent.name).strip("_") or "site"  # `operator()`, `f<float>`
        index = counts.get(base, 0)
        name = f"{base}_{index}"
        while name in taken:
            index += 1
            name = f"{base}_{index}"
        counts[base] = index + 1
        taken.add(name)
        site.name = name


GENERATED_MARK = "// pdcc: generated"


def is_generated(launch: Launch) -> bool:
    """pdcc marks the launches it writes, so `--auto` on its own output changes nothing."""
    comment = launch.statement.next_sibling
    return (comment is not None and comment.type == "comment" and node_text(comment).startswith(GENERATED_MARK)
            and comment.start_point.row == launch.statement.end_point.row)


#: what `--auto` adds to a launch of a kernel by itself when its clause list has no consolidation of its own
#: (warp, block or grid) for it: consolidation (seed 003), with which the list's threshold composes
AUTO_RECURSION = "consldt(block)"


def add_auto_sites(unit: Unit, clauses: str) -> None:
    """`--auto`: every device-side launch without a pragma becomes a site with `clauses`; a launch of a
    kernel by itself gets consolidation too (AUTO_RECURSION in place of an aggregation granularity).

    Launches under `#pragma dp off`, pdcc's own launches and launches in host code are left alone.
    """
    template, recursion = (_auto_directive(text) for text in (clauses, AUTO_RECURSION))
    consolidation = template.clause(directives.Consolidate)
    if consolidation is None or consolidation.granularity not in ("warp", "block", "grid"):
        recursion = dataclasses.replace(recursion, clauses=tuple(
            c for c in template.clauses if not isinstance(c, directives.Consolidate)) + recursion.clauses)
    else:
        recursion = template
    annotated = {site.launch.statement for site in unit.sites}  # `#pragma dp off` sites too
    opted_out = {_next_statement(node) for node in walk(unit.tree.root_node)  # pragmas pdcc already consumed
                 if node.type == "comment" and unit.text(node).startswith("// pdcc: #pragma dp")}
    for launch in unit.launches:
        if (launch.enclosing is None or not launch.on_device or "__host__" in launch.enclosing.qualifiers
                or launch.statement in annotated or launch.statement in opted_out or is_generated(launch)
                or launch.statement.has_error):
            continue
        chosen = recursion if launch.enclosing.is_kernel and launch.kernel_name == launch.enclosing.name else template
        here = Span(launch.call.start_byte, launch.call.end_byte)
        relocated = tuple(dataclasses.replace(clause, span=here) for clause in chosen.clauses)
        unit.sites.append(Site(dataclasses.replace(chosen, span=here, clauses=relocated), None, launch))
    unit.sites.sort(key=lambda site: site.launch.statement.start_byte)


def _auto_directive(clauses: str) -> directives.Directive:
    text = f"dp {clauses}"
    command_line = SourceFile("<--auto>", text.encode())
    return directives.parse_directive(command_line, Span(0, len(command_line.data)), text,
                                      directives.char_offsets(text, 0))
