"""Workloads and the metadata context for the tagging benchmarks.

They live in a real file because the engine reads a function's source to
transform it. `crazy_sum_mul` is a copy of `tests/crazy_module.py` (the
benchmarks do not import the tests); it and `object_loop` use module globals of
this module, which every run resets.
"""

from __future__ import annotations

import operator

from contexts import Context, primitive
from tagging import NoMetaData, metadata, tag, untag


# The context ---------------------------------------------------------------------------

class NumMetaCtx(Context):
    """Numbers carry a float; `+` and `*` compute on it too (as MirrorCtx in the tests).

    The metadata of a result is the same computation run on the metadata, an
    untagged operand standing for itself; with no tagged operand the operation
    is plain arithmetic and the result is untagged.
    """

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


# CrazyModule (copied from tests/crazy_module.py) ------------------------------------------

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
    """A very convoluted `sum(x) * sum(y)` through objects, globals and a callable."""
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


def crazy_entry(a, b):
    """The lists are built inside the run, from the two (tagged) floats."""
    return crazy_sum_mul([a, 2.0], [3.0, b])


# An object-heavy loop ------------------------------------------------------------------

LOOP_GLOBAL = 0.0


class Accumulator:
    def __init__(self, start):
        self.total = start
        self.last = start


def object_loop(a, b, n=200):
    """Attribute stores, list appends and a module-global store/load per iteration."""
    global LOOP_GLOBAL
    acc = Accumulator(0.0)
    items = []
    for i in range(n):
        v = a * i + b
        acc.last = v
        items.append(acc.last)
        LOOP_GLOBAL = v * 0.5
        acc.total = acc.total + LOOP_GLOBAL * items[i]
    result = acc.total + items[-1]
    LOOP_GLOBAL = 0.0
    return result


# Memory workloads ----------------------------------------------------------------------

class Box:
    def __init__(self):
        self.value = 0.0


def store_into_attribute(x, box, n):
    """`n` stores of a new tagged value (`x + i`) into one attribute."""
    for i in range(n):
        box.value = x + i
    return box.value


def store_into_list_item(x, items, n):
    """`n` stores of a new tagged value (`x + i`) into one list item."""
    for i in range(n):
        items[0] = x + i
    return items[0]


# A floor to compare with ---------------------------------------------------------------

class MetaNum:
    """Operator overloading done by hand: a number and its metadata, `+` and `*` on both.

    What the same metadata costs without any context (the heap then holds
    these wrappers, which is what tagging avoids).
    """

    __slots__ = ("value", "meta")

    def __init__(self, value, meta):
        self.value, self.meta = value, meta

    @staticmethod
    def parts(x):
        return (x.value, x.meta) if type(x) is MetaNum else (x, x)

    def __add__(self, other):
        (a, ma), (b, mb) = MetaNum.parts(self), MetaNum.parts(other)
        return MetaNum(a + b, ma + mb)

    __radd__ = __add__

    def __mul__(self, other):
        (a, ma), (b, mb) = MetaNum.parts(self), MetaNum.parts(other)
        return MetaNum(a * b, ma * mb)

    __rmul__ = __mul__
