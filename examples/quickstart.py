"""Quickstart: the one table of derivative rules at work on plain NumPy values.

Run: python examples/quickstart.py
"""

import numpy as np

from srcgrad.rules import rule_named

if __name__ == "__main__":
    x = np.array([0.5, 1.0, 2.0])
    sin = rule_named("sin")
    g = np.ones_like(x)
    print("sin'(x) by the rule table:", sin.call_vjp("x", {"g": g, "x": x}))
    print("cos(x) for comparison:    ", np.cos(x))
