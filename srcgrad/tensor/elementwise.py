"""The elementwise fast paths of recording (``x * y``, ``x + 0.5``, ``x.sin()``): one
generated function per rule, which is the Tensor method itself.

The runtime's hot path (:mod:`.ops` says where it sits). An op computes its result in
the quiet context (:mod:`..autograd.fp_errors`), wraps it and, when an input
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
from ..autograd.grad_mode import ALL_THREADS, STATE
from ..autograd.specialize import fused_record
from ..rules.registry import ELEMENTWISE, NONDIFF
from .elementwise_source import BINARY, PLAIN, UNARY, indent, tail
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

_NAMESPACES: list[dict[str, Any]] = []  # every op's, to bind the Tensor class into
# Compiled op sources: before any plan is written in, every unary op has the same source
# (and every binary one), and compiling each again cost a fifth of ``import srcgrad``.
_CODE: dict[str, Any] = {}


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
    "F32": _F32, "F64": _F64, "NUMERIC": _NUMERIC, "SCALARS": _SCALARS,
    "quiet_run": QUIET.run, "quietly": quietly, "STATE": STATE, "ALL_THREADS": ALL_THREADS,
    "switch": _switch, "view_requires": view_requires,
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
    return _make(namespace, UNARY, ("a",))


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
    return _make(namespace, BINARY, ("a", "b"))


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
        return "if switch.SPECIALIZE:\n" + indent("".join(fused), 0 if one else 4)

    tails = {} if one else {"tail_3": tail(3, fused_text(range(3, 4)), 20),
                            "tail_2": tail(2, fused_text(range(2, 3)), 16),
                            "tail_1": tail(1, fused_text(range(1, 2)), 16)}
    # (a binary op's general code, for the rarer forms, calls plan.quick: half the source
    # to compile again when a plan is written in)
    general = indent(fused_text(range(4)), 12) if one else ""
    source = namespace["template"].format(fused=general,
                                          plain=PLAIN, plain_quick=indent(PLAIN, 8),
                                          plain_build=indent(PLAIN, 4), **tails)
    code = _CODE.get(source)
    if code is None:
        code = _CODE[source] = compile(source, "<srcgrad elementwise op>", "exec")
    exec(code, namespace)
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
