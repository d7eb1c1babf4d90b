"""Emitting a ``captured`` op: the run-time read of a global, a closure cell or a default.

Where it sits: the backend prints each op as one statement; a captured value (see
``frontend.captured``) is printed as the read the user's function would do, of an object
the module imports or its namespace holds (the module, the cell, the function)::

    W = _model.W                       # a module global (import model as _model)
    buf = _cell_buf.cell_contents
    scale = helper.__defaults__[0]

One subscript or attribute load per call: never a copy, never a literal of the data.
"""

from __future__ import annotations

import sys
from typing import Any

import gast

from .names import References
from .syntax import LOAD, dotted, load


def read_expr(source: Any, refs: References) -> Any:
    """The expression that reads ``source`` (a ``frontend.captured.Source``)."""
    node = _base(source, refs)
    for key in source.path:  # an item of a captured tuple, list or dict, an attribute
        if type(key).__name__ == "Attr":  # (frontend.resolve.Attr: `model.W`)
            node = gast.Attribute(value=node, attr=key.name, ctx=LOAD)
            continue
        node = gast.Subscript(value=node, slice=gast.Constant(value=key, kind=None),
                              ctx=LOAD)
    return node


def _base(source: Any, refs: References) -> Any:
    key = gast.Constant(value=source.key, kind=None)
    if source.kind == "global":
        name = str(source.where.get("__name__", "module"))
        module = sys.modules.get(name)
        if name != "__main__" and getattr(module, "__dict__", None) is source.where:
            # an importable module: its attribute is its globals' entry, and the text of
            # sg.source stays one self-contained module
            holder = load(refs.module(name))
            return gast.Attribute(value=holder, attr=source.key, ctx=LOAD)
        holder = load(refs.place(source.where, f"_globals_{name.rpartition('.')[2]}",
                                  f"the globals of module {name}"))
        return gast.Subscript(value=holder, slice=key, ctx=LOAD)
    if source.kind == "cell":
        holder = load(refs.place(source.where, f"_cell_{source.key}",
                                  f"the closure cell of `{source.key}`"))
        return gast.Attribute(value=holder, attr="cell_contents", ctx=LOAD)
    if source.kind == "attr":  # an attribute of an object: a bound method's __self__
        holder = load(refs.place(source.where, f"_{source.name}_holder",
                                  f"the object holding `{source.name}`"))
        return gast.Attribute(value=holder, attr=source.key, ctx=LOAD)
    fn = dotted(refs.ref(source.where))
    attr = "__defaults__" if source.kind == "default" else "__kwdefaults__"
    return gast.Subscript(value=gast.Attribute(value=fn, attr=attr, ctx=LOAD),
                          slice=key, ctx=LOAD)

