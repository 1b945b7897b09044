"""C accelerators with a Python twin in the standard library (`heapq`, `bisect`,
`statistics`' `NormalDist.inv_cdf`) differentiate: a derivative reaching the C
function runs the module's own Python definition in the context. Before, each was
refused as C code with no rule."""

import bisect
import heapq
import statistics

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ad import D


def heap_sorted(x, values):
    heap = []
    for v in values:
        heapq.heappush(heap, v * x)
    return [heapq.heappop(heap) for _ in range(len(values))]


@given(st.lists(st.integers(min_value=-9, max_value=9), min_size=1, max_size=6),
       st.integers(min_value=1, max_value=5))
def test_a_heap_sort_carries_each_elements_derivative(values, x):
    """d/dx of the k-th smallest `v * x` is that `v` (the order is fixed for x > 0)."""
    expected = sorted(values)
    for k in range(len(values)):
        assert D(lambda t: heap_sorted(t, values)[k], float(x)) == expected[k]


def test_heapq_functions_through_their_twins():
    def f(x):
        heap = [5.0, x, 3 * x]
        heapq.heapify(heap)
        smallest = heapq.heapreplace(heap, 10.0)
        return smallest + sum(heapq.nlargest(2, heap)) + heapq.heappushpop(heap, x * x)

    # at x = 1: heap [1, 3, 5]; replace pops 1 (x); nlargest of [3x, 5, 10] is 10, 5;
    # pushpop with x*x = 1 < 3: returns x*x
    assert D(f, 1.0) == 1 + 0 + 2


def test_bisect_compares_and_the_index_is_a_constant():
    assert D(lambda x: bisect.bisect_right([0.0, 1.0, 5.0], x) * x, 2.0) == 2.0
    assert D(lambda x: bisect.bisect_left([x, 2 * x, 3 * x], 2.5) * 1.0, 1.0) == 0.0


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9])
def test_normal_dist_inv_cdf(p):
    """The quantile mu + sigma * z(p): d/dmu = 1, d/dsigma = z(p) (mpmath's)."""
    z = float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(p) - 1))
    assert D(lambda mu: statistics.NormalDist(mu, 2.0).inv_cdf(p), 1.0) == pytest.approx(1.0)
    assert D(lambda s: statistics.NormalDist(1.0, s).inv_cdf(p), 2.0) == pytest.approx(z)
    assert D(lambda s: statistics.NormalDist(1.0, s).quantiles(4)[0], 2.0) == \
        pytest.approx(float(mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(-0.5))))


def test_twins_nest():
    assert D(D(lambda x: heap_sorted(x, [3, -1, 2])[2] * x), 2.0) == 6.0
