"""Every line of the rule tables (`ad/_rules/*.py`) against mpmath.

Each case differentiates a function of the table with `ad.D` (or `ad.gradient`)
and compares with a derivative mpmath computes at 40 digits (`mpmath.diff` of
an mpmath version of the function, or a closed form), to 1e-9 relative. A
hypothesis test per family draws points in each function's domain. The last
test checks that every function of `ad._rules.RULES` is covered by a case here.
"""

from __future__ import annotations

import builtins
import cmath
import copy
import math
import operator
import statistics
import types
from fractions import Fraction

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ad
from ad._rules import RULES, User
from ad._rules import builtins as builtins_rules
from ad._rules import cmath as cmath_rules
from ad._arrays import is_array_function
from ad._rules import math as math_rules
from ad._rules import methods as methods_rules
from ad._rules import mpmath as mpmath_rules
from ad._rules import operator as operator_rules
from ad._rules import statistics as statistics_rules

mp = mpmath.mp
DIGITS = 40
REL = 1e-9
COVERED: set = set()  # RULES keys the cases below exercise


def covers(*functions):
    """Record the table lines `functions` use (a method is keyed by its function)."""
    for f in functions:
        COVERED.add(f.__func__ if type(f) is types.MethodType else f)
    return functions


def close(got, want, rel=REL):
    """|got - want| <= rel |want| (with a floor of rel * 1e-6 for a zero want)."""
    want = mpmath.mpmathify(want)
    return abs(mpmath.mpmathify(got) - want) <= rel * max(abs(want), mpmath.mpf("1e-6"))


def diff(f, x, n=1):
    """The n-th derivative of the mpmath function f at x, at 40 digits."""
    with mpmath.workdps(DIGITS):
        return mpmath.diff(f, mpmath.mpmathify(x), n)


def partial(f, xs, i, n=1):
    with mpmath.workdps(DIGITS):
        orders = tuple(n if j == i else 0 for j in range(len(xs)))
        return mpmath.diff(f, tuple(mpmath.mpmathify(x) for x in xs), orders)


def _name(case):
    return getattr(case, "__name__", "")


def hyp(n=12):
    return settings(max_examples=n, deadline=None)


# ---------------------------------------------------------------------------
# math: functions of one real argument

def _sign_cbrt(x):
    return mpmath.sign(x) * mpmath.cbrt(abs(x))


MATH_UNARY = [  # function, its mpmath version, domain, points
    (math.sin, mpmath.sin, (-10, 10), [0.3, -2.0, 7.5]),
    (math.cos, mpmath.cos, (-10, 10), [0.3, -2.0, 7.5]),
    (math.tan, mpmath.tan, (-1.5, 1.5), [0.3, -1.2]),
    (math.asin, mpmath.asin, (-0.99, 0.99), [0.3, -0.9]),
    (math.acos, mpmath.acos, (-0.99, 0.99), [0.3, -0.9]),
    (math.atan, mpmath.atan, (-50, 50), [0.3, -20.0]),
    (math.sinh, mpmath.sinh, (-20, 20), [0.3, -5.0]),
    (math.cosh, mpmath.cosh, (-20, 20), [0.3, -5.0]),
    (math.tanh, mpmath.tanh, (-10, 10), [0.3, -2.0]),
    (math.asinh, mpmath.asinh, (-50, 50), [0.3, -20.0]),
    (math.acosh, mpmath.acosh, (1.01, 50), [1.5, 20.0]),
    (math.atanh, mpmath.atanh, (-0.99, 0.99), [0.3, -0.9]),
    (math.exp, mpmath.exp, (-30, 30), [0.3, -5.0, 12.0]),
    (math.exp2, lambda x: mpmath.power(2, x), (-30, 30), [0.3, -5.0]),
    (math.expm1, mpmath.expm1, (-30, 30), [1e-8, -5.0]),
    (math.log, mpmath.ln, (0.01, 1e6), [0.3, 5.0, 1e5]),
    (math.log2, lambda x: mpmath.log(x, 2), (0.01, 1e6), [0.3, 5.0]),
    (math.log10, mpmath.log10, (0.01, 1e6), [0.3, 5.0]),
    (math.log1p, mpmath.log1p, (-0.99, 1e6), [1e-9, -0.5, 3.0]),
    (math.sqrt, mpmath.sqrt, (0.01, 1e6), [0.3, 5.0]),
    (math.cbrt, _sign_cbrt, (0.01, 1e6), [0.3, 27.0]),
    (math.fabs, mpmath.fabs, (0.01, 100), [0.3, 5.0]),
    (math.degrees, mpmath.degrees, (-100, 100), [0.3]),
    (math.radians, mpmath.radians, (-100, 100), [0.3]),
    (math.erf, mpmath.erf, (-5, 5), [0.3, -2.0]),
    (math.erfc, mpmath.erfc, (-5, 5), [0.3, -2.0]),
    (math.gamma, mpmath.gamma, (0.05, 20), [0.3, 5.5]),
    (math.lgamma, mpmath.loggamma, (0.05, 50), [0.3, 5.5, 40.0]),
]
covers(*(case[0] for case in MATH_UNARY))


@pytest.mark.parametrize("f, fm, domain, points", MATH_UNARY, ids=_name)
def test_math_unary_points(f, fm, domain, points):
    for x in points:
        assert close(ad.D(f, x), diff(fm, x)), (f, x)
    negative = [-x for x in points if domain[0] <= -x <= domain[1]]
    for x in negative:
        assert close(ad.D(f, x), diff(fm, x)), (f, x)


@pytest.mark.parametrize("f, fm, domain, points", MATH_UNARY, ids=_name)
@hyp(8)
@given(t=st.floats(0, 1))
def test_math_unary_property(f, fm, domain, points, t):
    x = domain[0] + t * (domain[1] - domain[0])
    assert close(ad.D(lambda x: f(x), x), diff(fm, x)), (f, x)


def test_math_cbrt_and_fabs_of_negatives():
    assert close(ad.D(math.cbrt, -8.0), diff(_sign_cbrt, -8.0))
    assert ad.D(math.fabs, -3.0) == -1.0
    assert close(ad.D(math.lgamma, -2.5), diff(lambda x: mpmath.log(abs(mpmath.gamma(x))), -2.5))
    assert close(ad.D(math.gamma, -2.5), diff(mpmath.gamma, -2.5))


MATH_BINARY = [  # f(x, y), mpmath version, points
    (math.atan2, mpmath.atan2, [(0.3, 2.0), (-1.0, -0.5), (2.0, -3.0)]),
    (math.pow, mpmath.power, [(0.3, 2.5), (2.0, -1.5), (1.7, 0.0)]),
    (math.hypot, mpmath.hypot, [(0.3, 2.0), (-3.0, 4.0)]),
    (math.log, mpmath.log, [(0.3, 2.0), (50.0, 10.0)]),
    (math.fmod, lambda x, y: x - y * mpmath.floor(x / y), [(7.3, 2.0), (5.5, 1.2)]),
    (math.remainder, lambda x, y: x - y * mpmath.nint(x / y), [(7.3, 2.0), (5.5, 1.2)]),
    (math.copysign, lambda x, y: abs(x) * mpmath.sign(y), [(0.3, -2.0), (-1.5, 3.0)]),
]
covers(*(case[0] for case in MATH_BINARY))


@pytest.mark.parametrize("f, fm, points", MATH_BINARY, ids=_name)
def test_math_binary(f, fm, points):
    for xs in points:
        grad = ad.gradient(lambda v: f(*v), list(xs))
        for i in range(2):
            assert close(grad[i], partial(fm, xs, i)), (f, xs, i)


@hyp(20)
@given(st.floats(0.1, 10), st.floats(-3, 3))
def test_math_pow_property(x, y):
    grad = ad.gradient(lambda v: math.pow(*v), [x, y])
    assert close(grad[0], partial(mpmath.power, (x, y), 0))
    assert close(grad[1], partial(mpmath.power, (x, y), 1))


@hyp(20)
@given(st.floats(-10, 10), st.floats(-10, 10))
def test_math_atan2_hypot_property(y, x):
    assume(abs(x) + abs(y) > 0.1 and not (abs(y) < 1e-3 and x < 0))  # off the cut
    for f, fm in ((math.atan2, mpmath.atan2), (math.hypot, mpmath.hypot)):
        grad = ad.gradient(lambda v: f(*v), [y, x])
        assert close(grad[0], partial(fm, (y, x), 0)) and close(grad[1], partial(fm, (y, x), 1))


def test_math_ldexp_nextafter_variadic_hypot():
    covers(math.ldexp, math.nextafter)
    assert ad.D(lambda x: math.ldexp(x, 5), 0.3) == 32.0
    assert ad.D(lambda x: math.nextafter(x, 10.0), 0.3) == 1.0
    grad = ad.gradient(lambda v: math.hypot(*v), [1.0, 2.0, 2.0])
    assert all(close(g, w) for g, w in zip(grad, [1 / 3, 2 / 3, 2 / 3]))


def test_math_models():
    covers(math.fsum, math.prod, math.dist, math.modf, math.frexp, math_rules._fsum,
           math_rules._prod, math_rules._dist, math_rules._frac, math_rules._whole,
           math_rules._exponent)
    x = 0.7
    assert close(ad.D(lambda x: math.fsum([x, x * x, 1e20, -1e20]), x), 1 + 2 * x)
    assert close(ad.D(lambda x: math.prod([x, x * x, 3.0], start=2.0), x), 2 * 3 * 3 * x ** 2)
    assert ad.D(lambda x: math.prod([x, 0.0, x]), x) == 0.0
    assert ad.D(lambda x: math.prod([x, 0.0]), x) == 0.0
    assert ad.D(lambda x: math.prod([x, x]), 0.0) == 0.0
    grad = ad.gradient(lambda v: math.dist(v[:2], v[2:]), [1.0, 2.0, 4.0, 6.0])
    assert all(close(g, w) for g, w in zip(grad, [-0.6, -0.8, 0.6, 0.8]))
    assert ad.D(lambda x: math.dist([x], [x]), 1.0) == 0.0
    assert ad.D(lambda x: math.modf(3 * x), 1.25) == (3.0, 0.0)
    assert ad.D(lambda x: math.frexp(x)[0], 5.0) == 1 / 8
    assert ad.D(lambda x: math.frexp(x)[1], 5.0) == 0


MATH_CONSTANTS = [math.ceil, math.floor, math.trunc, math.isfinite, math.isinf, math.isnan,
                  math.ulp]


def test_math_constants():
    covers(*MATH_CONSTANTS, math.isclose, math.comb, math.perm, math.factorial, math.gcd,
           math.lcm, math.isqrt)
    for f in MATH_CONSTANTS:
        assert ad.D(lambda x: f(x) + x, 2.5) == 1.0, f
    assert ad.D(lambda x: math.isclose(x, 2.5) + x, 2.5) == 1.0
    assert ad.D(lambda n: math.comb(n, 2) + math.perm(n, 2) + math.factorial(n) + math.gcd(n, 4)
                + math.lcm(n, 4) + math.isqrt(n) + n, 6) == 1


# ---------------------------------------------------------------------------
# cmath: holomorphic functions, f'(z) from mpmath.diff along the real axis

CMATH = [
    (cmath.exp, mpmath.exp), (cmath.log, mpmath.ln), (cmath.log10, mpmath.log10),
    (cmath.sqrt, mpmath.sqrt), (cmath.sin, mpmath.sin), (cmath.cos, mpmath.cos),
    (cmath.tan, mpmath.tan), (cmath.asin, mpmath.asin), (cmath.acos, mpmath.acos),
    (cmath.atan, mpmath.atan), (cmath.sinh, mpmath.sinh), (cmath.cosh, mpmath.cosh),
    (cmath.tanh, mpmath.tanh), (cmath.asinh, mpmath.asinh), (cmath.acosh, mpmath.acosh),
    (cmath.atanh, mpmath.atanh),
]
covers(*(f for f, _ in CMATH))


@pytest.mark.parametrize("f, fm", CMATH, ids=_name)
def test_cmath_points(f, fm):
    for z in (0.3 + 0.4j, -1.2 + 0.5j, 0.7 - 1.1j, 2.5 + 0j):
        assert close(ad.D(f, z), diff(fm, z)), (f, z)


@pytest.mark.parametrize("f, fm", CMATH, ids=_name)
@hyp(6)
@given(st.floats(0.05, 2), st.floats(0.05, 2))
def test_cmath_property(f, fm, re, im):
    z = complex(re, im)  # the first quadrant, off the branch cuts and points
    assert close(ad.D(f, z), diff(fm, z)), (f, z)


def test_cmath_other_lines():
    covers(cmath.phase, cmath.rect, cmath.polar, cmath_rules._phase, cmath.isclose,
           cmath.isfinite, cmath.isinf, cmath.isnan)
    z = 0.6 - 0.8j
    assert close(ad.D(cmath.phase, z), diff(lambda t: mpmath.arg(z + t), 0))
    assert close(ad.D(lambda y: cmath.phase(complex(0.6, y)), -0.8),
                 diff(lambda y: mpmath.atan2(y, 0.6), -0.8))
    r, phi = 2.0, 0.7
    grad = ad.gradient(lambda v: cmath.rect(*v), [r, phi])
    assert close(grad[0], cmath.rect(1, phi)) and close(grad[1], 1j * cmath.rect(r, phi))
    assert close(ad.D(lambda x: cmath.polar(x + 1j)[0], 0.5), diff(lambda x: abs(x + 1j), 0.5))
    assert close(ad.D(lambda x: cmath.polar(x + 1j)[1], 0.5),
                 diff(lambda x: mpmath.arg(x + 1j), 0.5))
    grad = ad.gradient(lambda v: cmath.log(v[0], v[1]), [2.0 + 1j, 3.0])
    assert close(grad[0], partial(lambda z, b: mpmath.log(z, b), (2.0 + 1j, 3.0), 0))
    assert close(grad[1], partial(lambda z, b: mpmath.log(z, b), (2.0 + 1j, 3.0), 1))
    assert ad.D(lambda z: cmath.isclose(z, 1j) + cmath.isfinite(z) + cmath.isinf(z)
                + cmath.isnan(z) + z, 1j) == 1


# ---------------------------------------------------------------------------
# operator and the numeric builtins

OPERATOR_BINARY = [
    (operator.add, lambda x, y: x + y), (operator.sub, lambda x, y: x - y),
    (operator.mul, lambda x, y: x * y), (operator.truediv, lambda x, y: x / y),
    (operator.mod, lambda x, y: x - y * mpmath.floor(x / y)),
    (operator.pow, mpmath.power), (builtins.pow, mpmath.power),
]
covers(*(f for f, _ in OPERATOR_BINARY))


@pytest.mark.parametrize("f, fm", OPERATOR_BINARY, ids=_name)
@hyp(15)
@given(st.floats(0.1, 20), st.floats(-5, 5))
def test_operator_binary(f, fm, x, y):
    assume(abs(y) > 0.1 and (f is not operator.mod or abs(x / y - round(x / y)) > 1e-6))
    grad = ad.gradient(lambda v: f(*v), [x, y])
    for i in range(2):
        assert close(grad[i], partial(fm, (x, y), i)), (f, x, y, i)


def test_operator_syntax_and_in_place():
    covers(operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.imod,
           operator.ipow, operator.ifloordiv, operator.floordiv, operator.neg, operator.pos,
           operator.abs, divmod, operator_rules._divmod, operator_rules._plain_divmod, operator.lt, operator.le,
           operator.gt, operator.ge, operator.eq, operator.ne, operator.not_, operator.truth,
           operator.is_, operator.is_not, operator.contains, operator.index)

    def f(x):
        y = x
        y += x      # 2x
        y *= x      # 2x^2
        y -= 1      # 2x^2 - 1
        y /= 2      # x^2 - 1/2
        y **= 2     # (x^2 - 1/2)^2
        y %= 5.0
        return y

    def fm(x):
        y = (x * x - mpmath.mpf(1) / 2) ** 2
        return y - 5 * mpmath.floor(y / 5)

    assert close(ad.D(f, 1.9), diff(fm, 1.9))
    assert ad.D(lambda x: operator.ifloordiv(x, 2.0) + operator.floordiv(x, 2.0) + x, 3.3) == 1
    assert ad.D(lambda x: -x + (+x) + abs(-x), 1.5) == 1
    assert ad.D(lambda x: divmod(x, 2.0)[1] + divmod(x, 2.0)[0], 5.5) == 1
    assert ad.D(lambda y: divmod(7.0, y)[1], 2.5) == -2
    flags = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
             operator.is_, operator.is_not)
    assert ad.D(lambda x: sum(f(x, 2.0) for f in flags) + operator.not_(x)
                + operator.truth(x) + operator.contains([x], x) + x, 1.5) == 1
    assert ad.D(lambda n: operator.index(n) + n, 3) == 1


def test_operator_abs_and_int_tangents():
    assert ad.D(abs, -2.5) == -1.0 and ad.D(abs, 2.5) == 1.0
    assert ad.D(abs, 0.0) == 1 and ad.D(operator.abs, 0.0) == 1  # the x >= 0 branch
    assert ad.D(abs, -0.0) == 1 and ad.D(math.fabs, 0.0) == 1 and ad.D(abs, 0) == 1
    assert close(ad.D(abs, 3 + 4j), 0.6)
    d = ad.D(lambda x: 3 * x ** 3 - 2 * x + 7, 2)
    assert d == 34 and type(d) is int
    d = ad.D(lambda x: (x - 1) * (x + 1) % 7, 3)
    assert d == 6 and type(d) is int


@hyp(25)
@given(st.floats(-1e6, 1e6), st.fractions(-100, 100), st.integers(-10**6, 10**6))
def test_builtins_property(x, q, n):
    assume(x != 0 and q != 0)
    assert ad.D(abs, x) == math.copysign(1.0, x)
    assert ad.D(lambda x: float(x) * x, x) == 2 * x
    assert ad.D(lambda q: Fraction(q, 3) * q, q) == 2 * q / 3
    assert ad.D(lambda q: Fraction(3, q), q) == -3 / q ** 2
    assert ad.D(lambda n: pow(n, 3) - abs(n) * n, n) == 3 * n * n - 2 * abs(n)
    assert type(ad.D(lambda n: pow(n, 3), n)) is int
    assert ad.D(lambda x: complex(x, x * x), x) == complex(1, 2 * x)


def test_builtins_not_numeric(capsys):
    covers(builtins.type, builtins.isinstance, builtins.issubclass, builtins.callable,
           builtins.repr, builtins.ascii, builtins.str, builtins.format, builtins.print)
    assert ad.D(lambda x: (type(x) is float) + isinstance(x, float) + issubclass(type(x), float)
                + callable(x) + (repr(x) == ascii(x) == "2.5") + (str(x) == "2.5")
                + (format(x, ".1f") == "2.5") + (print(x) is None) + x, 2.5) == 1
    assert capsys.readouterr().out == "2.5\n"


def test_builtins_lines():
    covers(builtins.abs, builtins.float, builtins.complex, Fraction, mpmath.mpf, mpmath.mpc,
           builtins_rules.real, builtins_rules.imag, builtins_rules.conjugate, builtins.int,
           builtins.round, builtins.bool, builtins.hash, builtins.id, builtins.len,
           builtins_rules.method)
    d = ad.D(lambda x: float(x) * 2, 3)
    assert d == 2.0 and type(d) is float
    grad = ad.gradient(lambda v: complex(*v), [1.0, 2.0])
    assert grad == [1, 1j]
    assert ad.D(lambda x: Fraction(x, 4), Fraction(1, 3)) == Fraction(1, 4)
    assert ad.D(lambda d: Fraction(3, d), 4) == Fraction(-3, 16)
    d = ad.D(lambda x: mpmath.mpf(x) * 3, 2.0)
    assert d == 3 and type(d) is mpmath.mpf
    grad = ad.gradient(lambda v: mpmath.mpc(*v), [1.0, 2.0])
    assert grad[0] == 1 and grad[1] == 1j
    z = 1.5 - 2j
    assert ad.D(lambda x: x.real, z) == 1 and ad.D(lambda x: x.imag, z) == 0
    assert ad.D(lambda y: (1 + y * 1j).imag, 2.0) == 1
    assert ad.D(lambda x: x.conjugate(), z) == 1
    assert ad.D(lambda y: (y * 1j).conjugate(), 2.0) == -1j
    assert ad.D(lambda x: int(x) + round(x) + bool(x) + hash(x) * 0 + (id(x) > 0)
                + len([x]) + x, 2.5) == 1
    with pytest.raises(ad.NonDifferentiableError):  # a method of a number without a rule
        ad.D(lambda x: x.__divmod__(2.0)[1] * 1.0, 2.5)


# points of each kind for its dunders: (receiver, other argument)
_DUNDER_POINTS = {int: (3, 2), float: (0.7, 1.5), complex: (0.7 + 0.2j, 1.5 - 0.5j),
                  Fraction: (Fraction(7, 10), Fraction(3, 2))}


def _operator_on_mpmath(plain, x, y):
    if plain is operator.floordiv:  # a step: mpmath's diff of it is 0
        return mpmath.floor(x / y)
    return plain(x, y)


def test_number_methods_lines():
    """Each dunder line against mpmath's derivative of its operator (the values and
    NotImplemented against the plain dunders: `test_ad_number_methods`)."""
    covers(methods_rules.plain_result, methods_rules.numerator_of, int.as_integer_ratio,
           float.as_integer_ratio, Fraction.as_integer_ratio, mpmath.mpf.as_integer_ratio,
           Fraction.limit_denominator, Fraction.__copy__, Fraction.__deepcopy__,
           builtins_rules.numerator, builtins_rules.denominator, Fraction.numerator.fget,
           Fraction.denominator.fget, statistics._float_sqrt_of_frac)
    for kind, (a, b) in _DUNDER_POINTS.items():
        for short, plain in methods_rules._BINARY.items():
            for reflected, name in ((False, f"__{short}__"), (True, f"__r{short}__")):
                if not hasattr(kind, name):
                    continue
                dunder = getattr(kind, name)
                covers(dunder, methods_rules.VALUES[dunder])

                def on_mpmath(x, y, plain=plain, reflected=reflected):
                    x, y = mpmath.mpmathify(x), mpmath.mpmathify(y)
                    return _operator_on_mpmath(plain, *((y, x) if reflected else (x, y)))

                assert close(ad.D(lambda t: dunder(t, b), a),
                             diff(lambda t: on_mpmath(t, b), a)), dunder
                assert close(ad.D(lambda t: dunder(a, t), b),
                             diff(lambda t: on_mpmath(a, t), b)), dunder
        for name, plain in methods_rules._UNARY.items():
            if hasattr(kind, name):
                dunder = getattr(kind, name)
                covers(dunder)
                expected = 0 if plain in (math.trunc, math.floor, math.ceil, round) else \
                    diff(plain, a)
                assert close(ad.D(dunder, a), expected), dunder
    for x in (0.7, Fraction(7, 10), 3, mpmath.mpf(0.7)):
        assert ad.D(lambda t: (lambda n, d: n / d)(*t.as_integer_ratio()), x) == 1
    assert ad.D(lambda q: q.numerator / q.denominator, Fraction(7, 10)) == 1
    assert ad.D(lambda n: n.numerator * 2 + n.denominator, 3) == 2
    assert ad.D(lambda q: q.limit_denominator(3) + copy.copy(q) + copy.deepcopy(q),
                Fraction(7, 10)) == 2
    assert close(ad.D(lambda q: statistics._float_sqrt_of_frac(q.numerator, q.denominator),
                      Fraction(7, 10)), diff(mpmath.sqrt, Fraction(7, 10)))
    if hasattr(math, "sumprod"):  # Python 3.12+
        covers(math.sumprod, math_rules._sumprod)
        assert close(ad.D(lambda t: math.sumprod([t, t * t], [2.5, t]), 0.7),
                     diff(lambda t: t * 2.5 + t ** 3, 0.7))


# ---------------------------------------------------------------------------
# edge cases: where a derivative is infinite, zero by convention, or raises

def test_pow_edges():
    assert ad.D(lambda x: x ** 0, 0.0) == 0
    assert ad.D(lambda x: x ** 1.5, 0.0) == 0
    assert ad.D(lambda x: x ** 0.5, 0.0) == math.inf
    assert ad.D(lambda x: x ** 1, 0.0) == 1
    assert ad.D(lambda y: 0.0 ** y, 2.0) == 0
    assert ad.D(lambda x: x ** 2, -3.0) == -6.0
    assert close(ad.D(lambda y: (-2.0) ** y, 3.0), -8 * math.log(2))


def test_infinite_derivatives_and_zero_conventions():
    assert ad.D(math.sqrt, 0.0) == math.inf
    assert ad.D(lambda x: -math.sqrt(x), 0.0) == -math.inf
    assert ad.D(math.cbrt, 0.0) == math.inf
    assert ad.D(math.asin, 1.0) == math.inf and ad.D(math.acos, 1.0) == -math.inf
    assert ad.D(lambda x: math.hypot(x, 0.0), 0.0) == 0  # |x| as a cone: 0 at its tip
    assert ad.D(lambda x: math.hypot(x, 2 * x), 0.0) == 0
    assert ad.D(lambda x: math.acosh(x), 1.0) == math.inf
    assert ad.D(lambda x: x ** (1 / 3), 0.0) == math.inf
    assert ad.D(abs, 0.0) == 1  # the x >= 0 branch, as ForwardDiff
    assert ad.D(mpmath.sqrt, mpmath.mpf(0)) == mpmath.inf
    assert type(ad.D(mpmath.sqrt, mpmath.mpf(0))) is mpmath.mpf
    assert ad.D(cmath.sqrt, 0j) == complex(math.inf, 0)


@pytest.mark.parametrize("f, x", [
    (math.log, 0.0), (math.log, -1.0), (math.sqrt, -1.0), (math.asin, 1.5), (math.acosh, 0.5),
    (math.atanh, 1.0), (math.log1p, -1.0), (math.gamma, 0.0), (math.gamma, -2.0),
    (lambda x: 1 / x, 0.0), (lambda x: x % 0.0, 1.0), (lambda x: divmod(x, 0.0), 1.0),
    (lambda x: x ** -1, 0.0), (lambda x: math.pow(x, -1.0), 0.0), (math.exp, 1000.0),
    (lambda x: math.log(x, 1.0), 2.0), (cmath.log, 0j), (lambda x: statistics.mean([]), 1.0),
    (lambda x: statistics.variance([x]), 1.0), (lambda x: statistics.geometric_mean([x]), -1.0),
    (lambda x: statistics.correlation([x, x], [1.0, 2.0]), 1.0),
    (lambda x: statistics.quantiles([x, 1.0], method="other"), 1.0),
    (mpmath.gamma, mpmath.mpf(0)), (lambda x: mpmath.fdiv(1, x), mpmath.mpf(0)),
])
def test_exceptions_are_the_plain_calls(f, x):
    with pytest.raises(Exception) as plain:
        f(x)
    with pytest.raises(type(plain.value)) as derived:
        ad.D(f, x)
    assert type(derived.value) is type(plain.value)
    assert str(derived.value) == str(plain.value)


def test_log_domain_error_message():
    with pytest.raises(ValueError, match="math domain error"):
        ad.D(math.log, 0.0)


# ---------------------------------------------------------------------------
# tangent types

def test_tangent_types():
    d = ad.D(lambda x: x * x * x + 2 * x, 3)
    assert d == 29 and type(d) is int
    d = ad.D(lambda x: x * x / 3 + 1, Fraction(1, 2))
    assert d == Fraction(1, 3) and type(d) is Fraction
    d = ad.D(lambda x: statistics.mean([x, 2 * x, Fraction(1, 3)]), Fraction(1, 2))
    assert d == 1 and type(d) is Fraction
    d = ad.D(lambda x: statistics.variance([x, Fraction(1), Fraction(5, 2)]), Fraction(1, 2))
    assert type(d) is Fraction
    assert d == 2 * (Fraction(1, 2) - Fraction(4, 3)) / 2
    with mpmath.workdps(50):
        x = mpmath.mpf(1) / 3
        d = ad.D(mpmath.sin, x)
        assert type(d) is mpmath.mpf and abs(d - mpmath.cos(x)) < mpmath.mpf(10) ** -48
        d = ad.D(lambda x: x ** 3, x)
        assert abs(d - 3 * x * x) < mpmath.mpf(10) ** -48
        d = ad.D(lambda x: mpmath.exp(x) * mpmath.log(x), x)
        assert abs(d - (mpmath.exp(x) * mpmath.log(x) + mpmath.exp(x) / x)) < mpmath.mpf(10) ** -47
    d = ad.D(mpmath.sin, 0.5)
    assert type(d) is mpmath.mpf
    d = ad.D(cmath.exp, 1j)
    assert type(d) is complex


# ---------------------------------------------------------------------------
# statistics: against mpmath versions of each function

def mp_mean(xs):
    return mpmath.fsum(xs) / len(xs)


def mp_ss(xs, c=None):
    c = mp_mean(xs) if c is None else c
    return mpmath.fsum((x - c) ** 2 for x in xs)


def mp_median(xs):
    s, n = sorted(xs), len(xs)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def mp_quantiles(xs, n=4, method="exclusive"):
    s, ld = sorted(xs), len(xs)
    out = []
    for i in range(1, n):
        if method == "inclusive":
            j, delta = divmod(i * (ld - 1), n)
            out.append((s[j] * (n - delta) + s[j + 1] * delta) / n)
        else:
            j = min(max(i * (ld + 1) // n, 1), ld - 1)
            delta = i * (ld + 1) - j * n
            out.append((s[j - 1] * (n - delta) + s[j] * delta) / n)
    return out


def mp_cov(xs, ys):
    mx, my = mp_mean(xs), mp_mean(ys)
    return mpmath.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))


def mp_slope(xs, ys, proportional=False):
    if proportional:
        return mpmath.fsum(x * y for x, y in zip(xs, ys)) / mpmath.fsum(x * x for x in xs)
    return mp_cov(xs, ys) / mp_ss(xs)


def mp_grouped(xs, interval=1):
    s, n = sorted(xs), len(xs)
    x = s[n // 2]
    i = sum(1 for v in s if v < x)
    j = sum(1 for v in s if v <= x)
    return x - mpmath.mpf(interval) / 2 + interval * (mpmath.mpf(n) / 2 - i) / (j - i)


A, B = (1.0, -2.0, 0.5, 3.0, -0.25), (0.0, 1.0, 2.5, -1.0, 4.0)  # data: a_i x + b_i


def data(x, k=5):
    return [a * x + b for a, b in zip(A[:k], B[:k])]


def data2(x):
    return [a * x * x + b for a, b in zip(B, A)]


STATISTICS = [  # name, f(x), its mpmath version
    ("mean", lambda x: statistics.mean(data(x)), lambda x: mp_mean(data(x))),
    ("fmean", lambda x: statistics.fmean(data(x)), lambda x: mp_mean(data(x))),
    ("fmean_weights", lambda x: statistics.fmean(data(x), weights=[1.0, x, 2.0, x * x, 0.5]),
     lambda x: mpmath.fsum(d * w for d, w in zip(data(x), [1, x, 2, x * x, 0.5]))
     / mpmath.fsum([1, x, 2, x * x, 0.5])),
    ("geometric_mean", lambda x: statistics.geometric_mean([x, 2 * x + 1, 3.0]),
     lambda x: mpmath.cbrt(x * (2 * x + 1) * 3)),
    ("harmonic_mean", lambda x: statistics.harmonic_mean([x, 2 * x + 1, 3.0]),
     lambda x: 3 / (1 / x + 1 / (2 * x + 1) + mpmath.mpf(1) / 3)),
    ("harmonic_mean_weights",
     lambda x: statistics.harmonic_mean([x, 2 * x + 1, 3.0], weights=[x, 1.0, 0.5]),
     lambda x: (x + 1.5) / (1 + 1 / (2 * x + 1) + mpmath.mpf(0.5) / 3)),
    ("median", lambda x: statistics.median(data(x)), lambda x: mp_median(data(x))),
    ("median_even", lambda x: statistics.median(data(x, 4)), lambda x: mp_median(data(x, 4))),
    ("median_low", lambda x: statistics.median_low(data(x, 4)),
     lambda x: sorted(data(x, 4))[1]),
    ("median_high", lambda x: statistics.median_high(data(x, 4)),
     lambda x: sorted(data(x, 4))[2]),
    ("median_grouped", lambda x: statistics.median_grouped(data(x)),
     lambda x: mp_grouped(data(x))),
    ("median_grouped_interval",
     lambda x: statistics.median_grouped([1.0, 2.0, 2.0, 3.0, 2.0, 5.0], x),
     lambda x: mp_grouped([1, 2, 2, 3, 2, 5], x)),
    ("pvariance", lambda x: statistics.pvariance(data(x)), lambda x: mp_ss(data(x)) / 5),
    ("variance", lambda x: statistics.variance(data(x)), lambda x: mp_ss(data(x)) / 4),
    ("pstdev", lambda x: statistics.pstdev(data(x)), lambda x: mpmath.sqrt(mp_ss(data(x)) / 5)),
    ("stdev", lambda x: statistics.stdev(data(x)), lambda x: mpmath.sqrt(mp_ss(data(x)) / 4)),
    ("pvariance_mu", lambda x: statistics.pvariance(data(x), mu=x * x),
     lambda x: mp_ss(data(x), x * x) / 5),
    ("variance_xbar", lambda x: statistics.variance(data(x), x + 1),
     lambda x: mp_ss(data(x), x + 1) / 4),
    ("pstdev_mu", lambda x: statistics.pstdev(data(x), 2 * x),
     lambda x: mpmath.sqrt(mp_ss(data(x), 2 * x) / 5)),
    ("stdev_xbar", lambda x: statistics.stdev(data(x), xbar=0.5),
     lambda x: mpmath.sqrt(mp_ss(data(x), 0.5) / 4)),
    ("quantiles", lambda x: statistics.quantiles(data(x), n=5),
     lambda x: mp_quantiles(data(x), 5)),
    ("quantiles_inclusive", lambda x: statistics.quantiles(data(x), n=6, method="inclusive"),
     lambda x: mp_quantiles(data(x), 6, "inclusive")),
    ("covariance", lambda x: statistics.covariance(data(x), data2(x)),
     lambda x: mp_cov(data(x), data2(x)) / 4),
    ("correlation", lambda x: statistics.correlation(data(x), data2(x)),
     lambda x: mp_cov(data(x), data2(x)) / mpmath.sqrt(mp_ss(data(x)) * mp_ss(data2(x)))),
    ("slope", lambda x: statistics.linear_regression(data(x), data2(x)).slope,
     lambda x: mp_slope(data(x), data2(x))),
    ("intercept", lambda x: statistics.linear_regression(data(x), data2(x)).intercept,
     lambda x: mp_mean(data2(x)) - mp_slope(data(x), data2(x)) * mp_mean(data(x))),
    ("slope_proportional",
     lambda x: statistics.linear_regression(data(x), data2(x), proportional=True).slope,
     lambda x: mp_slope(data(x), data2(x), True)),
]
covers(statistics.mean, statistics.fmean, statistics.geometric_mean, statistics.harmonic_mean,
       statistics.median, statistics.median_low, statistics.median_high,
       statistics.median_grouped, statistics.pvariance, statistics.variance, statistics.pstdev,
       statistics.stdev, statistics.quantiles, statistics.covariance, statistics.correlation,
       statistics.linear_regression, statistics_rules.mean, statistics_rules.fmean,
       statistics_rules.fmean_weighted, statistics_rules.geometric_mean,
       statistics_rules.harmonic_mean, statistics_rules.harmonic_mean_weighted,
       statistics_rules.median_grouped, statistics_rules.spread, statistics_rules.covariance,
       statistics_rules.correlation, statistics_rules.slope, statistics_rules.intercept,
       statistics_rules.median_at, statistics_rules.median_low_at,
       statistics_rules.median_high_at, statistics_rules.quantiles_at,
       statistics_rules._grouping)


def _check_statistic(f, fm, x):
    got = ad.D(f, x)
    if isinstance(got, list):
        want = [diff(lambda x: fm(x)[i], x) for i in range(len(got))]
        assert len(got) == len(fm(x)) and all(close(g, w) for g, w in zip(got, want)), (got, want)
    else:
        assert close(got, diff(fm, x)), (got, x)


def _distinct(x, gap=1e-3):
    values = sorted(data(x)) + [sorted(data(x, 4))[0]]
    return all(b - a > gap for a, b in zip(values, values[1:-1])) and x > 0.05


@pytest.mark.parametrize("name, f, fm", STATISTICS, ids=[c[0] for c in STATISTICS])
def test_statistics_points(name, f, fm):
    for x in (0.3, 1.7, 2.9):
        assert _distinct(x)
        _check_statistic(f, fm, x)


@pytest.mark.parametrize("name, f, fm", STATISTICS, ids=[c[0] for c in STATISTICS])
@hyp(6)
@given(st.floats(0.06, 6))
def test_statistics_property(name, f, fm, x):
    assume(_distinct(x))
    _check_statistic(f, fm, x)


def test_statistics_values_are_the_functions_own():
    x = 0.1
    for name, f, _ in STATISTICS:
        value, _ = ad.jvp(f, [x], [1.0])
        assert value == f(x) and type(value) is type(f(x)), name
    value, tangent = ad.jvp(lambda x: statistics.linear_regression(data(x), data2(x)), [x], [1.0])
    assert type(value) is statistics.LinearRegression and value == statistics.linear_regression(
        data(x), data2(x))
    assert type(tangent) is statistics.LinearRegression
    # exact sums: the value keeps statistics' own rounding
    big = lambda x: statistics.mean([1e20, x, -1e20, 3.0])  # noqa: E731
    assert ad.jvp(big, [1.0], [1.0]) == (1.0, 0.25)


def test_statistics_ties_follow_the_sort():
    # x, 2x and 2.0 tie at x = 1: the sort keeps their order, and median_low of four
    # takes the second of the sorted elements
    assert ad.D(lambda x: statistics.median_low([x, 2.0, 5.0, 2 * x]), 2.0) == 0  # 2.0 first
    assert ad.D(lambda x: statistics.median_low([x, 2 * x, 5.0, 2.0]), 1.0) == 2  # 2x first
    assert ad.D(lambda x: statistics.median_high([2.0, 2 * x, 5.0, x]), 1.0) == 2
    assert ad.D(lambda x: statistics.median([3 * x, 3.0, 9.0]), 1.0) == 0  # 3x sorts first
    assert ad.D(lambda x: statistics.median([3.0, 3 * x, 9.0]), 1.0) == 3  # 3x is the middle one
    assert ad.D(lambda x: statistics.median([3.0, 3 * x, 0.0]), 1.0) == 0
    assert ad.D(lambda x: statistics.median([3 * x, 3.0, 0.0]), 1.0) == 3
    assert ad.D(lambda x: statistics.median([x, 2 * x, 4.0, 4.0]), 2.0) == 1  # (2x + 4) / 2
    assert ad.D(lambda x: statistics.quantiles([x, 1.0, 1.0, 3.0], n=2), 1.0) == [0]
    assert ad.D(lambda x: statistics.quantiles([1.0, x, 1.0, 3.0], n=2), 1.0) == [0.5]


def test_statistics_mode():
    covers(statistics.mode, statistics.multimode, statistics_rules.mode_at,
           statistics_rules.multimode_at)
    assert ad.D(lambda x: statistics.mode([x, 2.0, 5.0, 3 * x]), 1.5) == 1
    assert ad.D(lambda x: statistics.mode([2.0, x, 3 * x, x]), 1.5) == 1  # x twice
    assert ad.D(lambda x: statistics.mode([2.0, 3.0, 3 * x]), 1.0) == 0  # 3.0 comes first
    assert ad.D(lambda x: statistics.mode([2.0, 3 * x, 3.0]), 1.0) == 3  # the first one
    assert ad.D(lambda x: statistics.mode([2.0, 3.0, 3 * x, 7 * x]), 1.0) == 0
    assert ad.D(lambda x: statistics.multimode(iter([x, 3.0, x, 3.0, 5.0])), 2.0) == [1, 0]
    assert ad.D(lambda x: statistics.multimode([3.0, 2 * x, 1.5 * x, 1.5 * x]), 2.0) == [0]
    assert ad.D(lambda x: statistics.multimode([3.0, 2 * x, 1.5 * x, 1.5 * x]), 4.0) == [1.5]
    assert ad.D(lambda x: statistics.multimode([x, 2.0]), 1.5) == [1, 0]
    assert ad.D(lambda x: x * len(statistics.multimode(["a", "b", "a"])), 1.5) == 1
    assert ad.D(lambda x: x * (statistics.mode("abca") == "a"), 1.5) == 1


def test_statistics_other_data():
    assert ad.D(lambda x: statistics.mean(x * Fraction(i, 3) for i in range(4)),
                Fraction(1)) == Fraction(1, 2)
    assert ad.D(lambda x: statistics.median(iter([x, 4.0, 1.0])), 2.0) == 1
    assert ad.D(lambda x: statistics.median([3 * x, 1, 5]), 1) == 3
    assert ad.D(lambda x: statistics.median_low([x, 2, 5, 2 * x]), 2) == 0  # small ints too
    assert ad.D(lambda x: statistics.median_low([2 * x, 2, 5, x]), 1) == 2
    assert ad.D(lambda x: statistics.harmonic_mean([x, 2.0]), 0.0) == 2  # one-sided
    assert ad.D(lambda x: statistics.harmonic_mean([x]), 0.0) == 1
    assert ad.D(lambda x: statistics.stdev([x, x, x]), 1.0) == 0
    assert ad.D(lambda x: statistics.fmean([x, 1.0], [2.0, 0.0]), 3.0) == 1


def test_statistics_nested():
    f = lambda x: statistics.stdev([x, x * x, 1.0])  # noqa: E731
    fm = lambda x: mpmath.sqrt(mp_ss([x, x * x, 1]) / 2)  # noqa: E731
    assert close(ad.D(ad.D(f), 1.7), diff(fm, 1.7, 2))
    g = lambda x: statistics.correlation(data(x), data2(x))  # noqa: E731
    gm = lambda x: (mp_cov(data(x), data2(x))  # noqa: E731
                    / mpmath.sqrt(mp_ss(data(x)) * mp_ss(data2(x))))
    assert close(ad.D(ad.D(g), 1.3), diff(gm, 1.3, 2))
    h = lambda x: statistics.median([x * x, 2.0, 3 * x])  # noqa: E731
    assert ad.D(ad.D(h), 1.0) == 0  # 2.0 is the median at x = 1.0 (1, 2, 3)
    assert ad.D(ad.D(h), 1.6) == 2  # x*x is (2.56 of 2, 2.56, 4.8)


# ---------------------------------------------------------------------------
# mpmath

MPMATH_UNARY = [  # function, points (its own derivative from mpmath.diff)
    (mpmath.sqrt, [0.3, 5.0]), (mpmath.cbrt, [0.3, 5.0]), (mpmath.exp, [0.3, -2.0]),
    (mpmath.expm1, [1e-9, 0.3]), (mpmath.expj, [0.3]), (mpmath.expjpi, [0.3]),
    (mpmath.ln, [0.3, 5.0]), (mpmath.log, [0.3, 5.0]), (mpmath.log10, [0.3, 5.0]),
    (mpmath.log1p, [1e-9, 0.3]), (mpmath.sin, [0.3, -2.0]), (mpmath.cos, [0.3, -2.0]),
    (mpmath.tan, [0.3, -1.2]), (mpmath.sec, [0.3, 2.0]), (mpmath.csc, [0.3, 2.0]),
    (mpmath.cot, [0.3, 2.0]), (mpmath.sinpi, [0.3]), (mpmath.cospi, [0.3]),
    (mpmath.asin, [0.3, -0.9]), (mpmath.acos, [0.3, -0.9]), (mpmath.atan, [0.3, -5.0]),
    (mpmath.acot, [0.3, -5.0]), (mpmath.sinh, [0.3, -2.0]), (mpmath.cosh, [0.3, -2.0]),
    (mpmath.tanh, [0.3, -2.0]), (mpmath.sech, [0.3]), (mpmath.csch, [0.3]),
    (mpmath.coth, [0.3]), (mpmath.asinh, [0.3, -5.0]), (mpmath.acosh, [1.5, 5.0]),
    (mpmath.atanh, [0.3, -0.9]), (mpmath.acoth, [1.5, -3.0]), (mpmath.degrees, [0.3]),
    (mpmath.radians, [0.3]), (mpmath.gamma, [0.3, 4.5, -1.5]), (mpmath.rgamma, [0.3, -1.5]),
    (mpmath.factorial, [0.3, 4.5]), (mpmath.loggamma, [0.3, 4.5]), (mpmath.digamma, [0.3, 4.5]),
    (mpmath.erf, [0.3, -2.0]), (mpmath.erfc, [0.3, -2.0]), (mpmath.lambertw, [0.3, 5.0]),
    (mpmath.fabs, [0.3, -2.0]), (mpmath.frac, [0.3, 2.5]), (mpmath.re, [0.3]),
    (mpmath.im, [0.3]), (mpmath.conj, [0.3]), (mpmath.arg, [0.3]), (mpmath.fneg, [0.3]),
]
covers(*(f for f, _ in MPMATH_UNARY))


@pytest.mark.parametrize("f, points", MPMATH_UNARY, ids=_name)
def test_mpmath_unary(f, points):
    for x in points:
        d = ad.D(f, mpmath.mpf(x))
        assert type(d) in (mpmath.mpf, mpmath.mpc), type(d)
        assert close(d, diff(f, x)), (f, x)


NOT_HOLOMORPHIC = (mpmath.re, mpmath.im, mpmath.conj, mpmath.fabs, mpmath.arg, mpmath.frac,
                   mpmath.degrees, mpmath.radians, mpmath.fneg)  # or real only


@pytest.mark.parametrize("f", [f for f, _ in MPMATH_UNARY if f not in NOT_HOLOMORPHIC],
                         ids=lambda f: f.__name__)
def test_mpmath_complex_points(f):
    z = mpmath.mpc(0.3, 0.4)
    d = ad.D(f, z)
    assert type(d) is mpmath.mpc and close(d, diff(f, z)), f


@pytest.mark.parametrize("f", [mpmath.sin, mpmath.exp, mpmath.atan, mpmath.erf, mpmath.gamma,
                               mpmath.sqrt, mpmath.log1p, mpmath.tanh])
@hyp(6)
@given(st.floats(0.01, 3))
def test_mpmath_property(f, x):
    assert close(ad.D(f, mpmath.mpf(x)), diff(f, x)), (f, x)


def test_mpmath_complex_parts():
    z = mpmath.mpc(0.6, -0.8)
    assert ad.D(mpmath.re, z) == 1 and ad.D(mpmath.im, z) == 0
    assert ad.D(lambda y: mpmath.im(mpmath.mpc(0.6, y)), -0.8) == 1
    assert ad.D(lambda y: mpmath.conj(mpmath.mpc(0.6, y)), -0.8) == -1j
    assert close(ad.D(mpmath.arg, z), diff(lambda t: mpmath.arg(z + t), 0))
    assert close(ad.D(mpmath.fabs, z), diff(lambda t: abs(z + t), 0))
    assert close(ad.D(mpmath.sign, z), diff(lambda t: mpmath.sign(z + t), 0))
    assert ad.D(mpmath.arg, mpmath.mpf(0)) == 0
    assert ad.D(mpmath.fabs, mpmath.mpf(0)) == 1


MPMATH_BINARY = [  # f(x, y), points
    (mpmath.power, [(0.3, 2.5), (2.0, -1.5)]), (mpmath.log, [(0.3, 2.0), (50.0, 10.0)]),
    (mpmath.atan2, [(0.3, 2.0), (-1.0, -0.5)]), (mpmath.hypot, [(0.3, 2.0), (-3.0, 4.0)]),
    (mpmath.beta, [(0.3, 2.0), (1.5, 4.5)]), (mpmath.fadd, [(0.3, 2.0)]),
    (mpmath.fsub, [(0.3, 2.0)]), (mpmath.fmul, [(0.3, 2.0)]), (mpmath.fdiv, [(0.3, 2.0)]),
]
covers(*(f for f, _ in MPMATH_BINARY))


@pytest.mark.parametrize("f, points", MPMATH_BINARY, ids=_name)
def test_mpmath_binary(f, points):
    for xs in points:
        grad = ad.gradient(lambda v: f(*v), [mpmath.mpf(x) for x in xs])
        for i in range(2):
            assert close(grad[i], partial(f, xs, i)), (f, xs, i)


def test_mpmath_other_lines():
    covers(mpmath.root, mpmath.ldexp, mpmath.psi, mpmath.polylog, mpmath.sign, mpmath.fsum,
           mpmath.fprod, mpmath_rules._fsum, mpmath_rules._fprod, mpmath.floor, mpmath.ceil,
           mpmath.nint, mpmath.isnan, mpmath.isinf, mpmath.isint, mpmath.isfinite,
           mpmath.isnormal, mpmath.almosteq, mpmath.mag)
    x = mpmath.mpf("0.37")
    for n in (2, 3, 5):
        assert close(ad.D(lambda x: mpmath.root(x, n), x), diff(lambda x: mpmath.root(x, n), x))
    assert ad.D(lambda x: mpmath.root(x, 3), mpmath.mpf(0)) == mpmath.inf
    assert ad.D(lambda x: mpmath.nthroot(x, 3), mpmath.mpf(8)) == mpmath.mpf(1) / 12
    assert ad.D(lambda x: mpmath.ldexp(x, 3), x) == 8
    assert close(ad.D(lambda x: mpmath.psi(2, x), x), diff(lambda x: mpmath.psi(2, x), x))
    assert close(ad.D(lambda x: mpmath.polylog(2, x), x), diff(lambda x: mpmath.polylog(2, x), x))
    assert ad.D(lambda x: mpmath.polylog(3, x), mpmath.mpf(0)) == 1
    with pytest.raises(ad.NonDifferentiableError):
        ad.D(lambda s: mpmath.polylog(s, 0.5), mpmath.mpf(2))
    assert ad.D(mpmath.sign, x) == 0 and ad.D(mpmath.sign, -x) == 0
    f = lambda x: mpmath.fsum([x, x * x, 2, mpmath.mpc(0, 1) * x])  # noqa: E731
    assert close(ad.D(f, x), diff(f, x))
    for flags in ({"absolute": True}, {"squared": True}, {"absolute": True, "squared": True}):
        g = lambda x: mpmath.fsum([x, -x * x, 2, mpmath.mpc(x, 1)], **flags)  # noqa: E731
        assert close(ad.D(g, x), diff(g, x)), flags
    f = lambda x: mpmath.fprod([x, x * x, 3, x + 1])  # noqa: E731
    assert close(ad.D(f, x), diff(f, x))
    assert ad.D(lambda x: mpmath.fprod([x, 0, x]), x) == 0
    assert ad.D(lambda x: mpmath.floor(x) + mpmath.ceil(x) + mpmath.nint(x) + x, x) == 1
    assert ad.D(lambda x: mpmath.isnan(x) + mpmath.isinf(x) + mpmath.isint(x)
                + mpmath.isfinite(x) + mpmath.isnormal(x) + mpmath.almosteq(x, 1)
                + mpmath.mag(x) + x, x) == 1
    assert close(ad.D(mpmath.rgamma, mpmath.mpf(-2)), diff(mpmath.rgamma, -2))
    assert ad.D(lambda x: mpmath.mp.sin(x), x) == mpmath.cos(x)  # the same line


def test_mpmath_arithmetic():
    x = mpmath.mpf("0.37")
    f = lambda x: (3 * x ** 2 - x / mpmath.mpf(7) + x ** mpmath.mpf("2.5")) % 5  # noqa: E731
    d = ad.D(f, x)
    assert type(d) is mpmath.mpf and close(d, diff(f, x))
    g = lambda x: abs(mpmath.mpc(x, 2) ** 2) - mpmath.im(mpmath.mpc(1, x))  # noqa: E731
    assert close(ad.D(g, x), diff(g, x))


def test_mpc_attributes():
    covers(mpmath.mpf.real.fget, mpmath.mpf.imag.fget, mpmath.mpc.real.fget,
           mpmath.mpc.imag.fget)
    x = mpmath.mpf("0.37")
    assert ad.D(lambda x: x.real * x + x.imag, x) == 2 * x
    assert ad.D(lambda x: mpmath.mpc(1, x).imag + mpmath.mpc(x, 1).real, x) == 2


def test_mpmath_other_context_runs_its_own_code():
    assert mpmath.fp.sin(0.5) == math.sin(0.5)
    assert close(ad.D(lambda x: mpmath.fp.power(2.0, 3.0) * x, 0.5), 8)
    assert close(ad.D(lambda x: mpmath.fp.fsum([1.0, 2.0]) * x, 0.5), 3)


# ---------------------------------------------------------------------------
# nested: second derivatives through the rules

NESTED = [
    (math.sin, mpmath.sin, 0.7), (math.tan, mpmath.tan, 0.7), (math.exp, mpmath.exp, 0.7),
    (math.log, mpmath.ln, 0.7), (math.sqrt, mpmath.sqrt, 0.7), (math.atan, mpmath.atan, 0.7),
    (math.asin, mpmath.asin, 0.7), (math.erf, mpmath.erf, 0.7), (math.gamma, mpmath.gamma, 0.7),
    (math.lgamma, mpmath.loggamma, 0.7), (math.cbrt, mpmath.cbrt, 0.7),
    (math.acosh, mpmath.acosh, 1.7), (math.log1p, mpmath.log1p, 0.7),
    (lambda x: math.hypot(x, 2.0), lambda x: mpmath.hypot(x, 2), 0.7),
    (lambda x: math.atan2(x, 2.0), lambda x: mpmath.atan2(x, 2), 0.7),
    (lambda x: x ** 2.5 / (1 + x), lambda x: x ** 2.5 / (1 + x), 0.7),
    (lambda x: 2.0 ** x, lambda x: mpmath.power(2, x), 0.7),
    (lambda x: math.fsum([x * x, math.sin(x)]), lambda x: x * x + mpmath.sin(x), 0.7),
    (lambda x: abs(cmath.exp(1j * x * x)), lambda x: abs(mpmath.exp(1j * x * x)), 0.7),
    (lambda x: cmath.sqrt(x).real, lambda x: mpmath.sqrt(x), 0.7),
    (mpmath.erf, mpmath.erf, 0.7), (mpmath.gamma, mpmath.gamma, 0.7),
    (mpmath.lambertw, mpmath.lambertw, 0.7), (mpmath.digamma, mpmath.digamma, 0.7),
    (lambda x: mpmath.power(x, x), lambda x: mpmath.power(x, x), 0.7),
]


@pytest.mark.parametrize("f, fm, x", NESTED)
def test_second_derivatives(f, fm, x):
    point = mpmath.mpf(x) if f is fm else x
    assert close(ad.D(ad.D(f), point), diff(fm, x, 2)), f


def test_third_derivative():
    assert close(ad.D(ad.D(ad.D(math.sin)), 0.7), -math.cos(0.7))


# ---------------------------------------------------------------------------
# every line of every table is exercised above

def test_every_rule_is_covered():
    # numpy's tables, loaded when a test first uses numpy, are covered by
    # tests/test_ad_numpy_table.py and tests/test_ad_numpy_rules.py
    numpy_rules = {id(rule) for key, rule in RULES.items() if is_array_function(key)}
    missing = {key for key, rule in RULES.items()  # (`@` has numpy's `matmul` rule)
               if type(rule) is not User and id(rule) not in numpy_rules} - COVERED
    assert not missing, sorted(map(repr, missing))
