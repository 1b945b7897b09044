"""`a, b = x, y` under a tagging context: each value held, then stored in turn, as
CPython does, with no tuple built and unpacked; derivatives checked exactly
(Fractions) against the closed forms, the heap left plain."""

from fractions import Fraction

import pytest

from ad import D

G = 0


def fibonacci_like(x):
    a, b = x, 1
    for _ in range(5):
        a, b = b, a + b
    return a * b


def swapped(x):
    a, b = x, x * x
    a, b = b, a
    return a - b * 3


def into_a_global_and_a_cell(x):
    global G
    total = 0

    def read():
        return total

    G, total = x * x, x * 3
    return G * read()


def as_a_list(x):
    [a, b] = [x * 2, x]
    return a * b


def not_pairwise(x):
    (a, b), c = (x, x * x), 3
    first, *rest = x, x * 2, x * 3
    return a + b * c + first * sum(rest)


def mismatched(x):
    a, b = x, x, x
    return a * b


def _fib(x):
    a, b = x, Fraction(1)
    for _ in range(5):
        a, b = b, a + b
    return a, b


def fibonacci_exact_derivative(x):
    # a and b are linear in x: a = a0 + a1 x, b = b0 + b1 x; d(a b)/dx = a1 b + a b1
    a, b = _fib(x)
    a1, b1 = (lambda u, v: (u[0] - v[0], u[1] - v[1]))(_fib(Fraction(1)), _fib(Fraction(0)))
    return a1 * b + a * b1


@pytest.mark.parametrize("x", [Fraction(3, 2), Fraction(-2, 7), Fraction(5)])
def test_pairwise_assignments_differentiate_exactly(x):
    assert D(fibonacci_like, x) == fibonacci_exact_derivative(x)
    assert D(swapped, x) == 2 * x - 3
    assert D(into_a_global_and_a_cell, x) == 9 * x * x
    assert type(G) is Fraction and G == x * x
    assert D(as_a_list, x) == 4 * x
    assert D(not_pairwise, x) == 1 + 6 * x + 10 * x


def test_a_length_mismatch_raises_as_plain_python_does():
    with pytest.raises(ValueError, match="too many values to unpack"):
        mismatched(1.0)
    with pytest.raises(ValueError, match="too many values to unpack"):
        D(mismatched, 1.0)
