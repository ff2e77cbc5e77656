"""The launched kernel as pieces the passes build on: its parameters, its template, its outlined body.

`child__pdcc_thread` is the child's body as a device function of one (block, thread), the built-ins
passed in as parameters, so a `return` in the child ends that thread's work and nothing more. The
threshold pass calls it in a loop in the parent thread, the coarsen pass in a loop over the original
blocks inside a coarsened kernel, aggregation in the aggregated kernel. It is written once per child,
after the child's definition, as the user's own text (`ir.Verbatim`) with the built-ins renamed.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import ClassVar

from pragmadp import ir
from pragmadp.analysis import serial
from pragmadp.cuda.frontend import Function, Node, Site, Unit, launched_identifier, required, walk
from pragmadp.report import rules
from pragmadp.report.remarks import Rule
from pragmadp.source import Span
from pragmadp.transforms.base import Context, after_definition

MAX_THREADS = 1024  # what a block may have on every GPU pdcc targets: the bound of kernels without their own
BUILTINS = {"threadIdx": "pdcc_threadIdx", "blockIdx": "pdcc_blockIdx", "blockDim": "pdcc_blockDim",
            "gridDim": "pdcc_gridDim"}
BUILTIN_ORDER = ("blockIdx", "threadIdx", "gridDim", "blockDim")  # as child__pdcc_thread takes them
THREAD_SUFFIX = "__pdcc_thread"
_BLANKS = re.compile(rb"\s*")


@dataclass(frozen=True)
class Child:
    """The launched kernel of a site, with what the passes need to build on it."""

    function: Function
    parameters: tuple[ir.Parameter, ...]
    template: str         # `template <...>` or ""
    template_args: str    # `<T, B>` or ""
    obstacles: tuple[serial.Obstacle, ...]  # why it cannot run serially, in source order (empty: it can)

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def declarations(self) -> tuple[str, ...]:
        return tuple(p.declaration for p in self.parameters)

    @property
    def runs_serially(self) -> bool:
        return not self.obstacles

    def launch_bounds(self, unit: Unit) -> str:
        """The child's own `__launch_bounds__(...)`, or "" (the kernels pdcc derives from it keep them)."""
        bounds = next((n for n in self.function.node.children if n.type == "launch_bounds"), None)
        return unit.text(bounds) if bounds is not None else ""


@dataclass(frozen=True)
class NotFound:
    """Why a site's child cannot be built on."""

    rule: Rule
    reason: str


def find(context: Context, site: Site) -> Child | NotFound:
    """The launched kernel's definition in this file, or why pdcc cannot build on it."""
    unit = context.unit
    name = site.launch.kernel_name
    definitions = [f for f in unit.definitions(name) if f.is_kernel and f.body is not None]
    if len(definitions) == 1 and not _broken(unit, definitions[0]):
        function = definitions[0]
        forwarded = parameters(unit, function)
        instantiated = _defaults_at(unit, site, function, forwarded) if forwarded is not None else None
        if instantiated is not None:
            return Child(function, tuple(instantiated), template_prefix(unit, function),
                         template_arguments(unit, function), serial.obstacles(unit, function))
        if forwarded is None:
            return NotFound(rules.CHILD_UNSUPPORTED, f"child '{name}' has a parameter pdcc cannot forward "
                            "(an unnamed function pointer or C varargs)")
        return NotFound(rules.CHILD_UNSUPPORTED, f"a default argument of child '{name}' depends on a template parameter "
                        "the launch does not name (write its template arguments, e.g. child<float><<<...>>>)")
    if not definitions and _split_by_conditionals(unit, name):
        return NotFound(rules.CHILD_UNKNOWN, f"the definition of kernel '{name}' is split by #if/#ifdef branches (its "
                        "signature in them, its body after them), which pdcc does not evaluate; write the whole "
                        "definition in each branch")
    if not definitions:
        return NotFound(rules.CHILD_UNKNOWN, f"kernel '{name}' is not defined in this file, so pdcc cannot build on "
                        "its body")
    if len(definitions) > 1:
        return NotFound(rules.CHILD_UNKNOWN, f"kernel '{name}' has {len(definitions)} definitions (overloads); pdcc "
                        "cannot tell which one is launched")
    return NotFound(rules.CHILD_UNKNOWN, f"the definition of kernel '{name}' could not be parsed")


def _broken(unit: Unit, function: Function) -> bool:
    """Whether the definition has a parse error of its own. A pdcc pragma between `if (...)` (or a loop
    header) and its statement ends the statement for the CUDA parser, which then misses a `;` right
    before the pragma; for the compiler the pragma is no statement, so that is no error."""
    if not function.node.has_error:
        return False
    pragmas = {pragma.start_byte for pragma in unit.pdcc_pragmas}
    data = unit.source.data
    for node in walk(function.node):
        if node.is_error:
            return True
        if node.is_missing:
            blanks = _BLANKS.match(data, node.end_byte)
            assert blanks is not None   # \s* matches anywhere
            if blanks.end() not in pragmas:
                return True
    return False


def _split_by_conditionals(unit: Unit, name: str) -> bool:
    """Whether `name` is declared in a preprocessor conditional that a bare body follows after #endif
    (the signature chosen by #if, the body shared); a prototype in an include guard is not that."""
    for node in walk(unit.tree.root_node):
        if node.type == "function_declarator" and unit.text(required(node, "declarator")) == name:
            outermost = None
            parent = node.parent
            while parent is not None:
                if parent.type in ("preproc_if", "preproc_ifdef"):
                    outermost = parent
                parent = parent.parent
            following = outermost.next_named_sibling if outermost is not None else None
            if following is not None and following.type == "compound_statement":
                return True
    return False


def obstacle_reason(unit: Unit, obstacle: serial.Obstacle, site: Site) -> tuple[str, int]:
    """The obstacle and the line it is on, for a missed remark. A site that is itself a launch of the
    kernel by itself names its own launch, not the kernel's first self-launch."""
    node = obstacle.node
    if obstacle.rule is rules.CHILD_RECURSIVE and site.launch.enclosing is not None \
            and site.launch.enclosing.name == obstacle.function == site.launch.kernel_name:
        node = site.launch.call
    line = unit.source.line_of(node.start_byte)
    return f"{obstacle.message} at line {line}", line


def launch_template_arguments(launch) -> Node | None:
    """The `<...>` of a launch of a template kernel that names its arguments (`ns::child<float, 4>`)."""
    node = launch.function
    while node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    return node.child_by_field_name("arguments") if node.type == "template_function" else None


def _defaults_at(unit: Unit, site: Site, function: Function, forwarded: list[ir.Parameter]) -> list[ir.Parameter] | None:
    """The parameters with the defaults the launch relies on written for the launch site: template
    parameters they mention become the launch's template arguments. None when the launch names none."""
    names = [name for name, _variadic in _template_parameters(unit, function)]
    arguments = launch_template_arguments(site.launch)
    values = [unit.text(a) for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    mapping = dict(zip(names, values))
    result = []
    for index, parameter in enumerate(forwarded):
        used = {n for n in names if parameter.default and re.search(rf"\b{re.escape(n)}\b", parameter.default)}
        if index < len(site.launch.arguments) or not used:
            result.append(parameter)
        elif used <= mapping.keys():
            default = re.sub(r"\b(" + "|".join(map(re.escape, sorted(used))) + r")\b",
                             lambda m: mapping[m.group(1)], parameter.default or "")
            result.append(ir.Parameter(parameter.declaration, parameter.name, default))
        else:
            return None
    return result


def type_parameter_names(unit: Unit, function: Function | None) -> tuple[str, ...]:
    """Template type parameters (they may appear in casts inside grid expressions)."""
    if function is None or function.template_parameters is None:
        return ()
    names: list[str] = []
    for parameter in function.template_parameters.named_children:
        if parameter.type in ("type_parameter_declaration", "optional_type_parameter_declaration",
                              "variadic_type_parameter_declaration"):
            names.extend(unit.text(n) for n in parameter.named_children if n.type == "type_identifier")
    return tuple(names)


def template_arguments(unit: Unit, function: Function) -> str:
    """`<T, B, Ts...>`: the template parameters of `function`, passed on explicitly."""
    if function.template_parameters is None:
        return ""
    names = (name + ("..." if variadic else "") for name, variadic in _template_parameters(unit, function))
    return "<" + ", ".join(names) + ">"


def _template_parameters(unit: Unit, function: Function) -> list[tuple[str, bool]]:
    """(name, variadic) of each template parameter of `function`, in order."""
    names = []
    for parameter in (function.template_parameters.named_children if function.template_parameters else ()):
        if parameter.type == "optional_parameter_declaration":
            identifier = parameter.child_by_field_name("declarator")
        elif parameter.type == "optional_type_parameter_declaration":
            identifier = parameter.child_by_field_name("name")
        else:
            identifiers = [n for n in walk(parameter) if n.type in ("type_identifier", "identifier")]
            if not identifiers:
                continue
            identifier = identifiers[-1] if parameter.type == "parameter_declaration" else identifiers[0]
        if identifier is None:  # `typename = int`: nothing can name it, and forwarding the others keeps its default
            continue
        names.append((unit.text(identifier), "variadic" in parameter.type))
    return names


def template_prefix(unit: Unit, function: Function) -> str:
    """`template <...>` for a template function, else nothing."""
    if function.template_parameters is None:
        return ""
    return "template " + unit.text(function.template_parameters)


def parameters(unit: Unit, function: Function) -> list[ir.Parameter] | None:
    """The function's parameters as pdcc forwards them, or None when one cannot be forwarded (C varargs,
    an unnamed function pointer). An unnamed parameter gets the name `pdcc_param<i>`."""
    assert function.parameters is not None, f"no parameter list found in the definition of '{function.name}'"
    result = []
    nodes = [n for n in function.parameters.named_children if n.type != "comment"]
    if len(nodes) == 1 and unit.text(nodes[0]).strip() == "void":  # `f(void)`: C's empty list
        return []
    for index, node in enumerate(nodes):
        if node.type == "variadic_parameter":
            return None
        declarator = node.child_by_field_name("declarator")
        default = node.child_by_field_name("default_value")
        end = declarator.end_byte if declarator is not None else (default.start_byte if default else node.end_byte)
        # __grid_constant__ is allowed on __global__ parameters only; the copies pdcc makes are plain values
        text = re.sub(r"\s*__grid_constant__\s*", " ", unit.source.data[node.start_byte:end].decode()).strip().rstrip(" =")
        identifier = next((n for n in walk(declarator) if n.type == "identifier"), None) if declarator else None
        if identifier is None:
            if declarator is not None and any(n.type not in ("abstract_pointer_declarator", "*", "type_qualifier",
                                                             "const", "volatile", "__restrict__", "...")
                                              for n in walk(declarator)):
                return None
            name = f"pdcc_param{index}"
            text = f"{text} {name}"
        else:
            name = unit.text(identifier)
        variadic = node.type == "variadic_parameter_declaration"
        result.append(ir.Parameter(text, name + ("..." if variadic else ""),
                                   unit.text(default) if default is not None else None))
    return result


def renamed(unit: Unit, function: Node, suffix: str) -> str:
    """`ns::child<float, 4>` -> `ns::child__pdcc_serial<float, 4>`: the launched name with a suffix."""
    identifier = launched_identifier(function)
    data = unit.source.data
    return (data[function.start_byte:identifier.end_byte].decode() + suffix
            + data[identifier.end_byte:function.end_byte].decode())


@dataclass(frozen=True)
class AfterChild:
    """A definition request placed after the child's definition, with a prototype before the parent of
    the site that first asks when the child is defined after it (C++ needs a declaration before use)."""

    child: Child
    site: Site
    suffix: ClassVar[str] = ""   # the derived function is the child's name with this suffix, once per child

    @property
    def key(self) -> Hashable:
        return (self.child.function.node.start_byte, self.suffix)

    @property
    def symbol(self) -> str:
        return self.child.name + self.suffix

    def anchor(self, context: Context) -> tuple[int, int]:
        function = self.child.function
        return after_definition(context.source, function), context.source.line_of(function.node.start_byte)

    def declare_before_parent(self, context: Context, definition: ir.Function) -> None:
        parent = self.site.parent
        if self.child.function.outer.start_byte > parent.outer.start_byte:
            context.place_before(parent, ir.Prototype(definition))


@dataclass(frozen=True)
class ThreadFunction(AfterChild):
    """`child__pdcc_thread`: the child's body for one (block, thread), built-ins as parameters."""

    suffix: ClassVar[str] = THREAD_SUFFIX

    def build(self, context: Context) -> tuple[ir.Definition, ...]:
        unit = context.unit
        body = self.child.function.body
        assert body is not None   # `find` takes only a child with a body
        renames = [(node.start_byte, node.end_byte, BUILTINS[unit.text(node)]) for node in walk(body)
                   if node.type == "identifier" and unit.text(node) in BUILTINS]
        return (ir.Function("static __device__", self.symbol,
                            ("const uint3 pdcc_blockIdx", "const uint3 pdcc_threadIdx", "const dim3 pdcc_gridDim",
                             "const dim3 pdcc_blockDim", *self.child.declarations),
                            ir.Verbatim(Span(body.start_byte, body.end_byte), unit.text(body),
                                        tuple(sorted(renames + commented_pragmas(unit, body)))),
                            self.child.template, f"the body of '{self.child.name}' for one (block, thread), built-ins passed in"),)


def commented_pragmas(unit: Unit, body: Node) -> list[tuple[int, int, str]]:
    """`// pdcc: ` before each pdcc pragma of a body pdcc copies: the copy must not apply them again."""
    return [(node.start_byte, node.start_byte, "// pdcc: ") for node in walk(body)
            if node.type == "preproc_call" and node in unit.pdcc_pragmas]


def outline_in_place(context: Context, function: Function, name: str) -> None:
    """Turns kernel `function` into `static __device__ void NAME(...)` where it stands, the user's body
    and lines kept, for a kernel pdcc writes after it (with the kernel's name and bounds) to call."""
    unit = context.unit
    is_static = any(unit.text(n) == "static" for n in function.node.children if n.type == "storage_class_specifier")
    for node in function.node.children:
        if unit.text(node) == "__global__":
            context.edit(unit.span(node), "__device__" if is_static else "static __device__")
    bounds = next((n for n in function.node.children if n.type == "launch_bounds"), None)
    if bounds is not None:  # with the blank after it
        after = bounds.next_sibling
        context.edit(Span(bounds.start_byte, after.start_byte if after is not None else bounds.end_byte), "")
    declarator = function.parameters.parent if function.parameters is not None else None
    assert declarator is not None   # a kernel that launches has a parameter list
    context.edit(unit.span(required(declarator, "declarator")), name)
    context.wrapped.add(function.node)


def launch_bounds(context: Context, child: Child) -> str:
    """The bounds of a kernel pdcc derives from `child`: the child's own, else the largest block, so the
    registers fixed at device link fit every block size the original allowed."""
    return child.launch_bounds(context.unit) or f"__launch_bounds__({MAX_THREADS})"


def thread_call(context: Context, child: Child, site: Site, block: ir.Expr, thread: ir.Expr, grid: ir.Expr,
                block_dim: ir.Expr, arguments: list[ir.Expr] | None = None) -> ir.ExprStmt:
    """A call of `child__pdcc_thread` for one (block, thread), passing on the child's parameters (or
    `arguments` in their place); defines the thread function on first use."""
    symbol = context.define(ThreadFunction(child, site))
    passed = arguments if arguments is not None else [ir.name(p.name) for p in child.parameters]
    return ir.ExprStmt(ir.call(symbol + child.template_args, block, thread, grid, block_dim, *passed))
