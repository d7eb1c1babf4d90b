"""The fuzzer's optional constructs: branches, loops, ``break``/``continue``, early
``return``, subscript writes on local arrays, and writes the compiler must reject.

Each ``emit_<feature>`` appends statements to the entry function's body (four-space
indent) and leaves in scope only names defined on every path. Conditions compare a
reduction of data with a constant; they flip only on a set of measure zero, so central
differences stay valid at random points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .generator import Generator, Scope

IND = "    "


def emit_feature(gen: Generator, feature: str, scope: Scope, body: list[str]) -> None:
    before = {v.name for v in scope.vars}
    globals()[f"emit_{feature}"](gen, scope, body)
    for var in scope.vars:  # what the construct made must reach the result
        if var.name not in before:
            scope.consumed.discard(var.name)


def _condition(gen: Generator, scope: Scope) -> str:
    a = gen.pick(scope)
    total = f"np.sum({a.name})" if a.shape else a.name
    roll = gen.rng.random()
    if roll < 0.5:
        return f"{total} {gen.rng.choice(['>', '<', '>=', '<='])} {gen.constant()}"
    b = gen.pick(scope)
    other = f"np.mean({b.name})" if b.shape else b.name
    if roll < 0.7:
        return f"{total} > {gen.constant()} and {other} < {gen.constant()}"
    if roll < 0.85:
        return f"not {total} > {gen.constant()} or {other} > 0.5"
    low = round(gen.rng.uniform(-2.0, 0.0), 2)
    return f"{low} < {total} < {low + 2.5}"


def _update(gen: Generator, scope: Scope, acc, index: str | None = None,
            trips: int = 3) -> str:
    """A new value for loop-carried ``acc`` of the same shape (``index`` < ``trips``)."""
    from .generator import _broadcast

    terms = [v for v in scope.vars if _broadcast(acc.shape, v.shape) == acc.shape]
    w = gen.rng.choice(terms)
    scope.used(w.name)
    choices = [f"np.sin({acc.name}) * 0.9 + {w.name}",
               f"{acc.name} * {gen.constant()} + np.tanh({w.name})",
               f"np.tanh({acc.name} * {w.name}) + {acc.name}"]
    if index is not None:
        choices.append(f"{acc.name} * (1.0 + 0.1 * {index}) - {w.name}")
        rows = [v for v in scope.vars if v.shape and v.shape[0] >= trips
                and _broadcast(acc.shape, v.shape[1:]) == acc.shape]
        if rows:
            r = gen.rng.choice(rows)
            scope.used(r.name)
            choices.append(f"{acc.name} + {r.name}[{index}] * {w.name}")
    return gen.rng.choice(choices)


def _start_accumulator(gen: Generator, scope: Scope, body: list[str]):
    from .generator import Var

    seed_var = gen.pick(scope)
    name = gen.fresh("acc")
    body.append(f"{IND}{name} = np.cos({seed_var.name}) * 0.5")
    return scope.add(Var(name, seed_var.shape, name))


def _branch(gen: Generator, scope: Scope, lines: list[str], indent: str, target: str,
            shape) -> None:
    inner = scope.child()
    gen.block(inner, lines, indent, gen.rng.randint(0, 2))
    lines.append(f"{indent}{target} = {gen.value_of_shape(inner, shape)}")


def emit_if(gen: Generator, scope: Scope, body: list[str]) -> None:
    from .generator import Var

    shape = gen.pick(scope).shape
    target = gen.fresh("b")
    if gen.rng.random() < 0.25:  # a conditional expression
        yes, no = gen.value_of_shape(scope, shape), gen.value_of_shape(scope, shape)
        body.append(f"{IND}{target} = ({yes}) if {_condition(gen, scope)} else ({no})")
    else:
        body.append(f"{IND}if {_condition(gen, scope)}:")
        _branch(gen, scope, body, IND * 2, target, shape)
        if gen.rng.random() < 0.3:
            body.append(f"{IND}elif {_condition(gen, scope)}:")
            _branch(gen, scope, body, IND * 2, target, shape)
        body.append(f"{IND}else:")
        _branch(gen, scope, body, IND * 2, target, shape)
    scope.add(Var(target, shape, target))


def emit_for(gen: Generator, scope: Scope, body: list[str]) -> None:
    """A loop over ``range``, the rows of an array, ``enumerate`` or ``zip``, carrying a
    value; sometimes collecting it per step in a list for ``np.stack`` (the RNN pattern)."""
    from .generator import Var

    acc = _start_accumulator(gen, scope, body)
    arrays = [v for v in scope.vars if len(v.shape) >= 1 and v.name != acc.name]
    collect = gen.fresh("steps") if gen.rng.random() < 0.3 else None
    if collect:
        body.append(f"{IND}{collect} = []")
    roll = gen.rng.random()
    inner = scope.child()
    index: str | None = None
    if roll < 0.3 or not arrays:
        trips = gen.rng.randint(1, 3)
        body.append(f"{IND}for i in range({trips}):")
        index = "i"
    else:
        rows = gen.rng.choice(arrays)
        trips = rows.shape[0]
        if roll < 0.55:
            body.append(f"{IND}for row in {rows.name}:")
        elif roll < 0.8:
            body.append(f"{IND}for i, row in enumerate({rows.name}):")
            index = "i"
        else:
            partner = gen.rng.choice(arrays)
            trips = min(trips, partner.shape[0])
            body.append(f"{IND}for row, other in zip({rows.name}, {partner.name}):")
            inner.add(Var("other", partner.shape[1:], partner.root))
        inner.add(Var("row", rows.shape[1:], rows.root))
    gen.block(inner, body, IND * 2, gen.rng.randint(0, 2))
    body.append(f"{IND * 2}{acc.name} = {_update(gen, inner, acc, index, trips)}")
    if collect:
        body.append(f"{IND * 2}{collect}.append({acc.name})")
        stacked = gen.fresh("stacked")
        body.append(f"{IND}{stacked} = np.stack({collect})")
        scope.add(Var(stacked, (trips,) + acc.shape, stacked))


def emit_while(gen: Generator, scope: Scope, body: list[str]) -> None:
    acc = _start_accumulator(gen, scope, body)
    counter = gen.fresh("k")
    body.append(f"{IND}{counter} = 0")
    limit = gen.rng.randint(1, 4)
    if gen.rng.random() < 0.5:
        body.append(f"{IND}while {counter} < {limit}:")
    else:
        total = f"np.sum({acc.name} * {acc.name})"
        body.append(f"{IND}while {counter} < {limit} and {total} < {gen.rng.uniform(1, 6):.2f}:")
    inner = scope.child()
    gen.block(inner, body, IND * 2, gen.rng.randint(0, 2))
    body.append(f"{IND * 2}{acc.name} = {_update(gen, inner, acc)}")
    body.append(f"{IND * 2}{counter} += 1")


def emit_break(gen: Generator, scope: Scope, body: list[str]) -> None:
    acc = _start_accumulator(gen, scope, body)
    body.append(f"{IND}for i in range({gen.rng.randint(2, 3)}):")
    inner = scope.child()
    body.append(f"{IND * 2}if {_condition(gen, inner)}:")
    body.append(f"{IND * 3}break")
    body.append(f"{IND * 2}{acc.name} = {_update(gen, inner, acc, 'i')}")


def emit_continue(gen: Generator, scope: Scope, body: list[str]) -> None:
    acc = _start_accumulator(gen, scope, body)
    body.append(f"{IND}for i in range({gen.rng.randint(2, 3)}):")
    inner = scope.child()
    body.append(f"{IND * 2}{acc.name} = {_update(gen, inner, acc, 'i')}")
    body.append(f"{IND * 2}if {_condition(gen, inner)}:")
    body.append(f"{IND * 3}continue")
    body.append(f"{IND * 2}{acc.name} = {acc.name} * 0.9")


def emit_return(gen: Generator, scope: Scope, body: list[str]) -> None:
    value = gen.pick(scope)
    body.append(f"{IND}if {_condition(gen, scope)}:")
    inner = scope.child()
    gen.block(inner, body, IND * 2, gen.rng.randint(0, 2))
    last = inner.vars[-1]
    body.append(f"{IND * 2}return np.sum({last.name}) * {gen.constant()} + np.sum({value.name})")


def emit_write(gen: Generator, scope: Scope, body: list[str]) -> None:
    """Writes into an array the function made. It is made from an argument, so that on the
    runtime it is a Tensor too: a Tensor written into a plain ndarray leaves the graph."""
    from .generator import Var

    params = [v for v in scope.vars if v.name.startswith("x")]
    arrays = [v for v in params if len(v.shape) >= 1]
    if not arrays:
        source = gen.rng.choice(params)
        scope.used(source.name)
        name = gen.fresh("z")
        body.append(f"{IND}{name} = np.zeros((3,)) + {source.name}")
        base = scope.add(Var(name, (3,), name))
    else:
        a = gen.rng.choice(arrays)
        scope.used(a.name)
        name = gen.fresh("z")
        maker = gen.rng.choice([f"np.zeros_like({a.name})", f"{a.name} * 1.0",
                                f"{a.name} + 0.0"])
        body.append(f"{IND}{name} = {maker}")
        base = scope.add(Var(name, a.shape, name))
    n = base.shape[0]
    for _ in range(gen.rng.randint(1, 3)):
        if n > 1 and gen.rng.random() < 0.5:
            region, shape = "1:", (n - 1,) + base.shape[1:]
        else:
            region, shape = gen.rng.choice(["0", "-1"]), base.shape[1:]
        if len(base.shape) == 2 and gen.rng.random() < 0.3:
            region, shape = ":, 0", base.shape[:1]
        value = gen.value_of_shape(scope, shape)
        op = gen.rng.choice(["=", "+=", "="])
        body.append(f"{IND}{name}[{region}] {op} {value}")
    if gen.rng.random() < 0.4 and n >= 2:  # a write indexed by a loop variable
        value = gen.value_of_shape(scope, base.shape[1:])
        body.append(f"{IND}for i in range({n}):")
        body.append(f"{IND * 2}{name}[i] = {name}[i] * 0.5 + {value}")


REJECT = "  # <- reject"  # marks the line the compiler's message must point at


def emit_reject(gen: Generator, scope: Scope, body: list[str]) -> None:
    """A construct the compiler must refuse: a write into an argument, a view of one or a
    shared array (API.md's aliasing rule), or a statement it cannot differentiate."""
    from .generator import Var

    args = [v for v in scope.vars if v.name.startswith("x") and v.shape]
    roll = gen.rng.random()
    if args and roll < 0.15:
        a = gen.rng.choice(args)
        body.append(f"{IND}{a.name}[{', '.join('0' * len(a.shape))}] = 1.0{REJECT}")
    elif args and roll < 0.3:
        a = gen.rng.choice(args)
        view = gen.fresh("r")
        body.append(f"{IND}{view} = {gen.rng.choice([f'{a.name}.T', f'{a.name}[0:]'])}")
        body.append(f"{IND}{view}[...] = 2.0{REJECT}")
    elif args and roll < 0.4:
        a = gen.rng.choice(args)
        body.append(f"{IND}{a.name} += 1.0{REJECT}")
    elif roll < 0.6:  # an augmented assignment mutating an array another live name shares
        # an argument itself: an array that depends on nothing differentiated is not checked
        source = gen.rng.choice([v for v in scope.vars if v.name.startswith("x")])
        mine, alias = gen.fresh("y"), gen.fresh("alias")
        body.append(f"{IND}{mine} = np.ones((2, 3)) * {source.name}")
        body.append(f"{IND}{alias} = {mine}")
        body.append(f"{IND}{mine} += {source.name}{REJECT}")
        seen = gen.fresh()  # the alias is read after the write, and reaches the result
        body.append(f"{IND}{seen} = {alias} * {mine}")
        scope.add(Var(seen, (2, 3), seen))
    else:  # a statement outside the differentiable subset
        a = gen.pick(scope)
        name = gen.fresh("u")
        body.extend(gen.rng.choice([
            [f"{IND}{name} = {a.name} * 2.0", f"{IND}del {name}{REJECT}"],
            [f"{IND}try:{REJECT}", f"{IND * 2}{name} = np.sin({a.name})",
             f"{IND}except ValueError:", f"{IND * 2}{name} = {a.name}"],
            [f"{IND}with np.errstate(all='ignore'):{REJECT}",
             f"{IND * 2}{name} = np.sin({a.name})"],
            [f"{IND}global COUNTER{REJECT}", f"{IND}COUNTER = {a.name}"],
        ]))
