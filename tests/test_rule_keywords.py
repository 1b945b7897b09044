"""A rule's fast path takes its arguments by position only: a function that takes
no keyword arguments, called with some under `D`, raises the TypeError the plain
call raises (it once ran, silently, with the arguments bound by those names:
`math.atan2(y=t, x=1.0)` gave the derivative of `atan2(1.0, t)`); one that takes
keywords gets them, and its derivative, as before. Derivatives checked exactly."""

import math
import operator
from fractions import Fraction

import pytest

from ad import D


def atan2_by_keyword(t):
    return math.atan2(y=t, x=1.0)


def copysign_by_keyword(t):
    return math.copysign(y=t, x=1.0)


def math_pow_by_keyword(t):
    return math.pow(y=t, x=2.0)


def sub_by_keyword(t):
    return operator.sub(b=t, a=1.0)


def mul_by_keyword(t):
    return operator.mul(t, b=2.0)


def sin_by_keyword(t):
    return math.sin(x=t)


def pow_by_keyword(t):
    return pow(base=t, exp=3)


def pow_by_keyword_nested(t):
    return D(pow_by_keyword, t * t)


@pytest.mark.parametrize("f, name", [
    (atan2_by_keyword, "math.atan2"), (copysign_by_keyword, "math.copysign"),
    (math_pow_by_keyword, "math.pow"), (sub_by_keyword, "_operator.sub"),
    (mul_by_keyword, "_operator.mul"), (sin_by_keyword, "math.sin")])
def test_keywords_a_function_takes_none_of_raise_as_the_plain_call_does(f, name):
    with pytest.raises(TypeError, match=name):
        f(2.0)
    with pytest.raises(TypeError, match=name.replace(".", r"\.") + r"\(\) got"):
        D(f, 2.0)
    with pytest.raises(TypeError):
        D(lambda t: D(f, t * 3), 2.0)


@pytest.mark.parametrize("x", [Fraction(3, 2), Fraction(-2, 7)])
def test_keywords_a_function_takes_are_differentiated(x):
    assert D(pow_by_keyword, x) == 3 * x ** 2
    # d/dt of 3 (t^2)^2 = 12 t^3
    assert D(pow_by_keyword_nested, x) == 12 * x ** 3
