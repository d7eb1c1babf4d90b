"""Copy propagation: ``y = x`` (an ``alias``, or a ``stop_gradient`` whose only job was to
cut the derivative, already taken) is removed and ``y``'s readers read ``x``.

    %4 = stop_gradient(x=%3)                 (gone)
    %5 = multiply(x=%4, y=%2)     ->         %5 = multiply(x=%3, y=%2)

``stop_gradient`` is emitted as a plain ``y = x`` (the same object), so reading ``x``
instead changes nothing at run time; it only saves a name and a line. A user's name on
``y`` passes to an unnamed ``x`` so the emitted code still says ``dx``.
"""

from __future__ import annotations

from ..ir.core import Block, Function, Value
from .rewrite import replace_uses

_COPIES = ("alias", "stop_gradient")


def propagate_copies(fn: Function) -> None:
    mapping: dict[Value, Value] = {}
    _block(fn.body, mapping)
    replace_uses(fn, mapping)


def _block(block: Block, mapping: dict[Value, Value]) -> None:
    for op in block.ops:
        for region in op.regions:
            _block(region, mapping)
        if op.prim not in _COPIES or len(op.outputs) != 1:
            continue
        source = op.args.get("x")
        if not isinstance(source, Value):
            continue
        if source.name is None and source.adjoint_of is None and source.op is not None:
            source.name, source.adjoint_of = op.out.name, op.out.adjoint_of
        mapping[op.out] = source
