"""Buffers kept between calls of one derived function, for the arrays its loop tapes.

Where it sits: run time, called by emitted code. The emitter (``backend/emit.py``) gives
each derived function whose loops tape arrays one :class:`BufferPool` (bound in the
module's namespace, like a captured global) when :mod:`.passes.tape_buffers` finds arrays
that may be written into buffers: a call takes a :class:`Buffers` from the pool on entry,
writes those arrays into its buffers with ``out=`` and gives it back before it returns::

    def grad_f(Wq, x):                                      (a loop over the batch)
        buffers = _tape_buffers.take()
        ...
        for i in range(_t3):
            xb = x[i]
            q = xb @ Wq if buffers is None else buffers.into(0, np.matmul, xb, Wq)
            ...
            tape.append((q, ...))
        ...                                        (the reverse loop pops and reads q)
        _tape_buffers.give(buffers)
        return dWq

Why: a loop that tapes a few matrices per iteration (attention written per sequence)
allocates megabytes per call and frees them all at its end; glibc then gives the top of
the heap back to the system, and the next call page-faults every page in again (at
16x128x64, ~1,600 faults a call: a quarter of the gradient's time). Kept buffers are
written in place instead. Arrays under ``MIN_BYTES`` are not kept (malloc reuses small
blocks), and while a call keeps none, the next ``SKIP`` calls take no buffers at all.

What keeps it right:
- a call owns the :class:`Buffers` it took (``take`` pops it from the pool: a recursive or
  concurrent call gets another one, or a fresh empty one); a call that raises never gives
  its buffers back;
- each ``into`` of one call gets its own buffer (a cursor per slot: an op run in every
  iteration takes the next one), and the analysis only picks arrays that are dead when the
  function returns (never a result, nor a view of one), so no array the user holds is
  written by a later call;
- a buffer is written only when the result would have exactly its shape, its dtype (the
  ufunc is called with ``casting="no"``: any cast raises and the result is computed
  afresh) and its layout (C-contiguous, as every operand of that shape), so the values are
  the ones the plain call computes, bit for bit; otherwise the plain call runs and its
  result becomes the slot's buffer for the next call.
The pool keeps at most one set of buffers, of at most ``MAX_BYTES``: memory of the size of
the tape stays allocated between calls (the price of not faulting it in again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_ABSENT: Any = object()
# arrays smaller than this are not kept: malloc reuses small blocks without faulting them in
MIN_BYTES = 32768
# a set of buffers larger than this is not kept between calls (a call on huge arrays would
# otherwise hold its whole tape for as long as the derived function lives)
MAX_BYTES = 256 << 20
# a call that kept nothing makes the next SKIP calls run without buffers (their plain
# expressions: ``buffers`` is None), then one call looks at the sizes again
SKIP = 15


class Buffers:
    """One call's buffers: per slot, the arrays of its earlier calls and a cursor."""

    __slots__ = ("kept", "used", "nbytes")

    def __init__(self, slots: int) -> None:
        self.kept: list[list[np.ndarray]] = [[] for _ in range(slots)]
        self.used = [0] * slots
        self.nbytes = 0  # of the arrays kept

    def into(self, slot: int, f: Any, x: Any, y: Any = _ABSENT) -> Any:
        """``f(x)`` or ``f(x, y)`` (``np.matmul`` or a ufunc), written into the slot's next
        buffer when that is exactly the result's shape, dtype and layout."""
        k = self.used[slot]
        self.used[slot] = k + 1
        kept = self.kept[slot]
        if k < len(kept):
            out = kept[k]
            if _fits(out, f, x, y):
                try:
                    if y is _ABSENT:
                        return f(x, out=out, casting="no")
                    return f(x, y, out=out, casting="no")
                except (TypeError, ValueError):
                    pass  # a cast, or operands that do not broadcast to it: the plain call
        result = f(x) if y is _ABSENT else f(x, y)
        if type(result) is np.ndarray and result.flags.c_contiguous \
                and result.nbytes >= MIN_BYTES:
            if k < len(kept):
                self.nbytes += result.nbytes - kept[k].nbytes
                kept[k] = result
            elif k == len(kept):
                self.nbytes += result.nbytes
                kept.append(result)
        return result


def _fits(out: np.ndarray, f: Any, x: Any, y: Any) -> bool:
    """``out``'s shape is the result's, and its layout (C order) what the plain call
    would give: for a ufunc, every operand of the result's shape is C-contiguous (the
    plain call follows its operands' order), the others broadcast; for ``np.matmul``, two
    matrices (the plain result is a new C-ordered matrix). A broadcasting operand that
    does not fit makes NumPy raise, and the plain call runs."""
    shape = out.shape
    if f is np.matmul:  # (a stack of matrices times a matrix, or stacks of one length)
        return (type(x) is np.ndarray and type(y) is np.ndarray and x.ndim >= 2
                and (y.ndim == 2 or y.ndim == x.ndim and y.shape[:-2] == x.shape[:-2])
                and shape == (*x.shape[:-1], y.shape[-1]))
    sized = False
    for a in (x, y):
        if type(a) is np.ndarray and a.shape == shape:
            if not a.flags.c_contiguous:
                return False
            sized = True
    return sized


class BufferPool:
    """The buffers of one derived function between its calls (at most one set)."""

    __slots__ = ("slots", "free", "skip")

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.free: list[Buffers] = []
        self.skip = 0

    def take(self) -> Buffers | None:
        """A set of buffers this call owns (list.pop is atomic: threads never share one),
        or None while the arrays were too small to keep (the code then runs unchanged)."""
        if self.skip > 0:  # (threads racing here may take it below 0: the same as 0)
            self.skip -= 1
            return None
        try:
            buffers = self.free.pop()
        except IndexError:
            return Buffers(self.slots)
        buffers.used = [0] * self.slots
        return buffers

    def give(self, buffers: Buffers | None) -> None:
        """Back to the pool, once the call's arrays are dead (just before it returns)."""
        if buffers is None:
            return
        if not buffers.nbytes:
            self.skip = SKIP
        elif not self.free and buffers.nbytes <= MAX_BYTES:
            self.free.append(buffers)

    def __repr__(self) -> str:
        return f"BufferPool({self.slots} slots)"
