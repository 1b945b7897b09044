"""What the random numpy programs of `test_ad_numpy_hunt.py` are made of: names
their generated source imports, so that every piece is ordinary module code."""

import copy
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ad import D, jvp
from tests.hunt_pieces import Box, Slot

__all__ = ["np", "math", "copy", "D", "jvp", "Box", "Slot", "G", "as_strided", "passthrough",
           "yielded", "Vector", "Held"]

G = None  # a module global a program stores an array into and reads back


class Held:
    """A number held by a user object with Python operators: numpy, given one, calls
    them in C on each element."""

    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return self.v + other

    __radd__ = __add__

    def __mul__(self, other):
        return self.v * other

    __rmul__ = __mul__


class Vector:
    """A user class holding an array, with Python operators over it."""

    def __init__(self, data):
        self.data = data

    def __mul__(self, other):
        return Vector(self.data * other)

    def total(self):
        return self.data


def passthrough(a, *, scale=1.0):
    return a * scale


def yielded(a):
    """A generator holding the array: its steps read it back."""
    yield a
    yield a * 1.0
