"""Workloads and the hand-written dual numbers for the `ad` benchmarks.

They live in a real file because the engine reads a function's source to
transform it. Each workload is written once, as a function of the point `x`
and a "math-like" namespace `m` (default: the `math` module). `ad.D` runs it
as users write it, with plain `math`; the dual classes run the very same
source with `m` set to their own namespace (`DUAL_MATH`, `TAGGED_MATH`), whose
`sin` and `cos` take dual numbers; an optional library runs it with its own
namespace (`jax.numpy`, `torch`, `autograd.numpy`, `mpmath`). Only W2 and W4
never call `m`; they take it anyway, so every workload is called alike.

The first-call measure needs a fresh copy of W1 in a new module file; it takes
W1's own source (`inspect.getsource`) and renames it, so there is still one
textual copy of each workload.
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace


# The workloads ---------------------------------------------------------------------------

def w1(x, m=math):
    """A 200-iteration scalar loop with sin, cos, ** and /."""
    acc = 0.0
    for i in range(200):
        y = x + i * 0.01
        acc = acc + m.sin(y) * m.cos(x - y) / (1.0 + y ** 2)
    return acc


COEFFS = [(-1) ** k / (k + 1.0) for k in range(501)]  # fixed coefficients of degree 500


def w2(x, m=math):
    """Horner evaluation of a degree-500 polynomial."""
    p = 0.0
    for c in COEFFS:
        p = p * x + c
    return p


W4_GLOBAL = 0.0


class Particle:
    def __init__(self, pos):
        self.pos = pos
        self.vel = 0.0
        self.energy = 0.0


def w4(x, m=math):
    """Objects with float attributes, a module global, list appends, `sum` at the end."""
    global W4_GLOBAL
    p = Particle(x)
    items = []
    for i in range(200):
        p.vel = p.vel - 0.01 * p.pos
        p.pos = p.pos + 0.01 * p.vel
        p.energy = 0.5 * p.vel * p.vel + 0.5 * p.pos * p.pos
        W4_GLOBAL = W4_GLOBAL + 0.001 * p.energy
        items.append(p.energy)
    result = sum(items) + W4_GLOBAL
    W4_GLOBAL = 0.0  # every run starts from a plain 0.0
    return result


# A minimal dual number -----------------------------------------------------------------

class Dual:
    """value + tangent·ε, ε² = 0: operator overloading by hand, no tags (cannot nest)."""

    __slots__ = ("value", "tangent")

    def __init__(self, value, tangent):
        self.value, self.tangent = value, tangent

    def __add__(self, other):
        if type(other) is Dual:
            return Dual(self.value + other.value, self.tangent + other.tangent)
        return Dual(self.value + other, self.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is Dual:
            return Dual(self.value - other.value, self.tangent - other.tangent)
        return Dual(self.value - other, self.tangent)

    def __rsub__(self, other):
        return Dual(other - self.value, -self.tangent)

    def __mul__(self, other):
        if type(other) is Dual:
            return Dual(self.value * other.value,
                        self.tangent * other.value + self.value * other.tangent)
        return Dual(self.value * other, self.tangent * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is Dual:
            q = self.value / other.value
            return Dual(q, (self.tangent - q * other.tangent) / other.value)
        return Dual(self.value / other, self.tangent / other)

    def __rtruediv__(self, other):
        q = other / self.value
        return Dual(q, -q * self.tangent / self.value)

    def __pow__(self, n):  # a constant exponent
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.tangent)

    def __neg__(self):
        return Dual(-self.value, -self.tangent)


def dual_sin(x):
    if type(x) is Dual:
        return Dual(math.sin(x.value), math.cos(x.value) * x.tangent)
    return math.sin(x)


def dual_cos(x):
    if type(x) is Dual:
        return Dual(math.cos(x.value), -math.sin(x.value) * x.tangent)
    return math.cos(x)


DUAL_MATH = SimpleNamespace(sin=dual_sin, cos=dual_cos)


def dual_derivative(f, x):
    """f'(x) with `Dual`, called as `D` is: seed, run, read the tangent."""
    y = f(Dual(x, 1.0), DUAL_MATH)
    return y.tangent if type(y) is Dual else 0.0


# A tagged, nestable dual number (as in ForwardDiff) ---------------------------------------

_TAGS = itertools.count(1)


class TDual:
    """A dual number of one derivative, told apart by its tag.

    Every derivative draws a larger tag; value and tangent may be `TDual`s of
    smaller tags (the derivatives it is nested in). Between two different tags
    the larger is outermost: the other operand is a constant to it.
    """

    __slots__ = ("tag", "value", "tangent")

    def __init__(self, tag, value, tangent):
        self.tag, self.value, self.tangent = tag, value, tangent

    def __add__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value + other.value, self.tangent + other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self + other.value, other.tangent)
        return TDual(self.tag, self.value + other, self.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value - other.value, self.tangent - other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self - other.value, -other.tangent)
        return TDual(self.tag, self.value - other, self.tangent)

    def __rsub__(self, other):  # `other` is never a TDual here
        return TDual(self.tag, other - self.value, -self.tangent)

    def __mul__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value * other.value,
                             self.tangent * other.value + self.value * other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self * other.value, self * other.tangent)
        return TDual(self.tag, self.value * other, self.tangent * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                q = self.value / other.value
                return TDual(self.tag, q, (self.tangent - q * other.tangent) / other.value)
            if other.tag > self.tag:
                q = self / other.value
                return TDual(other.tag, q, -q * other.tangent / other.value)
        return TDual(self.tag, self.value / other, self.tangent / other)

    def __rtruediv__(self, other):
        q = other / self.value
        return TDual(self.tag, q, -q * self.tangent / self.value)

    def __pow__(self, n):  # a constant exponent
        return TDual(self.tag, self.value ** n, n * self.value ** (n - 1) * self.tangent)

    def __neg__(self):
        return TDual(self.tag, -self.value, -self.tangent)


def tagged_sin(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_sin(x.value), tagged_cos(x.value) * x.tangent)
    return math.sin(x)


def tagged_cos(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_cos(x.value), -tagged_sin(x.value) * x.tangent)
    return math.cos(x)


TAGGED_MATH = SimpleNamespace(sin=tagged_sin, cos=tagged_cos)


def tagged_derivative(f, x):
    """f'(x) with `TDual` and a fresh tag, called as `D` is; `x` may itself be a
    `TDual` of an enclosing derivative (nesting)."""
    tag = next(_TAGS)
    y = f(TDual(tag, x, 1.0), TAGGED_MATH)
    return y.tangent if type(y) is TDual and y.tag == tag else 0.0


def tagged_second(f, x):
    """f''(x) by nesting: the derivative of the derivative, each with its own tag."""
    return tagged_derivative(lambda y, m: tagged_derivative(f, y), x)
