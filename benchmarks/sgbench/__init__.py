"""The pieces of ``benchmarks/run.py``: workloads, hand-written gradients, the systems
under test, interleaved timing, memory and Hessian measurements, and the report writers.

Only :mod:`.systems` imports the systems themselves (srcgrad, autograd, torch, jax,
tangent), lazily, so the workloads and the timing run in a venv that has only numpy (the
tangent subprocess).
"""
