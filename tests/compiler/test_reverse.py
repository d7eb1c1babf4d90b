"""Reverse mode: activity analysis, zero gradients, vjp seeds, composition."""

import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler.ad.activity import active_values
from srcgrad.compiler.ad.reverse import GRAD, ReverseSpec, reverse
from srcgrad.compiler.frontend import lower
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.verify import verify


def scaled(x, n, flag):
    k = n * 3 + len([1, 2])  # int and bool arithmetic: never differentiated
    y = x * k + flag
    return np.sum(y)


def test_int_and_bool_values_are_not_active():
    ir, _ = lower(scaled, [T.AType("array", 1, "float64"), T.INT, T.BOOL])
    active = active_values(ir, [ir.params[0]])
    active_prims = {op.prim for op in ir.body.ops if op.outputs and op.out.id in active}
    assert active_prims == {"multiply", "add", "sum"}
    assert all(op.prim == "const" or op.out.id not in active
               for op in ir.body.ops[:3])  # k = n * 3 + 2
    derived = reverse(ir, ReverseSpec((0,), False, GRAD))
    verify(derived)


def test_int_arguments_add_nothing_to_the_emitted_code():
    text = sg.source(sg.grad(scaled), np.ones(3), 2, False)
    adjoint_part = text.split("return np.sum(y)")[1]
    assert "dn" not in adjoint_part and "dk" not in adjoint_part


def test_int_argument_in_wrt_is_an_error():
    with pytest.raises(sg.SrcGradError, match="`n`.*int"):
        sg.grad(scaled, wrt="n")(np.ones(3), 2, False)


def unused_second(x, y):
    return np.sum(x * 2.0)


def test_unused_argument_gets_zeros_of_its_type():
    dx, dy = sg.grad(unused_second, wrt=(0, 1))(np.ones(3), np.ones((2, 2), np.float32))
    assert dy.shape == (2, 2) and dy.dtype == np.float32 and not dy.any()
    _, dy = sg.grad(unused_second, wrt=(0, 1))(np.ones(3), 1.5)
    assert type(dy) is float and dy == 0.0


def pair(x, y):
    return x * y, np.sin(x)


def test_vjp_with_a_tuple_seed():
    x, y = np.array([0.1, 0.2]), np.array([1.0, -2.0])
    s1, s2 = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    dx, dy = sg.vjp(pair, wrt=(0, 1))(x, y, (s1, s2))
    np.testing.assert_allclose(dx, s1 * y + s2 * np.cos(x))
    np.testing.assert_allclose(dy, s1 * x)


def test_grad_of_a_tuple_result_points_to_vjp():
    with pytest.raises(sg.SrcGradError, match="sg.vjp"):
        sg.grad(pair)(0.1, 0.2)


def vector(x):
    return np.sin(x)


def test_grad_of_a_non_scalar_result_points_to_vjp():
    with pytest.raises(sg.SrcGradError, match="exactly one element.*sg.vjp"):
        sg.grad(vector)(np.ones(3))
    assert sg.grad(vector)(np.ones(1)).shape == (1,)


def blocked(x):
    return x * sg.stop_gradient(x * x)


def test_stop_gradient_blocks_the_derivative():
    assert sg.grad(blocked)(3.0) == 9.0


def opaque_user(x):
    return np.sum(np.block([x, x]) * np.tile(x, 2))  # np.block has no rule (np.partition has one now)


def test_a_call_without_rule_in_the_derivative_path_points_to_defvjp():
    with pytest.raises(sg.SrcGradError, match="defvjp"):
        sg.grad(opaque_user)(np.ones(4))


def inner(x):
    return np.sin(x) * x


d_inner = sg.grad(inner)


def calls_derived(x):
    return d_inner(x) * 2.0


def test_grad_of_a_function_calling_a_derived_function():
    x = 0.4
    want = 2.0 * (2 * math.cos(x) - x * math.sin(x))
    assert sg.grad(calls_derived)(x) == pytest.approx(want)


def cube(x):
    return x ** 3


def test_grad_of_grad():
    assert sg.grad(sg.grad(cube))(2.0) == pytest.approx(12.0)
    assert sg.grad(sg.grad(sg.grad(cube)))(2.0) == pytest.approx(6.0)
