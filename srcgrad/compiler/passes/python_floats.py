"""Which values are surely Python floats when the emitted code runs (for ``like``).

``like(d, x)`` gives a gradient its argument's type; for a Python float argument whose
gradient is already a Python float it returns ``d`` as is, and ``passes/shapes.py`` drops
the call (~45 ns of a ~1 us Newton loop's gradient)::

    %9 = like(d=%dy, x=%a)     ->     (uses of %9 -> %dy)   # a: float, dy: surely a float

A value's abstract type saying ``float`` is not proof enough: NumPy gives a 0-d array for
some calls on numbers (``np.where``) that the type inference calls a float. So this is a
proof from how the value is made: a ``float`` literal; a parameter the dispatcher's guard
checked to be a float; ``+ - * /`` or unary ``-`` on surely-float operands (Python's float
arithmetic, which the backend prints as operators); a function with a ``math`` twin
(``math.exp``) of a surely-float argument; an ``if``'s output surely a float on both
branches; a loop's output whose initial value and next value are surely floats (the
carried value assumed so while it is being proved).
"""

from __future__ import annotations

from ..ir.core import Block, Function, Op, Value, const_value

_ARITHMETIC = frozenset({"add", "subtract", "multiply", "divide", "negative"})
# functions whose ``math`` twin returns a float for a float (no floor/ceil: those give ints)
_MATH = frozenset({"exp", "log", "sin", "cos", "tan", "sqrt", "tanh", "sinh", "cosh",
                   "arctan", "arcsin", "arccos", "log1p", "expm1", "log2", "log10"})


class SurelyFloat:
    """``proof(v)``: ``v`` is a Python float whenever the code runs."""

    def __init__(self, fn: Function) -> None:
        self.params = {p.id for p in fn.params if p.type is not None and p.type.kind == "float"}
        self.carried: dict[int, tuple[Op, int]] = {}  # block parameter -> (loop, slot)
        for op in fn.body.walk():
            if op.prim in ("while", "for_range"):
                skip = 1 if op.prim == "for_range" else 0
                for region in op.regions:
                    for k, p in enumerate(region.params[skip:] if region is op.regions[-1]
                                          else region.params):
                        self.carried[p.id] = (op, k)
        self.assumed: set[tuple[int, int]] = set()
        self.known: dict[int, bool] = {}

    def __call__(self, v: object, depth: int = 0) -> bool:
        if not isinstance(v, Value) or depth > 200:
            return False
        if v.id in self.known:
            return self.known[v.id]
        proved = self._prove(v, depth)
        if not self.assumed:  # (a proof resting on an assumption is not kept)
            self.known[v.id] = proved
        return proved

    def _prove(self, v: Value, depth: int) -> bool:
        if v.id in self.params:
            return True
        is_const, value = const_value(v)
        if is_const:
            return type(value) is float
        if v.id in self.carried:
            loop, k = self.carried[v.id]
            return self._slot(loop, k, depth)
        op = v.op
        if op is None:
            return False
        if op.prim in ("while", "for_range") and v in op.outputs:
            k = op.outputs.index(v)
            return k < len(op.args["init"]) and self._slot(op, k, depth)
        if op.prim == "if" and len(op.regions) == 2:
            k = op.outputs.index(v)
            return all(self._result(r, k, depth) for r in op.regions)
        rule = op.attrs.get("rule")
        if op.prim in _ARITHMETIC and rule is not None and rule.operator is not None:
            return all(self(a, depth + 1) for a in op.operands())
        if op.prim in _MATH and set(op.args) == {"x"}:
            return self(op.args["x"], depth + 1)
        return False

    def _slot(self, loop: Op, k: int, depth: int) -> bool:
        key = (id(loop), k)
        if key in self.assumed:
            return True  # (coinductive: proved if everything else holds)
        self.assumed.add(key)
        try:
            return self(loop.args["init"][k], depth + 1) and \
                self._result(loop.regions[-1], k, depth)
        finally:
            self.assumed.discard(key)

    def _result(self, block: Block, k: int, depth: int) -> bool:
        return k < len(block.results) and self(block.results[k], depth + 1)
