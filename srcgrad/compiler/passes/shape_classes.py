"""Shape classes: the facts the shapes pass (``shapes.py``) and later passes read.

Values of one class provably have the same shape at run time; ``Classes.visit`` puts each
op's outputs in a class as a forward walk meets them (``blocks.walk`` drives it through
loop and branch bodies). Also here: which ops are plain elementwise ones, which values are
0-d, and the float dtype of values with no type of their own (adjoints): float32 code gets
the same rewrites as float64 code where the dtype is provably kept. See ``shapes.py`` for
the rewrites these facts allow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...rules.registry import NONDIFF, RULES
from ..ir.core import Function, Op, Value, const_value
from ..ir.types import FLOAT
from .shape_facts import elementwise, kept_reduction, rank0
from .static_shapes import broadcast_static, note_static, stacked_shape

# matmul's adjoints: shaped by their ``shape`` argument; shapes.py also turns those of 2-d
# operands into plain matmuls (named apart so a new shaped-by-argument helper is not taken
# for one)
MATMUL_ADJOINTS = ("matmul_adjoint_x", "matmul_adjoint_y")
# An op attribute on a product ``matmul_adjoints.py`` made from an adjoint: the operand
# whose shape it has exactly (that pass's map is rebuilt each round, from the adjoints
# still left; the mark stays, for the rounds after and for ``accumulate.py``)
SHAPED_LIKE = "shaped_like"
# helpers whose result has the shape their ``shape`` argument names
SHAPED_BY_ARG = ("unreduce", *MATMUL_ADJOINTS)
# the dtypes tracked for untyped values: an elementwise rule of operands of one of these
# keeps it (NumPy 2 promotion: ``tests/compiler/test_float32_shape_classes.py`` checks
# every rule)
FLOAT_DTYPES = ("float16", "float32", "float64")


def elementwise_shaped(op: Op) -> bool:
    """A NumPy ufunc of the table without parameters (a comparison, ``logical_*``,
    ``isnan``), or a non-differentiable rule that says it broadcasts: its result has the
    broadcast shape of its inputs, as an elementwise primitive's, though it is not
    differentiable (and not a float: a mask)."""
    rule = RULES.get(op.prim)
    if (rule is not None and rule.kind == NONDIFF and rule.broadcasts and not rule.params
            and not rule.user and not op.regions and len(op.outputs) == 1):
        return True  # a mask helper shaped as a comparison (``larger_picks``)
    # (not a generalized ufunc: np.matmul is a ufunc with a core signature)
    return (rule is not None and isinstance(rule.impl, np.ufunc) and rule.impl.nout == 1
            and rule.impl.signature is None and not rule.params and not rule.user and not op.regions
            and len(op.outputs) == 1)


def mask_keeps_dtype(rule: Any, k: int) -> bool:
    """A bool array as input ``k`` of elementwise ``rule`` leaves the float dtype of its
    other operands: NumPy's promotion for a ufunc; for a rule of its own (``kept(c, mask)``
    keeps ``c``'s dtype, whatever it is) any input but the first."""
    return isinstance(rule.impl, np.ufunc) or k > 0


def _numpy_bool(v: Value) -> bool:
    """A bool made by NumPy itself (a comparison, an argument): a mask helper of ours
    typed bool may hold weights at run time (``larger_picks`` where values tie), which
    only a rule of ours (``taken``, past its first input) reads keeping ``c``'s dtype."""
    rule = v.op.attrs.get("rule") if v.op is not None else None
    return rule is None or isinstance(rule.impl, np.ufunc)


def unknown(v: Value) -> bool:
    return v.type is None or v.type.kind == "any"


def float64_array(v: Value, classes: Classes | None = None) -> bool:
    return float_array(v, classes, ("float64",))


def float_array(v: Value, classes: Classes | None = None,
                dtypes: tuple[str, ...] = FLOAT_DTYPES) -> bool:
    """``v`` is an ndarray with an axis, of one of ``dtypes``: typed so, or (an adjoint)
    of such a dtype and in the shape class of such an array."""
    t = v.type
    if unknown(v) and classes is not None:
        rep = classes.of(v)
        return classes.dtype_of(v) in dtypes and rep is not v and float_array(rep, None,
                                                                              FLOAT_DTYPES)
    return t is not None and t.kind == "array" and t.dtype in dtypes and bool(t.ndim)


class Classes:
    """Union of values by provably equal shape; ``rep`` is each class's first value."""

    def __init__(self) -> None:
        self.rep: dict[int, Value] = {}
        # untyped values (adjoints) of a known float dtype (``FLOAT_DTYPES``)
        self.dtypes: dict[int, str] = {}
        self.weak: set[int] = set()  # untyped values known to be Python numbers
        self.shaped_like: dict[int, Value] = {}
        self.popped: dict[int, Value] = {}  # pop output id -> the item pushed there
        self.static: dict[tuple[int, ...], Value] = {}  # a static shape -> its class's rep
        self.static_of: dict[int, tuple[int, ...]] = {}  # (static_shapes.py)
        self.written: set[int] = set()  # arrays a setitem writes into (in place if it can)
        # a value that broadcasts into another's shape without enlarging it (a reduction
        # with keepdims: same rank, the reduced axes of length 1): ``z - max(z, 1, keepdims=
        # True)`` then has ``z``'s class
        self.fits: dict[int, Value] = {}
        # (a class, the elements constant slices drop from its axes) -> the first value
        # sliced so: ``x[1:]`` and ``x[:-1]`` of one array are of one class
        self.sliced: dict[tuple[int, tuple[int, ...]], Value] = {}
        self.numbers: dict[int, bool] = {}  # value id -> rank0(value), for this walk

    def copy(self) -> Classes:
        new = Classes()
        new.rep, new.dtypes, new.weak = dict(self.rep), dict(self.dtypes), set(self.weak)
        new.shaped_like, new.popped = self.shaped_like, self.popped
        new.static, new.static_of = dict(self.static), dict(self.static_of)
        new.written = self.written
        new.fits = dict(self.fits)
        new.sliced = dict(self.sliced)
        return new

    def has_shape_facts(self, v: Value) -> bool:
        return not rank0(v)

    def assume(self, v: Value, source: Value) -> None:
        """``v`` has ``source``'s shape (and dtype, when that is a known float dtype)."""
        self.rep[v.id] = self.of(source)
        self.note_dtype(v, [source])

    def carries(self, result: Value, init: Value) -> bool:
        """A loop's next value keeps the class (and float dtype) of its initial value."""
        dtype = self.dtype_of(init)
        return self.same(result, init) and (dtype not in FLOAT_DTYPES
                                            or self.dtype_of(result) == dtype)

    def shape_source(self, s: Any) -> Value | None:
        """``v`` when ``s`` is ``shape(x=v)``, possibly saved on a tape and popped."""
        if isinstance(s, Value) and s.id in self.popped:
            s = self.popped[s.id]
        if isinstance(s, Value) and s.op is not None and s.op.prim == "if":
            # saved by one branch, None from the others (whose adjoint never reads it)
            k = s.op.outputs.index(s)
            made = [r.results[k] for r in s.op.regions if k < len(r.results)
                    and const_value(r.results[k]) != (True, None)]
            sources = [shape_source(m) for m in made]
            if sources and all(v is not None and self.same(v, sources[0]) for v in sources):
                return sources[0]
            return None
        return shape_source(s)

    def an_array(self, v: Value) -> bool:
        """Typed an array with an axis, or an adjoint in the class of one (never a list,
        whose slices are lists)."""
        t = v.type
        if t is not None and t.kind == "array":
            return bool(t.known_ndim)
        return float64_array(v, self)

    def is_weak(self, v: Value) -> bool:
        """A Python number (NEP 50: it does not change an array's dtype)."""
        if v.type is not None and v.type.is_python_number:
            return True
        return v.id in self.weak or (v.op is not None and v.op.prim == "reduced_count")

    def is_float64(self, v: Value) -> bool:
        return self.dtype_of(v) == "float64"

    def dtype_of(self, v: Value) -> str | None:
        """``v``'s dtype: its type's (a NumPy array or scalar), else a float dtype known
        from what made it, else None."""
        t = v.type
        if t is not None and t.kind in ("array", "scalar"):
            return t.dtype
        return self.dtypes.get(v.id)

    def note_dtype(self, out: Value, inputs: list[Any]) -> None:
        """``out`` has the float dtype every one of ``inputs`` has, if they share one."""
        found = {self.dtype_of(v) if isinstance(v, Value) else None for v in inputs}
        if len(found) == 1:
            dtype = found.pop()
            if dtype in FLOAT_DTYPES:
                self.dtypes[out.id] = dtype

    def _float_operands(self, op: Op) -> list[Value]:
        """The operands of elementwise ``op`` that decide its float dtype: not the Python
        numbers (weakly typed under NEP 50), nor a bool mask where it cannot promote."""
        rule = RULES[op.prim]
        strong = [(i, op.args[k]) for i, k in enumerate(rule.inputs)
                  if isinstance(op.args.get(k), Value) and not self.is_weak(op.args[k])]
        floats = [v for i, v in strong
                  if not (self.dtype_of(v) == "bool" and mask_keeps_dtype(rule, i)
                          and (not isinstance(rule.impl, np.ufunc) or _numpy_bool(v)))]
        return floats or [v for _, v in strong]

    def of(self, v: Value) -> Value:
        return self.rep.get(v.id, v)

    def same(self, a: Value, b: Value) -> bool:
        return self.of(a) is self.of(b)

    def visit(self, op: Op) -> None:
        if op.prim not in RULES and op.prim not in _VISITED_BY_NAME:
            return  # (a constant, a tape or control op: every test below is false)
        is_elementwise = elementwise(op)
        if op.prim == "tape_pop":
            for o in op.outputs:
                item = self.popped.get(o.id)
                if item is not None:
                    self.assume(o, item)
        elif is_elementwise or elementwise_shaped(op):
            # a value of a kept reduction's class (``g.sum(-1, keepdims=True) / z``) fits
            # into the reduced array as the reduction itself does
            fitted: list[Value] = []
            shaped: dict[int, Value] = {}
            for v in op.operands():
                if not rank0(v, self.numbers):
                    rep = self.rep.get(v.id, v)
                    if rep.id in self.fits:
                        fitted.append(rep)
                    else:
                        shaped[rep.id] = rep
            if len(shaped) == 1:
                rep = next(iter(shaped.values()))
                if all(self.same(self.fits[f.id], rep) for f in fitted):
                    self.rep[op.out.id] = rep
            elif not shaped and fitted and all(f is fitted[0] for f in fitted):
                self.rep[op.out.id] = fitted[0]  # (reductions' results combined: one shape)
            elif shaped:
                broadcast_static(self, op, shaped)
            if not is_elementwise:
                return  # (a mask: never a float)
            # a float dtype with Python numbers (weakly typed under NEP 50) and bool masks
            # stays that dtype
            if all(self.is_weak(v) for v in op.operands()):
                self.weak.add(op.out.id)
            else:
                self.note_dtype(op.out, self._float_operands(op))
        elif op.prim == "getitem" and len(op.outputs) == 1 \
                and isinstance(op.args.get("x"), Value) and self.an_array(op.args["x"]):
            drops = slice_drops(op.args.get("index"))
            if drops is not None:
                x = self.of(op.args["x"])
                if not drops:  # x[:] or x[0:]: x's own shape
                    self.rep[op.out.id] = x
                else:
                    self.rep[op.out.id] = self.of(
                        self.sliced.setdefault((x.id, drops), op.out))
                self.note_dtype(op.out, [op.args["x"]])  # (a slice keeps x's dtype)
        elif kept_reduction(op):
            self.fits[op.out.id] = op.args["x"]
        elif op.prim in ("max_picks", "min_picks"):  # a mask or weights shaped like x
            self.rep[op.out.id] = self.of(op.args["x"])
        elif op.prim == "picked":  # g sent into the picks' shape, in g's dtype
            self.rep[op.out.id] = self.of(op.args["picks"])
            self.note_dtype(op.out, [op.args["g"]])
        elif op.prim in ("matmul", "transpose") and len(op.outputs) == 1:
            like = self.shaped_like.get(op.out.id, op.attrs.get(SHAPED_LIKE))
            if isinstance(like, Value):
                self.rep[op.out.id] = self.of(like)
            # (a transpose's axes are no operand of its dtype)
            self.note_dtype(op.out, [op.args[k] for k in ("x", "y") if k in op.args])
        elif op.prim in ("reshape", "swapaxes", "moveaxis") and len(op.outputs) == 1:
            # a view's elements are its operand's: its dtype is kept (so a cotangent
            # reshaped for multi-head attention still needs no cast back by ``like``)
            self.note_dtype(op.out, [op.args.get("x")])
        elif stacked_shape(op) is not None:
            note_static(self, op.out, stacked_shape(op))
        elif op.prim in ("zeros", "setitem") and len(op.outputs) == 1:
            # np.zeros(shape(v)) has v's shape; a functional write keeps its array's
            source = (self.shape_source(op.args.get("shape")) if op.prim == "zeros"
                      else op.args.get("x"))
            if isinstance(source, Value):
                self.rep[op.out.id] = self.of(source)
        elif op.prim == "unbroadcast":
            # in an adjoint ``x`` is the broadcast of the operand, so the sum has its shape
            source = self.shape_source(op.args.get("shape"))
            if source is not None:
                self.rep[op.out.id] = self.of(source)
            self.note_dtype(op.out, [op.args["x"]])  # a float sum keeps its dtype
        elif op.prim == "contract_to":
            # an einsum cotangent fitted to its operand's shape (rules/contract_to.py)
            source = self.shape_source(op.args.get("shape"))
            if source is not None:
                self.rep[op.out.id] = self.of(source)
            self.note_dtype(op.out, list(op.args["operands"]))
        elif op.prim == "scatter_add":  # a gather's adjoint: zeros of shape, x's dtype
            source = self.shape_source(op.args.get("shape"))
            if source is not None:
                self.rep[op.out.id] = self.of(source)
            self.note_dtype(op.out, [op.args.get("x")])
        elif op.prim in SHAPED_BY_ARG and len(op.outputs) == 1:
            source = self.shape_source(op.args.get("shape"))
            if source is not None:
                self.rep[op.out.id] = self.of(source)
            x = op.args.get("x")
            if op.prim == "unreduce" and isinstance(x, Value) and (x.type == FLOAT or (
                    self.is_weak(x) and x.op is not None and x.op.prim == "divide")):
                # np.broadcast_to(1.0, shape); a true division of Python numbers is a float
                self.dtypes[op.out.id] = "float64"
                return
            inputs = [v for k, v in op.args.items() if k not in ("shape", "axis", "keepdims")]
            self.note_dtype(op.out, inputs)


# the ops :meth:`Classes.visit` knows by name (any other op it learns from is a rule's)
_VISITED_BY_NAME = frozenset({
    "tape_pop", "getitem", "max_picks", "min_picks", "picked", "matmul", "transpose",
    "reshape", "swapaxes", "moveaxis", "stack", "zeros", "setitem", "unbroadcast",
    "contract_to", "scatter_add", *SHAPED_BY_ARG})


def parameter_classes(fn: Function) -> Classes:
    """Classes that know the parameters the version's guard proves to share a shape
    (``fn.meta["same_shapes"]``, pairs of parameter positions: ``signature.same_shapes``)."""
    classes = Classes()
    classes.shaped_like = fn.meta.get("shaped_like", {})  # (the shapes pass's products)
    for j, i in fn.meta.get("same_shapes", ()):
        if i < len(fn.params) and j < len(fn.params):
            classes.rep[fn.params[i].id] = classes.of(fn.params[j])
    return classes


def plain_classes(fn: Function) -> Classes:
    """The shape classes of the top-level block as it stands (for later passes)."""
    classes = parameter_classes(fn)
    for op in fn.body.ops:
        classes.visit(op)
    return classes


def shape_source(s: Any) -> Value | None:
    """``v`` when ``s`` is ``shape(x=v)``."""
    if isinstance(s, Value) and s.op is not None and s.op.prim == "shape":
        return s.op.args["x"]
    return None


def slice_drops(index: Any) -> tuple[int, ...] | None:
    """How many elements a constant index of slices drops from each axis it slices, the
    trailing zeros left out; None for any other index.

    ``x[s:-e]`` (``s >= 0``, ``e > 0`` or no stop, step 1) has ``max(n - s - e, 0)``
    elements of an axis of length ``n``, whatever ``n`` is: two such slices dropping as
    many elements have one shape (``x[1:]`` and ``x[:-1]``, a vectorised difference)."""
    if not isinstance(index, Value):
        return None
    is_const, c = const_value(index)
    if not is_const:
        return None
    drops = []
    for p in c if type(c) is tuple else (c,):
        if type(p) is not slice or p.step not in (None, 1):
            return None
        start = 0 if p.start is None else p.start
        stop = 0 if p.stop is None else p.stop
        if type(start) is not int or type(stop) is not int or start < 0 or stop > 0 \
                or (p.stop is not None and stop == 0):  # (x[:0] is empty at any length)
            return None
        drops.append(start - stop)
    while drops and drops[-1] == 0:
        drops.pop()
    return tuple(drops)
