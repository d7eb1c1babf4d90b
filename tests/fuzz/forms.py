"""The soundness forms: constructs users write that the basic generator never did.

``generator.py`` writes straight-line NumPy and ``control.py`` branches, loops and writes;
here each *form* (one entry of ``FORMS``) plants one construct from API.md's soundness
section inside an otherwise random program: Python lists and tuples of traced values handed
to NumPy, lists built with ``.append``, captured data changed between calls, fancy-index
writes with repeated indices, augmented assignment to a NumPy scalar, loops nested in
branches, ``is None`` tests on an optional parameter, and derived functions called inside
differentiated code. ``generate_form(seed, form)`` returns a ``generator.Program`` whose
``states`` say how to call it (a statement run in the module first, and keyword arguments);
``soundness.py`` runs it in every mode. Forms that need module-level code (captured data,
the derived callee) live in ``forms_module.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .control import IND, _condition, _start_accumulator, _update
from .generator import SHAPES, Generator, Program, Scope, Var, _broadcast


@dataclass
class Extras:
    """What a form adds around the entry function ``f``."""

    module: list[str] = field(default_factory=list)  # module-level lines before ``f``
    params: list[str] = field(default_factory=list)  # extra defaulted parameters of ``f``
    # (statement run in the module before the call, keyword arguments of the call as
    # source text evaluated in the module)
    states: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    closure: list[str] | None = None  # lines of ``_make`` before ``def f`` (f is a closure)
    closure_exports: str = ""  # what ``_make`` returns besides ``f``


Emitter = Callable[[Generator, Scope, list[str], Extras], None]


def _scalar(gen: Generator, scope: Scope, body: list[str]) -> Var:
    """A scalar traced value: one in scope, or a new one reduced from an array."""
    scalars = [v for v in scope.vars if v.shape == ()]
    if scalars and gen.rng.random() < 0.7:
        var = gen.rng.choice(scalars)
        scope.used(var.name)
        return var
    source = gen.pick(scope)
    name = gen.fresh("s")
    body.append(f"{IND}{name} = np.tanh(np.sum({source.name}))")
    return scope.add(Var(name, (), name))


def _items(gen: Generator, scope: Scope, shape: tuple[int, ...], count: int) -> list[str]:
    """``count`` expressions of exactly ``shape``; plain constants too when it is scalar."""
    items = []
    for _ in range(count):
        roll = gen.rng.random()
        if shape == () and roll < 0.2:
            items.append(gen.constant())
        elif roll < 0.55:
            exact = [v for v in scope.vars if v.shape == shape]
            if exact:
                var = gen.rng.choice(exact)
                scope.used(var.name)
                items.append(var.name if roll < 0.4 else f"{gen.constant()} * {var.name}")
                continue
            items.append(gen.value_of_shape(scope, shape))
        else:
            items.append(gen.value_of_shape(scope, shape))
    return items


def _sequence(gen: Generator, items: list[str]) -> str:
    if gen.rng.random() < 0.6:
        return f"[{', '.join(items)}]"
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def _assign(gen: Generator, scope: Scope, body: list[str], text: str,
            shape: tuple[int, ...], indent: str = IND) -> Var:
    name = gen.fresh()
    body.append(f"{indent}{name} = {text}")
    return scope.add(Var(name, shape, name))


def _stacked_reduction(gen: Generator, scope: Scope, fns: list[str]) -> tuple[str, tuple]:
    """``np.<fn>(<list of k values of one shape>)``, over everything or along axis 0."""
    shape = gen.pick(scope).shape
    seq = _sequence(gen, _items(gen, scope, shape, gen.rng.randint(1, 3)))
    fn = gen.rng.choice(fns)
    if shape and gen.rng.random() < 0.5:
        return f"{fn}({seq}, axis=0)", shape
    return f"{fn}({seq})", ()


def emit_list_reduce(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    text, shape = _stacked_reduction(gen, scope, ["np.sum", "np.mean", "np.prod"])
    _assign(gen, scope, body, text, shape)


def emit_list_minmax(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    text, shape = _stacked_reduction(gen, scope, ["np.max", "np.min", "np.max"])
    _assign(gen, scope, body, text, shape)


def emit_list_ufunc(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    shape = gen.pick(scope).shape
    items = _items(gen, scope, shape, gen.rng.randint(1, 3))
    fn = gen.rng.choice(["np.exp(np.tanh({s}))", "np.sin({s})", "np.tanh({s})",
                         "np.square({s})", "np.asarray({s}) * 2.0", "np.array({s}) + 1.0"])
    _assign(gen, scope, body, fn.format(s=_sequence(gen, items)), (len(items),) + shape)


def emit_list_dot(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    a, b = _scalar(gen, scope, body), _scalar(gen, scope, body)
    left = [a.name, gen.constant()]
    right = [gen.constant(), b.name]
    gen.rng.shuffle(left)
    fn = gen.rng.choice(["np.dot", "np.inner", "np.dot"])  # API.md lists both
    _assign(gen, scope, body, f"{fn}({_sequence(gen, left)}, {_sequence(gen, right)})", ())


def emit_list_norm(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    shape = gen.pick(scope).shape if gen.rng.random() < 0.4 else ()
    items = _items(gen, scope, shape, gen.rng.randint(1, 3))
    items.append("1.0" if shape == () else f"np.ones({shape!r})")  # never at the kink 0
    _assign(gen, scope, body, f"np.linalg.norm({_sequence(gen, items)})", ())


def emit_list_fsum(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    names = [_scalar(gen, scope, body).name for _ in range(gen.rng.randint(1, 3))]
    items = names + [f"{gen.constant()} * {names[0]}", gen.constant()]
    gen.rng.shuffle(items)
    fn = gen.rng.choice(["math.fsum", "sum", "math.fsum"])
    _assign(gen, scope, body, f"{fn}({_sequence(gen, items)})", ())


def _append_loop(gen: Generator, scope: Scope, body: list[str], header: list[str],
                 counter: str | None, index: str | None, trips: int) -> None:
    """``lst.append`` of a loop-carried value inside the loop ``header`` opens, then the
    list handed to NumPy as a whole."""
    acc = _start_accumulator(gen, scope, body)
    lst = gen.fresh("items")
    body.append(f"{IND}{lst} = []")
    body.extend(header)
    inner = scope.child()
    gen.block(inner, body, IND * 2, gen.rng.randint(0, 1))
    body.append(f"{IND * 2}{acc.name} = {_update(gen, inner, acc, index, trips)}")
    body.append(f"{IND * 2}{lst}.append({gen.rng.choice([acc.name, f'np.sin({acc.name})'])})")
    if counter:
        body.append(f"{IND * 2}{counter} += 1")
    fn = gen.rng.choice(["np.mean", "np.sum", "np.stack", "np.sum", "np.array"])
    if fn in ("np.stack", "np.array"):
        _assign(gen, scope, body, f"np.sum({fn}({lst}) * 1.5, axis=0)", acc.shape)
    elif acc.shape and gen.rng.random() < 0.5:
        _assign(gen, scope, body, f"{fn}({lst}, axis=0)", acc.shape)
    else:
        _assign(gen, scope, body, f"{fn}({lst})", ())


def emit_append_fixed(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    trips = gen.rng.randint(1, 4)
    _append_loop(gen, scope, body, [f"{IND}for i in range({trips}):"], None, "i", trips)


def emit_append_runtime(gen: Generator, scope: Scope, body: list[str],
                        extras: Extras) -> None:
    """Trip counts the compiler cannot see: an int parameter, or a test on data."""
    if gen.rng.random() < 0.5:
        default = gen.rng.randint(1, 3)
        extras.params.append(f"n={default}")
        extras.states += [("", {}), ("", {"n": str(gen.rng.randint(1, 4))})]
        _append_loop(gen, scope, body, [f"{IND}for i in range(n):"], None, None, 1)
        return
    counter = gen.fresh("k")
    body.append(f"{IND}{counter} = 0")
    limit = gen.rng.randint(1, 4)
    probe = gen.pick(scope)
    test = f"np.sum({probe.name} * {probe.name}) * {counter} < {gen.rng.uniform(1, 6):.2f}"
    _append_loop(gen, scope, body, [f"{IND}while {counter} < {limit} and {test}:"],
                 counter, None, 1)


def _local_rows(gen: Generator, scope: Scope, body: list[str], rows: int) -> Var:
    """A local array of at least ``rows`` rows made from traced values."""
    fits = [v for v in scope.vars if v.shape and v.shape[0] >= rows and not
            v.name.startswith("x")]
    base = gen.pick(scope)
    if fits and gen.rng.random() < 0.5:
        src = gen.rng.choice(fits)
        scope.used(src.name)
        text, shape = f"{src.name} * 1.0", src.shape
    else:
        shape = gen.rng.choice([(4,), (5,), (4, 2), (3, 3)])
        tail = base.shape if _broadcast(base.shape, shape) == shape else ()
        term = base.name if tail == base.shape else f"np.sum({base.name})"
        text = f"np.zeros({shape!r}) + np.sin({term})"
    name = gen.fresh("y")
    body.append(f"{IND}{name} = {text}")
    return scope.add(Var(name, shape, name))


def _fancy(gen: Generator, scope: Scope, body: list[str], op: str) -> None:
    y = _local_rows(gen, scope, body, 3)
    n = y.shape[0]
    picks = [gen.rng.randrange(n) for _ in range(gen.rng.randint(2, 4))]
    picks.append(gen.rng.choice(picks))  # at least one index repeats
    gen.rng.shuffle(picks)
    index = gen.rng.choice([f"np.array({picks})", f"{picks}"])
    value_shape = gen.rng.choice([(len(picks),) + y.shape[1:], (), y.shape[1:]])
    value = gen.value_of_shape(scope, value_shape)
    body.append(f"{IND}{y.name}[{index}] {op} {value}")
    scope.consumed.discard(y.name)


def emit_fancy_add(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    _fancy(gen, scope, body, gen.rng.choice(["+=", "-=", "*="]))


def emit_fancy_set(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    _fancy(gen, scope, body, "=")


def emit_scalar_augment(gen: Generator, scope: Scope, body: list[str],
                        extras: Extras) -> None:
    """``c = W[1, 2]; c *= 2.0``: rebinds ``c``, never writes into ``W``."""
    shape = gen.rng.choice([(2, 3), (3,), (3, 2)])
    matrix = _local_rows(gen, scope, body, shape[0])
    index = ", ".join(str(gen.rng.randrange(d)) for d in matrix.shape)
    c = gen.fresh("c")
    body.append(f"{IND}{c} = {matrix.name}[{index}]")
    for _ in range(gen.rng.randint(1, 2)):
        op = gen.rng.choice(["*=", "+=", "-=", "/="])
        operand = _scalar(gen, scope, body).name if gen.rng.random() < 0.5 else None
        if op == "/=":
            value = f"(1.5 + {operand} * {operand})" if operand else "1.7"
        else:
            value = operand or gen.constant()
        body.append(f"{IND}{c} {op} {value}")
    scope.add(Var(c, (), c))
    scope.consumed.discard(matrix.name)  # the array must still reach the result unchanged


def emit_loop_in_branch(gen: Generator, scope: Scope, body: list[str],
                        extras: Extras) -> None:
    """A ``for`` or ``while`` loop in a branch of an ``if``, the other branch a loop or not."""
    acc = _start_accumulator(gen, scope, body)
    body.append(f"{IND}if {_condition(gen, scope)}:")
    _loop(gen, scope, body, acc, IND * 2)
    body.append(f"{IND}else:")
    if gen.rng.random() < 0.7:
        _loop(gen, scope, body, acc, IND * 2)
    else:
        body.append(f"{IND * 2}{acc.name} = {_update(gen, scope.child(), acc)}")


def emit_branch_in_loop(gen: Generator, scope: Scope, body: list[str],
                        extras: Extras) -> None:
    """An ``if``/``else`` on data inside a ``for`` or ``while`` body."""
    acc = _start_accumulator(gen, scope, body)
    trips = gen.rng.randint(1, 3)
    inner = scope.child()
    counter = None
    if gen.rng.random() < 0.6:
        body.append(f"{IND}for i in range({trips}):")
    else:
        counter = gen.fresh("k")
        body.append(f"{IND}{counter} = 0")
        body.append(f"{IND}while {counter} < {trips}:")
    index = "i" if counter is None else None
    body.append(f"{IND * 2}if {_condition(gen, inner)}:")
    body.append(f"{IND * 3}{acc.name} = {_update(gen, inner, acc, index, trips)}")
    body.append(f"{IND * 2}else:")
    body.append(f"{IND * 3}{acc.name} = {_update(gen, inner, acc, index, trips)}")
    if counter:
        body.append(f"{IND * 2}{counter} += 1")


def _loop(gen: Generator, scope: Scope, body: list[str], acc: Var, indent: str) -> None:
    inner = scope.child()
    if gen.rng.random() < 0.5:
        trips = gen.rng.randint(1, 3)
        body.append(f"{indent}for j in range({trips}):")
        body.append(f"{indent}{IND}{acc.name} = {_update(gen, inner, acc, 'j', trips)}")
        return
    counter = gen.fresh("k")
    body.append(f"{indent}{counter} = 0")
    body.append(f"{indent}while {counter} < {gen.rng.randint(1, 3)}:")
    body.append(f"{indent}{IND}{acc.name} = {_update(gen, inner, acc)}")
    body.append(f"{indent}{IND}{counter} += 1")


def emit_optional_none(gen: Generator, scope: Scope, body: list[str], extras: Extras) -> None:
    """``opt=None`` tested with ``is None`` / ``is not None``; called without it, with
    ``None`` and with a float or an array."""
    shape = gen.rng.choice(SHAPES)
    extras.params.append("opt=None")
    value = gen.value_of_shape(scope, ())
    extras.states += [("", {}), ("", {"opt": "None"}), ("", {"opt": gen.constant()}),
                      ("", {"opt": f"np.full({shape!r}, {gen.constant()})"})]
    target = gen.fresh("o")
    if gen.rng.random() < 0.5:
        body.append(f"{IND}if opt is None:")
        body.append(f"{IND * 2}{target} = {value}")
        body.append(f"{IND}else:")
        body.append(f"{IND * 2}{target} = np.sum({value} * opt)")
    else:
        body.append(f"{IND}{target} = {value}")
        body.append(f"{IND}if opt is not None:")
        body.append(f"{IND * 2}{target} = {target} + np.sum(np.sin(opt) * {target})")
    scope.add(Var(target, (), target))


def generate_form(seed: int, form: str) -> Program:
    """The program for ``seed`` with ``form`` planted after a few random statements;
    ``mixed`` plants two or three different forms (chosen by the seed) one after another."""
    from .forms_module import MODULE_FORMS

    emitters = {**FORMS, **MODULE_FORMS}
    if form == "mixed":
        chooser = random.Random(seed)
        parts = tuple(chooser.sample(sorted(emitters), chooser.randint(2, 3)))
    else:
        parts = (form,)
    gen = Generator(seed, parts)
    rng = gen.rng
    extras = Extras()
    module = ["import math", "", "import numpy as np", "", "import srcgrad as sg", ""]
    for index in range(rng.randint(0, 1)):
        module += ["", *gen.helper(index), ""]
    nargs = rng.randint(1, 2)
    shapes = [rng.choice(SHAPES) for _ in range(nargs)]
    kinds = [rng.choice(["float", "np.float64", "array"]) if s == () else "array"
             for s in shapes]
    params = [f"x{k}" for k in range(nargs)]
    scope = Scope([Var(p, s, p) for p, s in zip(params, shapes)])
    body: list[str] = []
    gen.block(scope, body, IND, rng.randint(1, 3))
    for part in parts:
        before = {v.name for v in scope.vars}
        emitters[part](gen, scope, body, extras)
        for var in scope.vars:  # what the form made must reach the result
            if var.name not in before:
                scope.consumed.discard(var.name)
    gen.block(scope, body, IND, rng.randint(0, 2))
    loose = [v for v in scope.unconsumed() if not v.name.startswith("x")] or scope.vars[-1:]
    terms = [f"np.sum({v.name})" if v.shape else v.name for v in loose]
    body.append("    return " + " + ".join(f"{gen.constant()} * {t}" for t in terms))
    header = f"def f({', '.join(params + extras.params)}):"
    module += ["", *extras.module, ""]
    if extras.closure is None:
        module += ["", header, *body, ""]
    else:  # f is a closure over ``_make``'s locals
        exports = f"f{extras.closure_exports}"
        module += ["", "def _make():", *extras.closure, f"{IND}{header}",
                   *(IND + line for line in body), f"{IND}return {exports}", "",
                   "", f"{exports} = _make()", ""]
    wrt = tuple(params[k] if rng.random() < 0.3 else k for k in range(nargs))
    states = tuple(dict.fromkeys((text, tuple(kw.items())) for text, kw in extras.states))
    calls = tuple((text, dict(kw)) for text, kw in states) or (("", {}),)
    return Program("\n".join(module), seed, parts, shapes, kinds, wrt, states=calls)


FORMS: dict[str, Emitter] = {
    "list_reduce": emit_list_reduce, "list_minmax": emit_list_minmax,
    "list_ufunc": emit_list_ufunc, "list_dot": emit_list_dot, "list_norm": emit_list_norm,
    "list_fsum": emit_list_fsum, "append_fixed": emit_append_fixed,
    "append_runtime": emit_append_runtime, "fancy_add": emit_fancy_add,
    "fancy_set": emit_fancy_set, "scalar_augment": emit_scalar_augment,
    "loop_in_branch": emit_loop_in_branch, "branch_in_loop": emit_branch_in_loop, "optional_none": emit_optional_none,
}
