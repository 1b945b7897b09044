"""Every rule of `ad/_rules/numpy.py` against a derivative computed apart from it.

Elementwise functions: at each element, mpmath's derivative (`mp.diff`, 40
digits) of the same function written with mpmath, on the float64 inputs, over
hypothesis-drawn shapes (broadcast shapes for two arguments). Linear and
bilinear functions: numpy's own function, by a central difference with step 1,
which is exact for them up to rounding. `solve` and `inv`: a central difference
of mpmath's own at 50 digits. Each: the primal equals numpy's bitwise, and the
tangent has the answer's shape and dtype.
"""

import math

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
hnp = pytest.importorskip("hypothesis.extra.numpy")

import ad  # noqa: E402
from ad import D, NonDifferentiableError, jvp  # noqa: E402
from ad._rules import RULES  # noqa: E402
from ad._rules import numpy as numpy_rules  # noqa: E402

mp = mpmath.mp
COVERED: set = set()
SMALL = settings(max_examples=25, deadline=None)


def covers(*functions):
    COVERED.update(functions)
    return functions


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def arrays(shape, lo, hi):
    return hnp.arrays(np.float64, shape, elements=floats(lo, hi))


def same_primal(got, want):
    assert np.shape(got) == np.shape(want)
    assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True)


def shaped_like(tangent, ans):
    assert np.shape(tangent) == np.shape(ans)
    assert np.asarray(tangent).dtype == np.asarray(ans).dtype


def near(got, want, rel=1e-12, floor=1e-13):
    assert abs(got - want) <= rel * abs(want) + floor, (got, want)


# ---------------------------------------------------------------------------
# elementwise, one argument

UNARY = [
    (np.negative, lambda x: -x, -3, 3), (np.positive, lambda x: +x, -3, 3),
    (np.square, lambda x: x * x, -3, 3), (np.reciprocal, lambda x: 1 / x, 0.2, 3),
    (np.sqrt, mp.sqrt, 0.1, 4), (np.absolute, abs, 0.01, 3), (np.fabs, abs, -3, -0.01),
    (np.exp, mp.exp, -3, 3), (np.expm1, mp.expm1, -3, 3), (np.exp2, lambda x: 2 ** x, -3, 3),
    (np.log, mp.log, 0.1, 5), (np.log1p, mp.log1p, -0.9, 5),
    (np.log2, lambda x: mp.log(x, 2), 0.1, 5), (np.log10, mp.log10, 0.1, 5),
    (np.sin, mp.sin, -3, 3), (np.cos, mp.cos, -3, 3), (np.tan, mp.tan, -1.2, 1.2),
    (np.arcsin, mp.asin, -0.95, 0.95), (np.arccos, mp.acos, -0.95, 0.95),
    (np.arctan, mp.atan, -3, 3), (np.sinh, mp.sinh, -3, 3), (np.cosh, mp.cosh, -3, 3),
    (np.tanh, mp.tanh, -3, 3), (np.arcsinh, mp.asinh, -3, 3), (np.arccosh, mp.acosh, 1.1, 5),
    (np.arctanh, mp.atanh, -0.95, 0.95), (np.real, lambda x: x, -3, 3),
    (np.imag, lambda x: 0 * x, -3, 3), (np.conjugate, lambda x: x, -3, 3),
]


@pytest.mark.parametrize("f, fm, lo, hi", UNARY, ids=[u[0].__name__ for u in UNARY])
@SMALL
@given(data=st.data())
def test_unary_elementwise_rules(f, fm, lo, hi, data):
    covers(f)
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    x, v = data.draw(arrays(shape, lo, hi)), data.draw(arrays(shape, -2, 2))
    value, tangent = jvp(lambda a: f(a), (x,), (v,))
    same_primal(value, f(x))
    shaped_like(tangent, value)
    with mp.workdps(40):
        for index in np.ndindex(shape):
            want = float(mp.diff(fm, mp.mpf(x[index]))) * v[index]
            near(np.asarray(tangent)[index], want)


def test_abs_at_zero_takes_the_nonnegative_branch_and_keeps_its_second_derivative():
    covers(np.absolute)
    assert np.array_equal(jvp(lambda a: np.abs(a), (np.zeros(2),), (np.ones(2),))[1], [1, 1])
    assert D(D(lambda t: np.abs(t * np.ones(1))[0] ** 2), 0.0) == 2.0


def test_sqrt_at_zero_is_an_infinity_of_the_tangent_sign_and_zero_stays_zero():
    _, tangent = jvp(lambda a: np.sqrt(a), (np.zeros(3),), (np.array([1.0, -1.0, 0.0]),))
    assert tangent[0] == math.inf and tangent[1] == -math.inf and tangent[2] == 0.0


def test_abs_of_complex_is_real_linear():
    z = np.array([3 + 4j, -1 + 0.5j])
    dz = np.array([1 + 2j, 0.5 - 1j])
    _, tangent = jvp(lambda a: np.abs(a), (z,), (dz,))
    assert tangent.dtype == np.float64
    assert np.allclose(tangent, np.real(np.conj(z) * dz) / np.abs(z), rtol=1e-15)


# ---------------------------------------------------------------------------
# elementwise, two arguments, broadcasting

BINARY = [
    (np.add, lambda x, y: x + y, (-3, 3), (-3, 3)),
    (np.subtract, lambda x, y: x - y, (-3, 3), (-3, 3)),
    (np.multiply, lambda x, y: x * y, (-3, 3), (-3, 3)),
    (np.divide, lambda x, y: x / y, (-3, 3), (0.3, 3)),
    (np.power, lambda x, y: x ** y, (0.2, 3), (-2, 2)),
    (np.arctan2, mp.atan2, (-3, 3), (0.1, 3)),
    (np.hypot, mp.hypot, (-3, 3), (0.1, 3)),
    (np.maximum, max, (-3, 3), (-3, 3)),
    (np.minimum, min, (-3, 3), (-3, 3)),
    (np.remainder, lambda x, y: x - mp.floor(x / y) * y, (-3, 3), (0.3, 3)),
]


@pytest.mark.parametrize("f, fm, xs, ys", BINARY, ids=[b[0].__name__ for b in BINARY])
@SMALL
@given(data=st.data())
def test_binary_elementwise_rules_with_broadcasting(f, fm, xs, ys, data):
    covers(f)
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2,
                                                         max_side=3))
    (sx, sy), out = shapes.input_shapes, shapes.result_shape
    x, y = data.draw(arrays(sx, *xs)), data.draw(arrays(sy, *ys))
    vx, vy = data.draw(arrays(sx, -2, 2)), data.draw(arrays(sy, -2, 2))
    bx, by = np.broadcast_to(x, out), np.broadcast_to(y, out)
    if f in (np.maximum, np.minimum):
        assume(not np.any(np.abs(bx - by) < 1e-6))  # ties: see the test below
    if f is np.remainder:
        assume(np.all(np.abs(bx / by - np.round(bx / by)) > 1e-6))
    value, tangent = jvp(lambda a, b: f(a, b), (x, y), (vx, vy))
    same_primal(value, f(x, y))
    shaped_like(tangent, value)
    bvx, bvy = np.broadcast_to(vx, out), np.broadcast_to(vy, out)
    with mp.workdps(40):
        for index in np.ndindex(out):
            point = (mp.mpf(bx[index]), mp.mpf(by[index]))
            want = float(mp.diff(fm, point, (1, 0))) * bvx[index] + \
                float(mp.diff(fm, point, (0, 1))) * bvy[index]
            near(np.asarray(tangent)[index], want, rel=1e-11, floor=1e-12)


def test_maximum_and_minimum_split_a_tie_half_each():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])
    gx, gy = np.array([2.0, 10.0, 100.0]), np.array([4.0, 1000.0, 7.0])
    _, high = jvp(lambda a, b: np.maximum(a, b), (x, y), (gx, gy))
    _, low = jvp(lambda a, b: np.minimum(a, b), (x, y), (gx, gy))
    assert np.array_equal(high, [3.0, 1000.0, 100.0])
    assert np.array_equal(low, [3.0, 10.0, 7.0])


def test_power_at_zero_follows_the_scalar_conventions():
    zero = np.zeros(1)
    assert D(lambda t: np.power(t * np.ones(1), 2.0)[0], 0.0) == 0.0
    assert D(lambda t: np.power(t * np.ones(1), 1.0)[0], 0.0) == 1.0
    assert D(lambda t: np.power(t * np.ones(1), 0.5)[0], 0.0) == math.inf
    assert D(lambda t: np.power(t * np.ones(1), 0.0)[0], 0.0) == 0.0
    assert D(lambda t: np.power(zero, t)[0], 2.0) == 0.0
    assert D(D(lambda t: np.power(t * np.ones(1), 2.0)[0]), 0.0) == 2.0
    # a negative base, a tangent in the exponent: x**y * log(-x), the real part
    assert abs(D(lambda t: (-2.0 * np.ones(1)) ** t, 2.0)[0] - 4 * math.log(2)) < 1e-15


# ---------------------------------------------------------------------------
# linear and bilinear: a central difference of numpy's own, step 1, is exact

def central(f, *xs_and_vs):
    half = len(xs_and_vs) // 2
    xs, vs = xs_and_vs[:half], xs_and_vs[half:]
    return (np.asarray(f(*[x + v for x, v in zip(xs, vs)])) -
            np.asarray(f(*[x - v for x, v in zip(xs, vs)]))) / 2


def check_linear(f, *xs_and_vs):
    half = len(xs_and_vs) // 2
    value, tangent = jvp(f, xs_and_vs[:half], xs_and_vs[half:])
    same_primal(value, f(*xs_and_vs[:half]))
    shaped_like(tangent, value)
    assert np.allclose(tangent, central(f, *xs_and_vs), rtol=1e-12, atol=1e-12)


LINEAR = [  # (functions covered, f of one array, the shape strategy)
    ((np.reshape,), lambda a: np.reshape(a, (-1,)), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.ravel,), lambda a: np.ravel(a), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.transpose,), lambda a: np.transpose(a), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.swapaxes,), lambda a: np.swapaxes(a, 0, -1), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.squeeze,), lambda a: np.squeeze(a), hnp.array_shapes(max_dims=3, min_side=1, max_side=2)),
    ((np.expand_dims,), lambda a: np.expand_dims(a, 0), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.broadcast_to,), lambda a: np.broadcast_to(a, (2, *a.shape)), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.moveaxis,), lambda a: np.moveaxis(a, 0, -1), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.flip,), lambda a: np.flip(a, 0), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.tril,), lambda a: np.tril(a), hnp.array_shapes(min_dims=2, max_dims=2, max_side=3)),
    ((np.triu,), lambda a: np.triu(a, 1), hnp.array_shapes(min_dims=2, max_dims=2, max_side=3)),
    ((np.diagonal,), lambda a: np.diagonal(a), hnp.array_shapes(min_dims=2, max_dims=3, max_side=3)),
    ((np.trace,), lambda a: np.trace(a), hnp.array_shapes(min_dims=2, max_dims=2, max_side=3)),
    ((np.cumsum,), lambda a: np.cumsum(a, axis=0), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.mean,), lambda a: np.mean(a, axis=0, keepdims=True), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.sum,), lambda a: np.sum(a, axis=-1, initial=3.0), hnp.array_shapes(max_dims=3, max_side=3)),
    ((np.copy,), lambda a: np.copy(a), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.diag,), lambda a: np.diag(a), hnp.array_shapes(min_dims=1, max_dims=2, max_side=3)),
    ((np.atleast_1d,), lambda a: np.atleast_1d(a), hnp.array_shapes(min_dims=0, max_dims=1)),
    ((np.atleast_2d,), lambda a: np.atleast_2d(a), hnp.array_shapes(min_dims=0, max_dims=2)),
    ((np.roll,), lambda a: np.roll(a, 1), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.repeat,), lambda a: np.repeat(a, 2), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.tile,), lambda a: np.tile(a, 2), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.take,), lambda a: np.take(a, [0, 0]), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.take_along_axis,), lambda a: np.take_along_axis(a, np.zeros_like(a, dtype=int), 0),
     hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.where, np.greater), lambda a: np.where(a > 0, a, 2 * a), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.array,), lambda a: np.array(a), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.asarray,), lambda a: np.asarray(a) * 1.0, hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.concatenate,), lambda a: np.concatenate([a, 2 * a, np.ones(a.shape)]), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.stack,), lambda a: np.stack([a, np.ones(a.shape), a], axis=-1), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.hstack,), lambda a: np.hstack([a, a]), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.vstack,), lambda a: np.vstack([a, a]), hnp.array_shapes(max_dims=2, max_side=3)),
    ((np.full, np.full_like), lambda a: np.full(a.shape, a[0]) + np.full_like(a, a[-1]),
     hnp.array_shapes(min_dims=1, max_dims=1, max_side=3)),
    ((np.linspace,), lambda a: np.linspace(a[0], a[-1], 5), hnp.array_shapes(min_dims=1, max_dims=1, max_side=3)),
    ((), lambda a: a.sum(axis=0) + a.mean() + a.reshape(-1)[0] + a.T.copy().ravel()[-1],
     hnp.array_shapes(max_dims=2, max_side=3)),
    ((), lambda a: a.astype(np.float32).astype(np.float64) * 0 + a.view().cumsum(0).flatten(),
     hnp.array_shapes(min_dims=1, max_dims=1, max_side=3)),
]


@pytest.mark.parametrize("functions, f, shapes", LINEAR, ids=[str(i) for i in range(len(LINEAR))])
@SMALL
@given(data=st.data())
def test_linear_rules(functions, f, shapes, data):
    covers(*functions)
    shape = data.draw(shapes)
    x, v = data.draw(arrays(shape, -3, 3)), data.draw(arrays(shape, -2, 2))
    if f is LINEAR[25][1]:
        assume(np.all(np.abs(x) > 1e-9) and np.all(np.abs(x) > np.abs(v)))  # no sign change
    check_linear(f, x, v)


def test_clip_takes_the_tangent_of_whichever_bound_answers():
    covers(np.clip)
    a, lo, hi = np.array([-2.0, 0.5, 3.0]), np.array([-1.0, -1.0, -1.0]), np.array([1.0, 1.0, 1.0])
    ga, glo, ghi = np.array([1.0, 2.0, 4.0]), np.array([10.0, 20.0, 40.0]), np.array([100.0, 200.0, 400.0])
    _, tangent = jvp(lambda a, b, c: np.clip(a, b, c), (a, lo, hi), (ga, glo, ghi))
    assert np.array_equal(tangent, [10.0, 2.0, 400.0])
    assert np.array_equal(jvp(lambda a: np.clip(a, None, 1.0), (a,), (ga,))[1], [1.0, 2.0, 0.0])


@SMALL
@given(data=st.data())
def test_bilinear_rules(data):
    covers(np.matmul, np.dot, np.einsum)
    n, m, k = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    a, ga = data.draw(arrays((n, m), -3, 3)), data.draw(arrays((n, m), -2, 2))
    b, gb = data.draw(arrays((m, k), -3, 3)), data.draw(arrays((m, k), -2, 2))
    check_linear(lambda x, y: x @ y, a, b, ga, gb)
    check_linear(lambda x, y: np.matmul(x, y), a, b, ga, gb)
    check_linear(lambda x, y: np.dot(x, y[:, 0]), a, b, ga, gb)
    check_linear(lambda x, y: x.dot(y), a, b, ga, gb)
    check_linear(lambda x, y: np.einsum("ij,jk->ik", x, y), a, b, ga, gb)


@pytest.mark.parametrize("kind", [np.float16, np.float32, np.float64, np.longdouble,
                                  np.complex64, np.complex128, np.clongdouble])
def test_numpy_scalar_constructors_are_linear(kind):
    covers(kind, np.generic.item)
    derivative = D(lambda t: kind(t * 3), 2.0)
    assert derivative == 3 and type(derivative) is kind
    item = D(lambda t: kind(t * 3).item(), 2.0)
    assert item == 3 and type(item) is type(kind(1).item())


def test_constant_functions_carry_no_tangent():
    unary = (np.sign, np.floor, np.ceil, np.rint, np.trunc, np.round, np.isnan, np.isinf,
             np.isfinite, np.signbit, np.logical_not, np.zeros_like, np.ones_like,
             lambda a: 0 * np.empty_like(a), np.argsort, lambda a: np.nonzero(a)[0][:1])
    scalar = (np.argmax, np.argmin, np.size, np.ndim, np.count_nonzero, np.any, np.all,
              np.iscomplexobj,
              np.isrealobj, np.allclose, np.array_equal, lambda a: np.shape(a)[0])
    binary = (np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
              np.logical_and, np.logical_or, np.logical_xor, np.floor_divide, np.isclose)
    covers(*unary, *scalar, *binary, np.empty_like, np.nonzero, np.shape, np.result_type,
           np.broadcast_shapes, np.may_share_memory, np.shares_memory)

    def f(t):
        a, b = t * np.array([0.5, -1.5]), t * np.array([0.5, 2.0])
        pieces = [np.asarray(c(a), dtype=float) for c in unary]
        pieces += [np.asarray(c(a, b), dtype=float) for c in binary]
        pieces.append(np.asarray([c(a) for c in scalar[:-4]] + [c(a, b) for c in scalar[-3:-1]]
                                 + [scalar[-1](a)], dtype=float))
        assert np.result_type(a) == np.float64 and np.broadcast_shapes((2,), (1,)) == (2,)
        assert np.may_share_memory(a, a[1:]) and not np.shares_memory(a, b)
        return np.concatenate(pieces)

    derivative = D(f, 1.3)
    assert derivative.shape == (2 * len(unary) - 1 + 2 * len(binary) + len(scalar) - 1,)
    assert not np.any(derivative)


@pytest.mark.parametrize("write", [
    lambda a, t: np.copyto(a, t), lambda a, t: np.putmask(a, a == 0, t),
    lambda a, t: np.place(a, a == 0, [t]), lambda a, t: np.put(a, [0], [t]),
    lambda a, t: np.fill_diagonal(a.reshape(1, -1), t),
    lambda a, t: np.frompyfunc(lambda u: u, 1, 1)(t * a),
])
def test_writes_and_element_functions_without_rules_are_refused(write):
    covers(np.copyto, np.putmask, np.place, np.put, np.fill_diagonal, np.frompyfunc,
           np.vectorize.__call__)

    def f(t):
        a = np.zeros(2)
        write(a, t)
        return a

    with pytest.raises(NonDifferentiableError, match="numpy|vectorized"):
        D(f, 1.0)
    with pytest.raises(NonDifferentiableError, match="vectorize"):
        D(lambda t: np.vectorize(lambda u: u * 2)(t * np.ones(2)), 1.0)


def test_in_place_operators_without_a_rule_are_refused_and_matmul_is_keyed():
    import operator
    covers(operator.matmul, operator.imatmul)

    def f(t):
        a = np.eye(2)
        a @= t * np.eye(2)
        return a

    with pytest.raises(NonDifferentiableError, match="in-place"):
        D(f, 1.0)
    assert np.array_equal(D(lambda t: np.eye(2) @ (t * np.ones(2)), 1.0), [1.0, 1.0])


def test_constructors_without_a_tangent():
    covers(np.zeros, np.ones, np.empty, np.eye, np.identity, np.arange)
    constant = D(lambda t: t * (np.zeros(2) + np.ones(2) + 0 * np.empty(2) + np.eye(2)[0]
                                + np.identity(2)[1] + np.arange(2.0)), 1.0)
    assert np.array_equal(constant, [2.0, 3.0])


# ---------------------------------------------------------------------------
# solve and inv: a central difference of mpmath's own at 50 digits

def mp_central(f, matrices, directions):
    with mp.workdps(50):
        h = mp.mpf("1e-15")
        plus = f(*[mp.matrix(m.tolist()) + h * mp.matrix(d.tolist())
                   for m, d in zip(matrices, directions)])
        minus = f(*[mp.matrix(m.tolist()) - h * mp.matrix(d.tolist())
                    for m, d in zip(matrices, directions)])
        return np.array(((plus - minus) / (2 * h)).tolist(), dtype=float)


@SMALL
@given(data=st.data())
def test_solve_and_inv(data):
    covers(np.linalg.solve, np.linalg.inv)
    n = data.draw(st.integers(1, 3))
    a = data.draw(arrays((n, n), -1, 1)) + 4 * np.eye(n)  # well conditioned
    b, ga, gb = data.draw(arrays((n, 2), -2, 2)), data.draw(arrays((n, n), -1, 1)), \
        data.draw(arrays((n, 2), -1, 1))
    value, tangent = jvp(lambda x, y: np.linalg.solve(x, y), (a, b), (ga, gb))
    same_primal(value, np.linalg.solve(a, b))
    assert np.allclose(tangent, mp_central(lambda m, c: mp.inverse(m) * c, (a, b), (ga, gb)), rtol=1e-11, atol=1e-12)
    value, tangent = jvp(lambda x: np.linalg.inv(x), (a,), (ga,))
    same_primal(value, np.linalg.inv(a))
    assert np.allclose(tangent, mp_central(mp.inverse, (a,), (ga,)), rtol=1e-11, atol=1e-12)


# ---------------------------------------------------------------------------
# constructors from differentiated numbers

def test_array_of_nested_lists_of_numbers():
    derivative = D(lambda t: np.array([[t, 2 * t], [t * t, 1.0]]), 3.0)
    assert np.array_equal(derivative, [[1.0, 2.0], [6.0, 0.0]])
    assert np.array_equal(D(lambda t: np.asarray([t, t]), 1.0), [1.0, 1.0])
    assert D(lambda t: np.array(t * t), 2.0) == 4.0


def test_linspace_full_and_friends():
    assert np.allclose(D(lambda t: np.linspace(0.0, t, 5), 2.0), [0, 0.25, 0.5, 0.75, 1.0],
                       rtol=1e-15)
    assert np.array_equal(D(lambda t: np.full((2, 2), t * t), 3.0), np.full((2, 2), 6.0))


def test_ndenumerate_reads_each_item_with_its_derivative():
    """Its model reads `a[index]` at each step (numpy's reads `a.flat` in C)."""
    covers(np.ndenumerate)

    def f(t):
        a = np.array([[t, t * t], [3.0, t ** 3]])
        return sum(v * (i + 2 * j + 1) for (i, j), v in np.ndenumerate(a))

    assert [index for index, _ in np.ndenumerate(np.zeros((2, 2)))] == \
        [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert D(f, 1.5) == 1 + 6 * 1.5 + 12 * 1.5 ** 2
    assert D(D(f), 1.5) == 6 + 24 * 1.5


def test_every_numpy_rule_is_covered():
    ours = {key for key in numpy_rules.LINES
            if getattr(key, "__module__", None) != numpy_rules.__name__}
    helpers = {key for key in numpy_rules.LINES if getattr(key, "__module__", "") == "numpy"
               and type(key).__name__ == "function"}  # our named helpers (`numpy.stack`'s)
    missing = ours - helpers - COVERED
    assert not missing, sorted(map(repr, missing))


# ---------------------------------------------------------------------------
# the sweep: every public ufunc and array function of numpy, given a value carrying a
# derivative, gives the derivative a central difference of numpy's own gives, or is
# refused (or fails as numpy fails); never a silently wrong number

_SWEPT = sorted(name for name in dir(np) if not name.startswith("_") and (
    isinstance(getattr(np, name), np.ufunc) or
    type(getattr(np, name)).__name__ == "_ArrayFunctionDispatcher"))
_GARBAGE = {"empty_like"}  # its values are whatever memory held


@pytest.mark.parametrize("name", _SWEPT)
@pytest.mark.filterwarnings("ignore")
def test_every_numpy_function_is_right_or_refused(name):
    function = getattr(np, name)
    for base in (np.array([0.31, 0.72, 0.43]),
                 np.array([[0.52, 0.21, 0.13], [0.33, 0.91, 0.44], [0.27, 0.61, 0.83]])):
        try:
            with np.errstate(all="ignore"):
                function(base)
        except Exception:
            continue  # numpy takes no such single array
        try:
            derivative = D(lambda t: function(t * base), 1.0)
        except NonDifferentiableError:
            continue
        except (TypeError, ValueError) as error:
            assert "ad." not in str(error) and "_arrays" not in str(error), error
            continue
        if name in _GARBAGE:
            continue
        h = 1e-6
        with np.errstate(all="ignore"):
            numeric = (np.asarray(function((1 + h) * base), dtype=complex) -
                       np.asarray(function((1 - h) * base), dtype=complex)) / (2 * h)
        got = np.asarray(derivative, dtype=complex)
        assert got.shape == numeric.shape, name
        assert np.allclose(got, numeric, rtol=1e-4, atol=1e-5, equal_nan=True), \
            (name, got, numeric)


# ---------------------------------------------------------------------------
# the sweep, further: ndarray methods, ufunc methods, numpy.linalg, numpy.fft,
# numpy.random and the stride tricks, each given a value carrying a derivative:
# right (a central difference of numpy's own agrees) or refused, never a wrong number

_METHOD_ARGS = [(), (0,), (1,), (-1,), ((-1,),), (0, 1), (np.float64,), ([0, 1],),
                ((2, 2),), (0.5,)]
_SQUARE = np.array([[0.52, 0.21, 0.13], [0.33, 0.91, 0.44], [0.27, 0.61, 0.83]])


def _numeric_part(value):
    """What of a result a derivative is compared on: its floats, flattened (a
    non-numeric result, `None` of a method that works in place, counts as 0)."""
    if isinstance(value, (tuple, list)):
        parts = [_numeric_part(v) for v in value]
        return np.concatenate(parts) if parts else np.zeros(0)
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (np.ndarray, float, complex, np.number)):
        return np.zeros(1)
    value = np.asarray(value)
    if value.dtype.kind not in "fc":
        return np.zeros(value.size)
    return np.ravel(value).astype(complex)


def right_or_refused(f, point=1.0):
    """`D(f, point)` is refused, or agrees with a central difference of `f`'s
    numbers (`_numeric_part`); False where the plain `f` cannot run."""
    try:
        with np.errstate(all="ignore"):
            f(point)
    except Exception:  # noqa: BLE001 (numpy takes no such call)
        return False
    try:
        derivative = D(lambda t: np.concatenate([_numeric_part(f(t))]), point)
    except NonDifferentiableError:
        return True
    h = 1e-6
    with np.errstate(all="ignore"):
        numeric = (_numeric_part(f(point + h)) - _numeric_part(f(point - h))) / (2 * h)
    assert np.allclose(derivative, numeric, rtol=1e-4, atol=1e-5, equal_nan=True), \
        (derivative, numeric)
    return True


def _with_receiver(name, base, args):
    """`a.name(*args)` for `a = t * base`, and `a` after it (a method may write it)."""
    def f(t):
        a = t * base
        found = getattr(a, name)
        return (found(*args) if callable(found) else found), a
    return f


_METHODS = sorted(name for name in dir(np.ndarray) if not name.startswith("_") or name in (
    "__copy__", "__deepcopy__", "__array__", "__abs__", "__neg__", "__pos__", "__matmul__",
    "__mul__", "__pow__", "__getitem__", "__setitem__", "__iadd__", "__imul__", "__round__"))


@pytest.mark.parametrize("name", _METHODS)
@pytest.mark.filterwarnings("ignore")
def test_every_ndarray_method_is_right_or_refused(name):
    tried = [right_or_refused(_with_receiver(name, base, args))
             for base in (np.array([0.31, 0.72, 0.43]), _SQUARE[:2, :2].copy())
             for args in _METHOD_ARGS]
    assert any(tried) or name in _NO_PLAIN_CALL, name


# methods whose arguments the sweep does not make (a file, a device, choices, a
# field's dtype and value): their refusals are tested by name below
_NO_PLAIN_CALL = {"choose", "dump", "setfield", "to_device", "tofile"}


_BINARY_UFUNCS = sorted(name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)
                        and getattr(np, name).nin == 2 and getattr(np, name).nout == 1)
_UFUNC_METHODS = {
    "reduce": lambda u, a: u.reduce(a),
    "accumulate": lambda u, a: u.accumulate(a),
    "outer": lambda u, a: u.outer(a, a[::-1]),
    "reduceat": lambda u, a: u.reduceat(a, [0, 2]),
    "at": lambda u, a: (u.at(a, [0, 0], 0.25), a)[1],
    "at on a constant": lambda u, a: (u.at(np.ones(3), [0, 1], a[:2]), a)[1],
}


@pytest.mark.parametrize("method", sorted(_UFUNC_METHODS))
@pytest.mark.parametrize("name", _BINARY_UFUNCS)
@pytest.mark.filterwarnings("ignore")
def test_every_ufunc_method_is_right_or_refused(name, method):
    call = _UFUNC_METHODS[method]
    right_or_refused(lambda t: call(getattr(np, name), t * np.array([0.31, 0.72, 0.43])))


_LINALG = sorted(name for name in dir(np.linalg) if not name.startswith("_") and
                 name not in ("LinAlgError", "test") and callable(getattr(np.linalg, name)))


@pytest.mark.parametrize("name", _LINALG)
@pytest.mark.filterwarnings("ignore")
def test_every_linalg_function_is_right_or_refused(name):
    function = getattr(np.linalg, name)
    tried = [right_or_refused(lambda t: function(t * _SQUARE + np.eye(3))),
             right_or_refused(lambda t: function(t * _SQUARE, _SQUARE)),
             right_or_refused(lambda t: function(_SQUARE, t * _SQUARE[0])),
             right_or_refused(lambda t: function(t * _SQUARE, 2)),
             right_or_refused(lambda t: function(t * _SQUARE + np.eye(3), 1)),
             right_or_refused(lambda t: function(t * _SQUARE[0], _SQUARE[1])),
             right_or_refused(lambda t: function([t * _SQUARE, _SQUARE]))]
    assert any(tried), name


_FFT = sorted(name for name in dir(np.fft) if not name.startswith("_") and name != "test")


@pytest.mark.parametrize("name", _FFT)
@pytest.mark.filterwarnings("ignore")
def test_every_fft_function_is_right_or_refused(name):
    function = getattr(np.fft, name)
    tried = [right_or_refused(lambda t: function(t * _SQUARE)),
             right_or_refused(lambda t: function(3, t))]
    assert any(tried), name


@pytest.mark.parametrize("draw", [
    lambda t: np.random.normal(t, 1.0, 3), lambda t: np.random.uniform(0.0, t, 3),
    lambda t: np.random.permutation(t * _SQUARE[0]), lambda t: np.random.choice(t * _SQUARE[0]),
    lambda t: np.random.default_rng(0).normal(t, 1.0, 3),
    lambda t: np.random.default_rng(0).permutation(t * _SQUARE[0]),
    lambda t: np.random.default_rng(0).choice(t * _SQUARE[0], 2),
    lambda t: np.random.default_rng(0).shuffle(a := t * _SQUARE[0]) or a,
    lambda t: np.random.shuffle(a := t * _SQUARE[0]) or a,
    lambda t: np.random.exponential(t, 2), lambda t: np.random.poisson(t, 2) * 1.0])
def test_random_draws_given_a_derivative_are_refused(draw):
    """A draw's derivative would need the same random state in every run: refused."""
    with pytest.raises(NonDifferentiableError):
        D(draw, 1.0)


@pytest.mark.parametrize("f", [
    lambda t: np.lib.stride_tricks.as_strided(t * _SQUARE[0], (2, 2), (8, 8)),
    lambda t: np.lib.stride_tricks.sliding_window_view(t * _SQUARE[0], 2),
    lambda t: np.broadcast_to(t * _SQUARE[0], (2, 3)),
    lambda t: np.broadcast_arrays(t * _SQUARE[0], _SQUARE),
])
@pytest.mark.filterwarnings("ignore")
def test_stride_tricks_views_are_right_or_refused(f):
    assert right_or_refused(f)


def test_writes_through_overlapping_strided_views_are_right():
    """A writeable `as_strided` view whose rows overlap in memory: each write lands
    where numpy puts it, in the data and in the derivative alike."""
    def f(t):
        a = np.zeros(4)
        windows = np.lib.stride_tricks.as_strided(a, (3, 2), (8, 8))
        windows[0, 1] = t          # a[1]
        windows[1, 1] += t * t     # a[2]
        windows[2, 0] *= 3.0       # a[2] again, through another window
        return a

    assert np.allclose(D(f, 2.0), [0.0, 1.0, 3 * 4.0, 0.0], rtol=1e-15)
    assert right_or_refused(f, 2.0)


@pytest.mark.parametrize("f", [
    lambda t: (np.zeros(3).setfield(t * _SQUARE[0], np.float64), 0.0)[1],
    lambda t: ((a := t * _SQUARE[0]).setfield(1.0, np.float64), a)[1],
    lambda t: np.array([0, 1, 0]).choose([t * _SQUARE[0], _SQUARE[1]]),
])
def test_methods_the_sweep_cannot_call_are_refused(f):
    with pytest.raises(NonDifferentiableError):
        D(f, 1.0)


@pytest.mark.parametrize("f", [
    lambda t: (t * _SQUARE).ravel(order="F"), lambda t: (t * _SQUARE).flatten(order="F"),
    lambda t: (t * _SQUARE).copy(order="F"), lambda t: (t * _SQUARE).reshape((9,), order="F"),
    lambda t: (t * _SQUARE).dot(_SQUARE, out=np.empty((3, 3))),
    lambda t: (t * _SQUARE).dot(_SQUARE),
], ids=["ravel", "flatten", "copy", "reshape", "dot out", "dot"])
def test_methods_take_their_keywords(f):
    """`a.ravel(order="F")`, `a.flatten(order=...)`, `a.copy(order=...)` and
    `a.dot(b, out=...)` raised a TypeError naming the model's lambda, where the
    plain call runs: each is now right or refused."""
    assert right_or_refused(f)

