"""The surface of `ad`: what `D(f)` is, how user rules are registered, scoped and
removed, and what `gradient`, `hessian` and `D` say when given the wrong thing.

References: mpmath at 40 digits for derivatives, the plain call (`D(f, x)`) for
what `D(f)(x)` must give, exact `Fraction` arithmetic for gradients.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import multiprocessing
import pickle
import pydoc
import random
import warnings
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ad
from ad import D, NonDifferentiableError, gradient, hessian, jacobian, jvp
from ad._context import Differentiation
from ad._rules import User, rule_of
from contexts import overdub
from tagging import enabletagging, metadata, tag
from tests import ad_subjects as subjects

mp = mpmath.mp
points = st.floats(-3.0, 3.0, allow_nan=False)


def cube(x):
    return x * x * x


def opaque(x):
    """A Python function whose body gives 2x; the rules below say otherwise."""
    return x * x


def ten_times(primals, tangents):
    return opaque(primals[0]), 10 * tangents[0]


def hundred_times(primals, tangents):
    return opaque(primals[0]), 100 * tangents[0]


def sinh_doubled(primals, tangents):
    return math.sinh(primals[0]), 2 * math.cosh(primals[0]) * tangents[0]


def _libm_cos():
    """libm's `cos` as a C library's function is called through ctypes: unhashable."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    cos = libm.cos
    cos.argtypes, cos.restype = [ctypes.c_double], ctypes.c_double
    return cos


c_cos = _libm_cos()


def c_cos_rule(primals, tangents):
    return c_cos(primals[0]), -math.sin(primals[0]) * tangents[0]


@pytest.fixture(autouse=True)
def no_user_rule_left_behind():
    """A test that fails leaves none of its rules to the tests after it."""
    yield
    for f in (opaque, math.sinh, math.prod, c_cos):
        if type(rule_of(f)) is User:
            ad.unrule(f)


def close(got, want, rel=1e-12):
    return abs(got - want) <= rel * max(1.0, abs(want))


# D(f): the derivative function ------------------------------------------------------

def test_the_derivative_function_shows_what_it_is():
    assert repr(D(math.sin)) == "D(sin)"
    assert repr(D(D(cube))) == "D(D(cube))"
    assert repr(D(D(D(math.exp)))) == "D(D(D(exp)))"
    assert D(math.sin).__wrapped__ is math.sin
    assert D(D(cube)).__wrapped__.__wrapped__ is cube


def test_help_of_the_derivative_function_is_its_own():
    shown = pydoc.render_doc(D(math.sin))
    assert math.sin.__doc__ not in shown
    assert "derivative function" in D(math.sin).__doc__
    assert "derivative function" in shown


@settings(max_examples=20)  # a fourth derivative takes a tenth of a second
@given(points, st.integers(1, 4))
def test_the_derivative_function_at_every_depth(x, depth):
    """`D(...D(sin)...)(x)` is the plain call `D(f, x)` and the depth-th derivative."""
    nested = math.sin
    for _ in range(depth - 1):
        nested = D(nested)
    got = D(nested)(x)
    assert got == D(nested, x)
    with mp.workdps(40):
        assert close(got, float(mpmath.diff(mpmath.sin, x, depth)))


def test_the_derivative_function_keeps_the_type_of_the_point():
    assert D(cube)(2) == 12 and type(D(cube)(2)) is int
    assert D(D(cube))(Fraction(1, 3)) == 2 and type(D(D(cube))(Fraction(1, 3))) is Fraction


def test_messages_name_the_derivative_function_as_the_user_wrote_it():
    for call in (lambda: D(D(cube), [1.0, 2.0]), lambda: ad.check(D(cube), "1")):
        with pytest.raises(TypeError, match=r"for D\(cube\)") as raised:
            call()
        assert "_api" not in str(raised.value)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_the_derivative_function_pickles(protocol):
    again = pickle.loads(pickle.dumps(D(D(subjects.recursive)), protocol))
    assert repr(again) == "D(D(recursive))"
    assert again(2.0) == D(D(subjects.recursive))(2.0) == 20 * 2.0 ** 3


def test_the_derivative_function_in_a_pool_of_processes():
    ts = [0.5, 1.0, 2.0, 3.0]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        firsts = pool.map(D(subjects.recursive), ts)
        seconds = pool.map(D(D(subjects.recursive)), ts)
    assert firsts == [D(subjects.recursive, t) for t in ts] == [5 * t ** 4 for t in ts]
    assert seconds == [20 * t ** 3 for t in ts]


# @rule: replacing, scoping, removing -------------------------------------------------

def test_replacing_a_built_in_rule_warns_and_unrule_restores_it():
    with pytest.warns(UserWarning, match=r"math\.sinh.*built-in.*override=True") as warned:
        ad.rule(math.sinh)(sinh_doubled)
    assert warned[0].filename == __file__  # the user's line
    assert D(math.sinh, 0.5) == 2 * math.cosh(0.5)
    assert close(D(D(math.sinh), 0.5), 2 * math.sinh(0.5))
    ad.unrule(math.sinh)
    assert D(math.sinh, 0.5) == math.cosh(0.5)


def test_override_replaces_a_built_in_rule_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ad.rule(math.sinh, override=True)(sinh_doubled)
        assert D(math.sinh, 0.5) == 2 * math.cosh(0.5)
        ad.rule(math.sinh)(sinh_doubled)  # a user rule replacing a user rule: silent
    ad.unrule(math.sinh)
    assert D(math.sinh, 0.5) == math.cosh(0.5)


def test_unrule_removes_a_user_rule():
    assert D(opaque, 3.0) == 6.0  # the body
    ad.rule(opaque)(ten_times)
    assert D(opaque, 3.0) == 10.0
    ad.unrule(opaque)
    assert D(opaque, 3.0) == 6.0
    assert D(D(opaque), 3.0) == 2.0


def test_unrule_of_what_has_no_user_rule_is_named():
    with pytest.raises(ValueError, match=r"unrule\(math\.sinh\).*only its built-in rule"):
        ad.unrule(math.sinh)
    with pytest.raises(ValueError, match=r"cube has no rule"):
        ad.unrule(cube)
    assert D(math.sinh, 0.5) == math.cosh(0.5)


def test_rules_scope_a_rule_to_a_block():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scoped: no warning for a built-in
        with ad.rules({math.sinh: sinh_doubled, opaque: ten_times}):
            assert D(math.sinh, 0.5) == 2 * math.cosh(0.5)
            assert D(opaque, 3.0) == 10.0
            assert D(D(opaque), 3.0) == 0.0  # the rule's tangent, 10 * t, has no x in it
    assert D(math.sinh, 0.5) == math.cosh(0.5)
    assert D(opaque, 3.0) == 6.0


def test_rules_restore_after_the_block_raises():
    with pytest.raises(RuntimeError, match="inside"):
        with ad.rules({math.sinh: sinh_doubled, opaque: ten_times}):
            raise RuntimeError("inside")
    assert D(math.sinh, 0.5) == math.cosh(0.5)
    assert D(opaque, 3.0) == 6.0


def test_rules_nest_and_restore_a_user_rule():
    ad.rule(opaque)(ten_times)
    with ad.rules({opaque: hundred_times}):
        assert D(opaque, 3.0) == 100.0
        with ad.rules([(opaque, ten_times)]):
            assert D(opaque, 3.0) == 10.0
        assert D(opaque, 3.0) == 100.0
    assert D(opaque, 3.0) == 10.0
    ad.unrule(opaque)
    assert D(opaque, 3.0) == 6.0


def test_rules_given_one_function_twice_restore_what_was_before_both():
    with ad.rules([(opaque, ten_times), (opaque, hundred_times)]):
        assert D(opaque, 3.0) == 100.0
    assert D(opaque, 3.0) == 6.0


def test_rules_refuse_what_is_not_a_function_before_changing_anything():
    with pytest.raises(TypeError, match="rules"):
        with ad.rules({opaque: ten_times, math.sinh: "not a rule"}):
            pass
    assert D(opaque, 3.0) == 6.0


class Scaled:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return self.k * x * x


def besselj_rule(primals, tangents):
    """d/dx J_n(x) = (J_{n-1}(x) - J_{n+1}(x)) / 2; the first primal is mpmath's context."""
    _, n, x = primals
    return mpmath.besselj(n, x), (mpmath.besselj(n - 1, x) - mpmath.besselj(n + 1, x)) / 2 \
        * tangents[2]


@pytest.mark.parametrize("method, function", [
    (Scaled(2.0).apply, "Scaled.apply"),
    (mpmath.besselj, "MPContext.besselj"),
    (random.random, "Random.random"),
])
def test_a_rule_for_a_bound_method_names_the_function_to_use(method, function):
    """A crash before (KeyError of the engine's table): the engine runs every
    object's method as one function."""
    with pytest.raises(TypeError, match=rf"rule\(\) needs a function.*bound.*{function}"):
        ad.rule(method)(ten_times)
    with pytest.raises(TypeError, match=rf"rules\(\) needs a function.*{function}"):
        with ad.rules([(method, ten_times)]):
            pass


def test_a_rule_for_the_function_a_method_binds():
    with ad.rules({type(mp).besselj: besselj_rule}):
        got = D(lambda x: mpmath.besselj(0, x), mpmath.mpf("0.75"))
    with mp.workdps(40):
        want = mpmath.diff(lambda x: mpmath.besselj(0, x), mpmath.mpf("0.75"))
    assert abs(got - want) < 1e-14


def _differentiated_twice(change):
    """d opaque / dx at 3.0 from ONE context run twice, `change` made between runs:
    the engine caches what runs for each function in a context, so it must be told
    the table changed."""
    ctx = enabletagging(Differentiation(), opaque)
    before = metadata(overdub(ctx, opaque, tag(3.0, ctx, 1.0)), ctx)
    change()
    return before, metadata(overdub(ctx, opaque, tag(3.0, ctx, 1.0)), ctx)


def test_a_context_run_again_sees_every_change_of_the_rules():
    assert _differentiated_twice(lambda: ad.rule(opaque)(ten_times)) == (6.0, 10.0)
    assert _differentiated_twice(lambda: ad.rule(opaque)(hundred_times)) == (10.0, 100.0)
    assert _differentiated_twice(lambda: ad.unrule(opaque)) == (100.0, 6.0)
    scope = ad.rules({opaque: ten_times})
    assert _differentiated_twice(scope.__enter__) == (6.0, 10.0)
    assert _differentiated_twice(lambda: scope.__exit__(None, None, None)) == (10.0, 6.0)


# A rule for an unhashable callable: a C function through ctypes -----------------------

@given(points)
def test_a_rule_for_a_ctypes_function(x):
    with pytest.raises(TypeError):
        hash(c_cos)  # why it needs keying by identity
    ad.rule(c_cos)(c_cos_rule)
    assert D(c_cos, x) == -math.sin(x)
    assert D(lambda t: c_cos(2 * t), x) == -2 * math.sin(2 * x)
    assert close(D(D(c_cos), x), -math.cos(x))
    assert close(D(lambda y: D(lambda t: c_cos(t * y), x), 0.5),
                 -math.sin(0.5 * x) - 0.5 * x * math.cos(0.5 * x))
    ad.unrule(c_cos)
    with pytest.raises(NonDifferentiableError, match="cos"):
        D(c_cos, x)


def total(xs, *more):
    """A Python function whose rule below takes numbers: never a list."""
    return sum(xs) + sum(more)


def total_rule(primals, tangents):
    return total(*primals), sum(tangents[1:])


def test_a_user_rule_given_a_derivative_it_cannot_see_refuses():
    """Silently 0 before: the rule's tangents are those of the numbers passed by
    position, and the list's element was run past it."""
    def c_cos_by_keyword(x):
        return c_cos(x=x)

    def product_of_a_list(x):
        return math.prod([x, 2.0])

    def total_of_a_list(x):
        return total([x, 1.0])

    def total_of_a_list_and_a_number(x):
        return total([x, 1.0], x)

    assert D(total_of_a_list, 2.0) == 1.0  # the body, with no rule
    with ad.rules([(c_cos, c_cos_rule), (math.prod, ten_times), (total, total_rule)]):
        assert D(lambda x: total([1.0], x), 2.0) == 1.0  # the rule: a constant list
        for f in (c_cos_by_keyword, product_of_a_list, total_of_a_list,
                  total_of_a_list_and_a_number):
            with pytest.raises(NonDifferentiableError, match=r"rule \(ad\.rule\) takes "
                                                             r"numbers by position"):
                D(f, 1.0)


def test_a_scoped_rule_for_a_ctypes_function():
    with ad.rules([(c_cos, c_cos_rule)]):
        assert D(c_cos, 1.0) == -math.sin(1.0)
    with pytest.raises(NonDifferentiableError, match="cos"):
        D(c_cos, 1.0)


# Bad input: a vector where a scalar is needed, a point that is no number ---------------

def pair(v):
    return [v[0] * v[1], v[0] + v[1]]


def product(v):
    return v[0] * v[1]


def test_the_gradient_of_a_vector_function_is_refused():
    with pytest.raises(TypeError, match=r"gradient\(\) is of a scalar function.*"
                                        r"test_ad_api\.pair.*returned list \[6\.0, 5\.0\]"
                                        r".*use jacobian\(tests\.test_ad_api\.pair, xs\)"):
        gradient(pair, [2.0, 3.0])
    assert jacobian(pair, [2.0, 3.0]) == [[3.0, 2.0], [1.0, 1.0]]


def test_the_hessian_of_a_vector_function_is_refused():
    with pytest.raises(TypeError, match=r"hessian\(\) is of a scalar function.*"
                                        r"test_ad_api\.pair.*returned list \[6\.0, 5\.0\]"
                                        r".*hessian\(lambda v: tests\.test_ad_api\.pair\(v\)\[i\]"):
        hessian(pair, [2.0, 3.0])


def test_the_jacobian_of_a_scalar_function_says_what_it_returned():
    with pytest.raises(TypeError, match=r"jacobian\(\).*test_ad_api\.product.*returned "
                                        r"float 6\.0.*gradient\(tests\.test_ad_api\.product"):
        jacobian(product, [2.0, 3.0])


@pytest.mark.parametrize("call, message", [
    (lambda: D(cube, [1.0, 2.0]), r"D\(\).*got list \[1\.0, 2\.0\] for tests\.test_ad_api\.cube"
                                  r".*gradient\(tests\.test_ad_api\.cube, xs\)"),
    (lambda: D(cube, (1.0,)), r"got tuple.*jacobian\(tests\.test_ad_api\.cube, xs\)"),
    (lambda: D(cube, Decimal("1.5")), r"got Decimal.*D\(tests\.test_ad_api\.cube, float\(x\)\)"),
    (lambda: D(cube, "1.5"), r"got str '1\.5'.*float\(x\)"),
    (lambda: D(cube, True), r"got bool True.*float\(x\)"),
    (lambda: jvp(cube, ([1.0],), (1.0,)), r"jvp\(\).*got list.*one number per argument"),
    (lambda: gradient(product, [[1.0], 2.0]), r"gradient\(\).*got list.*one flat list"),
    (lambda: hessian(product, ["1", 2.0]), r"hessian\(\).*got str.*"
                                           r"hessian\(tests\.test_ad_api\.product, \[float"),
])
def test_a_point_that_is_no_number_says_what_to_use(call, message):
    with pytest.raises(TypeError, match=message):
        call()


fractions = st.fractions(-10, 10, max_denominator=50)


@given(fractions, fractions, fractions)
def test_the_gradient_of_a_scalar_function_is_exact(a, x, y):
    def f(v):
        return a * v[0] ** 2 * v[1] + v[1] ** 3

    assert gradient(f, [x, y]) == [2 * a * x * y, a * x ** 2 + 3 * y ** 2]
    assert hessian(f, [x, y]) == [[2 * a * y, 2 * a * x], [2 * a * x, 6 * y]]
