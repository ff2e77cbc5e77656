"""The edit buffer: bytes outside edits are kept, and nvcc's idea of each line's number (following
the #line directives) is the line it came from — checked on generated files and edits."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pragmadp.source import EditBuffer, Rope, SourceFile


def test_no_edits_is_byte_identical():
    data = b"int a;\r\n\tint b;   \n// tail without newline"
    assert EditBuffer(SourceFile("f.cu", data)).render().encode() == data


def mapped_lines(output: str) -> list[tuple[int, str]]:
    """(line number nvcc assigns, text) for every line that is not a #line directive."""
    result, current = [], 1
    for line in output.split("\n"):
        match = re.fullmatch(r'#line (\d+) "f.cu"', line)
        if match:
            current = int(match.group(1))
            continue
        result.append((current, line))
        current += 1
    return result


@st.composite
def files_and_edits(draw):
    count = draw(st.integers(min_value=1, max_value=30))
    lines = [f"@{n}@" + draw(st.sampled_from(["", " x;", "  y = 1;", " /* c */"])) for n in range(1, count + 1)]
    data = ("\n".join(lines) + "\n").encode()
    inside_tokens = {i for m in re.finditer(rb"@\d+@", data) for i in range(m.start() + 1, m.end())}
    safe = [i for i in range(len(data) + 1) if i not in inside_tokens]  # never cut a token in two
    cuts = sorted(draw(st.lists(st.sampled_from(safe), max_size=8)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        text = draw(st.sampled_from(["", "GEN", "GEN\nGEN\n", "\nGEN {\n  GEN;\n}\n"]))
        edits.append((start, end, text))
    return data, edits


@given(files_and_edits())
@settings(max_examples=300, deadline=None)
def test_untouched_bytes_stay_and_keep_their_line_numbers(case):
    data, edits = case
    source = SourceFile("f.cu", data)
    buffer = EditBuffer(source)
    for start, end, text in edits:
        buffer.replace(start, end, Rope(source).write(text, source.line_of(start)))
    output = buffer.render()
    kept = []
    position = 0
    for start, end, _ in edits:
        kept.append(data[position:start])
        position = end
    kept.append(data[position:])
    # 1. every untouched run of bytes is in the output, in order (perhaps split by #line lines)
    stripped = re.sub(r'(^|\n)#line \d+ "f.cu"\n *', r"\1", output)
    at = 0
    for piece in kept:
        for fragment in piece.decode().split("\n"):
            found = stripped.find(fragment.strip(), at)
            assert found >= 0, (fragment, stripped)
            at = found
    # 2. every copied token @n@ sits on a line nvcc numbers n
    for number, text in mapped_lines(output):
        for token in re.findall(r"@(\d+)@", text):
            assert int(token) == number, (text, output)
