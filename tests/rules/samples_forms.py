"""Rule samples for the constant factories added for users' rule bodies (``np.tri``,
``np.identity``): zero-derivative, checked like ``eye``. Imported at the end of
``samples.py``."""

from __future__ import annotations

from .samples import each

each("tri", [{"N": 3, "M": None, "k": 0, "dtype": None},
             {"N": 3, "M": 4, "k": -1, "dtype": None}])
each("identity", [{"n": 3, "dtype": None}])
