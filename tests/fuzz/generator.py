"""A seeded generator of small NumPy programs for the fuzzer.

Each program is the text of a module: generated helper functions, then an entry function
``f`` whose float arguments are all differentiated. Statements are in A-normal form (one
operation per line) over arguments and earlier results, with shapes tracked so every
broadcast, matmul and subscript is valid. Operations are smooth, domain-safe compositions
(``np.log(a * a + 1.0)``), or have kinks only on a set of measure zero (``np.abs``,
``np.clip``, ``np.where``, ``np.maximum``; branch and loop conditions on data), so central
differences at random points are a valid reference. Exact kinks are the kink table's job
(``tests/reliability/test_kink_table.py``).

Every program must also run unchanged on the runtime's Tensors (the harness compares its
gradients), so the generator only writes what means the same in NumPy and in the runtime:
NumPy functions (``np.sum(a, axis=0)``), operators, ``.T``, ``.reshape(-1)``, ``.sum()``;
in-place updates only of values no backward pass has saved.

``FEATURES`` lists the optional constructs; ``generate(seed, features)`` returns a
``Program``. With the ``reject`` feature the program contains a construct the compiler must
refuse (a write into an argument, a view of one, or an array another name shares; ``del``,
``try``, ``with``, ``global``), its line marked for the harness.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

SHAPES: list[tuple[int, ...]] = [(), (3,), (2, 3), (2, 1), (1, 3)]
FEATURES = ("if", "for", "while", "break", "continue", "return", "write", "reject")

UNARY = [
    "np.sin({a})", "np.cos({a})", "np.tanh({a})", "np.arctan({a})", "np.exp(np.tanh({a}))",
    "np.log({a} * {a} + 1.0)", "np.sqrt({a} * {a} + 1.0)", "{a} ** 2", "np.square({a})",
    "-{a}", "0.5 * {a}", "{a} * {a} * {a}", "1.0 / (1.0 + {a} * {a})", "np.log1p({a} * {a})",
    "np.expm1(np.sin({a}))", "np.hypot({a}, 1.0)",
    # kinks only on a set of measure zero (or where central differences agree: |0| -> 0)
    "np.abs({a})", "np.clip({a}, -0.6, 0.7)",
]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / (1.0 + {b} * {b})",
          "np.maximum({a}, {b})", "np.minimum({a}, {b})", "np.logaddexp({a}, {b})",
          "np.arctan2({a}, 2.0 + {b} * {b})", "np.where({a} > 0.1, {a}, {b})"]


@dataclass
class Var:
    name: str
    shape: tuple[int, ...]
    root: str  # the array whose memory it is (itself unless it is a view)
    writable: bool = False  # made by + - * of our own, nothing saved it: in-place is safe


@dataclass
class Augmented:
    text: str  # a whole ``v op= w`` statement


@dataclass
class Scope:
    vars: list[Var] = field(default_factory=list)
    consumed: set[str] = field(default_factory=set)  # names some later statement read

    def child(self) -> Scope:
        return Scope(list(self.vars), self.consumed)

    def unconsumed(self) -> list[Var]:
        return [v for v in self.vars if v.name not in self.consumed]

    def add(self, var: Var) -> Var:
        self.vars = [v for v in self.vars if v.name != var.name] + [var]
        return var

    def used(self, name: str) -> None:
        """An operand now: a later in-place write could corrupt what its consumer saved."""
        self.consumed.add(name)
        for v in self.vars:
            if v.name == name:
                v.writable = False


@dataclass
class Program:
    source: str
    seed: int
    features: tuple[str, ...]
    arg_shapes: list[tuple[int, ...]]
    arg_kinds: list[str]  # "float" (a Python float), "np.float64" or "array"
    wrt: tuple[int | str, ...]
    must_reject: bool = False
    # soundness forms (forms.py): how to call it, in turn; each a statement run in the
    # module first (captured data changed between calls) and keyword arguments as source
    states: tuple[tuple[str, dict[str, str]], ...] = (("", {}),)

    def make_args(self, rng: np.random.Generator) -> list[object]:
        args: list[object] = []
        for shape, kind in zip(self.arg_shapes, self.arg_kinds):
            value = rng.uniform(-1.2, 1.2, size=shape)
            args.append({"float": float, "np.float64": np.float64}.get(kind, np.asarray)(value))
        return args


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


class Generator:
    """Writes one module; ``self.rng`` alone decides everything, so a seed reproduces it."""

    def __init__(self, seed: int, features: tuple[str, ...]):
        self.rng = random.Random(seed)
        self.seed = seed
        self.features = features
        self.counter = 0
        self.helpers: list[tuple[str, list[tuple[int, ...]], tuple[int, ...]]] = []

    # -- names and operands ---------------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pick(self, scope: Scope, shape: tuple[int, ...] | None = None) -> Var:
        pool = [v for v in scope.vars if shape is None or v.shape == shape] or scope.vars
        # favour recent values, so statements chain instead of all reading the arguments
        var = self.rng.choices(pool, weights=[1 + i for i in range(len(pool))])[0]
        scope.used(var.name)
        return var

    def constant(self) -> str:
        return repr(round(self.rng.uniform(-1.5, 1.5), 2))

    # -- one straight-line statement ------------------------------------------------------
    def statement(self, scope: Scope, lines: list[str], indent: str) -> None:
        kind = self.rng.choices(
            ["unary", "binary", "const", "reduce", "subscript", "shape", "matmul", "call",
             "augment"], weights=[6, 8, 2, 2, 3, 1, 1, 2, 1])[0]
        made = getattr(self, f"_{kind}")(scope)
        if made is None:
            made = self._unary(scope)
        if isinstance(made, Augmented):
            lines.append(f"{indent}{made.text}")
            return
        text, shape, writable, root = made
        name = self.fresh()
        lines.append(f"{indent}{name} = {text}")
        scope.add(Var(name, shape, root or name, writable))

    def _unary(self, scope):
        a = self.pick(scope)
        return self.rng.choice(UNARY).format(a=a.name), a.shape, False, None

    def _binary(self, scope):
        a = self.pick(scope)
        others = [v for v in scope.vars if _broadcast(a.shape, v.shape) is not None]
        b = self.rng.choice(others)
        scope.used(b.name)
        template = self.rng.choice(BINARY)
        writable = template in ("{a} + {b}", "{a} - {b}", "{a} * {b}")
        if self.rng.random() < 0.5:
            a, b = b, a
        return template.format(a=a.name, b=b.name), _broadcast(a.shape, b.shape), writable, None

    def _const(self, scope):
        a = self.pick(scope)
        op = self.rng.choice(["+", "-", "*"])
        c = self.constant()
        text = f"{a.name} {op} {c}" if self.rng.random() < 0.5 else f"{c} {op} {a.name}"
        return text, a.shape, True, None

    def _reduce(self, scope):
        a = self.pick(scope)
        if not a.shape:
            return None
        fn = self.rng.choice(["sum", "mean", "sum", "mean", "var", "std", "prod"])
        linear = fn in ("sum", "mean")  # saves no output: an in-place update later is safe
        roll = self.rng.random()
        if roll < 0.3:
            return f"np.{fn}({a.name})", (), linear, None
        if roll < 0.45 and linear:
            return f"{a.name}.{fn}()", (), True, None
        axis = self.rng.randrange(len(a.shape))
        keep = self.rng.random() < 0.4
        shape = list(a.shape)
        if keep:
            shape[axis] = 1
        else:
            del shape[axis]
        text = f"np.{fn}({a.name}, axis={axis}{', keepdims=True' if keep else ''})"
        return text, tuple(shape), linear, None

    def _subscript(self, scope):
        arrays = [v for v in scope.vars if v.shape]
        if not arrays:
            return None
        a = self.rng.choice(arrays)
        scope.used(a.name)
        n = a.shape[0]
        options = [(f"{a.name}[0]", a.shape[1:]), (f"{a.name}[-1]", a.shape[1:])]
        if n > 1:
            options.append((f"{a.name}[1:]", (n - 1,) + a.shape[1:]))
            options.append((f"{a.name}[:{n - 1}]", (n - 1,) + a.shape[1:]))
        if len(a.shape) == 2:
            options.append((f"{a.name}[:, 0]", a.shape[:1]))
            options.append((f"{a.name}[..., -1]", a.shape[:1]))
            if a.shape[1] > 1:
                options.append((f"{a.name}[:, 1:]", (a.shape[0], a.shape[1] - 1)))
        text, shape = self.rng.choice(options)
        return text, shape, False, a.root

    def _shape(self, scope):
        arrays = [v for v in scope.vars if v.shape]
        if not arrays:
            return None
        a = self.rng.choice(arrays)
        scope.used(a.name)
        size = int(np.prod(a.shape))
        text, shape = self.rng.choice([(f"{a.name}.T", a.shape[::-1]),
                                       (f"np.transpose({a.name})", a.shape[::-1]),
                                       (f"{a.name}.reshape(-1)", (size,))])
        return text, shape, False, a.root

    def _matmul(self, scope):
        pairs = [(a, b) for a in scope.vars for b in scope.vars
                 if len(a.shape) >= 1 and len(b.shape) == 1 and a.shape[-1] == b.shape[0]]
        if not pairs:
            return None
        a, b = self.rng.choice(pairs)
        scope.used(a.name)
        scope.used(b.name)
        text = self.rng.choice([f"{a.name} @ {b.name}", f"np.dot({a.name}, {b.name})"])
        return text, a.shape[:-1], False, None

    def _call(self, scope):
        usable = [h for h in self.helpers
                  if all(any(v.shape == s for v in scope.vars) for s in h[1])]
        if not usable:
            return None
        name, shapes, out_shape = self.rng.choice(usable)
        operands = [self.pick(scope, s).name for s in shapes]
        if self.rng.random() < 0.4:
            operands.append(f"scale={self.constant()}")
        return f"{name}({', '.join(operands)})", out_shape, False, None

    def _augment(self, scope):
        """``v += w`` on an array of our own that nothing else shares or has saved."""
        targets = [v for v in scope.vars if v.writable and v.root == v.name
                   and sum(w.root == v.name for w in scope.vars) == 1]
        for v in self.rng.sample(targets, len(targets)):
            sources = [w for w in scope.vars if w.name != v.name
                       and _broadcast(v.shape, w.shape) == v.shape]
            if sources:
                w = self.rng.choice(sources)
                scope.used(w.name)
                op = self.rng.choice(["+=", "-="])
                return Augmented(f"{v.name} {op} {w.name}")
        return None

    # -- bodies -----------------------------------------------------------------------------
    def block(self, scope: Scope, lines: list[str], indent: str, count: int) -> None:
        for _ in range(count):
            self.statement(scope, lines, indent)

    def value_of_shape(self, scope: Scope, shape: tuple[int, ...]) -> str:
        """An expression of exactly ``shape`` from what is in scope."""
        exact = [v for v in scope.vars if v.shape == shape]
        if exact:
            a = self.rng.choice(exact)
            scope.used(a.name)
            return self.rng.choice(UNARY).format(a=a.name)
        smaller = [v for v in scope.vars if _broadcast(v.shape, shape) == shape]
        if smaller:
            base = self.rng.choice(smaller)
            scope.used(base.name)
            return f"np.sin({base.name}) + np.zeros({shape!r})"
        base = self.pick(scope)
        return f"np.zeros({shape!r}) + np.tanh(np.sum({base.name}))"

    def helper(self, index: int) -> list[str]:
        shapes = [self.rng.choice(SHAPES) for _ in range(self.rng.randint(1, 2))]
        params = [f"u{k}" for k in range(len(shapes))]
        scope = Scope([Var(p, s, p) for p, s in zip(params, shapes)])
        scope.add(Var("scale", (), "scale"))
        name = f"helper{index}"
        lines = [f"def {name}({', '.join(params)}, scale=0.5):"]
        self.block(scope, lines, "    ", self.rng.randint(1, 3))
        last = scope.vars[-1]
        lines.append(f"    return {last.name} * scale")
        self.helpers.append((name, shapes, last.shape))
        return lines


def generate(seed: int, features: tuple[str, ...] = ()) -> Program:
    """The program for ``seed`` using the optional constructs in ``features``."""
    from .control import emit_feature  # control flow and writes live beside the basics

    gen = Generator(seed, features)
    rng = gen.rng
    module = ["import numpy as np", "", "COUNTER = 0.0", ""]
    for index in range(rng.randint(0, 2)):
        module += ["", *gen.helper(index), ""]
    nargs = rng.randint(1, 3)
    shapes = [rng.choice(SHAPES) for _ in range(nargs)]
    kinds = [rng.choice(["float", "float", "np.float64", "array"]) if s == () else "array"
             for s in shapes]
    params = [f"x{k}" for k in range(nargs)]
    scope = Scope([Var(p, s, p) for p, s in zip(params, shapes)])
    body: list[str] = []
    gen.block(scope, body, "    ", rng.randint(1, 4))
    for feature in features:
        emit_feature(gen, feature, scope, body)
    gen.block(scope, body, "    ", rng.randint(0, 3))
    # every value nothing read yet flows into the result, so no statement is dead code
    loose = [v for v in scope.unconsumed() if not v.name.startswith("x")] or scope.vars[-1:]
    terms = [f"np.sum({v.name})" if v.shape else v.name for v in loose]
    weights = [gen.constant() for _ in terms]
    body.append("    return " + " + ".join(f"{w} * {t}" for w, t in zip(weights, terms)))
    module += ["", f"def f({', '.join(params)}):", *body, ""]
    wrt: tuple[int | str, ...] = tuple(
        params[k] if rng.random() < 0.3 else k for k in range(nargs))
    return Program("\n".join(module), seed, features, shapes, kinds, wrt,
                   must_reject="reject" in features)
