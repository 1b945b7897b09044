"""A `match` statement's captures keep their derivatives: a name bound by a `case`
pattern (the subject itself, a sequence's or mapping's item, a class pattern's
attribute, `*rest`, `**rest`, an alternative of `|`) reads its tangent back from the
slot it came from. Before, every capture was plain and `D` gave 0 with no error."""

import dataclasses

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ad import D


@dataclasses.dataclass
class Point:
    x: float
    y: float


def capture(x):
    match x:
        case y:
            return y * 2


def sequence(x):
    match [1.0, x, 3.0]:
        case [a, b, *rest]:
            return a + b * 3 + sum(rest)


def starred(x):
    match [1.0, x, x * x]:
        case [_, *rest]:
            return rest[0] + rest[1]


def mapping(x):
    match {"k": x, "j": 2 * x}:
        case {"k": v, **others}:
            return v * 5 + others["j"]


def class_pattern(x):
    match Point(x, 2.0):
        case Point(a, y=b):
            return a * b


def builtin_class_pattern(x):
    match x:
        case float(v) if v > 0:
            return v * 7
        case _:
            return 0.0


def alternatives(x):
    match (x, 1):
        case (1, v) | (v, 1):
            return v * 9


def nested_patterns(x):
    match {"p": [Point(x, 1.0)]}:
        case {"p": [Point(x=q)]}:
            return q * q * 11


def evaluator(x):
    """An expression tree walked by `match`, as interpreters are written."""
    def value(tree):
        match tree:
            case ("add", left, right):
                return value(left) + value(right)
            case ("mul", left, right):
                return value(left) * value(right)
            case number:
                return number
    return value(("add", ("mul", x, x), ("mul", 3.0, x)))


CAPTURES = [  # (f, its derivative)
    (capture, lambda x: 2), (sequence, lambda x: 3), (starred, lambda x: 1 + 2 * x),
    (mapping, lambda x: 7), (class_pattern, lambda x: 2), (builtin_class_pattern, lambda x: 7),
    (alternatives, lambda x: 9), (nested_patterns, lambda x: 22 * x),
    (evaluator, lambda x: 2 * x + 3),
]


@pytest.mark.parametrize("f, derivative", CAPTURES, ids=lambda f: getattr(f, "__name__", ""))
def test_captures_keep_their_derivatives(f, derivative):
    assert D(f, 2.0) == derivative(2.0)


@given(st.floats(min_value=0.1, max_value=5))
def test_nested_derivatives_through_captures(x):
    """Second derivatives against mpmath's, two differentiations at once."""
    for f in (nested_patterns, evaluator, starred):
        assert D(D(f), x) == pytest.approx(float(mpmath.diff(f, x, 2)), rel=1e-9)


class Loud:
    """A sequence whose `__getitem__` notes each call: a capture is not read twice."""

    def __init__(self, items):
        self.items, self.reads = items, 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        self.reads += 1
        return self.items[index]


@dataclasses.dataclass
class Lazy:
    calls: int = 0

    @property
    def x(self):
        self.calls += 1
        return 2.0


def test_no_user_code_runs_again_to_find_a_capture():
    """A user sequence's `__getitem__` and a property run as often under `D` as plainly."""
    import collections.abc
    collections.abc.Sequence.register(Loud)

    def f(t, loud, lazy):
        match loud:
            case [a, b]:
                pass
        match lazy:
            case Lazy(x=c):
                pass
        return (a + b + c) * t

    plain_loud, plain_lazy = Loud([1.0, 2.0]), Lazy()
    f(1.0, plain_loud, plain_lazy)
    loud, lazy = Loud([1.0, 2.0]), Lazy()
    assert D(lambda t: f(t, loud, lazy), 1.0) == 5.0
    assert (loud.reads, lazy.calls) == (plain_loud.reads, plain_lazy.calls)
