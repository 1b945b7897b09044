"""ad: derivatives of ordinary Python, nested without confusion, never silently wrong."""

import array
import concurrent.futures
import gc
import math
import struct
import subprocess
import sys
import threading
from collections import deque
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ad
from ad import D, NonDifferentiableError, gradient, hessian, jacobian, jvp
from tagging import Tagged
from tests import ad_subjects as subjects


# The seeds ---------------------------------------------------------------------------

def test_the_seed_examples():
    assert D(math.sin, 1.0) == math.cos(1.0)
    assert D(lambda x: math.sin(x) * math.cos(x), 1.0) == pytest.approx(
        math.cos(1.0) ** 2 - math.sin(1.0) ** 2, rel=1e-15)
    assert D(lambda x: x * D(lambda y: x * y, 3), 5) == 10
    assert D(lambda x: x * subjects.foo_bar_identity(x), 1.0) == 2.0


def test_siskind_pearlmutter():
    assert D(lambda x: x * D(lambda y: x + y, 1), 1) == 1
    assert D(lambda x: x * D(lambda y: x * y, 2), 1) == 2
    assert D(lambda x: x * D(lambda y: x * y, 1), 4) == 8


def _tuple_unpacked(y, v):
    a, b, c = (y, v, v)
    return a * b * c


def _list_unpacked(y, v):
    a, b, c = [y, v, v]
    return a * b * c


def _star_unpacked(y, v):
    a, *rest = (y, v, v)
    return a * rest[0] * rest[1]


def _nested_unpacked(y, v):
    (a, b), c = ((y, v), v)
    return a * b * c


def _loop_unpacked(y, v):
    total = 0
    for a, b in [(y, v), (v, y)]:
        total = total + a * b * v
    return total / 2


@pytest.mark.parametrize("g", [_tuple_unpacked, _list_unpacked, _star_unpacked,
                               _nested_unpacked, _loop_unpacked], ids=lambda g: g.__name__)
def test_an_inner_derivative_unpacking_the_outer_variable_keeps_its_tangent(g):
    """g(y, v) = y v^2 through an unpacking: d/dv [d/dy g(y, v) at y = 1] = 2v. The
    inner derivative's unpacking runs under the outer one, which must see the items
    taken out of the tuple (they were plain to it: the derivative was 0)."""
    assert D(lambda v: D(lambda y: g(y, v), 1), 3) == 6


@pytest.mark.parametrize("take", [
    lambda v: [1.0, v].pop(), lambda v: [v, 1.0].pop(0), lambda v: deque([1.0, v]).pop(),
    lambda v: deque([v, 1.0]).popleft(), lambda v: {"a": v}.pop("a"),
    lambda v: {"a": v}.popitem()[1], lambda v: {v}.pop()],
    ids=["list.pop", "list.pop(0)", "deque.pop", "deque.popleft", "dict.pop",
         "dict.popitem", "set.pop"])
def test_a_popped_element_keeps_both_tangents_when_nested(take):
    """d²/dv² (popped v)² = 2: the inner derivative's `pop` runs under the outer one, so
    the element comes back carrying the outer tangent too (lists and deques gave 0)."""
    assert D(lambda v: take(v) ** 2, 3.0) == 6.0
    assert D(D(lambda v: take(v) ** 2), 3.0) == 2.0


@given(st.integers(-300, 300), st.integers(-300, 300))
def test_nesting_at_integer_points_is_exact(x, y):
    """Small ints are shared objects; identity must never decide whose tangent a value
    carries (d/dx [x * d/dy (x*y)] = 2x)."""
    assert D(lambda a: a * D(lambda b: a * b, y), x) == 2 * x


@pytest.mark.parametrize("f", list(subjects.SHARED), ids=lambda f: f.__name__)
def test_one_small_int_at_two_positions_keeps_each_tangent(f):
    """At the int 2, `x` and `x*x - x` are one object: reordering, popping, inserting,
    removing, slicing or bounding a container moves each tangent with its position."""
    assert D(f, 2) == subjects.SHARED[f] == D(f, 2.0)
    assert D(D(lambda y: f(y) * y), 2) == D(D(lambda y: f(y) * y), 2.0)


def test_higher_order():
    assert D(D(D(math.sin)))(0.5) == pytest.approx(-math.cos(0.5), rel=1e-14)
    assert D(D(lambda x: x ** 5))(2) == 5 * 4 * 2 ** 3
    assert D(D(D(D(math.exp))))(1.0) == pytest.approx(math.e, rel=1e-14)


def test_the_number_tower():
    assert D(lambda x: x ** 3, 2) == 12 and type(D(lambda x: x ** 3, 2)) is int
    assert D(lambda x: x ** 3 + x / 3, Fraction(1, 2)) == Fraction(3, 4) + Fraction(1, 3)
    with mpmath.workdps(40):
        got = D(lambda x: mpmath.mpf(1) / x, mpmath.mpf(3))
        assert isinstance(got, mpmath.mpf)
        assert abs(got + mpmath.mpf(1) / 9) < mpmath.mpf(10) ** -38
    assert D(lambda z: z * z, 1 + 2j) == 2 + 4j
    assert D(lambda x: x * 0.5 + 1, 3) == 0.5


# Ordinary Python -----------------------------------------------------------------------

@pytest.mark.parametrize("f, x, expected", [
    (subjects.uses_vectors, 1.5, None),
    (subjects.uses_slots, 2.0, 4.0),
    (subjects.validated, 3.0, 4.0 * 3.0),
    (subjects.uses_generator, 2.0, 1 + 2 * 2.0 + 3 * 2.0 ** 2),
    (subjects.uses_comprehensions, 2.0, 6.0),
    (subjects.recursive, 2.0, 5 * 2.0 ** 4),
    (subjects.counter, 3.0, 1 + 2 * 3.0),
    (subjects.with_try, 3.0, 6.0),
    (subjects.uses_cache, 4.0, 8.0),
])
def test_ordinary_python(f, x, expected):
    if expected is None:
        h = 1e-6
        expected = (f(x + h) - f(x - h)) / (2 * h)
        assert D(f, x) == pytest.approx(expected, rel=1e-7)
    else:
        assert D(f, x) == pytest.approx(expected, rel=1e-14)


def test_structured_results_have_the_same_shape():
    point = D(subjects.makes_point, 2.0)
    assert type(point) is subjects.Point
    assert point == subjects.Point(4.0, math.cos(2.0))
    pair = D(subjects.makes_pair, 2.0)
    assert type(pair) is subjects.Pair and pair == (1.0, 12.0)
    assert D(lambda x: [x, x * x], 3.0) == [1.0, 6.0]
    assert D(lambda x: {"a": x * x, "b": 1.0}, 3.0) == {"a": 6.0, "b": 0.0}
    assert D(lambda x: (x, 2), 3.0) == (1.0, 0)


def test_lru_cache_is_seen_through():
    subjects.cached_square.cache_clear()
    assert subjects.uses_cache(3.0) == 9.0  # a plain call fills the cache
    assert D(subjects.uses_cache, 3.0) == 6.0
    assert D(D(subjects.uses_cache), 3.0) == 2.0


def test_attributes_of_numbers():
    assert D(lambda x: x.real * x, 2.0) == 4.0
    assert D(lambda x: x.conjugate() * x, 2.0) == 4.0
    assert D(lambda z: (z * z).imag, 1 + 1j) == 2.0  # d/dx Im((x+iy)**2) = 2y
    assert D(lambda x: (x * 1j).imag, 2.0) == 1.0


def test_piecewise_constant_functions_have_derivative_zero():
    for f in (int, round, math.floor, math.ceil, math.trunc, lambda x: x // 1,
              lambda x: float(x > 1)):
        assert D(lambda x: f(x) * 1.0 + 0 * x, 2.5) == 0.0
    assert D(lambda x: len(str(x)) * x, 2.5) == 3


def test_ties_follow_python():
    assert D(lambda x: max(x, 2.0 * x - 1.0), 1.0) == 1.0  # equal: max keeps the first
    assert D(lambda x: min(2.0 * x - 1.0, x), 1.0) == 2.0
    assert D(lambda x: sorted([2.0 * x - 1.0, x])[0], 1.0) == 2.0


# State ------------------------------------------------------------------------------------

def _state():
    return (subjects.SCALE, list(subjects.history))


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-10, 10))
def test_state_after_D_equals_state_after_a_plain_call(x):
    saved = _state()
    subjects.stores_in_the_heap(x)
    plain = _state()
    subjects.SCALE, subjects.history[:] = saved[0], saved[1]
    D(subjects.stores_in_the_heap, x)
    assert _state() == plain
    assert type(subjects.SCALE) is float
    assert all(type(v) is float for v in subjects.history)
    subjects.SCALE, subjects.history[:] = saved[0], saved[1]


def test_an_exception_propagates_with_the_plain_state():
    before = len(subjects.history)
    with pytest.raises(ValueError, match="boom") as raised:
        D(subjects.raises_after_a_store, 1.5)
    assert subjects.history[before:] == [3.0] and type(subjects.history[-1]) is float
    assert "raises_after_a_store" in "".join(map(str, raised.traceback))
    del subjects.history[before:]


def test_primal_exceptions_are_the_plain_ones():
    with pytest.raises(ZeroDivisionError):
        D(lambda x: 1.0 / (x - x), 1.0)
    with pytest.raises(ValueError, match="math domain error"):
        D(math.sqrt, -1.0)


def test_no_tagged_value_reaches_the_heap():
    holder = []
    D(lambda x: holder.append(x * 2) or x, 1.5)
    assert holder == [3.0] and type(holder[0]) is float
    gc.collect()
    assert not any(type(o) is Tagged for o in gc.get_objects())


# Perturbation confusion through state ------------------------------------------------------

def test_values_that_escape_a_derivative_are_constants_later():
    leaked = []

    def leak(x):
        leaked.append(x)
        return x

    D(leak, 1.0)
    # A sibling derivative reads the escaped value: it is a constant there.
    assert D(lambda x: x * leaked[0], 1.0) == 1.0

    cell = []

    def outer(x):
        def inner(y):
            cell.append(y)
            return y
        D(inner, x)
        return x * cell[-1]

    # The escaped inner point is the outer's x: the living outer derivative keeps its
    # tangent (d/dx x*x), the dead inner one is gone.
    assert D(outer, 3.0) == 6.0


def test_escape_through_globals_class_attributes_defaults_and_exceptions():
    class Holder:
        value = 0.0

    def through_class(x):
        Holder.value = x
        return x

    D(through_class, 2.0)
    assert D(lambda x: x * Holder.value, 1.0) == 2.0

    def through_exception(x):
        raise ArithmeticError(x)

    try:
        D(through_exception, 5.0)
    except ArithmeticError as error:
        escaped = error.args[0]
    assert type(escaped) is float
    assert D(lambda x: x * escaped, 1.0) == 5.0

    def make(x):
        def g(y, k=x):
            return y * k
        return g

    made = []
    D(lambda x: made.append(make(x)) or x, 4.0)
    assert D(lambda y: made[0](y), 1.0) == 4.0


def test_many_sibling_derivatives_stay_correct_and_flat():
    import tracemalloc

    f = subjects.uses_slots
    for _ in range(200):
        D(f, 2.0)
    tracemalloc.start()
    gc.collect()
    start = tracemalloc.get_traced_memory()[0]
    for i in range(2000):
        assert D(f, 2.0) == 4.0
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    assert grown < 200_000, grown


# Never silently wrong ---------------------------------------------------------------------

@pytest.mark.parametrize("f, named", [
    (lambda x: struct.pack("d", x), "struct.pack"),
    (lambda x: array.array("d", [x, 1.0])[0], "array"),
    (lambda x: float.__divmod__(x, 2.0)[1], "__divmod__"),
    (lambda x: x.__divmod__(2.0)[1], "__divmod__"),
])
def test_foreign_code_that_would_drop_a_derivative_refuses(f, named):
    with pytest.raises(NonDifferentiableError, match=named) as raised:
        D(f, 1.5)
    assert "ad.rule" in str(raised.value)
    assert "test_ad.py" in str(raised.value)  # the user's call site


def test_a_function_without_source_refuses():
    namespace = {}
    exec("def made(x):\n    return x * x\n", namespace)
    with pytest.raises(NonDifferentiableError, match="made") as raised:
        D(lambda x: namespace["made"](x), 2.0)
    assert "a .py file or a notebook cell" in str(raised.value)
    assert "@ad.rule(made)" in str(raised.value)  # it has a name to register a rule by


PYTHON = f"py{sys.version_info.major}.{sys.version_info.minor}"


@pytest.mark.parametrize("python", [PYTHON])
def test_a_lambda_typed_at_the_command_line(python):
    """Python 3.13 keeps the source of `python -c` code, so its lambda is differentiated;
    before 3.13 it cannot be read, and the refusal says where to define it instead (a
    lambda has no name to register a rule by)."""
    run = subprocess.run(
        [sys.executable, "-c", "import ad; print(ad.D(lambda x: x * x, 2.0))"],
        capture_output=True, text=True)
    if sys.version_info >= (3, 13):
        assert (run.returncode, run.stdout) == (0, "4.0\n"), run.stderr
    else:
        assert run.returncode != 0
        assert "NonDifferentiableError" in run.stderr and "cannot be read" in run.stderr
        assert "a .py file or a notebook cell" in run.stderr
        assert "ad.rule" not in run.stderr


def test_function_valued_results_are_refused():
    with pytest.raises(TypeError, match="returned a function"):
        D(lambda o: (lambda g: g(o)), 3.0)


# Rules -------------------------------------------------------------------------------------

def soft(x):
    return math.log1p(math.exp(x))


def test_a_user_rule_is_used_and_nests():
    calls = []

    @ad.rule(soft)
    def soft_rule(primals, tangents):
        (x,), (t,) = primals, tangents
        calls.append(x)
        return soft(x), t / (1 + math.exp(-x))

    assert D(soft, 0.0) == 0.5 and calls
    assert D(D(soft), 0.0) == pytest.approx(0.25, rel=1e-12)


def test_a_user_rule_closing_over_an_outer_value():
    def scaled(x):
        return x

    outer = {}

    def run(a):
        @ad.rule(scaled)
        def scaled_rule(primals, tangents):
            return primals[0] * a, tangents[0] * a
        outer["rule"] = scaled_rule
        return D(lambda x: scaled(x), 1.0)

    assert D(run, 3.0) == 1.0  # d/da [a] = 1


def test_a_malformed_user_rule_is_named():
    def f(x):
        return x

    @ad.rule(f)
    def bad(primals, tangents):
        return primals[0]

    with pytest.raises(TypeError, match="bad.*must return \\(value, tangent\\)"):
        D(lambda x: f(x), 1.0)

    @ad.rule(f)
    def wrong_type(primals, tangents):
        return primals[0], "one"

    with pytest.raises(TypeError, match="wrong_type.*tangent of type str"):
        D(lambda x: f(x), 1.0)


# Bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: D(3.0, 1.0), "needs a function"),
    (lambda: D(math.sin, "1"), "got str '1'"),
    (lambda: D(math.sin, None), "got NoneType"),
    (lambda: D(math.sin, [1.0]), "got list"),
    (lambda: D(math.sin, True), "got bool"),
    (lambda: jvp(math.sin, (1.0,), ()), "one tangent per primal"),
    (lambda: gradient(lambda v: v[0], []), "non-empty list"),
    (lambda: D(lambda x: "text", 1.0), "str has no derivative"),
    (lambda: D(lambda x: None, 1.0), "NoneType has no derivative"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


# jvp, gradient, jacobian, hessian -------------------------------------------------------

def test_jvp_gradient_jacobian_hessian():
    assert jvp(lambda x, y: x * y, (2.0, 3.0), (1.0, 0.5)) == (6.0, 3.0 + 1.0)
    assert gradient(lambda v: v[0] * v[1] ** 2, [2.0, 3.0]) == [9.0, 12.0]
    assert jacobian(lambda v: [v[0] * v[1], v[0] + v[1]], [2.0, 3.0]) == [[3.0, 2.0],
                                                                         [1.0, 1.0]]
    assert hessian(lambda v: v[0] ** 2 * v[1], [2.0, 3.0]) == [[6.0, 4.0], [4.0, 0.0]]


# Random expression trees against mpmath -------------------------------------------------

_UNARY = ["sin", "cos", "exp", "tanh", "atan", "log", "sqrt", "sq"]
_BINARY = ["add", "sub", "mul", "div"]
trees = st.recursive(
    st.sampled_from(["x", "x", 0.5, 2.0, -1.5]),
    lambda children: st.one_of(
        st.tuples(st.sampled_from(_UNARY), children),
        st.tuples(st.sampled_from(_BINARY), children, children)),
    max_leaves=8)


def _oracle(tree, x, order):
    with mpmath.workdps(40):
        return mpmath.diff(lambda t: subjects.evaluate(tree, t, mpmath), mpmath.mpf(x), order)


def _close(got, expected):
    return abs(got - float(expected)) <= 1e-9 * max(1.0, abs(float(expected)))


@pytest.mark.parametrize("order", [1, 2])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees, x=st.floats(-2, 2))
def test_derivatives_of_random_trees_match_mpmath(order, tree, x):
    """First derivatives, and second ones by nesting D, of random expressions."""
    expected = _oracle(tree, x, order)
    if abs(expected) > 1e12:
        return
    f = lambda t: subjects.evaluate(tree, t, math)  # noqa: E731
    try:
        f(x)
    except OverflowError:  # a constant subtree beyond floats: D raises the same
        with pytest.raises(OverflowError):
            D(f, x) if order == 1 else D(D(f), x)
        return
    got = D(f, x) if order == 1 else D(D(f), x)
    assert _close(got, expected), (tree, x, got, expected)


# Concurrency -------------------------------------------------------------------------------

def _nested(x):
    return D(lambda a: a * D(lambda b: a * b * b, x), x)


def test_threads_running_nested_derivatives():
    results, errors = [], []

    def work(seed):
        try:
            for i in range(10):
                x = float(seed + i)
                results.append(_nested(x) == 4 * x * x)
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and results == [True] * 80


def test_D_in_worker_processes():
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        got = list(pool.map(_nested, [1.0, 2.0, 3.0]))
    assert got == [4.0, 16.0, 36.0]


def test_a_structured_result_is_a_new_object():
    point = subjects.Point(1.0, 2.0)
    derived = D(lambda t: subjects.Point(t, point.y), 1.0)
    assert derived == subjects.Point(1.0, 0.0) and point == subjects.Point(1.0, 2.0)


def test_asyncio_tasks_running_nested_derivatives():
    import asyncio

    async def task(x):
        await asyncio.sleep(0)
        first = _nested(x)
        await asyncio.sleep(0)
        return first, D(lambda a: a * D(lambda b: a + b, x), x)

    async def main():
        return await asyncio.gather(*[task(float(n)) for n in range(1, 9)])

    results = asyncio.run(main())
    assert results == [(4.0 * n * n, 1.0) for n in range(1, 9)]


def test_higher_derivatives_at_the_edges_of_rules():
    """A rule's shortcut at a special point (x**2 at 0) must not drop what an
    enclosing derivative needs (found by the random-tree property)."""
    assert D(D(lambda x: x ** 2), 0.0) == 2.0
    assert D(D(D(lambda x: x ** 3)), 0.0) == 6.0
    assert D(D(lambda x: x ** 2), 0) == 2


lambdas_all_the_way = lambda: D(lambda x: D(lambda y: y * x, x), 1.0)  # noqa: E731


def test_lambdas_made_inside_a_lambda_find_their_source():
    """A lambda made by a transformed lambda has the qualname `<lambda>.<locals>.<lambda>`
    (the engine's stand-in for the enclosing lambda used to leak into it)."""
    assert lambdas_all_the_way() == 1.0
    assert D(lambda a: a * lambdas_all_the_way(), 2.0) == 1.0
