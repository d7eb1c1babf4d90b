"""``sg.checkpoint`` (API.md v3 "Memory"): a call of a checkpointed function is recomputed
for its adjoint, so reverse mode saves only the call's arguments. The gradient is the
unmarked one bit for bit (the same arithmetic), and matches finite differences; forward
mode ignores the mark; ``fn`` itself stays unmarked.
"""

from __future__ import annotations

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg

RNG = np.random.default_rng(7)
S0 = RNG.normal(size=(4, 3))
W0 = RNG.normal(size=(3, 3)) * 0.5


def step(s, W):
    h = np.tanh(s @ W)
    return s + 0.1 * np.sin(h) * h


checkpointed_step = sg.checkpoint(step)


@sg.checkpoint
def decorated_step(s, W):
    h = np.tanh(s @ W)
    return s + 0.1 * np.sin(h) * h


@sg.checkpoint
def step_with_control_flow(s, W):
    if np.sum(s) > 0:
        s = s * 1.5
    t = s
    for _ in range(3):  # a loop reading the call's input W: its own accumulator
        t = np.sin(t) * W[0, 0] + s
    k = 0
    while k < 2:
        t = t * 0.9
        k += 1
    return t @ W


def loop_unmarked(s, W):
    for _ in range(6):
        s = step(s, W)
    return np.sum(s ** 2)


def loop_checkpointed(s, W):
    for _ in range(6):
        s = checkpointed_step(s, W)
    return np.sum(s ** 2)


def loop_decorated(s, W):
    for _ in range(6):
        s = decorated_step(s, W)
    return np.sum(s ** 2)


def loop_inline_checkpoint(s, W):
    for _ in range(6):
        s = sg.checkpoint(step)(s, W)
    return np.sum(s ** 2)


def straight_line_checkpoint(s, W):
    t = checkpointed_step(s, W)
    return np.sum(t * s)


def straight_line_unmarked(s, W):
    t = step(s, W)
    return np.sum(t * s)


def checkpoint_in_branches(s, W):
    if np.sum(s) > 0.5:
        s = checkpointed_step(s, W)
    else:
        s = step_with_control_flow(s, W)
    return np.sum(s ** 2)


def checkpoint_in_while(s, W):
    i = 0
    while np.sum(s ** 2) < 50.0 and i < 20:
        s = step_with_control_flow(s, W) * 1.1
        i += 1
    return np.sum(s ** 2)


def nested_checkpoints(s, W):
    def inner(t):
        return sg.checkpoint(step)(t, W) * 2.0
    for _ in range(3):
        s = sg.checkpoint(inner)(s)
    return np.sum(s)


def both_marked_and_unmarked_calls(s, W):
    return np.sum(checkpointed_step(s, W) * step(s, W))


def scalar_loop_checkpointed(x):
    y = x
    for _ in range(3):
        y = sg.checkpoint(lambda z: np.sin(z) * z + z ** 3)(y)
    return y * x


def scalar_loop_unmarked(x):
    y = x
    for _ in range(3):
        y = (lambda z: np.sin(z) * z + z ** 3)(y)
    return y * x


@sg.checkpoint
def layer(params, state):
    h, c = state
    h = np.tanh(h @ params["W"] + params["b"] * c)
    return h, c * 0.5 + params["b"].sum()


def structured_checkpointed(params, h):
    state = (h, 1.0)
    for _ in range(4):
        state = layer(params, state)
    return np.sum(state[0]) * state[1]


def structured_unmarked(params, h):
    state = (h, 1.0)
    for _ in range(4):
        state = layer.fn(params, state)
    return np.sum(state[0]) * state[1]


def _fd_check(f, args, grads):
    for place, g in enumerate(grads):
        assert_close(g, numeric_gradient(f, args, None, place))


@pytest.mark.parametrize("f", [loop_checkpointed, loop_decorated, loop_inline_checkpoint])
def test_checkpointed_loop_gradient_is_bit_identical_to_unmarked(f):
    expected = sg.grad(loop_unmarked, wrt=(0, 1))(S0, W0)
    got = sg.grad(f, wrt=(0, 1))(S0, W0)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    _fd_check(f, [S0, W0], got)


def test_checkpointed_straight_line_call_is_bit_identical_to_unmarked():
    expected = sg.grad(straight_line_unmarked, wrt=(0, 1))(S0, W0)
    got = sg.grad(straight_line_checkpoint, wrt=(0, 1))(S0, W0)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    _fd_check(straight_line_checkpoint, [S0, W0], got)


def _tape_items(df, args):
    """How many values each iteration of the primal loops pushes on the reverse pass's tape."""
    ir = df.__srcgrad__.entry_for(args).ir
    return [len(op.args["items"]) for op in ir.body.walk() if op.prim == "tape_push"]


def test_checkpointed_loop_tapes_only_the_call_arguments():
    unmarked = _tape_items(sg.grad(loop_unmarked, wrt=1), [S0, W0])
    marked = _tape_items(sg.grad(loop_checkpointed, wrt=1), [S0, W0])
    assert marked == [1]  # s (W is read from outside the loop, never taped)
    assert unmarked[0] > 1  # the unmarked loop tapes step's internals


def test_checkpoint_is_visible_in_the_emitted_source():
    text = sg.source(sg.grad(loop_checkpointed), S0, W0)
    assert text.count("# sg.checkpoint(step): recomputed for its adjoint") == 1
    assert "checkpoint" not in sg.source(sg.grad(loop_unmarked), S0, W0)


def test_checkpoint_leaves_the_function_itself_unmarked():
    assert checkpointed_step is not step
    assert step.__name__ == "step" and not hasattr(step, "fn")
    np.testing.assert_array_equal(checkpointed_step(S0, W0), step(S0, W0))
    text = sg.source(sg.grad(both_marked_and_unmarked_calls), S0, W0)
    assert text.count("# sg.checkpoint(") == 1  # only the marked call is recomputed
    g = sg.grad(both_marked_and_unmarked_calls, wrt=(0, 1))(S0, W0)
    _fd_check(both_marked_and_unmarked_calls, [S0, W0], g)


@pytest.mark.parametrize("f", [checkpoint_in_branches, checkpoint_in_while, nested_checkpoints])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_checkpoint_in_branches_loops_and_nested_differentiates(f, sign):
    args = [sign * S0, W0]
    g = sg.grad(f, wrt=(0, 1))(*args)
    _fd_check(f, args, g)
    tangent = RNG.normal(size=S0.shape)
    value, t = sg.jvp(f)(*args, tangent)
    assert value == pytest.approx(f(*args))
    assert_close(t, directional_derivative(f, args, {0: tangent}))


def test_checkpoint_with_jvp_is_a_no_op():
    tangent = RNG.normal(size=S0.shape)
    marked = sg.jvp(loop_checkpointed)(S0, W0, tangent)
    unmarked = sg.jvp(loop_unmarked)(S0, W0, tangent)
    assert marked[0] == unmarked[0] and np.array_equal(marked[1], unmarked[1])
    assert "checkpoint" not in sg.source(sg.vjp(loop_checkpointed), S0, W0, 1.0).split(
        "def ")[0]


def test_checkpoint_at_second_order():
    x = 0.7
    g = sg.grad(scalar_loop_checkpointed)(x)
    assert g == sg.grad(scalar_loop_unmarked)(x)
    assert_close(g, numeric_gradient(scalar_loop_checkpointed, [x], None, 0))
    gg = sg.grad(sg.grad(scalar_loop_checkpointed))(x)
    assert_close(gg, numeric_gradient(sg.grad(scalar_loop_unmarked), [x], None, 0))
    assert_close(sg.hessian(scalar_loop_checkpointed)(x), gg)
    H = sg.hessian(loop_checkpointed)(S0[:2, :2] * 0.5, W0[:2, :2])
    grad_s = sg.grad(loop_unmarked)
    assert_close(H, numeric_hessian(grad_s, [S0[:2, :2] * 0.5, W0[:2, :2]], 0))


def test_checkpoint_with_structured_arguments():
    params = {"W": W0, "b": RNG.normal(size=3)}
    got = sg.grad(structured_checkpointed, wrt=(0, 1))(params, S0)
    expected = sg.grad(structured_unmarked, wrt=(0, 1))(params, S0)
    assert np.array_equal(got[0]["W"], expected[0]["W"])
    assert np.array_equal(got[0]["b"], expected[0]["b"])
    assert np.array_equal(got[1], expected[1])
    assert_close(got[1], numeric_gradient(structured_checkpointed, [params, S0], None, 1))


def test_value_and_grad_and_vjp_through_checkpoint():
    value, g = sg.value_and_grad(loop_checkpointed)(S0, W0)
    assert value == loop_unmarked(S0, W0)
    assert np.array_equal(g, sg.grad(loop_unmarked)(S0, W0))
    assert np.array_equal(sg.vjp(loop_checkpointed)(S0, W0, 2.0),
                          sg.vjp(loop_unmarked)(S0, W0, 2.0))


def test_grad_of_a_checkpointed_function_itself_is_its_gradient():
    assert np.array_equal(sg.grad(sg.checkpoint(loop_unmarked))(S0, W0),
                          sg.grad(loop_unmarked)(S0, W0))


def test_checkpoint_outside_differentiation_calls_fn_also_on_tensors():
    s = sg.tensor(S0, requires_grad=True)
    out = checkpointed_step(s, sg.tensor(W0)).sum()
    out.backward()
    assert_close(s.grad.numpy(), numeric_gradient(lambda a: np.sum(step(a, W0)), [S0], None, 0))


def test_checkpoint_of_a_non_function_is_refused():
    with pytest.raises(sg.SrcGradError, match="needs a function"):
        sg.checkpoint(3)


def checkpoint_of_a_value(x):
    return sg.checkpoint(x)(x)


def test_checkpoint_of_a_run_time_value_is_refused_at_the_users_line():
    with pytest.raises(sg.SrcGradError) as e:
        sg.grad(checkpoint_of_a_value)(S0)
    message = str(e.value)
    assert "sg.checkpoint takes one function" in message
    assert "test_checkpoint.py" in message
    assert "sg.checkpoint(step)(x)" in message


@sg.checkpoint
def wiggle(q):
    return q * np.sin(q)


def inner_loss(a):
    s = a
    for _ in range(3):
        s = wiggle(s)
    return np.sum(s ** 2)


inner_gradient = sg.grad(inner_loss)


def calls_a_derived_function_with_a_checkpoint(x):
    return np.sum(inner_gradient(x) ** 2)


def test_derived_function_with_a_checkpoint_called_inside_differentiates():
    x = np.array([0.3, 0.5, -0.8])
    f = calls_a_derived_function_with_a_checkpoint
    g = sg.grad(f)(x)
    assert_close(g, numeric_gradient(f, [x], None, 0))
    tangent = np.array([1.0, -0.5, 0.25])
    _, t = sg.jvp(f)(x, tangent)
    assert_close(t, directional_derivative(f, [x], {0: tangent}))
    assert_close(sg.hessian(inner_loss)(x), numeric_hessian(inner_gradient, [x], 0))


@sg.checkpoint
def dropout_step(s):
    mask = np.random.random_sample(s.shape) > 0.5
    print("dropout step")
    return np.tanh(s) * mask


def loop_with_dropout(s):
    for _ in range(3):
        s = dropout_step(s)
    return np.sum(s)


def loop_with_dropout_unmarked(s):
    for _ in range(3):
        s = dropout_step.fn(s)
    return np.sum(s)


def test_checkpointed_random_draws_and_prints_run_once(capsys):
    np.random.seed(1)
    got = sg.grad(loop_with_dropout)(S0)
    prints = capsys.readouterr().out.count("dropout step")
    np.random.seed(1)
    expected = sg.grad(loop_with_dropout_unmarked)(S0)
    assert np.array_equal(got, expected)  # the same masks: the draw was saved, not repeated
    assert prints == 3 == capsys.readouterr().out.count("dropout step")


@sg.checkpoint
def step_printing_in_a_branch(s):
    if np.sum(s) > 0:
        print("positive")
        s = s * 2.0
    return np.sin(s)


def loop_printing_in_a_branch(s):
    for _ in range(2):
        s = step_printing_in_a_branch(s)
    return np.sum(s ** 2)


def test_checkpointed_branch_with_a_print_differentiates_unmarked(capsys):
    for sign in (1.0, -1.0):
        x = sign * np.abs(S0)
        g = sg.grad(loop_printing_in_a_branch)(x)
        assert_close(g, numeric_gradient(loop_printing_in_a_branch, [x], None, 0))


SCALE = np.array([0.5, -1.5, 2.0])


@sg.checkpoint
def scaled_step(s):
    return np.sin(s * SCALE) + s


def top_level_call_reading_a_global(s):
    t = np.exp(s)  # its adjoint reads its result: a repeat would show
    u = scaled_step(t)
    return np.sum(u * t)


def test_checkpointed_call_reading_a_global_at_the_top_level():
    text = sg.source(sg.grad(top_level_call_reading_a_global), S0)
    assert "# sg.checkpoint(scaled_step): recomputed" in text
    # the caller's op before the call is not repeated
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum("np.exp(s)" in line for line in code) == 1
    g = sg.grad(top_level_call_reading_a_global)(S0)
    assert_close(g, numeric_gradient(top_level_call_reading_a_global, [S0], None, 0))


class Cell:
    def __init__(self, W):
        self.W = W

    def step(self, s):
        if np.sum(s) > 100.0:
            return s  # an early return
        return np.tanh(s @ self.W)


CELL = Cell(W0)


def loop_of_a_checkpointed_method(s, scale):
    for _ in range(3):
        s = sg.checkpoint(CELL.step)(s) * scale
    return np.sum(s ** 2)


@pytest.mark.parametrize("optimize", [True, False])
def test_checkpointed_bound_method_with_early_return(optimize):
    args = [S0, 1.3]
    g = sg.grad(loop_of_a_checkpointed_method, wrt=(0, 1), optimize=optimize)(*args)
    _fd_check(loop_of_a_checkpointed_method, args, g)
    assert "sg.checkpoint(step)" in sg.source(sg.grad(loop_of_a_checkpointed_method), *args)
