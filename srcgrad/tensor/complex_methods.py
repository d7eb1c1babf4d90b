"""PyTorch's complex-number spellings on the (always real) Tensor: ``t.real``, ``t.imag``,
``t.conj()``, ``sg.real``, ``sg.imag``, ``sg.conj``.

Where it sits: a Tensor mixin of the runtime. Tensors hold real values only, and on a real
tensor PyTorch's ``real`` and ``conj()`` return the tensor itself (no new node: the value
and its gradient are the same object) while ``imag`` raises; these follow that. The NumPy
spellings (``np.real(t)``, ``np.conj(t)``, ``np.imag(t)``) go through the rule table
(``srcgrad/rules/complex_parts.py``) like any NumPy function applied to a Tensor.
"""

from __future__ import annotations

from typing import Any


class ComplexMethods:
    """``real`` / ``imag`` / ``conj`` of a real tensor, as in PyTorch."""

    @property
    def real(self) -> Any:
        """The tensor itself: its values are real."""
        return self

    @property
    def imag(self) -> Any:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")

    def conj(self) -> Any:
        """The tensor itself: conjugating real values changes nothing."""
        return self


def real(input: Any) -> Any:  # noqa: A002 (PyTorch's name)
    """``sg.real(t)`` is ``t.real``."""
    from .functions import as_tensor

    return as_tensor(input).real


def imag(input: Any) -> Any:  # noqa: A002
    """``sg.imag(t)`` is ``t.imag`` (raises: tensors are real)."""
    from .functions import as_tensor

    return as_tensor(input).imag


def conj(input: Any) -> Any:  # noqa: A002
    """``sg.conj(t)`` is ``t.conj()``."""
    from .functions import as_tensor

    return as_tensor(input).conj()
