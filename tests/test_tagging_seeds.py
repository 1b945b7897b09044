"""The tagging seeds: the weird identity, CrazyModule with a metadata context."""

import gc
import operator

from hypothesis import given
from hypothesis import strategies as st

from contexts import Context, overdub, primitive
from tagging import NoMetaData, Tagged, enabletagging, metadata, tag, untag

from tests import crazy_module


class FooBarCtx(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return value_type if issubclass(value_type, (int, float)) else NoMetaData

    @primitive(float)
    def to_float(self, x):
        """Like Cassette's `tagged_sitofp`: the metadata is converted with the value."""
        value, meta = untag(x, self), metadata(x, self)
        if isinstance(meta, NoMetaData):
            return float(value)
        return tag(float(value), self, float(meta))


class Bar:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z


class Foo:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def foo_bar_identity(x):
    bar = Bar(x, x + 1, x + 2)
    foo = Foo(bar, "ha")
    foo.b = bar
    foo.a = Bar(4, 5, 6)
    foo2 = Foo(foo.a, foo.b)
    foo2.a = foo2.b
    array = []
    array.append(float(foo2.a.x))
    return [array[0]][0]


def test_weird_identity_keeps_metadata_through_the_heap():
    ctx = enabletagging(FooBarCtx(), foo_bar_identity)
    result = overdub(ctx, foo_bar_identity, tag(1, ctx, 2))
    assert untag(result, ctx) == 1.0 and type(untag(result, ctx)) is float
    assert metadata(result, ctx) == 2.0 and type(metadata(result, ctx)) is float


class MirrorCtx(Context):
    """Metadata that mirrors the computation: `+` and `*` act on it too."""

    @classmethod
    def metadatatype(cls, value_type):
        return float if value_type in (int, float) else NoMetaData

    def meta_of(self, x):
        meta = metadata(x, self)
        return untag(x, self) if isinstance(meta, NoMetaData) else meta

    @primitive(operator.add)
    def add(self, a, b):
        return self.mirror(operator.add, a, b)

    @primitive(operator.mul)
    def mul(self, a, b):
        return self.mirror(operator.mul, a, b)

    def mirror(self, op, a, b):
        value = op(untag(a, self), untag(b, self))
        if isinstance(metadata(a, self), NoMetaData) and \
                isinstance(metadata(b, self), NoMetaData):
            return value
        return tag(value, self, float(op(self.meta_of(a), self.meta_of(b))))


def crazy_entry(a, b):
    return crazy_module.crazy_sum_mul([a, 2.0], [3.0, b])


@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(-10, 10),
       st.floats(-10, 10))
def test_crazy_module_metadata_is_the_same_computation(a, b, ma, mb):
    ctx = enabletagging(MirrorCtx(), crazy_entry)
    result = overdub(ctx, crazy_entry, tag(a, ctx, ma), tag(b, ctx, mb))
    assert untag(result, ctx) == (a + 2.0) * (3.0 + b)
    assert metadata(result, ctx) == (0.0 + ma + 2.0) * (0.0 + 3.0 + mb)
    # The module's state is plain afterwards.
    assert crazy_module.CONST_BINDING == []
    assert type(crazy_module.GLOBAL_BINDING) is float
    assert type(crazy_module.PLUSFUNC.x) is float


def test_no_tagged_value_is_reachable_after_a_run():
    ctx = enabletagging(MirrorCtx(), crazy_entry)
    result = overdub(ctx, crazy_entry, tag(1.5, ctx, 1.0), tag(2.5, ctx, 1.0))
    gc.collect()
    leaked = [o for o in gc.get_objects() if type(o) is Tagged and o is not result]
    assert leaked == []
