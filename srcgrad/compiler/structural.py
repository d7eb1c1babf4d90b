"""Records for the compiler's structural primitives (Python builtins and casts).

These are not NumPy math, so they are not in the shared rule table: ``float(x)`` passes
the cotangent through unchanged (gradients are cast back to their argument's type at the
end), ``stop_gradient`` blocks it, ``int`` has none; ``seed_one``, ``checked_seed``,
``like`` and ``zeros_of`` are the run-time helpers of :mod:`.support` that seed and cast
gradients (``is_none`` tests ``x is None`` where the type is not known at compile time);
``stack_list``/``unstack`` stack a list built by a loop at run time, and undo it;
``add_items`` sums two adjoints of such a list item by item. ``not`` is Python's ``not`` on
a Python number (the user's ``not done``, a loop's ``break`` flag): a bool, as written,
where ``np.logical_not`` would give a NumPy bool at forty times the cost.
They use the same :class:`~srcgrad.rules.Rule` record, so lowering, the reverse
transform and the backend treat them like any primitive.
"""

from __future__ import annotations

import operator

from srcgrad.rules import ELEMENTWISE, LINEAR, NONDIFF, Rule

from .primitives import stop_gradient

STRUCTURAL: dict[str, Rule] = {
    r.name: r
    for r in (
        # elementwise, so forward mode reuses `g -> g` with the tangent (never float(t))
        Rule("float", float, inputs=("x",), kind=ELEMENTWISE, vjp={"x": lambda g: g},
             structural=True),
        Rule("stop_gradient", stop_gradient, inputs=("x",), kind=NONDIFF,
             structural=True, view=True),
        Rule("int", int, inputs=("x",), kind=NONDIFF, structural=True),
        Rule("not", operator.not_, inputs=("x",), kind=NONDIFF, structural=True,
             operator="not"),
    )
}


def _support_rules() -> dict[str, Rule]:
    from . import support

    return {
        "seed_one": Rule("seed_one", support.seed_one, inputs=("out",), kind=NONDIFF,
                         structural=True),
        "like": Rule("like", support.like, inputs=("d", "x"), kind=LINEAR,
                     vjp={"d": lambda g: g}, structural=True),
        # linear (the identity), so a tangent or cotangent of the seed passes through it
        "checked_seed": Rule("checked_seed", support.checked_seed, inputs=("seed",),
                             params=("shape",), kind=LINEAR,
                             vjp={"seed": lambda g, shape: g}, structural=True),
        "seed_of_shape": Rule("seed_of_shape", support.seed_of_shape, inputs=("seed",),
                              params=("shape",), kind=LINEAR,
                              vjp={"seed": lambda g, shape: g}, structural=True),
        "tangent_of_shape": Rule("tangent_of_shape", support.tangent_of_shape,
                                 inputs=("tangent",), params=("shape",), kind=LINEAR,
                                 vjp={"tangent": lambda g, shape: g}, structural=True),
        # (a new array of zeros, or an immutable 0.0: a loop may add into it in place)
        "zeros_of": Rule("zeros_of", support.zeros_of, inputs=("x",), kind=NONDIFF,
                         structural=True, fresh=True),
        "is_none": Rule("is_none", support.is_none, inputs=("x",), kind=NONDIFF, structural=True),
        "stack_list": Rule("stack_list", support.stack_list, inputs=("xs",), params=("axis",),
                           kind=LINEAR, form="xs, axis=0",
                           vjp={"xs": lambda g, axis: support.unstack(g, axis)}, structural=True),
        "add_items": Rule("add_items", support.add_items, inputs=("xs", "ys"), kind=LINEAR,
                          vjp={"xs": lambda g: g, "ys": lambda g: g}, structural=True),
        "unstack": Rule("unstack", support.unstack, inputs=("x",), params=("axis",),
                        kind=LINEAR, form="x, axis=0",
                        vjp={"x": lambda g, axis: support.stack_list(g, axis)}, structural=True),
    }


STRUCTURAL.update(_support_rules())


def _attach() -> None:
    """Let rule bodies that call these helpers on symbolic values find their rules."""
    from . import support

    support.stack_list.__srcgrad_rule__ = STRUCTURAL["stack_list"]  # type: ignore[attr-defined]
    support.unstack.__srcgrad_rule__ = STRUCTURAL["unstack"]  # type: ignore[attr-defined]
    support.add_items.__srcgrad_rule__ = STRUCTURAL["add_items"]  # type: ignore[attr-defined]
    support.checked_seed.__srcgrad_rule__ = STRUCTURAL["checked_seed"]  # type: ignore[attr-defined]
    support.seed_of_shape.__srcgrad_rule__ = STRUCTURAL["seed_of_shape"]  # type: ignore[attr-defined]
    support.tangent_of_shape.__srcgrad_rule__ = STRUCTURAL["tangent_of_shape"]  # type: ignore[attr-defined]


_attach()
