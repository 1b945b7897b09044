"""What the random programs of `test_ad_hunt.py` are made of: classes and helpers
their generated source imports, so that every piece is ordinary module code."""

import collections
import collections.abc
import copy
import dataclasses
import heapq
import weakref
from fractions import Fraction

from ad import D

__all__ = ["Box", "Slot", "Pair", "Holder", "gen", "collections", "copy", "D", "Fraction",
           "passthrough", "unpacked_product", "Bag", "G", "heapq", "weakref", "Stack", "Lazy"]

G = None  # a module global a program stores into and reads back


class Box:
    def __init__(self, v):
        self.v = v


class Slot:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


@dataclasses.dataclass
class Pair:
    a: object
    b: object


class Holder:
    """A value behind a property and a Python `__getitem__`."""

    def __init__(self, v):
        self._v = v

    @property
    def v(self):
        return self._v

    def __getitem__(self, index):
        return [self._v][index]


def gen(v):
    yield v


def passthrough(v, *, scale=1):
    return v * scale


def unpacked_product(y, v):
    a, b = (y, v)
    return a * b


class Bag(collections.abc.MutableMapping):
    """A mapping whose `get` is `collections.abc`'s (a frozen module's code)."""

    def __init__(self, **items):
        self.items = dict(items)

    def __getitem__(self, key):
        return self.items[key]

    def __setitem__(self, key, value):
        self.items[key] = value

    def __delitem__(self, key):
        del self.items[key]

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


class Stack(list):
    """A list subclass with no Python methods of its own: C's list code, on a subclass."""


class Lazy:
    """Attributes found by a Python `__getattr__`, in a dict of its own."""

    def __init__(self, **items):
        self.items = items

    def __getattr__(self, name):
        return self.items[name]
