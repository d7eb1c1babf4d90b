"""Dense Jacobians from a forward-mode derived function: one ``jvp`` pass per input element.

``sg.jacobian(f)(x)`` has shape ``f(x).shape + x.shape``; column ``j`` is the tangent of
the result for the unit tangent ``e_j`` of ``x``. ``sg.hessian`` is the Jacobian of
``sg.grad`` (forward over reverse).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _unit(x: Any, j: int) -> Any:
    if type(x) is float or np.ndim(x) == 0 and not isinstance(x, np.ndarray):
        return type(x)(1.0) if isinstance(x, np.generic) else 1.0
    e = np.zeros(np.size(x), dtype=np.result_type(x, 1.0))
    e[j] = 1.0
    return e.reshape(np.shape(x))


def _zero(x: Any) -> Any:
    if type(x) is float:
        return 0.0
    return np.zeros_like(x, dtype=np.result_type(x, 1.0))


def jacobian_of(fw: Any, wrt: Any) -> Any:
    """``J(*args, **kwargs)`` built on ``fw = sg.jvp(f, wrt=wrt)``."""
    d = fw.__srcgrad__

    def J(*args: Any, **kwargs: Any) -> Any:
        values = d.bind([*args, None], kwargs)[:-1]  # the tangent slot filled below
        required = [p.name for p in d.signature.parameters.values()
                    if p.kind != p.KEYWORD_ONLY and p.name != "tangent"]
        positional = [values[d.param_names.index(n)] for n in required]
        keywords = {n: values[i] for i, n in enumerate(d.param_names) if n not in required}
        blocks = []
        for i in d.wrt:
            x = values[i]
            columns, out = [], None
            for j in range(int(np.size(x))):
                parts = [_unit(x, j) if k == i else _zero(values[k]) for k in d.wrt]
                tangent = tuple(parts) if d.tuple_wrt else parts[0]
                out, t = fw(*positional, tangent, **keywords)
                columns.append(np.asarray(t, dtype=float))
            stacked = np.stack(columns, axis=-1) if columns else np.zeros(np.shape(out) + (0,))
            blocks.append(stacked.reshape(np.shape(out) + np.shape(x)))
        return tuple(blocks) if d.tuple_wrt else blocks[0]

    J.__name__ = f"jacobian_{getattr(d.f, '__name__', 'f')}"
    J.__srcgrad__ = d  # type: ignore[attr-defined]
    return J
