"""The tagging API: `enabletagging`, `tag`, `untag`, `metadata` and the rest.

A `Tag` is made fresh by every `enabletagging` call, so two uses of the same
function, nested or side by side, never share one. Every tagging context runs
these functions as they are (`transparent`): they are how its code and its
rules read and make tagged values.
"""

from __future__ import annotations

from typing import Any, Callable

from contexts import Context, similarcontext
from contexts.layer import NoMetaData, class_version
from tagging._layer import Tag
from tagging._store import fresh
from tagging._tagged import Tagged, rawest, transparent

_new = object.__new__


@transparent
def enabletagging(ctx: Context, f: Callable) -> Context:
    """A copy of `ctx` with a fresh tag, unique to this call, for running `f`."""
    if not isinstance(ctx, Context):
        raise TypeError(f"enabletagging() needs a Context, got {type(ctx).__name__}")
    if not callable(f):
        raise TypeError(f"enabletagging() needs the function to run, got {f!r}")
    return similarcontext(ctx, tag=Tag(type(ctx).__name__))


@transparent
def hastagging(ctx: Any) -> bool:
    """Whether `ctx` (a context) has tagging enabled."""
    return isinstance(ctx, Context) and isinstance(ctx.tag, Tag)


@transparent
def metadatatype(ctx_type: type, value_type: type) -> type:
    """The type of metadata a `value_type` value may carry in contexts of `ctx_type`."""
    if not (isinstance(ctx_type, type) and issubclass(ctx_type, Context)):
        raise TypeError(f"metadatatype() needs a context type, got {ctx_type!r}")
    return ctx_type.metadatatype(value_type)


_NO_METADATA = NoMetaData()


@transparent
def tag(value: Any, ctx: Context, meta: Any = _NO_METADATA) -> Tagged:
    """`value` tagged for `ctx`, carrying `meta` (checked against `metadatatype`).

    The tagged value holds a fresh copy of `value` where one can be made, so the
    heap slots it is stored in hold an object no other code shares. Rule bodies
    call this for every result, so the accepted (value type, metadata type)
    pairs are remembered, until a context class changes what it allows.
    """
    try:
        own = ctx.tag
    except AttributeError:
        own = None
    if type(own) is not Tag or type(ctx) is Tagged:
        raise TypeError(
            f"cannot tag a value for {type(ctx).__name__} without tagging: make the "
            "context with enabletagging(ctx, f) first")
    kind = type(value)
    meta_type = type(meta)
    if kind is Tagged or meta_type is Tagged:  # a value of another context: its plain types
        if kind is Tagged and value.tag is own:
            raise ValueError(f"{value!r} is already tagged for this context; untag it first")
        _accept(own, type(ctx), type(rawest(value)), rawest(meta))
    elif meta_type is not NoMetaData and \
            own.accepted.get((type(ctx), kind, meta_type)) != class_version[0]:
        _accept(own, type(ctx), kind, meta)
    tagged = _new(Tagged)
    tagged.tag = own
    tagged.value = value * 1.0 if kind is float else fresh(value)
    tagged.meta = meta
    return tagged


# (context type, value type, metadata type) -> the class version it was accepted at;
# each tag keeps a copy, which is quicker to ask
_accepted: dict = {}


def _accept(own: Tag, ctx_type: type, value_type: type, meta: Any) -> None:
    """Check `meta` against `metadatatype` once per (context, value, metadata) types
    and class version."""
    if type(meta) is NoMetaData:
        return
    key = (ctx_type, value_type, type(meta))
    if own.accepted.get(key) != class_version[0]:
        if _accepted.get(key) != class_version[0]:
            _check_metadata(ctx_type, value_type, meta)
            _accepted[key] = class_version[0]
        own.accepted[key] = class_version[0]


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


@transparent
def untag(x: Any, ctx: Context) -> Any:
    """The value under `ctx`'s tag (any other value unchanged)."""
    return x.value if type(x) is Tagged and x.tag is ctx.tag else x


@transparent
def istagged(x: Any, ctx: Context) -> bool:
    """Whether `x` is tagged for `ctx` (a value tagged for another context is not)."""
    return type(x) is Tagged and x.tag is ctx.tag


@transparent
def metadata(x: Any, ctx: Context) -> Any:
    """The metadata `ctx` gave `x`, or `NoMetaData()`."""
    return x.meta if type(x) is Tagged and x.tag is ctx.tag else _NO_METADATA


@transparent
def hasmetadata(x: Any, ctx: Context) -> bool:
    """Whether `x` carries metadata for `ctx`."""
    return type(x) is Tagged and x.tag is ctx.tag and type(x.meta) is not NoMetaData
