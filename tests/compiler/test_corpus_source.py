"""``sg.source(df, *example_args)`` is one self-contained module (API.md §1): for every
corpus program, executing the text in a fresh namespace defines the derived function's
emitted code, and calling it gives exactly what ``df`` gives."""

import contextlib
import inspect
import io

import corpus
import numpy as np
import pytest
from fd import assert_close

import srcgrad as sg

PROGRAMS = corpus.load()

# Programs calling a function that no module can import (made by exec): no text can name it.
NOT_IMPORTABLE = {"defvjp_for_function_without_source"}

# program name, or "name[kind]", -> what the compiler is missing (strict xfails)
_BOUND_METHOD = ("compiler: a method of a constant array (np.arange(6.0).reshape(2, 3)) is "
                 "emitted as a call of `_ndarray_reshape`, which the module text never defines "
                 "(NameError when the text runs on its own)")
PENDING_SOURCE: dict[str, str] = {}


def cases():
    for program in PROGRAMS:
        if program.name in NOT_IMPORTABLE:
            continue
        for kind in (program.kinds[0], program.kinds[-1]) if len(program.kinds) > 1 else (
                program.kinds[0],):
            yield pytest.param(program, kind, id=f"{program.name}-{kind}",
                               marks=corpus.pending_marks(PENDING_SOURCE, program, kind))


def all_positional(program, args, kwargs):
    """Every parameter's value in order (defaults filled in): the emitted entry's arguments
    (the emitted def takes keyword-only parameters positionally too)."""
    signature = inspect.signature(program.fn)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


@pytest.mark.parametrize("program, kind", list(cases()))
def test_emitted_module_runs_on_its_own(program, kind):
    args, kwargs = program.make_args(kind)
    positional = all_positional(program, args, kwargs)
    seed = program.seed_for(args, kwargs, kind)
    full = positional if seed is None else (*positional, seed)
    derived = program.derive()
    text = sg.source(derived, *full)
    namespace = {"__name__": "srcgrad_emitted_module"}
    exec(compile(text, f"<sg.source of {program.name}>", "exec"), namespace)
    assert derived.__name__ in namespace, f"no def {derived.__name__} in:\n{text}"
    with contextlib.redirect_stdout(io.StringIO()):
        got = namespace[derived.__name__](*full)
        want = derived(*args, *(() if seed is None else (seed,)), **kwargs)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w)
        assert_close(g, w, rtol=0, atol=0, what=f"{program.name}: emitted module vs df")


def test_source_text_is_the_same_in_every_process():
    # no memory addresses or ids in the text: golden files and diffs must be stable
    program = next(p for p in PROGRAMS if p.name == "np_flip")
    args, _ = program.make_args("nd")
    text = sg.source(program.derive(), *args)
    assert " at 0x" not in text, text
    assert np.all(np.isfinite(program.fn(*args)))
