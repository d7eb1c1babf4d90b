"""srcgrad's IR: SSA dataflow in A-normal form with structured regions.

This is the data every compiler stage reads and writes: the frontend lowers a user's
function to it, ``ad`` transforms it, ``passes`` rewrite it, the backend prints it as
Python. It is in the spirit of jaxpr and MLIR's structured control flow:

- a :class:`Value` is defined exactly once and carries the user's variable name and the
  source line that defined it (both only hints for printing and error messages);
- an :class:`Op` applies a primitive (a rule-table name such as ``"multiply"``, or a
  structural op such as ``"const"``, ``"if"``, ``"for_range"``) to argument Values. Every
  argument is named after the rule's parameter (``x``, ``y``, ``axis``); a variadic argument
  (``concatenate``'s arrays) is a tuple of Values. Static Python constants are Values
  defined by ``const`` ops, so every operand is uniformly a Value;
- a :class:`Block` is a list of ops with block parameters (loop-carried values) and results
  (what it yields); control-flow ops hold blocks in ``regions``;
- a :class:`Function` has parameters, defaults, a body block whose results are the returned
  values, and where it came from (file, first line) so messages point at user code.

Example (``def f(x): return np.sin(x) * 2``) printed by :mod:`.printer`::

    func f(%x) {                       # file.py:1
      %0 = sin(x=%x)                   # line 2
      %1 = const(value=2)
      %2 = multiply(x=%0, y=%1)        # line 2
      return %2
    }
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Arg = "Value | tuple[Value, ...]"

_ids = itertools.count()


@dataclass(eq=False)
class Value:
    """One SSA value. ``type`` is an optional abstract type (see :mod:`.types`)."""

    name: str | None = None  # the user's variable name, if it had one
    line: int | None = None  # source line (in the user's file) that defined it
    type: Any = None
    id: int = field(default_factory=lambda: next(_ids))
    op: Op | None = field(default=None, repr=False)  # defining op; None for parameters
    adjoint_of: Value | None = field(default=None, repr=False)  # primal value, for naming

    def __repr__(self) -> str:
        return f"%{self.name or ''}{self.id}"


@dataclass(eq=False)
class Op:
    """``outputs = prim(**args)`` with static ``attrs`` and nested ``regions``."""

    prim: str
    args: dict[str, Any] = field(default_factory=dict)  # name -> Value | tuple[Value, ...]
    outputs: list[Value] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)  # static data (const's value, ...)
    regions: list[Block] = field(default_factory=list)
    line: int | None = None

    def __post_init__(self) -> None:
        for v in self.outputs:
            v.op = self

    def operands(self) -> list[Value]:
        """Every Value this op reads directly (not inside its regions), in order. (A list,
        not a generator: asked ~4,000 times per compile, of one to three arguments.)"""
        found: list[Value] = []
        for a in self.args.values():
            if isinstance(a, tuple):
                found.extend(a)
            elif a is not None:
                found.append(a)
        return found

    @property
    def out(self) -> Value:
        (v,) = self.outputs
        return v


@dataclass(eq=False)
class Block:
    params: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    results: list[Value] = field(default_factory=list)

    def walk(self) -> Iterator[Op]:
        """Every op in this block and, depth first, in the regions of its ops."""
        for op in self.ops:
            yield op
            for region in op.regions:
                yield from region.walk()

    def use_counts(self) -> dict[int, int]:
        """How often each Value (by id) is read here: by ops and as a result, regions included."""
        counts: dict[int, int] = {}
        _count_uses(self.ops, counts)
        for r in self.results:
            counts[r.id] = counts.get(r.id, 0) + 1
        return counts


def _count_uses(ops: list[Op], counts: dict[int, int]) -> None:
    """:meth:`Block.use_counts` of ``ops``, in the order of :meth:`Block.walk` (an op's
    operands, its regions' results, then the regions' ops), with the operands read in
    place: most passes and the emitter count uses, so this runs ~20 times per compile."""
    get = counts.get
    for op in ops:
        for a in op.args.values():
            if isinstance(a, tuple):
                for v in a:
                    counts[v.id] = get(v.id, 0) + 1
            elif a is not None:
                counts[a.id] = get(a.id, 0) + 1
        if op.regions:
            for region in op.regions:
                for r in region.results:
                    counts[r.id] = get(r.id, 0) + 1
            for region in op.regions:
                _count_uses(region.ops, counts)


@dataclass(eq=False)
class Function:
    name: str
    params: list[Value]
    body: Block
    defaults: dict[str, Any] = field(default_factory=dict)  # parameter name -> default
    filename: str = "<unknown>"
    firstlineno: int = 1
    source_lines: dict[int, str] = field(default_factory=dict)  # file line -> its text
    meta: dict[str, Any] = field(default_factory=dict)
    # user line -> (last line of its statement, why the frontend evaluated it while
    # compiling): shown after the line's ``# line N`` comment in the emitted code
    notes: dict[int, tuple[int, str]] = field(default_factory=dict)

    @property
    def param_names(self) -> list[str]:
        return [p.name or f"arg{i}" for i, p in enumerate(self.params)]


# An op attribute: the user spelled this op with Python's float semantics (an operator or a
# ``math.*`` call), so on Python floats it may raise as the user's code would. Set by the
# frontend (``spelling.python_spelling``), read by the backend's choice of spelling.
PYTHON_SPELLING = "python_spelling"
# An op attribute: the op is the user's own Python-spelled arithmetic (set by the frontend
# with PYTHON_SPELLING; never on derivative code, which may carry the spelling too). On
# Python numbers it may raise where the user's code raises (``math.log(-1.0)``), so dead
# code elimination keeps it though nothing reads its value (``passes/rewrite.may_raise``).
USER_ARITHMETIC = "user_arithmetic"
# An op attribute: the user's own op that may raise on a run-time shape or value (an index
# out of range, ``int(inf)``, a reshape of the wrong size) whose value the user's function
# never reads; kept by dead code elimination as USER_ARITHMETIC is (``frontend/dead_checks``).
USER_CHECK = "user_check"
# An op attribute: (file, line) where the user wrote an opaque ``call`` op (a call with no
# rule) when it was inlined from a called function, whose ops carry the caller's line:
# a refusal of that call names both places (``ad/soundness.written_at``).
WRITTEN_AT = "written_at"


def exact_key(value: Any) -> Any:
    """``value`` as a key that tells what ``==`` does not: the sign of a float's zero
    (``0.0 == -0.0``, but ``np.where(c, x, -0.0)`` must keep the user's negative zero)
    and the type (``np.bool_(False)`` is not ``False``), in tuples too."""
    if isinstance(value, tuple):
        return (tuple, tuple(exact_key(x) for x in value))
    if isinstance(value, (float, np.floating)):
        return (type(value), value, math.copysign(1.0, value))
    if isinstance(value, (complex, np.complexfloating)):
        return (type(value), value, math.copysign(1.0, value.real),
                math.copysign(1.0, value.imag))
    return (type(value), value)


def const_value(v: Value) -> tuple[bool, Any]:
    """``(True, constant)`` if ``v`` is defined by a ``const`` op, else ``(False, None)``."""
    if v.op is not None and v.op.prim == "const":
        return True, v.op.attrs["value"]
    return False, None

# The IR's own operations: constants, captured reads, opaque calls, packing, control
# regions, tapes, effects. Every other ``Op.prim`` names a rule record (the shared table or
# a structural rule) and carries it in ``attrs["rule"]``;
# ``tests/test_primitive_names.py`` checks every name the compiler compares with.
IR_OPS = frozenset({
    "const", "captured", "call", "alias", "make_tuple", "make_list", "make_slice",
    "if", "for_range", "while", "tape_new", "tape_push", "tape_pop", "tape_len", "list_pop",
    "print", "assert", "raise", "break",
    # made for the emitted copy only: a tangent's power read from the user's root
    # (``passes/root_tangents.py``), never differentiated
    "root_quotient",
})


# An op attribute: the op belongs to a call of a function wrapped by ``sg.checkpoint``.
# ``("primal", token, name)`` on the ops the frontend lowered for one such call (one token
# per call site); reverse mode recomputes them before their adjoint (``ad/checkpoint.py``)
# and leaves ``("recompute", token, name)`` on the copies, which also keeps CSE from
# merging a copy back into the forward pass's op.
CHECKPOINT = "checkpoint"


def checkpoint_mark(op: Op) -> tuple[str, int, str] | None:
    return op.attrs.get(CHECKPOINT)


# An op attribute: the op calls a recursive user function (or a derived function of one)
# through its opaque primitive (``frontend/recursion.py``). Its value is a callable
# ``(args, tangents) -> (value, tangent)`` that records one call of the callee's forward
# mode returning both, which forward mode uses in place of the op (``ad/forward.py``): a
# separate primal call would rerun the whole remaining recursion at every level.
JVP_PAIR = "jvp_pair"
# An op attribute on the ``getitem`` ops taking item k (0: value, 1: tangent) of such a
# pair: reverse mode collects their cotangents into one tuple seed for the pair's call
# (``ad/scope.py``), where a subscript's adjoint would scatter into an array.
PAIR_PART = "pair_part"
# An op attribute: the op's rule differentiates a tuple operand as a tuple (its
# derivatives are srcgrad's own transforms of a function, which take and return trees):
# the soundness check lets a packed tuple of varied values reach it (``ad/soundness.py``).
TAKES_TREES = "takes_trees"
# An op attribute on a recursive call of a user function: a callable ``(names of the
# inputs with an adjoint) -> (forward rule, adjoint rule) | None`` giving the callee's pair
# of emitted functions (``compiler/pairs.py``). Reverse mode, when building the code it
# emits, turns the call into the forward sweep's call (its value and a record of what
# the adjoint needs) and its adjoint into the adjoint's call on that record
# (``ad/scope.py``); ``PAIR_FORWARD`` marks the ops that rewrite puts in the forward sweep.
REVERSE_PAIR = "reverse_pair"
PAIR_FORWARD = "pair_forward"
# An op attribute: forward mode made this op to compute a tangent (srcgrad's derivative
# code, never the user's arithmetic). ``passes/tangent_algebra.py`` may regroup such
# arithmetic (its rounding is srcgrad's choice, not the user's), then removes the mark.
TANGENT_CODE = "tangent_code"
# An op attribute on a tangent's ``sign(x)`` of a Python float x (``abs``'s derivative):
# the backend writes it with Python's comparisons, a Python float (``backend/floats.py``).
# Set by ``passes/tangent_algebra.py``; a user's own ``np.sign`` keeps NumPy's result type
# (the attribute also keeps CSE from merging the two).
NUMBER_SIGN = "number_sign"
