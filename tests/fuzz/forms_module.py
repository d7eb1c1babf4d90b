"""Soundness forms that need code outside the entry function (see ``forms.py``).

Captured data: a module-level array refilled in place, a closure buffer refilled in place,
and rebound globals, each changed between calls of the *same* derived function (the
program's ``states``), since API.md reads captured values when the derivative runs. Derived
functions called inside differentiated code: ``sg.grad``/``sg.jvp``/``sg.vjp`` of a module
callee ``g(u, w=0.5)``, with tuple ``wrt`` and the defaulted parameter left out or passed
(by keyword where a seed or tangent follows the arguments, as API.md asks).
"""

from __future__ import annotations

from .control import IND
from .forms import Emitter, Extras, _scalar
from .generator import Generator, Scope, Var

DATA_SHAPES: list[tuple[int, ...]] = [(3,), (2, 3), (3, 2), (4,)]


def _literal(gen: Generator, shape: tuple[int, ...]) -> str:
    """``np.array([...])`` of fresh values of ``shape`` (its text decides it: deterministic)."""
    size = 1
    for d in shape:
        size *= d
    values = [round(gen.rng.uniform(-1.5, 1.5), 3) for _ in range(size)]
    return f"np.array({values}).reshape({shape!r})"


def _read(gen: Generator, scope: Scope, body: list[str], data: str,
          shape: tuple[int, ...]) -> None:
    """A traced computation that reads captured array ``data``: elementwise, a reduction,
    a row loop or a subscript."""
    roll = gen.rng.random()
    name = gen.fresh()
    if roll < 0.35:
        body.append(f"{IND}{name} = {gen.value_of_shape(scope, shape)} * {data}")
        scope.add(Var(name, shape, name))
    elif roll < 0.55:
        a = gen.pick(scope)
        body.append(f"{IND}{name} = np.sum({data} * {data}) * {a.name}")
        scope.add(Var(name, a.shape, name))
    elif roll < 0.8:
        row = shape[1:]
        body.append(f"{IND}{name} = {gen.value_of_shape(scope, row)}")
        body.append(f"{IND}for row in {data}:")
        body.append(f"{IND * 2}{name} = np.sin({name}) * row + {name}")
        scope.add(Var(name, row, name))
    else:
        a = gen.pick(scope)
        index = ", ".join(str(gen.rng.randrange(d)) for d in shape)
        body.append(f"{IND}{name} = np.tanh({a.name} * {data}[{index}])")
        scope.add(Var(name, a.shape, name))


def emit_global_inplace(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    shape = gen.rng.choice(DATA_SHAPES)
    extras.module.append(f"DATA = {_literal(gen, shape)}")
    for _ in range(gen.rng.randint(1, 2)):
        _read(gen, scope, body, "DATA", shape)
    extras.states += [("", {}), (f"DATA[:] = {_literal(gen, shape)}", {}),
                      (gen.rng.choice(["DATA *= -0.5", "DATA += 0.25",
                                       f"DATA[...] = {_literal(gen, shape)}"]), {})]


def emit_closure_refill(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    """``f`` made by ``_make()`` over a local ``buf``; ``f, buf = _make()`` shares it with the
    module, which refills it the way a training loop refills a minibatch buffer."""
    shape = gen.rng.choice(DATA_SHAPES)
    extras.closure = [f"{IND}buf = {_literal(gen, shape)}"]
    extras.closure_exports = ", buf"
    for _ in range(gen.rng.randint(1, 2)):
        _read(gen, scope, body, "buf", shape)
    extras.states += [("", {}), (f"buf[:] = {_literal(gen, shape)}", {}),
                      (f"buf[:] = {_literal(gen, shape)}", {})]


def emit_global_rebound(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    """A float and an array global, each rebound to a new object between calls."""
    shape = gen.rng.choice(DATA_SHAPES)
    extras.module += [f"SCALE = {gen.constant()}", f"TABLE = {_literal(gen, shape)}"]
    a = gen.pick(scope)
    name = gen.fresh()
    body.append(f"{IND}{name} = {a.name} * SCALE")
    scope.add(Var(name, a.shape, name))
    _read(gen, scope, body, "TABLE", shape)
    extras.states += [("", {}), (f"SCALE = {gen.constant()}", {}),
                      (f"TABLE = {_literal(gen, shape)}", {}),
                      (f"SCALE = {gen.constant()}; TABLE = {_literal(gen, shape)}", {})]


def _callee(gen: Generator, extras: Extras, shape: tuple[int, ...], scalar: bool) -> tuple:
    """Module function ``gN(u, w=0.5)``; returns its name and result shape."""
    name = gen.fresh("g")
    scope = Scope([Var("u", shape, "u"), Var("w", (), "w")])
    lines = [f"def {name}(u, w=0.5):"]
    gen.block(scope, lines, IND, gen.rng.randint(1, 3))
    last = scope.vars[-1]
    if scalar:
        lines.append(f"{IND}return np.sum({last.name} * w) + np.sum(u * u) * 0.1")
        out: tuple[int, ...] = ()
    else:
        # the sine term keeps the result depending on ``u`` whatever the block did
        lines.append(f"{IND}return {last.name} * w + np.sum(np.sin(u)) * 0.3")
        out = last.shape
    extras.module += ["", *lines, ""]
    return name, out


def _operand(gen: Generator, scope: Scope) -> Var:
    var = gen.pick(scope)
    scope.used(var.name)
    return var


def emit_derived_grad(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    a = _operand(gen, scope)
    g, _ = _callee(gen, extras, a.shape, scalar=True)
    d = gen.fresh("d")
    roll = gen.rng.random()
    if roll < 0.3:
        body.append(f"{IND}{d} = sg.grad({g})({a.name})")
    elif roll < 0.55:
        b = _scalar(gen, scope, body)
        body.append(f"{IND}{d} = sg.grad({g}, wrt='u')({a.name}, w={b.name})")
    else:
        b = _scalar(gen, scope, body)
        d2 = gen.fresh("d")
        wrt = gen.rng.choice(["(0, 1)", "('u', 'w')", "(1, 0)"])
        # grad has no seed or tangent after the arguments: ``w`` may go by position too
        call = gen.rng.choice([f"({a.name}, {b.name})", f"({a.name}, w={b.name})"])
        first, second = (d2, d) if wrt == "(1, 0)" else (d, d2)
        body.append(f"{IND}{first}, {second} = sg.grad({g}, wrt={wrt}){call}")
        scope.add(Var(d2, (), d2))
    scope.add(Var(d, a.shape, d))


def emit_derived_jvp(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    a = _operand(gen, scope)
    g, out = _callee(gen, extras, a.shape, scalar=False)
    tangent = gen.value_of_shape(scope, a.shape)
    value, tan = gen.fresh("val"), gen.fresh("tan")
    roll = gen.rng.random()
    if roll < 0.4:
        body.append(f"{IND}{value}, {tan} = sg.jvp({g})({a.name}, {tangent})")
    elif roll < 0.6:
        b = _scalar(gen, scope, body)
        body.append(f"{IND}{value}, {tan} = sg.jvp({g}, wrt='u')({a.name}, {tangent}, "
                    f"w={b.name})")
    else:
        b = _scalar(gen, scope, body)
        other = _scalar(gen, scope, body)
        # API.md: the tangent is the last positional argument, defaulted ones go by keyword
        body.append(f"{IND}{value}, {tan} = sg.jvp({g}, wrt=('u', 'w'))({a.name}, "
                    f"({tangent}, np.sin({other.name})), w={b.name})")
    scope.add(Var(value, out, value))
    scope.add(Var(tan, out, tan))


def emit_derived_vjp(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    a = _operand(gen, scope)
    g, out = _callee(gen, extras, a.shape, scalar=False)
    seed = gen.value_of_shape(scope, out)
    c = gen.fresh("ct")
    roll = gen.rng.random()
    if roll < 0.4:
        body.append(f"{IND}{c} = sg.vjp({g})({a.name}, {seed})")
    elif roll < 0.6:
        b = _scalar(gen, scope, body)
        body.append(f"{IND}{c} = sg.vjp({g})({a.name}, {seed}, w={b.name})")
    else:
        b = _scalar(gen, scope, body)
        c2 = gen.fresh("ct")
        wrt = gen.rng.choice(["(0, 'w')", "('u', 'w')"])  # the seed is last: w by keyword
        body.append(f"{IND}{c}, {c2} = sg.vjp({g}, wrt={wrt})({a.name}, {seed}, w={b.name})")
        scope.add(Var(c2, (), c2))
    scope.add(Var(c, a.shape, c))


MODULE_FORMS: dict[str, Emitter] = {
    "global_inplace": emit_global_inplace, "closure_refill": emit_closure_refill,
    "global_rebound": emit_global_rebound, "derived_grad": emit_derived_grad,
    "derived_jvp": emit_derived_jvp, "derived_vjp": emit_derived_vjp,
}
