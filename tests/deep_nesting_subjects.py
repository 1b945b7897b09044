"""What tests/test_deep_nesting.py nests: kept out of the test module, whose
functions pytest compiles from its assert-rewritten tree (the engine then reads
that tree), so that these are found in their file as a user's functions are."""

from __future__ import annotations

import math
import types

from ad import D
from contexts import Context, overdub, primitive
from tagging import enabletagging, istagged, tag
from tests.examples import load

# The toy forward-mode AD of examples/nested_d.py (the tagging API alone), with a
# primitive for `float` and a fallback that refuses Python code: a Python function
# reaching `fallback` means the engine ran it natively, outside this context.
nested_d = load("nested_d")
tangent = nested_d.tangent


class Toy(nested_d.DiffCtx):
    @primitive(float)
    def float_(self, x):
        if not istagged(x, self):
            return float(x)
        vx, dx = self.parts(x)
        return tag(float(vx), self, dx)

    def fallback(self, f, *args, **kwargs):
        if isinstance(f, (types.FunctionType, types.MethodType)):
            raise AssertionError(f"{f!r} ran natively, outside the context")
        return super().fallback(f, *args, **kwargs)


def toy_d(f, x):
    ctx = enabletagging(Toy(), f)
    return tangent(overdub(ctx, f, tag(x, ctx, 1.0)), ctx)


def toy_nested(f, depth):
    """The depth-th derivative of f, each derivative a toy context inside the last."""
    if depth == 1:
        return lambda x: toy_d(f, x)
    inner = toy_nested(f, depth - 1)
    return lambda x: toy_d(inner, x)


def fifth(x):
    return float(x) * x * x * x * x  # x**5


def cube(x):
    return x * x * x


def fifth_through_containers(x):
    xs = list((x, x))
    ys = tuple([float(x), x, x])
    return xs[0] * xs[1] * ys[0] * ys[1] * ys[2]  # x**5


class Seen(Context):
    """Records the names of the calls its prehook sees."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", None))


def square(y):
    return y * y


def inner_derivative(x):
    return toy_d(square, x)


# `ad` nested


def nested(f, depth):
    for _ in range(depth):
        f = D(f)
    return f


def float_times(x):
    return float(x) * x


def checks_its_type(x):
    assert type(x) is float and isinstance(x, float)
    assert isinstance(x, (int, float)) and not isinstance(x, str)
    return math.exp(x)


class Power:
    def __init__(self, base):
        self.base = base

    def fourth(self):
        squared = self.base * self.base
        return squared * squared


def through_an_object(x):
    return Power(x).fourth()  # x**4
