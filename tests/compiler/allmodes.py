"""Checking a compiled program in every mode at once, against central finite differences:
reverse (``sg.grad``), forward (``sg.jvp`` along a few directions) and second order
(``sg.grad(sg.grad(f))`` or ``sg.hessian`` against finite differences of the gradient,
itself checked first); and checking that a program is refused with a good message.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

MARKER = "# <- error"


def split_parameters(p, sizes):
    """The flat parameter vector ``p`` as arrays of the shapes ``sizes``, in order (the
    MLP tests' differentiated functions call it: srcgrad inlines it from here)."""
    out, at = [], 0
    for shape in sizes:
        n = int(np.prod(shape))
        out.append(np.reshape(p[at:at + n], shape))
        at += n
    return out


def _directions(x):
    rng = np.random.default_rng(7)
    if isinstance(x, float):
        return [1.0, -0.5]
    return [rng.standard_normal(np.shape(x)) for _ in range(2)]


def check_reverse(fn, x):
    sg.clear_cache()
    expected = numeric_gradient(fn, [x], {}, 0)
    got = sg.grad(fn)(x)
    assert_close(got, expected, rtol=1e-5, atol=1e-6, what=f"{fn.__name__}: reverse")
    return expected


def check_forward(fn, x, expected_grad):
    for u in _directions(x):
        value, tangent = sg.jvp(fn)(x, u)
        assert_close(value, fn(x), what=f"{fn.__name__}: primal value")
        want = float(np.sum(np.asarray(expected_grad) * np.asarray(u)))
        assert_close(tangent, want, rtol=1e-5, atol=1e-6, what=f"{fn.__name__}: forward")


def check_second_order(fn, x):
    grad = sg.grad(fn)
    if isinstance(x, float):
        want = numeric_gradient(grad, [x], {}, 0, eps=1e-5)
        assert_close(sg.grad(grad)(x), want, rtol=1e-4, atol=1e-5,
                     what=f"{fn.__name__}: grad(grad)")
        return
    want = np.stack([numeric_gradient(lambda v, k=k: np.ravel(grad(v))[k], [x], {}, 0,
                                      eps=1e-5) for k in range(np.size(x))])
    got = sg.hessian(fn)(x)
    assert_close(np.reshape(got, want.shape), want, rtol=1e-4, atol=1e-5,
                 what=f"{fn.__name__}: hessian")


def check_all_modes(fn, x, second_order=True):
    expected = check_reverse(fn, x)
    assert np.any(np.asarray(expected) != 0), "a test whose gradient is 0 cannot fail"
    check_forward(fn, x, expected)
    if second_order:
        check_second_order(fn, x)


def marked_line(fn):
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, text in enumerate(lines) if MARKER in text]
    assert len(hits) == 1
    return hits[0]


def assert_refused(fn, x, words, mode):
    """Differentiating ``fn`` raises SrcGradError naming ``words``, the line, and advice."""
    sg.clear_cache()
    with pytest.raises(sg.SrcGradError) as info:
        if mode == "reverse":
            sg.grad(fn)(x)
        else:
            sg.jvp(fn)(x, x)
    text = str(info.value)
    assert any(w in text for w in words), text
    where = f"{os.path.basename(inspect.getsourcefile(fn))}:{marked_line(fn)}"
    assert where in text, text
    assert info.value.advice, text
