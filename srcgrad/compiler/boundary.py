"""The boundary of a derivative compiled for structured arguments (DESIGN.md principle 12).

When some argument is a container, the emitted derivative takes one parameter per run-time
leaf (:mod:`.structure`) and returns the gradients of the differentiated leaves as one flat
tuple. A :class:`Boundary` says how the dispatcher's generated guard (:mod:`.dispatcher`)
checks the structure, reads the leaves and rebuilds the gradients, all in generated code so
a call pays only a few attribute reads and index operations::

    if type(params) is dict and tuple(params) == ('W', 'b') and \\
            type(params['W']) is _sg_ndarray and params['W'].ndim == 2 and ... :
        return _sg_r0(_sg_v0(params['W'], params['b'], x))

    def _sg_r0(r):                                   # sg.grad(f) w.r.t. params
        return {'W': r[0], 'b': r[1]}
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from typing import Any

from srcgrad.errors import SrcGradError

from . import structure as S
from .closures import same_function
from .ir import types as T
from .result_trees import rebuild_result
from .tree_text import describe_tree

Bind = Callable[[Any], str]  # an object -> the name the generated code reads it by


class Boundary:
    """How one compiled version meets structured arguments.

    ``kinds`` has one entry per parameter of ``f``: a :data:`~.structure.Tree` or a plain
    argument kind; ``wrt`` and ``tuple_wrt`` are the user's; ``transform`` decides what the
    emitted function returns (``grad``/``vjp``: the flat gradients, ``value_and_grad``: the
    value then them, ``jvp``: the value and the result's tangent, nothing to rebuild).
    """

    def __init__(self, kinds: list[Any], wrt: tuple[int, ...], tuple_wrt: bool,
                 transform: str) -> None:
        self.kinds = kinds
        self.wrt = wrt
        self.tuple_wrt = tuple_wrt
        self.transform = transform
        self.starts: list[int] = []  # the first IR parameter of each parameter of f
        self.counts: list[int] = []  # and how many it has
        n = 0
        for k in kinds:
            self.starts.append(n)
            self.counts.append(len(S.leaf_types(k)) if is_tree(k) else 1)
            n += self.counts[-1]
        self.n_ir = n
        # gradients to rebuild: only when a differentiated argument is itself structured;
        # else the emitted function returns what the user gets, and is used as it is
        # (also as the IR a composed transform inlines)
        self.rebuilds = any(is_tree(kinds[i]) for i in wrt)
        # the tree of a result holding a dict, namedtuple or dataclass (the IR returns it
        # as tuples): a vjp's seed is read through it, a jvp's value and tangent rebuilt
        self.result: S.Tree | None = None

    # --- what is differentiated ----------------------------------------------------
    def leaf_wrt(self) -> tuple[int, ...]:
        """The IR parameters differentiated: every non-integral leaf of each ``wrt``."""
        out: list[int] = []
        for i in self.wrt:
            k = self.kinds[i]
            if is_tree(k):
                out += [self.starts[i] + j for j, t in enumerate(S.leaf_types(k))
                        if not t.is_integral]
            else:
                out.append(self.starts[i])
        return tuple(out)

    # --- generated code ------------------------------------------------------------
    def call_args(self, names: list[str], tangent: str | None) -> list[str]:
        """The emitted function's arguments: leaves read from the structured ones."""
        out: list[str] = []
        for name, k in zip(names, self.kinds):
            if is_tree(k):
                out += [e for e, t in leaf_exprs(k, name) if t[0] == "leaf"]
            else:
                out.append(name)
        if tangent is not None and not self.rebuilds:
            out.append(tangent)
        elif tangent is not None:  # jvp: one tangent per differentiated leaf, as a tuple
            parts: list[str] = []
            for j, i in enumerate(self.wrt):
                t = f"{tangent}[{j}]" if self.tuple_wrt else tangent
                k = self.kinds[i]
                if is_tree(k):
                    parts += [e for e, leaf in leaf_exprs(k, t)
                              if leaf[0] == "leaf" and not leaf[1].is_integral]
                else:
                    parts.append(t)
            out.append(f"({', '.join(parts)}{',' if len(parts) == 1 else ''})")
        return out

    def describe(self, names: list[str]) -> str:
        """Comment lines for the emitted text: which parameters hold which structure's
        leaves, and what the gradients are rebuilt into."""
        lines = []
        for name, kind in zip(names, self.kinds):
            if is_tree(kind):
                leaves = [S.leaf_name(name, p) for p, t in S.leaf_paths(kind) if t[0] == "leaf"]
                lines.append(f"# {name}: {describe_tree(kind)} -> "
                             f"{', '.join(leaves) or 'no run-time leaves'}")
        if self.rebuilds and self.transform != "jvp":
            lines.append("# the gradients are rebuilt into the same containers (None for "
                         "int, bool, str and None leaves)")
        if self.result is not None:
            lines.append(f"# the result {describe_tree(self.result)} is returned as its "
                         "leaves, rebuilt by the caller")
        return "".join(line + "\n" for line in lines)

    def tangent_checks(self, tangent: str, bind: Bind) -> list[str]:
        """For ``jvp``: the tangent's containers are those of the arguments it moves (its
        leaves' kinds are free: a float tangent for an array leaf broadcasts)."""
        if self.transform != "jvp" or not self.rebuilds:
            return []
        checks = [f"type({tangent}) is tuple and len({tangent}) == {len(self.wrt)}"] \
            if self.tuple_wrt else []
        for j, i in enumerate(self.wrt):
            t = f"{tangent}[{j}]" if self.tuple_wrt else tangent
            if is_tree(self.kinds[i]):
                checks += guards(self.kinds[i], t, lambda e, a: None, bind, statics=False)
        return checks

    def gradient_tree(self) -> S.Tree:
        """The tree of the gradients the user gets, over the flat tuple the emitted
        function returns (integral and static leaves: None)."""
        def grad_tree(t: S.Tree) -> S.Tree:
            if t[0] == "leaf":
                return ("leaf", T.ANY) if not t[1].is_integral else ("static", S.NONE_LEAF)
            if t[0] == "static":
                return ("static", S.NONE_LEAF)
            return (*t[:-1], tuple(grad_tree(c) for c in t[-1]))
        trees = [grad_tree(self.kinds[i]) if is_tree(self.kinds[i]) else ("leaf", T.ANY)
                 for i in self.wrt]
        return ("tuple", tuple(trees)) if self.tuple_wrt else trees[0]

    def seed_expr(self, seed: str, bind: Bind) -> str:
        """The seed as the emitted function takes it (tuples where the result has dicts)."""
        if self.result is None or self.transform != "vjp":
            return seed
        return f"{bind(_seed_tuples)}({seed}, {bind(self.result)})"

    def flat_args(self, args: Sequence[Any]) -> list[Any]:
        """The user's arguments (one per parameter) as the emitted function's parameters:
        each structured one replaced by its leaves (at run time, or the caller's values
        when a derived function is inlined: ``frontend/derived_trees.py``)."""
        flat: list[Any] = []
        for a, k in zip(args, self.kinds):
            flat += S.leaves_of(k, a) if is_tree(k) else [a]
        return flat

    def flat_tangent(self, tangent: Any) -> tuple[Any, ...]:
        """A jvp tangent shaped like the ``wrt`` arguments as the emitted function reads it:
        one tuple of the tangents of the leaves it differentiates (integer leaves have
        none), in parameter order."""
        tangents: list[Any] = []
        for j, i in enumerate(self.wrt):
            t = tangent[j] if self.tuple_wrt else tangent
            k = self.kinds[i]
            if is_tree(k):
                tangents += [v for v, leaf in zip(S.leaves_of(k, t, static=True),
                                                  _leaves(k)) if not leaf.is_integral]
            else:
                tangents.append(t)
        return tuple(tangents)

    def call(self, fn: Any, args: tuple[Any, ...]) -> Any:
        """``fn`` (the emitted function) called on ``args`` as the user passed them: what
        the generated guard does, for the first call that compiled the version."""
        n = len(self.kinds)
        flat = self.flat_args(args[:n])
        extra = list(args[n:])
        if self.transform == "jvp" and self.rebuilds:
            env: dict[str, Any] = {"t": extra[0]}

            def bind_here(obj: Any) -> str:
                env[f"_b{id(obj)}"] = obj
                return f"_b{id(obj)}"
            if not _holds(self.tangent_checks("t", bind_here), env):
                raise SrcGradError(
                    "the tangent of a structured argument must have the argument's structure "
                    f"({', '.join(describe_tree(self.kinds[i]) for i in self.wrt)}); got "
                    f"{describe_tree(S.describe(extra[0]))}.",
                    advice="Build it with sg.tree_map(np.zeros_like, arg) and fill it in.")
            extra = [self.flat_tangent(extra[0])]
        if self.transform == "vjp" and self.result is not None:
            extra = [_seed_tuples(extra[0], self.result)]
        out = fn(*flat, *extra)
        if self.transform == "jvp" and self.result is not None:
            return (rebuild_result(self.result, out[0]),
                    rebuild_result(self.result, out[1], True))
        if self.transform == "jvp" or not self.rebuilds:
            return out
        namespace: dict[str, Any] = {}
        names: dict[int, str] = {}

        def bind(obj: Any) -> str:
            name = names.setdefault(id(obj), f"_sg_b{len(names)}")
            namespace[name] = obj
            return name
        local: dict[str, Any] = {}
        exec(compile(self.rebuild(bind) or "", "<srcgrad rebuild>", "exec"), namespace, local)
        return local["_r"](out)

    def rebuild(self, bind: Bind) -> str | None:
        """Source of ``def _r(r)`` turning the emitted result into the user's structures
        (None: nothing to rebuild)."""
        if self.transform == "jvp" and self.result is not None:
            restore, tree = bind(rebuild_result), bind(self.result)
            return (f"def _r(r):\n    return {restore}({tree}, r[0]), "
                    f"{restore}({tree}, r[1], True)\n")
        if self.transform == "jvp" or not self.rebuilds:
            return None
        counter = iter(range(1 << 30))
        grads = []
        for i in self.wrt:
            k = self.kinds[i]
            grads.append(_expr(k, counter, bind) if is_tree(k) else f"g[{next(counter)}]")
        out = f"({', '.join(grads)},)" if self.tuple_wrt else grads[0]
        if self.transform == "value_and_grad":
            return f"def _r(r):\n    g = r[1]\n    return r[0], {out}\n"
        return f"def _r(g):\n    return {out}\n"


def _seed_tuples(seed: Any, tree: S.Tree) -> Any:
    """A vjp seed structured like the result, as the tuples the emitted code reads."""
    try:
        if type(seed) is not tree[1] and tree[0] in ("namedtuple", "dataclass"):
            raise TypeError
        if tree[0] in ("dict", "tuple", "list") and type(seed).__name__ != tree[0]:
            raise TypeError
        return tuple(S.leaves_of(tree, seed))
    except (LookupError, TypeError, AttributeError):
        raise SrcGradError(
            f"the seed must be structured like the result ({describe_tree(tree)}); got "
            f"a {type(seed).__name__}.", advice="Pass a seed with the result's keys and "
            "fields, e.g. sg.tree_map(np.ones_like, f(*args)).") from None


def _holds(checks: list[str], env: dict[str, Any]) -> bool:
    """Do the generated ``checks`` hold for the values in ``env`` (the slow path's check
    of what the guard checks)?"""
    namespace = {**env, "__builtins__": __builtins__}
    try:
        return all(eval(c, namespace) for c in checks)  # noqa: S307 (our own text)
    except Exception:
        return False


def _leaves(tree: S.Tree) -> list[T.AType]:
    """The abstract type of each leaf with a run-time value (static leaves left out)."""
    return S.leaf_types(tree)


def is_tree(kind: Any) -> bool:
    return isinstance(kind, tuple) and bool(kind) and isinstance(kind[0], str)


def leaf_exprs(tree: S.Tree, expr: str) -> list[tuple[str, S.Tree]]:
    """(expression reading it, leaf tree) for every leaf of ``tree`` held by ``expr``."""
    if tree[0] in ("leaf", "static"):
        return [(expr, tree)]
    out = []
    for key, child in zip(S.node_keys(tree), S.node_children(tree)):
        out += leaf_exprs(child, _child(tree, expr, key))
    return out


def _child(tree: S.Tree, expr: str, key: Any) -> str:
    return f"{expr}.{key}" if tree[0] == "dataclass" else f"{expr}[{key!r}]"


def _expr(tree: S.Tree, counter: Any, bind: Bind) -> str:
    """The expression rebuilding ``tree`` from flat gradients ``g`` (static and integral
    leaves get None)."""
    kind = tree[0]
    if kind == "leaf":
        return "None" if tree[1].is_integral else f"g[{next(counter)}]"
    if kind == "static":
        return "None"
    items = [_expr(c, counter, bind) for c in tree[-1]]
    if kind == "tuple":
        return f"({', '.join(items)}{',' if len(items) == 1 else ''})"
    if kind == "list":
        return f"[{', '.join(items)}]"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(tree[1], items)) + "}"
    if kind == "namedtuple":
        return f"{bind(tree[1])}({', '.join(items)})"
    return (f"{bind(S.make_dataclass)}({bind(tree[1])}, {tree[2]!r}, "
            f"[{', '.join(items)}])")


def guards(tree: S.Tree, expr: str, leaf_guard: Callable[[str, T.AType], str | None],
           bind: Bind, statics: bool = True) -> list[str]:
    """Checks that ``expr`` has the structure ``tree`` (types, keys, lengths; each leaf's
    kind by ``leaf_guard``), in an order where each check makes the next one safe."""
    kind = tree[0]
    if kind == "leaf":
        g = leaf_guard(expr, tree[1])
        return [g] if g else []
    if kind == "static":
        if not statics:
            return []
        value = tree[1].value
        if value is None:
            return [f"{expr} is None"]
        if type(value) in (str, bytes):
            return [f"{expr} == {value!r}"]
        if type(value) is types.FunctionType and not tree[1].exact:  # or a new lambda
            # standing for it (.closures)
            return [f"({expr} is {bind(value)} or {bind(same_function)}({expr}, "
                    f"{bind(value)}))"]
        return [f"{expr} is {bind(value)}"]
    checks: list[str] = []
    if kind in ("tuple", "list"):
        checks += [f"type({expr}) is {kind}", f"len({expr}) == {len(tree[1])}"]
    elif kind == "dict":
        checks += [f"type({expr}) is dict", f"tuple({expr}) == {tree[1]!r}"]
    else:
        checks.append(f"type({expr}) is {bind(tree[1])}")
        if kind == "dataclass" and not dataclasses.is_dataclass(tree[1]):
            # an object of a user's class: exactly these attributes (none added since)
            checks.append(f"tuple(vars({expr})) == {tree[2]!r}")
    for key, child in zip(S.node_keys(tree), S.node_children(tree)):
        checks += guards(child, _child(tree, expr, key), leaf_guard, bind, statics)
    return checks
