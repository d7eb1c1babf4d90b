"""The one ordered list of optimisation passes, and how it runs.

``optimize=False`` runs none of them: the emitted code is then a literal print of the
differentiated IR (slower, still correct). Each pass mutates the function in place; the
list runs twice so that a simplification can expose more CSE and dead code. The passes
that mark in-place updates run at the end of the last round only, and the final list once
after it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.builder import clone_function
from ..ir.core import Function
from .accumulate import accumulate_in_place
from .carries import invariant_carries
from .copies import propagate_copies
from .cse import cse
from .dce import dce
from .elements import element_adjoints, has_element_scatters
from .fold import fold_constants
from .halves import cancel_halves
from .hoist import hoist_invariants
from .negation import fold_negations
from .quotients import combine_quotients
from .recompute import store_or_recompute
from .root_tangents import mark_root_tangents, reciprocal_roots
from .rows_in_place import rows_in_place
from .selections import where_as_masks
from .shape_only import shapes_without_values
from .shapes import shapes
from .simplify import scalar_factors, simplify
from .sink import sink_loop_results
from .squares import reuse_squares
from .sum_factors import take_factors_out_of_sums
from .tangent_algebra import regroup_tangents
from .tape import dedupe_tape

PASSES: list[tuple[str, Callable[[Function], None]]] = [
    ("shapes", shapes),
    ("simplify", simplify),
    ("where_as_masks", where_as_masks),
    ("take_factors_out_of_sums", take_factors_out_of_sums),
    ("fold_constants", fold_constants),
    ("fold_negations", fold_negations),
    ("combine_quotients", combine_quotients),
    ("propagate_copies", propagate_copies),
    ("mark_root_tangents", mark_root_tangents),
    ("regroup_tangents", regroup_tangents),
    ("scalar_factors", scalar_factors),
    ("reuse_squares", reuse_squares),
    ("cse", cse),
    ("cancel_halves", cancel_halves),
    ("dce", dce),
    ("invariant_carries", invariant_carries),
    ("hoist_invariants", hoist_invariants),
    ("dedupe_tape", dedupe_tape),
    ("store_or_recompute", store_or_recompute),
    ("sink_loop_results", sink_loop_results),
]


# at the end of the last round only: they mark ops that may update an operand in place,
# marks that each round's run dropped and made afresh (no pass of a round reads them)
LAST_ROUND_PASSES: list[tuple[str, Callable[[Function], None]]] = [
    ("accumulate_in_place", accumulate_in_place),
    ("rows_in_place", rows_in_place),
]


# once, after the rounds: it hides the ``shape(x=v)`` ops the shape classes read
FINAL_PASSES: list[tuple[str, Callable[[Function], None]]] = [
    ("shapes_without_values", shapes_without_values),
]


def optimize(fn: Function, *, check: Callable[[Function], None] | None = None) -> Function:
    """Run every pass (twice); ``check`` (e.g. the IR verifier) runs after each."""
    for _ in range(2):
        for _name, run in PASSES:
            run(fn)
            if check is not None:
                check(fn)
    for _name, run in (*LAST_ROUND_PASSES, *FINAL_PASSES):
        run(fn)
        if check is not None:
            check(fn)
    return fn


def for_emission(fn: Function, *, check: Callable[[Function], None] | None = None
                 ) -> Function:
    """The function to emit: ``fn`` itself, or, where :func:`.elements.element_adjoints`
    has element scatters to write into one array, an optimised copy with them written so.
    Its zeros-and-writes run fast but compose badly (a further transform would
    differentiate writes into a fresh array), so ``fn``, which a transform composed on
    ``sg.grad`` differentiates, keeps its scatters. The same for the tangents of square
    roots written as divisions by the user's root (:mod:`.root_tangents`)."""
    if not has_element_scatters(fn):
        return _checked(reciprocal_roots(fn), check)
    copy, mapping = clone_function(fn)
    for old, new in mapping.items():  # (names: the adjoint of ``x`` is still ``dx``)
        if old.adjoint_of is not None:
            new.adjoint_of = mapping.get(old.adjoint_of, old.adjoint_of)
    element_adjoints(copy)
    # (one more round: the arrays' shape classes)
    for _name, run in (*PASSES, *LAST_ROUND_PASSES):
        run(copy)
        if check is not None:
            check(copy)
    return _checked(reciprocal_roots(copy), check)


def _checked(fn: Function, check: Callable[[Function], None] | None) -> Function:
    if check is not None:
        check(fn)
    return fn
