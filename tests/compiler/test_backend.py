"""Emitted source: readable, self-contained, registered in linecache, traceable."""

import inspect
import linecache
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.api import render


def model(x, w):
    """A docstring is dropped."""
    z = x * w
    z = np.sin(z)
    return np.sum(z)


def squared_model(x, w):
    """Like ``model``, but its adjoint reads ``z`` (else the optimiser drops ``sin``)."""
    z = x * w
    z = np.sin(z)
    return np.sum(z * z)


def test_user_names_d_names_and_line_comments():
    text = sg.source(sg.grad(squared_model, wrt=(0, 1)), np.ones(3), np.ones(3))
    first = squared_model.__code__.co_firstlineno
    assert f"# line {first + 2}: z = x * w" in text
    assert f"# line {first + 4}: return np.sum(z * z)" in text
    assert "z = x * w" in text and "z_1 = np.sin(z)" in text
    assert "dz_1 = " in text and "dz = " in text and "return dx, dw" in text
    assert "docstring" not in text


def clash(x):
    dx = x * 2.0
    return np.sum(dx * x)


def test_adjoint_name_clash_gets_a_suffix():
    text = sg.source(sg.grad(clash), np.ones(2))
    assert "dx = x * 2.0" in text
    assert "return dx_" in text


def on_floats(x):
    return math.sin(x) * np.exp(x)


def test_python_floats_use_math_and_stay_floats():
    text = sg.source(sg.grad(on_floats), 0.5)
    assert "math.sin(x)" in text and "math.cos(x)" in text and "math.exp(x)" in text
    assert "seed_one" not in text and "unbroadcast" not in text
    d = sg.grad(on_floats)(0.5)
    assert type(d) is float
    assert d == pytest.approx(math.cos(0.5) * math.exp(0.5) + math.sin(0.5) * math.exp(0.5))


def test_generic_version_uses_only_dispatching_calls():
    text = sg.source(sg.grad(model, wrt=(0, 1)))
    assert "np.sin(z)" in text and "math." not in text
    assert "np.zeros(" not in text and "z.shape" not in text and "x.shape" not in text
    for line in text.splitlines():
        if line.startswith(("import", "from")):
            assert line in ("import numpy as np", "import math") or \
                line.startswith(("from srcgrad.rules", "from srcgrad.compiler.support"))


def unused(x, y):
    return x * 3.0


def test_unused_argument_emits_zeros_like():
    text = sg.source(sg.grad(unused, wrt=(0, 1)))
    assert "zeros_of(y)" in text


def test_module_text_is_self_contained():
    text = sg.source(sg.grad(model), np.ones(3), np.ones(3))
    namespace = {}
    exec(compile(text, "<test>", "exec"), namespace)
    fn = namespace["grad_model"]
    x, w = np.array([0.1, 0.2]), np.array([2.0, 3.0])
    np.testing.assert_allclose(fn(x, w), np.cos(x * w) * w)


def test_emitted_code_is_in_linecache_and_inspectable():
    df = sg.grad(model)
    df(np.ones(2), np.ones(2))
    dispatch_text = inspect.getsource(df)
    assert dispatch_text.startswith("def grad_model(x, w):")
    assert "x.ndim == 2" not in dispatch_text and "x.ndim == 1" in dispatch_text
    entry_fn = df.__srcgrad__.entry_for([np.ones(2), np.ones(2)]).fn
    assert inspect.getsource(entry_fn).startswith("def grad_model(x, w):")
    filename = entry_fn.__code__.co_filename
    assert any("= np.cos(z)" in line for line in linecache.getlines(filename))


def mismatched(x, a):
    y = np.sin(x)
    z = a @ y
    return np.sum(z)


def test_runtime_errors_point_back_to_the_user_line():
    with pytest.raises(ValueError) as info:
        sg.grad(mismatched)(np.ones(3), np.ones((2, 4)))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    if hasattr(info.value, "add_note"):
        line = mismatched.__code__.co_firstlineno + 2
        assert f"test_backend.py:{line}: z = a @ y" in notes


def test_render_source_ir_and_types():
    text = render(model, wrt="w", types=["array[1]", "array[1,float32]"])
    assert text.startswith("import") and "def grad_model(x, w):" in text
    ir = render(model, what="ir")
    assert ir.startswith("func grad_model(%x, %w)") and "seed_one" in ir
    plain = render(on_floats, types=["float"], optimize=False)
    optimized = render(on_floats, types=["float"])
    assert len(optimized.splitlines()) < len(plain.splitlines())
    forward = render(model, mode="forward", wrt="w")
    assert "def jvp_model(x, w, tangent):" in forward and "dz_1 = dz * " in forward
    with pytest.raises(sg.SrcGradError, match="unknown mode"):
        render(model, mode="sideways")
    with pytest.raises(sg.SrcGradError, match="bad argument kind"):
        render(model, types=["matrix", "float"])
    with pytest.raises(sg.SrcGradError, match="not a parameter"):
        render(model, wrt="nope")
    with pytest.raises(sg.SrcGradError, match="out of range"):
        render(model, wrt=2)
