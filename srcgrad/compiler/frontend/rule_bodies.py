"""Users' derivative rules (``sg.defvjp`` / ``sg.defjvp``) traced by the frontend.

A built-in rule body is written for the tracer: it calls only ``np.*`` functions that
dispatch, operators and helper primitives, so running it in Python on symbolic values
(:class:`~..symbolic.Sym`) records it. A user's rule body is ordinary NumPy code: it reads
``L.T``, ``L.shape[0]``, ``len(x)``, ``np.shape(L)[-1]``, does Python int arithmetic on
those, and calls factories that NumPy never dispatches (``np.eye(n)``, ``np.tri(n)``), on
sizes that are known only when the derivative runs. Run in Python on Syms, each of those
fails somewhere inside NumPy. So the reverse and forward transforms hand a user's rule
body here (through ``Sym.__srcgrad_rule_body__``, see ``rules/user.py``), and it is
lowered like a function the user's code calls: the whole vocabulary of the frontend, the
rule table behind it, and its messages at the rule's own file:line. What it records is
IR like any other, so it is differentiated again at second order.

A rule whose source cannot be read (defined in a REPL, a builtin, a callable object) is
run in Python on the Syms as before.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any

import gast

from srcgrad.errors import SrcGradError

from ..ir.builder import current
from ..ir.core import Op
from .context import Context
from .lower import Lowerer
from .resolve import Scope
from .source import parse_function

# op attribute: (rule name, file, line) of the user's rule body an opaque call is in
RULE_BODY = "rule_body"


def trace_rule_body(rule: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``rule(*args, **kwargs)`` lowered into the active builder; its (symbolic) result."""
    if not isinstance(rule, types.FunctionType):
        return rule(*args, **kwargs)
    try:
        parsed = parse_function(rule)
    except SrcGradError:
        return rule(*args, **kwargs)
    signature = inspect.signature(rule)
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
        return rule(*args, **kwargs)  # the frontend binds named parameters only
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise SrcGradError(f"the derivative rule {rule.__qualname__} cannot take the "
                           f"arguments srcgrad passes it: {e}", filename=parsed.filename,
                           lineno=parsed.file_line(parsed.node),
                           advice="A rule takes (g, out, *args) for sg.defvjp and "
                                  "(t, out, *args) for sg.defjvp.") from None
    bound.apply_defaults()
    builder = current()
    # the ops belong to the user's differentiated line (the op whose derivative this is),
    # as those of an inlined call do; the block being built is where captured values
    # the body reads are fetched
    ctx = Context(builder, entry=builder.block, call_line=builder.line)
    ctx.code_stack.append(rule.__code__)
    lowerer = Lowerer(ctx, parsed, Scope.of(rule), dict(bound.arguments))
    before = {id(op) for op in builder.block.ops}  # (captured reads go first: not a slice)
    if isinstance(parsed.node, gast.Lambda):
        result = lowerer.run_lambda(parsed.node)
    else:
        result = lowerer.run_body(parsed.node.body)
    _mark_opaque_calls([op for op in builder.block.ops if id(op) not in before], rule, parsed)
    return result


def _mark_opaque_calls(ops: list[Op], rule: Any, parsed: Any) -> None:
    """A call without a rule in the body is fine at first order (its operands are not
    differentiated there), but differentiating the derivative again reaches it; the
    soundness check then names the user's rule too (``RULE_BODY``), not only the line of
    the differentiated call."""
    for op in ops:
        if op.prim == "call":
            op.attrs[RULE_BODY] = (rule.__qualname__, parsed.filename,
                                   parsed.file_line(parsed.node))
        for region in op.regions:
            _mark_opaque_calls(region.ops, rule, parsed)
