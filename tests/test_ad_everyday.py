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

import decimal
import enum
import math
import operator
import weakref
from collections import deque
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ad
from ad import D, gradient, hessian
from contexts import Context, overdub
from tagging import enabletagging, metadata, tag, untag


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


# ---------------------------------------------------------------------------
# containers built by operators: the elements keep their tangents

def _iadd(x):
    xs = [1, x]
    xs += [x * x]
    return xs[0] + xs[1] * xs[2]


def _product_by_concatenation(x):  # itertools.product, written out as its docs do
    pools = ([x, 2], [x * x, 1])
    result = [[]]
    for pool in pools:
        result = [r + [y] for r in result for y in pool]
    return sum(a * b for a, b in result)


def _rotate(x):  # np.roll in lists
    v = [x, 3, x * x]
    w = v[1:] + v[:1]
    return w[0] * w[1] + w[2] * w[2]


def _tuples(x):
    t = (x,) + (x * x,)
    t += (3,)
    return t[0] * t[1] * t[2]


def _set_union(x):
    return sum({x} | {1000}) * x + sum({x * x} - {7})


def _dict_union(x):
    d = {"a": x} | {"b": x * x}
    d |= {"c": 2}
    return d["a"] * d["b"] * d["c"]


def _repeated(x):
    return sum([x] * 3) + sum((x * x,) * 2) + sum(2 * [x])


def _deques(x):
    d = deque([x]) + deque([x * x])
    d += [3 * x]
    return d[0] + d[1] * d[2] + sum(deque([x]) * 2)


CONTAINER_CASES = [  # (f, the same function without the containers)
    (lambda x: sum([x] + [2]) * x, lambda x: (x + 2) * x),
    (_iadd, lambda x: 1 + x * (x * x)),
    (_product_by_concatenation, lambda x: (x + 2) * (x * x + 1)),
    (_rotate, lambda x: 3 * (x * x) + x * x),
    (_tuples, lambda x: x * (x * x) * 3),
    (_set_union, lambda x: (x + 1000) * x + x * x),
    (_dict_union, lambda x: x * (x * x) * 2),
    (_repeated, lambda x: 3 * x + 2 * (x * x) + 2 * x),
    (_deques, lambda x: x + (x * x) * (3 * x) + 2 * x),
]


@pytest.mark.parametrize("f, plain", CONTAINER_CASES)
@pytest.mark.parametrize("point", [5, 5.0, -1.5])
def test_containers_built_by_operators_keep_tangents(f, plain, point):
    assert f(point) == plain(point)
    assert D(f, point) == D(plain, point)
    assert d2(f, point) == d2(plain, point)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CONTAINER_CASES), st.fractions(-20, 20, max_denominator=50))
def test_containers_against_an_exact_central_difference(case, x):
    """The first derivative at a Fraction point against an exact central
    difference of the plain function, which is a polynomial of degree at most
    3 (so the difference is exact up to h**2 * f'''/6, and f''' is constant)."""
    f, plain = case
    h = Fraction(1, 10 ** 6)
    central = (plain(x + h) - plain(x - h)) / (2 * h)
    third = D(D(D(plain)))(x)
    assert D(f, x) == central - h * h * third / 6


def test_gradient_of_a_sum_of_slices():
    assert gradient(lambda v: sum(v[:1] + v[1:]) * v[0], [3.0, 2.0]) == [8.0, 3.0]
    assert gradient(lambda v: sum(v[1:] + v[:1]), [1, 2, 3]) == [1, 1, 1]
    assert hessian(lambda v: sum(v[:1] + v[1:]) ** 2, [1.0, 2.0]) == [[2.0, 2.0], [2.0, 2.0]]


def test_three_nested_derivatives_through_concatenation():
    f = lambda x: D(lambda y: D(lambda z: sum([x * y * z] * 2 + [z * z]), 1.0), 2.0)  # noqa: E731
    assert D(f, 3.0) == 2.0
    assert D(lambda x: D(lambda y: sum([x * y] + [y * y]), 1.0), 5) == 1


def test_a_deque_with_a_maxlen_is_refused_not_wrong():
    def f(x):
        d = deque([x, x * x], maxlen=2) + deque([3.0])
        return d[0]
    with pytest.raises(ad.NonDifferentiableError) as error:
        D(f, 3.0)
    message = str(error.value)
    assert "operator.add (called at " in message and "test_ad_everyday.py" in message
    assert "built a collections.deque" in message and "runs in C" not in message


# ---------------------------------------------------------------------------
# text: formatting and repetition run on the plain values

def test_percent_formatting_runs_on_the_plain_value(capsys):
    def f(x):
        print("x=%.3f" % x, "%d|%s" % (3, x * x))
        return x * x + len("%.3f" % x)
    assert D(f, 3.0) == 6.0
    assert capsys.readouterr().out == "x=3.000 3|9.0\n"
    d = D(f, 3)
    assert d == 6 and type(d) is int
    assert capsys.readouterr().out == "x=3.000 3|9\n"


def test_text_carries_no_derivative():
    assert D(lambda x: float("%.17g" % x) * x, 3.0) == 3.0  # text: a constant
    assert D(lambda x: len("-" * x) + x * x, 3) == 6
    assert D(lambda n: len(n * "ab") * 1.0 + n, 4) == 1
    with pytest.raises(TypeError, match="can't multiply sequence by non-int"):
        D(lambda x: "-" * x, 3.0)


# ---------------------------------------------------------------------------
# three-argument pow is modular arithmetic: derivative 0

def test_three_argument_pow():
    assert D(lambda x: pow(x, 2, 5), 3) == 0
    assert D(lambda x: pow(x, 2, 5) + x * x, 3) == 6
    assert D(lambda n: pow(2, n, 7) + pow(3, 2, n) + n, 3) == 1
    assert D(lambda x: pow(x, 2, mod=5) + x, 3) == 1
    with pytest.raises(TypeError, match="3rd argument not allowed"):
        D(lambda x: pow(x, 2, 5), 3.0)
    assert D(lambda x: pow(x, 3) + pow(base=x, exp=2), 2) == 16


def test_keywords_that_name_positional_parameters_reach_the_rule():
    assert D(lambda x: Fraction(x, denominator=2), Fraction(3)) == Fraction(1, 2)
    assert D(lambda x: Fraction(numerator=x, denominator=4) * x, Fraction(1)) == Fraction(1, 2)
    assert D(lambda x: round(x, ndigits=1) + x, 2.25) == 1.0


# ---------------------------------------------------------------------------
# a user class's operators run in the context, whichever side the value is on

class Unit:
    """pint's way: `v * meter` reaches `Unit.__rmul__`."""

    def __init__(self, scale):
        self.scale = scale

    def __rmul__(self, other):
        return other * self.scale

    def __mul__(self, other):
        return other * self.scale * 10

    def __radd__(self, other):
        return other * other

    def __rsub__(self, other):
        return 2 * other - self.scale

    def __rtruediv__(self, other):
        return self.scale / other

    def __rpow__(self, other):
        return other ** 3

    def __rmod__(self, other):
        return other * 5


REFLECTED_CASES = [  # (f, the same arithmetic written out)
    (lambda x: x * Unit(3.0), lambda x: x * 3.0),
    (lambda x: Unit(3.0) * x, lambda x: x * 3.0 * 10),
    (lambda x: x + Unit(3.0), lambda x: x * x),
    (lambda x: x - Unit(3.0), lambda x: 2 * x - 3.0),
    (lambda x: x / Unit(3.0), lambda x: 3.0 / x),
    (lambda x: x ** Unit(3.0), lambda x: x ** 3),
    (lambda x: x % Unit(3.0), lambda x: x * 5),
    (lambda x: (x * x) * Unit(2.0) + x * Unit(1.0), lambda x: (x * x) * 2.0 + x),
]


@pytest.mark.parametrize("f, plain", REFLECTED_CASES)
@pytest.mark.parametrize("point", [2, 2.0, Fraction(1, 3)])
def test_reflected_and_forward_user_operators(f, plain, point):
    if isinstance(point, Fraction) and f is REFLECTED_CASES[5][0] and \
            Fraction.__pow__(point, Unit(3.0)) is not NotImplemented:
        # before 3.13, Fraction.__pow__ answers itself with `float(x) ** u`, run in
        # the context (it was run natively, dropping the derivative, and refused)
        plain = lambda x: float(x) ** 3  # noqa: E731
    assert D(f, point) == D(plain, point)
    assert d2(f, point) == d2(plain, point)


def test_reflected_operators_nested():
    f = lambda x: D(lambda y: (x * y) * Unit(3.0) + (x * y) ** Unit(0.0), 2.0)  # noqa: E731
    g = lambda x: D(lambda y: (x * y) * 3.0 + (x * y) ** 3, 2.0)  # noqa: E731
    assert D(f, 3.0) == D(g, 3.0)


def test_a_float_subclass_with_its_own_reflected_method_goes_first():
    class Meters(float):
        def __rmul__(self, other):
            return other * float(self) * 10

    assert D(lambda x: x * Meters(2.0), 3.0) == 20.0
    assert D(lambda x: x * Meters(2.0), 3) == 20.0


def test_an_int_subclass_with_python_operators_times_a_float_is_refused():
    """CPython answers `3.0 * Seven(2)` with float's own method (6.0): the
    subclass's `__rmul__` never runs, and that native answer would drop the
    derivative, so it raises."""
    class Seven(int):
        def __rmul__(self, other):
            return other * 7

    assert D(lambda x: x * Seven(2), 3) == 7  # an int point: Seven.__rmul__ goes first
    with pytest.raises(TypeError, match="float.__mul__ of 3.0 .* make the Seven a plain"):
        D(lambda x: x * Seven(2), 3.0)


class Exponent:
    """A user exponent: `b ** Exponent(s)` is `b ** s`; raised, it takes an int power."""

    def __init__(self, s):
        self.s = s

    def __rpow__(self, base):
        return base ** self.s

    def __pow__(self, power):
        return self.s ** power if type(power) is int else NotImplemented


def fraction_to_a_user_power(s):
    """Before 3.13, `Fraction.__pow__` answers any exponent with `float(a) ** b`,
    which calls `Exponent.__rpow__`: run natively, it computed on the plain `s`."""
    return Fraction(1, 3) ** Exponent(s)


def user_base_to_a_fraction(s):
    """`Exponent.__pow__` declines a Fraction; `Fraction.__rpow__` then asks it for
    `a ** 2`, the int power, which it answers."""
    return Exponent(s) ** Fraction(2)


# The base `Exponent.__rpow__` is given: from 3.13, `Fraction.__pow__` declines, and
# the Fraction itself is; before, its float.
_BASE = Fraction(1, 3) if Fraction.__pow__(Fraction(1, 3), Exponent(1)) is NotImplemented \
    else float(Fraction(1, 3))

FRACTION_POWERS = [  # (f, the same arithmetic written out)
    (fraction_to_a_user_power, lambda s: _BASE ** s),
    (user_base_to_a_fraction, lambda s: s ** 2),
]


@pytest.mark.parametrize("f, plain", FRACTION_POWERS)
@pytest.mark.parametrize("point", [2, 2.0])
def test_fractions_own_operators_call_the_users_methods_in_the_context(f, plain, point):
    assert_as_plain_arithmetic(f, plain, point)


def test_a_fraction_to_a_power_that_no_method_answers_raises_pythons_error():
    class Opaque:
        pass

    with pytest.raises(TypeError) as plain:
        Fraction(1, 3) ** Opaque()
    for point in (Fraction(1, 3), 2.0):
        with pytest.raises(TypeError) as error:
            D(lambda x: Fraction(1, 3) ** Opaque() * x, point)
        assert str(error.value) == str(plain.value)
        with pytest.raises(TypeError) as error:
            D(lambda x: x ** Opaque(), Fraction(1, 3))
        assert str(error.value) == str(plain.value)


def test_an_unanswered_operator_raises_pythons_error():
    class Opaque:
        pass

    class Declines:
        def __rmul__(self, other):
            return NotImplemented

    with pytest.raises(TypeError, match="unsupported operand"):
        D(lambda x: x * Opaque(), 2.0)
    with pytest.raises(TypeError) as error:  # the types the user sees, as without D
        D(lambda x: x * Declines(), 2.0)
    assert str(error.value) == "unsupported operand type(s) for *: 'float' and 'Declines'"


class Labels(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str


def test_reflected_operator_in_a_plain_tagging_context():
    seen = []

    class Spy:
        def __rmul__(self, other):
            seen.append(metadata(other, ctx))
            return untag(other, ctx) * 3.0

    def f(x):
        return x * Spy()

    ctx = enabletagging(Labels(), f)
    assert overdub(ctx, f, tag(1.5, ctx, "input")) == 4.5
    assert seen == ["input"]


def test_deques_keep_metadata_in_a_plain_tagging_context():
    for f in (lambda x: (deque([2.0]) + deque([x]))[1], lambda x: (deque([x]) * 2)[1]):
        ctx = enabletagging(Labels(), f)
        assert metadata(overdub(ctx, f, tag(1.5, ctx, "input")), ctx) == "input"


# ---------------------------------------------------------------------------
# numbers of other types used as constants

class Color(enum.IntEnum):
    RED = 2


class Meters(float):
    pass


class Half(Fraction):
    pass


@pytest.mark.parametrize("point", [3, 3.0, -1.5])
def test_number_subclasses_are_constants(point):
    assert D(lambda x: x * Color.RED + Color.RED * x, point) == 4
    assert D(lambda x: x ** Color.RED + Color.RED ** x, point) == \
        D(lambda x: x ** 2 + 2 ** x, point)
    assert D(lambda x: x * Meters(2.0) + Meters(2.0) / x, point) == \
        D(lambda x: x * 2.0 + 2.0 / x, point)
    assert D(lambda x: math.atan2(x, Meters(2.0)), point) == D(lambda x: math.atan2(x, 2.0), point)
    d = D(lambda x: x * Color.RED, 3)
    assert d == 2 and type(d) is int


def test_a_float_subclass_with_some_python_operators_is_a_constant_for_the_others():
    class Offset(float):
        def __add__(self, other):
            return float(self) + other * 100

    for point in (3, 3.0):
        assert D(lambda x: x * Offset(2.0) + Offset(2.0) * x, point) == 4
        assert D(lambda x: x + Offset(2.0), point) == 1  # float's own + answers first
        assert D(lambda x: Offset(2.0) + x, point) == 100  # Offset.__add__, in the context


def test_a_fraction_subclass_runs_fractions_python_operators():
    """Fraction's operators are Python, and each has its operator's rule (its value
    is the operator's own): a subclass's arithmetic is differentiated at every point."""
    for point in (3.0, 3, Fraction(3)):
        assert D(lambda x: x * Half(1, 2), point) == 0.5
    assert D(lambda x: Half(2, 3) / x, Fraction(4, 9)) == Fraction(-27, 8)
    assert D(lambda x: x * Half(2, 3) + x, 3) == Fraction(5, 3)


def test_decimal_constants_are_refused_clearly():
    with pytest.raises(ad.NonDifferentiableError) as error:
        D(lambda x: x * decimal.Decimal(2), 3)
    message = str(error.value)
    assert "decimal.Decimal" in message and "test_ad_everyday.py" in message
    assert "float(c)" in message and "Tagged" not in message
    with pytest.raises(TypeError, match="unsupported operand"):  # as without D
        D(lambda x: x * decimal.Decimal(2), 3.0)


def test_numpy_scalars_are_numbers_that_keep_their_type():
    # (refused before numpy support; now a number like Python's)
    numpy = pytest.importorskip("numpy")
    derivative = D(lambda x: x * numpy.float64(2.0), 3.0)
    assert derivative == 2.0 and type(derivative) is numpy.float64
    assert D(lambda x: x * float(numpy.float64(2.0)), 3.0) == 2.0


# ---------------------------------------------------------------------------
# builtins that call a user class's method run it in the context

class Wrapped:
    def __init__(self, v):
        self.v = v

    def __abs__(self):
        return self.v * self.v

    def __complex__(self):
        return complex(self.v * 2, self.v)

    def __pow__(self, n, mod=None):
        return self.v ** n

    def __rpow__(self, base):
        return base ** self.v

    def __round__(self, digits=None):
        return self.v * 3

    def __floor__(self):
        return self.v * 4

    def __ceil__(self):
        return self.v * 5

    def __trunc__(self):
        return self.v * 6


DUNDER_CASES = [  # (f, what the method computes)
    (lambda x: abs(Wrapped(x)), lambda x: x * x),
    (lambda x: operator.abs(Wrapped(x)), lambda x: x * x),
    (lambda x: pow(Wrapped(x), 3), lambda x: x ** 3),
    (lambda x: pow(2, Wrapped(x)), lambda x: 2 ** x),
    (lambda x: round(Wrapped(x)) + round(Wrapped(x), 2), lambda x: x * 6),
    (lambda x: math.floor(Wrapped(x)) + math.ceil(Wrapped(x)) + math.trunc(Wrapped(x)),
     lambda x: x * 15),
]


@pytest.mark.parametrize("f, plain", DUNDER_CASES)
@pytest.mark.parametrize("point", [3, 3.0])
def test_builtins_run_the_users_method(f, plain, point):
    assert_as_plain_arithmetic(f, plain, point)


def assert_as_plain_arithmetic(f, plain, point):
    """`f` (through a user's methods) gives what `plain` (the same arithmetic written
    out) gives: its value, and its first and second derivatives."""
    assert f(point) == plain(point)
    assert D(f, point) == D(plain, point)
    assert d2(f, point) == d2(plain, point)


def test_complex_of_a_user_object():
    assert D(lambda x: complex(Wrapped(x)), 3.0) == complex(2, 1)
    assert D(lambda x: pow(Wrapped(x), 2, 5), 3) == 6  # the user's __pow__ ignores mod

    class Bad:
        def __complex__(self):
            return 1.0

    with pytest.raises(TypeError, match="__complex__ returned non-complex"):
        D(lambda x: complex(Bad()) * x, 3.0)


def test_user_methods_under_nested_derivatives():
    inner = lambda x: D(lambda y: abs(Wrapped(x * y)) + round(Wrapped(x * y)), 1.0)  # noqa: E731
    written_out = lambda x: D(lambda y: (x * y) ** 2 + 3 * (x * y), 1.0)  # noqa: E731
    assert D(inner, 2.0) == D(written_out, 2.0) == 11.0
    assert hessian(lambda v: v[0] * Unit(3.0) + abs(Wrapped(v[1])) * v[0], [1.0, 2.0]) == \
        [[0.0, 4.0], [4.0, 2.0]]


def test_keyword_arguments_carrying_a_derivative():
    assert D(lambda x: complex(real=x, imag=x * x), 2.0) == complex(1, 4)


class _Held:
    def __init__(self, v):
        self.v = v


def _through_a_weak_reference(x):
    held = _Held(x * 2)
    reference = weakref.ref(held, lambda ref: None)
    again = reference()
    again.v = again.v * x  # the very object: 2 x**2
    return held.v


def test_a_weak_reference_gives_back_the_object_with_its_derivatives():
    assert D(_through_a_weak_reference, 1.5) == 4 * 1.5
    assert D(D(_through_a_weak_reference), 1.5) == 4.0
