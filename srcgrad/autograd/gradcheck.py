"""``sg.autograd.gradcheck``: PyTorch's check of analytic gradients against finite differences.

The analytic Jacobian is built one row at a time with ``autograd.grad`` (a unit cotangent
per output element); the numerical one by central differences, perturbing each input
element in place by ``eps``. They must agree within ``atol + rtol * |numerical|``. Use
float64 inputs: in float32 the differences are too coarse for the default tolerances.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .api import grad
from .graph import tensor_type


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical Jacobians differ."""


def _outputs(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> list[Any]:
    out = fn(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _analytic(fn: Callable[..., Any], inputs: tuple[Any, ...], wrt: list[int]) -> list[Any]:
    tensor = tensor_type()
    outs = _outputs(fn, inputs)
    blocks = []
    for o in outs:
        rows = [np.zeros((o._data.size, inputs[i]._data.size)) for i in wrt]
        if o.requires_grad:
            for r in range(o._data.size):
                seed = np.zeros(o._data.size, dtype=o._data.dtype)
                seed[r] = 1
                gs = grad([o], [inputs[i] for i in wrt],
                          [tensor._wrap(seed.reshape(o._data.shape))], retain_graph=True,
                          allow_unused=True)
                for k, g in enumerate(gs):
                    if g is not None:
                        rows[k][r] = g._data.reshape(-1)
        blocks.append(rows)
    return blocks


def _numerical(fn: Callable[..., Any], inputs: tuple[Any, ...], wrt: list[int],
               eps: float) -> list[Any]:
    # Grad mode stays on: ``fn`` may itself differentiate (gradgradcheck's first order).
    outs = _outputs(fn, inputs)
    blocks = [[np.zeros((o._data.size, inputs[i]._data.size)) for i in wrt] for o in outs]
    for k, i in enumerate(wrt):
        data = inputs[i]._data  # perturbed in place, element by element (any layout)
        for j, index in enumerate(np.ndindex(data.shape)):
            orig = data[index].item()
            data[index] = orig + eps
            plus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
            data[index] = orig - eps
            minus = [o._data.astype(np.float64).reshape(-1) for o in _outputs(fn, inputs)]
            data[index] = orig
            for b, (p, m) in enumerate(zip(plus, minus)):
                blocks[b][k][:, j] = (p - m) / (2 * eps)
    return blocks


def gradcheck(fn: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, **_: Any) -> bool:
    """True if ``fn``'s analytic gradients match finite differences (else raise/False)."""
    tensor = tensor_type()
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    for i in wrt:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                          "floating point. This check will likely fail if all the inputs "
                          "are not of double precision floating point.", UserWarning,
                          stacklevel=2)
    analytic = _analytic(fn, inputs, wrt)
    numerical = _numerical(fn, inputs, wrt, eps)
    for o, (a_rows, n_rows) in enumerate(zip(analytic, numerical)):
        for k, (a, n) in enumerate(zip(a_rows, n_rows)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                message = (f"Jacobian mismatch for output {o} with respect to input {wrt[k]},"
                           f"\nnumerical:{n}\nanalytical:{a}\n")
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def gradgradcheck(fn: Callable[..., Any], inputs: Any, **kwargs: Any) -> bool:
    """``gradcheck`` of the first derivative (a vector-Jacobian product with ones)."""
    tensor = tensor_type()
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [t for t in inputs if isinstance(t, tensor) and t.requires_grad]

    def first(*xs: Any) -> Any:
        outs = _outputs(fn, xs)
        seeds = [tensor._wrap(np.ones_like(o._data)) for o in outs]
        chosen = [x for x, t in zip(xs, inputs) if any(t is w for w in wrt)]
        return grad(outs, chosen, seeds, create_graph=True, allow_unused=True)

    return gradcheck(first, inputs, **kwargs)
