"""Tests written by planting bugs in `ad` and `tagging` (issue 18, item 6): each guards a
behaviour that a deliberate one-line bug in the line named broke while every other
test still passed. The habit is `tests/test_tagging_mutants.py`'s: plant, watch the
test fail, restore (`git diff` clean), and say here which plant each test kills.

Plants (each one alone; each made the test named fail, and the rest of this file pass).
Each also passed every other test of `tests/test_ad*.py`, `test_nesting.py` and
`test_deep_nesting.py` (and, for `tagging` and `_binary`, `tests/test_tagging*.py` and
`test_stdlib.py`), except the two marked "also caught", kept as the direct form:

* `ad/_context.py` `_binary`, `if y.tag is mine and type(x) in SCALARS:` without
  `y.tag is mine`; `if x.tag is mine:` as `if True:`; the inner `if y.tag is mine:`
  as `if True:`: another tagging context's `Tagged` read as a tangent
  (`test_a_value_tagged_by_another_context_is_refused_never_read_as_a_tangent`).
* `ad/_context.py` `_PLAIN_RESULTS = (str, bool, BaseException)` with `int` for
  `bool`: `int.__lshift__(n, 1)` at an int point passed as a constant (D gave 0).
* `ad/_context.py` `_numeric`, `bytes` dropped from `(bytes, bytearray, memoryview)`:
  `n.to_bytes(2, "big")` handed back the number's bits without its derivative.
* `ad/_context.py` `_attribute`, `if _numeric(found):` as `if callable(found):`:
  `Fraction(n)._numerator` at an int point read as a constant (D gave 0).
  (These three: `test_foreign_int_results_bytes_and_numeric_attributes_at_int_points...`)
* `ad/_context.py` `_apply_jvp`, the check `if index >= len(rule.jvps):` deleted (three
  lines, with the refusal under it): `math.ldexp(1.0, i)` with `i` differentiated raised
  `IndexError` (`test_a_tangent_where_the_rule_has_no_derivative_is_refused`).
* `ad/_numbers.py` `zero_like`, `type(x)(0)` as `0`, then as `0.0`: the derivative of
  a constant result had the wrong type (`test_the_derivative_of_a_constant_result...`).
  The `0.0` plant is also caught by
  `test_ad_everyday.py::test_containers_against_an_exact_central_difference`.
* `ad/_api.py` `_partial`, the unseeded tangents `0 * x` as `0`: zero entries of
  `gradient`/`jacobian`/`hessian` at Fraction and complex points came back as int 0.
* `ad/_rules/_support.py` `over`, `return numerator * 0` as `return 0`; `pow_base`,
  `return g * 0` as `return 0`; `pow_exponent`, `return g * 0` as `return 0`: zero
  tangents at 0/0 edges came back as int 0 at float and mpf points.
* `tagging/_layer.py` `gstore`, `store.forget(namespace, key)` as `pass`: a closure
  cell or global overwritten with an equal plain small int kept the old tangent.
* `tagging/_store.py` `replace`, its `self.sweep()` as `pass`: the store grew with
  every iteration of `t = xs + [1.0]`, never swept within the run.
* `tagging/_layer.py` `finish_run`, `if self.store.added:` as `if False:`: the
  temporaries of a finished run stayed in the store (hundreds of lists).
* `tagging/_primitives.py` `generator_send`, `finally:` as `except ZeroDivisionError:
  pass` and `else:` (the metadata sent forgotten only when the send returns): a send
  that raised left its entry in `store.sent`, and a later plain send of the same small
  int got that tangent (D gave 1 for 0).

Found with no plant: temporaries were not released when a run ended if the last sweep
was `replace`'s (a loop of `xs + [1.0]`): `replace` added containers without counting
them, so `finish_run` saw nothing added and skipped its sweep; 495 slots of dead lists
stayed. Fixed in `tagging/_store.py` (`replace` counts the slots it adds).

Functions run under `D` or `overdub` are module-level or lambdas and assert nothing.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from ad import D, NonDifferentiableError, gradient, hessian, jacobian
from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, metadata, tag, untag


class AnyMeta(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return object


class StrMeta(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str if issubclass(value_type, (int, float, complex)) else NoMetaData


def same(value, expected):
    """Equal, and of the same type (0 == 0.0, so equality alone says nothing of types)."""
    return value == expected and type(value) is type(expected)


# Another context's Tagged is not a tangent -----------------------------------------------


def foreign_tagged():
    """A value tagged, with a number as metadata, by a tagging context that is not D's."""
    other = enabletagging(AnyMeta(), abs)
    return tag(1.5, other, 5.0)


@pytest.mark.parametrize("expression", [
    lambda x, t: x + 2.0 * t,  # a plain number on the left: `_binary`'s `elif` branch
    lambda x, t: x + t * 2.0,  # the other context's value on the left
    lambda x, t: x * t,  # D's own value on the left, the other's on the right
])
def test_a_value_tagged_by_another_context_is_refused_never_read_as_a_tangent(expression):
    t = foreign_tagged()
    with pytest.raises(TypeError, match="outside that context"):
        D(lambda x: expression(x, t), 1.0)


# Refusals at int points --------------------------------------------------------------------


@pytest.mark.parametrize("f, named", [
    (lambda n: int.__lshift__(n, 1), "int.__lshift__"),  # an int back from C
    (lambda n: int.from_bytes(n.to_bytes(2, "big"), "big") * 1.0, "to_bytes"),  # bytes
    (lambda n: Fraction(n)._numerator * 1.0, "_numerator"),  # a numeric data attribute
    (lambda n: Fraction(n)._denominator + n, "_denominator"),
])
def test_foreign_int_results_bytes_and_numeric_attributes_at_int_points_are_refused(f, named):
    with pytest.raises(NonDifferentiableError, match=named):
        D(f, 2)


def test_a_tangent_where_the_rule_has_no_derivative_is_refused():
    with pytest.raises(NonDifferentiableError, match="no derivative for argument 2"):
        D(lambda i: math.ldexp(1.0, i), 3)
    assert D(lambda x: math.ldexp(x, 3), 1.0) == 8.0  # the first argument has one


# The types of zero tangents -----------------------------------------------------------------


@pytest.mark.parametrize("f, point, zero", [
    (lambda x: 0.0, 1.0, 0.0),
    (lambda x: 0.0, 1, 0.0),  # the result's type, not the point's
    (lambda x: mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(0)),
    (lambda x: x // 2, 3, 0),
    (lambda x: 7, 3, 0),
    (lambda x: Fraction(1, 3), Fraction(1), Fraction(0)),
    (lambda x: 1j, 1j, 0j),
])
def test_the_derivative_of_a_constant_result_is_a_zero_of_its_type(f, point, zero):
    assert same(D(f, point), zero)


@pytest.mark.parametrize("point", [[Fraction(1, 2), Fraction(1, 3)], [1 + 2j, 3j]])
def test_zero_entries_of_gradient_jacobian_and_hessian_keep_the_points_type(point):
    kind = type(point[0])
    zero, one = kind(0), kind(1)
    assert all(same(a, b) for a, b in zip(gradient(lambda v: v[0] * 3, point),
                                          [3 * one, zero]))
    rows = jacobian(lambda v: [v[0] + 1, v[1] * 2], point)
    assert [[type(e) for e in row] for row in rows] == [[kind, kind], [kind, kind]]
    assert rows == [[one, zero], [zero, 2 * one]]
    matrix = hessian(lambda v: v[0] * v[0] + v[1], point)
    assert [[type(e) for e in row] for row in matrix] == [[kind, kind], [kind, kind]]
    assert matrix == [[2 * one, zero], [zero, zero]]


@pytest.mark.parametrize("f, point, zero", [
    (lambda x: math.sqrt(x ** 4), 0.0, 0.0),  # x**2: 0/0 in sqrt's rule
    (lambda x: mpmath.sqrt(x ** 4), mpmath.mpf(0), mpmath.mpf(0)),
    (lambda x: math.hypot(x * x, x * x), 0.0, 0.0),  # sqrt(2) x**2
    (lambda x: x ** 0, 0.0, 0.0),  # constant 1.0
    (lambda x: x ** 0, mpmath.mpf(0), mpmath.mpf(0)),
    (lambda y: 0.0 ** y, 2.0, 0.0),  # 0 for every y > 0
    (lambda y: mpmath.mpf(0) ** y, mpmath.mpf(2), mpmath.mpf(0)),
])
def test_zero_tangents_at_zero_over_zero_edges_keep_the_points_type(f, point, zero):
    assert same(D(f, point), zero)


# A slot overwritten with an equal small int --------------------------------------------------

G = None


def overwrite_global(x):
    global G
    G = x
    before = G * 3
    G = 2  # plain: the same object as the raw of x at 2
    return before + G * 5


def overwrite_cell(x):
    c = x

    def read():
        return c

    before = read() * 3
    c = 2
    return before + read() * 5


@pytest.mark.parametrize("f", [overwrite_global, overwrite_cell])
def test_a_global_or_closure_cell_overwritten_with_an_equal_small_int_drops_the_old_tangent(f):
    assert D(f, 2) == 3  # 3 from before the overwrite, 0 from after
    assert D(f, 2.0) == 3.0


# The store: bounded within a run, emptied at its end ------------------------------------------


def store_size():
    return 0


class Measured(StrMeta):
    """Records the size of its store when `store_size()` is called in the run."""

    @primitive(store_size)
    def measure(self):
        self.metadata.append(len(self.tag.store))
        return 0


def concatenate_displays(x, n):
    for i in range(n):
        t = [x] + [1.0]
        if i % 500 == 499:
            store_size()
    return t[0]


def concatenate_held(x, n):
    xs = [x]
    for i in range(n):
        t = xs + [1.0]
        u = xs * 2
        if i % 500 == 499:
            store_size()
    return u[1]


@pytest.mark.parametrize("f", [concatenate_displays, concatenate_held])
def test_the_store_stays_bounded_under_concatenation_temporaries_and_empties_after_the_run(f):
    ctx = enabletagging(Measured(metadata=[]), f)
    result = overdub(ctx, f, tag(1.5, ctx, "m"), 5000)
    assert ctx.metadata and max(ctx.metadata) < 2000, ctx.metadata  # 10000 unswept
    assert untag(result, ctx) == 1.5 and metadata(result, ctx) == "m"
    assert len(ctx.tag.store) == 0, len(ctx.tag.store)  # every temporary released


def sum_of_concatenations(x, n):
    xs = [x]
    total = 0.0
    for _ in range(n):
        t = xs + [1.0]
        total = total + t[0] * t[1]
    return total


def test_a_derivative_through_thousands_of_concatenations_is_right():
    assert D(lambda x: sum_of_concatenations(x, 3000), 1.0) == 3000.0


# A send that raises leaves nothing behind ----------------------------------------------------


def echo():
    got = None
    while True:
        got = yield got


def send_too_early_then_plain(x):
    g = echo()
    try:
        g.send(x)  # TypeError: a just-started generator takes only None
    except TypeError:
        pass
    next(g)
    return g.send(2) * 1  # plain 2: no derivative


def test_a_generator_send_that_raises_leaves_nothing_in_the_store():
    ctx = enabletagging(StrMeta(), send_too_early_then_plain)
    result = overdub(ctx, send_too_early_then_plain, tag(2, ctx, "m"))
    assert untag(result, ctx) == 2 and ctx.tag.store.sent == {}
    assert D(send_too_early_then_plain, 2) == 0
