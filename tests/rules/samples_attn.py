"""Samples for ``contract_to`` (``rules/contract_to.py``: einsum's cotangents with the
subscripts resolved when compiling, fitted to the operand's shape), one per way the
fitting works: nothing to fit, an index only the operand has (broadcast back), an
axis of length 1 that met a longer one (summed), both at once, a scalar, three operands
and one operand (einsum's view of it). Imported by the last line of ``samples.py``."""

from __future__ import annotations

from .samples import R, Sample, add

_FITTED = [
    ("bqe,bke->bqk", (2, 3, 4), [(2, 3, 2), (2, 4, 2)]),   # attention's q @ k.T cotangent
    ("bte,btd->de", (4, 2), [(2, 3, 2), (2, 3, 4)]),       # a weight's: batch contracted
    ("i,jk->ijk", (3, 2, 4), [(3,), (2, 4)]),              # nothing contracted
    ("i,->ij", (3, 4), [(3,), ()]),                        # j only the operand has
    ("ik,jk->ij", (1, 4), [(3, 2), (4, 2)]),               # i met a longer axis: summed
    ("ik,jk->ijl", (1, 4, 3), [(3, 2), (4, 2)]),           # summed and broadcast at once
    ("i,i->", (), [(5,), (5,)]),                           # a scalar
    ("il,jk,kl->ij", (2, 3), [(2, 4), (3, 5), (5, 4)]),    # three operands
    ("ji->ij", (2, 3), [(3, 2)]),                          # einsum('ij->ji')'s: a view of g
]
for _subs, _shape, _shapes in _FITTED:
    add("contract_to", Sample({"subscripts": _subs, "shape": _shape,
                               "operands": [R(s) for s in _shapes]}, label=_subs))
