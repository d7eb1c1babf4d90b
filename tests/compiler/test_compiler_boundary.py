"""The compiler's boundary: nothing but SrcGradError (or the user's own exception) escapes."""

from __future__ import annotations

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import derivation
from srcgrad.compiler.internal_errors import InternalCompilerError


def _square_sum(x):
    return np.sum(x * x)


def test_an_internal_exception_while_compiling_becomes_an_internal_compiler_error(monkeypatch):
    # a lookup that fails inside the compiler's own frames (a function written in this
    # test file would count as the user's code, whose exceptions pass unchanged)
    monkeypatch.setattr(derivation, "emit_function", {}.__getitem__)
    sg.clear_cache()
    with pytest.raises(InternalCompilerError) as info:
        sg.grad(_square_sum)(np.ones(3))
    error = info.value
    assert isinstance(error, sg.SrcGradError)
    assert error.filename == __file__
    assert error.lineno == _square_sum.__code__.co_firstlineno
    assert "KeyError" in str(error) and "_square_sum" in str(error)
    assert "bug in srcgrad" in str(error)
    assert isinstance(error.__cause__, KeyError)  # the internal traceback is kept
    sg.clear_cache()


def _strict_sqrt(x):
    return np.sqrt(x)


def _rule_that_raises(g, out, x):
    raise ValueError("my rule refuses")


def _uses_my_op(x):
    return np.sum(_my_op(x))


_my_op = sg.defvjp(lambda x: x * 2.0, _rule_that_raises)


def test_a_user_rule_that_raises_raises_the_users_own_exception_not_an_internal_one():
    # a rule body is lowered like the user's own code (frontend/rule_bodies.py): its
    # `raise` runs when the derivative runs, as it would in Python, and reaches the user
    # unchanged, with a note naming the differentiated line
    sg.clear_cache()
    with pytest.raises(ValueError, match="my rule refuses") as info:
        sg.grad(_uses_my_op)(np.ones(3))
    assert not isinstance(info.value, sg.SrcGradError)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert f"{__file__}:{_uses_my_op.__code__.co_firstlineno + 1}" in notes, notes


def _calls_user_helper(x):
    return _helper_that_raises_at_compile_time(x)


def _helper_that_raises_at_compile_time(x):
    raise ValueError("the user's own check")


def test_the_users_own_exception_while_compiling_passes_unchanged(monkeypatch):
    # the user's frame is on the way: their exception is theirs to read, not srcgrad's bug
    def lower_calling_user_code(*args, **kwargs):
        _helper_that_raises_at_compile_time(1.0)

    monkeypatch.setattr(derivation, "lower", lower_calling_user_code)
    sg.clear_cache()
    with pytest.raises(ValueError, match="the user's own check"):
        sg.grad(_calls_user_helper)(1.0)
    sg.clear_cache()


def test_a_compiled_derivative_is_unaffected_by_the_boundary():
    sg.clear_cache()
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(sg.grad(_square_sum)(x), 2 * x)
