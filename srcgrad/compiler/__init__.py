"""The compiler: user function -> IR -> derivative IR -> optimised IR -> emitted Python.

Pipeline (each stage a subpackage, importing only downward and ``srcgrad.rules``):
``frontend`` (parse, resolve, lower) -> ``ad`` (activity, reverse mode) -> ``passes``
(simplify, CSE, copy propagation, DCE) -> ``backend`` (emit, compile, linecache).
:mod:`.api` ties them together behind ``sg.grad`` and friends.
"""
