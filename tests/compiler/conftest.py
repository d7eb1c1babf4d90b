"""Fixtures shared by the compiler tests."""

from __future__ import annotations

import pytest

import srcgrad as sg
from srcgrad.compiler.derivation import Derivation


@pytest.fixture
def compiles(monkeypatch):
    """Counts compilations (calls of Derivation.compile), from an empty cache."""
    count = {"n": 0}
    original = Derivation.compile

    def counting(self, *args, **kwargs):
        count["n"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Derivation, "compile", counting)
    sg.clear_cache()
    return count
