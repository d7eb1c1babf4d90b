"""Lowering calls: what a call in user code becomes, decided from the callee object.

In order: a method of a symbolic value (:mod:`.methods`); a nested ``def``/``lambda`` or a
user function with source (inlined: its body is lowered with the arguments bound, so it
is differentiated through: :mod:`.inlining`); a derived function (its IR is inlined); a
callable with a rule (``sg.defvjp`` rules win over source) -> one op; a Python builtin
(:mod:`.builtin_calls`); anything else is
an opaque ``call`` op, which is fine as long as no derivative must flow through it (both
transforms refuse it otherwise, pointing to ``sg.defvjp``: see ``ad/soundness.py``). Calls
with only compile-time arguments to pure functions run at compile time.

A list or tuple of traced values where NumPy reads an array is the array ``np.asarray``
makes of it (``symbolic.as_array``, applied by ``record_rule`` to every rule input); a list
a run-time loop built is ``stack_list`` of it there (:mod:`.runlists`).
"""

from __future__ import annotations

import builtins
import math
import operator
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from srcgrad.errors import SrcGradError
from srcgrad.rules import RULES, Rule, rule_for
from srcgrad.rules.multi import declared_tuple, multi_for

from .. import support
from ..ir import types as T
from ..ir.core import WRITTEN_AT
from ..primitives import Checkpointed, checkpoint, stop_gradient
from ..spelling import python_spelling
from ..structural import STRUCTURAL
from ..structure import is_plain_object
from ..symbolic import Sym, as_array, is_symbolic, record_rule, to_value
from . import (
    builtin_calls,
    checkpoints,
    derived,
    inlining,
    methods,
    multicalls,
    runlists,
)
from .captured import CapturedObject
from .context import (
    BoundMethod,
    LocalFunction,
)
from .policy import POLICY

if TYPE_CHECKING:
    from .lower import Lowerer

# methods that change a list or dict in place
# operator's functions as values (``functools.reduce(operator.mul, ...)``, ``op = operator.add``):
# lowered as the operator they are, with its Python semantics on floats
_OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
              operator.matmul, operator.floordiv, operator.mod)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort",
                       "reverse", "update", "setdefault", "popitem", "__setitem__",
                       "__delitem__", "__iadd__"})


def rule(name: str) -> Rule:
    """A primitive by name: the shared table first, then the compiler's structural ones."""
    return RULES[name] if name in RULES else STRUCTURAL[name]


def _note_views(lw: Lowerer, out: Any, args: list[Any]) -> None:
    """A view rule's results may share the memory of the first array it was given (the
    operand of ``einsum("ij->ji", a)``, not its subscripts), so a later write into either
    must be seen through the other (the aliasing check refuses it)."""
    source = next((a for a in args if isinstance(a, Sym)), None)
    if source is None:
        return
    for item in (out if isinstance(out, (tuple, list)) else (out,)):
        if isinstance(item, Sym):
            lw.ctx.note_view(item.value, source.value)


def call(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    try:
        return _call(lw, func, args, kwargs, node)
    except SrcGradError as e:
        if e.filename is None:
            raise lw.err(node, e.message, e.advice) from None
        raise


def _call(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    if isinstance(func, Checkpointed):
        return checkpoints.call(lw, func, args, kwargs, node)
    if func is checkpoint:
        return checkpoints.make(lw, args, kwargs, node)
    obj = func.value if isinstance(func, CapturedObject) else func
    if isinstance(func, CapturedObject) or is_plain_object(func):
        # `model(x)`, `self.layer(x)`: its class's __call__, differentiated through
        method = next((c.__dict__["__call__"] for c in type(obj).__mro__
                       if "__call__" in c.__dict__), None)
        if isinstance(method, types.FunctionType):
            return inlining.inline_user(lw, method, [func, *args], kwargs, node)
        raise lw.err(node, f"calling a {type(obj).__name__} object is not supported.",
                     "Call a function or method of it instead.")
    if func in (setattr, delattr):  # an attribute write, spelled as a call
        raise lw.err(node, f"{func.__name__}() is an attribute write: not supported (it "
                     "would change an object outside the function).",
                     "Keep the value in a local variable and return it.")
    if any(isinstance(a, CapturedObject) for a in args):
        if func is getattr and len(args) == 2 and isinstance(args[1], str):
            return args[0].attribute(lw, args[1], node)
        if func in (isinstance, type, hasattr, callable, id):  # about the object itself
            args = [a.value if isinstance(a, CapturedObject) else a for a in args]
    symbolic = is_symbolic(args) or is_symbolic(list(kwargs.values()))
    if isinstance(getattr(func, "__self__", None), (list, dict)):
        if func.__name__ in _MUTATORS and id(func.__self__) in lw.ctx.argument_containers:
            raise lw.err(node, f"`.{func.__name__}(...)` would mutate a "
                         f"{type(func.__self__).__name__} the function was given (derived "
                         "functions never modify their arguments or captured data).",
                         "Build a new one: items = list(items) + [x], or "
                         "new = {**params, 'W': W}.")
        return func(*args, **kwargs)  # a local list being built (.append): compile time
    if isinstance(func, BoundMethod):
        return methods.call_method(lw, func, args, kwargs, node)
    if isinstance(func, methods.RunTimeMethod):  # rng.randn(3) of an opaque rng
        out = opaque(lw, support.call_method, [func.obj, func.name, *args], kwargs)
        maker = func.obj.value.op.attrs.get("fn") if func.obj.value.op is not None else None
        what = getattr(maker, "__qualname__", None) or "an object made at run time"
        out.value.op.attrs["display"] = f"{what}(...).{func.name}"  # (for messages)
        return out
    if symbolic and isinstance(getattr(func, "__self__", None), np.ndarray):
        # a method of a compile-time array (a module global) given run-time values: the
        # array as an IR constant, so the method lowers like one of a symbolic array
        with lw.ctx.builder.at_line(lw.line_of(node)):
            receiver = Sym(to_value(func.__self__))
        method = attribute(lw, receiver, func.__name__, node)
        return call(lw, method, args, kwargs, node)
    if isinstance(func, LocalFunction):
        return inlining.inline_local(lw, func, args, kwargs, node)
    if symbolic and not kwargs and len(args) == 2 and any(func is f for f in _OPERATORS):
        return lw.binop(func, args[0], args[1], node)  # operator.mul(a, b) is a * b
    if symbolic and not kwargs and len(args) == 1 and func is operator.neg:
        return -args[0]
    if func is stop_gradient:
        return record_rule(rule("stop_gradient"), args, kwargs) if symbolic else args[0]
    if getattr(func, "__srcgrad__", None) is not None and hasattr(func.__srcgrad__, "inline_ir"):
        return derived.inline_derived(lw, func, args, kwargs, node)
    if getattr(func, "__srcgrad_transform__", None) is not None:
        return derived.apply_transform(lw, func, args, kwargs, node)
    if runlists.holds_run_list([*args, *kwargs.values()]):
        return runlists.run_list_call(lw, func, args, kwargs, node)
    if func in (np.array, np.asarray) and symbolic:
        return array_of(lw, func, args, kwargs, node)
    if symbolic and _is_builtin(func) and POLICY.should_run_builtin(func.__name__, args, True):
        return func(*args, **kwargs)  # len() of a list of run-time values: known now
    multi = multi_for(func)
    if multi is not None and symbolic:  # np.split, np.meshgrid: a tuple of item ops
        return multicalls.lower_multi(lw, multi, args, kwargs, node)
    declared = declared_tuple(func, args, kwargs) if symbolic else None
    if declared is not None:  # np.linalg.svd without item rules: a tuple of opaque items
        return multicalls.lower_declared(lw, func, args, kwargs, declared)
    r = rule_for(func)
    if r is not None:
        if not symbolic:
            result = func(*args, **kwargs)
            if not _made_at_run_time(result, func):
                return result
        if T.is_math_function(func):  # math.sqrt(-1.0) raises for the user, np.sqrt does not
            with python_spelling("math"):
                out = record_rule(r, args, kwargs, fn=func)
        else:
            out = record_rule(r, args, kwargs, fn=func)
        if r.view:
            _note_views(lw, out, [*args, *kwargs.values()])
        return out
    if _is_builtin(func):
        return builtin_calls.call_builtin(lw, func, args, kwargs, node)
    if isinstance(func, types.FunctionType):
        return inlining.inline_user(lw, func, args, kwargs, node)
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        # `model.predict(X)`: the class's function, differentiated through with `self`
        # (whose fields may be run-time values) as its first argument
        return inlining.inline_user(lw, func.__func__, [func.__self__, *args], kwargs, node)
    if _plain_record(func):  # Pair(a, b), Linear(W, b): a compile-time container
        return func(*args, **kwargs)
    if func is dict and not any(isinstance(a, Sym) for a in args):
        return dict(*args, **kwargs)  # dict(a=x), dict(params): a compile-time dict
    if isinstance(func, type) and func in (float, int, bool, list, tuple, range, enumerate,
                                           zip, slice, dict):
        return builtin_calls.call_builtin(lw, func, args, kwargs, node)
    if not symbolic and _pure(func):
        result = func(*args, **kwargs)
        if not _made_at_run_time(result, func):
            return result
        out = opaque(lw, func, args, kwargs)
        out.value.type = T.of_value(result)
        return out
    if isinstance(func, type) and issubclass(func, np.generic) and len(args) == 1:
        if not symbolic:
            return func(*args)
        return record_rule(rule("astype"), [args[0]], {"dtype": func})
    return opaque(lw, func, args, kwargs, node)


def _is_builtin(func: Any) -> bool:
    """Python's own builtin ``func`` (``len``, ``max``, ...), or ``math.prod``."""
    return isinstance(func, types.BuiltinFunctionType) and (
        getattr(builtins, func.__name__, None) is func or func is math.prod)


def _plain_record(cls: Any) -> bool:
    """A namedtuple class, or a dataclass whose generated ``__init__`` only stores its
    fields: constructed while compiling, its fields the values given (run-time or not)."""
    if not isinstance(cls, type):
        return False
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return cls.__new__ is not tuple.__new__ and "__init__" not in cls.__dict__
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.init and not hasattr(cls, "__post_init__")


def array_of(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any], node: Any) -> Any:
    """``np.array([a, b])`` -> ``stack``; ``np.array(x)`` -> ``copy`` (``asarray``: ``x``)."""
    if len(args) != 1 or set(kwargs) - {"dtype"}:
        raise lw.err(node, f"np.{func.__name__} is supported with one argument (and dtype=).")
    (data,) = args
    if isinstance(data, (list, tuple)):
        out = as_array(data)
    elif func is np.array:
        out = record_rule(rule("copy"), [data], {})
    else:
        out = data
    if kwargs.get("dtype") is not None:
        out = record_rule(rule("astype"), [out, kwargs["dtype"]], {})
    return out


def _made_at_run_time(result: Any, func: Any) -> bool:
    """An array built from constants (``np.zeros(3)``) is made by the emitted code, not
    baked in as a literal: it stays small in the text and is a fresh array each call (the
    function may write into it). Methods of constant arrays stay folded."""
    return (isinstance(result, np.ndarray) and result.ndim > 0
            and not isinstance(getattr(func, "__self__", None), np.ndarray))


def _pure(func: Any) -> bool:
    if isinstance(getattr(func, "__self__", None), (np.ndarray, np.generic)):
        return True  # a method of a constant array: computed at compile time
    module = getattr(func, "__module__", None) or ""
    if module.startswith("numpy.random") or "random" in getattr(func, "__name__", ""):
        return False
    # (operator's functions and its itemgetter/attrgetter: `key=itemgetter(0)` is made now)
    return module.startswith("numpy") or module in ("math", "operator", "_operator") or \
        isinstance(func, np.ufunc)


def call_numpy_name(lw: Lowerer, name: str, args: list[Any], kwargs: dict[str, Any],
                    node: Any) -> Any:
    return call(lw, getattr(np, name), args, kwargs, node)


def opaque(lw: Lowerer, func: Any, args: list[Any], kwargs: dict[str, Any],
           node: Any = None) -> Any:
    b = lw.ctx.builder
    operands = {"args": tuple(to_value(a) for a in args),
                "kwargs": tuple(to_value(v) for v in kwargs.values())}
    attrs = {"fn": func, "kwnames": tuple(kwargs)}
    if node is not None and lw.ctx.call_line is not None:
        # inlined from a called function: its ops carry the caller's line, so a refusal
        # of this call found later (no derivative rule) also names where it is written
        attrs[WRITTEN_AT] = (lw.parsed.filename, lw.parsed.file_line(node))
    op = b.emit("call", operands, attrs=attrs)
    return Sym(op.out)


def attribute(lw: Lowerer, obj: Any, name: str, node: Any) -> Any:
    if isinstance(obj, (list, tuple, dict)):
        try:
            return getattr(obj, name)
        except AttributeError:
            raise lw.err(node, multicalls.not_an_array(lw.ctx, obj, f"has no attribute `.{name}`"),
                         multicalls.NOT_AN_ARRAY_ADVICE) from None
    return methods.attribute(lw, obj, name, node)
