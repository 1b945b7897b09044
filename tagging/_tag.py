"""Tags, tagged values and the tagging API.

A `Tag` is made fresh by every `enabletagging` call, so two uses of the same
function, nested or side by side, never share one. A `Tagged` pairs a value
with the metadata one tag gives it; it lives only in the frames of transformed
code. Values tagged by several nested contexts are wrapped once per tag, the
innermost context's wrapper outside.
"""

from __future__ import annotations

import itertools
from sys import _getframe
from typing import Any, Callable

import attrs

from contexts import Context, is_generated, similarcontext, slotlike
from contexts._context import NoMetaData
from contexts._context import _version as class_version
from tagging._store import Store, fresh

_serials = itertools.count(1)


@attrs.define(eq=False, repr=False)
class Tag:
    """The identity of one tagging context (and the owner of its shadow store)."""

    context_name: str
    serial: int = attrs.field(factory=lambda: next(_serials))
    store: Store = attrs.field(factory=Store)
    # (context type, value type, metadata type) -> the class version it was accepted at
    accepted: dict = attrs.field(factory=dict)

    def __repr__(self) -> str:
        return f"Tag({self.context_name}#{self.serial})"


class Tagged:
    """A value with the metadata one tag gave it; never stored in the heap."""

    __slots__ = ("tag", "value", "meta")

    def __init__(self, tag: Tag, value: Any, meta: Any) -> None:
        self.tag = tag
        self.value = value
        self.meta = meta

    def __repr__(self) -> str:
        return f"Tagged({self.tag!r}, {self.value!r}, {self.meta!r})"

    # In the engine's code a `Tagged` compares by identity and tests as its value;
    # anywhere else it refuses, rather than act as a number that is silently wrong.

    @slotlike
    def __bool__(self) -> bool:
        if is_generated(_getframe(1).f_code):
            return bool(rawest(self))
        raise escaped(self, "a truth test")

    @slotlike
    def __eq__(self, other: Any) -> Any:
        if is_generated(_getframe(1).f_code):
            return NotImplemented
        raise escaped(self, "==")

    @slotlike
    def __ne__(self, other: Any) -> Any:
        if is_generated(_getframe(1).f_code):
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


for _operation, _names in {
        "arithmetic": "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod "
                      "rmod divmod rdivmod pow rpow matmul rmatmul neg pos abs invert and "
                      "rand or ror xor rxor lshift rlshift rshift rrshift round trunc floor ceil",
        "a comparison": "lt le gt ge",
        "a conversion": "float int complex index format"}.items():
    for _name in _names.split():
        setattr(Tagged, f"__{_name}__", _refusal(_operation))


_new = object.__new__


def wrap(tag: Tag, value: Any, meta: Any) -> Tagged:
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


def enabletagging(ctx: Context, f: Callable) -> Context:
    """A copy of `ctx` with a fresh tag, unique to this call, for running `f`."""
    if not isinstance(ctx, Context):
        raise TypeError(f"enabletagging() needs a Context, got {type(ctx).__name__}")
    if not callable(f):
        raise TypeError(f"enabletagging() needs the function to run, got {f!r}")
    return similarcontext(ctx, tag=Tag(type(ctx).__name__))


def hastagging(ctx: Any) -> bool:
    """Whether `ctx` (a context) has tagging enabled."""
    return isinstance(ctx, Context) and isinstance(ctx.tag, Tag)


def metadatatype(ctx_type: type, value_type: type) -> type:
    """The type of metadata a `value_type` value may carry in contexts of `ctx_type`."""
    if not (isinstance(ctx_type, type) and issubclass(ctx_type, Context)):
        raise TypeError(f"metadatatype() needs a context type, got {ctx_type!r}")
    return ctx_type.metadatatype(value_type)


_NO_METADATA = NoMetaData()


def tag(value: Any, ctx: Context, meta: Any = _NO_METADATA) -> Tagged:
    """`value` tagged for `ctx`, carrying `meta` (checked against `metadatatype`).

    The tagged value holds a fresh copy of `value` where one can be made, so the
    heap slots it is stored in hold an object no other code shares. Rule bodies
    call this for every result, so the accepted (value type, metadata type)
    pairs are remembered, until any context class changes.
    """
    own = getattr(ctx, "tag", None)
    if type(own) is not Tag or type(ctx) is Tagged:
        raise TypeError(
            f"cannot tag a value for {type(ctx).__name__} without tagging: make the "
            "context with enabletagging(ctx, f) first")
    value_type = kind = type(value)
    if kind is Tagged:
        if value.tag is own:
            raise ValueError(f"{value!r} is already tagged for this context; untag it first")
        value_type = type(rawest(value))
    meta_type = type(meta)
    if meta_type is Tagged:
        meta_type = type(rawest(meta))
    if meta_type is not NoMetaData:
        key = (type(ctx), value_type, meta_type)
        if own.accepted.get(key) != class_version[0]:
            if _accepted.get(key) != class_version[0]:
                _check_metadata(type(ctx), value_type, rawest(meta))
                _accepted[key] = class_version[0]
            own.accepted[key] = class_version[0]
    tagged = _new(Tagged)
    tagged.tag = own
    tagged.value = value * 1.0 if kind is float else fresh(value)
    tagged.meta = meta
    return tagged


# (context type, value type, metadata type) -> the class version it was accepted at;
# each tag keeps a copy, which is quicker to ask
_accepted: dict = {}


def _check_metadata(ctx_type: type, value_type: type, meta: Any) -> None:
    allowed = metadatatype(ctx_type, value_type)
    if allowed is NoMetaData or allowed is None:
        raise TypeError(
            f"{value_type.__name__} values may carry no metadata in "
            f"{ctx_type.__name__}; define the classmethod metadatatype(cls, "
            "value_type) on the context type to allow it")
    if not isinstance(meta, allowed):
        raise TypeError(
            f"metadata {meta!r} of type {type(meta).__name__} is not "
            f"a {_names(allowed)}, the metadata type of "
            f"{value_type.__name__} values in {ctx_type.__name__}")


def _names(types: Any) -> str:
    """`float`, or `int or float` for a tuple of types."""
    if isinstance(types, tuple):
        return " or ".join(_names(t) for t in types)
    return getattr(types, "__name__", repr(types))


def untag(x: Any, ctx: Context) -> Any:
    """The value under `ctx`'s tag (any other value unchanged)."""
    return x.value if type(x) is Tagged and x.tag is ctx.tag else x


def istagged(x: Any, ctx: Context) -> bool:
    """Whether `x` is tagged for `ctx` (a value tagged for another context is not)."""
    return type(x) is Tagged and x.tag is ctx.tag


def metadata(x: Any, ctx: Context) -> Any:
    """The metadata `ctx` gave `x`, or `NoMetaData()`."""
    return x.meta if type(x) is Tagged and x.tag is ctx.tag else _NO_METADATA


def hasmetadata(x: Any, ctx: Context) -> bool:
    """Whether `x` carries metadata for `ctx`."""
    return type(x) is Tagged and x.tag is ctx.tag and type(x.meta) is not NoMetaData
