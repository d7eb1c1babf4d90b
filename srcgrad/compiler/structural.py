"""Records for the compiler's structural primitives (Python builtins and casts).

These are not NumPy math, so they are not in the shared rule table: ``float(x)`` passes
the cotangent through unchanged (gradients are cast back to their argument's type at the
end), ``stop_gradient`` blocks it, ``int`` has none; ``seed_one``, ``like`` and
``zeros_of`` are the run-time helpers of :mod:`.support` that seed and cast gradients.
They use the same :class:`~srcgrad.rules.Rule` record, so lowering, the reverse
transform and the backend treat them like any primitive.
"""

from __future__ import annotations

from srcgrad.rules import LINEAR, NONDIFF, Rule

from .primitives import stop_gradient

STRUCTURAL: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("float", float, inputs=("x",), kind=LINEAR, vjp={"x": lambda g: g}),
        Rule("stop_gradient", stop_gradient, inputs=("x",), kind=NONDIFF),
        Rule("int", int, inputs=("x",), kind=NONDIFF),
    )
}


def _support_rules() -> dict[str, Rule]:
    from . import support

    return {
        "seed_one": Rule("seed_one", support.seed_one, inputs=("out",), kind=NONDIFF),
        "like": Rule("like", support.like, inputs=("d", "x"), kind=LINEAR,
                     vjp={"d": lambda g: g}),
        "zeros_of": Rule("zeros_of", support.zeros_of, inputs=("x",), kind=NONDIFF),
    }


STRUCTURAL.update(_support_rules())
