"""Which semantics a recorded op has: Python's floats or NumPy's (and the ``math`` twin).

The tracer (:mod:`.symbolic`) marks the ops the user spelled with Python operators or
``math.*`` calls while :func:`python_spelling` is active (the frontend enters it around the
user's operators); the AD transforms trace a derivative in :func:`derivative_spelling`;
the backend and passes read the mark (:func:`has_python_spelling`) and the ``math`` twin a
rule may print as (:func:`uses_math_spelling`), and type inference (:mod:`.type_inference`)
types an op the way its spelling computes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np

from srcgrad.rules import Rule

from .ir import types as T
from .ir.core import PYTHON_SPELLING, Value

# Ops the user spelled with Python's float semantics (an operator or a ``math.*`` call) are
# marked PYTHON_SPELLING: on Python floats they may raise (``1.0 / 0.0``), as the user's code
# would. Every other op (``np.*`` calls, all derivative code) keeps NumPy's semantics
# (inf/nan) even where the backend prints a fast Python spelling for it.
_spelling: list[str] = [""]
# True while an AD transform traces a derivative: what it records is srcgrad's code, not
# the user's arithmetic, whatever its spelling (``is_user_arithmetic``).
_in_derivative: list[bool] = [False]


@contextmanager
def python_spelling(kind: str = "operator") -> Iterator[None]:
    """Ops recorded inside are the user's operators (``kind`` "operator") or ``math.*``
    calls ("math"), see above."""
    saved = _spelling[0]
    _spelling[0] = kind
    try:
        yield
    finally:
        _spelling[0] = saved


def spelling_now() -> str:
    """The spelling of the ops recorded now: "operator", "math", or "" (NumPy's)."""
    return _spelling[0]


def has_python_spelling(attrs: dict[str, Any]) -> bool:
    return bool(attrs.get(PYTHON_SPELLING))


def records_user_arithmetic() -> bool:
    """An op recorded now with a Python spelling is the user's own arithmetic (the
    frontend lowering the user's code), not a derivative traced in that spelling."""
    return bool(_spelling[0]) and not _in_derivative[0]


@contextmanager
def derivative_spelling(rule: Rule, attrs: dict[str, Any]) -> Iterator[None]:
    """The context to trace the derivative of an op in: the derivative of a user's
    Python-spelled op keeps that spelling when the rule says its formulas cannot raise
    where the primal did not (``Rule.safe_python_derivative``: no NumPy fallback needed)."""
    saved = _in_derivative[0]
    _in_derivative[0] = True
    spelled = has_python_spelling(attrs) and rule.safe_python_derivative
    try:
        # (its operators and math twins, as the rule writes them)
        with python_spelling() if spelled else nullcontext():
            yield
    finally:
        _in_derivative[0] = saved


def uses_math_spelling(rule: Rule, operands: dict[str, Any],
                       python_spelled: bool = False) -> Any:
    """The ``math`` twin of ``rule`` if every input is a Python number, else None.

    ``python_spelled``: the op is the user's own ``math.*`` call (or its derivative, which
    keeps that spelling): then a float64 NumPy scalar input also takes the twin, as in the
    user's code (``math.sin(np.float64(0.5))`` is a Python float; ``np.sin`` on a NumPy
    scalar costs twenty times more, per step of a scalar loop)."""
    twin = _math_twin(rule)
    if twin is None:
        return None
    if twin in _INT_RESULT_TWINS and not python_spelled:
        # math.floor(-0.2) is the int 0, np.floor(-0.2) the float -0.0 (and inf/nan stay
        # floats): only the user's own math.floor may print as it
        return None
    for k in rule.inputs:
        v = operands.get(k)
        if v is None or not isinstance(v, Value):
            continue
        t = v.type
        if t is None or not (t.is_python_number or (python_spelled and _float64_scalar(t))):
            return None
    return twin


# rule id -> (the rule, its ``math`` twin or None): asked for every op traced and emitted;
# the rule is kept so that its id is never another's
_TWINS: dict[int, tuple[Rule, Any]] = {}


def _math_twin(rule: Rule) -> Any:
    kept = _TWINS.get(id(rule))
    if kept is None:
        kept = _TWINS[id(rule)] = (rule, next(
            (a for a in rule.aliases if T.is_math_function(a)), None))
    return kept[1]


# ``math`` twins whose result is an int where NumPy's ufunc gives a float
_INT_RESULT_TWINS = frozenset({math.floor, math.ceil, math.trunc})


def _float64_scalar(t: T.AType) -> bool:
    return t.kind == "scalar" and t.dtype is not None and np.dtype(t.dtype) == np.float64
