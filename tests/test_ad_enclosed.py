"""An inner derivative that does not depend on its own variable changes nothing for
the derivative enclosing it.

A derivative taken inside another runs its rules, its foreign calls and its own
bookkeeping natively under the enclosing one, which sees only what it must: the
arithmetic on its values and the calls it would make itself (`enclosed`). Where
the inner derivative has nothing of its own to follow, every such shortcut is
taken, so the enclosing derivative must come out exactly as at depth one. Two
laws say so, each with an exact oracle, `D(f, x)` itself:

* `f` run inside a derivative by a variable it does not use (`unused`);
* `f(x) * u` differentiated by `u` at 1, inside the derivative by `x`
  (`times_an_inner_variable`): d/du (f(x) u) = f(x), so its derivative by `x` is
  f'(x), with both derivatives' tangents meeting in one product.

A refusal (or any other error) at depth one is the same error nested, and a
derivative at depth one is the same number, of the same type, nested. The
subjects are the other test files' own, imported: the real-code suite, the C
entry points of `docs/callbacks.md`, the random programs of the hunt, the
take-apart primitives, the standard-library entry points, everyday Python,
itertools, mappings, C constructors, `match`, the routes into Python code, class
bodies, the stores into C storage, the Python twins of C accelerators and the methods of the
number types.
"""

import copy
import math
import sys
import weakref
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ad import D, NonDifferentiableError, jvp
from contexts import Context, overdub, recurse
from tests import (test_ad_class_bodies, test_ad_constructors, test_ad_everyday, test_ad_hunt,
                   test_ad_itertools, test_ad_mappings, test_ad_match,
                   test_ad_nested_takeapart, test_ad_number_methods, test_ad_routes,
                   test_ad_stores, test_ad_twins, test_stdlib)
from tests.test_ad_callbacks import REFUSED, ROWS
from tests.test_ad_realcode import CASES

numbers = test_ad_number_methods


def inside_an_unused_derivative(f):
    """`f`, run inside a derivative by a variable it does not use."""
    return lambda x: jvp(lambda unused: f(x), (0.5,), (1.0,))[0]


def times_an_inner_variable(f):
    """The derivative by `u` at 1 of `f(x) * u`: `f(x)`, carrying both tangents on its way."""
    return lambda x: D(lambda u: f(x) * u, 1)


_NUMBERS = (int, float, complex, Fraction)
LAWS = {"unused": inside_an_unused_derivative, "times-u": times_an_inner_variable}
laws = pytest.mark.parametrize("law", list(LAWS.values()), ids=list(LAWS))


def outcome(f, x):
    """`D(f, x)`, or the exception it raised."""
    try:
        return D(f, x)
    except Exception as error:  # noqa: BLE001 (compared with the other run's)
        return error


def assert_as_at_depth_one(law, f, x):
    """`D(law(f), x)` is `D(f, x)`: the same number of the same type (an ndarray:
    the same numbers bitwise, of the same dtype and shape), or an error of the same
    type (a refusal stays a refusal, and nothing else becomes one)."""
    expected = outcome(f, x)
    if law is times_an_inner_variable and not isinstance(expected, Exception):
        if not isinstance(expected, _NUMBERS) and not _is_array(expected):
            pytest.skip("f(x) * u needs f(x) to be a number or an array")
        expected = expected * 1  # times u's value, as the rule does: (inf+0j) * 1 is (inf+nanj)
    got = outcome(law(f), x)
    if isinstance(expected, Exception):
        assert type(got) is type(expected), (expected, got)
    elif _is_array(expected):
        assert _is_array(got) and got.dtype == expected.dtype and \
            got.tobytes() == expected.tobytes() and got.shape == expected.shape, (expected, got)
    else:
        assert not isinstance(got, Exception), (expected, got)
        assert numbers.same(got, expected) if isinstance(got, _NUMBERS) else \
            got == expected and type(got) is type(expected), (expected, got)


def _is_array(value):
    numpy = sys.modules.get("numpy")
    return numpy is not None and type(value) is numpy.ndarray


# The real-code suite and the C entry points ---------------------------------------

def _scalar_cases():
    for case in CASES:
        if case.fails or case.grad or case.jac or case.order != 1:
            continue
        yield pytest.param(case, id=case.id, marks=case.marks)


@laws
@pytest.mark.parametrize("case", list(_scalar_cases()))
def test_real_code_inside_an_inner_derivative_is_as_at_depth_one(case, law):
    if case.needs:
        pytest.importorskip(case.needs)
    assert_as_at_depth_one(law, case.f, case.x)


@laws
@pytest.mark.parametrize("name", ROWS)
def test_a_c_entry_point_inside_an_inner_derivative_is_as_at_depth_one(name, law):
    row = ROWS[name]
    with row.around():
        if row.expected is REFUSED:
            with pytest.raises(NonDifferentiableError):
                D(law(row.f), row.point)
        else:
            assert_as_at_depth_one(law, row.f, row.point)


# The random programs of the hunt ----------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(test_ad_hunt.steps_strategy, test_ad_hunt.points, st.sampled_from(list(LAWS.values())))
def test_random_programs_inside_an_inner_derivative_are_as_at_depth_one(steps, x, law):
    assert_as_at_depth_one(law, test_ad_hunt.program(steps), x)


# The random numpy programs of the numpy hunt, and the numpy tests' functions --------

def _numpy_hunt():
    pytest.importorskip("numpy")
    from tests import test_ad_numpy_hunt
    return test_ad_numpy_hunt


@settings(max_examples=80, deadline=None)
@given(st.data(), st.sampled_from(list(LAWS.values())))
def test_random_numpy_programs_inside_an_inner_derivative_are_as_at_depth_one(data, law):
    hunt = _numpy_hunt()
    body, result = data.draw(hunt.programs(max_steps=4))
    t = data.draw(hunt.points)
    with hunt.np.errstate(all="ignore"):
        assert_as_at_depth_one(law, hunt.module_of(hunt.source_of(body, result)).f, t)


def _numpy_subjects():
    """The programs of PyTorch's view cases (`test_ad_numpy_views.CASES`)."""
    try:
        from tests import test_ad_numpy_views as views
    except pytest.skip.Exception:  # numpy is not installed
        return []
    hunt = _numpy_hunt()
    return [pytest.param(hunt.module_of(hunt.source_of(body, result)).f, id=name)
            for name, (body, result) in views.CASES.items()]


@laws
@pytest.mark.parametrize("f", _numpy_subjects())
@pytest.mark.parametrize("x", [1.3, 2.0])
def test_numpy_views_inside_an_inner_derivative_are_as_at_depth_one(f, x, law):
    assert_as_at_depth_one(law, f, x)


# Subjects of the other test files, and the laws' own finds: (source, f, point) ----------

def deletes_by_a_bound_slot(x):
    """`xs.__delitem__(0)`: refused (list.__delitem__ on a list holding a derivative);
    nested, the slot wrapper bound to the list came to the enclosing derivative as a
    call of its own, receiver unseen, and it gave 0."""
    xs = [1.0, x]
    xs.__delitem__(0)
    return xs[0]


def deletes_by_a_held_bound_slot(x):
    """The same, the bound slot wrapper held in a local: it gave 0 at depth one too."""
    xs = [1.0, x]
    delete = xs.__delitem__
    delete(0)
    return xs[0]


class Key:
    """A weakly referenced key."""


def weak_key_dictionary(x):
    """The store's sweep at the enclosing derivative's end lets the key go, whose
    weakref callback takes the dictionary's entry with it: the sweep met an entry
    already gone (KeyError, nested only)."""
    key = Key()
    table = weakref.WeakKeyDictionary()
    table[key] = x
    return table[key] * 2


def weak_reference(x):
    """`weakref.ref` of an object holding a derivative: the reference gives the very
    object back, whose slots keep their derivatives, at depth one and nested."""
    held = Key()
    held.v = x
    return weakref.ref(held)().v * 2


FOUND = [deletes_by_a_bound_slot, deletes_by_a_held_bound_slot, weak_key_dictionary,
         weak_reference,
         # the hunt's finds at depth one (issue 18)
         test_ad_everyday.fraction_to_a_user_power, test_ad_everyday.user_base_to_a_fraction,
         *(f for f, _ in test_ad_mappings.VIEW_SETS + test_ad_mappings.PROXIES)]



def test_a_c_method_bound_to_a_container_holding_a_derivative_is_refused():
    for f in (deletes_by_a_bound_slot, deletes_by_a_held_bound_slot):
        with pytest.raises(NonDifferentiableError, match="list.__delitem__"):
            D(f, 2.0)

def _along_one_variable(h):
    """g(v) = h(v, v*v, v+1), as the take-apart tests differentiate `h`."""
    return lambda v: h(v, v * v, v + 1)


def _with_argument(f, args, position):
    """`f(*args)` as a function of its argument at `position` (the others copied)."""
    def one(x):
        given_args = copy.deepcopy(list(args))
        given_args[position] = x
        return f(*given_args)
    return one


def _keeping(make, store):
    """A store into C storage that keeps its argument (`test_ad_stores.KEEPERS`)."""
    def f(x):
        store(make(), x * 2)
        return x
    return f


def _subjects():
    for f in FOUND:
        for x in (2.0, 2):
            yield "found", f.__name__, f, x
    takeapart = test_ad_nested_takeapart
    for h in takeapart.SUBJECTS:
        for x in (1.5, 2, -3):
            yield "takeapart", h.__name__, _along_one_variable(h), x
    everyday = test_ad_everyday
    for cases, points in ((everyday.CONTAINER_CASES, (5, 5.0, -1.5)),
                          (everyday.REFLECTED_CASES, (2, 2.0, Fraction(1, 3))),
                          (everyday.DUNDER_CASES, (3, 3.0))):
        for index, (f, _) in enumerate(cases):
            for x in points:
                yield "everyday", index, f, x
    for index, f in enumerate(test_ad_itertools.SUBJECTS):
        for x in (Fraction(3, 2), -1, 2.5):
            yield "itertools", index, f, x
    for index, (f, _) in enumerate(test_ad_mappings.VIEWS + test_ad_mappings.ORDERED_METHODS):
        for x in (2.0, 2):
            yield "mappings", index, f, x
    for index, (f, _) in enumerate(test_ad_constructors.CONSTRUCTED):
        yield "constructors", test_ad_constructors.CONSTRUCTED_IDS[index], f, 2.0
    for f, _ in test_ad_match.CAPTURES:
        yield "match", f.__name__, f, 2.0
    routes = test_ad_routes
    for f in (routes.default_value, routes.keyword_default,
              *[returned for returned, *_ in routes.RETURNED], routes.closed,
              routes.closed_while_delegated, routes.class_body_reading_a_closure,
              routes.class_body_reading_a_global):
        yield "routes", f.__name__, f, 2.0
    bodies = test_ad_class_bodies
    for f in (*bodies.SUBJECTS, bodies.transcendental, *bodies.REFUSED):
        for x in (Fraction(3, 2), 2.0):
            yield "class-bodies", f.__name__, f, x
    stores = test_ad_stores
    for f, x in ((stores.into_array, 1.5), (stores.through_a_memoryview, 1.5),
                 (stores.into_a_bytearray, 7), (stores.into_a_ctypes_field, 1.5),
                 (stores.stores_constants, 1.5), (stores.caught, 1.5)):
        yield "stores", f.__name__, f, x
    for name, (make, store, _) in stores.KEEPERS.items():
        yield "stores", name, _keeping(make, store), 1.5
    for k in range(3):
        yield "twins", k, lambda x, k=k: test_ad_twins.heap_sorted(x, [3, -1, 2])[k] * x, 2.0
    for ident, f, args, _ in test_stdlib.ENTRIES:
        for position, a in enumerate(args):
            if type(a) in (int, float):
                yield "stdlib", f"{ident}-{position}", _with_argument(f, args, position), a


def _named(source, name, f):
    return f"{source}-{f.__name__ if f.__name__ != '<lambda>' and source != 'stdlib' else name}"


SUBJECTS = [pytest.param(f, x, id=f"{_named(source, name, f)}-{x!r}")
            for source, name, f, x in _subjects()]


@laws
@pytest.mark.parametrize("f, x", SUBJECTS)
def test_a_subject_inside_an_inner_derivative_is_as_at_depth_one(f, x, law):
    assert_as_at_depth_one(law, f, x)


# The methods of the number types ----------------------------------------------------


def _declined(result):
    return 0.0 if result is NotImplemented else result


@settings(max_examples=200, deadline=None)
@given(numbers.with_receiver(numbers.BINARY), numbers.numbers, st.booleans(),
       st.sampled_from(list(LAWS.values())))
def test_an_unbound_dunder_inside_an_inner_derivative_is_as_at_depth_one(
        case_and_receiver, other, second, law):
    (_, dunder, _, _), receiver = case_and_receiver
    if second:  # the other argument differentiated
        assert_as_at_depth_one(law, lambda b: _declined(dunder(receiver, b)), other)
    else:
        assert_as_at_depth_one(law, lambda a: _declined(dunder(a, other)), receiver)


@settings(max_examples=100, deadline=None)
@given(numbers.with_receiver(numbers.UNARY), st.sampled_from(list(LAWS.values())))
def test_a_unary_dunder_inside_an_inner_derivative_is_as_at_depth_one(case_and_receiver, law):
    (_, dunder, _), x = case_and_receiver
    assert_as_at_depth_one(law, dunder, x)


@laws
@pytest.mark.parametrize("f", [numbers.ratio, numbers.exact_ratio, numbers.numerator])
@pytest.mark.parametrize("x", [0.7, Fraction(7, 10), 3, 5e-324], ids=repr)
def test_as_integer_ratio_inside_an_inner_derivative_is_as_at_depth_one(f, x, law):
    assert_as_at_depth_one(law, f, x)


# A context of any kind entered inside a derivative runs its `overdub` entry natively
# under it (`contexts._api._overdub_enclosed`): its first call is still the context's own.

class _CosineForSine(Context):
    """Runs `math.cos` where `math.sin` is called: its own `overdub` hook decides."""

    def overdub(self, f, *args, **kwargs):
        return recurse(self, math.cos if f is math.sin else f, *args, **kwargs)


def _mpmath_derivative(f, x):
    with mpmath.workdps(40):
        return float(mpmath.diff(f, mpmath.mpf(x)))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_an_inner_contexts_own_overdub_hook_runs_first_inside_derivatives(depth):
    g = lambda x: overdub(_CosineForSine(), math.sin, x)  # noqa: E731 (cos, by the hook)
    for _ in range(depth):
        g = D(g)
    oracle = [mpmath.cos, lambda x: -mpmath.sin(x), lambda x: -mpmath.cos(x)][depth - 1]
    assert g(0.3) == pytest.approx(_mpmath_derivative(oracle, 0.3), rel=1e-12)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_an_empty_context_inside_derivatives_runs_its_function_in_them(depth):
    g = lambda x: overdub(Context(), math.sin, x) * x  # noqa: E731
    for _ in range(depth):
        g = D(g)
    oracle = lambda x: mpmath.sin(x) * x  # noqa: E731
    with mpmath.workdps(40):
        expected = float(mpmath.diff(oracle, mpmath.mpf(0.3), depth))
    assert g(0.3) == pytest.approx(expected, rel=1e-12)
