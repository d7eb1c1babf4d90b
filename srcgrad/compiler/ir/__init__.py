"""srcgrad's IR: data types (:mod:`.core`), building (:mod:`.builder`), printing
(:mod:`.printer`), checking (:mod:`.verify`) and abstract types (:mod:`.types`)."""

from .core import Block, Function, Op, Value, const_value

__all__ = ["Block", "Function", "Op", "Value", "const_value"]
