"""NumPy's complex-number functions, on the real values srcgrad differentiates.

Where it sits: in the rule table (bottom layer). srcgrad differentiates real arrays only
(the compiler refuses a complex argument or a complex value computed from one, see
``compiler/ad/soundness.py``), so these rules only ever see real inputs, where each is
trivial, and they exist so that code written for either kind of number (``np.real(x)``,
``x.conj()``, ``if np.iscomplexobj(x)``) differentiates instead of being refused:

=================  ===============================================================
rule               on a real ``x``
=================  ===============================================================
real               ``np.real(x)``, ``x.real``: ``x`` itself (linear, identity)
real_if_close      ``np.real_if_close(x, tol)``: ``x`` itself (linear, identity)
conjugate          ``np.conjugate`` / ``np.conj``, ``x.conj()``, ``x.conjugate()``:
                   a copy of ``x`` (linear, identity)
imag               ``np.imag(x)``, ``x.imag``: zeros (derivative 0)
angle              ``np.angle(x, deg)``: 0 where ``x >= 0``, pi (180) where ``x < 0``:
                   piecewise constant, derivative 0 (the jump at 0 is a kink)
iscomplex ...      ``iscomplex``, ``isreal``, ``iscomplexobj``, ``isrealobj``:
                   truth values, no derivative
=================  ===============================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .registry import LINEAR, NONDIFF, defrule


class RealValuesOnly(ValueError):
    """A rule met a complex value when it ran (``np.linalg.eig`` of a matrix with complex
    eigenvalues): srcgrad differentiates real values only. The compiler raises it as a
    ``SrcGradError`` at the user's line; ``advice`` says what to write instead."""

    def __init__(self, message: str, advice: str) -> None:
        super().__init__(message)
        self.advice = advice


def _identity_vjp(g: Any) -> Any:
    return g


defrule("real", np.real, inputs=("val",), kind=LINEAR, attributes=("real",),
        view=True,  # np.real of a real array is the array itself
        pytorch=("t.real", "sg.real"), torch=("AliasBackward0", 1),
        vjp={"val": _identity_vjp})
defrule("real_if_close", np.real_if_close, inputs=("a",), params=("tol",),
        form="a, tol=100", kind=LINEAR, view=True,
        vjp={"a": _identity_vjp}, torch=("AliasBackward0", 1))
defrule("conjugate", np.conjugate, inputs=("x",), kind=LINEAR, aliases=(np.conj,),
        methods=("conj", "conjugate"), fresh=True,
        pytorch=("t.conj", "sg.conj"), torch=("AliasBackward0", 1),
        vjp={"x": _identity_vjp})
defrule("imag", np.imag, inputs=("val",), kind=NONDIFF, attributes=("imag",))
defrule("angle", np.angle, inputs=("z",), params=("deg",), form="z, deg=False",
        kind=NONDIFF,
        kinks="jumps from pi (180 with deg=True) to 0 at x = 0, where srcgrad returns 0 "
              "like everywhere else")
for _fn in (np.iscomplex, np.isreal, np.iscomplexobj, np.isrealobj):
    defrule(_fn.__name__, _fn, inputs=("x",), kind=NONDIFF)
