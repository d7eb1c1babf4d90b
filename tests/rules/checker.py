"""Numerical checks of one rule at one sample: the test suite's reading of the table.

- :func:`check_vjp`: dot-product test against central differences in float64
  (``tests/fd.py``), ``<g, (f(x + h u) - f(x - h u)) / 2h>`` vs ``<vjp(g), u>`` per input (cotangents
  unbroadcast to the input's shape when the rule ``broadcasts``);
- :func:`check_forward`: forward mode against reverse mode, ``<g, J u> = <J^T g, u>``,
  through :func:`srcgrad.rules.forward_tangent` (so LINEAR and BILINEAR derivation too);
- :func:`check_float32`: float32 inputs give float32 cotangents and tangents;
- :func:`check_second_order`: the VJP body differentiated again (traced on
  :mod:`.recording`'s array-like, reversed with the table's rules) against central
  differences of the VJP itself.

Each raises ``AssertionError`` with the rule, input and both numbers when a check fails.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from srcgrad.rules import Rule, forward_tangent
from srcgrad.rules.helpers import unbroadcast
from tests.fd import directional_derivative, inner

from .recording import Recorded, Tape, backprop, unwrap
from .samples import Sample

RTOL = 1e-5
ATOL = 1e-7


@contextlib.contextmanager
def warnings_as_errors() -> Iterator[None]:
    """Every warning an error (a rule that divides by zero on a sample is a bug), except
    OpenBLAS's spurious "invalid value" in a product of finite arrays: some of its kernels
    leave the FE_INVALID flag set, depending on what memory held before (numpy/numpy#24067,
    OpenMathLib/OpenBLAS#1924); seen once in a full run, never alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", r"invalid value encountered in (dot|matmul|inner|vecdot)",
                                RuntimeWarning)
        yield


def _rng(sample: Sample, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng([sample.seed, salt])


def direction(rng: np.random.Generator, sample: Sample, name: str, shape: Any) -> Any:
    """A random direction for input ``name``: symmetric (last two axes) for an input the
    sample declares symmetric, since the rule is defined on symmetric matrices only."""
    u = rng.standard_normal(shape)
    if name in sample.symmetric:
        u = (u + np.swapaxes(u, -1, -2)) / 2
    return u


def is_float_array(v: Any) -> bool:
    return isinstance(v, np.ndarray) and np.issubdtype(v.dtype, np.floating)


def wrt_inputs(rule: Rule, sample: Sample) -> list[str]:
    """The inputs to differentiate: those with a VJP whose values are float arrays."""
    names = sample.wrt if sample.wrt is not None else tuple(rule.vjp)
    found = []
    for n in names:
        v = sample.env[n]
        items = v if n == rule.variadic else [v]
        if n in rule.vjp and items and all(is_float_array(x) for x in items):
            found.append(n)
    return found


def full_env(rule: Rule, env: dict[str, Any], out: Any, g: Any) -> dict[str, Any]:
    full = {**env, "out": out, "g": g}
    full.update(rule.metadata(full))
    return full


def _slots(rule: Rule, env: dict[str, Any], name: str) -> list[Any]:
    """Element indices of an input: ``[None]``, or ``[0, 1, ...]`` for a variadic one."""
    return list(range(len(env[name]))) if name == rule.variadic else [None]


def _get(env: dict[str, Any], name: str, i: Any) -> Any:
    return env[name] if i is None else env[name][i]


def _with(env: dict[str, Any], name: str, i: Any, value: Any) -> dict[str, Any]:
    if i is None:
        return {**env, name: value}
    items = list(env[name])
    items[i] = value
    return {**env, name: items}


def cotangent(rule: Rule, full: dict[str, Any], name: str, i: Any) -> Any:
    ct = rule.call_vjp(name, {**full, "i": i})
    if rule.broadcasts:
        ct = unbroadcast(ct, np.shape(_get(full, name, i)))
    return ct


def assert_close(got: float, want: float, what: str) -> None:
    if not abs(got - want) <= RTOL * max(abs(got), abs(want)) + ATOL:
        raise AssertionError(f"{what}: {got!r} != {want!r} (difference {got - want:.3e})")


def central_difference(f: Callable[[Any], Any], x: np.ndarray, u: np.ndarray,
                       g: Any) -> float:
    """``<g, (f(x + h u) - f(x - h u)) / 2h>`` by the suite's finite differences
    (``tests/fd.py``)."""
    return inner(directional_derivative(f, (x,), {0: u}), g)


def check_vjp(rule: Rule, sample: Sample) -> int:
    """Returns the number of (input, element) pairs checked."""
    env = sample.env
    out = rule.apply(env)
    rng = _rng(sample)
    g = rng.standard_normal(np.shape(out))
    full = full_env(rule, env, out, g)
    checked = 0
    for name in wrt_inputs(rule, sample):
        for i in _slots(rule, env, name):
            x = _get(env, name, i)
            u = direction(rng, sample, name, np.shape(x))
            ct = cotangent(rule, full, name, i)
            assert np.shape(ct) == np.shape(x), (
                f"{rule.name}: cotangent of {name}[{i}] has shape {np.shape(ct)}, "
                f"input has {np.shape(x)}")
            fd = central_difference(lambda v: rule.apply(_with(env, name, i, v)), x, u, g)
            assert_close(float(np.sum(ct * u)), fd, f"{rule.name} VJP wrt {name}[{i}]")
            checked += 1
    return checked


def check_forward(rule: Rule, sample: Sample) -> None:
    env = sample.env
    out = rule.apply(env)
    rng = _rng(sample, 1)
    g = rng.standard_normal(np.shape(out))
    full = full_env(rule, env, out, g)
    names = wrt_inputs(rule, sample)
    tangents: dict[str, Any] = {}
    reverse = 0.0
    for name in names:
        us = [direction(rng, sample, name, np.shape(_get(env, name, i)))
              for i in _slots(rule, env, name)]
        tangents[name] = us if name == rule.variadic else us[0]
        for i, u in zip(_slots(rule, env, name), us):
            reverse += float(np.sum(cotangent(rule, full, name, i) * u))
    jt = forward_tangent(rule, {**env, "out": out}, tangents)
    if not names:
        assert jt is None
        return
    assert np.shape(jt) == np.shape(out), (
        f"{rule.name}: tangent has shape {np.shape(jt)}, output has {np.shape(out)}")
    assert_close(float(np.sum(g * jt)), reverse, f"{rule.name} forward vs reverse")


def _as32(v: Any) -> Any:
    if is_float_array(v):
        return v.astype(np.float32)
    if isinstance(v, list):
        return [_as32(x) for x in v]
    return v


def check_float32(rule: Rule, sample: Sample) -> None:
    names = wrt_inputs(rule, sample)
    if not names:
        return
    env = {k: _as32(v) if k in rule.inputs else v for k, v in sample.env.items()}
    out = rule.apply(env)
    g = np.ones(np.shape(out), dtype=np.result_type(out))
    full = full_env(rule, env, out, g)
    tangents = {}
    for name in names:
        for i in _slots(rule, env, name):
            ct = cotangent(rule, full, name, i)
            assert np.result_type(ct) == np.float32, (
                f"{rule.name}: float32 input {name}[{i}] got a {np.result_type(ct)} cotangent")
        x = env[name]
        tangents[name] = ([np.ones_like(v) for v in x] if name == rule.variadic
                          else np.ones_like(x))
    if all(rule.has_forward(n) for n in names):
        jt = forward_tangent(rule, {**env, "out": out}, tangents)
        if np.result_type(out) == np.float32:
            assert np.result_type(jt) == np.float32, (
                f"{rule.name}: float32 tangents gave a {np.result_type(jt)} tangent")


def check_second_order(rule: Rule, sample: Sample) -> int:
    """``d/dy <vjp_x(g; x, y), w>`` for every pair of inputs ``x``, ``y`` (``x`` = ``y``
    included), by tracing the VJP and reversing the trace, against central differences."""
    env = sample.env
    out = rule.apply(env)
    rng = _rng(sample, 2)
    g = rng.standard_normal(np.shape(out))
    slots = [(n, i) for n in wrt_inputs(rule, sample) for i in _slots(rule, env, n)]
    checked = 0
    for name, i in slots:
        w = rng.standard_normal(np.shape(_get(env, name, i)))
        for other, j in slots:
            y = _get(env, other, j)
            u = direction(rng, sample, other, np.shape(y))

            def first(v: Any) -> Any:
                point = _with(env, other, j, v)
                plain = _with(env, other, j, unwrap(v))
                full = {**point, "out": rule.apply(point), "g": g}
                full.update(rule.metadata(plain))
                return np.sum(cotangent(rule, full, name, i) * w)

            tape = Tape()
            yr = tape.wrap(y)
            s = first(yr)
            if isinstance(s, Recorded):
                ct = backprop(tape, s, 1.0).get(id(yr), np.zeros_like(y))
                analytic = float(np.sum(ct * u))
            else:  # the VJP does not depend on this input
                analytic = 0.0
            fd = central_difference(first, y, u, 1.0)
            assert_close(analytic, fd,
                         f"{rule.name} second order: d/d{other}[{j}] of VJP wrt {name}[{i}]")
            checked += 1
    return checked
