"""Samples of ``kept``/``dropped`` (``rules/masks.py``, issue 16): a selection's adjoint,
``np.where(mask, c, 0)`` / ``np.where(mask, 0, c)``, for a mask, a truthy float condition,
``c`` broadcast against the mask and a Python number; one sample past the float32
product threshold (the float32 checks run it there). Only ``c`` is differentiated."""

from __future__ import annotations

from .samples import R, each

for _name in ("kept", "dropped"):
    each(_name, [{"c": R((3, 4)), "mask": R((3, 4)) > 0},
                 {"c": R((2, 3)), "mask": R((2, 3))},
                 {"c": R((3,)), "mask": R((2, 3)) > 0},
                 {"c": 0.7, "mask": R((2, 3)) > 0},
                 {"c": R((70, 70)), "mask": R((70, 70)) > 0}], wrt=("c",))
