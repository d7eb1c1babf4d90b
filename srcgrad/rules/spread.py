"""``copies(shape, target)``: how often ``unbroadcast`` adds up each element of a number
broadcast to ``shape`` when it sums down to ``target``.

The compiler's shapes pass keeps a full reduction's cotangent a number instead of
broadcasting it to the reduced array's shape (``passes/spread.py``). When that number meets
``unbroadcast(., target)`` (the adjoint of a broadcasting operand), the sum of its copies
is the number times this count, an integer known only at run time: ``1`` when the operand
was not broadcast, which is the usual case.
"""

from __future__ import annotations

import math
from typing import Any

from .dispatch import dispatching
from .registry import NONDIFF, defrule


@dispatching
def copies(shape: Any, target: Any) -> int:
    """``size(shape) // size(target)`` (``target`` broadcasts to ``shape``); 1 when empty."""
    whole, part = math.prod(shape), math.prod(target)
    return whole // part if part else 1


defrule("copies", copies, inputs=(), params=("shape", "target"), kind=NONDIFF)
