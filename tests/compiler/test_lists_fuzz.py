"""A seeded fuzzer of the forms users write with lists: items computed from the
differentiated argument, packed in a list or tuple (nested sometimes, or appended in a
loop), handed to a NumPy function, a ufunc, an operator against an array, or a builtin
reduction. Every program is right or refused: its gradient (``sg.grad``) and directional
derivative (``sg.jvp``) match central finite differences, or it raises ``SrcGradError``
(only for consumers srcgrad has no rule for; none here). DESIGN.md principle 10.
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from fd import assert_close, numeric_gradient

import srcgrad as sg
from tests.compiler.user_modules import load_module

ITEMS = ["{v}", "2.0 * {v}", "np.sin({v})", "{v} * {v}", "np.exp(0.3 * {v})", "1.5",
         "{v} - 0.25", "np.tanh({v}) * {v}"]
# consumer template, and whether it needs scalar items (builtins, math)
CONSUMERS = [
    ("np.sum({L})", False), ("np.mean({L})", False), ("np.prod({L})", False),
    ("np.max({L})", False), ("np.min({L})", False), ("np.linalg.norm({L})", False),
    ("np.sum(np.exp({L}))", False), ("np.sum(np.maximum({L}, 0.1))", False),
    ("np.var({L})", False), ("np.std({L})", False), ("np.sum(np.cumsum({L}))", False),
    ("np.sum(np.stack({L}) ** 2)", False), ("np.sum(np.vstack({L}) ** 2)", False),
    ("np.sum(np.hstack({L}) ** 2)", False), ("np.sum(np.append({L}, {L}) ** 2)", False),
    ("np.sum(np.asarray({L}) * 3.0)", False), ("np.sum({L} * W)", False),
    ("np.sum(np.square({L}))", False), ("np.dot(np.ravel({L}), np.ravel({L}))", False),
    ("np.sum(np.mean({L}, axis=0) ** 2)", False), ("np.sum(np.where(M, {L}, 0.5))", False),
    ("sum({L})", True), ("max({L})", True), ("min({L})", True), ("math.fsum({L})", True),
    ("math.prod({L})", True),
]


def _program(seed: int) -> tuple[str, bool, str]:
    rng = random.Random(seed)
    template, scalar_only = rng.choice(CONSUMERS)
    n = 3  # W and M below are shaped for three items
    items = [rng.choice(ITEMS) for _ in range(n)]
    if not any("{v}" in it for it in items):
        items[0] = "{v}"
    as_array = not scalar_only and rng.random() < 0.5
    arg = "xs" if as_array else "x"
    if as_array:  # array items, shaped like the argument (constants broadcast to it)
        items = [it if "{v}" in it else f"{it} + 0.0 * {{v}}" for it in items]
    items = [it.format(v=arg) for it in items]
    open_, close = ("(", ")") if rng.random() < 0.4 else ("[", "]")
    packed = open_ + ", ".join(items) + ("," if open_ == "(" and len(items) == 1 else "") \
        + close
    body = []
    if rng.random() < 0.3 and "{L}" in template and template.count("{L}") == 1:
        # the recurrent pattern: the same items appended in a loop with a known horizon
        body.append("    items = []")
        body.append(f"    for k in range({n}):")
        body.append(f"        items.append({packed}[k])")
        packed = "items"
    body.append(f"    return {template.format(L=packed)}")
    source = ("import math\nimport numpy as np\n\n"
              "W = np.array([0.5, -1.0, 2.0])\nM = np.array([True, False, True])\n\n\n"
              f"def f({arg}):\n" + "\n".join(body) + "\n")
    if as_array:
        source = source.replace("W = np.array([0.5, -1.0, 2.0])",
                                "W = np.array([[0.5], [-1.0], [2.0]])")
        source = source.replace("M = np.array([True, False, True])",
                                "M = np.array([[True], [False], [True]])")
    return source, as_array, template


@pytest.mark.parametrize("seed", range(120))
def test_lists_into_numpy_are_right(seed, tmp_path):
    source, as_array, _ = _program(seed)
    name = f"srcgrad_lists_fuzz_{seed}"
    module = load_module(tmp_path, name, source)
    try:
        f = module.f
        x = np.array([0.7, -0.4]) if as_array else 0.7
        sg.clear_cache()
        want = numeric_gradient(f, [x], {}, 0)
        assert_close(sg.grad(f)(x), want, rtol=1e-5, atol=1e-6,
                     what=f"reverse, program:\n{source}")
        u = np.array([0.3, -1.1]) if as_array else -0.8
        _, tangent = sg.jvp(f)(x, u)
        assert_close(tangent, float(np.sum(want * u)), rtol=1e-5, atol=1e-6,
                     what=f"forward, program:\n{source}")
    finally:
        sys.modules.pop(name, None)
