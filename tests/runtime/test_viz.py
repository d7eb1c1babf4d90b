"""sg.viz.make_dot: the graph as Graphviz DOT text."""

from __future__ import annotations

import re
import shutil

import pytest

import srcgrad as sg


def test_make_dot_is_a_string_with_one_box_per_node() -> None:
    w = sg.randn(3, 2, requires_grad=True)
    x = sg.randn(2)
    y = (w @ x).relu().sum()
    dot = sg.viz.make_dot(y, params={"w": w})
    assert isinstance(dot, str) and dot.source == str(dot)
    assert dot.startswith("digraph {") and dot.rstrip().endswith("}")
    for label in ("SumBackward0", "ReluBackward0", "MvBackward0", "w\\n (3, 2)", "()"):
        assert f'"{label}"' in dot
    assert dot.count("->") == 4


def test_make_dot_show_saved() -> None:
    x = sg.randn(2, requires_grad=True)
    dot = sg.viz.make_dot(x.exp().sum(), show_saved=True)
    assert "out: result (2)" in dot and "x_shape" in dot


def test_make_dot_rejects_non_tensors() -> None:
    with pytest.raises(TypeError, match="make_dot expects Tensors"):
        sg.viz.make_dot(3.0)


needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed")


def _svg_texts(svg: str) -> list[str]:
    """The text of every label in an SVG written by dot, in order."""
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


@needs_dot
def test_render_writes_an_svg_with_one_box_per_node(tmp_path) -> None:
    w = sg.randn(3, 2, requires_grad=True)
    b = sg.zeros(3, requires_grad=True)
    y = ((w @ sg.randn(2) + b).relu() * 2).sum()
    path = sg.viz.make_dot(y, params={"w": w, "b": b}).render(str(tmp_path / "g"),
                                                               format="svg")
    assert path == str(tmp_path / "g.svg")
    svg = open(path, encoding="utf-8").read()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert svg.count('class="node"') == 8  # 5 backward nodes, 2 leaves, the output
    texts = _svg_texts(svg)
    for label in ("SumBackward0", "MulBackward0", "ReluBackward0", "AddBackward0",
                  "MvBackward0", "w", "(3, 2)", "b", "(3)", "()"):
        assert texts.count(label) == 1, (label, texts)
    assert svg.count('class="edge"') == 7
    assert (tmp_path / "g").read_text().startswith("digraph {")  # the DOT source beside it


@needs_dot
def test_render_to_png(tmp_path) -> None:
    x = sg.randn(2, requires_grad=True)
    path = sg.viz.make_dot((x * 2).sum()).render(str(tmp_path / "g"), format="png")
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


@needs_dot
def test_render_reports_an_unknown_format(tmp_path) -> None:
    x = sg.randn(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="dot failed"):
        sg.viz.make_dot((x * 2).sum()).render(str(tmp_path / "g"), format="nosuchformat")


def test_render_without_dot_explains(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    x = sg.randn(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        sg.viz.make_dot((x * 2).sum()).render(str(tmp_path / "g"))
