"""How NumPy's tuple-returning linear algebra calls map onto their item primitives
(:mod:`.multi` records; the items' rules are in :mod:`.decompositions` and
:mod:`.matrix_functions`).

=====================================  ===================================================
``np.linalg.eigh(a, UPLO)``            ``EighResult(eigh_values, eigh_vectors)``
``np.linalg.svd(a, full_matrices,      ``SVDResult(svd_u, svd_s, svd_vt)``; with
compute_uv, hermitian)``               ``compute_uv=False`` the array ``svdvals(a)``
``np.linalg.qr(a, mode)``              ``'reduced'``: ``QRResult(qr_q, qr_r)``; ``'r'``:
                                       the array ``qr_r(a)``; other modes refused
``np.linalg.slogdet(a)``               ``SlogdetResult(slogdet_sign, slogdet_logabsdet)``
=====================================  ===================================================

The results are NumPy's own named tuples, so ``w, V = np.linalg.eigh(A)``,
``np.linalg.eigh(A).eigenvalues`` and ``np.linalg.slogdet(A)[1]`` read as in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .multi import Item, defmulti

_EYE = np.eye(2)
EighResult = type(np.linalg.eigh(_EYE))
SVDResult = type(np.linalg.svd(_EYE))
QRResult = type(np.linalg.qr(_EYE))
SlogdetResult = type(np.linalg.slogdet(_EYE))


def _single_or(named: Any) -> Any:
    """``named(*items)``, or the one item's array when the call returns a single array."""
    def result(items: list[Any]) -> Any:
        return items[0] if len(items) == 1 else named(*items)
    return result


def _svd_items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
    a = env["a"]
    if env["hermitian"]:
        raise ValueError("np.linalg.svd(..., hermitian=True) is not supported in "
                         "differentiated code; use np.linalg.eigh for a symmetric matrix")
    if not env["compute_uv"]:
        return [Item("svdvals", {"x": a})]
    full = bool(env["full_matrices"])
    return [Item("svd_u", {"x": a, "full_matrices": full}), Item("svd_s", {"x": a}),
            Item("svd_vt", {"x": a, "full_matrices": full})]


def _qr_items(env: dict[str, Any], ndims: dict[str, int | None]) -> list[Item]:
    mode = env["mode"]
    if mode == "reduced":
        return [Item("qr_q", {"x": env["a"]}), Item("qr_r", {"x": env["a"]})]
    if mode == "r":
        return [Item("qr_r", {"x": env["a"]})]
    raise ValueError(f"np.linalg.qr(..., mode={mode!r}) is not supported in differentiated "
                     "code; use mode='reduced' (the default) or mode='r'")


defmulti("linalg.eigh", np.linalg.eigh, form="a, UPLO='L'", inputs=("a",),
         item_rules=("eigh_values", "eigh_vectors"),
         items=lambda env, ndims: [Item("eigh_values", {"x": env["a"], "UPLO": env["UPLO"]}),
                                   Item("eigh_vectors", {"x": env["a"], "UPLO": env["UPLO"]})],
         result=lambda items: EighResult(*items))
defmulti("linalg.svd", np.linalg.svd,
         form="a, full_matrices=True, compute_uv=True, hermitian=False", inputs=("a",),
         item_rules=("svd_u", "svd_s", "svd_vt", "svdvals"), items=_svd_items,
         result=_single_or(SVDResult))
defmulti("linalg.qr", np.linalg.qr, form="a, mode='reduced'", inputs=("a",),
         item_rules=("qr_q", "qr_r"), items=_qr_items, result=_single_or(QRResult))
defmulti("linalg.slogdet", np.linalg.slogdet, form="a", inputs=("a",),
         item_rules=("slogdet_sign", "slogdet_logabsdet"),
         items=lambda env, ndims: [Item("slogdet_sign", {"x": env["a"]}),
                                   Item("slogdet_logabsdet", {"x": env["a"]})],
         result=lambda items: SlogdetResult(*items))
