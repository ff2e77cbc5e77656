"""pdcc's time grows linearly with its input (issue 9, item 13): whole-file facts are computed once per
file, never once per site. Bounds are ratios, not seconds, so a slow or busy machine does not fail them."""

from __future__ import annotations

import time

from scale_input import generate
from pragmadp.cuda import frontend
from pragmadp.pipeline import transform
from pragmadp.source import SourceFile


def _seconds(sites: int) -> float:
    """The best of two transforms of a generated file with `sites` annotated launches."""
    data = generate(sites).encode()
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        result = transform(SourceFile("scale.cu", data))
        best = min(best, time.perf_counter() - start)
    assert sum(r.rule.id == "PDCC500" for r in result.remarks) == sites
    return best


def test_transform_time_grows_linearly_with_the_number_of_sites():
    small, large = _seconds(50), _seconds(400)
    # 8x the sites: linear is 8x, quadratic (the old per-site walks of the whole file) 64x; 12x leaves room for noise
    assert large < 12 * small, f"50 sites: {small:.2f} s, 400 sites: {large:.2f} s"


def test_a_file_without_pragmas_is_not_parsed_per_line():
    """The line index and the preprocessor's view are built only when needed."""
    source = SourceFile("plain.cu", generate(20).replace("#pragma dp", "// none").encode())
    transform(source)
    assert "_line_starts" not in vars(source)


def test_a_file_without_pragmas_or_launches_is_not_parsed():
    data = generate(20).replace("#pragma dp", "// none").replace("<<<", "(((").replace(">>>", ")))").encode()
    unit = frontend.parse(SourceFile("host.cu", data))
    assert unit.tree.root_node.end_byte == 0 and unit.launches == []
