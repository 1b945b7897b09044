"""Methods of the number types under `D` (issue 19, second part).

The unbound dunders (`float.__mul__(a, b)`, as uncertainties calls them) against
the plain dunder and the operator's derivative; `as_integer_ratio`, `numerator`
and `denominator` against exact derivatives, and through statistics' exact sums;
`Fraction.limit_denominator` (a step function), copies of a `Fraction`,
`math.sumprod` (3.12+) against exact `Fraction` derivatives; and the refusal of
`pickle`, which names the way out.
"""

from __future__ import annotations

import copy
import io
import math
import operator
import pickle
import statistics
import sys
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ad import D, NonDifferentiableError, jvp

# ---------------------------------------------------------------------------
# unbound dunders: the plain dunder's value and NotImplemented, the operator's rule

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
           "truediv": operator.truediv, "floordiv": operator.floordiv,
           "mod": operator.mod, "pow": operator.pow}
_UNARY = {"__neg__": operator.neg, "__pos__": operator.pos, "__abs__": operator.abs,
          "__trunc__": math.trunc, "__floor__": math.floor, "__ceil__": math.ceil,
          "__round__": round}
_KINDS = (int, float, complex, Fraction)

# (kind, dunder, operator, reflected)
BINARY = [(kind, getattr(kind, name), plain, name.startswith("__r"))
          for kind in _KINDS for short, plain in _BINARY.items()
          for name in (f"__{short}__", f"__r{short}__") if hasattr(kind, name)]
UNARY = [(kind, getattr(kind, name), plain) for kind in _KINDS
         for name, plain in _UNARY.items() if hasattr(kind, name)]

OF_KIND = {int: st.integers(-6, 6), float: st.floats(-6, 6, allow_nan=False),
           Fraction: st.fractions(-6, 6, max_denominator=12),
           complex: st.complex_numbers(max_magnitude=6, allow_nan=False,
                                       allow_infinity=False)}
numbers = st.one_of(*OF_KIND.values())


def with_receiver(cases):
    """A case, and a first argument of the dunder's own kind (its `self`)."""
    return st.sampled_from(cases).flatmap(lambda case: st.tuples(st.just(case),
                                                                 OF_KIND[case[0]]))


def outcome(f, *args):
    """(value, tangent) of `jvp(f, args, (1, 0, ...))`, or the exception raised."""
    try:
        return jvp(f, args, (1,) + (0,) * (len(args) - 1))
    except Exception as error:  # noqa: BLE001 (compared with the plain call's)
        return type(error), str(error)


def same(a, b):
    """Equal, of one type, NaN equal to NaN (a complex power may give one)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or repr(a) == repr(b)


@settings(max_examples=400, deadline=None)
@given(with_receiver(BINARY), numbers, st.booleans())
def test_an_unbound_binary_dunder_is_the_plain_dunder_with_its_operators_rule(
        case_and_receiver, b, second):
    (_, dunder, plain, reflected), a = case_and_receiver
    declined = []

    def called(*xs):
        result = dunder(*xs)
        if result is NotImplemented:
            declined.append(True)
            return 0.0
        return result

    def swapped(x, y):
        return called(y, x)

    def as_operator(*xs):
        return plain(*(reversed(xs) if reflected else xs))

    # the argument differentiated comes first: `second` differentiates b
    got = outcome(swapped, b, a) if second else outcome(called, a, b)
    try:
        expected = dunder(a, b)
    except Exception as error:  # noqa: BLE001
        assert got == (type(error), str(error))
        return
    if expected is NotImplemented:
        assert declined == [True]
        return
    assert not declined
    reference = outcome(lambda y, x: as_operator(x, y), b, a) if second \
        else outcome(as_operator, a, b)
    # the operator's value and tangent (or the error its rule raises: a complex power
    # of a tiny base, whose tangent underflows to a ZeroDivisionError)
    assert same(got, reference)
    if not isinstance(got[0], type):
        assert same(got[0], expected)  # the value is the dunder's own


@settings(max_examples=200, deadline=None)
@given(with_receiver(UNARY))
def test_an_unbound_unary_dunder_has_its_operators_rule(case_and_receiver):
    (_, dunder, plain), x = case_and_receiver
    got = outcome(dunder, x)
    try:
        expected = dunder(x)
    except Exception as error:  # noqa: BLE001
        assert got == (type(error), str(error))
        return
    assert same(got[0], expected)
    assert same(got, outcome(plain, x))


def test_a_dunder_that_declines_returns_not_implemented():
    def f(x):
        assert float.__mul__(x, Fraction(1, 2)) is NotImplemented
        assert int.__add__(3, x) is NotImplemented
        return x * Fraction(1, 2)
    assert D(f, 0.7) == 0.5


def test_the_dunders_as_uncertainties_calls_them():
    def f(x):
        return float.__add__(float.__mul__(x, x), float.__rtruediv__(x, 1.0)) + \
            float.__neg__(x) + float.__rpow__(x, 2.0) + float.__rsub__(x, 5.0)
    x = Fraction(7, 10)
    exact = 2 * x - 1 / x ** 2 - 1 - 1
    assert D(f, 0.7) == pytest.approx(float(exact) + 2 ** 0.7 * math.log(2), rel=1e-15)
    assert D(D(lambda x: float.__mul__(x, x)), 0.7) == 2.0
    assert D(lambda x: x.__mul__(3.0) + x.__rsub__(1.0), 0.7) == 2.0  # bound: the same rule


def test_bound_methods_keep_each_tangent_under_nested_derivatives():
    assert D(lambda y: D(lambda x: (x * y).__neg__(), 1.0), 2.0) == -1
    assert D(lambda y: D(lambda x: ratio(x * y), 1.0), 2.0) == 1
    assert D(D(D(lambda x: x.__mul__(2.0) * x * x)), 0.7) == 12
    assert D(D(lambda x: numerator(x) / x.as_integer_ratio()[1] * x), 0.7) == 2


def test_three_argument_int_pow_is_modular():
    assert jvp(lambda n: int.__pow__(n, 3, 5), (7,), (1,)) == (3, 0)
    assert jvp(lambda n: int.__rpow__(3, n, 5), (7,), (1,)) == (int.__rpow__(3, 7, 5), 0)
    with pytest.raises(TypeError):
        D(lambda x: float.__pow__(x, 2.0, 5), 0.7)


def test_a_fraction_dunder_keeps_its_fraction_semantics():
    q = Fraction(2, 3)
    assert D(lambda q: Fraction.__mul__(q, q), q) == 2 * q
    assert jvp(lambda q: Fraction.__rtruediv__(q, 1), (q,), (1,)) == (1 / q, -1 / q ** 2)
    assert D(lambda q: Fraction.__mul__(q, 2j).imag, q) == 2  # a complex result


# ---------------------------------------------------------------------------
# as_integer_ratio, numerator, denominator

def ratio(x):
    n, d = x.as_integer_ratio()
    return n / d


def exact_ratio(x):
    return Fraction(*x.as_integer_ratio())


def numerator(x):
    return x.as_integer_ratio()[0]


# (below about 1e-292 the numerator's tangent overflows: refused, tested below)
finite_floats = st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: x == 0 or abs(x) > 1e-290)


@settings(max_examples=200, deadline=None)
@given(finite_floats)
def test_as_integer_ratio_of_a_float(x):
    n, d = x.as_integer_ratio()
    assert jvp(ratio, (x,), (1.0,)) == (x, 1.0)
    assert jvp(exact_ratio, (x,), (1.0,)) == (Fraction(x), 1)
    assert jvp(numerator, (x,), (1.0,)) == (n, d)  # the tangent times the denominator
    assert D(lambda t: t.as_integer_ratio()[1], x) == 0
    assert D(lambda t: float.as_integer_ratio(t)[0], x) == d  # unbound


@settings(max_examples=100, deadline=None)
@given(st.fractions(-50, 50, max_denominator=10 ** 6))
def test_as_integer_ratio_numerator_and_denominator_of_a_fraction(q):
    assert jvp(numerator, (q,), (1,)) == (q.numerator, q.denominator)
    assert D(lambda q: Fraction.as_integer_ratio(q)[0], q) == q.denominator
    assert jvp(lambda q: q.numerator / q.denominator, (q,), (1,)) == (q.numerator / q.denominator,
                                                                     1)
    assert D(lambda q: q.denominator, q) == 0
    assert D(lambda q: q.numerator, q) == q.denominator


def test_as_integer_ratio_of_ints_and_mpf():
    assert jvp(numerator, (3,), (1,)) == (3, 1)
    assert D(lambda n: n.numerator * 1.5 + n.denominator, 3) == 1.5
    x = mpmath.mpf(0.7)
    assert D(lambda t: mpmath.mpf(t.as_integer_ratio()[0]) / t.as_integer_ratio()[1], x) == 1


def test_as_integer_ratio_raises_as_the_plain_method():
    with pytest.raises(OverflowError, match="Infinity"):
        D(lambda t: (t * math.inf).as_integer_ratio(), 1.0)
    with pytest.raises(ValueError, match="NaN"):
        D(lambda t: (t * math.nan).as_integer_ratio(), 1.0)
    with pytest.raises(TypeError) as plain:
        float.as_integer_ratio(Fraction(1, 2))
    with pytest.raises(TypeError) as under_d:
        D(lambda q: float.as_integer_ratio(q), Fraction(1, 2))
    assert str(under_d.value) == str(plain.value)
    with pytest.raises(AttributeError, match="numerator"):  # a float has none
        D(lambda t: t.numerator, 0.5)


@pytest.mark.parametrize("f, x", [
    (numerator, 5e-324),                                 # the denominator beyond the floats
    (lambda t: numerator(t * 2.0 ** 30), 2.0 ** -1030),  # the product beyond them
])
def test_a_numerator_tangent_that_overflows_a_float_is_refused(f, x):
    with pytest.raises(NonDifferentiableError) as error:
        D(f, x)
    message = str(error.value)
    assert "overflows a float" in message and "Fraction" in message
    assert "test_ad_number_methods.py" in message


def test_at_a_fraction_point_the_numerator_tangent_is_exact():
    assert D(numerator, Fraction(5e-324)) == 2 ** 1074


def test_statistics_exact_sums_carry_the_tangent():
    """`_sum` and `_ss` add the numerators over each denominator exactly."""
    assert D(lambda t: statistics._sum([t, 0.1, 2 * t])[1], 0.7) == 3
    q = Fraction(7, 10)
    mean = (q + 3) / 3
    assert D(lambda q: statistics._ss([q, Fraction(1), Fraction(2)])[1], q) == 2 * (q - mean)
    assert D(lambda t: statistics._ss([t, 1.0, 2.0])[1], 0.7) == \
        pytest.approx(float(2 * (q - mean)), rel=1e-14)


def test_the_correctly_rounded_square_root_of_a_fraction():
    root = statistics._float_sqrt_of_frac
    assert D(lambda q: root(q.numerator, q.denominator), Fraction(7, 10)) == \
        pytest.approx(1 / (2 * math.sqrt(0.7)), rel=1e-15)
    with mpmath.workdps(30):
        expected = mpmath.diff(lambda m: mpmath.sqrt(3 / m), 4)
    assert D(lambda m: root(3, m), 4) == pytest.approx(float(expected), rel=1e-15)


# ---------------------------------------------------------------------------
# limit_denominator, copies of a Fraction

@settings(max_examples=50, deadline=None)
@given(st.fractions(-10, 10, max_denominator=10 ** 6), st.integers(1, 100))
def test_limit_denominator_is_a_step(q, most):
    value, tangent = jvp(lambda q: q.limit_denominator(most) * 3 + q, (q,), (1,))
    assert value == q.limit_denominator(most) * 3 + q and tangent == 1


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_a_copied_fraction_keeps_its_tangent(copier):
    q = Fraction(7, 10)
    assert D(lambda q: copier(q) * q, q) == 2 * q
    assert D(lambda q: copier([q, {"k": q * q}])[1]["k"], q) == 2 * q
    assert D(D(lambda q: copier(q) ** 3), q) == 6 * q


# ---------------------------------------------------------------------------
# pickle stays refused: bytes carry no derivative

def test_pickle_is_refused_with_the_way_out():
    with pytest.raises(NonDifferentiableError) as error:
        D(lambda x: pickle.loads(pickle.dumps([x]))[0], 0.7)
    message = str(error.value)
    assert "cannot differentiate through pickle.dumps (called at " in message
    assert "test_ad_number_methods.py" in message and "_pickle" not in message
    assert "bytes" in message and "copy.deepcopy" in message
    assert D(lambda x: copy.deepcopy([x])[0], 0.7) == 1  # the way out works


def test_pickle_dump_is_refused_before_it_writes():
    buffer = io.BytesIO()
    with pytest.raises(NonDifferentiableError, match="pickle.dump .*copy.deepcopy"):
        D(lambda x: pickle.dump([x], buffer), 0.7)
    assert buffer.getvalue() == b""


# ---------------------------------------------------------------------------
# math.sumprod (Python 3.12+)

sumprod_only = pytest.mark.skipif(sys.version_info < (3, 12), reason="math.sumprod is 3.12+")


@sumprod_only
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.fractions(-5, 5, max_denominator=9),
                          st.fractions(-5, 5, max_denominator=9)), max_size=6),
       st.fractions(-5, 5, max_denominator=9))
def test_sumprod_against_the_exact_derivative(pairs, x):
    cs, es = [c for c, _ in pairs], [e for _, e in pairs]

    def f(t):
        return math.sumprod([c * t for c in cs], [e + t for e in es])

    exact = sum(c * e for c, e in pairs) + 2 * x * sum(cs)
    assert jvp(f, (x,), (1,)) == (f(x), exact)
    value, tangent = jvp(f, (float(x),), (1.0,))
    assert value == f(float(x))  # math.sumprod's own value on the plain floats
    assert tangent == pytest.approx(float(exact), rel=1e-12, abs=1e-12)


@sumprod_only
def test_sumprod_of_generators_objects_and_unequal_lengths():
    powers = [1.0, -4.0, -17.0, 60.0]
    assert D(lambda t: math.sumprod((t ** k for k in range(4)), powers), 0.7) == \
        pytest.approx(-4 - 34 * 0.7 + 180 * 0.49, rel=1e-15)

    class Scaled:
        def __init__(self, v):
            self.v = v

        def __mul__(self, other):
            return self.v * other

        def __rmul__(self, other):
            return other * self.v

    assert D(lambda t: math.sumprod([Scaled(t), 2.0], [3.0, t]), 0.7) == 5
    with pytest.raises(ValueError) as plain:
        math.sumprod([1.0, 2.0], [1.0])
    with pytest.raises(ValueError) as under_d:
        D(lambda t: math.sumprod([t, 2.0], [1.0]), 0.7)
    assert str(under_d.value) == str(plain.value)
    assert D(D(lambda t: math.sumprod([t, t], [t, 1.0])), 0.7) == 2


class _Halving:
    """`divmod` of its own, which `%` is not: the rule's model wrote divmod as the
    quotient and `x % y`, so `divmod(obj, 2)` raised a TypeError (no `__mod__`)
    where CPython calls `__divmod__`."""

    def __init__(self, v):
        self.v = v

    def __divmod__(self, other):
        return self.v * 2, self.v

    def __rdivmod__(self, other):
        return self.v * 5, other


class _Sevenfold(_Halving):
    def __rdivmod__(self, other):  # a subclass's reflected method goes first
        return self.v * 7, 0


def test_divmod_of_objects_calls_their_own_methods():
    assert D(lambda x: divmod(_Halving(x), 2)[0], 1.5) == 2
    assert D(lambda x: divmod(3, _Halving(x))[0], 1.5) == 5
    assert D(lambda x: divmod(_Halving(x), _Sevenfold(x * x))[0], 1.5) == 21
    assert D(D(lambda x: divmod(_Halving(x * x), 2)[0]), 1.5) == 4
    assert D(lambda x: divmod(x * 7, 2.0)[1], 1.5) == 7  # numbers: the remainder's rule
    with pytest.raises(TypeError, match=r"divmod\(\): 'float' and 'str'"):
        D(lambda x: divmod(x, "a"), 1.5)
