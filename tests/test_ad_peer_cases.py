"""Cases taken from what other AD projects' test suites check, written anew for `ad`.

Each group names the peer test that inspired it: HIPS/autograd (tests/test_numpy.py,
tests/test_systematic.py, tests/test_linalg.py) and JuliaDiff (DiffTests.jl's
functions, ForwardDiff.jl's edge cases). No peer code is copied; the peers check
gradients, we check `ad`'s promise: the derivative is right, or `D` refuses.

The references: mpmath at 30 digits for scalar functions (`mpmath.diff`, orders 1
and 2), else a Richardson-extrapolated central difference of the plain numpy
function along a fixed random direction (`richardson` and `close` of
`test_ad_numpy_hunt`), whose two estimates must agree (no kink within the step).
`jvp`'s value must also be the plain value: a rule that writes into the user's
array would change it.
"""

from __future__ import annotations

import mpmath
import pytest

np = pytest.importorskip("numpy")

from ad import D, NonDifferentiableError, gradient, hessian, jacobian, jvp  # noqa: E402
from tests.test_ad_numpy_hunt import close, richardson  # noqa: E402



def _rng(seed=0):
    return np.random.default_rng(seed)


def R(*shape, seed=0):  # noqa: N802 (autograd's name)
    return _rng(seed + 17 * len(shape) + sum(shape)).standard_normal(shape)


def spd(*batch, n=4, seed=0):
    a = R(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def assert_jvp(f, x, seed=1):
    """jvp(f, x, v) against the extrapolated difference of f along v."""
    x = np.asarray(x, dtype=float)
    v = _rng(seed).standard_normal(x.shape)
    with np.errstate(all="ignore"):
        want, agreement = richardson(lambda t: f(x + t * v), 0.0)
    assert agreement < 1e-7, "the reference has a kink near the point: move the point"
    value, got = jvp(f, (x.copy(),), (v,))
    assert close(value, f(x.copy())), (value, f(x))
    assert close(got, want), (got, want)


def assert_mp(f, f_mp, x, order=1):
    """D (order 1) or D(D) (order 2) of f at x against mpmath's derivative of f_mp."""
    got = D(f, x) if order == 1 else D(D(f), x)
    with mpmath.workdps(30):
        want = mpmath.diff(f_mp, mpmath.mpf(x), order)
    assert float(got) == pytest.approx(float(want), rel=1e-9, abs=1e-12)


def refused(f, *args):
    with pytest.raises(NonDifferentiableError):
        f(*args)


C34 = R(3, 4, seed=5)  # constants the cases close over (never the point itself)
C346 = R(3, 4, 6, seed=6)
C54 = R(5, 4, seed=7)


# ---------------------------------------------------------------------------
# autograd tests/test_numpy.py: reductions with axis and keepdims, indexing,
# reshapes, joins, trace/diag/roll/triangles, clip, var/std ddof, where, repeat

NUMPY_CASES = {
    "max axis=1": (lambda x: np.max(x, axis=1), (3, 4, 5)),
    "max axis=-2 keepdims": (lambda x: np.max(x, axis=-2, keepdims=True), (3, 4, 5)),
    "min axis=(0, 2)": (lambda x: np.min(x, axis=(0, 2)), (3, 4, 5)),
    "sum axis=(-1, -2)": (lambda x: np.sum(x, axis=(-1, -2)), (3, 4, 5)),
    "mean axis=-1 keepdims": (lambda x: np.mean(x, axis=-1, keepdims=True), (3, 4, 5)),
    "prod axis=(0, -1) keepdims": (lambda x: np.prod(x, axis=(0, -1), keepdims=True), (3, 2, 2)),
    "cumsum axis=-2": (lambda x: np.cumsum(x, axis=-2), (3, 4, 2)),
    "cumsum no axis": (lambda x: np.cumsum(x), (3, 4)),
    "cumprod axis=1": (lambda x: np.cumprod(x, axis=1), (3, 4, 5)),
    "cumprod no axis": (lambda x: np.cumprod(x), (3, 4)),
    "index ints": (lambda x: x[2, 0, 1], (3, 4, 5)),
    "index reversed slice": (lambda x: x[::-1, 1:3, :], (3, 4, 5)),
    "index list": (lambda x: x[[0, 1, 2], :, :], (3, 4, 5)),
    "index mixed": (lambda x: x[2, 1:, [1, 3]], (3, 4, 5)),
    "slices fanned out": (lambda x: x[::-1, 1:3] + x[::-1, 2:4], (3, 4, 5)),
    "repeated multi-index": (lambda x: np.sum(x[[0, 1, 0]] ** 2), (5,)),
    "dot of slices": (lambda x: np.dot(x[:2], x[3:]), (5,)),
    "reshape method, unpacked": (lambda x: x.reshape(4, 3) ** 2, (3, 4)),
    "ravel and flatten, order F": (lambda x: np.ravel(x, order="F") * x.flatten("F"), (3, 4)),
    "concatenate axis by position": (lambda x: np.concatenate((C34, x, C34), 1), (3, 4)),
    "concatenate axis=-1": (lambda x: np.concatenate((x, x * x), axis=-1), (3, 4)),
    "trace offset": (lambda x: np.trace(x, offset=1), (4, 4)),
    "trace of a stack": (lambda x: np.trace(x, offset=-1), (5, 6, 4, 3)),
    "diagonal of a stack, axes -1, -2": (lambda x: np.diagonal(x, axis1=-1, axis2=-2), (3, 4, 4)),
    "roll axis=1": (lambda x: np.roll(x, 2, axis=1), (4, 5)),
    "triu k=1, tril k=-1": (lambda x: np.triu(x, k=1) * np.tril(x, k=-1).T, (4, 4)),
    "clip a_min, a_max by keyword": (lambda x: np.clip(x, a_min=0.1, a_max=1.1), (5, 5)),
    "var ddof=1 axis=1": (lambda x: np.var(x, axis=1, ddof=1), (3, 4, 5)),
    "std ddof=2 keepdims": (lambda x: np.std(x, axis=-1, ddof=2, keepdims=True), (3, 4, 5)),
    "where with a constant mask": (lambda x: np.where(C34 > 0, x, x ** 2), (3, 4)),
    "squeeze, expand_dims": (lambda x: np.expand_dims(np.squeeze(x), 2), (5, 1, 4)),
    "repeat axis=1": (lambda x: np.repeat(x, 2, axis=1), (3, 4, 5)),
    "array of arrays": (lambda x: np.array([[2 * x, x + 1], [x, x]]), (3, 2)),
}


@pytest.mark.parametrize("name", list(NUMPY_CASES))
def test_autograd_numpy(name):
    f, shape = NUMPY_CASES[name]
    assert_jvp(f, R(*shape))


def test_autograd_numpy_arrays_of_numbers():
    # test_1d_array, test_2d_array_fanout: np.array of expressions in one number
    def f(x):
        a = np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]])
        return np.sum((a + a) ** 2)

    assert_mp(f, lambda x: 4 * (x * x + x * x + (x + 2.5) ** 2 + x ** 4 + x * x + x * x / 4),
              3.0, 2)


# ---------------------------------------------------------------------------
# autograd tests/test_systematic.py: stat_check (axis, keepdims, negative axes),
# binary ufuncs broadcast against each other, transpose axes, dot/tensordot of
# mixed ranks, maximum/minimum of broadcast shapes, einsum forms, sort

SYSTEMATIC_CASES = {
    "var of a tuple axis": (lambda x: np.var(x, axis=(0, -1)), (3, 4, 5)),
    "mean, where=": (lambda x: np.mean(x, axis=1, where=C34 > -1.0), (3, 4)),
    "sum, where= and initial=": (lambda x: np.sum(x, axis=1, where=C34 > 0, initial=2.0), (3, 4)),
    "prod, where= and initial=": (lambda x: np.prod(x, axis=1, where=C34 > 0, initial=2.0,
                                                     keepdims=True), (3, 4)),
    "max, where= and initial=": (lambda x: x.max(1, initial=-0.5, where=C34 > 0), (3, 4)),
    "std, where= ddof=1": (lambda x: np.std(x, axis=1, ddof=1, where=C34 > -1), (3, 4)),
    "divide, a column by a row": (lambda x: x[:, :1] / (2.0 + x[0] ** 2), (3, 4)),
    "power, broadcast base and exponent": (lambda x: np.abs(x[:, :1]) ** x[0], (3, 4)),
    "remainder, negative divisors": (lambda x: np.remainder(x, -0.7) + x % 0.3, (3, 4)),
    "maximum of a (1, 4) and a (3, 4)": (lambda x: np.maximum(x[:1], x), (3, 4)),
    "minimum of a (3, 1) and a (3, 4)": (lambda x: np.minimum(x[:, :1], x), (3, 4)),
    "transpose axes (2, 0, 1)": (lambda x: np.transpose(x, (2, 0, 1)) * x.transpose(2, 0, 1),
                                 (3, 4, 5)),
    "tensordot axes ([1, 2], [1, 0])": (lambda x: np.tensordot(x, C54, axes=([1, 2], [1, 0])),
                                        (3, 4, 5)),
    "matmul, a stack by a matrix": (lambda x: x @ C54.T[:, :2], (3, 5, 4)),
    "einsum with ellipses": (lambda x: np.einsum("...ij,...jk->...ik", x, x), (2, 3, 3)),
    "einsum, three operands": (lambda x: np.einsum("ij,jk,kl->il", x, x.T, x), (3, 4)),
    "sort axis=0, and axis=None": (lambda x: np.sort(x, axis=0) + np.sort(x, axis=None)
                                   .reshape(3, 4), (3, 4)),
    "median of a tuple axis": (lambda x: np.median(x, axis=(0, 2)), (3, 4, 5)),
}


@pytest.mark.parametrize("name", list(SYSTEMATIC_CASES))
def test_autograd_systematic(name):
    f, shape = SYSTEMATIC_CASES[name]
    assert_jvp(f, R(*shape))


def test_autograd_systematic_complex():
    # unary_ufunc_check's complex points: the tangent is the complex derivative times v
    z, v = R(4) + 1j * R(4, seed=1), R(4, seed=2) + 1j * R(4, seed=3)
    for f in (np.exp, np.sqrt, np.log, np.tanh, np.abs, lambda z: z ** 2.5, np.var,
              np.cumprod, lambda z: np.linalg.norm(z)):
        got = jvp(f, (z,), (v,))[1]
        want = (richardson(lambda t: np.real(f(z + t * v)), 0.0)[0] +
                1j * richardson(lambda t: np.imag(f(z + t * v)), 0.0)[0])
        assert np.allclose(got, want, rtol=1e-7, atol=1e-7), f


# ---------------------------------------------------------------------------
# autograd tests/test_linalg.py: stacks of matrices (3-d and 4-d inv, solve of a
# stack against vectors and matrices, det of a stack), slogdet of -A, norms
# along axes, eigh and cholesky of stacks from either triangle, svd wide/tall

LINALG_CASES = {
    "inv of a 3-d stack": (np.linalg.inv, R(3, 4, 4) + 5 * np.eye(4)),
    "inv of a 4-d stack": (np.linalg.inv, R(2, 2, 3, 3) + 5 * np.eye(3)),
    "solve, a stack and a stack of columns": (lambda a: np.linalg.solve(a, C346[:, :, :1]),
                                              R(3, 4, 4) + 5 * np.eye(4)),
    "solve, a stack and a stack of matrices": (lambda a: np.linalg.solve(a, C346),
                                               R(3, 4, 4) + 5 * np.eye(4)),
    "solve, a stack and one vector": (lambda a: np.linalg.solve(a, np.arange(4.0)),
                                      R(3, 4, 4) + 5 * np.eye(4)),
    "solve in b": (lambda b: np.linalg.solve(spd(), b), R(4, 3)),
    "det of a stack": (np.linalg.det, R(3, 3, 3) + 2 * np.eye(3)),
    "slogdet of -A": (lambda a: np.linalg.slogdet(a)[1], -(R(4, 4) + 3 * np.eye(4))),
    "cholesky of a stack": (np.linalg.cholesky, spd(3)),
    "eigh of a stack: values": (lambda a: np.linalg.eigh(a)[0], spd(2, 3)),
    "eigh 'U' of a nonsymmetric array": (lambda a: np.linalg.eigh(a, "U")[0], R(4, 4)),
    "eigvalsh of a nonsymmetric array": (np.linalg.eigvalsh, R(4, 4)),
    "svd of a wide matrix: values": (lambda a: np.linalg.svd(a, full_matrices=False)[1],
                                     R(3, 5)),
    "svd of a tall stack: values only": (lambda a: np.linalg.svd(a, compute_uv=False),
                                         R(4, 5, 3)),
    "svd of a wide stack: reconstructed": (
        lambda a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(
            *np.linalg.svd(a, full_matrices=False)), R(2, 3, 5)),
    "norm axis=0 of a 3-d array": (lambda a: np.linalg.norm(a, axis=0), R(6, 5, 4)),
    "norm axis=(0, 1)": (lambda a: np.linalg.norm(a, axis=(0, 1)), R(6, 5, 4)),
    "norm 'nuc' axis=(0, 1)": (lambda a: np.linalg.norm(a, ord="nuc", axis=(0, 1)), R(6, 5, 4)),
    "norm ord=2 axis=(-1, -2)": (lambda a: np.linalg.norm(a, ord=2, axis=(-1, -2)), R(3, 4, 5)),
    "norm ord=inf axis=(2, 0)": (lambda a: np.linalg.norm(a, ord=np.inf, axis=(2, 0)),
                                 R(3, 4, 5)),
    "matrix_power 5 of a stack": (lambda a: np.linalg.matrix_power(a, 5), R(2, 3, 3)),
}


@pytest.mark.parametrize("name", list(LINALG_CASES))
def test_autograd_linalg(name):
    f, x = LINALG_CASES[name]
    assert_jvp(f, x)


def test_autograd_linalg_refusals():
    # vector ord=3 has no rule; repeated eigenvalues have no eigenvector derivative
    refused(jvp, lambda x: np.linalg.norm(x, ord=3), (R(6),), (R(6, seed=1),))
    refused(D, lambda t: np.linalg.eigh(np.eye(3) * (1 + t))[1], 0.0)


# ---------------------------------------------------------------------------
# JuliaDiff DiffTests.jl: its number-to-number functions (tan², 2x + √x³,
# 10.31^(2x) − x, the logistic), written with numpy ufuncs on numpy scalars and
# 0-d arrays, to the second derivative; its vector-to-number functions
# (Rosenbrock, Ackley, a self-weighted logit) by gradient and hessian; its
# in-place mutation tests

MP = mpmath
SCALAR_CASES = {
    "tan squared": (lambda x: np.sin(x) ** 2 / np.cos(x) ** 2,
                    lambda x: MP.sin(x) ** 2 / MP.cos(x) ** 2, 0.7),
    "2x + sqrt(x^3)": (lambda x: 2 * x + np.sqrt(x * x * x),
                       lambda x: 2 * x + MP.sqrt(x ** 3), 1.3),
    "10.31^(2x) - x": (lambda x: np.power(10.31, x + x) - x,
                       lambda x: MP.mpf("10.31") ** (2 * x) - x, 0.4),
    "logistic": (lambda x: 1.0 / (1.0 + np.exp(-x)), lambda x: 1 / (1 + MP.exp(-x)), -0.6),
    "0-d array chain": (lambda x: float(np.sum(np.tanh(np.asarray(x) * np.array([1.0, 2.0])))),
                        lambda x: MP.tanh(x) + MP.tanh(2 * x), 0.3),
    "x ** x": (lambda x: np.power(x, x), lambda x: x ** x, 0.8),
    "integer array ** x": (lambda x: np.sum(np.arange(1, 4) ** x),
                           lambda x: 1 + 2 ** x + 3 ** x, 0.7),
    "x ** integer array, at 0": (lambda x: np.sum(x ** np.arange(4)),
                                 lambda x: 1 + x + x ** 2 + x ** 3, 0.0),
    "det of a 2x2 in x": (lambda x: np.linalg.det(np.array([[x, 1.0], [2.0, x * x]])),
                          lambda x: x ** 3 - 2, 0.9),
    "slogdet of a 2x2 in x": (lambda x: np.linalg.slogdet(np.array([[x, 1.0], [2.0, x * x]]))[1],
                              lambda x: MP.log(abs(x ** 3 - 2)), 0.7),
    "eigh of a 2x2 in x": (lambda x: np.linalg.eigh(np.array([[x, 1.0], [1.0, -x]]))[0][1],
                           lambda x: MP.sqrt(x * x + 1), 0.7),
    "cholesky of a 2x2 in x": (
        lambda x: np.linalg.cholesky(np.array([[x * x + 1, x], [x, 2.0]]))[1, 1],
        lambda x: MP.sqrt(2 - x * x / (x * x + 1)), 0.7),
    "matrix_power -2": (
        lambda x: np.linalg.matrix_power(np.array([[x, 1.0], [0.0, 2.0]]), -2)[0, 0],
        lambda x: x ** -2, 0.7),
    "cumprod with a repeated x": (lambda x: np.cumprod(np.array([x, x, 2.0, x]))[-1],
                                  lambda x: 2 * x ** 3, 0.7),
    "prod at x = 0": (lambda x: np.prod(np.array([x, x, 3.0])), lambda x: 3 * x ** 2, 0.0),
    "var ddof=1 in x": (lambda x: np.var(np.array([x, x * x, 1.0]), ddof=1),
                        lambda x: sum((y - (x + x * x + 1) / 3) ** 2 for y in (x, x * x, 1)) / 2,
                        0.7),
    "average, weights by position": (
        lambda x: np.average(np.array([2.0, 1.0]), None, np.array([x, 3.0])),
        lambda x: (2 * x + 3) / (x + 3), 0.7),
}


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name", list(SCALAR_CASES))
def test_difftests_scalar(name, order):
    f, f_mp, x = SCALAR_CASES[name]
    assert_mp(f, f_mp, x, order)


def rosenbrock(x):
    return np.sum((1.0 - x[:-1]) ** 2 + 100.0 * (x[1:] - x[:-1] ** 2) ** 2)


def ackley(x):
    return (-20.0 * np.exp(-0.2 * np.sqrt(np.mean(x * x))) - np.exp(np.mean(np.cos(2 * np.pi * x)))
            + 20.0 + np.e)


def self_weighted_logit(x):
    return 1.0 / (1.0 + np.exp(-np.dot(x, x)))


@pytest.mark.parametrize("f", [rosenbrock, ackley, self_weighted_logit])
def test_difftests_vector_to_number(f):
    x = np.array([0.3, -0.4, 0.55, 0.1, -0.25])
    assert_jvp(f, x)
    h = hessian(f, x)
    for i in range(2):  # two columns of the hessian: the jvp of a gradient
        e = np.eye(5)[i]
        want = richardson(lambda t: gradient(f, x + t * e), 0.0)[0]
        assert close(h[:, i], want)


def test_difftests_matrix_to_number():
    # mat2num_2 (log of an outer product), mat2num_4, softmax
    def log_outer(x):
        a, b = np.reshape(x, (-1, 1)), np.reshape(x.copy(), (1, -1))
        return np.trace(np.log((1 + a @ b) + a - b + 3.0))

    def softmax_sum(x):
        return np.sum(np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True))

    for f in (log_outer, softmax_sum, lambda x: np.mean(np.sum(np.sin(x) @ x, axis=1))):
        assert_jvp(f, 0.3 * R(3, 3))


def test_difftests_mutation():
    # mutation_test_1!, mutation_test_2!, and num2arr_1!'s running writes
    def mutation_1(x):
        y = np.zeros(3)
        y[0] = x[0]
        y[0] = y[0] * x[1]
        y[1] = y[1] * x[2]
        y[2] = np.sum(y)
        return y

    def mutation_2(x):
        y = np.ones(3)
        y[0] *= x[0]
        y[1] *= x[0]
        y[0] *= x[1]
        y[1] *= x[1]
        return y

    def running(x):
        y = np.zeros(4)
        for i in range(1, 4):
            y[i] = (np.sin(x[0]) + y[i - 1]) ** 2
        return y

    for f in (mutation_1, mutation_2, running):
        assert_jvp(f, np.array([0.3, -0.7, 1.1]))
        assert close(jacobian(f, np.array([0.3, -0.7, 1.1])),
                     np.stack([richardson(lambda t: f(np.array([0.3, -0.7, 1.1]) + t * e), 0.0)[0]
                               for e in np.eye(3)], axis=-1))


# ---------------------------------------------------------------------------
# ForwardDiff.jl's edge cases (test/DualTest.jl, GradientTest.jl): powers at a
# zero base, abs at 0 (its convention: the x >= 0 branch), ties of max/min,
# integer-valued data, and nested derivatives

def test_forwarddiff_powers_at_zero():
    assert gradient(lambda x: x[0] ** x[1], np.array([0.0, 2.0])).tolist() == [0.0, 0.0]
    assert gradient(lambda x: np.power(x[0], x[1]), np.array([0.0, 1.0])).tolist() == [1.0, 0.0]
    assert D(D(lambda x: np.square(x) + x ** 3), 0.0) == 2.0


def test_forwarddiff_conventions_at_kinks():
    assert jvp(np.abs, (np.array([0.0, -1.0]),), (np.array([1.0, 1.0]),))[1].tolist() == [1.0, -1.0]
    assert D(lambda t: np.max(np.array([t, t])), 0.9) == 1.0  # ties share the tangent
    assert D(lambda t: np.maximum(t, 2.0 - t), 1.0) == 0.0  # half of each


def test_forwarddiff_integer_data():
    assert D(lambda t: np.sum(np.arange(4) * t ** 2), 0.7) == pytest.approx(8.4)
    refused(D, lambda t: np.sum(np.arange(3) * t ** 2), 2)  # an int point: int arrays
    assert_jvp(lambda x: x * np.arange(5) + np.arange(5) ** 2, R(5))


def test_forwarddiff_nested():
    f = lambda x: D(lambda t: np.sum(np.sin(t * x)), 0.3) * x  # noqa: E731
    assert_jvp(f, R(3, 4))


# ---------------------------------------------------------------------------
# The edge cases several peers test (autograd's test_numpy index and view
# tests, JAX-style out=/where=/initial= keywords): views, transposes, in-place
# updates, repeated indices, 0-d and empty arrays, keywords by position

def _shifted_add(x):
    y = x.copy()
    y[1:] += y[:-1]
    return y


def _through_transpose(x):
    y = x.copy()
    y.T[0] *= 2.0
    return y


def _mask_write(x):
    y = x.copy()
    y[y > 0] = y[y > 0] ** 2
    return y


def _swap_rows(x):
    y = x.copy()
    y[[0, 1]] = y[[1, 0]]
    return y


def _reversed_view_add(x):
    y = x.copy()
    v = y[::-1]
    v += y
    return y


VIEW_CASES = {
    "overlapping += through slices": (_shifted_add, (5,)),
    "*= through a transpose's row": (_through_transpose, (4, 4)),
    "mask read and write": (_mask_write, (3, 4)),
    "rows swapped by fancy indices": (_swap_rows, (3, 2)),
    "+= of an array into its reversed view": (_reversed_view_add, (5,)),
    "np.ix_ with a repeated column": (lambda x: x[np.ix_([0, 2], [1, 1, 3])], (3, 4)),
    "take with repeated indices": (lambda x: x.take([0, 0, 2]), (5,)),
    "index by argmax": (lambda x: x[np.argmax(x, axis=0), np.arange(4)], (3, 4)),
    "0-d point through reshape and @": (lambda x: np.reshape(x, (1, 1)) @ np.ones((1, 3)), ()),
    "0-d point's item": (lambda x: np.sin(x.item()), ()),
    "empty point": (lambda x: np.sum(x) + np.zeros(2), (0,)),
    "an empty slice summed": (lambda x: np.sum(x[:0]) + x[0], (5,)),
    "sum, initial= by position": (lambda x: np.sum(x, 1, None, None, False, 3.0), (3, 4)),
    "ndarray.sum, initial= by position": (lambda x: x.sum(1, None, None, False, 3.0), (3, 4)),
    "prod, initial= by position": (lambda x: np.prod(x, 1, None, None, False, 2.0), (3, 4)),
    "max, initial= by position": (lambda x: np.max(x, 1, None, False, -5.0), (3, 4)),
}


@pytest.mark.parametrize("name", list(VIEW_CASES))
def test_edge_cases(name):
    f, shape = VIEW_CASES[name]
    assert_jvp(f, R(*shape) if shape else np.array(1.5))


def test_sum_initial_by_position_is_not_in_the_tangent():
    """`np.sum(x, axis, dtype, out, keepdims, initial)`: the tangent of a constant
    offset is 0, given by keyword or by position (the rule once dropped only the
    keyword, and added 3 to every tangent here)."""
    x, v = R(3, 4), np.ones((3, 4))
    assert jvp(lambda a: np.sum(a, 1, None, None, False, 3.0), (x,), (v,))[1].tolist() == [4.0] * 3
    assert jvp(lambda a: a.sum(1, None, None, False, 3.0), (x,), (v,))[1].tolist() == [4.0] * 3
    assert D(D(lambda t: np.sum(np.array([t * t, t]), 0, None, None, False, 1.0)), 0.5) == 2.0


def _into(f, shape, *args):
    def g(x):
        y = np.empty(shape)
        f(x, *args, y)
        return y
    return g


def _sin_into_itself(x):
    y = x.copy()
    np.sin(y, y)
    return y


def test_out_by_position_is_refused():
    """`out` given by position is refused as `out=` is: a linear rule wrote the
    tangent into the user's array (`np.sum(x, 1, None, y)` left y holding the
    tangent), a ufunc's rule failed with a TypeError (`np.sin(x, y)`), and
    `np.sin(y, y)` kept y's old tangent."""
    x, v = R(3, 4), R(3, 4, seed=1)
    for f in (_into(np.sum, (3,), 1, None), _into(np.cumsum, (3, 4), 1, None),
              _into(np.mean, (4,), 0, None), _into(np.max, (4,), 0), _into(np.sin, (3, 4)),
              _into(np.multiply, (3, 4), 2.0), _into(np.clip, (3, 4), -0.5, 0.5),
              _into(np.dot, (3, 3), C34.T), _sin_into_itself):
        refused(jvp, f, (x,), (v,))
    y = np.empty(3)  # with no tangent in the call, out= runs as numpy's
    assert D(lambda t: np.sum(C34, 1, None, y)[0] * t, 2.0) == np.sum(C34[0])


def test_keywords_and_helpers_with_no_rule_are_refused():
    # out=, where= of a ufunc, ufunc methods, repeated writes, in-place sort, a
    # keyword carrying a tangent, the same array as two points
    x, v = R(5), R(5, seed=1)

    def repeated_write(a):
        y = np.zeros(3)
        y[[0, 0, 1]] += a[:3]
        return y

    def add_at(a):
        y = np.zeros(3)
        np.add.at(y, [0, 0, 1], a[:3])
        return y

    def sort_in_place(a):
        y = a.copy()
        y.sort()
        return y

    for f in (lambda a: np.sin(a, out=np.empty(5)), lambda a: np.add(a, a, where=a > 0),
              lambda a: np.add.reduce(a), lambda a: np.maximum.accumulate(a), repeated_write,
              add_at, sort_in_place, lambda a: np.max(np.zeros(0), initial=a[0]),
              lambda a: np.var(a, mean=np.mean(a))):
        refused(jvp, f, (x,), (v,))
    with pytest.raises(ValueError, match="share memory"):
        jvp(lambda a, b: a * b, (x, x), (v, v))


def test_gradient_at_an_array_the_function_also_reads():
    """`gradient(lambda a: np.sum(a * M), M)` gave M's entries but 2·M's last one: the
    last pass's point was M itself, which the closure reads too, the others' a copy.
    Every pass gets the point itself now, as `jvp` does: 2·M, the gradient of
    sum(M * M)."""
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.array_equal(gradient(lambda a: np.sum(a * m), m), 2 * m)
    assert np.array_equal(jacobian(lambda a: a * m, m).reshape(4, 4),
                          np.diag(2 * m.ravel()))
    constant = m.copy()  # made before: no alias of the point
    assert np.array_equal(gradient(lambda a: np.sum(a * constant), m), m)
