"""The derived function's per-call guard (compiler/dispatcher.py, compiler/global_views.py).

A global the compiled version read is checked as an attribute of a view of its module's
dict (no ``dict.get`` call); the rule table's generation is not checked per call, since a
change of the table uninstalls every version at once. Each check still protects what it
did: a rebound or deleted global, a changed rule.
"""

from __future__ import annotations

import inspect
import math
import sys

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.global_views import GlobalsView, can_view, missing_global, view_of
from srcgrad.errors import SrcGradError
from srcgrad.rules import generation
from srcgrad.rules.registry import restore, snapshot
from tests.compiler.user_modules import load_module

SHAPE_ARRAY = np.float64(2.0)

SOURCE = '''
import math


def helper(v):
    return v * 3.0


def newton_log(a):
    y = 1.0
    while True:
        e = math.exp(y)
        step = (e - a) / e
        y = y - step
        if abs(step) < 1e-13:
            break
    return y


def uses_helper(a):
    return helper(a) * a


def exp_of(a):
    return math.exp(a) * a


def uses_abs(a):
    return abs(a) * a
'''


@pytest.fixture
def user(tmp_path):
    module = load_module(tmp_path, "guards_user_module", SOURCE)
    yield module
    sys.modules.pop("guards_user_module", None)


def test_the_guard_reads_a_global_through_a_view_and_not_the_generation(user):
    g = sg.grad(user.newton_log)
    assert g(5.0) == pytest.approx(0.2)
    text = inspect.getsource(g)
    guard = next(line for line in text.splitlines() if line.strip().startswith("if type("))
    assert ".math is _sg_o" in guard and "_sg_get" not in guard, text
    assert "_sg_gen" not in text, text


def test_a_rebound_global_is_seen_by_the_next_call(user):
    g = sg.grad(user.uses_helper)
    assert g(2.0) == 12.0
    user.helper = lambda v: v * 5.0
    assert g(2.0) == 20.0
    user.math = None  # (not read by uses_helper: no effect)
    assert g(2.0) == 20.0


def test_a_deleted_global_takes_the_slow_path_not_an_attribute_error(user):
    g = sg.grad(user.uses_helper)
    assert g(2.0) == 12.0
    helper = user.helper
    del user.helper
    with pytest.raises((SrcGradError, NameError)) as info:
        g(2.0)
    assert not isinstance(info.value, AttributeError)
    assert "helper" in str(info.value)
    user.helper = helper
    assert g(2.0) == 12.0
    g(SHAPE_ARRAY)  # two versions: the guards are called, not written in
    del user.helper
    with pytest.raises((SrcGradError, NameError)) as info:
        g(2.0)
    assert not isinstance(info.value, AttributeError)
    user.helper = helper
    assert g(2.0) == 12.0


def test_rebinding_math_in_the_users_module_recompiles(user):
    g = sg.grad(user.exp_of)
    assert g(1.0) == 2.0 * math.e

    class FakeMath:
        exp = staticmethod(lambda v: math.exp(2.0 * v))

    user.math = FakeMath()  # read again: its exp is a function srcgrad can read
    assert g(1.0) == pytest.approx(3.0 * math.exp(2.0))
    user.math = math
    assert g(1.0) == 2.0 * math.e


def square(v):
    return v * v


def test_a_global_that_shadows_a_builtin_later_is_seen(user):
    g = sg.grad(user.uses_abs)
    assert g(-2.0) == 4.0
    assert "'abs' not in _sg_w" in inspect.getsource(g)
    user.abs = square  # the user's function now computes a ** 3
    assert user.uses_abs(-2.0) == -8.0
    assert g(-2.0) == 12.0
    del user.abs
    assert g(-2.0) == 4.0


def scale(v):
    return v * 2.0


def uses_scale(a):
    return scale(a) + a


def test_a_rule_registered_uninstalls_the_written_in_version():
    state = snapshot()
    try:
        g = sg.grad(uses_scale)
        assert g(1.0) == 3.0
        assert "try:" in inspect.getsource(g)  # (one version, under its guards)
        sg.defvjp(scale, lambda gr, out, v: gr * 7.0)
        # no version installed any more: the function is its slow path only
        assert "try:" not in inspect.getsource(g)
        assert g(1.0) == 8.0
        assert "try:" in inspect.getsource(g)
    finally:
        restore(state)
    assert g(1.0) == 3.0


def test_an_entry_compiled_against_an_older_table_is_not_installed():
    g = sg.grad(uses_scale)
    assert g(1.0) == 3.0
    dispatcher = g.__srcgrad__.dispatcher
    (key, entry), = dispatcher.versions
    state = snapshot()
    restore(state)  # (a change of the table: the installed version is dropped)
    assert dispatcher.versions == [] and entry.generation != generation()
    dispatcher.add(key, entry)  # as if the table changed while it compiled
    assert dispatcher.versions == []
    assert g(1.0) == 3.0 and len(dispatcher.versions) == 1


def test_views_read_the_dict_and_tell_a_missing_name():
    space = {"a": 1}
    view = view_of(space)
    assert view.a == 1 and isinstance(view, GlobalsView)
    del space["a"]
    with pytest.raises(AttributeError) as info:
        view.a  # noqa: B018
    assert missing_global(info.value)
    space["a"] = 2
    assert view.a == 2
    # an AttributeError of anything else is not a guard's
    with pytest.raises(AttributeError) as info:
        space.a  # noqa: B018
    assert not missing_global(info.value) and not missing_global(ValueError())
    # names an attribute of the view's class could shadow, and dicts of another type,
    # keep dict.get
    assert not can_view(space, "__class__") and not can_view(space, "__dict__")
    assert not can_view(space, "class") and not can_view(type("D", (dict,), {})(), "a")
    assert can_view(space, "np")


def twice(x):
    return x * 2.0


def test_a_version_that_checks_nothing_is_still_written():
    # a foreign array's generic version (no kinds) of a function that reads no global:
    # its guard has no check at all
    from tests.foreign.devicearray import DeviceArray
    g = sg.grad(twice)
    for _ in range(2):  # (the first call installs it, the second runs it)
        assert float(g(DeviceArray(np.array(3.0))).get()) == 2.0
    assert "if True:" in inspect.getsource(g)
