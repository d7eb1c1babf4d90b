"""A module's globals as attributes: how a derived function's guard reads a global cheaply.

:mod:`.dispatcher` writes, for each global a compiled version read (``math``, ``np``, a
helper function, a captured array), a check that the name still holds what it held when
compiling. Reading it with the dict's bound ``get`` is a call (~40 ns of a Newton loop's
~1 us gradient); reading it as an attribute of an object whose ``__dict__`` *is* the
module's dict is an attribute load that CPython specialises (a hinted dict lookup, no
call)::

    _sg_get0_0('math', _sg_missing) is _sg_o0_0       ->      _sg_g0_0.math is _sg_o0_0

The view is an instance of :class:`GlobalsView`, a class with no attributes of its own
(a class attribute would keep CPython from specialising the load). A name deleted from
the module makes the read raise AttributeError, whose ``obj`` is the view: the guard's
``except`` clause tells it from an error of the derivative's own code with
:func:`missing_global` and takes the slow path. Only plain identifiers that are not
dunder names get a view (``object``'s own attributes, ``__class__``, ``__dict__``, are all
dunder names, so nothing of the class can shadow a global); others keep ``dict.get``.
"""

from __future__ import annotations

import keyword
from typing import Any

# what ``dict.get`` reads for a name a namespace does not have (the dispatcher's guards
# compare with it as ``_sg_missing``)
MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()


class GlobalsView:
    """An object whose attributes are one namespace dict's items (its ``__dict__`` is that
    dict). No attributes of its own: only the dict is searched."""


def can_view(where: Any, name: str) -> bool:
    """Whether ``where[name]`` can be read as ``view_of(where).name``: a plain dict (a
    subclass might answer reads its own way) and a name nothing of the class shadows."""
    return (type(where) is dict and name.isidentifier() and not keyword.iskeyword(name)
            and not name.startswith("__"))


def view_of(where: dict[str, Any]) -> GlobalsView:
    """A view of namespace ``where``: ``view.name`` reads ``where[name]``."""
    view = GlobalsView()
    view.__dict__ = where
    return view


def missing_global(error: BaseException) -> bool:
    """Whether ``error`` is a view's read of a name its namespace no longer has (a guard
    that failed, not an error of the derivative)."""
    return type(error) is AttributeError and type(error.obj) is GlobalsView
