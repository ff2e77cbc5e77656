"""pdcc's work grows linearly with its input (issue 9, item 13): whole-file facts are computed once per
file, never once per site. Work is counted in function calls (Python and C, through sys.setprofile), not
seconds: the count is the same on every machine, so a slow or busy CI runner cannot fail the bound."""

from __future__ import annotations

import sys
import time

from scale_input import generate
from pragmadp.cuda import frontend
from pragmadp.pipeline import transform
from pragmadp.source import SourceFile


def _calls(sites: int) -> int:
    """The function calls made by one transform of a generated file with `sites` annotated launches."""
    calls, result = _counted_transform(generate(sites))
    assert sum(r.rule.id == "PDCC500" for r in result.remarks) == sites
    return calls


def _counted_transform(text: str):
    """The function calls (Python and C) one transform of `text` makes, and its result."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        result = transform(SourceFile("scale.cu", text.encode()))
    finally:
        sys.setprofile(None)
    return calls, result


def test_transform_work_grows_linearly_with_the_number_of_sites():
    transform(SourceFile("warm.cu", generate(2).encode()))  # what is built once per process, built before counting
    small, large = _calls(25), _calls(200)
    # 8x the sites: linear is at most 8x (a file's fixed work does not grow), quadratic (the old per-site walks
    # of the whole file) 64x
    assert large < 9 * small, f"25 sites: {small} calls, 200 sites: {large} calls"


def test_a_file_without_pragmas_is_not_parsed_per_line():
    """The line index and the preprocessor's view are built only when needed."""
    source = SourceFile("plain.cu", generate(20).replace("#pragma dp", "// none").encode())
    transform(source)
    assert "_line_starts" not in vars(source)


def test_a_file_without_pragmas_or_launches_is_not_parsed():
    data = generate(20).replace("#pragma dp", "// none").replace("<<<", "(((").replace(">>>", ")))").encode()
    unit = frontend.parse(SourceFile("host.cu", data))
    assert unit.tree.root_node.end_byte == 0 and unit.launches == []


def test_masking_cuda_markers_is_linear_in_open_literals_and_comments():
    """A literal or comment left open used to be rescanned from each quote or `/*` after it (a 30 KB line of
    `"a\\` took 2.7 s; 200 KB would take minutes). The bound is 40x what linear work takes on a slow machine."""
    for text in (b'"a\\' * 70000, b"/* x\n" * 40000, b"'a\\" * 70000):
        data = b"struct __align__(16) T { int k; };\n" + text
        started = time.perf_counter()
        masked = frontend._without_attribute_macros(data, [])
        assert time.perf_counter() - started < 3.0
        assert masked.startswith(b"struct " + b" " * len(b"__align__(16)") + b" T {") and len(masked) == len(data)


def _child_calls(body: str) -> int:
    """The function calls one transform makes of a child with this body, launched under threshold(16)."""
    text = f"__global__ void child(int* x, int n) {{ {body} }}\n" \
        "__global__ void parent(int* x, int n) {\n#pragma dp threshold(16)\n  child<<<1, 32>>>(x, n);\n}\n"
    return _counted_transform(text)[0]


def test_finding_a_wait_is_linear_in_an_else_if_chain_that_breaks():
    """Each `else if` nests in the one before: a loop's ways out were once climbed from each `break` (cubic)."""
    def calls(arms: int) -> int:
        chain = " else ".join(f"if (op == {k}) {{ x[{k}] = n; if (x[0] > {k}) break; }}" for k in range(arms))
        return _child_calls(f"int op = x[1]; for (;;) {{ {chain} op = x[op]; }}")

    small, large = calls(50), calls(400)
    assert large < 12 * small, f"50 arms: {small} calls, 400 arms: {large} calls"


def test_finding_a_wait_is_linear_in_nested_loops():
    """A loop's continues are looked for in its body, not in its inner loops (whose continues are theirs): each
    loop of a nest walked whole was quadratic."""
    def calls(depth: int) -> int:
        loops = "".join(f"while (x[{k}] > n) {{ x[{k}]--; if (x[{k}] == 3) continue; " for k in range(depth))
        return _child_calls(loops + "}" * depth)

    small, large = calls(100), calls(400)
    assert large < 5 * small, f"100 loops: {small} calls, 400 loops: {large} calls"


def _call_chain(depth: int, deepest: str) -> str:
    """A child calling f0, which calls f1, ... down to f`depth`, whose body is `deepest`."""
    functions = [f"__device__ int f{depth}(int x) {{ {deepest} return x + 1; }}"]
    functions += [f"__device__ int f{k}(int x) {{ return f{k + 1}(x) + 1; }}" for k in range(depth - 1, -1, -1)]
    return "\n".join(functions) + "\n__global__ void child(int* a, int n) {\n  int i = threadIdx.x;\n" \
        "  if (i < n) a[i] = f0(a[i]);\n}\n__global__ void parent(int* a, int n) {\n#pragma dp threshold(16)\n" \
        "  child<<<1, 32>>>(a, n);\n}\n"


def test_a_call_chain_deeper_than_pythons_recursion_limit_is_searched_to_its_end():
    """The serial check once recursed once per call (a chain 1,000 deep was an internal error, PDCC900)."""
    depth = sys.getrecursionlimit() + 500
    safe = transform(SourceFile("chain.cu", _call_chain(depth, "").encode()))
    assert [r.rule.id for r in safe.remarks if r.kind == "applied"] == ["PDCC500"]
    barrier = transform(SourceFile("chain.cu", _call_chain(depth, "__syncthreads();").encode()))
    missed = [r for r in barrier.remarks if r.kind == "missed"]
    assert [r.rule.id for r in missed] == ["PDCC510"]
    assert f"in 'f{depth}', which it calls" in missed[0].message
