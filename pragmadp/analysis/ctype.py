"""The C types of a function's names and expressions, as far as melding needs them.

A select `c ? a : b` converts both operands to a common type, which is only harmless when `a` and `b`
already have the same type (an `int` chosen against a `float` comes back rounded). So melding selects
between two operands only when this analysis proves their types equal; where it cannot tell (a struct
member, an unknown call), the two statements stay apart. It also says which names live in shared memory
(a select between a shared and a global address is refused) and which are volatile.

Types are normalised strings (`float`, `unsigned int`, `float*`): qualifiers of the value dropped,
arrays decayed to pointers, as an rvalue sees them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from pragmadp import ir
from pragmadp.cuda import headers
from pragmadp.cuda.frontend import Node, Unit, unwrapped_declarator, walk

_DROPPED = re.compile(r"\b(const|__restrict__|__restrict|restrict|register|static|__shared__|__device__|"
                      r"__constant__|__managed__|extern|volatile)\b")
_ARITHMETIC_RANK = ["bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
                    "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double"]
_SPELLINGS = {"unsigned": "unsigned int", "signed": "int", "signed int": "int", "long int": "long",
              "unsigned long int": "unsigned long", "long long int": "long long", "short int": "short",
              "unsigned long long int": "unsigned long long", "size_t": "unsigned long"}
_BUILTIN_VECTORS = {"threadIdx": "unsigned int", "blockIdx": "unsigned int", "blockDim": "unsigned int",
                    "gridDim": "unsigned int"}
_FLOAT_MATH = {"sqrtf", "expf", "logf", "sinf", "cosf", "fabsf", "fminf", "fmaxf", "powf", "rsqrtf", "floorf",
               "ceilf", "__expf", "__logf", "__sinf", "__cosf", "__fdividef", "exp2f", "log2f", "tanhf"}
_DOUBLE_MATH = {"sqrt", "exp", "log", "sin", "cos", "fabs", "fmin", "fmax", "pow", "rsqrt", "floor", "ceil"}
_SAME_AS_ARGUMENTS = {"min", "max", "abs"}


def normalise(written: str) -> str:
    """`float *__restrict__ const` -> `float*`; `const float *` -> `const float*` (what a pointer points
    to keeps its qualifiers: a select must not drop them); `unsigned` -> `unsigned int`; array bounds
    stay (`float[16]*`, a pointer to rows of 16)."""
    start = min((i for i in (written.find("*"), written.find("[")) if i >= 0), default=len(written))
    head, wrappers = written[:start], re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\s", "",
                                                 written[start:])
    pointee = " ".join(re.findall(r"\b(?:const|volatile)\b", head)) if wrappers else ""
    base = " ".join(_DROPPED.sub(" ", head).replace("&", " ").split())
    return (pointee + " " if pointee else "") + _SPELLINGS.get(base, base) + wrappers


@dataclass
class Types:
    """What one function's names are: their types, and which are shared or volatile."""

    names: dict[str, str | None] = field(default_factory=dict)   # None: declared twice with different types
    shared: set[str] = field(default_factory=set)
    volatile: set[str] = field(default_factory=set)
    returns: dict[str, str] = field(default_factory=dict)        # device functions of the file -> return type
    arrays: dict[str, int] = field(default_factory=dict)         # names that are arrays (not pointers) -> dimensions

    def declare(self, name: str, written: str) -> None:
        kind = normalise(written)
        self.names[name] = kind if self.names.get(name, kind) == kind else None
        if re.search(r"\b__shared__\b", written):
            self.shared.add(name)
        if re.search(r"\bvolatile\b", written):
            self.volatile.add(name)

    def of(self, expr: c_ast.Node) -> str | None:
        """The expression's type, or None when this analysis cannot tell."""
        if isinstance(expr, c_ast.ID):
            return self.names.get(expr.name) or ("bool" if expr.name in ("true", "false") else None)
        if isinstance(expr, c_ast.Constant):
            return _literal(expr)
        if isinstance(expr, c_ast.ArrayRef):
            return _pointee(self.of(expr.name))
        if isinstance(expr, c_ast.UnaryOp):
            inner = self.of(expr.expr)
            if expr.op == "*":
                return _pointee(inner)
            if expr.op == "&":
                return inner + "*" if inner else None
            if expr.op == "!":
                return "bool"
            return _promote(inner) if expr.op in ("-", "+", "~") else inner
        if isinstance(expr, c_ast.StructRef):
            base = expr.name
            if isinstance(base, c_ast.ID) and base.name in _BUILTIN_VECTORS:
                return _BUILTIN_VECTORS[base.name]
            return None
        if isinstance(expr, c_ast.BinaryOp):
            return _binary(expr.op, self.of(expr.left), self.of(expr.right))
        if isinstance(expr, c_ast.Assignment):
            return self.of(expr.lvalue)
        if isinstance(expr, c_ast.TernaryOp):
            left, right = self.of(expr.iftrue), self.of(expr.iffalse)
            return left if left == right else None
        if isinstance(expr, c_ast.Cast) and isinstance(expr.to_type, ir.Verbatim):
            return normalise(expr.to_type.text)
        if isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID):
            return self._call(expr.name.name, expr.args.exprs if expr.args else [])
        return None

    def address(self, expr: c_ast.Node) -> str | None:
        """The type of `&expr` for a memory access, qualifiers of what it points to kept (`const int*`)."""
        if isinstance(expr, c_ast.ArrayRef):
            base = self.of(expr.name)
            return base if base and base.endswith("*") else None
        if isinstance(expr, c_ast.UnaryOp) and expr.op == "*":
            return self.of(expr.expr)
        return None

    def space(self, expr: c_ast.Node) -> str:
        """'shared' when the address or value comes from a `__shared__` name, else 'other'."""
        return "shared" if any(isinstance(n, c_ast.ID) and n.name in self.shared for n in _nodes(expr)) else "other"

    def _call(self, name: str, arguments: list[c_ast.Node]) -> str | None:
        cast = re.fullmatch(r"(?:static_cast|reinterpret_cast|const_cast)\s*<(.+)>", name)
        if cast:
            return normalise(cast.group(1))
        if name in _FLOAT_MATH:
            return "float"
        if name in _DOUBLE_MATH and all(self.of(a) == "double" for a in arguments):
            return "double"
        if name in _SAME_AS_ARGUMENTS and arguments:
            kinds = {self.of(a) for a in arguments}
            return kinds.pop() if len(kinds) == 1 else None
        return self.returns.get(name)


def of_function(unit: Unit, function: Node) -> Types:
    """The types of the names a function (its definition node) declares, parameters and locals, and the
    file's device variables; a provider for `unit.analysis`, computed once per function."""
    types = Types()
    types.returns = dict(unit.analysis(_return_types))
    types.names.update(unit.analysis(integer_macros))
    for name, written in unit.analysis(_file_variables):
        types.declare(name, written)
    for name, written in unit.analysis(_declared_in, function):
        types.declare(name, written)
    types.arrays = dict(unit.analysis(_arrays, function))
    return types


def _arrays(unit: Unit, function: Node) -> dict[str, int]:
    """The names the function or the file declares as arrays (`__shared__ float s[16][8]`: 2), each declared
    only so: a parameter written `float a[16]` is a pointer, and a name declared twice may be either."""
    shapes: dict[str, list[int]] = {}
    declarations = [node for node in walk(function) if node.type in ("parameter_declaration", "declaration")]
    declarations += [node for node in unit.tree.root_node.named_children if node.type == "declaration"]
    for declaration in declarations:
        for declarator in declaration.children_by_field_name("declarator"):
            name, dimensions = _array_shape(declarator)
            if name is not None:
                shapes.setdefault(unit.text(name), []).append(
                    dimensions if declaration.type == "declaration" else 0)
    return {name: found[0] for name, found in shapes.items() if len(found) == 1 and found[0] > 0}


def _array_shape(declarator: Node) -> tuple[Node | None, int]:
    """The declared identifier and how many array declarators bind to it first (`s[16][8]`: 2, `*p[4]`: 1,
    `(*p)[16]`: 0)."""
    unwrapped = unwrapped_declarator(declarator)
    if unwrapped is None:
        return None, 0
    declarator, dimensions = unwrapped, 0
    while declarator.type == "array_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return None, 0
        declarator, dimensions = inner, dimensions + 1
    if declarator.type == "identifier":
        return declarator, dimensions
    named = [n for n in walk(declarator) if n.type == "identifier"]
    return (named[0], 0) if named else (None, 0)


def declared_types(unit: Unit, function: Node) -> dict[str, str | None]:
    """The types of the names a function declares, parameters and locals, without the file's (each call
    costs the function's size only; None: declared twice with different types)."""
    types = Types()
    for name, written in unit.analysis(_declared_in, function):
        types.declare(name, written)
    return types.names


def _declared_in(unit: Unit, function: Node) -> list[tuple[str, str]]:
    return [found for node in walk(function) if node.type in ("parameter_declaration", "declaration")
            for found in _names_declared(unit, node)]


def _names_declared(unit: Unit, node: Node) -> list[tuple[str, str]]:
    """(name, type as written with its declarator's wrappers) for each name a declaration declares."""
    kind = node.child_by_field_name("type")
    if kind is None:
        return []
    base = unit.source.data[node.start_byte:kind.end_byte].decode()
    found = []
    for declarator in node.children_by_field_name("declarator"):
        name, suffix = _declared(unit, declarator)
        if name is not None:
            found.append((unit.text(name), base + suffix))
    return found


def _declared(unit: Unit, declarator: Node) -> tuple[Node | None, str]:
    """The declared identifier and what wraps it, as this module writes types: `float *p` -> `*`,
    `float s[16][8]` -> `[8]*` (an array decays to a pointer to its first element); None for a reference
    or a function declarator, whose type this analysis does not follow."""
    wrappers = []   # from the outside in: the one nearest the name binds first
    while declarator.type != "identifier":
        if declarator.type == "pointer_declarator":
            wrappers.append("*")
        elif declarator.type == "array_declarator":
            size = declarator.child_by_field_name("size")
            wrappers.append(f"[{unit.text(size).strip() if size is not None else ''}]")
        elif declarator.type != "init_declarator":
            return None, ""
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return None, ""
        declarator = inner
    suffix = "".join(wrappers)
    if suffix.endswith("]"):
        suffix = suffix[:suffix.rindex("[")] + "*"
    return declarator, suffix


def _file_variables(unit: Unit) -> list[tuple[str, str]]:
    """Variables at namespace scope (`__device__ float table[64];`, `__shared__` externs)."""
    return [pair for node in unit.tree.root_node.named_children if node.type == "declaration"
            for pair in _names_declared(unit, node)]


def integer_macros(unit: Unit) -> dict[str, str]:
    """`#define BS 16`: object-like macros whose value is an integer literal have its type. Read from the file,
    the headers it includes with quotes (a kernel's tile size usually lives in one) and the command's -D
    (which may override a header's `#ifndef` default). A name is left out when any of them defines it otherwise
    or with another type, `#undef`s it, or declares it as anything else (a variable, a parameter, an enumerator,
    in some `#if` branch): where it is used it may not be the macro. (Headers pdcc does not read, those included
    with `<...>` or `-include`, are not seen.)"""
    found: dict[str, str | None] = {}
    for text in headers.macro_definitions(unit):   # (in any order: every definition must agree)
        macro = headers.OBJECT_MACRO.match(text)
        if macro is not None:
            _note_macro(found, macro.group(1), macro.group(2))
    for text in headers.directives(unit, "undef"):
        found[text.strip()] = None
    included = headers.included(unit)
    return {name: kind for name, kind in found.items() if kind is not None and not _declares(unit, name) and not any(
        _declares(header.unit, name) for header in included if name.encode() in header.source.data)}


_INTEGER_VALUE = re.compile(r"\s*\(?\s*(\d[0-9A-Za-z']*)\s*\)?\s*")   # (no `_`: `16_k` is a user literal)


def _note_macro(found: dict[str, str | None], name: str, value: str) -> None:
    integer = _INTEGER_VALUE.fullmatch(value)
    kind = _literal(c_ast.Constant("number", integer.group(1))) if integer else None
    found[name] = kind if found.get(name, kind) == kind else None


def _declares(unit: Unit, name: str) -> bool:
    """Whether the unit declares `name` as anything but a macro (looked up at each occurrence of the word)."""
    for occurrence in re.finditer(rb"\b%s\b" % re.escape(name.encode()), unit.source.data):
        node = unit.tree.root_node.descendant_for_byte_range(occurrence.start(), occurrence.end())
        parent = node.parent if node is not None else None
        if parent is not None and parent.type in _DECLARING and (
                parent.type in _TEMPLATE_PARAMETERS or node in (parent.child_by_field_name("declarator"),
                                                                parent.child_by_field_name("name"))):
            return True
    return False


_TEMPLATE_PARAMETERS = {"type_parameter_declaration", "optional_type_parameter_declaration",
                        "variadic_type_parameter_declaration", "structured_binding_declarator"}
_DECLARING = {"init_declarator", "declaration", "parameter_declaration", "optional_parameter_declaration",
              "variadic_parameter_declaration", "pointer_declarator", "reference_declarator", "array_declarator",
              "function_declarator", "field_declaration", "enumerator", "struct_specifier", "class_specifier",
              "union_specifier", "enum_specifier", "namespace_definition", "alias_declaration", "type_definition",
              *_TEMPLATE_PARAMETERS}


def _return_types(unit: Unit) -> dict[str, str]:
    """The return type of each function of the file (one definition per name; overloads are left out)."""
    found: dict[str, str | None] = {}
    for function in unit.functions:
        kind = function.node.child_by_field_name("type")
        if kind is not None:
            written = normalise(unit.text(kind))
            found[function.name] = written if found.get(function.name, written) == written else None
    return {name: kind for name, kind in found.items() if kind is not None}


def _literal(constant: c_ast.Constant) -> str | None:
    text = constant.value.lower().lstrip("+-")   # `-X` (one token to tree-sitter) has the type of X
    if constant.type == "char":
        return "char"
    if constant.type != "number":
        return None
    hexadecimal = text.startswith("0x")
    if not hexadecimal and ("." in text or "e" in text) or hexadecimal and "p" in text:
        return "float" if text.endswith("f") else "double"
    suffix = re.search(r"[ul]*$", text).group(0)  # type: ignore[union-attr]
    digits = text[:len(text) - len(suffix)].replace("'", "")
    try:
        value = int(digits, 0) if not re.fullmatch(r"0[0-7]+", digits) else int(digits, 8)
    except ValueError:
        return None
    decimal = not re.match(r"0[xb0-7]", digits)
    candidates = _LITERAL_TYPES.get({"lu": "ul", "llu": "ull"}.get(suffix, suffix))
    if candidates is None:
        return None
    # [lex.icon]: the first type of the list that holds the value; unsigned ones only for hex, octal and
    # binary literals unless the suffix asks (0x80000000 is unsigned int, 3000000000 is long).
    for kind in candidates:
        if (decimal and kind.startswith("unsigned") and "u" not in suffix) or value > _INTEGER_MAX[kind]:
            continue
        return kind
    return None


# The integer literal types of each suffix, in [lex.icon]'s order, and their ranges on CUDA's LP64
# (int 32 bits, long and long long 64).
_LITERAL_TYPES = {
    "": ("int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long"),
    "u": ("unsigned int", "unsigned long", "unsigned long long"),
    "l": ("long", "unsigned long", "long long", "unsigned long long"),
    "ul": ("unsigned long", "unsigned long long"),
    "ll": ("long long", "unsigned long long"),
    "ull": ("unsigned long long",)}
_INTEGER_MAX = {"int": (1 << 31) - 1, "unsigned int": (1 << 32) - 1, "long": (1 << 63) - 1,
                "unsigned long": (1 << 64) - 1, "long long": (1 << 63) - 1, "unsigned long long": (1 << 64) - 1}


def _pointee(kind: str | None) -> str | None:
    """What a pointer or array holds, as a value (`const int*` -> `int`; `const int**` -> `const int*`;
    `float[16]*` -> `float[16]`, `float[16]` -> `float`)."""
    if kind and kind.endswith("*"):
        return normalise(kind[:-1])
    if kind and kind.endswith("]"):
        return normalise(kind[:kind.rindex("[")])
    return None


def _promote(kind: str | None) -> str | None:
    if kind in ("bool", "char", "signed char", "unsigned char", "short", "unsigned short"):
        return "int"
    return kind


def _binary(op: str, left: str | None, right: str | None) -> str | None:
    """C's usual arithmetic conversions (and pointer arithmetic) for the types this analysis knows."""
    if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return "bool"
    if left is None or right is None:
        return None
    if op in ("<<", ">>"):
        return _promote(left)
    if left.endswith("*") or right.endswith("*"):
        if op == "-" and left.endswith("*") and right.endswith("*"):
            return "long"
        return left if left.endswith("*") else right if op == "+" else None
    left, right = _promote(left), _promote(right)
    if left not in _ARITHMETIC_RANK or right not in _ARITHMETIC_RANK:
        return left if left == right else None
    return max(left, right, key=_ARITHMETIC_RANK.index)


def _nodes(expr: c_ast.Node):
    yield expr
    for _, child in expr.children():
        yield from _nodes(child)
