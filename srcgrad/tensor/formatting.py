"""``repr(tensor)`` as PyTorch prints it: ``tensor([6.], grad_fn=<MulBackward0>)``.

PyTorch's rules, re-derived: four decimals; floats that are all whole print as ``6.``;
scientific notation when the magnitudes span more than 1000x, exceed 1e8, or (for
non-whole values) go below 1e-4; every element padded to one width; lines wrap at 80
columns; more than 1000 elements are summarised with ``...`` keeping 3 at each edge;
``dtype=`` only for dtypes other than float32, int64 and bool.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
_DEFAULT_DTYPES = ("float32", "int64", "bool")


class _Formatter:
    """Chooses one notation and width for all the values of a tensor."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.width = max(self.width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
            for v in finite.tolist():
                text = f"{v:.{PRECISION}e}" if self.sci_mode else f"{v:.0f}"
                self.width = max(self.width, len(text) + (0 if self.sci_mode else 1))
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            for v in finite.tolist():
                text = f"{v:.{PRECISION}e}" if self.sci_mode else f"{v:.{PRECISION}f}"
                self.width = max(self.width, len(text))

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = str(value)
        return " " * (self.width - len(text)) + text


def _summarized(values: np.ndarray) -> np.ndarray:
    """The values a summarised print shows (edges of every dimension)."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        values = np.concatenate([values[:EDGEITEMS], values[-EDGEITEMS:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(v) for v in values])


def _vector(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / (fmt.width + 2))))
    items = values.tolist()
    if summarize and len(items) > 2 * EDGEITEMS:
        parts = ([fmt.format(v) for v in items[:EDGEITEMS]] + [" ..."]
                 + [fmt.format(v) for v in items[-EDGEITEMS:]])
    else:
        parts = [fmt.format(v) for v in items]
    lines = [", ".join(parts[i:i + per_line]) for i in range(0, len(parts), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = ([_nested(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
                + ["..."]
                + [_nested(values[i], indent + 1, summarize, fmt)
                   for i in range(n - EDGEITEMS, n)])
    else:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(n)]
    sep = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def values_str(values: np.ndarray, indent: int) -> str:
    """The bracketed values part of a repr."""
    if values.size == 0:
        return "[]"
    summarize = values.size > THRESHOLD
    fmt = _Formatter(_summarized(values) if summarize else values)
    return _nested(values, indent, summarize, fmt)


def tensor_repr(t: Any) -> str:
    prefix = "tensor("
    indent = len(prefix)
    data = t._data
    dtype_name = t.dtype.name
    suffixes = []
    if data.size == 0 and data.ndim != 1:
        suffixes.append(f"size={tuple(data.shape)}")
    if dtype_name not in _DEFAULT_DTYPES:
        suffixes.append(f"dtype=srcgrad.{dtype_name}")
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    text = prefix + values_str(data, indent)
    pieces = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)
