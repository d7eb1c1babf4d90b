"""sg.viz.make_dot: the graph as Graphviz DOT text."""

from __future__ import annotations

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


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_render_writes_an_svg(tmp_path) -> None:
    x = sg.randn(2, requires_grad=True)
    path = sg.viz.make_dot((x * 2).sum()).render(str(tmp_path / "g"))
    assert open(path).read().lstrip().startswith("<?xml")


def test_render_without_dot_explains(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    x = sg.randn(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        sg.viz.make_dot((x * 2).sum()).render(str(tmp_path / "g"))
