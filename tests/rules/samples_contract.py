"""Samples for ``contract`` (``rules/contract.py``: einsum run as matmul in the adjoints of
einsum and tensordot), one per subscript pattern its plans specialise and per fallback:
imported by the last line of ``samples.py``."""

from __future__ import annotations

from .samples import R, Sample, add

_CONTRACTS = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),   # batched matmul
    ("bqk,bke->bqe", [(2, 3, 4), (2, 4, 2)]),   # attention's p @ v
    ("bqe,bke->bqk", [(2, 3, 4), (2, 5, 4)]),   # attention's q @ k.T
    ("btd,bte->de", [(2, 3, 4), (2, 3, 5)]),    # a weight's cotangent: batch contracted
    ("ij,jk->ki", [(3, 4), (4, 2)]),            # 2-d matmul, transposed output
    ("i,i->", [(5,), (5,)]),                    # a scalar result
    ("bi,bj->bij", [(2, 3), (2, 4)]),           # nothing contracted: a broadcast product
    ("ijk,k->i", [(2, 3, 4), (4,)]),            # j only in the first operand: summed first
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),  # three operands: an optimised path
    ("ij,ij->i", [(4, 1), (4, 3)]),             # size-1 broadcasting: np.einsum fallback
    ("...ij,jk->...ik", [(2, 3, 4), (4, 5)]),   # ellipsis: np.einsum fallback
]
for _subs, _shapes in _CONTRACTS:
    add("contract", Sample({"subscripts": _subs, "operands": [R(s) for s in _shapes]},
                           label=_subs))
