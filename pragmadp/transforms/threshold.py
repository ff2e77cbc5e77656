"""Thresholding (seed 000 §III): below N child threads, run the child's work in the parent thread.

For a site

    #pragma dp threshold(128)
    child<<<(n + 255) / 256, 256>>>(y, n);

pdcc adds, after the child's definition, `child__pdcc_thread` (the child's body outlined into a device
function that takes the built-ins as parameters, so a `return` in the child ends one thread's work,
not the loop) and `child__pdcc_serial` (loops over every block and thread of the original
configuration, 1-, 2- or 3-D). The launch becomes

    {
      const auto pdcc_n = n;                       // the child-thread count, evaluated once
      const dim3 pdcc_grid = (pdcc_n + 255) / 256;
      const dim3 pdcc_block = 256;
      if (pdcc_n >= PDCC_THRESHOLD_parent_0) {
        (void)cudaGetLastError();
        child<<<pdcc_grid, pdcc_block>>>(y, n);   // pdcc: generated
        if (cudaGetLastError() != cudaSuccess)     // launch failed (pending-launch pool full...)
          child__pdcc_serial(pdcc_grid, pdcc_block, y, n);
      } else {
        child__pdcc_serial(pdcc_grid, pdcc_block, y, n);
      }
    }

with `PDCC_THRESHOLD_parent_0` defined (unless given with -D) before the parent.
"""

from __future__ import annotations

from dataclasses import dataclass

from pragmadp.analysis import serial, thread_count
from pragmadp.cuda.frontend import GENERATED_MARK, Function, Launch, Node, Site, launched_identifier, walk
from pragmadp.directives import Threshold
from pragmadp.report import rules
from pragmadp.report.remarks import Kind
from pragmadp.source import Rope, Span
from pragmadp.transforms import Rewrite

PASS = "threshold"
BUILTINS = {"threadIdx": "pdcc_threadIdx", "blockIdx": "pdcc_blockIdx", "blockDim": "pdcc_blockDim",
            "gridDim": "pdcc_gridDim"}
THREAD_SUFFIX = "__pdcc_thread"
SERIAL_SUFFIX = "__pdcc_serial"


@dataclass(frozen=True)
class Parameter:
    declaration: str   # the declaration without a default value, named
    name: str          # what a call passes on (`args...` for a pack)
    default: str | None


def apply(result: Rewrite, site: Site, clause: Threshold) -> None:
    unit = result.unit
    launch = site.launch
    child = _child(result, site)
    if child is None:
        return
    found = serial.obstacle(unit, child)
    if found is not None:
        at = unit.source.location(found.node.start_byte)
        result.remark(Kind.MISSED, found.rule, f"{found.message} at line {at.line}; the launch is left as written",
                      clause.span, site, PASS, reason=found.rule.name, child=child.name, line=at.line)
        return
    parameters = _parameters(unit, child)
    if parameters is None:
        result.remark(Kind.MISSED, rules.CHILD_UNSUPPORTED,
                      f"child '{child.name}' has a parameter pdcc cannot forward (an unnamed function pointer or "
                      "C varargs); the launch is left as written", clause.span, site, PASS, child=child.name)
        return
    macro = f"PDCC_THRESHOLD_{site.name}"
    count = thread_count.analyse(unit, launch.config[0], launch.statement.start_byte,
                                 _type_parameter_names(unit, launch.enclosing) + _type_parameter_names(unit, child),
                                 "pdcc_n")
    _define_macro(result, site, macro, clause.value.text)
    _add_serial_version(result, site, child, parameters)
    _replace_launch(result, site, child, parameters, count, macro)
    result.remark(Kind.APPLIED, rules.THRESHOLD_APPLIED,
                  f"launch of '{child.name}' runs serially in the parent thread below {macro} "
                  f"(= {clause.value.text}) child threads", Span(launch.call.start_byte, launch.call.end_byte),
                  site, PASS, macro=macro, default=clause.value.text, serial_function=child.name + SERIAL_SUFFIX,
                  thread_count=count.describe())
    if count.found:
        forms = ", ".join(sorted({d.form for d in count.dimensions if d.count is not None}))
        message = f"child-thread count {count.describe()} from the ceiling division {forms}"
    else:
        message = "no ceiling division in the grid size; the child-thread count is grid x block"
    result.remark(Kind.ANALYSIS, rules.THREAD_COUNT, message, Span(launch.config[0].start_byte, launch.config[0].end_byte),
                  site, PASS, thread_count=count.describe(), found=count.found)


def _child(result: Rewrite, site: Site) -> Function | None:
    """The launched kernel's definition in this file, or None after a missed remark."""
    unit = result.unit
    name = site.launch.kernel_name
    span = Span(site.launch.function.start_byte, site.launch.function.end_byte)
    definitions = [f for f in unit.definitions(name) if f.is_kernel and f.body is not None]
    if len(definitions) == 1 and not definitions[0].node.has_error:
        return definitions[0]
    if not definitions:
        why = f"kernel '{name}' is not defined in this file, so pdcc cannot build its serial version"
    elif len(definitions) > 1:
        why = f"kernel '{name}' has {len(definitions)} definitions (overloads); pdcc cannot tell which one is launched"
    else:
        why = f"the definition of kernel '{name}' could not be parsed"
    result.remark(Kind.MISSED, rules.CHILD_UNKNOWN, why + "; the launch is left as written", span, site, PASS,
                  child=name)
    return None


def _type_parameter_names(unit, function: Function | None) -> tuple[str, ...]:
    """Template type parameters (they may appear in casts inside grid expressions)."""
    if function is None or function.template_parameters is None:
        return ()
    names = []
    for parameter in function.template_parameters.named_children:
        if parameter.type in ("type_parameter_declaration", "optional_type_parameter_declaration",
                              "variadic_type_parameter_declaration"):
            names.extend(unit.text(n) for n in parameter.named_children if n.type == "type_identifier")
    return tuple(names)


def _template_arguments(unit, function: Function) -> str:
    """`<T, B, Ts...>`: the template parameters of `function`, passed on explicitly."""
    if function.template_parameters is None:
        return ""
    names = []
    for parameter in function.template_parameters.named_children:
        identifiers = [n for n in walk(parameter) if n.type in ("type_identifier", "identifier")]
        if parameter.type == "optional_parameter_declaration":
            identifiers = [parameter.child_by_field_name("declarator")]
        elif parameter.type == "optional_type_parameter_declaration":
            identifiers = [parameter.child_by_field_name("name")]
        if not identifiers:
            continue
        name = unit.text(identifiers[-1] if parameter.type in ("parameter_declaration",) else identifiers[0])
        names.append(name + ("..." if "variadic" in parameter.type else ""))
    return "<" + ", ".join(names) + ">"


def _template_prefix(unit, function: Function) -> str:
    if function.template_parameters is None:
        return ""
    return "template " + unit.text(function.template_parameters) + "\n"


def _parameters(unit, child: Function) -> list[Parameter] | None:
    parameters = []
    for index, node in enumerate(n for n in child.parameters.named_children if n.type != "comment"):
        if node.type == "variadic_parameter":
            return None
        declarator = node.child_by_field_name("declarator")
        default = node.child_by_field_name("default_value")
        end = declarator.end_byte if declarator is not None else (default.start_byte if default else node.end_byte)
        text = unit.source.data[node.start_byte:end].decode().rstrip(" =")
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


def _line_range(unit, node: Node) -> tuple[int, int, str]:
    """[start, end) of the whole lines a statement occupies when nothing else shares them, and its indent."""
    data = unit.source.data
    start, end = node.start_byte, node.end_byte
    line_start = unit.source.line_start(start)
    indent = data[line_start:start].decode()
    if indent.strip() == "":
        start = line_start
    else:
        indent = " " * len(indent) if indent.isspace() else ""
    newline = data.find(b"\n", end)
    if newline >= 0 and data[end:newline].strip() == b"":
        end = newline + 1
    return start, end, indent.replace("\t", "    ") if indent.strip() == "" else ""


def _define_macro(result: Rewrite, site: Site, macro: str, value: str) -> None:
    outer = site.launch.enclosing.outer
    text = f"#ifndef {macro}\n#define {macro} {value}\n#endif\n"
    source = result.unit.source
    result.edits.insert(source.line_start(outer.start_byte), Rope(source).write_before(text, source.line_of(outer.start_byte)))


def _add_serial_version(result: Rewrite, site: Site, child: Function, parameters: list[Parameter]) -> None:
    """Adds `child__pdcc_thread` and `child__pdcc_serial` after the child's definition (once per child)."""
    if child.node.start_byte in result.generated_for:
        return
    result.generated_for.add(child.node.start_byte)
    unit = result.unit
    source = unit.source
    body = child.body
    line = source.line_of(child.node.start_byte)
    template = _template_prefix(unit, child)
    declarations = ", ".join(p.declaration for p in parameters)
    forwarded = ", ".join(p.name for p in parameters)
    thread_name = child.name + THREAD_SUFFIX
    serial_name = child.name + SERIAL_SUFFIX
    thread_head = f"\n// pdcc: the body of '{child.name}' for one (block, thread), built-ins passed in\n{template}"
    thread_signature = (f"static __device__ void {thread_name}(const uint3 pdcc_blockIdx, "
                        f"const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim"
                        f"{', ' if declarations else ''}{declarations}) ")
    renames = []
    for node in walk(body):
        if node.type == "identifier" and unit.text(node) in BUILTINS:
            renames.append((node.start_byte, node.end_byte, BUILTINS[unit.text(node)]))
        elif node.type == "preproc_call" and node in unit.pdcc_pragmas:
            renames.append((node.start_byte, node.start_byte, "// pdcc: "))
    loops = ("  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)\n"
             "  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)\n"
             "  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)\n"
             "    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)\n"
             "    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)\n"
             "    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)\n")
    serial = (f"\n// pdcc: every thread of a '{child.name}' launch, one after another, in the calling thread\n"
              f"{template}static __device__ void {serial_name}(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim"
              f"{', ' if declarations else ''}{declarations})\n{{\n{loops}"
              f"      {thread_name}{_template_arguments(unit, child)}(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), "
              f"make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim"
              f"{', ' if forwarded else ''}{forwarded});\n}}\n")
    body_line = source.line_of(body.start_byte)
    rope = Rope(source).write_before(thread_head, body_line).write(thread_signature, body_line)
    rope.copy_edited(body.start_byte, body.end_byte, renames)
    rope.write(serial, line)
    end = child.outer.end_byte
    newline = source.data.find(b"\n", end)
    result.edits.insert(newline + 1 if newline >= 0 else len(source.data), rope)
    if child.outer.start_byte > site.launch.enclosing.outer.start_byte:
        _declare_before(result, site, child, template, serial_name, declarations)


def _declare_before(result: Rewrite, site: Site, child: Function, template: str, serial_name: str,
                    declarations: str) -> None:
    """A child defined after its parent needs the serial version declared before the parent."""
    source = result.unit.source
    line = source.line_of(site.launch.enclosing.outer.start_byte)
    prototype = (f"{template}static __device__ void {serial_name}(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim"
                 f"{', ' if declarations else ''}{declarations});\n")
    result.edits.insert(source.line_start(site.launch.enclosing.outer.start_byte), Rope(source).write(prototype, line))


def _is_simple(node: Node) -> bool:
    """No calls, assignments or increments: evaluating it again gives the same value."""
    return not any(n.type in ("call_expression", "assignment_expression", "update_expression", "comma_expression",
                              "new_expression", "delete_expression", "lambda_expression") for n in walk(node))


def _replace_launch(result: Rewrite, site: Site, child: Function, parameters: list[Parameter],
                    count: thread_count.ThreadCount, macro: str) -> None:
    unit = result.unit
    launch: Launch = site.launch
    start, end, indent = _line_range(unit, launch.statement)
    line = unit.source.line_of(launch.statement.start_byte)
    grid, block = launch.config[0], launch.config[1]
    extra_config = "".join(", " + unit.text(c) for c in launch.config[2:])
    lines = [f"{{ // pdcc: threshold at site {site.name}: below {macro} child threads, run '{child.name}' here"]
    for dimension in count.dimensions:
        if dimension.grid is not None:
            lines.append(f"  const auto {dimension.variable} = {dimension.count};")
    if count.through_variable is None and any(d.grid is not None for d in count.dimensions):
        written = thread_count.dimensions_of(unit, grid)[0]
        grids = [d.grid if d.grid is not None else text for d, text in zip(count.dimensions, written)]
        grid_text = "dim3(" + ", ".join(grids) + ")" if count.written_as_dim3 else grids[0]
    else:
        grid_text = unit.text(grid)
    lines.append(f"  const dim3 pdcc_grid = {grid_text};")
    lines.append(f"  const dim3 pdcc_block = {unit.text(block)};")
    arguments = [unit.text(a) for a in launch.arguments]
    if not all(_is_simple(a) for a in launch.arguments):
        hoisted = []
        for index, text in enumerate(arguments):
            declaration = (_retyped(parameters[index].declaration, parameters[index].name, f"pdcc_arg{index}")
                           if child.template_parameters is None and index < len(parameters)
                           and not parameters[index].name.endswith("...") else f"auto pdcc_arg{index}")
            lines.append(f"  {declaration} = {text};")
            hoisted.append(f"pdcc_arg{index}")
        arguments = hoisted
    defaults = [p.default for p in parameters[len(arguments):] if p.default is not None]
    serial_call = (f"{_renamed(unit, launch.function, SERIAL_SUFFIX)}(pdcc_grid, pdcc_block"
                   f"{''.join(', ' + a for a in arguments + defaults)});")
    launch_text = (f"{unit.text(launch.function)}<<<pdcc_grid, pdcc_block{extra_config}>>>"
                   f"({', '.join(arguments)}); {GENERATED_MARK}")
    lines += [f"  if ({_threads_expression(count, unit, block)} >= {macro}) {{",
              "    (void)cudaGetLastError();",
              f"    {launch_text}",
              "    if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost",
              f"      {serial_call}",
              "  } else {",
              f"    {serial_call}",
              "  }",
              "}"]
    text = "".join(f"{indent}{l}\n" for l in lines)
    result.edits.replace(start, end, Rope(unit.source).write(text, line))


def _retyped(declaration: str, name: str, new_name: str) -> str:
    """`const float* y` -> `const float* pdcc_arg0`: a local of the parameter's own type."""
    head, _, tail = declaration.rpartition(name)
    return f"{head}{new_name}{tail}"


def _renamed(unit, function: Node, suffix: str) -> str:
    """`ns::child<float, 4>` -> `ns::child__pdcc_serial<float, 4>`."""
    identifier = launched_identifier(function)
    data = unit.source.data
    return (data[function.start_byte:identifier.end_byte].decode() + suffix
            + data[identifier.end_byte:function.end_byte].decode())


def _threads_expression(count: thread_count.ThreadCount, unit, block: Node) -> str:
    """The number of child threads, as C: the product of the per-dimension counts."""
    factors = []
    for axis, dimension in zip("xyz", count.dimensions):
        if dimension.grid is not None:
            factors.append(dimension.variable)
        elif dimension.count is not None:
            factors.append(f"({dimension.count})")
        else:
            factors.append(f"pdcc_grid.{axis} * pdcc_block.{axis}")
    if not count.written_as_dim3:
        if not _scalar_block(unit, block):
            factors.append("pdcc_block.y * pdcc_block.z")
    else:
        for axis in "xyz"[len(count.dimensions):]:
            factors.append(f"pdcc_grid.{axis} * pdcc_block.{axis}")
    if len(factors) == 1 and "*" not in factors[0]:
        return factors[0]
    return "(unsigned long long)" + " * ".join(factors)  # no overflow in 32-bit products


def _scalar_block(unit, block: Node) -> bool:
    """A block size known to be one number (so its y and z are 1), not a dim3 or a name of unknown type."""
    if block.type == "identifier":
        declared = thread_count.local_initialiser(unit, block, block.start_byte)
        return declared is not None and not declared[1]
    return "dim3" not in unit.text(block) and block.type in ("number_literal", "binary_expression",
                                                              "parenthesized_expression")
