"""Generator of divergent branch pairs for the meld differential tests (tests/test_meld_differential.py).

A *batch* is one CUDA translation unit holding many generated functions, each with one `#pragma meld`
site: an if/else on a thread-dependent condition whose two sides are random statements over a few
unsigned and float variables and arrays. The second side is usually a mutation of the first (operands,
constants, array names, inserted and deleted statements), so a meld pass finds much to align; some
functions are refusal cases that pdcc must leave as written (a barrier, a return, a break, an atomic
against a plain store, ...).

Everything the generated code does is defined behaviour in C++ and the same on the CPU in any evaluation
that keeps each side's expressions as written: unsigned arithmetic only (no signed overflow), every index
masked with `& 63u` (arrays hold 64 elements), divisors made odd, shift counts constant and small,
floats turned into unsigned only through `f2u`, which checks the range.

Reproduce a batch by hand:  python tests/meld/meld_gen.py SEED [SIZE] > batch.cu
"""

from __future__ import annotations

import copy
import random
import re
import sys
from dataclasses import dataclass, field

U, F, P = "unsigned", "float", "unsigned*"
MASK = "63u"
SLOTS = 8  # per-thread result slots (RU/RF), see harness.h

HELPERS = """\
__device__ __forceinline__ unsigned hu(unsigned a, unsigned b) { return (a * 2654435761u) ^ (b >> 3); }
__device__ __forceinline__ unsigned hw(unsigned a, unsigned b) { return (a + 0x9e37u) * (b | 1u); }
__device__ __forceinline__ unsigned hv(unsigned a) { return (a << 5) ^ (a >> 2); }
__device__ __forceinline__ float hf(float a, float b) { return a * 0.5f - b; }
__device__ __forceinline__ unsigned f2u(float a) { return a >= 0.0f && a < 65536.0f ? (unsigned)a : 7u; }
__device__ __noinline__ void put(unsigned* p, unsigned i, unsigned v) { p[i & 63u] = v; }
"""

PARAMS = ("unsigned* A, unsigned* B, float* F, float* G, const unsigned* __restrict__ IN, unsigned* RU, "
          "float* RF, unsigned n, float x")


# --- expressions --------------------------------------------------------------------------------------

class Expr:
    ty: str

    def render(self) -> str:
        raise NotImplementedError


@dataclass
class Name(Expr):
    name: str
    ty: str

    def render(self) -> str:
        return self.name


@dataclass
class Lit(Expr):
    text: str
    ty: str

    def render(self) -> str:
        return self.text


@dataclass
class Load(Expr):
    array: str
    index: Expr
    ty: str

    def render(self) -> str:
        return f"{self.array}[{index_text(self.index)}]"


@dataclass
class Bin(Expr):
    op: str
    left: Expr
    right: Expr
    ty: str

    def render(self) -> str:
        right = self.right.render()
        if self.op in ("/", "%"):
            right = f"({right} | 1u)"
        return f"({self.left.render()} {self.op} {right})"


@dataclass
class Call(Expr):
    fn: str
    args: list[Expr]
    ty: str

    def render(self) -> str:
        return f"{self.fn}({', '.join(a.render() for a in self.args)})"


@dataclass
class ToFloat(Expr):
    inner: Expr
    ty: str = F

    def render(self) -> str:
        return f"(float)({self.inner.render()} & 1023u)"


@dataclass
class Cmp(Expr):
    op: str
    left: Expr
    right: Expr
    ty: str = "bool"

    def render(self) -> str:
        return f"{self.left.render()} {self.op} {self.right.render()}"


@dataclass
class Sel(Expr):
    """A ternary written by the user: `(c ? a : b)`."""
    cond: Expr
    yes: Expr
    no: Expr
    ty: str

    def render(self) -> str:
        return f"({self.cond.render()} ? {self.yes.render()} : {self.no.render()})"


@dataclass
class RawExpr(Expr):
    text: str
    ty: str = "bool"

    def render(self) -> str:
        return self.text


def index_text(index: Expr) -> str:
    text = index.render()
    return f"{text} & {MASK}" if isinstance(index, (Name, Lit, Load, Call, Bin)) else f"({text}) & {MASK}"


def paren(cond: Expr) -> str:
    text = cond.render()
    return text if text.startswith("(") and text.endswith(")") and balanced(text[1:-1]) else f"({text})"


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


# --- statements ---------------------------------------------------------------------------------------

class Stmt:
    def lines(self, ind: str) -> list[str]:
        raise NotImplementedError


@dataclass
class Assign(Stmt):
    target: str
    op: str
    value: Expr

    def lines(self, ind):
        return [f"{ind}{self.target} {self.op} {self.value.render()};"]


@dataclass
class Store(Stmt):
    array: str
    index: Expr
    op: str
    value: Expr

    def lines(self, ind):
        return [f"{ind}{self.array}[{index_text(self.index)}] {self.op} {self.value.render()};"]


@dataclass
class Decl(Stmt):
    ty: str
    name: str
    value: Expr

    def lines(self, ind):
        space = "" if self.ty.endswith("*") else " "
        return [f"{ind}{self.ty}{space}{self.name} = {self.value.render()};"]


@dataclass
class ConstDecl(Decl):
    def lines(self, ind):
        return [f"{ind}const {self.ty} {self.name} = {self.value.render()};"]


@dataclass
class LateDecl(Decl):
    """`unsigned t = ...;` written as a declaration without initialiser and an assignment."""
    def lines(self, ind):
        return [f"{ind}{self.ty} {self.name};", f"{ind}{self.name} = {self.value.render()};"]


@dataclass
class ArrayDecl(Stmt):
    """A per-thread local array of 64 (the rest zero): `unsigned l0[64] = {a, b};`."""
    name: str
    inits: list[Expr]

    def lines(self, ind):
        return [f"{ind}unsigned {self.name}[64] = {{{', '.join(e.render() for e in self.inits)}}};"]


@dataclass
class IncDec(Stmt):
    target: str          # a variable, or an element `A[...]` (already rendered)
    op: str              # "++" or "--"
    prefix: bool

    def lines(self, ind):
        return [f"{ind}{self.op}{self.target};" if self.prefix else f"{ind}{self.target}{self.op};"]


@dataclass
class CallStmt(Stmt):
    call: Call

    def lines(self, ind):
        return [f"{ind}{self.call.render()};"]


@dataclass
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    els: list[Stmt] | None = None
    pragma: str | None = None     # "#pragma meld ..." on the line before: the site
    chain: bool = False           # render a lone If in `els` as `else if`

    def lines(self, ind):
        out = [f"{ind}{self.pragma}"] if self.pragma else []
        out.append(f"{ind}if {paren(self.cond)} {{")
        out += block_lines(self.then, ind + "  ")
        els = self.els
        while els is not None:
            if self.chain and len(els) == 1 and isinstance(els[0], If):
                nested = els[0]
                out.append(f"{ind}}} else if {paren(nested.cond)} {{")
                out += block_lines(nested.then, ind + "  ")
                els = nested.els
                continue
            out.append(f"{ind}}} else {{")
            out += block_lines(els, ind + "  ")
            els = None
        out.append(f"{ind}}}")
        return out


@dataclass
class For(Stmt):
    """`for (unsigned i = 0u; i < B; ++i)`; with a signed counter (a literal bound) it may also walk down,
    `for (int i = B - 1; i >= 0; --i)`: two counted loops walking opposite ways meld into one."""
    var: str
    bound: Expr
    body: list[Stmt]
    signed: bool = False
    down: bool = False

    def lines(self, ind):
        if not self.signed:
            head = f"for (unsigned {self.var} = 0u; {self.var} < {self.bound.render()}; ++{self.var})"
        elif self.down:
            head = f"for (int {self.var} = {self.bound.render()} - 1; {self.var} >= 0; --{self.var})"
        else:
            head = f"for (int {self.var} = 0; {self.var} < {self.bound.render()}; ++{self.var})"
        return [f"{ind}{head} {{"] + block_lines(self.body, ind + "  ") + [f"{ind}}}"]


@dataclass
class While(Stmt):
    """`unsigned wK = N; while (wK != 0u) { wK -= 1u; body }`: two statements of the side."""
    var: str
    start: Lit
    body: list[Stmt]

    def lines(self, ind):
        return ([f"{ind}unsigned {self.var} = {self.start.render()};", f"{ind}while ({self.var} != 0u) {{",
                 f"{ind}  {self.var} -= 1u;"] + block_lines(self.body, ind + "  ") + [f"{ind}}}"])


@dataclass
class Raw(Stmt):
    text: str

    def lines(self, ind):
        return [f"{ind}{self.text}"]


def block_lines(stmts: list[Stmt], ind: str) -> list[str]:
    out: list[str] = []
    for s in stmts:
        out += s.lines(ind)
    return out


# --- scope --------------------------------------------------------------------------------------------

@dataclass
class Scope:
    names: dict[str, str]            # readable name -> type (unsigned, float, unsigned*)
    assignable: set[str]
    arrays: dict[str, str]           # array or pointer name -> element type
    stores: set[str]                 # arrays that may be written
    loop_depth: int = 0
    in_loop: bool = False            # inside a for/while of this side (break/continue stay inside)

    def child(self) -> "Scope":
        return Scope(dict(self.names), set(self.assignable), dict(self.arrays), set(self.stores),
                     self.loop_depth, self.in_loop)

    def declare(self, ty: str, name: str, assignable: bool = True) -> None:
        self.names[name] = ty
        self.assignable.discard(name)
        self.arrays.pop(name, None)
        self.stores.discard(name)
        if ty == P:
            self.arrays[name] = U
            self.stores.add(name)
        elif ty == "array":
            self.names.pop(name)
        elif assignable:
            self.assignable.add(name)

    def of(self, ty: str, assignable: bool = False) -> list[str]:
        pool = self.assignable if assignable else self.names
        return sorted(n for n in pool if self.names.get(n) == ty)


def without(sc: Scope, name: str) -> Scope:
    """The scope in which a declaration of `name` is initialised: the name is not readable there."""
    inner = sc.child()
    inner.names.pop(name, None)
    inner.assignable.discard(name)
    return inner


def retarget(stmts: list[Stmt], old: str, new: str) -> None:
    """Stores into `old` become stores into `new` (loads stay)."""
    for s in stmts:
        if isinstance(s, Store) and s.array == old:
            s.array = new
        elif isinstance(s, IncDec) and s.target.startswith(f"{old}["):
            s.target = new + s.target[len(old):]
        elif isinstance(s, CallStmt) and s.call.fn == "put" and s.call.args[0].render() == old:
            s.call.args[0] = Name(new, P)
        elif isinstance(s, If):
            retarget(s.then + (s.els or []), old, new)
        elif isinstance(s, (For, While)):
            retarget(s.body, old, new)


def no_nested_sites(stmts: list[Stmt]) -> None:
    for s in stmts:
        if isinstance(s, If):
            s.pragma = None
            no_nested_sites(s.then + (s.els or []))
        elif isinstance(s, (For, While)):
            no_nested_sites(s.body)


def idents(stmts: list[Stmt]) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", "\n".join(block_lines(stmts, ""))))


def mentions(stmts: list[Stmt], name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", "\n".join(block_lines(stmts, ""))) is not None


def outer_scope(with_shared: bool, loop_var: str | None) -> Scope:
    names = {"tid": U, "n": U, "x": F, "u0": U, "u1": U, "u2": U, "u3": U, "f0": F, "f1": F, "f2": F}
    arrays = {"A": U, "B": U, "IN": U, "F": F, "G": F}
    stores = {"A", "B", "F", "G"}
    if with_shared:
        arrays["S"] = U
        stores.add("S")
    if loop_var:
        names[loop_var] = U
    return Scope(names, {"u0", "u1", "u2", "u3", "f0", "f1", "f2"}, arrays, stores)


# --- the generator ------------------------------------------------------------------------------------

CATEGORIES = (  # category, weight; "pair" is the one whose meld share is measured
    ("pair", 56), ("chain", 8), ("lone", 5), ("dissimilar", 4), ("effects", 3),
    ("refuse-barrier", 4), ("refuse-return", 4), ("refuse-break", 3), ("refuse-warp", 3), ("refuse-uniform", 2),
    ("mismatch-atomic", 4), ("mismatch-volatile", 2), ("mismatch-shared", 2),
)
# refuse-*: the whole branch must be left as written, with this missed remark once the meld pass exists
# (PDCC600 until then). mismatch-*: one statement, at the same place on both sides, differs in atomicity,
# volatility or address space; it must never be aligned (it stays as written, guarded), the rest may meld.
# effects: the condition has a side effect (evaluated once, first, it may meld).
REFUSAL_RULES = {
    "refuse-barrier": "PDCC810", "refuse-warp": "PDCC811", "refuse-return": "PDCC813", "refuse-break": "PDCC813",
    "refuse-uniform": "PDCC803",
}
MISMATCH_RULES = {"mismatch-atomic": "PDCC814", "mismatch-volatile": "PDCC814", "mismatch-shared": "PDCC815"}


@dataclass
class Site:
    """One generated function: its meld site and how to print it (also wrongly, for the self-test)."""
    name: str
    category: str
    kernel: bool                    # __global__ void (else __device__ unsigned)
    shared: bool
    loop_var: str | None            # the site sits in `for (unsigned r = 0u; r < 2u; ++r)`
    site: If
    prologue: list[Stmt] = field(default_factory=list)
    odd: str | None = None          # mismatch-*: the statement that must stay as written

    def text(self, wrong: str | None = None) -> str:
        """The function. `wrong` prints a deliberately broken 'meld' of the site: 'swap' exchanges the two
        sides, 'unguard' runs the else side for every thread, 'reeval' writes `if (c) {A} if (!(c)) {B}` (the condition evaluated again after A ran)."""
        head = "__global__ void" if self.kernel else "__device__ unsigned"
        out = [f"// ---- {self.name} ({self.category}) ----", f"{head} {self.name}({PARAMS}) {{",
               "  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;",
               "  unsigned u0 = IN[tid & 63u];", "  unsigned u1 = tid * 2654435761u;", "  unsigned u2 = n + tid;",
               "  unsigned u3 = B[(tid * 7u) & 63u];", "  float f0 = F[tid & 63u];", "  float f1 = x * (float)tid;",
               "  float f2 = G[(tid + 3u) & 63u];"]
        if self.shared:
            out += ["  __shared__ unsigned S[64];", "  S[tid & 63u] = u0 ^ 0x5au;"]
        out += block_lines(self.prologue, "  ")
        ind = "  "
        if self.loop_var:
            out.append(f"  for (unsigned {self.loop_var} = 0u; {self.loop_var} < 2u; ++{self.loop_var}) {{")
            ind = "    "
        site = self.site
        if wrong == "swap" and site.els is not None:
            site = If(site.cond, site.els, site.then, site.pragma, site.chain)
            out += site.lines(ind)
        elif wrong == "unguard" and site.els is not None:
            out += If(site.cond, site.then, None, site.pragma).lines(ind)
            out += [f"{ind}{{"] + block_lines(site.els, ind + "  ") + [f"{ind}}}"]
        elif wrong == "reeval" and site.els is not None:
            out += If(site.cond, site.then, None, site.pragma).lines(ind)
            out += If(RawExpr(f"!{paren(site.cond)}"), site.els, None, None, site.chain).lines(ind)
        else:
            out += site.lines(ind)
        if self.loop_var:
            out.append("  }")
        for k, v in enumerate(("u0", "u1", "u2", "u3")):
            out.append(f"  RU[tid * 8u + {k}u] = {v};")
        for k, v in enumerate(("f0", "f1", "f2")):
            out.append(f"  RF[tid * 8u + {k}u] = {v};")
        if self.shared:
            out.append("  RU[tid * 8u + 7u] = S[(tid + 1u) & 63u];")
        if not self.kernel:
            out.append("  return u0 ^ (u1 + u2) ^ (u3 << 1) ^ f2u(f0 + f1 * f2);")
        out.append("}")
        return "\n".join(out) + "\n"


@dataclass
class Batch:
    seed: int
    sites: list[Site]

    def text(self, wrong: dict[str, str] | None = None) -> str:
        wrong = wrong or {}
        parts = [f"// meld differential batch, seed {self.seed}: {len(self.sites)} generated branch pairs\n"
                 '#include "shim.h"\n#include "harness.h"\n\n', HELPERS, "\n"]
        for s in self.sites:
            parts.append(s.text(wrong.get(s.name)))
            parts.append("\n")
        parts.append('extern "C" const MeldEntry meld_table[] = {\n')
        for s in self.sites:
            parts.append(f'  {{"{s.name}", nullptr, {s.name}}},\n' if s.kernel else f'  {{"{s.name}", {s.name}, nullptr}},\n')
        parts.append("};\n")
        parts.append(f'extern "C" const unsigned meld_table_size = {len(self.sites)};\n')
        return "".join(parts)


class Gen:
    def __init__(self, rng: random.Random):
        self.r = rng
        self.fresh = 0

    # choices
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def weighted(self, pairs):
        total = sum(w for _, w in pairs)
        k = self.r.uniform(0, total)
        for item, w in pairs:
            k -= w
            if k <= 0:
                return item
        return pairs[-1][0]

    def fresh_name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # expressions
    def ulit(self) -> Lit:
        # Unsuffixed literals of other types too: 0x80000000 is unsigned int, 3000000000 and 2147483648
        # are long (a select between them must keep their type).
        return Lit(self.pick(["0u", "1u", "2u", "3u", "5u", "7u", "12u", "31u", "100u", "0x5au", "255u",
                              "1000u", "65535u", "0x80000001u", "4000000000u", "0x80000000", "0xFFFFFFFF",
                              "3000000000", "2147483648", "7"]), U)

    def flit(self) -> Lit:
        return Lit(self.pick(["0.0f", "1.0f", "0.5f", "-1.5f", "2.0f", "3.25f", "-0.125f", "10.0f", "1e-3f"]), F)

    def expr(self, ty: str, sc: Scope, depth: int) -> Expr:
        return self.uexpr(sc, depth) if ty == U else self.fexpr(sc, depth)

    def uexpr(self, sc: Scope, depth: int) -> Expr:
        kinds = [("name", 5), ("lit", 2), ("load", 3 if depth > 0 else 1)]
        if depth > 0:
            kinds += [("bin", 6), ("call", 1), ("f2u", 0.5), ("sel", 0.4)]
        k = self.weighted(kinds)
        if k == "sel":
            return Sel(self.inner_condition(sc, depth=0), self.uexpr(sc, depth - 1), self.uexpr(sc, depth - 1), U)
        if k == "name":
            return Name(self.pick(sc.of(U)), U)
        if k == "lit":
            return self.ulit()
        if k == "load":
            arrays = sorted(a for a, t in sc.arrays.items() if t == U)
            return Load(self.pick(arrays), self.index(sc), U)
        if k == "call":
            if self.chance(0.3):
                return Call("hv", [self.uexpr(sc, depth - 1)], U)
            return Call(self.pick(["hu", "hw"]), [self.uexpr(sc, depth - 1), self.uexpr(sc, depth - 1)], U)
        if k == "f2u":
            return Call("f2u", [self.fexpr(sc, depth - 1)], U)
        op = self.weighted([("+", 4), ("-", 2), ("*", 3), ("^", 3), ("&", 2), ("|", 2), (">>", 1.5), ("<<", 1),
                            ("/", 0.7), ("%", 0.7)])
        if op in (">>", "<<"):
            return Bin(op, self.uexpr(sc, depth - 1), Lit(f"{self.r.randint(1, 12)}u", U), U)
        return Bin(op, self.uexpr(sc, depth - 1), self.uexpr(sc, depth - 1), U)

    def fexpr(self, sc: Scope, depth: int) -> Expr:
        kinds = [("name", 5), ("lit", 2), ("load", 3 if depth > 0 else 1)]
        if depth > 0:
            kinds += [("bin", 6), ("call", 1), ("conv", 1), ("sel", 0.4)]
        k = self.weighted(kinds)
        if k == "sel":
            return Sel(self.inner_condition(sc, depth=0), self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1), F)
        if k == "name" and self.chance(0.15):  # an unsigned operand converted implicitly
            return Name(self.pick(sc.of(U)), U)
        if k == "name":
            return Name(self.pick(sc.of(F)), F)
        if k == "lit":
            return self.flit()
        if k == "load":
            arrays = sorted(a for a, t in sc.arrays.items() if t == F)
            return Load(self.pick(arrays), self.index(sc), F)
        if k == "call":
            return Call("hf", [self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1)], F)
        if k == "conv":
            return ToFloat(self.uexpr(sc, depth - 1))
        op = self.weighted([("+", 4), ("-", 3), ("*", 3)])
        return Bin(op, self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1), F)

    def index(self, sc: Scope) -> Expr:
        base = Name(self.pick(sc.of(U)), U) if self.chance(0.8) else Load("IN", Name("tid", U), U)
        if self.chance(0.5):
            return Bin("+", base, Lit(f"{self.r.randint(1, 9)}u", U), U)
        return base

    def condition(self, sc: Scope, divergent: bool = True) -> Expr:
        """A thread-dependent condition (through tid, a variable computed from it, or a load indexed by it)."""
        if not divergent:
            return self.weighted([(Cmp(">", Name("n", U), Lit(f"{self.r.randint(0, 9)}u", U)), 1),
                                  (Cmp("<", Name("x", F), self.flit()), 1),
                                  (Cmp("==", RawExpr("blockDim.x", U), Lit("16u", U)), 1)])
        k = self.weighted([("mask", 4), ("lt", 3), ("load", 2), ("fload", 1), ("var", 3), ("fvar", 1)])
        unsigned = [v for v in ("u0", "u1", "u2", "u3") if sc.names.get(v) == U]   # not shadowed
        floats = [v for v in ("f0", "f2") if sc.names.get(v) == F]
        if (k == "var" and not unsigned) or (k == "fvar" and not (floats and sc.names.get("f1") == F)):
            k = "lt"
        if k == "mask":
            m = self.pick(["1u", "2u", "3u", "4u", "8u", "16u"])
            return Cmp(self.pick(["==", "!="]), RawExpr(f"(tid & {m})", U), Lit("0u", U))
        if k == "lt":
            return Cmp(self.pick(["<", ">=", ">"]), Name("tid", U), Lit(f"{self.r.randint(1, 30)}u", U))
        if k == "load":
            arr = self.pick(["A", "B", "IN"])
            return Cmp(self.pick([">", "<"]), Load(arr, Name("tid", U), U), self.pick([Lit("50u", U), Name("n", U)]))
        if k == "fload":
            arr = self.pick(["F", "G"])
            return Cmp(self.pick([">", "<"]), Load(arr, Name("tid", U), F), self.pick([Name("x", F), Lit("0.0f", F)]))
        if k == "var":  # a variable the sides may change: the condition must be evaluated once, before
            v = self.pick(unsigned)
            return Cmp(self.pick(["==", "!="]), RawExpr(f"({v} & {self.pick(['1u', '2u', '4u', '3u'])})", U),
                       Lit("0u", U))
        return Cmp(self.pick(["<", ">"]), Name(self.pick(floats), F), self.pick([Lit("0.0f", F), Name("f1", F)]))

    def inner_condition(self, sc: Scope, depth: int = 1) -> Expr:
        if self.chance(0.5):
            return self.condition(sc)
        ty = self.pick([U, U, F])
        return Cmp(self.pick(["<", ">", "==", "!="]) if ty == U else self.pick(["<", ">"]),
                   self.expr(ty, sc, depth), self.expr(ty, sc, 0))

    def statement(self, sc: Scope, depth: int, block_names: set[str]) -> Stmt:
        kinds = [("assign", 6), ("compound", 3), ("store", 4), ("decl", 2.5), ("call", 1), ("put", 0.5),
                 ("ptr", 0.3), ("incdec", 0.8), ("array", 0.25)]
        if depth < 2:
            kinds += [("if", 1.2), ("for", 1.0), ("while", 0.2)]
        k = self.weighted(kinds)
        if k == "assign":
            ty = self.pick([U, U, F])
            return Assign(self.pick(sc.of(ty, assignable=True)), "=", self.expr(ty, sc, 2))
        if k == "compound":
            ty = self.pick([U, U, F])
            op = self.pick(["+=", "-=", "^=", "|=", "*="] if ty == U else ["+=", "-=", "*="])
            return Assign(self.pick(sc.of(ty, assignable=True)), op, self.expr(ty, sc, 1))
        if k == "store":
            arr = self.pick(sorted(sc.stores))
            ty = sc.arrays[arr]
            op = self.weighted([("=", 4), ("+=", 1)] if ty == F else [("=", 4), ("+=", 1), ("^=", 1)])
            return Store(arr, self.index(sc), op, self.expr(ty, sc, 2))
        if k == "decl":
            ty = self.pick([U, U, F])
            name = self.decl_name(sc, block_names)
            value = self.expr(ty, without(sc, name), 2)  # `unsigned u2 = u2 + 1u;` would read itself
            form = self.weighted([(Decl, 6), (ConstDecl, 2), (LateDecl, 1)])
            sc.declare(ty, name, assignable=form is not ConstDecl)
            block_names.add(name)
            return form(ty, name, value)
        if k == "incdec":
            if self.chance(0.25):
                arr = self.pick(sorted(a for a in sc.stores if sc.arrays[a] == U))
                target = f"{arr}[{index_text(self.index(sc))}]"
            else:
                target = self.pick(sc.of(U, assignable=True))
            return IncDec(target, self.pick(["++", "--"]), self.chance(0.5))
        if k == "array":
            name = self.decl_name(sc, block_names, prefix="l")
            inits = [self.uexpr(sc, 1) for _ in range(self.r.randint(1, 3))]
            sc.declare("array", name, assignable=False)
            sc.arrays[name] = U
            sc.stores.add(name)
            block_names.add(name)
            return ArrayDecl(name, inits)
        if k == "ptr":
            name = self.decl_name(sc, block_names, prefix="p")
            value = Name(self.pick(["A", "B"]), P)
            sc.declare(P, name)
            block_names.add(name)
            return Decl(P, name, value)
        if k == "call":
            ty = self.pick([U, F])
            target = self.pick(sc.of(ty, assignable=True))
            if ty == U:
                return Assign(target, "=", Call(self.pick(["hu", "hw"]), [self.uexpr(sc, 1), self.uexpr(sc, 1)], U))
            return Assign(target, "=", Call("hf", [self.fexpr(sc, 1), self.fexpr(sc, 1)], F))
        if k == "put":
            arr = self.pick(sorted(a for a in sc.stores if sc.arrays[a] == U))
            return CallStmt(Call("put", [Name(arr, P), self.uexpr(sc, 1), self.uexpr(sc, 1)], "void"))
        if k == "if":
            cond = self.inner_condition(sc)
            then = self.block(sc.child(), depth + 1, self.r.randint(1, 3))
            els = self.block(sc.child(), depth + 1, self.r.randint(1, 3)) if self.chance(0.5) else None
            nested = "#pragma meld" if els is not None and self.chance(0.05) else None  # goes with the outer one
            return If(cond, then, els, nested)
        if k == "for":
            inner = sc.child()
            var = "ijk"[sc.loop_depth]
            inner.declare(U, var, assignable=False)
            inner.loop_depth += 1
            inner.in_loop = True
            signed = self.chance(0.3)
            bound = Lit(str(self.r.randint(1, 4)), "int") if signed else \
                Lit(f"{self.r.randint(1, 4)}u", U) if self.chance(0.7) else RawExpr(f"({self.pick(sc.of(U))} & 3u)", U)
            body = self.block(inner, depth + 1, self.r.randint(1, 3))
            if signed:   # the counter's values must show in the output: a wrong one changes what is stored where
                body.insert(0, Raw(f"B[((unsigned){var} * 7u + tid) & 63u] += (unsigned){var} + 1u;"))
            if self.chance(0.05):  # a jump that stays inside the side: no reason to refuse
                body.append(If(self.inner_condition(inner), [Raw(self.pick(["break;", "continue;"]))]))
            return For(var, bound, body, signed, signed and self.chance(0.5))
        # while
        var = self.decl_name(sc, block_names, prefix="w")
        block_names.add(var)
        inner = sc.child()
        inner.declare(U, var, assignable=False)
        inner.in_loop = True
        body = self.block(inner, depth + 1, self.r.randint(1, 2))
        sc.declare(U, var, assignable=False)
        return While(var, Lit(f"{self.r.randint(1, 3)}u", U), body)

    def decl_name(self, sc: Scope, block_names: set[str], prefix: str = "t") -> str:
        """A local's name: usually new; sometimes one that shadows an outer variable (u2, f1, ...), so
        hoisting must rename it without changing what the rest of the function sees."""
        if prefix == "t" and self.chance(0.08):
            candidates = [v for v in ("u1", "u2", "u3", "f1", "f2") if v not in block_names]
            if candidates:
                return self.pick(candidates)
        for _ in range(20):
            name = f"{prefix}{self.r.randint(0, 5)}"
            if name not in block_names and name not in sc.names:
                return name
        return self.fresh_name(prefix)

    def block(self, sc: Scope, depth: int, size: int) -> list[Stmt]:
        names: set[str] = set()
        return [self.statement(sc, depth, names) for _ in range(size)]

    # mutation: the "similar" other side
    def mutate_expr(self, e: Expr, sc: Scope, rate: float) -> Expr:
        e = copy.deepcopy(e)
        return self._mut(e, sc, rate)

    def _mut(self, e: Expr, sc: Scope, rate: float) -> Expr:
        if isinstance(e, Name):
            if e.ty in (U, F) and e.name in sc.names and self.chance(rate):
                return Name(self.pick(sc.of(e.ty)), e.ty)
            return e
        if isinstance(e, Lit):
            if self.chance(rate):
                return self.ulit() if e.ty == U else self.flit()
            return e
        if isinstance(e, Load):
            array = e.array
            if self.chance(rate):
                same = sorted(a for a, t in sc.arrays.items() if t == e.ty)
                array = self.pick(same)
            return Load(array, self._mut(e.index, sc, rate), e.ty)
        if isinstance(e, Bin):
            op = e.op
            if self.chance(rate / 3) and op in ("+", "-"):
                op = "-" if op == "+" else "+"
            if self.chance(rate / 4):  # a whole new operand
                return Bin(op, self._mut(e.left, sc, rate), self.expr(e.right.ty, sc, 1)
                           if op not in ("<<", ">>") else e.right, e.ty)
            if e.ty == F and self.chance(rate / 2):  # an operand of the other type (converted implicitly)
                side = self.pick(["left", "right"])
                operand = getattr(e, side)
                if isinstance(operand, Name) and operand.name in sc.names:
                    other = U if operand.ty == F else F
                    e = copy.copy(e)
                    setattr(e, side, Name(self.pick(sc.of(other)), other))
            if op in ("<<", ">>"):  # the count stays a constant below 32
                count = Lit(f"{self.r.randint(1, 12)}u", U) if self.chance(rate) else e.right
                return Bin(op, self._mut(e.left, sc, rate), count, e.ty)
            return Bin(op, self._mut(e.left, sc, rate), self._mut(e.right, sc, rate), e.ty)
        if isinstance(e, Call):
            fn = e.fn
            if fn in ("hu", "hw") and self.chance(rate / 3):
                fn = "hw" if fn == "hu" else "hu"
            return Call(fn, [self._mut(a, sc, rate) for a in e.args], e.ty)
        if isinstance(e, ToFloat):
            return ToFloat(self._mut(e.inner, sc, rate))
        if isinstance(e, Sel):
            return Sel(self._mut(e.cond, sc, rate), self._mut(e.yes, sc, rate), self._mut(e.no, sc, rate), e.ty)
        if isinstance(e, Cmp):
            return Cmp(e.op, self._mut(e.left, sc, rate), self._mut(e.right, sc, rate))
        return e

    def mutate_block(self, stmts: list[Stmt], sc: Scope, depth: int, rate: float) -> list[Stmt]:
        out: list[Stmt] = []
        names: set[str] = {s.name for s in stmts if isinstance(s, (Decl, ArrayDecl))} | \
            {s.var for s in stmts if isinstance(s, While)}
        for at, s in enumerate(stmts):
            if self.chance(rate * 0.25):  # an inserted declaration must not take a name the rest still uses
                out.append(self.statement(sc, depth, names | idents(stmts[at:])))
            if not isinstance(s, (Decl, While, ArrayDecl)) and self.chance(rate * 0.2):
                continue  # deleted
            if type(s) is Decl and s.ty in (U, F) and self.chance(rate * 0.3) and not mentions(stmts[at + 1:], s.name):
                # same name, other type, on this side only: hoisting must keep the two apart
                ty = F if s.ty == U else U
                value = self.expr(ty, without(sc, s.name), 2)
                sc.declare(ty, s.name)
                out.append(Decl(ty, s.name, value))
                continue
            out.append(self.mutate_stmt(s, sc, depth, rate))
        if self.chance(rate * 0.25):
            out.append(self.statement(sc, depth, names))
        return out

    def mutate_stmt(self, s: Stmt, sc: Scope, depth: int, rate: float) -> Stmt:
        if isinstance(s, Assign):
            target = s.target
            ty = sc.names[target]
            if self.chance(rate / 2):
                target = self.pick(sc.of(ty, assignable=True))
            return Assign(target, s.op, self.mutate_expr(s.value, sc, rate))
        if isinstance(s, Store):
            array = s.array
            if self.chance(rate):
                array = self.pick(sorted(a for a in sc.stores if sc.arrays[a] == sc.arrays[s.array]))
            return Store(array, self.mutate_expr(s.index, sc, rate), s.op, self.mutate_expr(s.value, sc, rate))
        if isinstance(s, IncDec):
            target = s.target
            if "[" not in target and self.chance(rate / 2):
                target = self.pick(sc.of(U, assignable=True))
            return IncDec(target, s.op if not self.chance(rate / 3) else ("--" if s.op == "++" else "++"), s.prefix)
        if isinstance(s, ArrayDecl):
            inits = [self.mutate_expr(e, sc, rate) for e in s.inits]
            sc.declare("array", s.name, assignable=False)
            sc.arrays[s.name] = U
            sc.stores.add(s.name)
            return ArrayDecl(s.name, inits)
        if isinstance(s, Decl):
            if s.ty == P:
                value = Name(self.pick(["A", "B"]), P) if self.chance(rate) else s.value
                sc.declare(P, s.name)
                return Decl(P, s.name, value)
            value = self.mutate_expr(s.value, without(sc, s.name), rate)
            sc.declare(s.ty, s.name, assignable=not isinstance(s, ConstDecl))
            return type(s)(s.ty, s.name, value)
        if isinstance(s, CallStmt):
            return CallStmt(self.mutate_expr(s.call, sc, rate))  # type: ignore[arg-type]
        if isinstance(s, If):
            cond = self.mutate_expr(s.cond, sc, rate / 2)
            then = self.mutate_block(s.then, sc.child(), depth + 1, rate)
            els = self.mutate_block(s.els, sc.child(), depth + 1, rate) if s.els is not None else None
            return If(cond, then, els, s.pragma)
        if isinstance(s, For):
            inner = sc.child()
            inner.declare(U, s.var, assignable=False)
            inner.loop_depth += 1
            inner.in_loop = True
            bound = s.bound
            if isinstance(bound, Lit) and self.chance(rate / 2):
                bound = Lit(str(self.r.randint(1, 4)), "int") if s.signed else Lit(f"{self.r.randint(1, 4)}u", U)
            down = not s.down if s.signed and self.chance(0.5) else s.down   # the other side may walk the other way
            return For(s.var, bound, self.mutate_block(s.body, inner, depth + 1, rate), s.signed, down)
        if isinstance(s, While):
            inner = sc.child()
            inner.declare(U, s.var, assignable=False)
            inner.in_loop = True
            body = self.mutate_block(s.body, inner, depth + 1, rate)
            sc.declare(U, s.var, assignable=False)
            return While(s.var, s.start, body)
        return copy.deepcopy(s)

    # sites
    def pragma(self) -> str:
        return self.weighted([("#pragma meld", 5), ("#pragma meld threshold(0.1)", 3),
                              ("#pragma meld threshold(0.05)", 1), ("#pragma meld threshold(0.5)", 1)])

    def site(self, index: int) -> Site:
        category = self.weighted(CATEGORIES)
        drawn = category == "mismatch-shared" or self.chance(0.25)
        shared = category == "mismatch-shared" or (drawn and self.chance(0.3))
        # A uniform condition reads parameters, uniform only in a kernel (the draws stay as they were).
        kernel = drawn or category == "refuse-uniform"
        loop_var = "r" if category == "refuse-break" or self.chance(0.1) else None
        sc = outer_scope(shared, loop_var)
        prologue: list[Stmt] = []
        cond = self.condition(sc, divergent=category != "refuse-uniform")
        if category == "effects":
            cond = self.effect_condition()
        size = self.r.randint(2, 6)
        then = self.block(sc.child(), 0, size)
        rate = self.pick([0.15, 0.3, 0.45])
        if category == "dissimilar":
            els: list[Stmt] | None = self.block(sc.child(), 0, self.r.randint(2, 6))
        else:
            els = self.mutate_block(then, sc.child(), 0, rate)
        site = If(cond, then, els, self.pragma())
        if category == "chain":
            third = self.mutate_block(then, sc.child(), 0, rate)
            second = self.effect_condition() if self.chance(0.25) else self.condition(sc)
            site = If(cond, then, [If(second, els, third)], site.pragma, chain=True)
        elif category == "lone":
            site.els = None
        odd = None
        if category.startswith(("refuse-", "mismatch-")):
            odd = self.refuse(category, site, sc, kernel)
            no_nested_sites(site.then + (site.els or []))  # the whole function must stay as written
        return Site(f"meld_{index}", category, kernel, shared, loop_var, site, prologue, odd)

    def effect_condition(self) -> Expr:
        v = self.pick(["u0", "u1", "u2", "u3"])
        return self.pick([RawExpr(f"(({v}++ & 1u) == 0u)"), RawExpr(f"((tid & (++{v} & 3u)) == 0u)"),
                          RawExpr(f"((({v} = hv({v})) & 4u) != 0u)")])

    def refuse(self, category: str, site: If, sc: Scope, kernel: bool) -> str | None:
        """Makes `site` a case the meld pass must leave as written (refuse-*), or one whose odd statement,
        returned, it must leave as written (mismatch-*)."""
        assert site.els is not None
        side = site.then if self.chance(0.5) else site.els
        # what is inserted reads only names that no side redeclares at its top level
        sc = sc.child()
        for name in idents(site.then) | idents(site.els):
            if name in sc.names and name not in ("tid", "n", "x"):
                if any(isinstance(d, (Decl, ArrayDecl)) and d.name == name for d in site.then + site.els):
                    sc.names.pop(name)
                    sc.assignable.discard(name)
        at = self.r.randint(0, len(side))
        if category == "refuse-barrier":
            side.insert(at, Raw("__syncthreads();"))
        elif category == "refuse-warp":
            v = self.pick(sc.of(U, assignable=True) or ["tid"])
            side.insert(at, Raw(self.pick([f"{v} = __shfl_sync(0xffffffffu, {v}, 0);",
                                           f"{v} += __ballot_sync(0xffffffffu, ({v} & 1u) != 0u);"])))
        elif category == "refuse-return":
            ret = "return;" if kernel else f"return {self.uexpr(sc, 1).render()};"
            side.insert(at, If(self.inner_condition(sc), [Raw(ret)]) if self.chance(0.5) else Raw(ret))
            if at < len(side) - 1 and not isinstance(side[at], If):
                del side[at + 1:]  # nothing unreachable after an unconditional return
        elif category == "refuse-break":
            jump = self.pick(["break;", "continue;"])
            side.insert(at, If(self.inner_condition(sc), [Raw(jump)]) if self.chance(0.5) else Raw(jump))
        elif category.startswith("mismatch-"):
            # the same store on both sides at the same place; on one side atomic/volatile/shared
            arr = "S" if category == "mismatch-shared" else self.pick(["A", "B"])
            index = self.index(sc)
            value = self.uexpr(sc, 1)
            other = self.mutate_expr(value, sc, 0.3)
            at_other = min(at, len(site.els) if side is site.then else len(site.then))
            other_side = site.els if side is site.then else site.then
            if category == "mismatch-atomic":
                # the value as unsigned: a long literal (3000000000) would leave atomicAdd's type ambiguous
                odd = Raw(f"atomicAdd(&{arr}[{index_text(index)}], (unsigned)({value.render()}));")
                plain: Stmt = Store(arr, index, "+=", other)
            elif category == "mismatch-volatile":
                odd = Raw(f"((volatile unsigned*){arr})[{index_text(index)}] = {value.render()};")
                plain = Store(arr, index, "=", other)
            else:
                odd = Store("S", index, "=", value)
                plain = Store(self.pick(["A", "B"]), index, "=", other)
            if category == "mismatch-shared":  # the odd store's only possible partner is the global one
                retarget(other_side, "S", "A")
            side.insert(at, odd)
            other_side.insert(at_other, plain)
            return odd.lines("")[0]
        # refuse-uniform: the condition is already uniform
        return None

    def batch(self, seed: int, size: int) -> Batch:
        return Batch(seed, [self.site(i) for i in range(size)])


def generate(seed: int, size: int = 250) -> Batch:
    return Gen(random.Random(seed)).batch(seed, size)


if __name__ == "__main__":
    sys.stdout.write(generate(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 250).text())
