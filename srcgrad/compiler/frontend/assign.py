"""Lowering assignments: binding names, tuple unpacking, and the aliasing rule.

``x = ...`` binds the name to the value (SSA renaming keeps the user's name on the value);
``y[i] = v`` on a local array becomes a functional ``setitem`` rebinding ``y``; augmented
assignment to an array is ``y = y + v`` when no other live name shares the array. A write
that could reach the caller's data, or one another name would see, raises SrcGradError
advising ``.copy()`` (API.md §1: derived functions never modify their arguments).
"""

from __future__ import annotations

from typing import Any

import gast

from ..symbolic import Sym, is_symbolic, record_rule
from . import calls
from .context import Context
from .multicalls import describe as describe_made
from .operators import BINOPS
from .syntax_names import describe

# How the user wrote an augmented operator, for messages
_SPELLING = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
             gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%"}


class AssignMixin:
    """The assignment half of :class:`.lower.Lowerer`."""

    env: dict[str, Any]
    enclosing: list[dict[str, Any]]
    ctx: Context

    def assign(self, target: Any, value: Any, node: Any) -> None:
        if isinstance(target, gast.Name):
            if isinstance(value, Sym):
                value = self.named(value, target.id)
            self.env[target.id] = value
        elif isinstance(target, (gast.Tuple, gast.List)):
            starred = [i for i, t in enumerate(target.elts) if isinstance(t, gast.Starred)]
            if starred and isinstance(value, (tuple, list)):
                # `first, *rest = items`: the starred name takes a list of what is left
                (s,) = starred
                after = len(target.elts) - s - 1
                if len(value) < len(target.elts) - 1:
                    message = _unpack_message(self.ctx, value, len(target.elts) - 1, True)
                    raise self.err(node, message, _UNPACK_ADVICE)
                value = [*value[:s], list(value[s:len(value) - after]),
                         *value[len(value) - after:]]
                target = type(target)(elts=[*target.elts[:s], target.elts[s].value,
                                            *target.elts[s + 1:]], ctx=target.ctx)
            items = self.unpack(value, len(target.elts), node)
            for t, v in zip(target.elts, items):
                self.assign(t, v, node)
        elif isinstance(target, gast.Subscript):
            self.subscript_write(target, node)
        elif isinstance(target, gast.Attribute):
            raise self.err(node, "assignment to an attribute is not supported (it would change "
                           "an object outside the function).",
                           "Keep the value in a local variable and return it.")
        else:
            raise self.err(node, f"assigning to a {describe(target)} is not supported in a "
                           "differentiated function.",
                           "Assign to plain names, or index the value: a, b = x[0], x[1:].")

    def named(self, value: Sym, name: str) -> Sym:
        """Give ``value`` the user's name (``b = a`` simply binds ``b`` to ``a``'s value)."""
        v = value.value
        if v.name is None and v.op is not None and v.op.prim != "const":
            v.name = name
        return value

    def unpack(self, value: Any, n: int, node: Any) -> list[Any]:
        if isinstance(value, (tuple, list)):
            if len(value) != n:
                raise self.err(node, _unpack_message(self.ctx, value, n, False), _UNPACK_ADVICE)
            return list(value)
        if isinstance(value, Sym):
            ndim = value.value.type.known_ndim if value.value.type else None
            if value.value.type is not None and value.value.type.kind == "static" or ndim:
                return [value[i] for i in range(n)]
            raise self.err(node, "tuple unpacking of an array of unknown shape is not supported.",
                           "Index it explicitly: a, b = x[0], x[1].")
        return list(value)

    def check_inplace(self, current: Any, name: str, node: Any) -> None:
        """``name += ...`` on an array mutates it: refuse when others could see that."""
        if not isinstance(current, Sym):
            return
        t = current.value.type
        if t is not None and (t.is_python_number or t.kind in ("scalar", "static", "none")):
            return
        root = self.ctx.root(current.value)
        if root.id in self.ctx.argument_ids:
            spelled = _SPELLING.get(type(node.op), "")
            raise self.err(node, f"`{name} {spelled}=` would modify "
                           f"{self.ctx.owner(root)} `{root.name}` in place (derived "
                           "functions never modify their arguments or captured data).",
                           f"Copy it first ({name} = {name}.copy()) or write {name} = {name} "
                           "+ ... .")
        self.check_shared(current, name, node, "an augmented assignment to")

    def subscript_write(self, target: Any, node: Any) -> None:
        """``y[i] = v`` / ``y[i] += v`` on a local array: a functional ``setitem``."""
        base = self.expr(target.value)
        if isinstance(base, Sym):
            root = self.ctx.root(base.value)
            if root.id in self.ctx.argument_ids:
                raise self.err(node, f"a subscript write into `{root.name}` (or a view of it) "
                               f"would modify {self.ctx.owner(root)} (derived functions never "
                               "modify their arguments or captured data).",
                               f"Work on a copy: {self.ctx.copy_advice(root)}.")
            if not isinstance(target.value, gast.Name) or root is not base.value:
                raise self.err(node, "a subscript write into a view of another array would "
                               "change that array too.",
                               "Write into the array itself, or make the view a copy with "
                               ".copy().")
            name = target.value.id
            self.check_shared(base, name, node, "a subscript write into")
            index = self.expr(target.slice)
            value = self.expr(node.value)
            if isinstance(node, gast.AugAssign):
                old = record_rule(calls.rule("getitem"), [base], {"index": index})
                value = self.binop(BINOPS[type(node.op)], old, value, node)
            out = record_rule(calls.rule("setitem"), [base, value], {"index": index})
            self.env[name] = self.named(out, name)
            return
        if isinstance(base, (list, dict)) and id(base) in self.ctx.argument_containers:
            raise self.err(node, f"a subscript write into a {type(base).__name__} the "
                           "function was given would mutate the caller's data (derived "
                           "functions never modify their arguments or captured data).",
                           "Build a new one: new = {**params, 'W': W} or "
                           "items = list(items).")
        if isinstance(base, (list, dict)) and not isinstance(target.slice, gast.Slice):
            index = self.expr(target.slice)
            if is_symbolic(index) and isinstance(base, list):
                raise self.err(node, "a list index known only at run time is not supported.",
                               "Build the list with .append, then np.stack it.")
            value = self.expr(node.value)
            if is_symbolic(index):
                raise self.err(node, "a dict key known only at run time is not supported.",
                               "Use constant keys.")
            if isinstance(node, gast.AugAssign):
                value = self.binop(BINOPS[type(node.op)], base[index], value, node)
            base[index] = value
            return
        raise self.err(node, "this subscript assignment is not supported.",
                       "Assign to a local array or list variable: y[i] = v.")

    def check_shared(self, current: Sym, name: str, node: Any, what: str) -> None:
        root = self.ctx.root(current.value)
        for env in (self.env, *self.enclosing):
            for other, held in env.items():
                if other != name and isinstance(held, Sym) \
                        and self.ctx.root(held.value) is root:
                    raise self.err(node, f"{what} `{name}` would also change `{other}`, which "
                                   "shares its array.",
                                   f"Copy it first ({name} = {name}.copy()).")


_UNPACK_ADVICE = ("Write one name per item, or take the rest with a starred name "
                  "(first, *rest = ...), or index the result (items[0]).")


def _unpack_message(ctx: Context, value: Any, n: int, at_least: bool) -> str:
    """Why ``value`` does not unpack into ``n`` names (``at_least``: one name is starred),
    naming the function that made it when it is a tuple-returning call's result."""
    names = f"at least {n} names" if at_least else f"{n} names"
    made = describe_made(ctx, value)
    if made:
        return f"{made}; it cannot be unpacked into {names}."
    return f"cannot unpack {len(value)} values into {names}."
