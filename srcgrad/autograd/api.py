"""``sg.autograd.backward`` and ``sg.autograd.grad``: the user's entry to the engine.

``backward`` accumulates into the leaves' ``.grad`` (or only into ``inputs``);
``grad`` returns the gradients with respect to ``inputs`` and leaves every ``.grad``
untouched. Both take PyTorch's arguments and raise PyTorch's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine import execute
from .graph import tensor_type


def _tensors(value: Any, what: str) -> list[Any]:
    tensor = tensor_type()
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for i, t in enumerate(items):
        if not isinstance(t, tensor):
            raise TypeError(f"{what} must be Tensors, got {type(t).__name__} at index {i}")
    return items


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad``."""
    roots = _tensors(tensors, "tensors")
    only = None if inputs is None else _tensors(inputs, "inputs")
    if only is not None and not only:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    execute(roots, grad_tensors, retain_graph, create_graph, only, accumulate_grads=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool | None = None, materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple."""
    roots = _tensors(outputs, "outputs")
    targets: Sequence[Any] = _tensors(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    for t in targets:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    found = execute(roots, grad_outputs, retain_graph, create_graph, list(targets),
                    accumulate_grads=False)
    tensor = tensor_type()
    result = []
    for k, (t, g) in enumerate(zip(targets, found)):
        if g is None:
            if materialize_grads:
                result.append(tensor._wrap(np.zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {k} appears to not "
                                   "have been used in the graph. Set allow_unused=True if "
                                   "this is the desired behavior.")
            result.append(None)
        elif isinstance(g, tensor):
            result.append(g)
        else:
            result.append(tensor._wrap(np.asarray(g)))
    return tuple(result)
