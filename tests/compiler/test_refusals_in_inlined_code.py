"""A refusal raised while srcgrad inlines a function from another file (a helper module of
the user's, a standard-library function such as ``copy.copy``) names the user's own
file:line, the call in the differentiated function, first; where it was raised in the
other file follows in the message as a note (frontend/inlining.py). A refusal in a helper
of the same file keeps the helper's own line, which is the user's.
"""

from __future__ import annotations

import copy
import inspect
import statistics
import sys

import numpy as np
import pytest

import srcgrad as sg
from tests.compiler.user_modules import load_module
from tests.fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

HELPERS = '''\
import copy

import numpy as np


def guarded(x):
    try:  # refused: error handling inside a differentiated function
        return np.sum(x)
    except ValueError:
        return 0.0


def copied(x):
    y = copy.copy(x)  # calls into the standard library's copy.py, refused there
    return y * 2.0


def smooth(x):
    return np.sin(x) * x
'''


@pytest.fixture
def helpers(tmp_path):
    module = load_module(tmp_path, "sg_inline_helpers", HELPERS)
    yield module
    sys.modules.pop("sg_inline_helpers", None)


def _line_of(fn, text: str) -> int:
    """The file line of ``fn``'s source line holding ``text``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _helper_line(helpers, text: str) -> int:
    return 1 + next(i for i, line in enumerate(HELPERS.splitlines()) if text in line)


def test_refusal_inside_a_helper_from_another_file_names_the_users_call_line(helpers):
    def f(x):
        return helpers.guarded(x) + 1.0  # the call

    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f)(np.array([1.0, 2.0]))
    e = info.value
    here = _line_of(f, "# the call")
    assert (e.filename, e.lineno) == (__file__, here)
    text = str(e)
    assert text.startswith(f"{__file__}:{here}: `try` is not supported")
    # the helper's line, as a note, and the advice last
    assert f"{helpers.__file__}:{_helper_line(helpers, 'try:')} in sg_inline_helpers.guarded" \
        in text
    assert text.endswith("Move the error handling outside the differentiated function.")


def test_refusal_inside_a_standard_library_function_names_the_users_call_line():
    def f(x):
        y = statistics.fmean([x[0], x[1]])  # the call
        return y

    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f)(np.array([1.0, 2.0]))
    e = info.value
    here = _line_of(f, "# the call")
    assert (e.filename, e.lineno) == (__file__, here)
    assert str(e).startswith(f"{__file__}:{here}: `try` is not supported")
    assert f"{inspect.getsourcefile(statistics.fmean)}:" in str(e)
    assert "in statistics.fmean" in str(e)


def test_refusal_from_copy_copy_is_refused_at_the_users_line_in_both_modes():
    def f(x):
        y = copy.copy(x)  # the call
        return np.sum(y)

    here = _line_of(f, "# the call")
    x = np.array([1.0, 2.0])
    for derive in (lambda: sg.grad(f)(x), lambda: sg.jvp(f)(x, x)):
        with pytest.raises(sg.SrcGradError) as info:
            derive()
        assert (info.value.filename, info.value.lineno) == (__file__, here)
        assert f"{inspect.getsourcefile(copy.copy)}:" in str(info.value)


def test_refusal_two_calls_deep_names_every_call_from_the_library_to_the_user(helpers):
    def f(x):
        return np.sum(helpers.copied(x))  # the call

    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f)(np.array([1.0, 2.0]))
    e = info.value
    here = _line_of(f, "# the call")
    assert (e.filename, e.lineno) == (__file__, here)
    text = str(e)
    library = f"at {inspect.getsourcefile(copy.copy)}:"
    helper = f"at {helpers.__file__}:{_helper_line(helpers, 'copy.copy(x)')} in " \
             "sg_inline_helpers.copied"
    # innermost first: the library's line, then the helper's call of it
    assert library in text and helper in text
    assert text.index(library) < text.index(helper)


def _same_file_guarded(x):
    try:  # refused here
        return np.sum(x)
    except ValueError:
        return 0.0


def test_refusal_inside_a_helper_of_the_same_file_keeps_the_helpers_line():
    def f(x):
        return _same_file_guarded(x) * 2.0

    with pytest.raises(sg.SrcGradError) as info:
        sg.grad(f)(np.array([1.0, 2.0]))
    here = _line_of(_same_file_guarded, "# refused here")
    assert (info.value.filename, info.value.lineno) == (__file__, here)
    assert "inlines that call" not in str(info.value)


def test_helper_from_another_file_still_differentiates(helpers):
    def f(x):
        return np.sum(helpers.smooth(x) ** 2)

    x = np.array([0.3, -1.2, 2.0])
    t = np.array([1.0, 0.5, -2.0])
    assert_close(sg.grad(f)(x), numeric_gradient(f, [x], None, 0))
    _, tangent = sg.jvp(f)(x, t)
    assert_close(tangent, directional_derivative(f, [x], {0: t}))
    assert_close(sg.hessian(f)(x), numeric_hessian(sg.grad(f), [x]))
