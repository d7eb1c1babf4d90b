"""Rule samples for the constant factories added for users' rule bodies (``np.tri``,
``np.identity``): zero-derivative, checked like ``eye``. Imported at the end of
``samples.py``."""

from __future__ import annotations

import numpy as np

from .samples import SAMPLES, R, each

each("tri", [{"N": 3, "M": None, "k": 0, "dtype": None},
             {"N": 3, "M": 4, "k": -1, "dtype": None}])
each("identity", [{"n": 3, "dtype": None}])

# one array where a joining function takes a sequence (np.vstack(A)): rules/joining_rows.py
_ROWS = [("vstack", (4,)), ("vstack", (3, 5)), ("vstack", (2, 3, 4)), ("hstack", (4,)),
         ("hstack", (3, 5)), ("hstack", (2, 3, 4)), ("dstack", (4,)), ("dstack", (3, 5)),
         ("dstack", (2, 3, 4)), ("column_stack", (4,)), ("column_stack", (3, 5)),
         ("column_stack", (2, 3, 4)), ("concatenate", (3, 5)), ("concatenate", (2, 3, 4)),
         ("stack", (3,)), ("stack", (3, 5))]
each("joined_rows", [{"a": R(shape), "how": how, "axis": 0, "dtype": None,
                      "casting": "same_kind"} for how, shape in _ROWS]
     + [{"a": R((2, 3, 4)), "how": "concatenate", "axis": -1, "dtype": None,
         "casting": "same_kind"},
        {"a": R((2, 3)), "how": "stack", "axis": -1, "dtype": None, "casting": "same_kind"},
        {"a": R((2, 3)), "how": "vstack", "axis": 0, "dtype": np.float64,
         "casting": "same_kind"}])
each("rows_shape", [{"a_shape": (2, 3, 4), "how": "hstack", "axis": 0},
                    {"a_shape": (3,), "how": "stack", "axis": -1}])
each("rows_axes", [{"a_shape": (2, 3, 4), "how": "dstack", "axis": 0}])
# NumPy 2's dtype= and casting= of the list forms
each("concatenate", [{"xs": [R((5,)), R((3,))], "axis": 0, "dtype": np.float64,
                      "casting": "same_kind"}])
each("stack", [{"xs": [R((5,)), R((5,))], "axis": 1, "dtype": np.float64,
                "casting": "same_kind"}])
each("vstack", [{"tup": [R((5,)), R((2, 5))], "dtype": np.float64, "casting": "same_kind"}])
each("hstack", [{"tup": [R((5,)), R((3,))], "dtype": np.float64, "casting": "same_kind"}])
# (the samples written before these rules took dtype=/casting=: NumPy's defaults)
for _name in ("concatenate", "stack", "vstack", "hstack"):
    for _sample in SAMPLES[_name]:
        _sample.env.setdefault("dtype", None)
        _sample.env.setdefault("casting", "same_kind")
