"""What the random programs of `test_ad_hunt.py` are made of: classes and helpers
their generated source imports, so that every piece is ordinary module code."""

import collections
import collections.abc
import copy
import dataclasses
import heapq
import importlib.util
import itertools
import sys
import tempfile
import weakref
from fractions import Fraction
from pathlib import Path

from ad import D

__all__ = ["Box", "Slot", "Pair", "Holder", "gen", "collections", "copy", "D", "Fraction",
           "passthrough", "unpacked_product", "Bag", "G", "heapq", "weakref", "Stack", "Lazy",
           "Twice"]

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


class Twice(list):
    """A list whose `__getitem__` computes: its slots hold what `list.__getitem__` reads."""

    def __getitem__(self, index):
        return list.__getitem__(self, index) * 2


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


_FOLDER = Path(tempfile.mkdtemp(prefix="ad_hunt_"))
_COUNTER = itertools.count()


def module_of(source: str) -> object:
    """The module `source` makes, written to a file of its own so that `D` reads its
    source as it reads the user's (a hunt's random program)."""
    name = f"_ad_hunt_{next(_COUNTER)}"
    path = _FOLDER / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
