"""Tagged values: a value with the metadata one tag gave it.

A `Tagged` lives only in the frames of transformed code. Values tagged by
several nested contexts are wrapped once per tag, the innermost context's
wrapper outside.
"""

from __future__ import annotations

from sys import _getframe
from typing import Any, Callable

from contexts.layer import is_engine_code, slotlike


class Tagged:
    """A value with the metadata one tag gave it; never stored in the heap."""

    __slots__ = ("tag", "value", "meta")

    def __init__(self, tag: Any, value: Any, meta: Any) -> None:
        self.tag = tag
        self.value = value
        self.meta = meta

    def __repr__(self) -> str:
        return f"Tagged({self.tag!r}, {self.value!r}, {self.meta!r})"

    # In the engine's code a `Tagged` compares by identity and tests as its value;
    # anywhere else it refuses, rather than act as a number that is silently wrong.

    @slotlike
    def __bool__(self) -> bool:
        if is_engine_code(_getframe(1).f_code):
            return bool(rawest(self))
        raise escaped(self, "a truth test")

    @slotlike
    def __eq__(self, other: Any) -> Any:
        if is_engine_code(_getframe(1).f_code):
            return NotImplemented
        raise escaped(self, "==")

    @slotlike
    def __ne__(self, other: Any) -> Any:
        if is_engine_code(_getframe(1).f_code):
            return NotImplemented
        raise escaped(self, "!=")

    __hash__ = object.__hash__


def escaped(tagged: Tagged, operation: str) -> TypeError:
    """The error for `operation` on a tagged value that left its context."""
    return TypeError(
        f"{operation} on {tagged!r}, a value tagged by a context, outside that context; "
        "take its plain value with untag(r, ctx) and its metadata with metadata(r, ctx) "
        "(overdub in a tagging context may return such a value)")


def _refusal(operation: str) -> Callable:
    def refuse(self: Tagged, *args: Any) -> Any:
        raise escaped(self, operation)
    refuse.__name__ = refuse.__qualname__ = f"refuse {operation}"
    return slotlike(refuse)


def _binary_arithmetic(name: str) -> Callable:
    """A binary arithmetic dunder. The engine's operator dispatch calls it (as a C
    slot) before the other operand's Python method: there it answers NotImplemented
    where the plain value's own method would, so `x * q` reaches `Q.__rmul__`, run
    in the context with `x` tagged, as CPython would reach it. Where the plain
    method would answer, or anywhere else, it refuses."""
    def refuse_or_defer(self: Tagged, other: Any, *modulo: Any) -> Any:
        if modulo or not is_engine_code(_getframe(1).f_code):
            raise escaped(self, "arithmetic")
        value = rawest(self)
        if _declines(value, name, rawest(other)):
            return NotImplemented
        kind, other_kind = type(value).__name__, type(other).__name__
        raise TypeError(f"{kind}.{name} of {value!r} (a value carrying metadata) and a "
                        f"{other_kind} answers before the {other_kind}'s Python method, on "
                        f"the plain value, dropping the metadata; make the {other_kind} a "
                        "plain number first")
    refuse_or_defer.__name__ = refuse_or_defer.__qualname__ = f"refuse {name}"
    return slotlike(refuse_or_defer)


def _declines(value: Any, name: str, other: Any) -> bool:
    """Whether CPython would not take `value`'s own `name` method's answer for
    `other`: the method is missing or answers NotImplemented, or `other`'s type is
    a subclass of `value`'s, whose reflected method CPython tries first."""
    kind = type(value)
    if issubclass(type(other), kind) and type(other) is not kind:
        return True
    method = getattr(kind, name, None)
    return method is None or method(value, other) is NotImplemented


_BINARY = ("add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod divmod "
           "rdivmod pow rpow matmul rmatmul and rand or ror xor rxor lshift rlshift rshift "
           "rrshift")
for _name in _BINARY.split():
    setattr(Tagged, f"__{_name}__", _binary_arithmetic(f"__{_name}__"))
for _operation, _methods in {
        "arithmetic": "neg pos abs invert round trunc floor ceil",
        "a comparison": "lt le gt ge",
        "a conversion": "float int complex index format"}.items():
    for _name in _methods.split():
        setattr(Tagged, f"__{_name}__", _refusal(_operation))


_new = object.__new__


def wrap(tag: Any, value: Any, meta: Any) -> Tagged:
    """`Tagged(tag, value, meta)` at half the cost (no Python `__init__` to run)."""
    tagged = _new(Tagged)
    tagged.tag = tag
    tagged.value = value
    tagged.meta = meta
    return tagged


def rawest(x: Any) -> Any:
    """The plain value under every tag."""
    while type(x) is Tagged:
        x = x.value
    return x


def transparent(f: Callable) -> Callable:
    """Mark a function of the tagging API: every tagging context runs it as it is,
    tagged arguments and all, without looking into it."""
    f.__tagging_api__ = True
    return f
