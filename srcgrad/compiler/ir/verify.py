"""Check the IR's invariants: the compiler runs it at each stage boundary, tests after every pass.

- SSA: every value is defined exactly once (a function/block parameter or one op output);
- defined before use: an op reads only values defined earlier in its block or in an
  enclosing block (region scoping: a value defined inside a region is not visible after it);
- each op's outputs point back to it (``value.op``); block results are visible values.

Raises :class:`IRError` describing the first violation.

When it runs (:mod:`..derivation`): in normal use at the stage boundaries (after lowering,
after differentiation, after optimisation, before emission), so an inconsistent IR raises an
internal error rather than being emitted; after every optimisation pass as well when the
environment sets ``SRCGRAD_VERIFY_EACH_PASS=1`` (``tests/conftest.py`` does for the fuzzer,
the corpora, the golden files and the passes' own tests, so they name the pass that broke
the IR). Every pass costs about one verification, so checking after each of the ~45 passes
took ~15% of a first call.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .core import Block, Function, Value

EACH_PASS = "SRCGRAD_VERIFY_EACH_PASS"


class IRError(Exception):
    """The IR broke an invariant: a compiler bug, never a user error."""


def each_pass() -> Callable[[Function], None] | None:
    """The check to run after every optimisation pass: :func:`verify` when the environment
    asks for it (``SRCGRAD_VERIFY_EACH_PASS=1``), else None (read per compilation, so a test
    can set it)."""
    return verify if os.environ.get(EACH_PASS, "") == "1" else None


def verify(fn: Function) -> None:
    defined: set[int] = set()
    for p in fn.params:
        _define(p, defined, f"parameter {p!r}")
    _block(fn.body, defined, set(defined))


def _define(v: Value, defined: set[int], where: str) -> None:
    if v.id in defined:
        raise IRError(f"{v!r} defined twice ({where})")
    defined.add(v.id)


def _block(block: Block, defined: set[int], visible: set[int]) -> None:
    visible = set(visible)
    for p in block.params:
        _define(p, defined, "block parameter")
        visible.add(p.id)
    for op in block.ops:
        for v in op.operands():
            if not isinstance(v, Value):
                raise IRError(f"{op.prim}: operand {v!r} is not a Value")
            if v.id not in visible:
                raise IRError(f"{op.prim} (line {op.line}) reads {v!r} before its definition")
        for region in op.regions:
            _block(region, defined, visible)
        for o in op.outputs:
            if o.op is not op:
                raise IRError(f"{o!r} does not point back to its defining op {op.prim}")
            _define(o, defined, f"output of {op.prim}")
            visible.add(o.id)
    for r in block.results:
        if not isinstance(r, Value) or r.id not in visible:
            raise IRError(f"block result {r!r} is not defined in scope")
