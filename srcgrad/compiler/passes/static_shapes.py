"""Static shapes for the shape classes of ``passes/shapes.py``: arrays whose shape is known
at compile time although no argument's shape is.

The compiler specialises on ranks and dtypes, not shapes, so most classes are anchored on
a value (``shape(x) == shape(y)`` because ``y = sin(x)``). Some shapes are facts of the
code itself: ``np.array([a, b])`` of two numbers is ``(2,)`` whatever the arguments. Such
values share a class per static shape (every ``np.array([u, v])`` of numbers in the
function, the four stages of an RK4 step for instance), and broadcasting against one gives
its shape back when the other operands cannot add or stretch an axis:

    k1 = np.array([s[1], f(s[0])])       (2,)
    k2 = np.array([t[1], f(t[0])])       (2,)   same class as k1
    u = k1 + 2.0 * k2                    (2,)   (a number broadcasts to anything)
    t = s + 0.5 * h * k1                 (2,)   s has rank 1 and (2,) has no axis of
                                                length 1: s + k1 is (2,) or an error

so the adjoint's ``unbroadcast(g, shape(k1))`` of such sums is ``g`` itself and no
``np.shape`` of them is computed or saved on the tape.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Op, Value, const_value


def _number(v: Any) -> bool:
    t = v.type if isinstance(v, Value) else None
    return t is not None and t.known_ndim == 0


def stacked_shape(op: Op) -> tuple[int, ...] | None:
    """The shape of ``stack(xs=(numbers...), axis=0)``: ``(len(xs),)``; else None."""
    if op.prim != "stack" or len(op.outputs) != 1:
        return None
    items = op.args.get("xs")
    axis = op.args.get("axis")
    if not isinstance(items, tuple) or not items or not all(map(_number, items)):
        return None
    is_const, c = const_value(axis) if isinstance(axis, Value) else (False, None)
    if not is_const or type(c) is not int or c not in (0, -1):
        return None  # (a 1-d result: axis 0 and -1 are the same axis)
    return (len(items),)


def broadcast_keeps(shape: tuple[int, ...], others: list[Value]) -> bool:
    """Broadcasting ``others`` against an array of static ``shape`` gives ``shape`` (or
    raises): no axis of ``shape`` has length 1 (which another operand could stretch) and
    every other operand has a known rank no larger (so it adds no axis in front)."""
    if any(n == 1 for n in shape):
        return False
    for v in others:
        t = v.type
        if t is None or t.known_ndim is None or t.known_ndim > len(shape):
            return False
    return True


def note_static(classes: Any, v: Value, shape: tuple[int, ...]) -> None:
    """``v`` has a shape known at compile time: it joins the class of every such value."""
    if shape in classes.static:
        classes.rep[v.id] = classes.static[shape]
    else:
        classes.static[shape], classes.static_of[v.id] = v, shape


def broadcast_static(classes: Any, op: Op, shaped: dict[int, Value]) -> None:
    """An elementwise ``op`` with an operand of static shape that the others cannot
    broadcast larger has that shape (``shaped``: its operands' classes, numbers left out)."""
    statics = [rep for rep in shaped.values() if rep.id in classes.static_of]
    if len(statics) != 1:
        return
    others = [v for v in op.operands()
              if classes.of(v) is not statics[0] and not _number(v)]
    if broadcast_keeps(classes.static_of[statics[0].id], others):
        classes.rep[op.out.id] = statics[0]
