"""The tracer: symbolic values that record IR ops when NumPy code runs on them.

A :class:`Sym` wraps an IR :class:`~.ir.core.Value`. Operators, ``np.*`` functions (through
``__array_ufunc__`` / ``__array_function__``) and srcgrad's helper primitives (which
dispatch the same way, see ``srcgrad.rules.dispatch``) called on Syms append one op per
primitive to the active :class:`~.ir.builder.Builder`. That is how a rule's VJP body
becomes IR: the reverse transform calls it on Syms, so derivative math is never written
in the compiler. Plain Python values mixed in (``2 * x``, ``axis=0``) become ``const``
ops; calls on plain values alone run at trace time (static data). Each op's result type
comes from :mod:`.type_inference`, its semantics (Python's floats or NumPy's) from
:mod:`.spelling`.

    with Builder(block):
        y = np.cos(Sym(x)) * 2      # records cos(x=%x); multiply(x=%0, y=2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import Rule, rule_for, rule_named

from .ir import types as T
from .ir.builder import current
from .ir.core import PYTHON_SPELLING, USER_ARITHMETIC, Value, const_value
from .spelling import records_user_arithmetic, spelling_now
from .type_inference import infer_type


class Sym:
    """A symbolic array/scalar: NumPy code run on it records IR into the current builder."""

    __array_priority__ = 1000
    __srcgrad_primitives__ = True  # helper primitives record here too (rules/dispatch.py)
    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Sym({self.value!r}: {self.value.type})"

    @property
    def __srcgrad_ndim__(self) -> int | None:
        """The rank its abstract type knows (None: unknown, or no array or number): read by
        a rule that tells its call forms apart by it (``np.einsum``'s sublist form)."""
        t = self.value.type
        return t.known_ndim if t is not None else None

    # --- NumPy protocols ------------------------------------------------------------
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__":
            raise SrcGradError(f"np.{ufunc.__name__}.{method} cannot be differentiated",
                               advice="Use the plain function call.")
        return record_call(ufunc, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return record_call(func, args, kwargs)

    # --- operators ------------------------------------------------------------------
    def __add__(self, o: Any) -> Any: return _binop("add", self, o)
    def __radd__(self, o: Any) -> Any: return _binop("add", o, self)
    def __sub__(self, o: Any) -> Any: return _binop("subtract", self, o)
    def __rsub__(self, o: Any) -> Any: return _binop("subtract", o, self)
    def __mul__(self, o: Any) -> Any: return _binop("multiply", self, o)
    def __rmul__(self, o: Any) -> Any: return _binop("multiply", o, self)
    def __truediv__(self, o: Any) -> Any: return _binop("divide", self, o)
    def __rtruediv__(self, o: Any) -> Any: return _binop("divide", o, self)
    def __pow__(self, o: Any) -> Any: return _binop("power", self, o)
    def __rpow__(self, o: Any) -> Any: return _binop("power", o, self)
    def __matmul__(self, o: Any) -> Any: return _binop("matmul", self, o)
    def __rmatmul__(self, o: Any) -> Any: return _binop("matmul", o, self)
    def __lt__(self, o: Any) -> Any: return _binop("less", self, o)
    def __le__(self, o: Any) -> Any: return _binop("less_equal", self, o)
    def __gt__(self, o: Any) -> Any: return _binop("greater", self, o)
    def __ge__(self, o: Any) -> Any: return _binop("greater_equal", self, o)
    def __eq__(self, o: Any) -> Any: return _binop("equal", self, o)  # type: ignore[override]
    def __ne__(self, o: Any) -> Any: return _binop("not_equal", self, o)  # type: ignore[override]
    def __and__(self, o: Any) -> Any: return _binop("logical_and", self, o)
    def __rand__(self, o: Any) -> Any: return _binop("logical_and", o, self)
    def __or__(self, o: Any) -> Any: return _binop("logical_or", self, o)
    def __ror__(self, o: Any) -> Any: return _binop("logical_or", o, self)
    def __neg__(self) -> Any: return record_rule(rule_named("negative"), [self], {})
    def __pos__(self) -> Any: return self
    def __abs__(self) -> Any: return record_rule(rule_named("absolute"), [self], {})
    def __invert__(self) -> Any: return record_rule(rule_named("logical_not"), [self], {})
    __hash__ = object.__hash__

    def __getitem__(self, index: Any) -> Any:
        return record_rule(rule_named("getitem"), [self], {"index": index})

    def __bool__(self) -> bool:
        raise SrcGradError("a value known only at run time was used where a Python bool "
                           "is needed (an `if`, `and`/`or`, or `while` on it)",
                           advice="Use np.where(condition, a, b) for elementwise choices.")

    def __iter__(self) -> Any:
        raise SrcGradError("iterating over an array is control flow, not supported here",
                           advice="Index it explicitly (x[0], x[1]) or use NumPy functions.")

    def __float__(self) -> float:
        raise SrcGradError("float() of a value known only at run time at trace time")

    @staticmethod
    def __srcgrad_rule_body__(rule: Callable[..., Any], args: list[Any],
                              kwargs: dict[str, Any]) -> Any:
        """Run a user's derivative rule (``sg.defvjp``) on symbolic values: lowered by the
        frontend, which knows ``x.T``, ``len(x)``, ``np.eye(n)``... (see ``rules/user.py``)."""
        from .frontend.rule_bodies import trace_rule_body  # the frontend imports this module
        return trace_rule_body(rule, args, kwargs)


class CapturedSym(Sym):
    """A captured value read at run time (frontend/captured.py) that a rule may also need
    as a constant, as a static parameter (norm's ``ord``, var's ``ddof``): :meth:`static`
    gives the value it has now, after ``on_static`` has recorded that the compiled code
    assumes exactly that value (the dispatcher guards it; a change recompiles)."""

    __slots__ = ("now", "on_static")

    def __init__(self, value: Value, now: Any, on_static: Callable[[], None]) -> None:
        super().__init__(value)
        self.now = now
        self.on_static = on_static

    def static(self) -> Any:
        self.on_static()
        return self.now


def _binop(name: str, a: Any, b: Any) -> Any:
    return record_rule(rule_named(name), [a, b], {})


# --- turning Python objects into IR operands ------------------------------------------

def is_symbolic(obj: Any) -> bool:
    if isinstance(obj, Sym):
        return True
    if isinstance(obj, (tuple, list)):
        return any(is_symbolic(o) for o in obj)
    if isinstance(obj, slice):
        return any(is_symbolic(o) for o in (obj.start, obj.stop, obj.step))
    if isinstance(obj, np.ndarray) and obj.dtype == object:  # NumPy filled it with Syms
        return any(is_symbolic(o) for o in obj.flat)
    return False


def _holds_sym(obj: Any) -> bool:
    """A Sym anywhere inside ``obj``: tuples, lists, dicts, sets, dataclass fields."""
    if is_symbolic(obj):
        return True
    if isinstance(obj, dict):
        return any(_holds_sym(o) for o in obj.values())
    if isinstance(obj, (set, frozenset, tuple, list)):
        return any(_holds_sym(o) for o in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return any(_holds_sym(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    return False


def to_value(obj: Any) -> Value:
    """The IR value for ``obj``: a Sym's value, a ``const`` op, or a packing op.

    A container holding Syms that no packing op can rebuild (a dict, a set, a dataclass)
    is refused: as a ``const`` it would hide a run-time value inside compile-time data.
    """
    if isinstance(obj, Sym):
        return obj.value
    b = current()
    if isinstance(obj, np.ndarray) and is_symbolic(obj):
        raise SrcGradError(
            "NumPy made an array of objects out of values known only at run time here.",
            advice="Build the array with np.array([...]) or np.stack([...]) first.")
    if isinstance(obj, (tuple, list)) and _holds_sym(obj):
        prim = "make_tuple" if isinstance(obj, tuple) else "make_list"
        items = tuple(to_value(o) for o in obj)
        return b.emit(prim, {"items": items}, types=[T.STATIC]).out
    if isinstance(obj, slice) and is_symbolic(obj):
        parts = {k: to_value(getattr(obj, k)) for k in ("start", "stop", "step")}
        return b.emit("make_slice", parts, types=[T.STATIC]).out
    what = getattr(type(obj), "srcgrad_unpassable", None)  # a lowering placeholder
    if what is not None:
        raise SrcGradError(f"{what} cannot be passed here.",
                           advice="Make it an array first: arr = np.stack(items).")
    if isinstance(obj, (dict, set, frozenset)) or dataclasses.is_dataclass(obj):
        if _holds_sym(obj):
            raise SrcGradError(
                f"a {type(obj).__name__} holding values known only at run time cannot be "
                "passed here: srcgrad passes tuples and lists of such values, not other "
                "containers.",
                advice="Pass the values themselves, or a tuple or list of them "
                       "(np.stack([...]) for an array).")
    return b.const(obj)


def as_array(items: list[Any] | tuple[Any, ...]) -> Sym:
    """``np.asarray(items)`` for a (nested) list or tuple holding Syms: a ``stack`` per
    level, so each item keeps its derivative (NumPy builds the same array from it)."""
    parts = [as_array(o) if isinstance(o, (list, tuple)) and is_symbolic(o) else o
             for o in items]
    return record_rule(rule_named("stack"), [parts], {})


def static_or_sym(v: Value) -> Any:
    """What a rule body sees for ``v``: its constant if it has one, else a Sym."""
    is_const, c = const_value(v)
    return c if is_const else Sym(v)


# --- recording ---------------------------------------------------------------------------

def record_call(fn: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """Record ``fn(*args, **kwargs)`` as the op of ``fn``'s rule; a Sym."""
    rule = rule_for(fn)
    if rule is None:
        name = getattr(fn, "__name__", repr(fn))
        raise SrcGradError(f"no derivative rule for {name}",
                           advice="Register one with sg.defvjp.")
    return record_rule(rule, list(args), dict(kwargs), fn=fn)


def record_rule(rule: Rule, args: list[Any], kwargs: dict[str, Any], *,
                fn: Any = None) -> Any:
    """Bind a call in the rule's public form (``rule.bind``) and append its op."""
    try:
        env = rule.bind(list(args), kwargs)
    except (TypeError, ValueError) as e:  # (ValueError: a spelling the rule refuses)
        raise SrcGradError(str(e), advice="Check the call's arguments.") from None
    if rule.variadic is not None and isinstance(env[rule.variadic], Sym):
        return _joined_rows(rule, env)
    # a captured value read at run time, given where the rule needs a constant: its value
    env = {k: _static(v) if k in rule.params else v for k, v in env.items()}
    if rule.resolve is not None:
        env = _resolve(rule, env)
    operands = {k: _operand(rule, k, env[k]) for k in (*rule.inputs, *rule.params)}
    out_type = infer_type(rule, operands)
    attrs: dict[str, Any] = {"rule": rule}
    if rule.user and fn is not None:
        attrs["callee"] = fn
    spelled = spelling_now()
    if spelled:
        attrs[PYTHON_SPELLING] = spelled
        if records_user_arithmetic():
            attrs[USER_ARITHMETIC] = True
    op = current().emit(rule.name, operands, attrs=attrs, types=[out_type])
    return Sym(op.out)


def python_not(v: Sym) -> Any:
    """``not v``: on a number (Python's, or a NumPy scalar such as the ``np.bool_`` a
    comparison is typed) Python's own ``not``, a bool as the user's code gives, printed
    ``not v``; on anything else NumPy's ``logical_not``, elementwise."""
    t = v.value.type
    if t is not None and (t.is_python_number or t.kind == "scalar"):
        from .structural import STRUCTURAL

        return record_rule(STRUCTURAL["not"], [v], {})
    return ~v


def _joined_rows(rule: Rule, env: dict[str, Any]) -> Any:
    """``np.vstack(A)``: one array where a sequence of arrays goes means its rows (NumPy
    iterates over the first axis). Its length is known only at run time, so the rows
    cannot be separate operands: the joining rule that takes the array whole records it."""
    joined = rule_named("joined_rows")
    args, kwargs = [env[rule.variadic], rule.name], {k: env[k] for k in rule.params}
    try:
        joined.bind(args, kwargs)  # (a function it does not join: ValueError)
    except (TypeError, ValueError):
        raise SrcGradError(f"{rule.name}: {rule.variadic} must be a list or tuple of arrays "
                           "here", advice="Pass the arrays as a list: np.stack([a, b]).") from None
    return record_rule(joined, args, kwargs)


def _resolve(rule: Rule, env: dict[str, Any]) -> dict[str, Any]:
    """``env`` with the params ``rule.resolve`` makes explicit from the inputs' ndims (known
    from their abstract types now, at compile time)."""
    def ndim(v: Any) -> int | None:
        if isinstance(v, Sym):
            return v.value.type.known_ndim if v.value.type is not None else None
        return None if is_symbolic(v) else int(np.ndim(v))

    params = {p: env[p] for p in rule.params}
    try:
        resolved = rule.resolve(params, {k: ndim(env[k]) for k in rule.inputs})
    except ValueError as e:  # a rule may attach its advice to the error (``e.advice``)
        raise SrcGradError(str(e), advice=getattr(e, "advice", None)
                           or "Check the call's arguments.") from None
    return {**env, **resolved}


def _operand(rule: Rule, name: str, v: Any) -> Any:
    if name == rule.variadic or name == rule.call_form.star:
        if not isinstance(v, (list, tuple)):
            raise SrcGradError(f"{rule.name}: {name} must be a list or tuple of arrays here",
                               advice="Pass the arrays as a list: np.stack([a, b]).")
        return tuple(to_value(_array_like(rule, x)) for x in v)
    return to_value(_array_like(rule, v) if name in rule.inputs else v)


def _static(v: Any) -> Any:
    """A static parameter's value: a captured value read at run time is taken as the
    constant it is now (its :meth:`CapturedSym.static` records the assumption)."""
    if isinstance(v, CapturedSym):
        return v.static()
    if type(v) in (tuple, list) and any(isinstance(x, CapturedSym) for x in v):
        return type(v)(_static(x) for x in v)
    return v


static_value = _static  # for the frontend's tuple-returning calls (frontend/multicalls.py)


def _array_like(rule: Rule, v: Any) -> Any:
    """A NumPy function reads a list or tuple where it takes an array as ``np.asarray``
    does: one holding Syms becomes that array (``stack``), so activity flows through it.
    A static parameter keeps its Python value (a shape, axes), and a user's function
    (``sg.defvjp``) gets what it was given: a list it receives is its own business."""
    if isinstance(v, np.ndarray) and is_symbolic(v):  # an object array of Syms
        v = v.tolist()
    if rule.user or not isinstance(v, (list, tuple)):
        return v
    if is_symbolic(v):
        return as_array(v)
    return _constant_array(v)


def _constant_array(v: list[Any] | tuple[Any, ...]) -> Any:
    """A list of plain numbers at an array input is the array NumPy would read: derivative
    rules do arithmetic on their inputs (``y - 1`` in power's), which a list does not
    support. Anything NumPy would not read as numbers stays as it was given."""
    try:
        array = np.asarray(v)
    except (ValueError, TypeError):
        return v
    return array if array.dtype.kind in "biuf" else v
