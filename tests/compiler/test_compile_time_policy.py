"""The frontend's compile-time policy (``srcgrad.compiler.frontend.policy``): each rule and
limit with its reason, the reasons shown in the emitted ``# line N`` comments, and the
conditions the policy now knows while compiling (a list's truth and length), checked
against finite differences in reverse, forward and second order.
"""

import numpy as np
import pytest
from fd import assert_close, directional_derivative, numeric_gradient, numeric_hessian

import srcgrad as sg
from srcgrad.compiler.frontend import policy as P
from srcgrad.compiler.frontend.control import SymEnumerate, SymRange, SymZip
from srcgrad.compiler.ir import types as T
from srcgrad.compiler.ir.builder import Builder
from srcgrad.compiler.ir.core import Block, Value
from srcgrad.compiler.symbolic import Sym

POLICY = P.POLICY


@pytest.fixture
def sym():
    """A run-time value (a Sym over a fresh IR value), as the frontend holds one."""
    with Builder(Block()):
        yield Sym(Value("x", type=T.FLOAT))


# --- the policy's decisions, one rule at a time --------------------------------------------

def test_for_over_a_list_unrolls_with_its_items_and_reason(sym):
    d = POLICY.should_unroll_for([sym, sym, sym], appends_to_list=False)
    assert d and len(d.items) == 3
    assert d.reason == "3 items, a list known while compiling"
    assert POLICY.unroll_note(d) == "unrolled at compile time: 3 items, a list known while compiling"


def test_for_over_a_tuple_or_dict_unrolls():
    assert POLICY.should_unroll_for((1,), False).reason == "1 item, a tuple known while compiling"
    d = POLICY.should_unroll_for({"a": 1, "b": 2}.items(), False)
    assert d and d.items == [("a", 1), ("b", 2)] and "a dict" in d.reason


def test_for_over_enumerate_and_zip_of_a_known_list_unrolls(sym):
    d = POLICY.should_unroll_for(SymEnumerate([sym, sym], 1), False)
    assert d and [i for i, _ in d.items] == [1, 2]
    assert d.reason == "2 items, enumerate() over a list known while compiling"
    d = POLICY.should_unroll_for(SymZip(([sym, sym, sym], range(2))), False)
    assert d and [i for _, i in d.items] == [0, 1]
    assert "zip() over a list" in d.reason


def test_enumerate_or_zip_of_run_time_values_is_a_run_time_loop(sym):
    assert not POLICY.should_unroll_for(SymEnumerate(sym), False)
    assert not POLICY.should_unroll_for(SymZip((sym, range(3))), False)
    assert not POLICY.should_unroll_for(SymZip((range(2), range(3))), False)


def test_constant_range_unrolls_only_when_its_body_builds_a_list(sym):
    d = POLICY.should_unroll_for(range(0, 4), appends_to_list=True)
    assert d and d.items == [0, 1, 2, 3]
    assert d.reason == ("4 iterations, range(0, 4) known while compiling and its body "
                        "appends to a list")
    d = POLICY.should_unroll_for(range(4), appends_to_list=False)
    assert not d and d.reason == "range(0, 4) runs as a loop (its body builds no list)"
    d = POLICY.should_unroll_for(SymRange(0, sym), appends_to_list=True)
    assert not d and d.reason == "its trip count is known only at run time"
    assert not POLICY.should_unroll_for(sym, appends_to_list=False)


def test_unroll_limit_is_the_named_constant():
    assert POLICY.too_long(P.MAX_UNROLL) is None
    assert POLICY.too_long(P.MAX_UNROLL + 1) == (
        f"{P.MAX_UNROLL + 1} iterations is more than the {P.MAX_UNROLL} srcgrad unrolls")


def test_while_trips_run_now_only_on_a_known_condition_without_exits(sym):
    assert POLICY.should_unroll_while(True, body_exits=False)
    assert POLICY.should_unroll_while([sym], body_exits=False)  # a list's truth: its length
    d = POLICY.should_unroll_while(sym, body_exits=False)
    assert not d and d.reason == "its condition is known only at run time"
    d = POLICY.should_unroll_while(True, body_exits=True)
    assert not d and d.reason == "its body may break, continue or return"


def test_while_note_says_unrolled_or_peeled():
    assert POLICY.while_note(1, finished=True) == (
        "unrolled at compile time: 1 trip, its condition known while compiling")
    assert POLICY.while_note(2, finished=False) == (
        "first 2 trips peeled at compile time, where its condition was known; the rest is "
        "a run-time loop")
    assert POLICY.while_note(0, finished=False) is None  # a plain run-time loop: no note


def test_if_folds_on_a_known_condition_and_a_container_truth(sym):
    assert POLICY.should_fold_if(False).reason == (
        "folded at compile time: the condition is False while compiling")
    assert POLICY.should_fold_if((sym,)).reason.endswith("True while compiling")
    assert POLICY.should_fold_if([]).reason.endswith("False while compiling")
    d = POLICY.should_fold_if(sym)
    assert not d and d.reason == "its condition is known only at run time"


def test_builtins_run_now_on_known_values_and_len_of_a_list(sym):
    assert POLICY.should_run_builtin("max", [1, 2], symbolic=False)
    assert POLICY.should_run_builtin("len", [[sym, sym]], symbolic=True).reason == (
        "a list's length is known while compiling")
    assert not POLICY.should_run_builtin("len", [sym], symbolic=True)
    assert not POLICY.should_run_builtin("max", [sym, 1.0], symbolic=True)


def test_inlining_stops_at_the_depth_limit():
    assert POLICY.should_inline(P.MAX_INLINE_DEPTH - 1)
    d = POLICY.should_inline(P.MAX_INLINE_DEPTH)
    assert not d and d.reason.startswith(f"calls nested more than {P.MAX_INLINE_DEPTH} deep")


# --- the reasons in the emitted code --------------------------------------------------------

LAYERS = [(np.full((3, 3), 0.1 * k), np.full(3, 0.2)) for k in range(1, 4)]


def network(x):
    h = x
    for W, b in LAYERS:
        h = np.tanh(W @ h + b)
    n = 0
    while n < 2:
        h = h * 1.5
        n += 1
    if len(LAYERS) > 5:
        h = h * 3.0
    return h.sum()


def halve_once_at_least(x):
    done = False
    while not done:
        x = x * 0.5
        done = x.sum() < 1.0
    return x.sum()


def _comment(text, start):
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(start))


def test_emitted_comments_say_what_was_unrolled_or_folded():
    text = sg.source(sg.grad(network), np.ones(3))
    first = network.__code__.co_firstlineno
    assert _comment(text, f"# line {first + 2}:") == (
        f"# line {first + 2}: for W, b in LAYERS:  (unrolled at compile time: 3 items, a list "
        "known while compiling)")
    # the while loop and the if left no code of their own in the gradient: still explained
    assert _comment(text, f"# line {first + 5}:") == (
        f"# line {first + 5}: while n < 2:  (unrolled at compile time: 2 trips, its condition "
        "known while compiling)")
    assert _comment(text, f"# line {first + 8}:") == (
        f"# line {first + 8}: if len(LAYERS) > 5:  (folded at compile time: the condition is "
        "False while compiling)")
    # each note once, however many times the loop's lines repeat
    assert text.count("unrolled at compile time: 3 items") == 1
    assert not any(line.strip().startswith(("for ", "while ", "if "))
                   for line in text.splitlines())


def test_emitted_comment_says_a_while_loop_first_trip_was_peeled():
    text = sg.source(sg.grad(halve_once_at_least), np.full(2, 4.0))
    line = halve_once_at_least.__code__.co_firstlineno + 2
    assert _comment(text, f"# line {line}:") == (
        f"# line {line}: while not done:  (first trip peeled at compile time, where its "
        "condition was known; the rest is a run-time loop)")


def _helper_with_loop(x):
    for k in (1.0, 2.0):
        x = x * k
    return x


def calls_helper(x):
    y = _helper_with_loop(x)
    return y.sum()


def test_inlined_code_adds_no_note_to_the_callers_line():
    text = sg.source(sg.grad(calls_helper), np.ones(2))
    assert "compile time" not in text


# --- conditions now known while compiling (were wrong or refused) --------------------------

def len_of_layers_of_different_shapes(x, layers):
    h = x
    for W, b in layers:
        h = np.tanh(W @ h + b)
    if len(layers) > 1:  # the list's length, not an array stacked from its items
        h = h * 2.0
    return (h ** 2).sum() * len(layers)


def test_len_of_a_list_of_run_time_arrays_is_known_while_compiling_and_differentiates():
    x = np.array([0.3, -0.2, 0.5])
    layers = [(np.linspace(-1, 1, 9).reshape(3, 3), np.array([0.1, 0.0, -0.1])),
              (np.eye(3) * 0.7, np.zeros(3))]
    args = (x, layers)
    assert_close(sg.grad(len_of_layers_of_different_shapes)(*args),
                 numeric_gradient(len_of_layers_of_different_shapes, args, None, 0))
    t = np.array([1.0, 0.5, -2.0])
    _, tangent = sg.jvp(len_of_layers_of_different_shapes)(x, layers, t)
    assert_close(tangent, directional_derivative(len_of_layers_of_different_shapes, args, {0: t}))
    grad_x = sg.grad(len_of_layers_of_different_shapes)
    assert_close(sg.hessian(len_of_layers_of_different_shapes)(*args),
                 numeric_hessian(grad_x, args))


def drain_a_stack(x):
    stack = [x * 2.0, np.sin(x)]
    total = 0.0
    while stack:  # a list's truth is its length: known, so the loop unrolls
        total = total + (stack.pop() ** 2).sum()
    return total


def test_while_over_a_list_of_run_time_values_unrolls_and_differentiates():
    x = np.array([0.4, -1.1])
    assert_close(sg.grad(drain_a_stack)(x), numeric_gradient(drain_a_stack, (x,), None, 0))
    t = np.array([0.3, 1.0])
    _, tangent = sg.jvp(drain_a_stack)(x, t)
    assert_close(tangent, directional_derivative(drain_a_stack, (x,), {0: t}))
    assert_close(sg.hessian(drain_a_stack)(x), numeric_hessian(sg.grad(drain_a_stack), (x,)))
    assert "(unrolled at compile time: 2 trips" in sg.source(sg.grad(drain_a_stack), x)


def assert_on_a_tuple(x):
    pair = (x, x * 2)
    assert pair, "never raised: a non-empty tuple is true"
    return (pair[1] * pair[0]).sum()


def test_assert_on_a_tuple_of_run_time_values_is_decided_while_compiling():
    x = np.array([0.5, 1.5])
    assert_close(sg.grad(assert_on_a_tuple)(x), numeric_gradient(assert_on_a_tuple, (x,), None, 0))
    _, tangent = sg.jvp(assert_on_a_tuple)(x, np.ones(2))
    assert_close(tangent, directional_derivative(assert_on_a_tuple, (x,), {0: np.ones(2)}))


def test_annotated_listing_keeps_the_compile_time_reasons():
    from srcgrad.compiler.api import render

    text = render(network, types=["array[3]"], what="annotate")
    first = network.__code__.co_firstlineno
    line = next(s for s in text.splitlines() if s.strip().startswith(f"# {first + 2} |"))
    assert line.strip() == (f"# {first + 2} |     for W, b in LAYERS:  (unrolled at compile "
                            "time: 3 items, a list known while compiling)")
