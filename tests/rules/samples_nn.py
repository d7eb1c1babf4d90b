"""Samples for the ``sg.nn`` rules (``srcgrad/rules/nn.py``): PyTorch's fused losses,
``gelu`` (and its ``ndtr``), ``addmm`` and the ``nll_weights`` helper.

Every reduction of every loss; values away from the kinks (``smooth_l1``'s ``|d| = beta``,
BCE's 0 and 1), which the kink table and the runtime tests check instead.
"""

from __future__ import annotations

import numpy as np

from .samples import P, R, each

_RED = ("none", "sum", "mean")
_rng = np.random.default_rng(77)


def _probs(shape):
    return _rng.uniform(0.1, 0.9, shape)


def _away_from(beta, shape):
    """Differences with |d| not within 0.1 of beta (the quadratic/linear seam)."""
    d = _rng.uniform(-2.0, 2.0, shape)
    return np.where(np.abs(np.abs(d) - beta) < 0.1, d + 0.3, d)


each("mse_loss", [{"x": R(s), "target": R(s), "reduction": r}
                  for s in [(5,), (10, 5), (3, 1, 5)] for r in _RED])
each("smooth_l1_loss", [{"x": _away_from(b, s), "target": np.zeros(s), "reduction": r, "beta": b}
                        for s in [(5,), (10, 5)] for r in _RED for b in (1.0, 0.5)])
each("binary_cross_entropy",
     [{"x": _probs(s), "target": _probs(s), "weight": w, "reduction": r}
      for s in [(5,), (10, 5)] for r in _RED for w in (1.0, P((5,)))])
each("binary_cross_entropy_with_logits",
     [{"x": R(s), "target": _probs(s), "weight": w, "pos_weight": pw, "reduction": r}
      for s in [(5,), (10, 5)] for r in _RED for w, pw in ((1.0, 1.0), (P((5,)), P((5,))))])
_T2 = np.array([0, 4, 2, 2, 1, 3, 0, 4, 1, 2])
each("nll_loss",
     [{"x": R((10, 5)), "target": _T2, "weight": w, "axis": 1, "reduction": r,
       "ignore_index": ig} for r in _RED for w in (None, P((5,))) for ig in (-100, 2)]
     + [{"x": R((5,)), "target": np.array(3), "weight": None, "axis": 0, "reduction": r,
         "ignore_index": -100} for r in _RED]
     + [{"x": R((3, 5, 2)), "target": np.array([[0, 1], [4, 4], [2, 0]]), "weight": None,
         "axis": 1, "reduction": r, "ignore_index": -100} for r in _RED])
each("nll_weights", [{"target": _T2, "weight": None, "shape": (10, 5), "dtype": np.float64,
                      "axis": 1, "ignore_index": 2}])
each("ndtr", [{"x": R(s, -4.0, 4.0)} for s in [(), (5,), (10, 5)]])
each("gelu", [{"x": R(s, -3.0, 3.0), "approximate": a} for s in [(), (5,), (10, 5)]
              for a in ("none", "tanh")])
each("addmm", [{"input": R(s), "mat1": R((4, 3)), "mat2": R((3, 5))}
               for s in [(5,), (4, 5), (1, 5), ()]])
