"""The child kernel as reusable pieces: its parameters, its template, and its body outlined.

`child__pdcc_thread` is the child's body as a device function of one (block, thread), the built-ins
passed in as parameters, so a `return` in the child ends that thread's work and nothing more. The
threshold pass calls it in a loop in the parent thread; the coarsen pass calls it in a loop over the
original blocks inside a coarsened kernel. It is written once per child, after the child's definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pragmadp.analysis import serial
from pragmadp.cuda.frontend import Function, Node, Site, Unit, launched_identifier, walk
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.source import Rope, SourceFile, Span
from pragmadp.transforms import Rewrite

BUILTINS = {"threadIdx": "pdcc_threadIdx", "blockIdx": "pdcc_blockIdx", "blockDim": "pdcc_blockDim",
            "gridDim": "pdcc_gridDim"}
THREAD_SUFFIX = "__pdcc_thread"


@dataclass(frozen=True)
class Parameter:
    declaration: str   # the declaration without a default value, named
    name: str          # what a call passes on (`args...` for a pack)
    default: str | None


@dataclass
class Child:
    """The launched kernel of a site, with what the passes need to build on it."""

    function: Function
    parameters: list[Parameter]
    template: str         # `template <...>\n` or ""
    template_args: str    # `<T, B>` or ""
    obstacles: list[serial.Obstacle]  # why it cannot run serially, in source order (empty: it can)

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def declarations(self) -> str:
        return ", ".join(p.declaration for p in self.parameters)

    @property
    def forwarded(self) -> str:
        return ", ".join(p.name for p in self.parameters)


def find_child(result: Rewrite, site: Site, pass_name: str, clause_span: Span) -> Child | None:
    """The launched kernel's definition in this file, or None after a missed remark saying why."""
    unit = result.unit
    name = site.launch.kernel_name
    definitions = [f for f in unit.definitions(name) if f.is_kernel and f.body is not None]
    if len(definitions) == 1 and not definitions[0].node.has_error:
        function = definitions[0]
        forwarded = parameters(unit, function)
        instantiated = _defaults_at(unit, site, function, forwarded) if forwarded is not None else None
        if instantiated is not None:
            return Child(function, instantiated, template_prefix(unit, function), template_arguments(unit, function),
                         list(serial.obstacles(unit, function)))
        if forwarded is None:
            why = f"child '{name}' has a parameter pdcc cannot forward (an unnamed function pointer or C varargs)"
        else:
            why = (f"a default argument of child '{name}' depends on a template parameter the launch does not name "
                   "(write its template arguments, e.g. child<float><<<...>>>)")
        rule = rules.CHILD_UNSUPPORTED
    elif not definitions and _split_by_conditionals(unit, name):
        why = (f"the definition of kernel '{name}' is split by #if/#ifdef branches (its signature in them, its body "
               "after them), which pdcc does not evaluate; write the whole definition in each branch")
        rule = rules.CHILD_UNKNOWN
    elif not definitions:
        why = f"kernel '{name}' is not defined in this file, so pdcc cannot build on its body"
        rule = rules.CHILD_UNKNOWN
    elif len(definitions) > 1:
        why = f"kernel '{name}' has {len(definitions)} definitions (overloads); pdcc cannot tell which one is launched"
        rule = rules.CHILD_UNKNOWN
    else:
        why = f"the definition of kernel '{name}' could not be parsed"
        rule = rules.CHILD_UNKNOWN
    result.remark(Kind.MISSED, rule, why + "; the launch is left as written", clause_span, site, pass_name, child=name)
    return None


def _split_by_conditionals(unit: Unit, name: str) -> bool:
    """Whether `name` is declared in a preprocessor conditional that a bare body follows after #endif
    (the signature chosen by #if, the body shared); a prototype in an include guard is not that."""
    for node in walk(unit.tree.root_node):
        if node.type == "function_declarator" and unit.text(node.child_by_field_name("declarator")) == name:
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


def missed_for_obstacle(result: Rewrite, site: Site, clause_span: Span, child: Child, obstacle: serial.Obstacle,
                        pass_name: str, outcome: str) -> None:
    """A missed remark for what in the child stops a pass: the reason, its line, then `outcome`."""
    at = result.unit.source.location(obstacle.node.start_byte)
    result.remark(Kind.MISSED, obstacle.rule, f"{obstacle.message} at line {at.line}{outcome}", clause_span, site,
                  pass_name, reason=obstacle.rule.name, child=child.name, line=at.line)


def launch_template_arguments(launch) -> Node | None:
    """The `<...>` of a launch of a template kernel that names its arguments (`ns::child<float, 4>`)."""
    node = launch.function
    while node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    return node.child_by_field_name("arguments") if node.type == "template_function" else None


def _defaults_at(unit: Unit, site: Site, function: Function, forwarded: list[Parameter]) -> list[Parameter] | None:
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
                             lambda m: mapping[m.group(1)], parameter.default)
            result.append(Parameter(parameter.declaration, parameter.name, default))
        else:
            return None
    return result


def type_parameter_names(unit: Unit, function: Function | None) -> tuple[str, ...]:
    """Template type parameters (they may appear in casts inside grid expressions)."""
    if function is None or function.template_parameters is None:
        return ()
    names = []
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
        names.append((unit.text(identifier), "variadic" in parameter.type))
    return names


def template_prefix(unit: Unit, function: Function) -> str:
    """`template <...>` and a newline for a template function, else nothing."""
    if function.template_parameters is None:
        return ""
    return "template " + unit.text(function.template_parameters) + "\n"


def parameters(unit: Unit, child: Function) -> list[Parameter] | None:
    parameters = []
    for index, node in enumerate(n for n in child.parameters.named_children if n.type != "comment"):
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
        parameters.append(Parameter(text, name + ("..." if variadic else ""),
                                    unit.text(default) if default is not None else None))
    return parameters


def renamed(unit: Unit, function: Node, suffix: str) -> str:
    """`ns::child<float, 4>` -> `ns::child__pdcc_serial<float, 4>`: the launched name with a suffix."""
    identifier = launched_identifier(function)
    data = unit.source.data
    return (data[function.start_byte:identifier.end_byte].decode() + suffix
            + data[identifier.end_byte:function.end_byte].decode())


def define_after_child(result: Rewrite, site: Site, child: Child, key: str, text: str,
                       prototype: str | None = None) -> None:
    """Adds a generated definition after the child's (once per child and key).

    A child defined after its parent also gets `prototype` declared before the parent.
    """
    function = child.function
    if not _first_time(result, function, key):
        return
    _thread_function(result, child)
    source = result.unit.source
    result.edits.insert(after_definition(source, function),
                        Rope(source).write(text, source.line_of(function.node.start_byte)))
    parent = site.launch.enclosing.outer
    if prototype and function.outer.start_byte > parent.start_byte:
        line = source.line_of(parent.start_byte)
        result.edits.insert(source.line_start(parent.start_byte), Rope(source).write(prototype, line))


def _thread_function(result: Rewrite, child: Child) -> None:
    """`child__pdcc_thread`: the child's body for one (block, thread), built-ins as parameters."""
    function = child.function
    if not _first_time(result, function, "thread"):
        return
    unit = result.unit
    source = unit.source
    body = function.body
    body_line = source.line_of(body.start_byte)
    head = f"\n// pdcc: the body of '{child.name}' for one (block, thread), built-ins passed in\n{child.template}"
    signature = (f"static __device__ void {child.name}{THREAD_SUFFIX}(const uint3 pdcc_blockIdx, "
                 f"const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim"
                 f"{', ' if child.parameters else ''}{child.declarations}) ")
    renames = []
    for node in walk(body):
        if node.type == "identifier" and unit.text(node) in BUILTINS:
            renames.append((node.start_byte, node.end_byte, BUILTINS[unit.text(node)]))
        elif node.type == "preproc_call" and node in unit.pdcc_pragmas:
            renames.append((node.start_byte, node.start_byte, "// pdcc: "))
    rope = Rope(source).write_before(head, body_line).write(signature, body_line)
    rope.copy_edited(body.start_byte, body.end_byte, renames)
    result.edits.insert(after_definition(source, function), rope)


def _first_time(result: Rewrite, function: Function, key: str) -> bool:
    """True once per function and key: what is generated for a child is added once, however many sites."""
    done = (function.node.start_byte, key)
    if done in result.generated_for:
        return False
    result.generated_for.add(done)
    return True


def after_definition(source: SourceFile, function: Function) -> int:
    """The byte offset of the line after the function's definition, where generated code goes."""
    newline = source.data.find(b"\n", function.outer.end_byte)
    return newline + 1 if newline >= 0 else len(source.data)


def thread_call(child: Child, block: str, thread: str, grid: str, block_dim: str,
                arguments: list[str] | None = None) -> str:
    """A call of `child__pdcc_thread` for one (block, thread), passing on the child's parameters
    (or `arguments` in their place)."""
    passed = ", ".join(arguments) if arguments is not None else child.forwarded
    return (f"{child.name}{THREAD_SUFFIX}{child.template_args}({block}, {thread}, {grid}, {block_dim}"
            f"{', ' if passed else ''}{passed});")
