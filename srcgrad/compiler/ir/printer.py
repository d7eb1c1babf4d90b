"""Print IR as stable text (for people, golden tests and ``srcgrad show --ir``).

Values print as ``%name`` (the user's name; ``%name.1``, ``%name.2`` on reassignment) or
``%N`` when unnamed, numbered in order of definition so the text does not depend on
global ids. Constants print inline as ``value``::

    func f(%x) {                                   # f.py:1
      %0 = sin(x=%x)                               # line 2
      %y = multiply(x=%0, y=2)                     # line 2
      return %y
    }
"""

from __future__ import annotations

from typing import Any

from .core import (
    NUMBER_SIGN,
    PYTHON_SPELLING,
    TANGENT_CODE,
    USER_ARITHMETIC,
    USER_CHECK,
    Block,
    Function,
    Op,
    Value,
)

_COMMENT_COLUMN = 48


class _Names:
    def __init__(self) -> None:
        self.names: dict[Value, str] = {}
        self.used: dict[str, int] = {}
        self.unnamed = 0

    def define(self, v: Value) -> str:
        if v.name:
            n = self.used.get(v.name, 0)
            self.used[v.name] = n + 1
            text = f"%{v.name}" if n == 0 else f"%{v.name}.{n}"
        else:
            text = f"%{self.unnamed}"
            self.unnamed += 1
        self.names[v] = text
        return text

    def ref(self, v: Any) -> str:
        if isinstance(v, tuple):
            return "(" + ", ".join(self.ref(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if isinstance(v, Value):
            if v.op is not None and v.op.prim == "const":
                return _const(v.op.attrs["value"])
            return self.names.get(v, f"%?{v.id}")
        return repr(v)


def _const(value: Any) -> str:
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}".replace("numpy.", "np.")
    return repr(value)


def _line(text: str, comment: str | None) -> str:
    if not comment:
        return text
    return f"{text.ljust(_COMMENT_COLUMN - 1)} # {comment}"


def print_function(fn: Function) -> str:
    names = _Names()
    params = ", ".join(names.define(p) for p in fn.params)
    lines = [_line(f"func {fn.name}({params}) {{", f"{fn.filename}:{fn.firstlineno}")]
    _print_block(fn.body, names, lines, "  ")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _print_block(block: Block, names: _Names, lines: list[str], indent: str) -> None:
    for op in block.ops:
        if op.prim == "const":
            continue
        _print_op(op, names, lines, indent)
    results = ", ".join(names.ref(r) for r in block.results)
    lines.append(f"{indent}return {results}" if indent == "  " else f"{indent}yield {results}")


def _print_op(op: Op, names: _Names, lines: list[str], indent: str) -> None:
    args = [f"{k}={names.ref(a)}" for k, a in op.args.items()]
    args += [f"{k}={_const(a)}" for k, a in op.attrs.items()
             if k not in ("fn", "rule", PYTHON_SPELLING, TANGENT_CODE, NUMBER_SIGN,
                           USER_ARITHMETIC, USER_CHECK)]
    if "fn" in op.attrs:
        fn = op.attrs["fn"]
        args.insert(0, f"fn={getattr(fn, '__qualname__', repr(fn))}")
    outs = ", ".join(names.define(o) for o in op.outputs)
    head = f"{outs} = " if outs else ""
    comment = f"line {op.line}" if op.line is not None else None
    if not op.regions:
        lines.append(_line(f"{indent}{head}{op.prim}({', '.join(args)})", comment))
        return
    lines.append(_line(f"{indent}{head}{op.prim}({', '.join(args)}) {{", comment))
    for region in op.regions:
        params = ", ".join(names.define(p) for p in region.params)
        lines.append(f"{indent}  ^({params}):")
        _print_block(region, names, lines, indent + "    ")
    lines.append(f"{indent}}}")
