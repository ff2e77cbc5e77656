"""Golden tests: tests/golden/NAME.cu through pdcc must give tests/golden/NAME.expected.cu.

Each expected output is also compiled by the real nvcc, run through pdcc again (nothing may change),
and checked to keep every input line that is not a pragma or an annotated launch, in order.
Regenerate the expected files after an intended change with `pytest --update-goldens` and review the diff.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_cuda

from conftest import nvcc_compile
from pragmadp.pipeline import transform, transform_path
from pragmadp.source import SourceFile

GOLDEN = Path(__file__).resolve().parent / "golden"
INPUTS = sorted(p for p in GOLDEN.glob("*.cu") if not p.name.endswith(".expected.cu"))


def expected_path(source: Path) -> Path:
    return source.with_name(source.stem + ".expected.cu")


def transformed(source: Path) -> str:
    return transform_path(str(source), display_path=source.name).text


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_matches_expected(source: Path, update_goldens: bool):
    output = transformed(source)
    expected = expected_path(source)
    if update_goldens:
        expected.write_text(output)
    assert expected.exists(), f"no {expected.name}; run pytest --update-goldens and review it"
    assert output == expected.read_text()


@pytest.mark.nvcc
@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_expected_output_compiles(source: Path, tmp_path: Path):
    first_line = source.read_text().splitlines()[0]
    flags = first_line.split("nvcc-flags:", 1)[1].split() if "nvcc-flags:" in first_line else []
    compiled = nvcc_compile(expected_path(source), tmp_path, "-Xcompiler", "-Wall", *flags)
    assert compiled.returncode == 0, compiled.stderr
    assert "warning" not in compiled.stderr, compiled.stderr


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_idempotent_and_deterministic(source: Path):
    first = transformed(source)
    assert transformed(source) == first
    again = transform(SourceFile(source.name, first.encode()))
    assert again.text == first
    assert again.text == transform(SourceFile(source.name, first.encode()), auto="threshold(32)").text


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_untouched_lines_survive_in_order(source: Path):
    """Every input line but the pragmas and the annotated launches is in the output, in order, and
    nvcc would place it at its original line number (following the #line directives). The one other
    changes allowed are in a rewritten parent's header (a melded if/else is replaced whole): an aggregating parent's body becomes
    `NAME__pdcc_body`, and a kernel without bounds of its own gets `__launch_bounds__(1024)`."""
    lines = source.read_text().splitlines()
    pragma_lines = {i for i, line in enumerate(lines) if re.match(r"\s*#pragma (dp|meld)\b", line)}
    launch_lines = set()
    for pragma in pragma_lines:  # the annotated statement: up to the line that ends it with ';'
        line = pragma + 1
        if "#pragma meld" in lines[pragma]:   # an if/else: up to the brace that closes its last branch
            depth = 0
            while True:
                depth += lines[line].count("{") - lines[line].count("}")
                launch_lines.add(line)
                line += 1
                if depth == 0 and not (line < len(lines) and lines[line].lstrip().startswith("else")):
                    break
            continue
        while not lines[line].rstrip().endswith(";"):
            launch_lines.add(line)
            line += 1
        launch_lines.add(line)
    output = transformed(source).splitlines()
    mapped = {}  # output index -> source line nvcc believes it is
    current = 1
    for index, line in enumerate(output):
        match = re.match(r'#line (\d+) "', line)
        if match:
            current = int(match.group(1))
            continue
        mapped[index] = current
        current += 1
    position = 0
    for number, line in enumerate(lines):
        if number in pragma_lines or number in launch_lines or not line.strip():
            continue
        outlined = re.sub(r"__global__ (.*?)(\w+)\(", r"static __device__ \1\2__pdcc_body(", line)
        bounded = re.sub(r"__global__ (.*?)(\w+)\(", r"__global__ \1__launch_bounds__(1024) \2(", line)
        while position < len(output) and not (output[position] in (line, outlined, bounded)
                                              and mapped.get(position) == number + 1):
            position += 1
        assert position < len(output), f"line {number + 1} lost or misplaced: {line!r}"
        position += 1


def test_a_pragma_with_a_block_comment_over_two_lines_is_commented_out_whole():
    code = ("__global__ void c(int* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }\n"
            "__global__ void p(int* x, int n) {\n  #pragma dp threshold(8) /* tune\n     later */\n"
            "  c<<<(n + 31) / 32, 32>>>(x, n);\n}\n")
    text = transform(SourceFile("b.cu", code.encode())).text
    assert "// pdcc: #pragma dp threshold(8) /* tune\n//      later */\n" in text


def test_a_byte_order_mark_stays_first():
    code = "\ufeff__global__ void c(int* x) { x[threadIdx.x] = 1; }\n__global__ void p(int* x) {\n#pragma dp threshold(8)\n  c<<<1, 32>>>(x);\n}\n"
    text = transform(SourceFile("b.cu", code.encode())).text
    assert text.startswith('\ufeff#line 1 "b.cu"\n')


def test_auto_leaves_launches_under_consumed_pragmas_alone():
    code = ("__global__ void c(int* x) { x[threadIdx.x] = 1; }\n__global__ void p(int* x) {\n#pragma dp off\n"
            "  c<<<1, 32>>>(x);\n}\n")
    first = transform(SourceFile("b.cu", code.encode()), auto="threshold(8)").text
    assert "__pdcc_serial" not in first
    assert transform(SourceFile("b.cu", first.encode()), auto="threshold(8)").text == first


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.stem)
def test_output_parses_back_without_errors(source: Path):
    """Round trip: what pdcc writes is CUDA the front end reads cleanly (a broken template fails here,
    not in nvcc). Code the parser cannot read in the input (cpp_heavy's extended lambda) stays so."""
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))

    def errors(text: bytes) -> list[bytes]:
        tree = parser.parse(text)
        return [node.text for node in _walk(tree.root_node) if node.is_error or node.is_missing]

    assert errors(transformed(source).encode()) == errors(source.read_bytes())


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
