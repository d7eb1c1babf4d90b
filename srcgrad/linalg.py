"""``sg.linalg``: the runtime's ``torch.linalg`` spellings (``sg.linalg.cross``)."""

from __future__ import annotations

from .tensor.arrange_methods import linalg_cross as cross

__all__ = ["cross"]
