"""Backend: one IR value as a Python expression (the emitter's expression half).

:class:`Expressions` is mixed into the statement emitter (:mod:`.emit`): a value is its
name, a constant its literal, an op nested into its reader (``nesting``) its expression.
Operators print as operators (``x * 3``), primitives as the NumPy function they are
(``np.sin(x)``; ``math.sin(x)`` where every input is known to be a Python float), the
methods of values known to be ndarrays as methods (``x.T``, ``x.sum(-1, keepdims=True)``),
a rule's call in its public form with defaults left out.
"""

from __future__ import annotations

import math
from typing import Any

import gast
import numpy as np

from ..ir.core import Op, Value, const_value
from ..spelling import has_python_spelling, uses_math_spelling
from . import conditions, floats, packing, reads
from .syntax import LOAD, dotted, load

# Python operator spellings (a rule's ``operator`` field) -> their syntax
_BINOPS = {
    "+": gast.Add, "-": gast.Sub, "*": gast.Mult, "/": gast.Div, "**": gast.Pow,
    "@": gast.MatMult, "//": gast.FloorDiv, "%": gast.Mod,
}
_CMPOPS = {
    "<": gast.Lt, "<=": gast.LtE, ">": gast.Gt, ">=": gast.GtE, "==": gast.Eq, "!=": gast.NotEq,
}
_UNARYOPS = {"-": gast.USub, "not": gast.Not}
# reductions whose ndarray method has the function's signature after ``x``
_REDUCTION_METHODS = frozenset({"sum", "mean", "prod", "max", "min"})


def call_node(func: Any, args: list[Any], keywords: dict[str, Any] | None = None) -> Any:
    kws = [gast.keyword(arg=k, value=v) for k, v in (keywords or {}).items()]
    return gast.Call(func=func, args=args, keywords=kws)


class Expressions:
    """The expression methods of the emitter (it holds ``fn``, ``refs``, ``names``,
    ``plan``, ``inline``)."""

    def expr(self, v: Any) -> Any:
        if not isinstance(v, tuple) and isinstance(v, Value) and v.id in self.inline:
            return self.inline[v.id]
        if isinstance(v, Value) and v.id in self.plan and v.op is not None:
            return self.call_expr(v.op)
        if isinstance(v, tuple):
            return gast.Tuple(elts=[self.expr(x) for x in v], ctx=LOAD)
        is_const, c = const_value(v)
        if is_const:
            return self.literal(c)
        return load(self.names[v])

    def literal(self, c: Any) -> Any:
        if type(c) in (int, float) and math.copysign(1.0, c) < 0 and not math.isnan(c):
            # a negative number is a minus applied to a literal: printed as an operand it
            # keeps its parentheses ((-2.0) ** n, not -2.0 ** n, which is -(2.0 ** n))
            return gast.UnaryOp(op=gast.USub(), operand=self.literal(-c))
        if c is None or isinstance(c, (bool, int, str)) or c is Ellipsis:
            return gast.Constant(value=c, kind=None)
        if type(c) is float:
            if math.isinf(c):
                return dotted("np.inf")
            if math.isnan(c):
                return dotted("np.nan")
            return gast.Constant(value=c, kind=None)
        if isinstance(c, tuple):
            return gast.Tuple(elts=[self.literal(x) for x in c], ctx=LOAD)
        if isinstance(c, list):
            return gast.List(elts=[self.literal(x) for x in c], ctx=LOAD)
        if isinstance(c, slice):
            return call_node(load("slice"), [self.literal(c.start), self.literal(c.stop),
                                          self.literal(c.step)])
        if isinstance(c, np.dtype):
            return call_node(dotted("np.dtype"), [gast.Constant(value=c.name, kind=None)])
        if isinstance(c, np.generic):
            return call_node(dotted(self.refs.ref(type(c))), [self.literal(c.item())])
        if isinstance(c, np.ndarray):
            return call_node(dotted("np.array"), [self.literal(c.tolist())],
                         {"dtype": call_node(dotted("np.dtype"),
                                         [gast.Constant(value=c.dtype.name, kind=None)])})
        return dotted(self.refs.ref(c))

    def index_expr(self, v: Any) -> Any:
        is_const, c = const_value(v)
        if not is_const:
            return self.expr(v)
        parts = c if isinstance(c, tuple) else (c,)
        elts = []
        for p in parts:
            if isinstance(p, slice):
                elts.append(gast.Slice(*(None if x is None else self.literal(x)
                                         for x in (p.start, p.stop, p.step))))
            else:
                elts.append(self.literal(p))
        if isinstance(c, tuple):
            return gast.Tuple(elts=elts, ctx=LOAD)
        return elts[0]

    def call_expr(self, op: Op) -> Any:
        a = op.args
        if op.prim == "captured":
            return reads.read_expr(op.attrs["source"], self.refs)
        rule = op.attrs.get("rule")
        spelling = rule.operator if rule is not None else None
        if spelling is not None:
            if (spelling in _BINOPS and set(a) == {"x", "y"}
                    and not floats.power_as_math_pow(op)):
                if spelling in ("+", "-") and _minus_a_float(a["x"], a["y"]):
                    # x - c, not x + -c (and x + c, not x - -c)
                    flipped = gast.Sub if spelling == "+" else gast.Add
                    return gast.BinOp(left=self.expr(a["x"]), op=flipped(),
                                      right=self.literal(-const_value(a["y"])[1]))
                n = floats.float_exponent(op)  # (y ** 2.0: see floats.py)
                return gast.BinOp(left=self.expr(a["x"]), op=_BINOPS[spelling](),
                                  right=self.expr(a["y"]) if n is None else self.literal(n))
            if spelling in _CMPOPS and set(a) == {"x", "y"}:
                return gast.Compare(left=self.expr(a["x"]), ops=[_CMPOPS[spelling]()],
                                    comparators=[self.expr(a["y"])])
            if spelling in _UNARYOPS and set(a) == {"x"}:
                return gast.UnaryOp(op=_UNARYOPS[spelling](), operand=self.expr(a["x"]))
        if op.prim == "if":  # ``a and b`` / ``a or b`` in a loop test (see conditions)
            return conditions.expression(self, op)
        if op.prim == "getitem":
            return gast.Subscript(value=self.expr(a["x"]), slice=self.index_expr(a["index"]),
                                  ctx=LOAD)
        if op.prim in ("stop_gradient", "alias"):
            return self.expr(a["x"])
        if op.prim == "transpose" and self._surely_ndarray(a.get("x")) \
                and const_value(a.get("axes")) == (True, None):
            # an ndarray's own attribute, as by hand: np.transpose's Python wrapper costs
            # more than the view (derivative code transposes per matmul adjoint). Only for
            # a value typed ndarray: the generic version keeps the dispatching function
            return gast.Attribute(value=self.expr(a["x"]), attr="T", ctx=LOAD)
        if op.prim in ("transpose", "reshape") and self._surely_ndarray(a.get("x")) \
                and set(a) == {"x", "axes" if op.prim == "transpose" else "shape"}:
            # the method, for the same reason: ``x.transpose((0, 2, 1))``, ``x.reshape(s)``
            # (multi-head attention reshapes and transposes per head, forward and back)
            method = gast.Attribute(value=self.expr(a["x"]), attr=op.prim, ctx=LOAD)
            return call_node(method, [self.expr(a["axes" if op.prim == "transpose" else "shape"])])
        if op.prim == "zeros_of" and a.get("x") in self.fn.params \
                and self._surely_ndarray(a["x"]) and a["x"].type.dtype == "float64":
            # a float64 ndarray argument's zeros (the adjoint a loop sums into): np.zeros of
            # its shape is the same fresh array without np.zeros_like's dispatch and
            # ``like``'s checks (a few us per differentiated array per call). Only of an
            # argument: a value saved by one branch of an ``if`` is None from the others
            shape = gast.Attribute(value=self.expr(a["x"]), attr="shape", ctx=LOAD)
            return call_node(dotted(self.refs.ref(np.zeros)), [shape])
        if op.prim == "shape" and set(a) == {"x"} and self._surely_ndarray(a["x"]):
            # (the same for np.shape: its wrapper runs once per shape the adjoints need)
            return gast.Attribute(value=self.expr(a["x"]), attr="shape", ctx=LOAD)
        if op.prim in _REDUCTION_METHODS and self._surely_ndarray(a.get("x")) \
                and op.attrs.get("callee", op.attrs["rule"].impl) is op.attrs["rule"].impl:
            # ``x.sum(-1, keepdims=True)``: the method takes np.sum's arguments after x and
            # skips its dispatching wrapper (~1 us per reduction; softmax adjoints have two)
            call = self.rule_call(op, numpy=True)
            if call.args:
                call.func = gast.Attribute(value=call.args[0], attr=op.prim, ctx=LOAD)
                call.args = call.args[1:]
            return call
        if op.prim == "make_tuple":
            return gast.Tuple(elts=[self.expr(v) for v in a["items"]], ctx=LOAD)
        if op.prim == "make_list":
            return gast.List(elts=[self.expr(v) for v in a["items"]], ctx=LOAD)
        if packing.packs_numbers(op):  # np.array([a, b]) of numbers: not np.stack's cost
            items = gast.List(elts=[self.expr(v) for v in a["xs"]], ctx=LOAD)
            return call_node(dotted(self.refs.ref(np.array)), [items])
        if op.prim == "make_slice":
            return call_node(load("slice"), [self.expr(a[k]) for k in ("start", "stop", "step")])
        if op.prim == "call":
            kw = dict(zip(op.attrs["kwnames"], (self.expr(v) for v in a["kwargs"])))
            return call_node(dotted(self.refs.ref(op.attrs["fn"])),
                         [self.expr(v) for v in a["args"]], kw)
        if rule is not None and rule.on_arrays is not None and self._on_arrays(op):
            # (its version for known ndarrays: no dispatch, no type tests; a mask
            # helper's wrapper cost half of its np.where on a few elements)
            return self.rule_call(op, numpy=True, impl=rule.on_arrays)
        return self.rule_call(op)

    def _on_arrays(self, op: Op) -> bool:
        """May ``op`` call its rule's ``on_arrays``: its first input surely a float ndarray,
        every other input a number or surely an ndarray."""
        rule = op.attrs["rule"]
        first, *others = (op.args.get(name) for name in rule.inputs)
        if not self._surely_ndarray(first) or first.type.dtype is None \
                or np.dtype(first.type.dtype).kind != "f":
            return False
        return all(self._surely_ndarray(v) or (isinstance(v, Value) and v.type is not None
                                               and v.type.is_python_number)
                   or (isinstance(v, Value) and const_value(v)[0]
                       and type(const_value(v)[1]) in (int, float))
                   for v in others)

    def _surely_ndarray(self, v: Any) -> bool:
        """Known to be an ndarray of at least one axis when it runs, so its attributes
        (``.T``, ``.shape``) can be read: typed so, and a parameter or a plain op's result
        (a 0-d result may be a NumPy scalar; a loop's or branch's result may hold the
        marker of a name bound on some paths only, whose read must raise as Python does)."""
        if isinstance(v, Value) and v.op is not None and not v.op.regions \
                and v.op.prim in ("reshape", "transpose") and (v.type is None
                                                                 or v.type.kind == "any"):
            # an untyped cotangent's view: ndarray.reshape/transpose give an ndarray (0-d
            # too, never a NumPy scalar), so a chain of them stays methods
            return self._surely_ndarray(v.op.args.get("x"))
        if not (isinstance(v, Value) and v.type is not None and v.type.kind == "array"
                and v.type.ndim is not None and v.type.ndim >= 1):
            return False
        while v.op is not None and v.op.prim in ("alias", "stop_gradient"):
            v = v.op.args["x"]  # (written as the value it copies)
        return v in self.fn.params if v.op is None else not v.op.regions

    def rule_call(self, op: Op, *, numpy: bool = False, impl: Any = None) -> Any:
        """``impl(args..., kw=...)`` in the rule's public call form, defaults left out;
        its ``math`` twin on Python numbers unless ``numpy``; ``impl`` instead of the
        rule's own if given."""
        rule = op.attrs["rule"]
        twin = None if numpy else uses_math_spelling(rule, op.args, has_python_spelling(op.attrs))
        fn = twin if twin is not None else impl or op.attrs.get("callee", rule.impl)
        form = rule.call_form
        env: dict[str, Any] = {}
        for name, v in op.args.items():
            if isinstance(v, tuple):
                items = [self.expr(x) for x in v]
                env[name] = items if name == form.star else gast.List(elts=items,
                                                                     ctx=LOAD)
            else:
                env[name] = self.expr(v)
        python_sign = None if numpy else floats.sign_of_a_float(op, env.get("x"), self.refs)
        if python_sign is not None:
            return python_sign
        if twin is not None:  # a star input (math.hypot's coordinates) is spread
            return call_node(dotted(self.refs.ref(twin)),
                         [a for n in rule.inputs
                          for a in (env[n] if n == form.star else [env[n]])])
        args, kwargs = form.call_args(env)
        if form.star is None:  # trailing positional parameters left at their defaults
            while args and self._is_default(form, form.positional[len(args) - 1], op):
                args.pop()
        kwargs = {k: v for k, v in kwargs.items() if not self._is_default(form, k, op)}
        return call_node(dotted(self.refs.ref(fn)), args, kwargs)

    @staticmethod
    def _is_default(form: Any, name: str, op: Op) -> bool:
        default = form.defaults.get(name, _REQUIRED)
        v = op.args.get(name)
        if default is _REQUIRED or not isinstance(v, Value):
            return False
        is_const, c = const_value(v)
        return is_const and _same(default, c)


_REQUIRED = object()


def _minus_a_float(x: Any, y: Any) -> bool:
    """``x + y`` with ``y`` a negative float literal may print as ``x - (-y)`` (and
    ``x - y`` as ``x + (-y)``): on real numbers (IEEE subtraction is the addition of the
    negation) the same value, signed zeros, infs and nans included. Not on complex
    numbers (the sign of a zero imaginary part differs) nor on values of unknown type
    (their ``__sub__`` is another method)."""
    is_const, c = const_value(y)
    if not is_const or type(c) is not float or math.isnan(c) or math.copysign(1.0, c) > 0:
        return False
    t = getattr(x, "type", None)
    if t is None or t.is_complex:
        return False
    return t.is_python_number or t.kind in ("scalar", "array") and t.dtype is not None \
        or t.known_ndim == 0 and t.dtype == "float64"  # (NUMBER: a float or a float64)


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False
