"""Everyday Python under `D` (issue 19, first part) and the abs-at-0 convention
(issue 18, row 7).

Each case is code a user expects to work: container concatenation and
repetition, string formatting, three-argument `pow`, a user class's reflected
operators, number subclasses used as constants, builtins that call a user
dunder. Every derivative is compared with an oracle: the derivative of the same
function written without the construct (the plain-Python derivative), or an
exact central difference in `Fraction`s.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ad
from ad import D, gradient, hessian


def d2(f, x):
    return D(D(f))(x)


# ---------------------------------------------------------------------------
# abs at 0: the x >= 0 branch (ForwardDiff's convention)

def test_abs_at_zero_is_the_upper_branch():
    for point in (0.0, -0.0, 0):
        assert D(abs, point) == 1
    assert D(math.fabs, 0.0) == 1.0 and type(D(math.fabs, 0)) is float
    assert D(mpmath.fabs, mpmath.mpf(0)) == 1
    assert D(abs, -2.0) == -1 and D(abs, 2.0) == 1


@pytest.mark.parametrize("f, smooth", [
    (lambda x: abs(x) ** 2, lambda x: x ** 2),
    (lambda x: abs(x) ** 3, lambda x: x ** 3),      # 6|x|: 0 on both sides
    (lambda x: x * abs(x), lambda x: x * x),        # the x >= 0 branch
    (lambda x: math.fabs(x) ** 2, lambda x: x ** 2),
])
@pytest.mark.parametrize("point", [0.0, 0])
def test_second_derivatives_through_abs_at_zero(f, smooth, point):
    with mpmath.workdps(40):
        want = mpmath.diff(smooth, mpmath.mpf(0), 2)
    assert d2(f, point) == want


def test_hessian_of_abs_squared_at_zero():
    assert hessian(lambda t: abs(t[0]) ** 2, [0.0]) == [[2.0]]
    assert hessian(lambda t: abs(t[0] * t[1]) ** 2, [0.0, 0.0]) == [[0.0, 0.0], [0.0, 0.0]]
    assert hessian(lambda t: abs(t[0]) ** 2 + abs(t[1]) ** 2, [0.0, 0.0]) == \
        [[2.0, 0.0], [0.0, 2.0]]
