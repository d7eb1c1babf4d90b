"""Runs one generated program through every differentiator and compares them.

For a program the compiler must accept: the compiled reverse gradient (``optimize`` on and
off), the compiled forward mode when ``sg.jvp`` exists, and the runtime's gradient (the same
source run on float64 Tensors) must agree with central finite differences; the gradient has
its argument's type. For a program it must refuse: ``sg.SrcGradError``, nothing else.
Every failure message carries the program's seed and source.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import srcgrad as sg
from srcgrad.compiler.internal_errors import InternalCompilerError
from tests.fd import numeric_gradient

from .control import REJECT
from .generator import Program

FD_STEP = 1e-6
FD_RTOL, FD_ATOL = 1e-6, 1e-6  # central differences: error ~ step**2 and 1e-16 / step
EXACT_RTOL, EXACT_ATOL = 1e-9, 1e-12  # two exact methods: only rounding differs


KIND_TYPES = {"float": float, "np.float64": np.float64, "array": np.ndarray}


class FuzzFailure(AssertionError):
    pass


def load(program: Program, directory: Path, name: str) -> ModuleType:
    """The program as a real module file, so ``inspect.getsource`` finds its functions."""
    path = directory / f"{name}.py"
    path.write_text(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload(name: str) -> None:
    sys.modules.pop(name, None)


def describe(program: Program, what: str) -> str:
    return (f"{what}\n--- fuzz program (seed {program.seed}, features {program.features}, "
            f"wrt {program.wrt}) ---\n{program.source}")


def finite_differences(fn: Callable[..., Any], args: Sequence[Any], place: int) -> np.ndarray:
    """d fn / d args[place] by the suite's one central-difference helper (``tests/fd.py``)."""
    return numeric_gradient(fn, args, {}, place, eps=FD_STEP)


def _close(got: Any, want: np.ndarray, rtol: float, atol: float) -> bool:
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    return bool(np.allclose(got, want, rtol=rtol, atol=atol * scale))


def _positions(program: Program) -> list[int]:
    names = [f"x{k}" for k in range(len(program.arg_shapes))]
    return [w if isinstance(w, int) else names.index(w) for w in program.wrt]


def check(program: Program, module: ModuleType, seed: int, forward: bool) -> None:
    """Raises ``FuzzFailure`` (with the source) on any disagreement."""
    fn = module.f
    args = program.make_args(np.random.default_rng(seed))
    if program.must_reject:
        for optimize in (True, False):
            _expect_rejection(program, fn, args, optimize)
        return
    try:
        with np.errstate(all="raise"):  # the generator only writes domain-safe programs
            value = fn(*args)
    except FloatingPointError:
        return  # a rare overflowing program says nothing about derivatives
    if abs(value) > 1e8:
        return
    places = _positions(program)
    reference = [finite_differences(fn, args, p) for p in places]
    compiled: list[Any] = []
    for optimize in (True, False):
        got = _compiled(program, fn, args, optimize)
        compiled = compiled or got
        for k, (g, want, p) in enumerate(zip(got, reference, places)):
            if type(g) is not KIND_TYPES[program.arg_kinds[p]]:
                raise FuzzFailure(describe(
                    program, f"gradient {k} is a {type(g).__name__} for a "
                             f"{program.arg_kinds[p]} argument (optimize={optimize})"))
            if not _close(g, want, FD_RTOL, FD_ATOL):
                raise FuzzFailure(describe(
                    program, f"compiled gradient of x{p} (optimize={optimize}) differs from "
                             f"finite differences:\n got  {np.asarray(g)!r}\n want {want!r}"))
        if forward:
            _check_forward(program, fn, args, places, reference, optimize)
    _check_value_and_grad(program, fn, args, value, compiled)
    _check_runtime(program, fn, args, places, reference, compiled)


def _compiled(program: Program, fn, args, optimize: bool) -> list[Any]:
    snapshot = [np.array(a, copy=True) for a in args]
    try:
        result = sg.grad(fn, wrt=program.wrt, optimize=optimize)(*args)
    except sg.SrcGradError as error:
        raise FuzzFailure(describe(program, f"the compiler rejected a supported program "
                                            f"(optimize={optimize}): {error}")) from error
    except Exception as error:  # noqa: BLE001 - any other exception is the failure
        raise FuzzFailure(describe(program, f"sg.grad raised {type(error).__name__} "
                                            f"(optimize={optimize}):\n"
                                            f"{traceback.format_exc()}")) from error
    for k, (before, after) in enumerate(zip(snapshot, args)):
        if not np.array_equal(before, after, equal_nan=True):
            raise FuzzFailure(describe(program, f"sg.grad modified argument x{k} "
                                                f"(optimize={optimize})"))
    return list(result)


def _expect_rejection(program: Program, fn, args, optimize: bool) -> None:
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        sg.grad(fn, wrt=program.wrt, optimize=optimize)(*copies)
    except InternalCompilerError as error:  # a SrcGradError, but srcgrad's own bug
        raise FuzzFailure(describe(program, f"a program that must be rejected hit an internal "
                                            f"compiler error: {error}")) from error
    except sg.SrcGradError as error:
        _check_message(program, fn, str(error))
        return
    except Exception as error:  # noqa: BLE001
        raise FuzzFailure(describe(program, f"a program that must be rejected raised "
                                            f"{type(error).__name__}, not SrcGradError:\n"
                                            f"{traceback.format_exc()}")) from error
    raise FuzzFailure(describe(program, f"the compiler accepted a write it must reject "
                                        f"(optimize={optimize})"))


def _check_message(program: Program, fn, message: str) -> None:
    """The refusal names the user's file and the marked line (API.md §1 Errors)."""
    lines = program.source.splitlines()
    marked = [n for n, text in enumerate(lines, start=1) if text.endswith(REJECT)]
    if not marked:
        return
    where = f"{Path(fn.__code__.co_filename).name}:{marked[0]}"
    if where not in message:
        raise FuzzFailure(describe(program, f"the refusal does not point at {where}: "
                                            f"{message}"))


def _check_forward(program: Program, fn, args, places, reference, optimize: bool) -> None:
    rng = np.random.default_rng(len(program.source))
    for p, want in zip(places, reference):
        tangent = rng.standard_normal(np.shape(args[p]))
        if program.arg_kinds[p] != "array":
            tangent = KIND_TYPES[program.arg_kinds[p]](tangent)
        try:
            _, derivative = sg.jvp(fn, wrt=p, optimize=optimize)(*args, tangent)
        except Exception as error:  # noqa: BLE001
            raise FuzzFailure(describe(program, f"sg.jvp raised {type(error).__name__} "
                                                f"(optimize={optimize}):\n"
                                                f"{traceback.format_exc()}")) from error
        expected = np.array(np.sum(want * tangent))
        if not _close(derivative, expected, FD_RTOL, FD_ATOL * max(1, np.size(want))):
            raise FuzzFailure(describe(
                program, f"forward mode along x{p} (optimize={optimize}): {derivative!r}, "
                         f"finite differences {expected!r}"))


def _check_value_and_grad(program: Program, fn, args, value, compiled) -> None:
    got_value, got = sg.value_and_grad(fn, wrt=program.wrt)(*args)
    if not _close(got_value, np.array(value), EXACT_RTOL, EXACT_ATOL):
        raise FuzzFailure(describe(program, f"sg.value_and_grad's value {got_value!r} is not "
                                            f"f's value {value!r}"))
    for k, (g, want) in enumerate(zip(got, compiled)):
        if not _close(g, np.asarray(want, dtype=np.float64), EXACT_RTOL, EXACT_ATOL):
            raise FuzzFailure(describe(program, f"sg.value_and_grad's gradient {k} differs "
                                                f"from sg.grad's: {g!r} vs {want!r}"))


def _check_runtime(program: Program, fn, args, places, reference, compiled) -> None:
    tensors = [sg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in args]
    try:
        out = fn(*tensors)
        if isinstance(out, sg.Tensor) and out.requires_grad:
            out.backward()
    except Exception as error:  # noqa: BLE001
        raise FuzzFailure(describe(program, f"the runtime raised {type(error).__name__}:\n"
                                            f"{traceback.format_exc()}")) from error
    for p, want in zip(places, reference):
        grad = tensors[p].grad
        got = np.zeros(np.shape(args[p])) if grad is None else np.asarray(grad.detach())
        if not _close(got, want, FD_RTOL, FD_ATOL):
            raise FuzzFailure(describe(
                program, f"runtime gradient of x{p} differs from finite differences:\n"
                         f" got  {got!r}\n want {want!r}"))
    for p, exact in zip(places, compiled):  # two exact methods: equal up to rounding
        grad = tensors[p].grad
        got = np.zeros(np.shape(args[p])) if grad is None else np.asarray(grad.detach())
        if not _close(got, np.asarray(exact, dtype=np.float64), EXACT_RTOL, EXACT_ATOL):
            raise FuzzFailure(describe(
                program, f"runtime gradient of x{p} differs from the compiled one:\n"
                         f" runtime  {got!r}\n compiled {np.asarray(exact)!r}"))
