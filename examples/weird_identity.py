"""The weird identity: metadata rides on a value through objects, lists and aliases.

`foo_bar_identity(x)` returns `x` converted to float after storing it in
objects, aliasing them, appending it to a list and indexing a list display.
Tagged with metadata 2, the value comes back with metadata 2.0: the context's
`float` primitive converts the metadata as the value is converted (Cassette's
`tagged_sitofp`). The objects themselves only ever hold plain values.
"""

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, metadata, tag, untag


class FooBarCtx(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return value_type if issubclass(value_type, (int, float)) else NoMetaData

    @primitive(float)
    def to_float(self, x):
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


def main():
    ctx = enabletagging(FooBarCtx(), foo_bar_identity)
    result = overdub(ctx, foo_bar_identity, tag(1, ctx, 2))
    print(untag(result, ctx), metadata(result, ctx))
    print(foo_bar_identity(1))


if __name__ == "__main__":
    main()

# Output:
# 1.0 2.0
# 1.0
