"""Ordinary Python code that the ad tests differentiate: classes, state, generators."""

import dataclasses
import functools
import math
from collections import deque
from typing import NamedTuple

import attrs

SCALE = 2.0
history = []


def foo_bar_identity(x):
    return x


class Vec:
    """A user class with operators and a property."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    @property
    def norm(self):
        return math.sqrt(self.x * self.x + self.y * self.y)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


@dataclasses.dataclass
class Point:
    x: float
    y: float


@attrs.define
class Checked:
    value: float = attrs.field(validator=attrs.validators.instance_of(float))


class Pair(NamedTuple):
    first: float
    second: float


def uses_vectors(t):
    v = Vec(t, 2.0) + Vec(1.0, t) * t
    return v.norm


def uses_slots(t):
    s = Slotted(t, 3.0)
    s.b = s.a * s.b
    return s.b + s.a


def makes_point(t):
    return Point(t * t, math.sin(t))


def validated(t):
    c = Checked(t * 2.0)
    return c.value * t


def makes_pair(t):
    return Pair(t, t ** 3)


def squares(t, n):
    for i in range(n):
        yield t ** i


def uses_generator(t):
    return sum(squares(t, 4))


def uses_comprehensions(t):
    items = [t * i for i in range(1, 4)]
    table = {i: v for i, v in enumerate(items)}
    return sum(v for v in table.values() if v is not None)


def factorial_like(t, n):
    return 1.0 if n == 0 else t * factorial_like(t, n - 1)


def recursive(t):
    return factorial_like(t, 5)


def counter(t):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    add(t)
    add(t * t)
    return total


def stores_in_the_heap(t):
    global SCALE
    SCALE = t * 3.0
    history.append(t)
    box = Point(t, t)
    box.y = SCALE * box.x
    return box.y + history[-1]


def raises_after_a_store(t):
    history.append(t * 2.0)
    raise ValueError("boom")


def with_try(t):
    try:
        return 1.0 / (t - t)
    except ZeroDivisionError:
        return t * t


@functools.lru_cache(maxsize=None)
def cached_square(t):
    return t * t


def uses_cache(t):
    return cached_square(t)


def evaluate(tree, x, lib):
    """A random expression tree at `x`, with `lib` (math or mpmath) for functions.

    Every operation is defined on the whole real line, so any tree can be
    evaluated anywhere; `lib` lets the same tree give mpmath's oracle.
    """
    if tree == "x":
        return x
    if not isinstance(tree, tuple):
        return tree
    op, *operands = tree
    values = [evaluate(operand, x, lib) for operand in operands]
    if op == "add":
        return values[0] + values[1]
    if op == "sub":
        return values[0] - values[1]
    if op == "mul":
        return values[0] * values[1]
    if op == "div":
        return values[0] / (1 + values[1] * values[1])
    if op == "sq":
        return values[0] ** 2
    if op == "log":
        return lib.log(1 + values[0] * values[0])
    if op == "sqrt":
        return lib.sqrt(1 + values[0] * values[0])
    return getattr(lib, op)(values[0])


# Lists holding one small int twice, with different tangents (at x = 2, x and x*x - x
# are the same object): each returns the element whose derivative is `SHARED_WANT`'s.

def reversed_pair(x):
    items = [x, 2]
    items.reverse()
    return items[0]


def front_popped(x):
    items = [x, x * x - x]
    items.pop(0)
    return items[0]


def last_popped(x):
    items = [x * x - x, x]
    return items.pop()


def inserted_in_front(x):
    items = [2]
    items.insert(0, x)
    return items[1]


def sorted_pair(x):
    items = [x, 2]
    items.sort()
    return items[1]


def rotated(x):
    queue = deque([x, x * x - x])
    queue.rotate(1)
    return queue[0]


def slice_stored(x):
    items = [x, x]
    items[0:1] = [2]
    return items[0]


def removed_first(x):
    items = [x, x * x - x, 2]
    items.remove(2)
    return items[0] + 10 * items[1]


def deleted_front(x):
    items = [x, x * x - x]
    del items[0]
    return items[0]


def bounded_deque(x):
    queue = deque([x * x - x, 2, x], maxlen=2)
    return queue[0]


SHARED = {reversed_pair: 0, front_popped: 3, last_popped: 1, inserted_in_front: 0,
          sorted_pair: 0, rotated: 3, slice_stored: 0, removed_first: 3, deleted_front: 3,
          bounded_deque: 0}
