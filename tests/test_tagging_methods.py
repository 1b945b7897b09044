"""`obj.name(...)` in a tagging context: a builtin container's method is resolved
once per (type, name); everything CPython does around the call stays as it was
(the method is read before the arguments are evaluated, a classmethod called on
an instance gets the class, a user's primitive on the method or on `getattr`
still runs)."""

from __future__ import annotations

import collections

import pytest

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, metadata, tag, untag
from tests.test_tagging import MetaCtx

EVENTS: list = []


def noted(value):
    EVENTS.append(value)
    return value


def call_missing(container):
    return container.no_such_method(noted("argument"))


@pytest.mark.parametrize("container", [[1.0], {"k": 1.0}, "text", collections.deque()])
def test_a_missing_method_fails_before_its_arguments_are_evaluated(container):
    ctx = enabletagging(MetaCtx(), call_missing)
    EVENTS.clear()
    with pytest.raises(AttributeError, match="no_such_method") as raised:
        overdub(ctx, call_missing, container)
    with pytest.raises(AttributeError) as plain:
        call_missing(container)
    assert str(raised.value) == str(plain.value)
    assert EVENTS == []


def methods_of_builtins(x, which):
    items = []
    items.append(x)
    items.extend([x * 2.0, x])
    keyed = {}.fromkeys(["a", "b"], x)  # a classmethod, called on an instance
    got, popped = keyed.get("a"), keyed.pop("b")
    text = "-".join(["a", "b"]).upper()
    return (items.pop(0), got, popped, items.index(x), text, len(keyed))[which]


@pytest.mark.parametrize("which", range(6))
def test_methods_of_builtins_keep_the_metadata_of_what_they_move(which):
    ctx = enabletagging(MetaCtx(), methods_of_builtins)
    result = overdub(ctx, methods_of_builtins, tag(1.5, ctx, "m"), which)
    assert untag(result, ctx) == methods_of_builtins(1.5, which)
    assert metadata(result, ctx) == ("m" if which < 3 else NoMetaData())


class CountsAppends(MetaCtx):
    @primitive(list.append)
    def append(self, items, value):
        self.metadata.append(untag(value, self))
        items.append(untag(value, self) * 10)


class CountsReads(MetaCtx):
    @primitive(getattr)
    def read(self, obj, name, *default):
        self.metadata.append(name)
        return getattr(obj, name, *default)


def appends(x):
    items = []
    items.append(x)
    items.append(2.0)
    return items


def test_a_users_primitive_on_a_method_or_on_getattr_still_runs():
    ctx = enabletagging(CountsAppends(metadata=[]), appends)
    assert overdub(ctx, appends, tag(1.5, ctx, "m")) == [15.0, 20.0]
    assert ctx.metadata == [1.5, 2.0]
    ctx = enabletagging(CountsReads(metadata=[]), appends)
    assert overdub(ctx, appends, 1.5) == [1.5, 2.0]
    assert ctx.metadata == ["append", "append"]


class Watching(Context):
    """An outer context that records the callees it sees."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", None))


def inner_run(x):
    ctx = enabletagging(MetaCtx(), appends)
    return untag(overdub(ctx, appends, tag(x, ctx, "m"))[0], ctx)


def test_an_outer_context_sees_the_method_read_and_the_call():
    outer = Watching(metadata=[])
    assert overdub(outer, inner_run, 1.5) == 1.5
    assert "method_of" in outer.metadata and "getattr_" in outer.metadata
    assert "tagged_append" in outer.metadata
