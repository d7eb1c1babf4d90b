"""Forward mode over the whole program corpus: sg.jvp's directional derivative equals the
gradient's inner product with the tangent (<grad f, t> = J t), for every argument kind."""

import contextlib
import inspect
import io

import corpus
import numpy as np
import pytest

import srcgrad as sg

PROGRAMS = [p for p in corpus.load() if p.transform == "grad"]


def _tangent_like(g, rng):
    t = rng.uniform(-1.0, 1.0, size=np.shape(g))
    if isinstance(g, float):
        return float(t)
    if isinstance(g, np.generic):
        return type(g)(t)
    return np.asarray(t, dtype=np.result_type(g))


def _call_jvp(fn, wrt, args, kwargs, tangent):
    fw = sg.jvp(fn, wrt=wrt)
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    required = [q.name for q in inspect.signature(fw).parameters.values()
                if q.kind != q.KEYWORD_ONLY and q.name != "tangent"]
    keywords = {k: v for k, v in bound.arguments.items() if k not in required}
    return fw(*[bound.arguments[n] for n in required], tangent, **keywords)


@pytest.mark.parametrize("program, kind", [pytest.param(p, k, id=f"{p.name}-{k}")
                                           for p in PROGRAMS for k in p.kinds])
def test_jvp_agrees_with_grad(program, kind):
    args, kwargs = program.make_args(kind)
    with contextlib.redirect_stdout(io.StringIO()):
        grads = program.call(program.derive(), args, kwargs, None)
        rng = np.random.default_rng(0)
        tangents = [_tangent_like(g, rng) for g in grads]
        tangent = tuple(tangents) if isinstance(program.wrt, tuple) else tangents[0]
        only_vjp = program.setup is not None and "defvjp" in inspect.getsource(program.setup)
        if only_vjp and "defjvp" not in inspect.getsource(program.setup):
            with pytest.raises(sg.SrcGradError, match="defjvp"):
                _call_jvp(program.fn, program.wrt, args, kwargs, tangent)
            return
        _, directional = _call_jvp(program.fn, program.wrt, args, kwargs, tangent)
    want = sum(float(np.sum(np.asarray(g, dtype=float) * np.asarray(t, dtype=float)))
               for g, t in zip(grads, tangents))
    np.testing.assert_allclose(float(np.sum(directional)), want, rtol=1e-6, atol=1e-9)
