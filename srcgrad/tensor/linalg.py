"""``sg.linalg``: the runtime's linear algebra in PyTorch's spellings (``torch.linalg``).

Where it sits: the Tensor layer, above the rule table. Each function records the table's
rule (``symmetric_cholesky``, ``pinv``, ``norm``, ...) or, for a tuple result, its
items (``symmetric_eigh_values``/``symmetric_eigh_vectors``, ``svd_u``, ...) through
:func:`.numpy_protocol.record_items`, one node per item named as PyTorch names the call's
one node (``LinalgEighBackward0``). PyTorch's signatures and defaults: ``svd`` returns
``(U, S, Vh)`` with ``full_matrices=True``; ``vector_norm`` with ``dim=None`` is the norm
of every element; ``matrix_norm`` defaults to ``'fro'`` over the last two axes;
``cholesky``/``eigh``/``eigvalsh`` differentiate as PyTorch's, treating the input as
symmetric (:mod:`srcgrad.rules.symmetric_input`; ``np.linalg.*`` on a Tensor reads one
triangle, as NumPy computes).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from ..rules import rule_named
from ..rules.multi import Item
from . import ops as _ops
from .arrange_methods import linalg_cross as cross  # (shape, issue 14)

# torch.return_types.linalg_eigh, linalg_svd, linalg_qr, linalg_slogdet
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])


def _tensor(value: Any) -> Any:
    from .functions import as_tensor  # (functions imports the Tensor class)

    return as_tensor(value)


def _record(name: str, *inputs: Any, **params: Any) -> Any:
    return _ops.record(rule_named(name), tuple(_tensor(x) for x in inputs), params)


def _items(items: list[Item], result: Any) -> Any:
    from .numpy_protocol import record_items  # (numpy_protocol imports the Tensor class)

    return record_items(items, result)


def cholesky(A: Any, *, upper: bool = False) -> Any:  # noqa: N803 (PyTorch's names)
    """``torch.linalg.cholesky``: the lower (or ``upper``) Cholesky factor of ``A``."""
    return _record("symmetric_cholesky", A, upper=upper)


def eigvalsh(A: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """``torch.linalg.eigvalsh``: the ascending eigenvalues of symmetric ``A``."""
    return _record("symmetric_eigvalsh", A, UPLO=UPLO)


def eigh(A: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """``torch.linalg.eigh``: ``(eigenvalues, eigenvectors)`` of symmetric ``A``."""
    a = _tensor(A)
    env = {"x": a, "UPLO": UPLO}
    return _items([Item("symmetric_eigh_values", env), Item("symmetric_eigh_vectors", env)],
                  lambda values: EighResult(*values))


def svdvals(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.svdvals``: the descending singular values of ``A``."""
    return _record("svdvals", A)


def svd(A: Any, full_matrices: bool = True) -> Any:  # noqa: N803
    """``torch.linalg.svd``: ``(U, S, Vh)`` with ``A = U diag(S) Vh`` (an ``SVDResult``)."""
    a = _tensor(A)
    full = bool(full_matrices)
    return _items([Item("svd_u", {"x": a, "full_matrices": full}), Item("svd_s", {"x": a}),
                   Item("svd_vt", {"x": a, "full_matrices": full})],
                  lambda values: SVDResult(*values))


def qr(A: Any, mode: str = "reduced") -> Any:  # noqa: N803
    """``torch.linalg.qr``: ``(Q, R)`` of ``A`` (a ``QRResult``)."""
    if mode != "reduced":
        raise ValueError(f"sg.linalg.qr(mode={mode!r}): only mode='reduced' differentiates")
    a = _tensor(A)
    return _items([Item("qr_q", {"x": a}), Item("qr_r", {"x": a})],
                  lambda values: QRResult(*values))


def slogdet(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.slogdet``: ``(sign, logabsdet)`` of ``A`` (a ``SlogdetResult``)."""
    a = _tensor(A)
    return _items([Item("slogdet_sign", {"x": a}), Item("slogdet_logabsdet", {"x": a})],
                  lambda values: SlogdetResult(*values))


def pinv(A: Any, *, rtol: float | None = None, hermitian: bool = False) -> Any:  # noqa: N803
    """``torch.linalg.pinv``: the Moore-Penrose pseudo-inverse of ``A``."""
    # NumPy's rcond is PyTorch's rtol (relative to the largest singular value)
    return _record("pinv", A, rcond=rtol, hermitian=hermitian)


def matrix_power(A: Any, n: int) -> Any:  # noqa: N803
    """``torch.linalg.matrix_power``: ``A`` to the integer power ``n``."""
    return _record("matrix_power", A, n=int(n))


def multi_dot(tensors: Sequence[Any]) -> Any:
    """``torch.linalg.multi_dot``: the product of a list of matrices."""
    return _ops.record(rule_named("multi_dot"), ([_tensor(t) for t in tensors],), {})


def inv(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.inv``: the inverse of ``A``."""
    return _record("inv", A)


def det(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.det``: the determinant of ``A``."""
    return _record("det", A)


def solve(A: Any, B: Any) -> Any:  # noqa: N803
    """``torch.linalg.solve``: ``X`` with ``A @ X = B``."""
    return _record("solve", A, B)


def _axis(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def norm(A: Any, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002,N803
    """``torch.linalg.norm``: NumPy's ``norm`` (a vector or matrix norm by ``dim``/ndim)."""
    # (the rule's resolve makes axis explicit from the ndim when it is recorded)
    return _record("norm", A, ord=ord, axis=_axis(dim), keepdims=keepdim)


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    """``torch.linalg.vector_norm``: the ``ord``-norm of ``x`` over ``dim`` (all by default)."""
    t = _tensor(x)
    if dim is None:  # every element, whatever the ndim
        if keepdim:
            return norm(t.reshape(-1), ord, 0, True).reshape((1,) * t.ndim)
        return norm(t.reshape(-1), ord, 0)
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if len(dims) != 1:
        # NumPy's pair of axes is a matrix norm: another function than PyTorch's here
        raise RuntimeError(f"sg.linalg.vector_norm over several dims {dims} is not supported "
                           "by srcgrad; move them last and reshape them into one first")
    return norm(t, ord, dims[0], keepdim)


def matrix_norm(A: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False) -> Any:  # noqa: A002,N803
    """``torch.linalg.matrix_norm``: the ``ord`` matrix norm over the two dims ``dim``."""
    return norm(A, ord, tuple(dim), keepdim)


__all__ = ["EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cross", "det",
           "eigh",
           "eigvalsh", "inv", "matrix_norm", "matrix_power", "multi_dot", "norm", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "vector_norm"]
