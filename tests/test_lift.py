"""The lift from tree-sitter into the IR: what the IR models becomes nodes, the rest stays the user's text,
and the printed IR is CUDA that lifts back to the same shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from pragmadp import ir
from pragmadp.cgen import printer
from pragmadp.cuda import frontend, lift
from pragmadp.cuda.frontend import GENERATED_MARK
from pragmadp.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(ROOT.glob("samples/*/*_dp.cu")) + sorted(
    p for p in (ROOT / "tests" / "golden").glob("*.cu") if not p.name.endswith(".expected.cu"))


def lifted_bodies(text: str, name: str = "t.cu") -> list[ir.Stmt]:
    text += "\nvoid pdcc_host() { pdcc_lifted<<<1, 1>>>(); }\n"  # a launch: the front end parses the file
    unit = frontend.parse(SourceFile(name, text.encode()))
    return [lift.statement(unit, f.body) for f in unit.functions if f.runs_on_device and f.body is not None
            and not f.node.has_error and f.name != "pdcc_host"]


def shape(node: ir.Stmt) -> tuple:
    """The node kinds of a lifted tree (the user's text inside is compared as text, spaces aside)."""
    if isinstance(node, (ir.Block, ir.Sequence)):  # the mark the printer puts on the launches pdcc writes aside
        return (type(node).__name__, tuple(shape(item) for item in node.items
                                           if not (isinstance(item, ir.Verbatim) and item.text == GENERATED_MARK)))
    if isinstance(node, ir.If):
        return ("If", shape(node.then), shape(node.orelse) if node.orelse is not None else None)
    if isinstance(node, ir.For):
        return ("For", shape(node.body))
    if isinstance(node, ir.Launch):
        return ("Launch", node.call.kernel, len(node.call.config), len(node.call.args))
    if isinstance(node, ir.Verbatim):
        return ("Verbatim", " ".join(node.text.split()))
    return (type(node).__name__,)


def test_the_modelled_statements_become_nodes_and_the_rest_stays_text():
    (body,) = lifted_bodies("__global__ void k(int* x, int n) {\n  int i = n + 1;\n  if (i < n) x[i] = 1; else { x[0] = 2; }\n"
                            "  while (n > 0) n--;\n  for (int j = 0; j < n; ++j) x[j] = 0;\n"
                            "  child<<<(n + 31) / 32, 32>>>(x, n);\n  return;\n}\n")
    assert isinstance(body, ir.Block)
    assert [type(item).__name__ for item in body.items] == ["Declaration", "If", "For", "Verbatim", "Launch", "Return"]
    declaration, branch, loop, _for, launch, _return = body.items
    assert (declaration.type, declaration.name, declaration.init.text) == ("int", "i", "n + 1")
    assert branch.cond.text == "i < n" and isinstance(branch.orelse, ir.Block)
    assert loop.cond.text == "n > 0" and loop.init is None
    assert [e.text for e in launch.call.config] == ["(n + 31) / 32", "32"] and [e.text for e in launch.call.args] == ["x", "n"]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_printed_lift_parses_and_lifts_back_to_the_same_shape(path: Path):
    for body in lifted_bodies(path.read_text(), path.name):
        body = ir.transform(body, lambda n: ir.ExprStmt(n.call) if isinstance(n, ir.Launch) else None)
        text = "__global__ void pdcc_lifted()\n" + printer.text(body)
        unit = frontend.parse(SourceFile("lifted.cu", (text + "void h() { pdcc_lifted<<<1, 1>>>(); }\n").encode()))
        assert not unit.tree.root_node.has_error, text
        (again,) = lifted_bodies(text)
        assert shape(again) == shape(ir.transform(body, lambda n: _as_launch(n)))


def _as_launch(node: ir.Stmt) -> ir.Stmt | None:
    """The printer writes a lifted launch as a statement of its own: it lifts back as a launch."""
    if isinstance(node, ir.ExprStmt) and isinstance(node.expr, ir.KernelCall):
        return ir.Launch(node.expr)
    return None
