"""Lowering ``a is b``, ``a is not b`` and ``isinstance(a, cls)`` where ``a`` is a value
known only at run time.

Python's identity is about objects, and a symbolic value (:class:`~..symbolic.Sym`) is a
compile-time stand-in, not the run-time object: comparing it with ``operator.is_`` would
answer a question about the stand-in (always "not None"), a silently wrong branch. So:

- against ``None``, the value's abstract type decides at compile time: a float, int, bool,
  NumPy scalar or ndarray is never ``None`` (a ``None`` argument is not symbolic at all: it
  has its own compiled version, see ``signature.key_of``). Only where the type is unknown
  (the generic version) is the test left to run time, as the ``is_none`` op;
- any other identity between a run-time value and something else is refused: whether two
  arrays are the same object is not something a derivative can depend on;
- ``isinstance`` folds where the abstract type fixes the run-time class (a Python float,
  int or bool, a NumPy scalar of a dtype, an ndarray): it is asked of an example value of
  that type; on a container (a dict or tuple argument, a list built while compiling) Python
  answers. Where the type is unknown it is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir import types as T
from ..structural import STRUCTURAL
from ..symbolic import Sym, is_symbolic, record_rule

if TYPE_CHECKING:
    from .lower import Lowerer

_KNOWN_NOT_NONE = ("float", "int", "bool", "scalar", "array")


def is_identity(lw: Lowerer, left: Any, right: Any, negate: bool, node: Any) -> Any:
    """``left is right`` (``is not`` when ``negate``); a bool or a run-time bool Sym."""
    if not (is_symbolic(left) or is_symbolic(right)):
        return (left is not right) if negate else (left is right)
    value = right if left is None else left if right is None else None
    if value is not None and not isinstance(value, Sym):
        return negate  # a compile-time container holding run-time values is not None
    if not isinstance(value, Sym):
        op = "is not" if negate else "is"
        raise lw.err(node, f"`{op}` between a value known only at run time and another "
                           "object is not supported in a differentiated function (it "
                           "compares object identities, not values).",
                     "Compare values with == / != (or np.array_equal), or test `is None`.")
    t = value.value.type or T.ANY
    if t.kind in _KNOWN_NOT_NONE:
        return negate
    if t.kind == "none":
        return not negate
    test = record_rule(STRUCTURAL["is_none"], [value], {})
    return ~test if negate else test


def is_instance(lw: Lowerer, value: Any, classes: Any, node: Any) -> bool:
    """``isinstance(value, classes)`` for a symbolic ``value`` of known type."""
    if is_symbolic(classes):
        raise lw.err(node, "isinstance() with a class known only at run time is not "
                           "supported in a differentiated function.",
                     "Test against a class named in the code (np.ndarray, float, dict...).")
    if not isinstance(value, Sym):
        # a container the function was given or built (a dict of parameters, a tuple): a
        # compile-time object of the user's own class, so Python answers exactly. The
        # frontend's stand-ins (a list built at run time, enumerate()/zip() over run-time
        # values, a nested def) are not what the user's object will be at run time.
        if type(value).__module__.startswith("srcgrad."):
            raise lw.err(node, "isinstance() on a value whose class is known only at run "
                               "time (a list built by a run-time loop, enumerate()/zip() "
                               "over run-time values, a local function) is not supported.",
                         "Decide outside the differentiated function, or test the items.")
        try:
            return isinstance(value, classes)
        except TypeError as e:
            raise lw.err(node, f"isinstance(): {e}") from None
    t = value.value.type or T.ANY
    if t.kind not in _KNOWN_NOT_NONE:
        what = ("the generic version, for array types srcgrad does not specialise on"
                if t.kind == "any" else str(t))
        raise lw.err(node, "isinstance() on a value whose type is not known when compiling "
                           f"({what}) is not supported in a differentiated function.",
                     "Pass a float or an ndarray, or decide outside the function.")
    try:
        return isinstance(T.example(t), classes)
    except TypeError as e:
        raise lw.err(node, f"isinstance(): {e}") from None
