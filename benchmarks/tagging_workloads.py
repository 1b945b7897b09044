"""Workloads and the metadata context for the tagging benchmarks.

They live in a real file because the engine reads a function's source to
transform it. CrazyModule and its metadata context are the example's
(`examples/crazy_module.py`); `object_loop` uses a module global of this module,
which every run resets.
"""

from __future__ import annotations

import sys
from pathlib import Path


# The context and CrazyModule are the example's (examples/crazy_module.py) ------------

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import crazy_module as crazy  # noqa: E402  (after the path is set)

NumMetaCtx = crazy.MirrorCtx  # numbers carry a float; `+` and `*` compute on it too
crazy_entry = crazy.entry     # crazy_sum_mul([a, 2.0], [3.0, b])


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
