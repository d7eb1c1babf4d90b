"""Array arguments of one shape get a version that knows it (issue 16: W2's two-input chains).

``x * w`` cannot know at compile time that neither operand broadcasts, so each adjoint sums
its cotangent back to its operand's shape (``unbroadcast``: a call and a shape read per
operation, a fifth of a small chain's gradient). The dispatcher's key notes which array
arguments share a shape (``signature.same_shapes``); that version is guarded by
``y.shape == x.shape`` and the shapes pass puts those parameters in one class. A call
whose arrays broadcast takes another version: both give the central-difference gradient."""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient

import srcgrad as sg

rng = np.random.default_rng(1617)


def two_input_chain(x, w):
    h = np.tanh(x * w + 0.5)
    z = (h - np.mean(h)) / np.sqrt(np.mean(h * h) + 1e-3)
    return np.sum(np.exp(-z * z) * w) + np.sum((x - w) ** 2 / (1.0 + w * w))


def one_input_clamp(x):
    e = np.maximum(np.tanh(x) * 2.0 + x, 0.1)
    return np.sum(np.where(x > 0, e * x, e - x) ** 2)


def unbroadcast_lines(text):
    return [line for line in text.splitlines()
            if "unbroadcast(" in line and not line.startswith("from ")]


def check_gradient(fn, args, wrt):
    got = sg.grad(fn, wrt=wrt)(*args)
    for g, place in zip(got, wrt):
        assert g.shape == np.shape(args[place]) and g.dtype == args[place].dtype
        rtol = 1e-3 if args[place].dtype == np.float32 else 1e-6
        assert_close(g, numeric_gradient(fn, args, {}, place), rtol=rtol, atol=rtol,
                     what=f"d/d argument {place}")


def test_arrays_of_one_shape_get_a_gradient_without_unbroadcast():
    x, w = rng.standard_normal(6), rng.standard_normal(6)
    text = sg.source(sg.grad(two_input_chain, wrt=(0, 1)), x, w)
    # (what is left sums a mean's cotangent to a number: a real reduction)
    calls = unbroadcast_lines(text)
    assert calls and all(", ())" in line for line in calls), text
    broadcasting = sg.source(sg.grad(two_input_chain, wrt=(0, 1)), x, w[None, :])
    assert len(unbroadcast_lines(broadcasting)) > len(calls)
    check_gradient(two_input_chain, (x, w), (0, 1))


def test_one_shape_version_differentiates_forward_and_at_second_order():
    x, w = rng.standard_normal(5), rng.standard_normal(5)
    u, v = rng.standard_normal(5), rng.standard_normal(5)
    want = numeric_gradient(two_input_chain, [x, w], {}, 0) @ u + \
        numeric_gradient(two_input_chain, [x, w], {}, 1) @ v
    _, tangent = sg.jvp(two_input_chain, wrt=(0, 1))(x, w, (u, v))
    assert_close(tangent, want, rtol=1e-5, atol=1e-6, what="forward")
    grad_x = sg.grad(two_input_chain, wrt=0)
    assert_close(sg.hessian(two_input_chain)(x, w) @ u,
                 directional_derivative(grad_x, [x, w], {0: u}, eps=1e-5),
                 rtol=1e-4, atol=1e-5, what="hessian")


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((4,), (3, 4)), ((3, 1), (3, 4)),
                                    ((1,), (5,)), ((2, 3), (2, 3))])
def test_broadcasting_calls_after_a_one_shape_call_take_their_own_version(shapes):
    df = sg.grad(two_input_chain, wrt=(0, 1))
    x, w = rng.standard_normal(4), rng.standard_normal(4)
    df(x, w)  # the one-shape version is installed first
    args = tuple(rng.standard_normal(s) for s in shapes)
    check_gradient(two_input_chain, args, (0, 1))
    got = df(*args)
    assert [g.shape for g in got] == [a.shape for a in args]
    check_gradient(two_input_chain, (x, w), (0, 1))  # and the first version still serves


def test_one_shape_of_two_dtypes_keeps_each_arguments_dtype():
    x = rng.standard_normal(8).astype(np.float32)
    w = rng.standard_normal(8)
    check_gradient(two_input_chain, (x, w), (0, 1))


def test_maximum_and_where_adjoints_of_one_array_need_no_unbroadcast():
    x = rng.standard_normal(7)
    x[np.abs(x) < 0.05] = 0.3
    text = sg.source(sg.grad(one_input_clamp), x)
    assert "unbroadcast" not in text
    check_gradient(one_input_clamp, (x,), (0,))


def mean_of_row_sums_of_squares(z):
    return np.mean(np.log(np.sum(np.exp(z), axis=1)) - np.sum(z * z, axis=1))


def test_a_mean_of_row_sums_stays_one_number_when_the_rows_shape_is_known():
    # the row sum's adjoint (g[:, None], its shape known) once hid the mean's number from
    # the pass that spreads it, so the mean's adjoint was broadcast to a full array
    z = rng.standard_normal((6, 4))
    text = sg.source(sg.grad(mean_of_row_sums_of_squares), z)
    assert "unreduce(" not in text, text
    check_gradient(mean_of_row_sums_of_squares, (z,), (0,))
    u = rng.standard_normal(z.shape)
    want = numeric_gradient(mean_of_row_sums_of_squares, [z], {}, 0)
    _, tangent = sg.jvp(mean_of_row_sums_of_squares)(z, u)
    assert_close(tangent, float(np.sum(want * u)), rtol=1e-5, atol=1e-6, what="forward")
    grad = sg.grad(mean_of_row_sums_of_squares)
    assert_close(sg.jvp(grad)(z, u)[1], directional_derivative(grad, [z], {0: u}, eps=1e-5),
                 rtol=1e-4, atol=1e-5, what="forward over reverse")
