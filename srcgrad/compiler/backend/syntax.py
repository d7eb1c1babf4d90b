"""Backend: the few gast node constructors every emitting module uses (one place for them).

``emit`` prints ops, ``floats`` guards fast Python spellings, ``reads`` prints captured
loads; all three build the same small nodes::

    load("np")              ->  np
    dotted("np.linalg.inv") ->  np.linalg.inv
"""

from __future__ import annotations

from typing import Any

import gast

# the one read context every emitted node shares (as CPython's parser shares its
# ``ast.Load``): no code changes a context in place, it replaces it, and printing makes
# its own ``ast`` nodes; a node fewer per name read (~350 per small gradient)
LOAD = gast.Load()


def load(id_: str) -> Any:
    """A name read (``x``)."""
    return gast.Name(id=id_, ctx=LOAD, annotation=None, type_comment=None)


def dotted(path: str) -> Any:
    """A dotted read (``np.linalg.inv``): a name, then attributes."""
    parts = path.split(".")
    node = load(parts[0])
    for p in parts[1:]:
        node = gast.Attribute(value=node, attr=p, ctx=LOAD)
    return node
