"""Every corpus program's derivative against central finite differences in float64, for each
argument kind that applies, with ``optimize`` on and off (see ``corpus/__init__.py``)."""

import contextlib
import io

import corpus
import numpy as np
import pytest
from fd import assert_close, numeric_gradient, resolve_wrt

PROGRAMS = corpus.load()

# What the compiler cannot do yet: program name, or "name[kind]", -> what is missing.
# Each entry is a strict xfail, so it turns red the day the compiler learns it: then delete it.
PENDING: dict[str, str] = {}


def cases():
    for program in PROGRAMS:
        for kind in program.kinds:
            for optimize in (True, False):
                yield pytest.param(
                    program, kind, optimize,
                    id=f"{program.name}-{kind}-{'opt' if optimize else 'noopt'}",
                    marks=corpus.pending_marks(PENDING, program, kind),
                )


def reference_gradients(program, args, kwargs, seed):
    """The exact gradient where the program has one, else central finite differences."""
    if program.expected is not None:
        expected = program.expected(*args, **kwargs)
        return expected if isinstance(program.wrt, tuple) else (expected,)
    places = resolve_wrt(program.fn, program.wrt, len(args))
    with contextlib.redirect_stdout(io.StringIO()):  # programs that print
        return tuple(numeric_gradient(program.fn, args, kwargs, p, seed) for p in places)


@pytest.mark.parametrize("program, kind, optimize", list(cases()))
def test_program_matches_finite_differences(program, kind, optimize):
    args, kwargs = program.make_args(kind)
    derived = program.derive(optimize=optimize)
    seed = program.seed_for(args, kwargs, kind)
    got = program.call(derived, args, kwargs, seed)
    want = reference_gradients(program, args, kwargs, seed)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert_close(g, w, what=f"{program.name}: gradient {i} (wrt={program.wrt!r})")


def test_corpus_is_large_and_covers_every_kind():
    assert len(PROGRAMS) >= 80
    kinds = {k for p in PROGRAMS for k in p.kinds}
    assert kinds == {"float", "np.float64", "0d", "nd"}
    assert {p.transform for p in PROGRAMS} == {"grad", "vjp"}


# --- the checker itself must be able to fail ---------------------------------------------

def _cubic_sum(x, y):
    return np.sum(x ** 3 * y)


def test_checker_accepts_the_exact_gradient():
    x, y = np.array([0.3, -1.2, 0.7]), np.array([1.1, 0.4, -0.5])
    assert_close(3 * x ** 2 * y, numeric_gradient(_cubic_sum, (x, y), {}, 0))
    assert_close(x ** 3, numeric_gradient(_cubic_sum, (x, y), {}, 1))


def test_checker_catches_a_gradient_off_by_a_tenth_of_a_percent():
    x, y = np.array([0.3, -1.2, 0.7]), np.array([1.1, 0.4, -0.5])
    with pytest.raises(AssertionError):
        assert_close(3 * x ** 2 * y * 1.001, numeric_gradient(_cubic_sum, (x, y), {}, 0))


def test_checker_catches_a_wrong_shape():
    x, y = np.array([0.3, -1.2, 0.7]), np.array([1.1, 0.4, -0.5])
    with pytest.raises(AssertionError, match="shape"):
        assert_close(np.sum(3 * x ** 2 * y), numeric_gradient(_cubic_sum, (x, y), {}, 0))


def test_checker_differentiates_keyword_arguments_and_seeds():
    def f(x, scale=1.0):
        return x * scale, np.sum(x)

    x = np.array([0.5, 2.0])
    seed = (np.array([1.0, 3.0]), 2.0)
    # <seed, f> = scale * (x0 + 3 x1) + 2 (x0 + x1)
    assert_close(numeric_gradient(f, (x,), {"scale": 1.5}, "scale", seed), 0.5 + 6.0)
    assert_close(numeric_gradient(f, (x,), {"scale": 1.5}, 0, seed), [1.5 + 2.0, 4.5 + 2.0])
