"""Records for the compiler's structural primitives (Python builtins and casts).

These are not NumPy math, so they are not in the shared rule table: ``float(x)`` and
``x.astype(t)`` pass the cotangent through unchanged (the gradient is cast back to the
argument's type at the end), ``stop_gradient`` blocks it, ``len``/``int``/``shape``/
``ndim``/``size``/``dtype`` have none. They use the same :class:`~srcgrad.rules.Rule`
record, so lowering, the reverse transform and the backend treat them like any primitive.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from srcgrad.rules import LINEAR, NONDIFF, Rule

from .primitives import stop_gradient


def _astype(x: Any, dtype: Any) -> Any:
    return x.astype(dtype)


STRUCTURAL: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("float", float, inputs=("x",), kind=LINEAR, vjp={"x": lambda g: g}),
        Rule("astype", _astype, inputs=("x",), params=("dtype",), kind=LINEAR,
             vjp={"x": lambda g: g}),
        Rule("stop_gradient", stop_gradient, inputs=("x",), kind=NONDIFF),
        Rule("int", int, inputs=("x",), kind=NONDIFF),
        Rule("len", len, inputs=("x",), kind=NONDIFF),
        Rule("shape", np.shape, inputs=("x",), kind=NONDIFF),
        Rule("ndim", np.ndim, inputs=("x",), kind=NONDIFF),
        Rule("size", np.size, inputs=("x",), kind=NONDIFF),
        Rule("dtype", lambda x: x.dtype, inputs=("x",), kind=NONDIFF),
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
