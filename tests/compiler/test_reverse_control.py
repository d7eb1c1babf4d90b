"""Reverse mode through control flow: if/elif/else, early return, for, while, nesting."""

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg

X = np.array([0.3, -0.5, 0.8])


def branches(x, t):
    if t > 1.0:
        y = x * t
    elif t > 0.0:
        y = np.sin(x) + t
    else:
        y = -x
    return np.sum(y * y)


def early_return(x, t):
    if t > 1.0:
        return np.sum(x) * t
    z = np.sin(x)
    return np.sum(z * z)


def conditional_expression(x):
    return np.sum(x * 2.0 if np.sum(x) > 0 else x * 3.0)


def range_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i]) * s + x[i]
    return s


def rows_loop(a):
    total = 0.0
    for row in a:
        total = total + np.sum(row * row)
    return total


def enumerate_zip(a, b):
    t = 0.0
    for k, (u, v) in enumerate(zip(a, b)):
        t = t + u * v * k
    return t


def while_loop(x):
    y = x
    while np.sum(y) < 10.0:
        y = y * 1.5
    return np.sum(y)


def if_in_loop(x, n):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            acc = acc * x
        else:
            acc = acc + np.sin(acc)
    return np.sum(acc)


def nested_loops(x, n):
    acc = x
    for i in range(n):
        for j in range(2):
            acc = np.sin(acc) * x + j
    return np.sum(acc)


def swapping(x, n):
    a, b = x, x * 2.0
    for i in range(n):
        a, b = b, a * b
    return np.sum(a)


def writes_in_loop(x, n):
    y = np.zeros_like(x)
    for i in range(n):
        y[i] = x[i] * x[i]
    return np.sum(y)


def recurrent(x, w):
    h = 0.0
    hs = []
    for t in range(3):
        h = np.tanh(w * h + x[t])
        hs.append(h)
    return np.sum(np.stack(hs))


def static_break(x):
    total = 0.0
    for k in [1.0, 2.0, 3.0]:
        if k > 2.5:
            break
        total = total + x * k
    return np.sum(total)


def breaking(x, n):
    for i in range(n):
        if np.sum(x) > 2.0:
            break
        x = x * 1.5
    return np.sum(x)


def continuing(x, n):
    s = 0.0
    for i in range(n):
        if x[i] < 0.0:
            continue
        s = s + x[i] * x[i]
    return s


def while_breaking(x):
    k = 0
    while k < 10:
        x = x * 1.2
        if np.sum(x) > 3.0:
            break
        k = k + 1
    return np.sum(x)


def recurrent_dynamic(x, w):
    h = 0.0 * x[0]
    hs = []
    for t in range(len(x)):
        h = np.tanh(w * h + x[t])
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


W = np.array([[0.5, -0.2], [0.1, 0.3]])
XS = np.array([[0.3, -0.1], [0.2, 0.4], [-0.5, 0.6]])


def recurrent_rows(w, xs):
    h = np.zeros_like(xs[0])
    outs = []
    for row in xs:
        h = np.tanh(w @ h + row)
        outs.append(h * 2.0)
    return np.sum(np.array(outs) ** 2)


def returns_in_loop(x, n):
    for i in range(n):
        if np.sum(x) > 2.0:
            return np.sum(x * x)
        x = x * 1.5
    return np.sum(x)


def returns_in_while(x):
    while True:
        x = x * 1.3
        if np.sum(x) > 2.0:
            return np.sum(np.sin(x))


def returns_in_nested_loop(x, n):
    for i in range(n):
        for j in range(n):
            x = x * 1.1
            if np.sum(x) > 1.5:
                return np.sum(x) * 2.0
    return np.sum(x)


CASES = [
    (branches, (X, 1.5)), (branches, (X, 0.5)), (branches, (X, -0.5)),
    (early_return, (X, 2.0)), (early_return, (X, 0.5)),
    (conditional_expression, (X,)), (conditional_expression, (-X * 3,)),
    (range_loop, (X, 3)), (range_loop, (X, 0)),
    (rows_loop, (np.stack([X, 2 * X]),)),
    (enumerate_zip, (X, X + 1.0)),
    (while_loop, (np.abs(X) + 0.1,)),
    (if_in_loop, (X, 5)),
    (nested_loops, (X, 3)), (nested_loops, (X, 0)),
    (swapping, (X, 3)),
    (writes_in_loop, (X, 2)),
    (recurrent, (X, 0.5)),
    (static_break, (X,)),
    (breaking, (X, 5)), (breaking, (X * 5, 5)),
    (continuing, (X, 3)),
    (while_breaking, (X + 0.5,)), (while_breaking, (X * 0.01,)),
    (recurrent_dynamic, (X, 0.7)),
    (recurrent_rows, (W, XS)),
    (returns_in_loop, (X, 5)), (returns_in_loop, (X * 0.1, 2)),
    (returns_in_while, (X + 0.5,)),
    (returns_in_nested_loop, (X, 3)), (returns_in_nested_loop, (X * 0.1, 2)),
]


def test_a_list_built_at_run_time_is_collected_and_its_adjoint_popped():
    text = sg.source(sg.grad(recurrent_rows), W, XS)
    assert "outs = []" in text and "outs.append(" in text
    assert "stack_list(outs)" in text and "douts = unstack(" in text and "douts.pop()" in text


def test_appending_inside_a_run_time_if_is_a_clear_error():
    def conditional_append(x, n):
        items = []
        for i in range(n):
            if x[i] > 0:
                items.append(x[i])
        return np.sum(np.stack(items))

    with pytest.raises(sg.SrcGradError, match="exactly once per iteration"):
        sg.grad(conditional_append)(X, 3)


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}{i}" for i, (f, _) in
                                                  enumerate(CASES)])
def test_gradient_matches_finite_differences(fn, args, optimize):
    got = sg.grad(fn, optimize=optimize)(*args)
    assert_close(got, numeric_gradient(fn, args, {}, 0))


def test_while_with_a_data_dependent_trip_count_on_floats():
    def doubling(x):
        while x < 100.0:
            x = x * 2.0
        return x

    assert sg.grad(doubling)(3.0) == 64.0
    assert sg.grad(doubling)(30.0) == 4.0


def test_loop_tape_saves_only_what_the_adjoint_reads():
    text = sg.source(sg.grad(range_loop), X, 3)
    pushes = [line for line in text.splitlines() if ".append(" in line]
    assert len(pushes) == 1
    assert "reversed(range(n))" in text
    assert "i" not in pushes[0].split("append")[1]  # the index is recomputed, not stored


def test_loop_without_saved_values_has_no_tape():
    def linear(x, n):
        s = x
        for i in range(n):
            s = s * 2.0
        return np.sum(s)

    text = sg.source(sg.grad(linear), X, 3)
    assert "append" not in text and "pop" not in text
    assert_close(sg.grad(linear)(X, 3), np.full(3, 8.0))


def test_returning_a_tuple_from_a_run_time_loop_is_a_clear_error():
    def returns_pair(x, n):
        for i in range(n):
            if np.sum(x) > 1.0:
                return np.sum(x), x
            x = x * 2.0
        return np.sum(x), x

    with pytest.raises(sg.SrcGradError, match="tuple.*loop"):
        sg.vjp(returns_pair)(X, 3, (1.0, X))


def test_if_and_loops_verify_and_print():
    from srcgrad.compiler.api import render

    ir = render(if_in_loop, what="ir", types=["array[1]", "int"])
    assert "for_range(" in ir and "if(cond=" in ir and "tape_push" in ir
    assert "reverse=True" in ir


def test_writes_into_a_local_array_are_emitted_in_place_when_safe():
    text = sg.source(sg.grad(writes_in_loop), X, 2)
    assert "y[i] = " in text and "setitem(y" not in text
    assert "tape.append((y" not in text  # only the shape of y is saved, not y


def test_a_write_after_which_the_old_array_is_still_read_copies():
    def reads_old(x):
        y = x.copy()
        z = y * y  # its adjoint reads the old y, after the write
        y[0] = 5.0
        return np.sum(y * z)

    text = sg.source(sg.grad(reads_old), X)
    assert "setitem(" in text
    assert_close(sg.grad(reads_old)(X), numeric_gradient(reads_old, (X,), {}, 0))


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def branching_recursion(x, depth):
    if depth <= 0:
        return np.sin(x)
    return branching_recursion(x * 1.1, depth - 1) + branching_recursion(x * 0.9, depth - 2)


def test_recursion_on_an_int_argument_is_unrolled_per_value():
    dp = sg.grad(power)
    assert dp(1.5, 3) == pytest.approx(3 * 1.5 ** 2)
    assert dp(2.0, 4) == pytest.approx(32.0)
    assert_close(dp(np.array([1.5]), 2), np.array([3.0]))
    assert_close(sg.grad(branching_recursion)(0.4, 3),
                 numeric_gradient(branching_recursion, (0.4, 3), {}, 0))


def halving(x):
    if np.sum(x) < 1.0:
        return np.sum(x)
    return halving(x * 0.5)


def test_recursion_on_a_run_time_value_differentiates():
    assert_close(sg.grad(halving)(X + 3.0), numeric_gradient(halving, (X + 3.0,), {}, 0))


def cubic_branch(x):
    if x > 0:
        y = x * x * x
    else:
        y = -x
    return y


def loop_power(x):
    s = x
    for i in range(3):
        s = s * x
    return s


def test_second_order_through_an_if():
    assert sg.grad(sg.grad(cubic_branch))(1.5) == pytest.approx(9.0)
    assert sg.grad(sg.grad(cubic_branch))(-1.5) == 0.0


def test_second_order_through_a_loop():  # the tape's derivatives: see ad/tape.py
    assert sg.grad(loop_power)(1.5) == pytest.approx(4 * 1.5 ** 3)
    assert sg.grad(sg.grad(loop_power))(1.5) == pytest.approx(12 * 1.5 ** 2)


def guarded(x):
    s = np.sum(x)
    if len(x) > 3 and x[3] > 0.0:  # x[3] is never evaluated for a short x
        s = s * 2.0
    if s > 0.0 or x[7] > 0.0:  # run-time `or`: x[7] only when s <= 0
        s = s * 3.0
    return s


def test_and_or_short_circuit_like_python():
    assert_close(sg.grad(guarded)(np.array([0.5, 0.2])), np.array([3.0, 3.0]))


def float_through_branch(x):
    if x > 5.0:
        y = np.cos(x)
    else:
        y = x ** 2
    return y * 2.0


def test_a_float_gradient_through_a_branch_is_a_float():
    d = sg.grad(float_through_branch)(0.5)
    assert d == 2.0 and type(d) is float


def writes_into_zeros(x):
    z = np.zeros((3,))
    z[0] = x
    return np.sum(z * z)


def test_an_array_built_from_constants_is_made_at_run_time_and_writable():
    assert sg.grad(writes_into_zeros)(0.3) == pytest.approx(0.6)
    assert "np.zeros((3,))" in sg.source(sg.grad(writes_into_zeros), 0.3)
