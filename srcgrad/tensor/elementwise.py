"""The elementwise fast paths of recording (``x * y``, ``x + 0.5``, ``x.sin()``): one
generated function per rule, which is the Tensor method itself.

The runtime's hot path (:mod:`.ops` says where it sits). An op computes its result in
this thread's quiet context (:mod:`..autograd.fp_errors`), wraps it and, when an input
needs grad, records a node. For the forms where nothing is to unbroadcast or cast back
(both operands of one float dtype and shape, or a float tensor and a Python number), the
node is recorded by its plan's ``quick`` builder; once that builder is written out
(:mod:`..autograd.specialize`), its lines are written into the op itself
(``fused_record``), so an op that records makes one Python call, not two, and the result
tensor is made once with its node. Plans are made on first use, so an op is written
again when it meets a new one (``_fuse``): the code of the op and of every function made
from it (the operator methods, :func:`named`) is swapped in place; the others still call
``plan.quick``. With the switch off (``SRCGRAD_SPECIALIZE=0``, ``set_specialized``) the
written-in lines are skipped at run time and the generic builders run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd import specialize as _switch
from ..autograd.fp_errors import QUIET, quietly
from ..autograd.grad_mode import STATE
from ..autograd.specialize import fused_record
from ..rules.registry import ELEMENTWISE, NONDIFF
from .nodes import view_requires
from .operands import S32 as _S32
from .operands import S64 as _S64
from .operands import broadcast_message as _broadcast_message
from .operands import scalar_array as _scalar_array
from .operands import scalars as _scalars
from .spec import Spec, promote, spec_for

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_NUMERIC = "biufc"  # dtype kinds whose ufunc loops are NumPy's own (no Python objects)
_SCALARS = (float, int)
# A Python int meeting a float tensor is a weak scalar too: NumPy casts it to the tensor's
# dtype per operation (~0.5 us on small arrays, forward and in the backward that saves
# it), so the usual forms pass it as the shared 0-d array of its value, as a float. Up to
# 2**24 every int is exact in float32 and float64, so that array holds NumPy's own cast.
_EXACT = 2 ** 24
_ONE = (True,)

# every slot of a plain result tensor (tensor.py), at the op's indentation
_PLAIN = """\
    result = new(tensor)
    result._data = out
    result._vc = [0]
    result._grad_fn = result._base = result._acc = None
    result._rg = False
    result._output_nr = 0
"""


def _indent(text: str, by: int) -> str:
    return "".join(" " * by + line if line.strip() else line
                   for line in text.splitlines(keepends=True))


_UNARY = """\
def op(self):
    a = self
    x = a._data
    dt = x.dtype
    if dt is F32 or dt is F64:  # (identity first: the kind of a dtype is slower)
        plain = True
    else:
        if float_result and dt.kind != "f":
            x = x.astype(F32)
        plain = x.dtype.kind in NUMERIC
    # nan/inf are values, not warnings (PyTorch): in this thread's quiet context when only
    # NumPy's loops run (fp_errors), else by setting the error state around it
    if plain and type(x) is ndarray:
        try:
            out = QUIET.run(direct, x)
        except RuntimeError:  # the context is in use: an op run from inside one
            out = quietly(direct, x)
    else:
        out = quietly(impl, x)
    if type(out) is not ndarray:
        out = asarray(out)
    # a view may require grad without knowing it yet (nodes.view_requires)
    if (a._rg or a._base is not None and view_requires(a)) and STATE.enabled:
        if out.dtype is dt:  # nothing to cast back (dt: the input's): the quick builder
{fused}\
            plan = quick_plans[1] or plan_for(1, spec, True, False, True)
{plain_quick}\
            plan.quick(result, a)
            return result
        plan = plans[1] or plan_for(1, spec, True, False, False)
{plain_build}\
        plan.build((a,), (a,), (a._data,), result, None)
        return result
{plain}\
    return result
"""

_BINARY = """\
def op(self, other):
    a, b = self, other
    # The usual forms first, each written out to its end: a Tensor of one of the two usual
    # float dtypes with another of the same dtype, or with a Python number on either side
    # (the general code below decides the same, with more checks). ``also``: a subclass
    # whose operands are plain Tensors here (``nn.Parameter``: register_operand_class)
    kind = type(a)
    if kind is tensor or kind is also:
        x = a._data
        dt = x.dtype
        if dt is F32 or dt is F64:
            kind = type(b)
            if kind is tensor or kind is also:
                y = b._data
                if y.dtype is dt:
{tail_3}\
            elif kind is float:
                y = b = (S32 if dt is F32 else S64).get(b) or scalar_array(b, dt)
{tail_2}\
            elif kind is int:  # (a 0-d array too where the dtype holds it exactly)
                if -EXACT <= b <= EXACT:
                    y = b = (S32 if dt is F32 else S64).get(b) or scalar_array(b, dt)
                else:
                    y = b
{tail_2}\
    elif (kind := type(b)) is tensor or kind is also:
        y = b._data
        dt = y.dtype
        if dt is F32 or dt is F64:
            kind = type(a)
            if kind is float:
                x = a = (S32 if dt is F32 else S64).get(a) or scalar_array(a, dt)
{tail_1}\
            elif kind is int:
                if -EXACT <= a <= EXACT:
                    x = a = (S32 if dt is F32 else S64).get(a) or scalar_array(a, dt)
                else:
                    x = a
{tail_1}\
    ta = type(a) is tensor or isinstance(a, tensor)
    tb = type(b) is tensor or isinstance(b, tensor)
    x = a._data if ta else a
    y = b._data if tb else b
    # the Spec per call form, at 2 * (a is a Tensor) + (b is a Tensor): an index, where a
    # dict would hash a fresh tuple per operation
    form = 2 * ta + tb
    spec = forms[form]
    if spec is None:
        spec = forms[form] = spec_for(rule, (ta, tb))
    if ta and tb:
        dt = x.dtype  # (identity first: the kind of a dtype is a slower attribute)
        # (other dtypes than numbers, whose ufunc loops call Python, take the general
        # path: it does not run in the quiet context, see below)
        fast = dt is y.dtype and (dt is F32 or dt is F64 or dt.kind == "f" or
                                  not spec.float_result and dt.kind in NUMERIC)
    elif ta:
        dt = x.dtype
        fast = type(y) in SCALARS and (dt is F32 or dt is F64 or dt.kind == "f")
        if fast and type(y) is float:
            cache = S32 if dt is F32 else S64 if dt is F64 else scalars(dt)
            y = b = cache.get(y) or scalar_array(y, dt)
    else:
        dt = y.dtype
        fast = type(x) in SCALARS and (dt is F32 or dt is F64 or dt.kind == "f")
        if fast and type(x) is float:
            cache = S32 if dt is F32 else S64 if dt is F64 else scalars(dt)
            x = a = cache.get(x) or scalar_array(x, dt)
    if not fast:
        if not (ta or isinstance(x, (int, float, bool, ndarray, generic))) or \\
                not (tb or isinstance(y, (int, float, bool, ndarray, generic))):
            raise TypeError(f"unsupported operand types for {{spec.rule.name}}: "
                            f"{{type(a).__name__}} and {{type(b).__name__}}")
        x, y = promote(spec, (x, y))  # (the node reads the inputs' own dtypes)
    # nan/inf are values, not warnings: the fast forms (numbers only: NumPy's loops alone
    # run) in this thread's quiet context, the others by setting the error state
    call = spec.impl
    try:
        if fast:
            try:
                out = QUIET.run(call, x, y)
            except RuntimeError:  # the context is in use: an op run from inside one
                out = quietly(call, x, y)
        else:
            out = quietly(call, x, y)
    except ValueError as e:
        if "broadcast" not in str(e):
            raise
        raise RuntimeError(broadcast_message(x, y)) from None
    if type(out) is not ndarray:
        out = asarray(out)
    ra = ta and (a._rg or a._base is not None and view_requires(a))
    rb = tb and (b._rg or b._base is not None and view_requires(b))
    if (ra or rb) and STATE.enabled and spec.differentiable:
        # the plan per call form and inputs needing grad, at 4 * form + 2 * ra + rb
        k = 4 * form + 2 * ra + rb
        # quick: nothing to unbroadcast or cast back (see specialize). Elementwise: a
        # number or 0-d array takes the tensor's shape; two tensors, their common one
        if fast and out.dtype is dt and elementwise and (not (ta and tb) or
                                                         x.shape == y.shape):
{fused}\
            plan = quick_plans[k] or plan_for(k, spec, ra, rb, True)
{plain_quick}\
            plan.quick(result, a, b)  # (a number operand is its own array here)
            return result
        plan = plans[k] or plan_for(k, spec, ra, rb, False)
{plain_build}\
        plan.build((a, b), (a, b), (a._data if ta else x, b._data if tb else y), result,
                   None)
        return result
{plain}\
    return result
"""

# the end of one usual form of a binary op (form = 2 * (a is a Tensor) + (b is a Tensor)):
# its operands x, y are arrays (or a Python int) of dtype dt; {requires} says which need grad
_TAIL = """\
try:  # (quiet: see the general code)
    try:
        out = QUIET.run(impl, x, y)
    except RuntimeError:
        out = quietly(impl, x, y)
except ValueError as e:
    if "broadcast" not in str(e):
        raise
    raise RuntimeError(broadcast_message(x, y)) from None
if type(out) is not ndarray:
    out = asarray(out)
{requires}\
if (ra or rb) and STATE.enabled and differentiable:
    k = {k0} + 2 * ra + rb
    if out.dtype is dt and elementwise{same_shape}:
{fused}\
        plan = quick_plans[k] or plan_for(k, forms[{form}] or spec_of({form}), ra, rb, True)
{plain_quick}\
        plan.quick(result, a, b)
        return result
    plan = plans[k] or plan_for(k, forms[{form}] or spec_of({form}), ra, rb, False)
{plain_build}\
    plan.build((a, b), (a, b), (x, y), result, None)  # (a number: its own array)
    return result
{plain}\
return result
"""

_REQUIRES = {
    3: "ra = a._rg or a._base is not None and view_requires(a)\n"
       "rb = b._rg or b._base is not None and view_requires(b)\n",
    2: "ra = a._rg or a._base is not None and view_requires(a)\nrb = False\n",
    1: "ra = False\nrb = b._rg or b._base is not None and view_requires(b)\n",
}


def _tail(form: int, fused: str, depth: int) -> str:
    """The written-out end of usual form ``form``, at ``depth`` spaces."""
    text = _TAIL.format(
        form=form,
        requires=_REQUIRES[form], k0=4 * form,
        same_shape=" and x.shape == y.shape" if form == 3 else "",
        fused=_indent(fused, 8), plain=_dedent(_PLAIN),
        plain_quick=_indent(_dedent(_PLAIN), 8), plain_build=_indent(_dedent(_PLAIN), 4))
    return _indent(text, depth)


def _dedent(text: str) -> str:
    return "".join(line[4:] if line.startswith("    ") else line
                   for line in text.splitlines(keepends=True))


_NAMESPACES: list[dict[str, Any]] = []  # every op's, to bind the Tensor class into


def bind_tensor(cls: type) -> None:
    """The Tensor class, once it exists (the ops are made while its methods are)."""
    _COMMON["tensor"] = cls
    for namespace in _NAMESPACES:
        namespace["tensor"] = cls


class _NoSubclass:
    """What ``also`` is until a subclass is registered (no operand is of this type)."""


def register_operand_class(cls: type) -> None:
    """Let a Tensor subclass that changes no operation (``nn.Parameter``: a leaf that a
    Module registers) take the binary ops' written-out forms as a Tensor does: the
    general code would give the same result (a plain Tensor, the same node) with more
    checks. One such class (the last registered)."""
    _COMMON["also"] = cls
    for namespace in _NAMESPACES:
        namespace["also"] = cls


_COMMON: dict[str, Any] = {
    "F32": _F32, "F64": _F64, "NUMERIC": _NUMERIC, "SCALARS": _SCALARS, "QUIET": QUIET,
    "quietly": quietly, "STATE": STATE, "switch": _switch, "view_requires": view_requires,
    "spec_for": spec_for, "promote": promote, "ndarray": np.ndarray, "generic": np.generic,
    "asarray": np.asarray, "new": object.__new__, "tensor": None, "also": _NoSubclass,
}


def unary_op(spec: Spec) -> Callable[[Any], Any]:
    """A differentiable elementwise one-input op as a function of its Tensor (``sin``,
    ``exp``...): Tensor methods are these functions themselves (no wrapper call per op)."""
    impl = spec.impl
    namespace = {**_COMMON, "spec": spec, "impl": impl, "float_result": spec.float_result,
                 # a dispatching primitive (``relu``, ``sigmoid``...) run on an ndarray
                 # would only check its argument's type and call its own function: called
                 # directly (the wrapper costs ~0.2 us, as much as the NumPy work on small
                 # arrays); other arrays go through it
                 "direct": getattr(impl, "__srcgrad_impl__", impl)}
    return _make(namespace, _UNARY, ("a",))


def binary_op(specs: dict[Any, Any]) -> Callable[[Any, Any], Any]:
    """An elementwise two-input op as a function of its operands; ``a`` or ``b`` may be a
    Python number or ndarray. Tensor operators are these functions themselves (no wrapper
    call per op).

    Kept flat on purpose: no helper calls when both operands are tensors of one float
    dtype, or a float tensor meets a Python number.
    """
    rule = specs["rule"]
    namespace = {**_COMMON, "rule": rule, "forms": [None] * 4, "impl": rule.impl,
                 "differentiable": rule.kind != NONDIFF,
                 "elementwise": rule.kind == ELEMENTWISE,  # (ufuncs: all but a user's)
                 "S32": _S32, "S64": _S64, "scalars": _scalars, "scalar_array": _scalar_array,
                 "EXACT": _EXACT,
                 "broadcast_message": _broadcast_message}
    forms = namespace["forms"]

    def spec_of(form: int) -> Spec:  # (the written-out forms make their Spec when recording)
        spec = forms[form] = spec_for(rule, (form > 1, form % 2 == 1))
        return spec

    namespace["spec_of"] = spec_of
    return _make(namespace, _BINARY, ("a", "b"))


def _make(namespace: dict[str, Any], template: str, operands: tuple[str, ...]) -> Any:
    size = 4 ** len(operands)  # (at most: 4 * form + 2 * ra + rb for two operands)
    namespace.update({"plans": [None] * size, "quick_plans": [None] * size,
                      "fused": {}, "functions": [], "template": template,
                      "operands": operands})
    if _COMMON["tensor"] is not None:
        namespace["tensor"] = _COMMON["tensor"]
    _NAMESPACES.append(namespace)

    def plan_for(k: int, spec: Spec, ra: bool, rb: bool, quick: bool) -> Any:
        required = (bool(ra), bool(rb))[:len(operands)]
        plan = spec.plan(required)
        if quick:
            namespace["quick_plans"][k] = plan
            if _switch.SPECIALIZE and k not in namespace["fused"]:
                _fuse(namespace, k, plan)
        else:
            namespace["plans"][k] = plan
        return plan

    namespace["plan_for"] = plan_for
    op = _compile(namespace)
    namespace["functions"].append(op)
    return op


def _compile(namespace: dict[str, Any]) -> Any:
    """The op's function, with the quick builders of the plans in ``fused`` written in."""
    one = len(namespace["operands"]) == 1  # (one plan: no slot to tell apart)

    def fused_text(forms: range) -> str:  # the written-in builders of these forms' plans
        fused = []
        # (a copy: another thread may write a plan in meanwhile)
        for k, (lines, _names) in list(namespace["fused"].items()):
            if k // 4 in forms:
                text = "".join(line + "\n" for line in lines)
                fused.append(text if one else f"if k == {k}:\n" + text)
        if not fused:
            return ""
        return "if switch.SPECIALIZE:\n" + _indent("".join(fused), 0 if one else 4)

    tails = {} if one else {"tail_3": _tail(3, fused_text(range(3, 4)), 20),
                            "tail_2": _tail(2, fused_text(range(2, 3)), 16),
                            "tail_1": _tail(1, fused_text(range(1, 2)), 16)}
    # (a binary op's general code, for the rarer forms, calls plan.quick: half the source
    # to compile again when a plan is written in)
    general = _indent(fused_text(range(4)), 12) if one else ""
    source = namespace["template"].format(fused=general,
                                          plain=_PLAIN, plain_quick=_indent(_PLAIN, 8),
                                          plain_build=_indent(_PLAIN, 4), **tails)
    exec(compile(source, "<srcgrad elementwise op>", "exec"), namespace)
    op = namespace.pop("op")
    op.__srcgrad_source__ = source
    return op


def _fuse(namespace: dict[str, Any], k: int, plan: Any) -> None:
    """Write ``plan``'s quick builder into the op (slot ``k``) and swap the new code into
    every function made from the op."""
    record = fused_record(plan, list(namespace["operands"]), f"_{k}")
    if record is None:
        return
    lines, names = record
    namespace.update(names)
    namespace["fused"][k] = (lines, names)
    made = _compile(namespace)
    for fn in namespace["functions"]:
        fn.__code__ = made.__code__
        fn.__srcgrad_source__ = made.__srcgrad_source__


def named(op: Any, name: str, qualname: str, doc: str) -> Any:
    """``op`` under another name (an operator method: ``__rmul__`` is ``__mul__``'s op),
    sharing its code, which :func:`_fuse` keeps the same for both."""
    method = type(op)(op.__code__, op.__globals__, name, op.__defaults__, op.__closure__)
    method.__qualname__ = qualname
    method.__doc__ = doc
    method.__srcgrad_source__ = op.__srcgrad_source__
    op.__globals__["functions"].append(method)
    return method
