"""CrazyModule: metadata follows values through globals, fields and a callable object.

`crazy_sum_mul(x, y)` is a very convoluted `sum(x) * sum(y)`: it goes through
object construction, field stores, a module global, a global list and the
field of a callable object, then resets them. A context whose `+` and `*`
primitives do the same arithmetic on the metadata gets, as the result's
metadata, the same computation on the inputs' metadata; the module's state is
plain afterwards.
"""

import operator

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, metadata, tag, untag

CONST_BINDING: list = []
GLOBAL_BINDING = 0.0


class Foo:
    def __init__(self, vector):
        self.vector = vector


class FooContainer:
    def __init__(self, foo):
        self.foo = foo


class PlusFunc:
    def __init__(self, x):
        self.x = x

    def __call__(self, x):
        return self.x + x


PLUSFUNC = PlusFunc(0.0)


def crazy_sum_mul(x, y):
    global GLOBAL_BINDING
    assert len(x) == len(y)
    fooc = FooContainer(Foo(x))
    tmp = y
    for i in range(len(y)):
        if i % 2 == 1:  # fooc.foo.vector is y and tmp is x
            v = fooc.foo.vector[i]
            CONST_BINDING.append(tmp[i])
            GLOBAL_BINDING = PLUSFUNC(v)
            PLUSFUNC.x = GLOBAL_BINDING
            fooc.foo = Foo(x)
            tmp = y
        else:  # fooc.foo.vector is x and tmp is y
            v = fooc.foo.vector[i]
            CONST_BINDING.append(v)
            GLOBAL_BINDING = PLUSFUNC(tmp[i])
            PLUSFUNC.x = GLOBAL_BINDING
            fooc.foo = Foo(y)
            tmp = x
    z = sum(CONST_BINDING) * GLOBAL_BINDING
    CONST_BINDING.clear()
    PLUSFUNC.x = 0.0
    GLOBAL_BINDING = 0.0
    return z


class MirrorCtx(Context):
    """Metadata that mirrors the arithmetic (untagged numbers stand for themselves)."""

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


def entry(a, b):
    return crazy_sum_mul([a, 2.0], [3.0, b])


def main():
    ctx = enabletagging(MirrorCtx(), entry)
    result = overdub(ctx, entry, tag(1.5, ctx, 10.0), tag(2.5, ctx, 20.0))
    print(untag(result, ctx), "=", (1.5 + 2.0) * (3.0 + 2.5))
    print(metadata(result, ctx), "=", (10.0 + 2.0) * (3.0 + 20.0))
    print(CONST_BINDING, GLOBAL_BINDING, PLUSFUNC.x)


if __name__ == "__main__":
    main()

# Output:
# 19.25 = 19.25
# 276.0 = 276.0
# [] 0.0 0.0
