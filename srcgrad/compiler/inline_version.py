"""The derived function's one version written inside its dispatcher (no second call).

:mod:`.dispatcher` generates the function users call: guards, then ``return _sg_v0(x)``.
For a derivative of ~1 us (a Newton loop of one float) that second Python call is ~8% of
the time. When the dispatcher holds exactly one version that is a plain function of the
same parameters, with a short body (``MAX_INLINED_LINES``), :func:`inlined_text` writes
that version's own emitted body under its guards instead (DESIGN.md principle 7: the
emitted function itself with cheap guards inside)::

    def grad_f(a):                              def grad_f(a):
        try:                                        try:
            if type(a) is float and ...:    ->          if type(a) is float and ...:
                return _sg_v0(a)                            # line 2: return a * 2.0
        except Exception as _sg_e:                          return 2.0
            ...                                     except Exception as _sg_e:
        return _sg_slow(a)                              ...
                                                    return _sg_slow(a)

The version's names (``math``, ``like``, captured modules' globals) join the dispatcher's
namespace; anything that could make that ambiguous (a name bound to another object there,
a ``_sg_`` name, a call of the version by its own name, defaults, closures, structured
arguments) keeps the ordinary call.
"""

from __future__ import annotations

import linecache
from typing import Any

_OWN = ("__name__", "__srcgrad_filename__", "__builtins__")

# A longer body keeps the call: compiling the body a second time, inside the dispatcher,
# costs about 20 us a line on each new version (1.3 ms of a 25 ms first call for the
# small MLP's 56 lines), while the call it saves is ~0.1 us, next to nothing beside the
# microseconds such a body runs for
MAX_INLINED_LINES = 40


def inlined_text(name: str, doc: str, call_names: list[str], checks: list[str],
                 entry: Any, ns: dict[str, Any], handler: list[str]) -> str | None:
    """The dispatcher's text with ``entry``'s body under ``checks`` and the ``handler``
    lines after ``except Exception as _sg_e:`` (as the dispatcher writes them for its
    ``try``), or None (and ``ns`` untouched) when it cannot be written so."""
    fn = entry.fn
    code = getattr(fn, "__code__", None)
    if entry.boundary is not None or code is None or fn.__defaults__ or fn.__kwdefaults__ \
            or fn.__closure__ or code.co_kwonlyargcount or code.co_flags & 0x0C \
            or list(code.co_varnames[:code.co_argcount]) != call_names:
        return None
    if fn.__name__ in code.co_names or any(n.startswith("_sg_") for n in
                                           (*code.co_names, *code.co_varnames)):
        return None  # (it calls itself by name, or a name could clash with the guards')
    body = _body_lines(fn)
    if body is None or len(body) > MAX_INLINED_LINES:
        return None
    names = {k: v for k, v in fn.__globals__.items() if k not in _OWN and k != fn.__name__}
    if any(k.startswith("_sg_") or (k in ns and ns[k] is not v) or k == name
           for k, v in names.items()):
        return None
    ns.update(names)
    args = ", ".join(call_names)
    lines = [f"def {name}({args}):", f"    {doc!r}", "    try:",
             f"        if {' and '.join(checks) or 'True'}:"]
    lines += ["        " + line if line.strip() else line for line in body]
    lines += ["    except Exception as _sg_e:", *handler, f"    return _sg_slow({args})"]
    return "\n".join(lines) + "\n"


def _body_lines(fn: Any) -> list[str] | None:
    """The emitted function's body, as compiled (one ``def`` line, then its block)."""
    code = fn.__code__
    text = linecache.getlines(code.co_filename)
    if not text:
        return None
    first = code.co_firstlineno - 1
    params = ", ".join(code.co_varnames[:code.co_argcount])
    if first >= len(text) or text[first].rstrip("\n") != f"def {fn.__name__}({params}):":
        return None
    body = []
    for line in text[first + 1:]:
        if line.strip() and not line.startswith(" "):
            break  # the next top-level statement
        body.append(line.rstrip("\n"))
    while body and not body[-1].strip():
        body.pop()
    if not body or any('"""' in line or "'''" in line for line in body):
        return None  # (a multi-line string would not take the new indentation)
    return body
