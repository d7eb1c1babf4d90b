"""``np.einsum``: multilinear, in its subscripts form and its sublist form, with ``...``.

Forward mode is derived (kind ``BILINEAR``: einsum of one tangent with the other primals,
summed over the operands). The VJP of operand ``i`` is the einsum of ``g`` with the other
operands, onto operand ``i``'s indices; indices only operand ``i`` has are broadcast back.

The sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is rewritten into the
subscripts form ``einsum("ab,bc->ac", a, b)`` when a call is bound (``Rule.canonical``:
the sublists are static), so every interpreter and the emitted code see one form.

Where the subscripts are static text without ``...`` and operand ``i`` repeats no index,
the VJP's subscripts follow from the text alone and the VJP is one ``contract_to``
(:mod:`.contract_to`), its subscripts a constant of the emitted code. Otherwise the
VJP's subscripts depend on the operands' shapes (how many axes ``...`` stands for, and
which size-1 axes NumPy broadcast), so they are computed at run time by the helper
primitives ``einsum_grad_subscripts`` and ``einsum_grad_shape`` from the subscripts and
``operands_shape``: ``...`` becomes explicit letters, and an axis of size 1 that
broadcast against a longer one becomes a letter of its own operand (summed over in that
operand's cotangent, then kept as size 1). An index repeated within one operand (a
diagonal, ``"ii->i"``, ``"lli,..."``) gets a fresh letter for each repeat, tied back by a
Kronecker delta operand (``einsum_delta``), so the cotangent lands on that diagonal and
is itself an einsum (``einsum_diagonal_subscripts`` / ``einsum_diagonal_shape``).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from .contract import contract
from .contract_to import adjoint_subscripts, contract_to
from .dispatch import dispatching
from .foreign import in_library_of
from .helpers import rebroadcast
from .registry import BILINEAR, NONDIFF, defrule

Shape = tuple[int, ...]
_LETTERS = string.ascii_letters


# --- the sublist form ------------------------------------------------------------------
def _is_sublist(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and all(
        x is Ellipsis or (isinstance(x, (int, np.integer)) and not isinstance(x, bool))
        for x in v)


_UNTRACED = object()


def _an_operand(v: Any) -> bool:
    """``v``, an einsum's first argument, is an operand (the sublist form), not the
    subscripts: no str, and if traced (the compiler's symbolic value, which tells its
    rank by ``__srcgrad_ndim__``) an array or a number, not subscripts read at run time."""
    if isinstance(v, str):
        return False
    rank = getattr(v, "__srcgrad_ndim__", _UNTRACED)
    return rank is _UNTRACED or rank is not None


def _sublist_text(sublist: Sequence[Any]) -> str:
    parts = []
    for x in sublist:
        if x is Ellipsis:
            parts.append("...")
        elif 0 <= int(x) < len(_LETTERS):
            parts.append(_LETTERS[int(x)])
        else:
            raise ValueError(f"einsum sublist {list(sublist)!r}: subscripts must be integers "
                             f"in [0, {len(_LETTERS)})")
    return "".join(parts)


def sublists_to_subscripts(args: Sequence[Any], kwargs: dict[str, Any]
                           ) -> tuple[list[Any], dict[str, Any]]:
    """``(op0, sub0, op1, sub1, ..., [out])`` -> ``(subscripts, op0, op1, ...)``; a call
    already in the subscripts form is returned as it is. (The subscripts may be a value
    computed at run time, as in einsum's own VJP, so the form is told by its sublists.)"""
    if args and _an_operand(args[0]) and any(
            isinstance(s, (list, tuple)) and not _is_sublist(s) for s in args[1::2]):
        # a sublist read at run time (a parameter, a computed list): the subscripts its
        # derivative needs would be known only when it runs
        raise ValueError("np.einsum in the (operand, sublist) form needs each sublist known "
                         "when compiling, as a list of int literals in the function; one "
                         "here is a value read at run time (a parameter?). Write the "
                         "sublists out, or pass the subscripts string, e.g. "
                         "np.einsum('ij,jk->ik', a, b), which may be an argument.")
    if not args or isinstance(args[0], str) or not any(_is_sublist(s) for s in args[1::2]):
        return list(args), kwargs
    operands, sublists = list(args[0::2]), list(args[1::2])
    out = None
    if len(args) % 2 == 1:  # a trailing output sublist
        out, operands = operands[-1], operands[:-1]
    if len(operands) != len(sublists) or not all(_is_sublist(s) for s in sublists) or (
            out is not None and not _is_sublist(out)):
        raise ValueError("einsum in the sublist form takes (operand, sublist) pairs and an "
                         "optional output sublist, each sublist a list of ints or Ellipsis "
                         "known when compiling")
    ins = [_sublist_text(s) for s in sublists]
    if out is None:
        # NumPy's implicit output of the sublist form: '...' first, then the indices seen
        # once, by integer (the letters' order differs from the ints' past 'z')
        flat = [x for s in sublists for x in s if x is not Ellipsis]
        once = sorted(int(x) for x in set(flat) if flat.count(x) == 1)
        ellipsis = any(x is Ellipsis for s in sublists for x in s)
        out_text = ("..." if ellipsis else "") + _sublist_text(once)
    else:
        out_text = _sublist_text(out)
    return [",".join(ins) + "->" + out_text, *operands], kwargs


# --- subscripts made explicit for given shapes -------------------------------------------
def _explicit(subscripts: str, shapes: Sequence[Shape]) -> tuple[list[str], str]:
    """Operand index strings and the output's, for operands of ``shapes``: ``...`` spelled
    out with fresh letters, and each size-1 axis that broadcasts given its own letter."""
    ins, out = _explicit_cached(subscripts, tuple(tuple(s) for s in shapes))
    return list(ins), out


@functools.lru_cache(maxsize=4096)
def _explicit_cached(subscripts: str, shapes: tuple[Shape, ...]) -> tuple[tuple[str, ...], str]:
    # The emitted adjoint asks for these subscripts on every call, with the same shapes:
    # parse once per (subscripts, shapes)
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum {subscripts!r}: {len(ins)} operand subscripts for "
                         f"{len(shapes)} operands")
    if not arrow:  # implicit output: '...', then the letters seen once, alphabetically
        named = lhs.replace("...", "").replace(",", "")
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(named) if named.count(c) == 1))
    fresh = iter(c for c in _LETTERS if c not in text)
    spans = [len(shape) - (len(s) - 3) if "..." in s else 0 for s, shape in zip(ins, shapes)]
    width = max(spans, default=0)
    batch = "".join(next(fresh) for _ in range(width))
    ins = [s.replace("...", batch[width - n:]) for s, n in zip(ins, spans)]
    rhs = rhs.replace("...", batch)
    size: dict[str, int] = {}
    for s, shape in zip(ins, shapes):
        for c, n in zip(s, shape):
            size[c] = max(size.get(c, 1), n)
    ins = ["".join(next(fresh) if n == 1 and size[c] > 1 else c for c, n in zip(s, shape))
           for s, shape in zip(ins, shapes)]
    return tuple(ins), rhs


@dispatching
def einsum_grad_subscripts(subscripts: str, shapes: Sequence[Shape], i: int) -> str:
    """Subscripts of ``einsum(g, *others)`` giving operand ``i``'s cotangent (kept axes)."""
    ins, out = _explicit(subscripts, [tuple(s) for s in shapes])
    mine = ins[i]
    if len(set(mine)) != len(mine):
        raise ValueError(
            f"einsum {subscripts!r}: srcgrad cannot differentiate an index repeated within "
            f"one operand ({mine!r}); take the diagonal with np.diagonal/np.trace first"
        )
    others = [s for j, s in enumerate(ins) if j != i]
    seen = set(out).union(*others)
    kept = "".join(c for c in mine if c in seen)
    return ",".join([out, *others]) + "->" + kept


@dispatching
def einsum_grad_shape(subscripts: str, shapes: Sequence[Shape], i: int) -> Shape:
    """Operand ``i``'s shape with 1 for the axes only it has (summed inside the einsum)."""
    ins, out = _explicit(subscripts, [tuple(s) for s in shapes])
    others = [s for j, s in enumerate(ins) if j != i]
    seen = set(out).union(*others)
    return tuple(n if c in seen else 1 for c, n in zip(ins[i], tuple(shapes[i])))


defrule("einsum_grad_subscripts", einsum_grad_subscripts, inputs=(),
        params=("subscripts", "shapes", "i"), kind=NONDIFF)
defrule("einsum_grad_shape", einsum_grad_shape, inputs=(),
        params=("subscripts", "shapes", "i"), kind=NONDIFF)


def _repeats_in(subscripts: Any, i: int) -> bool:
    """Does operand ``i``'s subscript text repeat an index (a diagonal, ``"ii->i"``)? Read
    from the static text, so every interpreter takes the same branch."""
    if not isinstance(subscripts, str):
        return False
    ins = subscripts.replace(" ", "").partition("->")[0].split(",")
    letters = ins[i].replace("...", "") if i < len(ins) else ""
    return len(set(letters)) != len(letters)


def _diagonal_parts(subscripts: str, shapes: Sequence[Shape], i: int
                    ) -> tuple[list[str], str, str, list[tuple[str, str]]]:
    """For operand ``i`` whose subscripts repeat an index: the explicit subscripts, the
    output's, operand ``i``'s with each repeat renamed to a fresh letter, and the
    ``(index, fresh)`` pairs a Kronecker delta ties back together."""
    ins, out = _explicit(subscripts, [tuple(s) for s in shapes])
    used = set("".join(ins) + out)
    fresh = iter(c for c in _LETTERS if c not in used)
    seen: set[str] = set()
    renamed, pairs = [], []
    for c in ins[i]:
        if c in seen:
            f = next(fresh)
            pairs.append((c, f))
            renamed.append(f)
        else:
            seen.add(c)
            renamed.append(c)
    return ins, out, "".join(renamed), pairs


@dispatching
def einsum_diagonal_subscripts(subscripts: str, shapes: Sequence[Shape], i: int) -> str:
    """Subscripts of ``einsum(g, *others, delta)`` giving the cotangent of operand ``i``
    whose subscripts repeat an index: the cotangent lands on that diagonal through the
    delta (``einsum_delta``), summed-only indices kept as size 1."""
    ins, out, renamed, pairs = _diagonal_parts(subscripts, shapes, i)
    others = [s for j, s in enumerate(ins) if j != i]
    delta = "".join(c + f for c, f in pairs)
    seen = set(out).union(*others, delta)
    kept = "".join(c for c in renamed if c in seen)
    return ",".join([out, *others, delta]) + "->" + kept


@dispatching
def einsum_diagonal_shape(subscripts: str, shapes: Sequence[Shape], i: int) -> Shape:
    """Operand ``i``'s shape with 1 for the indices only it has (and that it does not
    repeat): the shape of ``einsum_diagonal_subscripts``' result before broadcasting."""
    ins, out, renamed, pairs = _diagonal_parts(subscripts, shapes, i)
    others = [s for j, s in enumerate(ins) if j != i]
    seen = set(out).union(*others, "".join(c + f for c, f in pairs))
    return tuple(n if c in seen else 1 for c, n in zip(renamed, tuple(shapes[i])))


@dispatching
def einsum_delta(like: Any, subscripts: str, shapes: Sequence[Shape], i: int) -> Any:
    """The Kronecker delta ``d[a, a', b, b', ...]`` (1 where each index equals its renamed
    repeat) for operand ``i``'s repeated indices, in ``like``'s dtype and library (a CuPy
    ``like`` takes a device delta: CuPy's einsum refuses host operands)."""
    ins, _, _, pairs = _diagonal_parts(subscripts, shapes, i)
    size = dict(zip(ins[i], tuple(shapes[i])))
    dtype = np.result_type(like)
    delta = np.ones((), dtype=dtype)
    for c, _ in pairs:
        delta = np.multiply.outer(delta, np.eye(size[c], dtype=dtype))
    return in_library_of(delta, like)


defrule("einsum_diagonal_subscripts", einsum_diagonal_subscripts, inputs=(),
        params=("subscripts", "shapes", "i"), kind=NONDIFF)
defrule("einsum_diagonal_shape", einsum_diagonal_shape, inputs=(),
        params=("subscripts", "shapes", "i"), kind=NONDIFF)
defrule("einsum_delta", einsum_delta, inputs=("like",), params=("subscripts", "shapes", "i"),
        kind=NONDIFF)


def _with_item(items: Sequence[Any], i: int, value: Any) -> list[Any]:
    replaced = list(items)
    replaced[i] = value
    return replaced


def _einsum_vjp(g: Any, operands: list[Any], operands_shape: tuple[Shape, ...],
                subscripts: str, i: int) -> Any:
    others = [op for j, op in enumerate(operands) if j != i]
    shape = operands_shape[i]
    static = adjoint_subscripts(subscripts, i)
    if static is not None:  # the usual case: subscripts resolved now, not per call
        return contract_to(static, shape, g, *others)
    if _repeats_in(subscripts, i) or not isinstance(subscripts, str):
        # a diagonal: the cotangent goes back onto it; and subscripts read at run time
        # (an argument) may repeat an index, so they go this way too (with no repeat the
        # delta is the 0-d 1.0 and this is the plain adjoint below)
        delta = einsum_delta(g, subscripts, operands_shape, i)
        kept = contract(einsum_diagonal_subscripts(subscripts, operands_shape, i), g,
                        *others, delta)
        return rebroadcast(np.reshape(
            kept, einsum_diagonal_shape(subscripts, operands_shape, i)), shape)
    # contract, not np.einsum: the same sum, run as a (batched) matmul where it can be
    kept = contract(einsum_grad_subscripts(subscripts, operands_shape, i), g, *others)
    return rebroadcast(np.reshape(kept, einsum_grad_shape(subscripts, operands_shape, i)),
                       shape)


defrule("einsum", np.einsum, inputs=("operands",), params=("subscripts", "optimize"),
        variadic="operands", kind=BILINEAR, form="subscripts, *operands, optimize=False",
        canonical=sublists_to_subscripts,
        view=True,  # einsum("ij->ji", a) and einsum("ii->i", a) return views of a
        vjp={"operands": lambda g, operands, operands_shape, subscripts, i:
             _einsum_vjp(g, operands, operands_shape, subscripts, i)},
        # the tangent: the same einsum with operand i's tangent, run as matmul by contract
        jvp={"operands": lambda t, operands, subscripts, i:
             contract(subscripts, *_with_item(operands, i, t))})

# The adjoints above call ``contract`` (einsum run as matmul, :mod:`.contract`); its rule
# is einsum's, so their derivatives are contracts again
defrule("contract", contract, inputs=("operands",), params=("subscripts",),
        variadic="operands", kind=BILINEAR, form="subscripts, *operands",
        vjp={"operands": lambda g, operands, operands_shape, subscripts, i:
             _einsum_vjp(g, operands, operands_shape, subscripts, i)})
