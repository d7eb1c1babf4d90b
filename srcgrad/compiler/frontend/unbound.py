"""Names bound on some paths only: Python's "maybe unbound" locals, checked at run time.

Python lets a function read a name that only some paths assign, and raises
``UnboundLocalError`` only if a run actually reads it unbound::

    if x > 0.0:                 e = if(x > 0.0) {x * 2.0} {UNBOUND}
        e = x * 2.0
    if x > 0.0:                 if(x > 0.0) {if(is_unbound(e)) {raise UnboundLocalError}
        return e                             return e} ...

After an ``if`` on a run-time condition (:mod:`.branches`) a name assigned on one side is
bound to the ``if``'s output, whose other side yields the :data:`UNBOUND` sentinel; a loop
(:mod:`.loops`) carries a name first assigned in its body (the loop variable too) the same
way, since the loop may run zero times. The environment holds such a name as
:class:`MaybeUnbound`, and every read of it emits the check first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ir import types as T
from ..ir.core import Block, Value, const_value
from ..symbolic import Sym
from . import calls
from .control import flatten, in_block

if TYPE_CHECKING:
    from .lower import Lowerer


class _Unbound:
    """The value of a local name on a path that never assigned it."""

    _instance: _Unbound | None = None

    def __new__(cls) -> _Unbound:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNBOUND"


UNBOUND = _Unbound()


def is_unbound(value: Any) -> bool:
    """True for the sentinel (called by the emitted code before a maybe-unbound read)."""
    return value is UNBOUND


@dataclass
class MaybeUnbound:
    """What the environment holds for a name that may be unbound at run time: its value
    (a Sym, or a tuple/list of them) where it is bound, :data:`UNBOUND` elsewhere."""

    value: Any


@dataclass
class OnSomePathsOnly:
    """A name assigned on some paths only, to an object that cannot be chosen at run time
    (a function, a module, a dict): reading it is a compile-time error."""

    what: str


# objects a block can yield as a constant next to the sentinel
_CONSTANTS = (type(None), bool, int, float, complex, str, np.generic, np.ndarray)


def representable(leaf: Any) -> bool:
    return isinstance(leaf, (Sym, _Unbound, *_CONSTANTS))


def is_unbound_value(v: Value) -> bool:
    is_const, c = const_value(v)
    return is_const and c is UNBOUND


def typed(values: list[Value]) -> list[Value]:
    """The values whose type counts where paths join: the sentinel takes any type (a read
    of it raises before its type could matter)."""
    return [v for v in values if not is_unbound_value(v)]


def read(lw: Lowerer, held: MaybeUnbound, name: str, node: Any) -> Any:
    """``held``'s value, after code that raises UnboundLocalError if it is the sentinel."""
    from .branches import emit_if  # branches merges maybe-unbound names: imports this

    flag = calls.opaque(lw, is_unbound, [flatten(held.value)[0][0]], {})
    flag.value.type = T.BOOL
    raising, passing = Block(), Block()
    with in_block(lw, raising, dict(lw.env)):
        lw.ctx.builder.emit("raise", attrs={"exc": UnboundLocalError, "args": (
            f"cannot access local variable '{name}' where it is not associated with a "
            "value",)}, n_out=0)
    emit_if(lw, flag, [raising, passing], [[], []])
    return held.value
