"""Backend: the few gast node constructors every emitting module uses (one place for them).

``emit`` prints ops, ``floats`` guards fast Python spellings, ``reads`` prints captured
loads; all three build the same small nodes::

    load("np")              ->  np
    dotted("np.linalg.inv") ->  np.linalg.inv
"""

from __future__ import annotations

from typing import Any

import gast


def load(id_: str) -> Any:
    """A name read (``x``)."""
    return gast.Name(id=id_, ctx=gast.Load(), annotation=None, type_comment=None)


def dotted(path: str) -> Any:
    """A dotted read (``np.linalg.inv``): a name, then attributes."""
    parts = path.split(".")
    node = load(parts[0])
    for p in parts[1:]:
        node = gast.Attribute(value=node, attr=p, ctx=gast.Load())
    return node
