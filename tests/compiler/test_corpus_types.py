"""Gradient types and argument safety over the whole corpus (API.md §1):

- a gradient has its argument's type: Python float in, Python float out; NumPy scalar in,
  the same scalar type out; 0-d array in, 0-d array out; an array keeps shape and dtype
  (float32 stays float32), and an argument the result does not use gets zeros of its shape;
- derived functions never modify their arguments;
- ``sg.value_and_grad`` returns the primal value and the same gradient as ``sg.grad``.
"""

import contextlib
import copy
import io

import corpus
import numpy as np
import pytest
from fd import assert_close, numeric_gradient, resolve_wrt

PROGRAMS = corpus.load()

# program name, or "name[kind]", -> what the compiler is missing (strict xfails)
PENDING_TYPES: dict[str, str] = {}
PENDING_UNTOUCHED: dict[str, str] = {}
PENDING_VALUE_AND_GRAD: dict[str, str] = {}


def _kinds_with_float32(program):
    """The program's kinds, plus their float32 twins: ``np.float32`` and ``nd32``."""
    kinds = list(program.kinds)
    if "np.float64" in kinds:
        kinds.append("np.float32")
    if "nd" in kinds:
        kinds.append("nd32")
    return kinds


def cases(pending, kinds_of):
    for program in PROGRAMS:
        for kind in kinds_of(program):
            yield pytest.param(program, kind, id=f"{program.name}-{kind}",
                               marks=corpus.pending_marks(pending, program, kind))


def argument_at(place, args, kwargs):
    return args[place] if isinstance(place, int) else kwargs[place]


def assert_same_type(gradient, argument, what):
    if isinstance(argument, np.ndarray):
        assert type(gradient) is np.ndarray, f"{what}: {type(gradient).__name__}, want ndarray"
        assert gradient.shape == argument.shape, f"{what}: shape {gradient.shape}"
        assert gradient.dtype == argument.dtype, f"{what}: dtype {gradient.dtype}"
    else:  # float or a NumPy scalar: exactly the same type
        assert type(gradient) is type(argument), (
            f"{what}: {type(gradient).__name__} for a {type(argument).__name__} argument")


@pytest.mark.parametrize("program, kind", list(cases(PENDING_TYPES, _kinds_with_float32)))
def test_gradient_has_the_arguments_type(program, kind):
    args, kwargs = program.make_args(kind)
    seed = program.seed_for(args, kwargs, kind)
    got = program.call(program.derive(), args, kwargs, seed)
    places = resolve_wrt(program.fn, program.wrt, len(args))
    for i, (gradient, place) in enumerate(zip(got, places, strict=True)):
        assert_same_type(gradient, argument_at(place, args, kwargs),
                         f"{program.name}[{kind}] gradient {i}")
    if kind in ("np.float32", "nd32") and program.expected is None:
        # float32 values: close to the float64 reference at the same point
        with contextlib.redirect_stdout(io.StringIO()):
            want = [numeric_gradient(program.fn, args, kwargs, p, seed) for p in places]
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_close(g, w, rtol=2e-3, atol=2e-3, what=f"{program.name} float32 gradient {i}")


def _snapshot(values):
    return copy.deepcopy(values)


def assert_unchanged(before, after, what):
    for b, a in zip(before, after, strict=True):
        assert type(a) is type(b), f"{what}: an argument changed type"
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: argument reshaped"
            assert np.array_equal(a, b), f"{what}: an argument array was modified"
        else:
            assert np.array_equal(np.asarray(a), np.asarray(b)), f"{what}: argument changed"


@pytest.mark.parametrize("program, kind", list(cases(PENDING_UNTOUCHED, lambda p: p.kinds)))
def test_derived_function_leaves_arguments_unchanged(program, kind):
    args, kwargs = program.make_args(kind)
    seed = program.seed_for(args, kwargs, kind)
    args_before, kwargs_before, seed_before = _snapshot(args), _snapshot(kwargs), _snapshot(seed)
    for optimize in (True, False):
        program.call(program.derive(optimize=optimize), args, kwargs, seed)
        assert_unchanged(args_before, args, f"{program.name}[{kind}] positional")
        assert_unchanged(list(kwargs_before.values()), list(kwargs.values()),
                         f"{program.name}[{kind}] keyword")
        if seed is not None:
            seeds = seed if isinstance(seed, tuple) else (seed,)
            seeds_before = seed_before if isinstance(seed, tuple) else (seed_before,)
            assert_unchanged(seeds_before, seeds, f"{program.name}[{kind}] seed")


def _grad_programs_first_kind(program):
    return program.kinds[:1] if program.transform == "grad" else ()


@pytest.mark.parametrize("program, kind",
                         list(cases(PENDING_VALUE_AND_GRAD, _grad_programs_first_kind)))
def test_value_and_grad_agrees_with_grad_and_the_function(program, kind):
    import srcgrad as sg

    args, kwargs = program.make_args(kind)
    if program.setup is not None:
        program.setup()
    with contextlib.redirect_stdout(io.StringIO()):
        value, gradient = sg.value_and_grad(program.fn, wrt=program.wrt)(*args, **kwargs)
        want_value = program.fn(*args, **kwargs)
    gradient_alone = program.call(program.derive(), args, kwargs, None)
    assert_close(value, want_value, rtol=1e-10, atol=1e-12, what="value")
    gradients = gradient if isinstance(program.wrt, tuple) else (gradient,)
    for g, w in zip(gradients, gradient_alone, strict=True):
        assert_close(g, w, rtol=1e-10, atol=1e-12, what="value_and_grad's gradient")


def test_unused_argument_gets_zeros_of_its_shape():
    import srcgrad as sg

    def f(x, y):
        return np.sum(x ** 2)

    x, y = np.array([1.0, 2.0]), np.ones((2, 3), dtype=np.float32)
    dx, dy = sg.grad(f, wrt=(0, 1))(x, y)
    assert_close(dx, 2.0 * x)
    assert type(dy) is np.ndarray and dy.shape == (2, 3) and dy.dtype == np.float32
    assert not np.any(dy)
    assert sg.grad(f, wrt=1)(1.5, 2.5) == 0.0
    assert type(sg.grad(f, wrt=1)(1.5, 2.5)) is float
