"""`itertools`' combinatoric iterators, `repeat` and `count` keep their elements'
derivatives: a Python twin runs in the context when a source may carry one. Each twin
yields what the C type yields (the C type is the oracle), and derivatives are checked
against an exact central difference (every subject is quadratic in x)."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ad import D
from tagging import _iterators as twins

small_lists = st.lists(st.integers(min_value=-3, max_value=3), max_size=5)


@given(small_lists, st.integers(min_value=0, max_value=6))
def test_each_twin_yields_what_the_c_type_yields(items, r):
    assert list(twins.combinations_(items, r)) == list(itertools.combinations(items, r))
    assert list(twins.combinations_with_replacement_(items, r)) == \
        list(itertools.combinations_with_replacement(items, r))
    assert list(twins.permutations_(items, r)) == list(itertools.permutations(items, r))
    assert list(twins.permutations_(items)) == list(itertools.permutations(items))
    assert list(twins.repeat_(items, r)) == list(itertools.repeat(items, r))
    assert list(itertools.islice(twins.count_(r, 2), 4)) == \
        list(itertools.islice(itertools.count(r, 2), 4))


SUBJECTS = [
    lambda x: sum(a * b for a, b in itertools.combinations([x, 2, 3 * x], 2)),
    lambda x: sum(a * b for a, b in itertools.combinations_with_replacement([x, 2], 2)),
    lambda x: sum(a - b * c for a, b, c in itertools.permutations([x, 2, 1])),
    lambda x: sum(p[0] * p[1] for p in itertools.permutations([x, 2 * x, 5], 2)),
    lambda x: sum(itertools.repeat(x * x, 3)),
    lambda x: sum(itertools.islice(itertools.count(x, 1), 3)) * x,
    lambda x: sum(itertools.islice(itertools.count(1, x), 4)),
]


def exact_derivative(f, x):
    """Exact for polynomials of degree 2 or less, with any step."""
    return (f(x + 1) - f(x - 1)) / 2


@pytest.mark.parametrize("f", SUBJECTS)
@given(st.fractions(min_value=-5, max_value=5, max_denominator=9))
def test_derivatives_through_the_iterators(f, x):
    assert D(f, x) == exact_derivative(f, Fraction(x))
    assert D(f, float(x)) == pytest.approx(float(exact_derivative(f, Fraction(x))))


def test_argument_errors_are_the_c_types():
    with pytest.raises(ValueError, match="r must be non-negative"):
        D(lambda x: list(itertools.combinations([x], -1)), 1.0)
    with pytest.raises(TypeError, match="a number is required"):
        D(lambda x: next(itertools.count("a", x)), 1.0)
