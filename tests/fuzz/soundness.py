"""Runs one soundness-form program (``forms.py``) in every mode and says what happened.

Unlike ``harness.check`` (which raises on the first disagreement), ``run_program`` classifies
the program, so a long run can count outcomes per form (``report.py``). Each mode is checked
even after another failed (the outcome is the first failure, ``others`` the rest):

- ``right``: reverse mode (``sg.grad``, optimize on and off), forward mode (``sg.jvp`` along
  a random tangent) and second order (``sg.hessian``, and a Hessian-vector product
  ``sg.jvp(sg.grad(f))``) all match central finite differences, in every *state* of the
  program: the derived functions are made once and called again after the program changed
  its captured data or with other keyword arguments, each call checked against finite
  differences of the function as it is now;
- ``refused``: ``sg.SrcGradError``. Allowed by the contract only for constructs API.md does
  not promise; every form here is promised, so a refusal is reported, separately;
- ``wrong``: a number (or a gradient's type) that differs from finite differences;
- ``crashed``: any other exception out of srcgrad;
- ``skipped``: the primal overflowed or left the domain at this random point.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import srcgrad as sg
from srcgrad.compiler.internal_errors import InternalCompilerError
from tests.compiler.fd import numeric_gradient, numeric_second_differences

from .generator import Program
from .harness import FD_ATOL, FD_RTOL, KIND_TYPES, _close, _positions

H2_STEP = 1e-4  # second differences: error ~ step**2 and 1e-16 / step**2
H2_RTOL, H2_ATOL = 1e-5, 1e-5
OUTCOMES = ("right", "refused", "wrong", "crashed")


@dataclass
class Outcome:
    kind: str  # one of OUTCOMES, or "skipped"
    mode: str = ""  # "primal" (f calls derived functions), "reverse", "forward", "second order"
    detail: str = ""
    state: int = 0  # which call of the program's states
    # the first failure of each later mode (every mode is checked even after one failed)
    others: list[Outcome] = field(default_factory=list)

    @property
    def signature(self) -> tuple[str, str, str]:
        """What makes two failures the same class: the mode and the exception type."""
        first = self.detail.splitlines()[0] if self.detail else ""
        return self.kind, self.mode, first.split(":")[0] if self.kind != "wrong" else ""


class _Stop(Exception):
    def __init__(self, outcome: Outcome):
        self.outcome = outcome


def run_program(program: Program, module: ModuleType, seed: int) -> Outcome:
    """The outcome of ``program`` (loaded as ``module``); never raises for srcgrad's sake."""
    fn = module.f
    args = program.make_args(np.random.default_rng(seed))
    places = _positions(program)
    where = Path(fn.__code__.co_filename).name
    checked = 0
    failures: dict[str, Outcome] = {}
    try:
        derived = _call("reverse", 0, where, lambda: _Derived(fn, program, places))
        for index, (statement, keywords) in enumerate(program.states):
            if statement:
                exec(statement, module.__dict__)  # the user changes captured data
            kwargs = {k: eval(v, module.__dict__) for k, v in keywords.items()}
            if _check_state(program, fn, args, kwargs, places, derived, index, where,
                            failures):
                checked += 1
    except _Stop as stop:  # the primal itself (or making the derived functions) failed
        return stop.outcome
    if failures:
        first, *others = failures.values()
        first.others = others
        return first
    return Outcome("right" if checked else "skipped")


class _Derived:
    """Every derived function of ``f``, made once so later states call the same objects."""

    def __init__(self, fn: Callable[..., Any], program: Program, places: list[int]):
        self.reverse = {o: sg.grad(fn, wrt=program.wrt, optimize=o) for o in (True, False)}
        self.forward = {p: sg.jvp(fn, wrt=p) for p in places}
        self.hessian = {p: sg.hessian(fn, wrt=p) for p in places}
        first = places[0]
        self.hvp = (first, sg.jvp(sg.grad(fn, wrt=first), wrt=first))


def _call(mode: str, state: int, where: str, thunk: Callable[[], Any]) -> Any:
    try:
        return thunk()
    except InternalCompilerError as error:  # a SrcGradError, but srcgrad's own bug
        raise _Stop(Outcome("crashed", mode, f"InternalCompilerError: {error}\n"
                                             f"{traceback.format_exc()}", state)) from None
    except sg.SrcGradError as error:
        located = "" if where in str(error) else " [the message does not name the user's line]"
        raise _Stop(Outcome("refused", mode, f"SrcGradError{located}: {error}", state)) from None
    except Exception as error:  # noqa: BLE001 - anything else out of srcgrad is a crash
        raise _Stop(Outcome("crashed", mode, f"{type(error).__name__}: {error}\n"
                                             f"{traceback.format_exc()}", state)) from None


def _wrong(mode: str, state: int, what: str) -> _Stop:
    return _Stop(Outcome("wrong", mode, what, state))


def _check_state(program: Program, fn, args, kwargs, places, derived: _Derived,
                 state: int, where: str, failures: dict[str, Outcome]) -> bool:
    """Checks one call in every mode that has not failed yet, recording each mode's first
    failure in ``failures``; False when the primal is unusable at this point."""
    try:
        with np.errstate(all="raise"):
            value = fn(*args, **kwargs)
    except (FloatingPointError, OverflowError):
        return False
    except Exception as error:  # noqa: BLE001 - f itself calls derived functions
        if not (_through_srcgrad(error) or "sg." in program.source):
            raise  # the generator wrote an invalid program: its bug, not srcgrad's
        value = _call("primal", state, where, lambda: fn(*args, **kwargs))
    if abs(float(np.asarray(value))) > 1e8:
        return False
    reference = [numeric_gradient(fn, args, kwargs, p) for p in places]
    checks = {"reverse": _check_reverse, "forward": _check_forward,
              "second order": _check_second_order}
    for mode, check in checks.items():
        if mode in failures:
            continue
        try:
            check(program, fn, args, kwargs, places, derived, state, where, reference, value)
        except _Stop as stop:
            failures[mode] = stop.outcome
    return True


def _check_reverse(program, fn, args, kwargs, places, derived, state, where, reference,
                   value) -> None:
    snapshot = [np.array(a, copy=True) for a in args]
    for optimize, grad in derived.reverse.items():
        got = _call("reverse", state, where, lambda: grad(*args, **kwargs))
        got = list(got) if isinstance(got, tuple) else [got]
        for g, want, p in zip(got, reference, places):
            kind = program.arg_kinds[p]
            if type(g) is not KIND_TYPES[kind]:
                raise _wrong("reverse", state, f"gradient of x{p} is a {type(g).__name__} "
                                               f"for a {kind} argument (optimize={optimize})")
            if not _close(g, want, FD_RTOL, FD_ATOL):
                raise _wrong("reverse", state, f"gradient of x{p} (optimize={optimize}):\n"
                                               f" got  {np.asarray(g)!r}\n want {want!r}")
    for k, (before, after) in enumerate(zip(snapshot, args)):
        if not np.array_equal(before, after, equal_nan=True):
            raise _wrong("reverse", state, f"a derived function modified argument x{k}")


def _check_forward(program, fn, args, kwargs, places, derived, state, where, reference,
                   value) -> None:
    rng = np.random.default_rng(state + 17)
    for p, want in zip(places, reference):
        tangent = _like(program, p, rng.standard_normal(np.shape(args[p])))
        jvp = derived.forward[p]
        _, got = _call("forward", state, where, lambda: jvp(*args, tangent, **kwargs))
        expected = np.array(np.sum(want * tangent))
        if not _close(got, expected, FD_RTOL, FD_ATOL * max(1, np.size(want))):
            raise _wrong("forward", state, f"along x{p}: {got!r}, finite differences "
                                           f"{expected!r}")


def _check_second_order(program, fn, args, kwargs, places, derived, state, where,
                        reference, value) -> None:
    rng = np.random.default_rng(state + 29)
    # second differences lose ~eps * |f| / step**2 to rounding: a large |f| widens it
    slack = H2_ATOL + 1e-7 * abs(float(np.asarray(value)))
    for p in places:
        hessian = derived.hessian[p]
        got = _call("second order", state, where, lambda: hessian(*args, **kwargs))
        want = numeric_second_differences(fn, args, kwargs, p, eps=H2_STEP)
        if not _close(got, want, H2_RTOL, slack):
            raise _wrong("second order", state, f"sg.hessian wrt x{p}:\n got  "
                                                f"{np.asarray(got)!r}\n want {want!r}")
        if p == derived.hvp[0]:
            v = _like(program, p, rng.standard_normal(np.shape(args[p])))
            _, hv = _call("second order", state, where,
                          lambda: derived.hvp[1](*args, v, **kwargs))
            expected = np.tensordot(want, np.asarray(v), axes=np.ndim(v))
            if not _close(hv, expected, H2_RTOL, slack * max(1, np.size(v))):
                raise _wrong("second order", state, f"sg.jvp(sg.grad(f)) along x{p}: "
                                                    f"{hv!r}, finite differences {expected!r}")


def _through_srcgrad(error: BaseException) -> bool:
    """Whether the traceback passes through srcgrad (or code it emitted)."""
    package = str(Path(sg.__file__).parent)
    tb = error.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith(package) or not name.endswith(".py"):
            return True
        tb = tb.tb_next
    return False


def _like(program: Program, place: int, values: np.ndarray) -> Any:
    kind = program.arg_kinds[place]
    return values if kind == "array" else KIND_TYPES[kind](values)
