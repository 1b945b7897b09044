"""ad.check: D against a numerical derivative suited to the precision f computes in."""

from __future__ import annotations

import cmath
import math
from fractions import Fraction

import mpmath
import pytest

import ad
from ad import D, check
from ad._check import _numerical_derivative


# Double-precision code -------------------------------------------------------------------

@pytest.mark.parametrize("x", [-3.0, -0.5, 0.0, 1.0, 2.5, 100.0, 1e4])
def test_math_sin_agrees_at_several_points(x):
    assert check(math.sin, x) == math.cos(x)


def damped(x):
    return math.sin(3 * x) * math.exp(-x / 4) + x ** 3 / (1 + x * x)


def damped_derivative(x):
    return (3 * math.cos(3 * x) * math.exp(-x / 4) - math.sin(3 * x) * math.exp(-x / 4) / 4
            + (3 * x * x * (1 + x * x) - 2 * x ** 4) / (1 + x * x) ** 2)


@pytest.mark.parametrize("x", [-2.0, 0.3, 1.0, 7.5])
def test_double_precision_code_agrees_and_returns_the_ad_derivative(x):
    assert check(damped, x) == D(damped, x)
    assert check(damped, x) == pytest.approx(damped_derivative(x), rel=1e-13)


@pytest.mark.parametrize("f, x", [
    (math.sin, 1.0), (math.exp, -2.0), (math.log, 1e-3), (math.sqrt, 1e-4), (damped, 0.7),
    (lambda x: math.sin(50 * x), 9000.0),  # turns many times within the first step
])
def test_the_double_precision_estimate_is_good_to_about_1e_9(f, x):
    estimate, error = _numerical_derivative(f, x)
    assert isinstance(estimate, float)  # the double-precision method was used
    assert abs(estimate - D(f, x)) <= 1e-9 * max(1.0, abs(D(f, x)))
    assert error < 2e-9 * max(1.0, abs(D(f, x)))


def test_a_large_value_widens_the_tolerance_as_rounding_does():
    # cos(x) + 1e6: each f(x +- h) is rounded at 1e-10, so no difference quotient is
    # good to 1e-9; the error estimate says so and check does not report a false alarm
    estimate, error = _numerical_derivative(lambda x: math.cos(x) + 1e6, 1.0)
    assert abs(estimate + math.sin(1.0)) <= error
    assert check(lambda x: math.cos(x) + 1e6, 1.0) == -math.sin(1.0)


def test_int_and_fraction_points():
    assert check(lambda x: x ** 3 - 2 * x, 3) == 25
    assert check(lambda x: x * x / (1 + x), Fraction(1, 3)) == Fraction(7, 16)


def test_complex_points_differentiate_along_the_real_direction():
    assert check(cmath.exp, 1 + 2j) == pytest.approx(cmath.exp(1 + 2j), rel=1e-15)
    # not holomorphic: |z|^2 = x^2 + y^2 has the partial derivative 2x in Re(z)
    assert check(lambda z: abs(z) ** 2, 3 + 4j) == pytest.approx(6.0, rel=1e-12)
    # a real function of a complex number passed through double-precision cmath
    assert check(lambda z: cmath.exp(z) * z, 0.5) == pytest.approx(1.5 * math.exp(0.5))


# mpmath-clean code ------------------------------------------------------------------------

def rational(x):
    return (x ** 3 - 2 * x) / (1 + x * x)


def test_mpmath_clean_code_is_differentiated_by_mpmath_at_40_digits():
    estimate, error = _numerical_derivative(rational, 2.0)
    assert isinstance(estimate, mpmath.mpf) and error == 0
    with mpmath.workdps(40):
        assert abs(estimate - mpmath.mpf(34) / 25) < mpmath.mpf(10) ** -35
    assert check(rational, 2.0) == pytest.approx(1.36, rel=1e-15)
    got = check(rational, mpmath.mpf(2))
    assert isinstance(got, mpmath.mpf) and abs(got - mpmath.mpf("1.36")) < 1e-14
    assert check(rational, mpmath.mpc(1, 1)) == pytest.approx(D(rational, 1 + 1j))


def test_code_that_returns_an_mpf_computed_in_double_precision_gets_the_double_method():
    # math.exp turns the mpf into a float, and multiplying by x makes an mpf again:
    # mpmath.diff's tiny steps would see only the `* x`
    def mixed(x):
        return math.exp(x) * x

    with mpmath.workdps(40):
        assert isinstance(mixed(mpmath.mpf(1)), mpmath.mpf)
    estimate, _ = _numerical_derivative(mixed, 1.0)
    assert isinstance(estimate, float)
    assert check(mixed, 1.0) == pytest.approx(2 * math.e, rel=1e-15)


# Disagreement -----------------------------------------------------------------------------

def cube(x):
    return x * x * x


def skewed(x):
    return math.sin(x) + 2 * x


def test_a_wrong_user_rule_is_caught_showing_both_values():
    @ad.rule(skewed)
    def wrong_rule(primals, tangents):  # forgets the 2 * x
        (x,), (t,) = primals, tangents
        return skewed(x), math.cos(x) * t

    with pytest.raises(AssertionError) as raised:
        check(skewed, 1.0)
    message = str(raised.value)
    assert "skewed" in message and "1.0" in message
    assert repr(math.cos(1.0)) in message                       # the AD value
    assert "2.54030230" in message                                # the numerical one
    assert "differ by 2.0" in message or "differ by 1.99999" in message


def test_a_slightly_wrong_rule_is_caught_on_mpmath_clean_code():
    # 1e12 + x^3 in doubles: rounding (1e-4 per step) would hide an error of 3e-4,
    # but the code is mpmath-clean and mpmath at 40 digits does not
    @ad.rule(cube)
    def nearly(primals, tangents):
        (x,), (t,) = primals, tangents
        return cube(x), 3 * x * x * t * (1 + 1e-4)

    def shifted(x):
        return 1e12 + cube(x)

    with pytest.raises(AssertionError, match="shifted.*3.0003.*gives 3.0"):
        check(shifted, 1.0)
    assert check(shifted, 1.0, rtol=1e-3) == pytest.approx(3.0003)


def test_tolerances_are_keywords_that_decide():
    assert check(math.exp, 0.0, rtol=0, atol=1e-8) == 1.0
    with pytest.raises(TypeError):
        check(math.exp, 0.0, 1e-3)  # noqa: the tolerances are keyword-only


# Bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("f, x, message", [
    (3.0, 1.0, "needs a function to differentiate, got float 3.0"),
    ("sin", 1.0, "got str 'sin'"),
    (math.sin, "1", "got str '1'"),
    (math.sin, None, "got NoneType None"),
    (math.sin, [1.0], "got list"),
    (math.sin, True, "got bool"),
])
def test_bad_input_is_a_type_error_naming_it(f, x, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace("[", r"\[")):
        check(f, x)


def test_a_function_with_many_values_is_refused_by_name():
    with pytest.raises(TypeError, match="one number.*list"):
        check(lambda x: [x, x * x], 1.0)
