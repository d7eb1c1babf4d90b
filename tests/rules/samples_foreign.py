"""Samples for issue 17's helper ``copies`` (``rules/spread.py``): imported by the last
line of ``samples.py``."""

from __future__ import annotations

from .samples import each

each("copies", [{"shape": (10, 5), "target": (5,)}, {"shape": (3, 1, 5), "target": (3, 1, 5)},
                {"shape": (4, 3), "target": (1, 1)}, {"shape": (0, 3), "target": (3,)}])
