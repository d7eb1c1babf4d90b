"""The kink table's rows for issue 14's functions (``test_kink_table.py`` appends them to
its ``TABLE``; same columns, same meaning). What each returns at its special points:

- ``fabs`` at 0: 0 (as ``abs``);
- ``fmax``/``fmin``: PyTorch's convention, the gradient goes to the argument whose value is
  returned: a NaN gets none unless both are NaN (then ``x``), a tie goes to ``x``;
- ``sinc`` at 0: slope 0, curvature ``-pi^2/3`` (PyTorch's second derivative is NaN);
- ``nan_to_num``: 1 where the value was finite, 0 where NaN or an infinity was replaced;
- ``cbrt`` at 0: ``inf``, as ``sqrt`` and PyTorch's ``x ** (1/3)``;
- ``cumprod`` through zeros: exact (no division);
- ``nansum``/``nanmean``: 0 at the NaNs; an all-NaN slice of ``nanmean`` gives 0 where
  PyTorch gives NaN;
- ``np.median``: the middle element by stable sort, 1/2 to each of the two middles of an
  even count, the first NaN of a slice holding one; ``t.median()`` (``median_low``): the
  lower middle, ties share it (PyTorch);
- ``lgamma`` at its poles: digamma's ``-inf`` at 0 and NaN at -1, -2, ... (PyTorch);
- ``logaddexp2`` of two ``-inf``: NaN, as ``logaddexp``;
- ``math.dist`` (``dist``) of equal points: 0, as ``torch.dist``.
"""

from __future__ import annotations

import math

import numpy as np

from srcgrad.rules import RULES
from srcgrad.rules.math_items import dist
from srcgrad.rules.special import lgamma

from .test_kink_table import RUNTIME_ONLY, Row, _torch

INF, NAN = math.inf, math.nan
PI = math.pi
NO_TORCH = ("rules", "compiler", "compiler-unoptimized", "compiler-forward", "runtime")


def fabs_(x):
    return np.sum(np.fabs(x))


def fmax_(x, y):
    return np.sum(np.fmax(x, y))


def fmin_(x, y):
    return np.sum(np.fmin(x, y))


def sinc_(x):
    return np.sum(np.sinc(x))


def nan_to_num_(x):
    return np.sum(np.nan_to_num(x))


def cbrt_(x):
    return np.sum(np.cbrt(x))


def cumprod_(x):
    return np.sum(np.cumprod(x))


def nansum_(x):
    return np.nansum(x)


def nanmean_(x):
    return np.nanmean(x)


def nanmean_rows(x):
    return np.sum(np.nanmean(x, axis=1))


def median_(x):
    return np.median(x)


def median_low_full(x):
    return RULES["median_low"].impl(x)


def median_low_rows(x):
    return np.sum(RULES["median_low"].impl(x, axis=1))


def lgamma_(x):
    return np.sum(lgamma(x))


def logaddexp2_(x, y):
    return np.sum(np.logaddexp2(x, y))


def dist_(x, y):
    return dist(x, y)


_NUMPY_MEDIAN = "np.median averages the two middles; PyTorch's median is the lower one " \
                "(rows median-low-*)"

ROWS = [
    Row("fabs-at-0", fabs_, ([0.0, -1.0, 2.0],), ([0.0, -1.0, 1.0],), lambda x: x.abs().sum(),
        second=([0.0, 0.0, 0.0],)),
    Row("fmax-ties-and-nans", fmax_, ([1.0, 2.0, NAN, NAN, 3.0], [1.0, 1.0, 1.0, NAN, NAN]),
        ([1.0, 1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0, 0.0]),
        lambda x, y: _torch("fmax")(x, y).sum(), second=([0.0] * 5, [0.0] * 5),
        differs_from_torch="forward mode at a tie: PyTorch's fmax tangent follows y while "
        "its gradient goes to x; srcgrad's forward mode agrees with its reverse mode (x)",
        torch_forward=([0.0, 1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0, 0.0])),
    Row("fmin-ties-and-nans", fmin_, ([1.0, 0.0, NAN, NAN, 3.0], [1.0, 1.0, 1.0, NAN, NAN]),
        ([1.0, 1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0, 0.0]),
        lambda x, y: _torch("fmin")(x, y).sum(), second=([0.0] * 5, [0.0] * 5)),
    Row("sinc-at-0", sinc_, ([0.0, 0.5],), ([0.0, -4.0 / PI],), lambda x: x.sinc().sum(),
        second=([-PI * PI / 3.0, -2.0 * PI + 16.0 / PI],),
        torch_second=([NAN, -2.0 * PI + 16.0 / PI],),
        differs_from_torch="second order at 0: srcgrad's sinc_derivative(x, 2) gives the "
        "limit -pi^2/3; PyTorch's derivative formula divides by x and gives NaN"),
    Row("nan_to_num-replaced", nan_to_num_, ([1.5, NAN, INF, -INF],), ([1.0, 0.0, 0.0, 0.0],),
        lambda x: _torch("nan_to_num")(x).sum(), second=([0.0] * 4,)),
    Row("cbrt-at-0", cbrt_, ([0.0, 8.0],), ([INF, 1.0 / 12.0],),
        lambda x: (x ** (1.0 / 3.0)).sum(), forward=([INF, NAN],),
        second=([-INF, -1.0 / 144.0],)),
    Row("cumprod-zeros", cumprod_, ([2.0, 0.0, 3.0, 0.0, 5.0],), ([1.0, 8.0, 0.0, 0.0, 0.0],),
        lambda x: x.cumprod(0).sum(), second=([0.0] * 5,)),
    Row("nansum-nans", nansum_, ([1.0, NAN, -2.0],), ([1.0, 0.0, 1.0],),
        lambda x: x.nansum(), second=([0.0] * 3,)),
    Row("nanmean-nans", nanmean_, ([1.0, NAN, 2.0, NAN],), ([0.5, 0.0, 0.5, 0.0],),
        lambda x: x.nanmean(), second=([0.0] * 4,)),
    Row("nanmean-all-nan-row", nanmean_rows, ([[NAN, NAN], [1.0, 3.0]],),
        ([[0.0, 0.0], [0.5, 0.5]],), lambda x: x.nanmean(dim=1).sum(),
        torch_grads=([[NAN, NAN], [0.5, 0.5]],), torch_forward=([[NAN, NAN], [NAN, NAN]],),
        differs_from_torch="an all-NaN slice: srcgrad's nanmean gives it a zero derivative "
        "(its mean is the constant NaN); PyTorch's nansum / count meets 0 * inf there",
        second=([[0.0, 0.0], [0.0, 0.0]],)),
    Row("median-even", median_, ([4.0, 1.0, 3.0, 2.0],), ([0.0, 0.0, 0.5, 0.5],),
        lambda x: x.median(), only=NO_TORCH, why_only=_NUMPY_MEDIAN,
        second=([0.0] * 4,)),
    Row("median-odd-ties", median_, ([2.0, 1.0, 2.0, 3.0, 2.0],), ([0.0, 0.0, 1.0, 0.0, 0.0],),
        lambda x: x.median(), only=NO_TORCH, why_only=_NUMPY_MEDIAN, second=([0.0] * 5,)),
    Row("median-nan", median_, ([1.0, NAN, 2.0],), ([0.0, 1.0, 0.0],),
        lambda x: x.median(), second=([0.0] * 3,),
        differs_from_torch="forward mode over a NaN: PyTorch's median tangent is NaN along "
        "every direction; srcgrad's follows the element that gets the gradient (the NaN)",
        torch_forward=([NAN, NAN, NAN],)),
    Row("median-low-full-ties", median_low_full, ([2.0, 1.0, 2.0, 3.0],),
        ([0.5, 0.0, 0.5, 0.0],), lambda x: x.median(), only=RUNTIME_ONLY,
        why_only="t.median() has no NumPy spelling (np.median is row median-even)",
        second=([0.0] * 4,)),
    Row("median-low-rows", median_low_rows, ([[2.0, 1.0, 2.0, 3.0, 2.0]],),
        ([[0.0, 0.0, 1.0, 0.0, 0.0]],), lambda x: x.median(dim=1).values.sum(),
        only=RUNTIME_ONLY, why_only="t.median(dim) has no NumPy spelling",
        second=([[0.0] * 5],)),
    Row("lgamma-at-poles", lgamma_, ([0.0, -1.0, 2.0],), ([-INF, NAN, 1.0 - 0.5772156649015329],),
        lambda x: x.lgamma().sum(), forward=([NAN, NAN, NAN],)),
    # (at 50, where PyTorch's trigamma is exact too: near 1 it is off by 4e-10; mpmath values)
    Row("lgamma-second-at-0", lgamma_, ([0.0, 50.0],), ([-INF, 3.901989673427892],),
        lambda x: x.lgamma().sum(), forward=([-INF, NAN],),
        second=([INF, 0.020201333226697125],)),
    Row("logaddexp2-of-minus-inf", logaddexp2_, ([-INF, -INF, 0.0], [0.0, -INF, -INF]),
        ([0.0, NAN, 1.0], [1.0, NAN, 0.0]), lambda x, y: _torch("logaddexp2")(x, y).sum(),
        forward=([NAN] * 3, [NAN] * 3)),
    Row("dist-of-equal-points", dist_, ([1.0, 2.0], [1.0, 2.0]), ([0.0, 0.0], [0.0, 0.0]),
        lambda x, y: _torch("dist")(x, y)),
]
