"""Every line of the numpy rule tables `ad/_rules/numpy_linalg.py` and
`ad/_rules/numpy_reduce.py`, its jvps called directly (the engine that runs numpy
under `D` is not what is tested here).

For a call f(*args, **kw) and a direction (a tangent per argument, or None), the
jvps' sum must equal the directional derivative of numpy's own f, computed at 50
digits: numpy's f on object arrays of mpmath numbers (numpy runs most reductions
and products on them), or mpmath's own linear algebra (`inverse`, `lu_solve`,
`det`, `cholesky`, `eigsy`, `svd_r`), by a central difference with a step of
1e-20 (an error near 1e-30). Each tangent must broadcast to the answer's shape, and a real
answer must get a real tangent. Hypothesis draws shapes, axes, keepdims, points
and directions. The traps (prod at zeros, max at ties, norm at 0, det at a
singular matrix, eigh at a repeated eigenvalue, cholesky's triangle) have their own
tests, and the last test checks that every line is exercised and every function
the modules' docstrings name has a line or is listed as refused.
"""

from __future__ import annotations

import re
import sys
import types

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
hnp = pytest.importorskip("hypothesis.extra.numpy")

import ad  # noqa: E402
from ad._rules import RULES, Constant, Jvp, Model  # noqa: E402
from ad._rules import _array, numpy_linalg, numpy_reduce  # noqa: E402
from ad._rules import numpy as numpy_rules  # noqa: E402

mp = mpmath.mp
DIGITS = 50
STEP = mpmath.mpf("1e-20")
REL = 1e-9
MODULES = (numpy_linalg, numpy_reduce)
NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
COVERED: set = set()


def hyp(n=15):
    return settings(max_examples=n, deadline=None)


# ---------------------------------------------------------------------------
# the jvps, and the reference

def jvp(f, args, tangents, **kw):
    """The sum of f's jvps over the arguments with a tangent, broadcast to f's
    answer; checks that each term broadcasts and that a real answer gets a real
    tangent."""
    COVERED.add(f)
    rule = RULES[f]
    assert type(rule) is Jvp
    tangents = list(tangents) + [None] * (len(args) - len(tangents))
    ans = f(*args, **kw)
    total = 0
    for i, g in enumerate(tangents):
        if g is not None:
            term = rule.jvps[i](g, ans, *args, **kw)
            assert np.broadcast_shapes(np.shape(term), np.shape(ans)) == np.shape(ans), f
            total = total + term
    if not np.iscomplexobj(ans):
        assert not np.iscomplexobj(total), f
    return np.broadcast_to(total, np.shape(ans))


def high(a):
    """`a` as an object array of mpmath numbers (a scalar as one number)."""
    a = np.asarray(a)
    kind = mpmath.mpc if np.iscomplexobj(a) else mpmath.mpf
    cells = [kind(complex(v)) if kind is mpmath.mpc else kind(float(v)) for v in a.ravel()]
    return np.array(cells, dtype=object).reshape(a.shape) if a.shape else cells[0]


def low(a):
    """An object array (or mpmath matrix, or number) back to float or complex."""
    a = np.asarray(low_objects(a), dtype=object)
    cells = list(a.ravel())
    complex_ = any(isinstance(v, (mpmath.mpc, complex)) for v in cells)
    kind = complex if complex_ else float
    return np.array([kind(v) for v in cells], dtype=kind).reshape(a.shape)


def derivative(f, args, tangents, **kw):
    """d/dt f(*(a + t g)) at 0, at 50 digits, for f taking object arrays of mpmath
    numbers (numpy's own f, or an mpmath version)."""
    tangents = list(tangents) + [None] * (len(args) - len(tangents))
    with mpmath.workdps(DIGITS):
        def at(t):
            return [a if g is None else high(a) + t * high(g) for a, g in zip(args, tangents)]
        plus, minus = f(*at(STEP), **kw), f(*at(-STEP), **kw)
        return low((np.asarray(low_objects(plus), dtype=object)
                    - np.asarray(low_objects(minus), dtype=object)) / (2 * STEP))


def low_objects(x):
    """An mpmath matrix as an object array; anything else as it is."""
    if isinstance(x, mpmath.matrix):
        return np.array(x.tolist(), dtype=object)
    return x


def assert_close(got, want, rel=REL):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.all(np.isfinite(got)), got
    scale = max(1.0, float(np.max(np.abs(want), initial=0)))
    assert np.max(np.abs(got - want), initial=0) <= rel * scale, (got, want)


def check(f, args, tangents, reference=None, rel=REL, **kw):
    """The jvps against the derivative of `reference` (numpy's own f by default)."""
    got = jvp(f, args, tangents, **kw)
    want = derivative(reference or f, args, tangents, **kw)
    assert_close(got, np.broadcast_to(want, got.shape), rel)
    return got


def refused(match):
    return pytest.raises(ad.NonDifferentiableError, match=match)


# ---------------------------------------------------------------------------
# strategies

def floats(low=-2.0, high=2.0):
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def arrays(shape, low=-2.0, high=2.0, unique=False):
    """Floats in [low, high]; `unique`: at least 1/64 apart, so a difference step
    never reorders them (they sit on a grid)."""
    if unique:
        grid = st.integers(int(np.ceil(low * 64)), int(high * 64)).map(lambda k: k / 64)
        return hnp.arrays(float, shape, elements=grid, unique=True)
    return hnp.arrays(float, shape, elements=floats(low, high))


@st.composite
def regular(draw, n, batch=()):
    """A strictly diagonally dominant matrix (or stack): regular, well conditioned."""
    m = draw(arrays(batch + (n, n), -1, 1))
    return m + (n + 1) * np.eye(n)


@st.composite
def positive_definite(draw, n):
    b = draw(arrays((n, n), -1, 1))
    return b @ b.T + n * np.eye(n)


@st.composite
def separated(draw, n):
    """A symmetric matrix with eigenvalues at least 0.5 apart."""
    w = np.arange(n) + np.array(draw(st.lists(floats(0, 0.5), min_size=n, max_size=n)))
    q, _ = np.linalg.qr(draw(regular(n)))
    return q @ np.diag(w) @ q.T


@st.composite
def reduction(draw, unique=False, low=-2.0, high=2.0):
    """(x, g, axis, keepdims): data, a direction, an axis (None, int or tuple)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = draw(arrays(shape, low, high, unique=unique))
    g = draw(arrays(shape, -1, 1))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1),
                          hnp.valid_tuple_axes(len(shape), min_size=1)))
    return x, g, axis, draw(st.booleans())


# ---------------------------------------------------------------------------
# products: multilinear

PRODUCTS = [  # f, arguments, keywords
    (np.inner, ((2, 3), (4, 3)), {}),
    (np.outer, ((3,), (2, 2)), {}),
    (np.tensordot, ((2, 3, 4), (3, 4, 2)), {"axes": 2}),
    (np.tensordot, ((2, 3), (3, 2)), {"axes": ([1], [0])}),
    (np.kron, ((2, 2), (3, 1)), {}),
    (np.cross, ((4, 3), (3,)), {}),
    (np.cross, ((3, 2), (3, 2)), {"axisa": 0, "axisb": 0}),
    (np.vdot, ((2, 3), (2, 3)), {}),
    (np.trace, ((3, 3),), {}),
    (np.trace, ((2, 3, 3),), {"offset": 1, "axis1": 1, "axis2": 2}),
]
PRODUCTS += [(getattr(np.linalg, name), shapes, kw) for name, shapes, kw in (  # numpy 2
    ("outer", ((3,), (2,)), {}), ("cross", ((2, 3), (2, 3)), {}),
    ("tensordot", ((2, 3), (3, 4)), {"axes": 1}), ("trace", ((2, 3, 3),), {"offset": -1}),
    ("vecdot", ((2, 3), (3,)), {})) if hasattr(np.linalg, name)]


@pytest.mark.parametrize("f, shapes, kw", PRODUCTS, ids=lambda c: getattr(c, "__name__", ""))
@hyp(8)
@given(data=st.data())
def test_products(f, shapes, kw, data):
    args = [data.draw(arrays(s)) for s in shapes]
    tangents = [data.draw(st.one_of(st.none(), arrays(s, -1, 1))) for s in shapes]
    assume(any(t is not None for t in tangents))
    check(f, args, tangents, **kw)


def test_products_of_complex_and_integer_operands():
    a, b = np.array([1 + 2j, 3 - 1j]), np.array([0.5 - 1j, 2 + 0.5j])
    g = np.array([0.3 - 0.1j, 1j])
    check(np.vdot, [a, b], [g, None])  # vdot conjugates its first operand: a real-linear rule
    check(np.outer, [np.array([1, 2]), np.array([0.5, 1.5])], [None, np.array([1.0, -1.0])])
    assert jvp(np.trace, [np.eye(2)], [np.ones((2, 2))], dtype=int) == 0  # a step function


@hyp(10)
@given(data=st.data())
def test_einsum(data):
    subscripts, shapes = data.draw(st.sampled_from([
        ("ij,jk->ik", ((2, 3), (3, 2))), ("i,i", ((3,), (3,))), ("ii->i", ((3, 3),)),
        ("ij,jk,kl->il", ((2, 2), (2, 3), (3, 2))), ("...i,i->...", ((2, 3), (3,)))]))
    args = [data.draw(arrays(s)) for s in shapes]
    tangents = [data.draw(st.one_of(st.none(), arrays(s, -1, 1))) for s in shapes]
    assume(any(t is not None for t in tangents))
    check(np.einsum, [subscripts, *args], [None, *tangents])
    if subscripts == "ij,jk->ik":  # the interleaved form: operands at even positions
        interleaved = [args[0], [0, 1], args[1], [1, 2], [0, 2]]
        check(np.einsum, interleaved, [tangents[0], None, tangents[1], None, None])


# ---------------------------------------------------------------------------
# inverse, solve, determinants (against mpmath's linear algebra)

def _stacked(fm):
    """fm over each matrix of a stack of object arrays."""
    def f(*args):
        a = np.asarray(args[0], dtype=object)
        if a.ndim == 2:
            return fm(*args)
        return np.array([np.asarray(low_objects(f(a[i], *args[1:])), dtype=object)
                         for i in range(a.shape[0])], dtype=object)
    return f


def _mp_inverse(a):
    return np.array(mpmath.inverse(mpmath.matrix(a.tolist())).tolist(), dtype=object)


def _mp_solve(a, b, vector):
    a = mpmath.matrix(np.asarray(a, dtype=object).tolist())
    b = np.asarray(b, dtype=object)
    if vector:
        return np.array(mpmath.lu_solve(a, mpmath.matrix(list(b))).tolist(), dtype=object)[:, 0]
    columns = [np.array(mpmath.lu_solve(a, mpmath.matrix(list(b[:, j]))).tolist(),
                        dtype=object)[:, 0] for j in range(b.shape[1])]
    return np.stack(columns, axis=1)


def _mp_det(a):
    return mpmath.det(mpmath.matrix(np.asarray(a, dtype=object).tolist()))


@hyp()
@given(data=st.data(), n=st.integers(1, 4), batch=st.sampled_from([(), (2,)]))
def test_inv(data, n, batch):
    a = data.draw(regular(n, batch))
    check(np.linalg.inv, [a], [data.draw(arrays(a.shape, -1, 1))],
          reference=_stacked(_mp_inverse))


@hyp()
@given(data=st.data(), n=st.integers(1, 4), batch=st.sampled_from([(), (2,)]),
       columns=st.sampled_from([None, 1, 3]))
def test_solve(data, n, batch, columns):
    a = data.draw(regular(n, batch))
    vector = (n,) if NUMPY_2 else batch + (n,)  # what each numpy reads as a vector
    b = data.draw(arrays(vector if columns is None else batch + (n, columns)))
    tangents = [data.draw(st.one_of(st.none(), arrays(a.shape, -1, 1))),
                data.draw(st.one_of(st.none(), arrays(b.shape, -1, 1)))]
    assume(any(t is not None for t in tangents))

    def reference(a, b):
        a = np.asarray(a, dtype=object)
        if a.ndim == 2:
            return _mp_solve(a, b, columns is None)
        rows = [b if columns is None and NUMPY_2 else np.asarray(b, dtype=object)[i]
                for i in range(a.shape[0])]
        return np.array([_mp_solve(a[i], rows[i], columns is None)
                         for i in range(a.shape[0])], dtype=object)
    check(np.linalg.solve, [a, b], tangents, reference=reference)


@hyp()
@given(data=st.data(), n=st.integers(1, 4), batch=st.sampled_from([(), (3,)]))
def test_det_and_slogdet(data, n, batch):
    a = data.draw(regular(n, batch)) * data.draw(st.sampled_from([1.0, -1.0]))
    g = data.draw(arrays(a.shape, -1, 1))
    check(np.linalg.det, [a], [g], reference=_stacked(_mp_det))
    sign, logabsdet = numpy_linalg._sign, numpy_linalg._logabsdet
    check(logabsdet, [a], [g], reference=_stacked(lambda m: mpmath.log(abs(_mp_det(m)))))
    assert np.all(jvp(sign, [a], [g]) == 0)
    value = numpy_linalg._slogdet(a)
    assert type(value) is type(np.linalg.slogdet(a))
    assert np.array_equal(value.sign, np.linalg.slogdet(a).sign)
    assert np.array_equal(value.logabsdet, np.linalg.slogdet(a).logabsdet)
    COVERED.add(np.linalg.slogdet)


def test_slogdet_of_a_complex_matrix():
    a = np.array([[2 + 1j, 0.5], [0.3j, 1 - 0.5j]])
    g = np.array([[0.1, -0.2j], [0.4 + 0.1j, 0.3]])
    want = derivative(lambda m: _mp_det(m) / abs(_mp_det(m)), [a], [g])
    assert_close(jvp(numpy_linalg._sign, [a], [g]), want)
    want = derivative(lambda m: mpmath.log(abs(_mp_det(m))), [a], [g])
    assert_close(jvp(numpy_linalg._logabsdet, [a], [g]), want)


def test_det_at_a_singular_matrix_is_refused():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with refused("det.*singular"):
        jvp(np.linalg.det, [singular], [np.eye(2)])
    nearly = singular + np.array([[1e-12, 0], [0, 0]])
    with refused("condition number"):
        jvp(np.linalg.det, [nearly], [np.eye(2)])
    with refused("singular"):
        jvp(numpy_linalg._logabsdet, [singular], [np.eye(2)])


# ---------------------------------------------------------------------------
# cholesky and eigh: one triangle

def _mirror(a, upper=False):
    a = np.asarray(a, dtype=object)
    part = np.triu(a) if upper else np.tril(a)
    strict = np.triu(a, 1) if upper else np.tril(a, -1)
    return part + strict.T


def _mp_cholesky(a, upper=False):
    lower = np.array(mpmath.cholesky(mpmath.matrix(_mirror(a, upper).tolist())).tolist(),
                     dtype=object)
    return lower.T if upper else lower


@hyp()
@given(data=st.data(), n=st.integers(1, 4), upper=st.booleans() if NUMPY_2 else st.just(False))
def test_cholesky_reads_one_triangle(data, n, upper):
    a = data.draw(positive_definite(n))
    g = data.draw(arrays((n, n), -1, 1))  # not symmetric: numpy reads one triangle of A + tG
    kw = {"upper": True} if upper else {}  # numpy 2's keyword
    got = check(np.linalg.cholesky, [a], [g], reference=_mp_cholesky, **kw)
    other = np.tril(g, -1) if upper else np.triu(g, 1)  # the triangle numpy ignores
    assert np.array_equal(jvp(np.linalg.cholesky, [a], [g - other], **kw), got)
    assert np.all(jvp(np.linalg.cholesky, [a], [other], **kw) == 0)


def _mp_eigh(a, upper, aligned_to):
    """mpmath's eigenvalues (ascending) and eigenvectors, signed as numpy's `aligned_to`."""
    w, q = mpmath.eigsy(mpmath.matrix(_mirror(a, upper).tolist()))
    w = np.array([w[i] for i in range(len(w))], dtype=object)
    q = np.array(q.tolist(), dtype=object)
    order = np.argsort([float(v) for v in w])
    w, q = w[order], q[:, order]
    signs = [1 if float(np.dot(q[:, j], aligned_to[:, j])) > 0 else -1
             for j in range(q.shape[1])]
    return w, q * np.array(signs, dtype=object)


@hyp()
@given(data=st.data(), n=st.integers(1, 4), upper=st.booleans())
def test_eigh(data, n, upper):
    a = data.draw(separated(n))
    g = data.draw(arrays((n, n), -1, 1))  # not symmetric
    uplo = "U" if upper else "L"
    v = np.linalg.eigh(a, uplo).eigenvectors
    values, vectors = numpy_linalg._eigenvalues, numpy_linalg._eigenvectors
    check(values, [a], [g], reference=lambda m, UPLO: _mp_eigh(m, upper, v)[0], UPLO=uplo)
    check(vectors, [a], [g], reference=lambda m, UPLO: _mp_eigh(m, upper, v)[1], UPLO=uplo)
    check(np.linalg.eigvalsh, [a], [g], reference=lambda m, UPLO: _mp_eigh(m, upper, v)[0],
          UPLO=uplo)
    w, vs = numpy_linalg._eigh(a, uplo)
    assert type(numpy_linalg._eigh(a)) is type(np.linalg.eigh(a))
    assert np.array_equal(w, np.linalg.eigh(a, uplo)[0]) and np.array_equal(vs, v)
    COVERED.add(np.linalg.eigh)


def test_eigh_at_a_repeated_eigenvalue_is_refused():
    q, _ = np.linalg.qr(np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]]))
    a = q @ np.diag([1.0, 1.0, 3.0]) @ q.T
    g = np.array([[1.0, 0.2, 0], [0.2, -1, 0], [0, 0, 0.5]])
    for f in (numpy_linalg._eigenvalues, numpy_linalg._eigenvectors, np.linalg.eigvalsh):
        with refused("eigenvalues are .nearly. equal"):
            jvp(f, [a], [g])
    with refused("complex matrix"):
        jvp(np.linalg.eigvalsh, [np.array([[2, 1j], [-1j, 3]])], [np.eye(2)])
    with refused("complex matrix"):
        jvp(np.linalg.cholesky, [np.array([[2, 1j], [-1j, 3]])], [np.eye(2)])


# ---------------------------------------------------------------------------
# singular values and vectors

@st.composite
def spread(draw, m, n):
    """An m x n matrix with singular values at least 0.5 apart and from 0."""
    k = min(m, n)
    s = 1 + np.arange(k)[::-1] + np.array(draw(st.lists(floats(0, 0.5), min_size=k,
                                                         max_size=k)))
    left, _ = np.linalg.qr(draw(regular(m)))
    right, _ = np.linalg.qr(draw(regular(n)))
    return left[:, :k] @ np.diag(s) @ right[:, :k].T


def _mp_svd(a, aligned_to):
    """mpmath's reduced U, s, Vᵀ (s descending), each pair signed as numpy's U."""
    u, s, vh = mpmath.svd_r(mpmath.matrix(np.asarray(a, dtype=object).tolist()),
                            full_matrices=False)
    u, vh = np.array(u.tolist(), dtype=object), np.array(vh.tolist(), dtype=object)
    s = np.array([s[i] for i in range(len(s))], dtype=object)
    order = np.argsort([-float(v) for v in s])
    u, s, vh = u[:, order], s[order], vh[order, :]
    signs = np.array([1 if float(np.dot(u[:, j], aligned_to[:, j])) > 0 else -1
                      for j in range(len(s))], dtype=object)
    return u * signs, s, vh * signs[:, None]


@hyp()
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4))
def test_svd(data, m, n):
    a = data.draw(spread(m, n))
    g = data.draw(arrays((m, n), -1, 1))
    u = np.linalg.svd(a, full_matrices=False).U
    for i, f in enumerate((numpy_linalg._left, numpy_linalg._singular_values,
                           numpy_linalg._right)):
        check(f, [a], [g], reference=lambda m_: _mp_svd(m_, u)[i])
    if hasattr(np.linalg, "svdvals"):
        check(np.linalg.svdvals, [a], [g], reference=lambda m_: _mp_svd(m_, u)[1])
    model = RULES[np.linalg.svd].function
    reduced, full = model(a, full_matrices=False), np.linalg.svd(a, full_matrices=False)
    assert type(reduced) is type(full)
    assert all(np.array_equal(x, y) for x, y in zip(reduced, full))
    assert np.array_equal(model(a, compute_uv=False), np.linalg.svd(a, compute_uv=False))
    if m == n:
        assert all(np.array_equal(x, y) for x, y in zip(model(a), np.linalg.svd(a)))
    else:
        with refused("full_matrices=True"):
            model(a)
    COVERED.add(np.linalg.svd)


def test_svd_at_repeated_or_zero_singular_values_is_refused():
    g = np.array([[0.3, -0.1, 0.2], [0.4, 0.5, -0.4], [0.1, 0.2, 0.3]])
    for a in (np.eye(3), np.diag([3.0, 2.0, 0.0])):
        for f in (numpy_linalg._left, numpy_linalg._singular_values, numpy_linalg._right):
            with refused("singular value is .nearly. repeated or 0"):
                jvp(f, [a], [g])
    with refused("hermitian=True"):
        RULES[np.linalg.svd].function(np.eye(2), hermitian=True)
    with refused("complex"):
        jvp(numpy_linalg._singular_values, [np.eye(2) * (1 + 1j)], [np.eye(2)])


# ---------------------------------------------------------------------------
# norm

NORMS = [  # shape, keywords
    ((4,), {}), ((4,), {"ord": 2}), ((4,), {"ord": 1}), ((4,), {"ord": np.inf}),
    ((4,), {"ord": -np.inf}), ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((2, 3, 2), {}),
    ((3, 4), {"axis": 1}), ((3, 4), {"axis": 0, "ord": 1, "keepdims": True}),
    ((3, 4), {"ord": 1}), ((3, 4), {"ord": -1}), ((3, 4), {"ord": np.inf}),
    ((3, 4), {"ord": -np.inf}), ((2, 3, 4), {"axis": (2, 0), "ord": 1}),
    ((2, 3, 4), {"axis": (1, 2), "keepdims": True}),
]


@pytest.mark.parametrize("shape, kw", NORMS, ids=str)
@hyp(10)
@given(data=st.data())
def test_norm(shape, kw, data):
    # away from the kinks: no zeros, no ties in |x|
    magnitudes = data.draw(arrays(shape, 0.1, 2.0, unique=True))
    x = magnitudes * np.where(data.draw(hnp.arrays(bool, shape)), 1, -1)
    check(np.linalg.norm, [x], [data.draw(arrays(shape, -1, 1))], **kw)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
@hyp(10)
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4), keepdims=st.booleans())
def test_spectral_norms(ord_, data, m, n, keepdims):
    a = np.stack([data.draw(spread(m, n)), data.draw(spread(m, n))], axis=1)  # (m, 2, n)
    g = data.draw(arrays(a.shape, -1, 1))

    def reference(x, ord, axis, keepdims):
        values = [_mp_svd(x[:, j, :], np.eye(m))[1] for j in range(2)]
        picked = [v[0] if ord == 2 else v[-1] if ord == -2 else sum(v) for v in values]
        return np.array(picked, dtype=object).reshape((1, 2, 1) if keepdims else (2,))
    check(np.linalg.norm, [a], [g], reference=reference, ord=ord_, axis=(0, 2),
          keepdims=keepdims)


def test_spectral_norms_at_repeated_and_zero_singular_values():
    g = np.array([[0.3, -0.1, 0.2], [0.4, 0.5, -0.4], [0.1, 0.2, 0.3]])
    assert np.isclose(jvp(np.linalg.norm, [np.eye(3)], [g], ord="nuc"), np.trace(g))
    assert np.isclose(jvp(np.linalg.norm, [np.diag([3.0, 1.0, 1.0])], [g], ord=2), 0.3)
    assert np.isclose(jvp(np.linalg.norm, [np.diag([3.0, 3.0, 1.0])], [g], ord=-2), 0.3)
    for a, ord_ in ((np.eye(3), 2), (np.eye(3), -2), (np.diag([3.0, 2.0, 0.0]), -2),
                    (np.diag([3.0, 2.0, 0.0]), "nuc")):
        with refused("singular value is .nearly. repeated or 0"):
            jvp(np.linalg.norm, [a], [g], ord=ord_)
    with refused("complex"):
        jvp(np.linalg.norm, [np.eye(2) * 1j], [np.eye(2)], ord=2)


def test_norm_of_complex_vectors_and_at_zero():
    x = np.array([1 + 2j, -0.5j, 3.0])
    g = np.array([0.1j, 1.0, -1 - 1j])
    check(np.linalg.norm, [x], [g], reference=lambda x: mpmath.sqrt(sum(abs(v) ** 2 for v in x)))
    zero = np.zeros(3)
    with refused("no derivative at 0"):
        jvp(np.linalg.norm, [zero], [np.ones(3)])
    with refused("no derivative at 0"):
        jvp(np.linalg.norm, [np.array([[0.0, 0], [1, 2]])], [np.ones((2, 2))], axis=1)
    # ord 1 and inf at 0 follow abs (+g at 0) and average the tied |x|
    assert jvp(np.linalg.norm, [zero], [np.array([1.0, -2, 4])], ord=1) == 3.0
    assert jvp(np.linalg.norm, [zero], [np.array([1.0, -2, 4])], ord=np.inf) == 1.0
    assert jvp(np.linalg.norm, [np.array([2.0, -2, 1])], [np.array([1.0, 3, 0])],
               ord=np.inf) == -1.0
    assert jvp(np.linalg.norm, [np.array([2.0, 0, 1])], [np.ones(3)], ord=0) == 0
    with refused("has no rule"):
        jvp(np.linalg.norm, [np.ones(2)], [np.ones(2)], ord=3)
    with refused("complex"):
        jvp(np.linalg.norm, [x], [g], ord=1)


# ---------------------------------------------------------------------------
# models over matmul: their value is numpy's, and they compute the right function
# (a complex step through the model: every product in it is analytic)

@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, 13, -1, -3])
def test_matrix_power(n):
    COVERED.add(np.linalg.matrix_power)
    a = np.array([[0.9, 0.2, -0.1], [0.1, 1.1, 0.3], [-0.2, 0.05, 0.8]])
    v = np.array([[0.3, -0.1, 0.2], [0.0, 0.5, -0.4], [0.1, 0.2, 0.3]])
    model = RULES[np.linalg.matrix_power].function
    assert np.array_equal(model(a, n), np.linalg.matrix_power(a, n))
    step = 1e-30
    got = np.imag(model(a + 1j * step * v, n)) / step

    def reference(m):
        m = mpmath.matrix(np.asarray(m, dtype=object).tolist())
        return np.array((m ** n).tolist(), dtype=object)
    assert_close(got, derivative(reference, [a], [v]))


def test_multi_dot():
    COVERED.add(np.linalg.multi_dot)
    rng = np.random.default_rng(1)
    arrays_ = [rng.normal(size=(3,)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2)),
               rng.normal(size=(2,))]
    model = RULES[np.linalg.multi_dot].function
    assert np.allclose(model(arrays_), np.linalg.multi_dot(arrays_), rtol=1e-14)
    with refused("out="):
        model(arrays_[:3], out=np.zeros(2))


# ---------------------------------------------------------------------------
# second order: each jvp is itself differentiated right (a complex step through
# the jvp, which is analytic in A, against mpmath's mixed second derivative)

def _mixed(f, a, g, h):
    """d²/ds dt f(a + s g + t h) at 0, at 50 digits."""
    with mpmath.workdps(DIGITS):
        def at(s, t):
            return np.asarray(low_objects(f(high(a) + s * high(g) + t * high(h))), dtype=object)
        return low((at(STEP, STEP) - at(STEP, -STEP) - at(-STEP, STEP) + at(-STEP, -STEP))
                   / (4 * STEP * STEP))


@pytest.mark.parametrize("f, reference", [
    (np.linalg.inv, _mp_inverse), (np.linalg.det, _mp_det),
    (np.linalg.solve, lambda m: _mp_solve(m, np.array([1.0, -2.0, 0.5]), True))],
    ids=["inv", "det", "solve"])
def test_second_order(f, reference):
    a = np.array([[3.0, 0.2, -0.5], [0.4, 2.5, 0.1], [-0.3, 0.6, 4.0]])
    g = np.array([[0.3, -0.1, 0.2], [0.0, 0.5, -0.4], [0.1, 0.2, 0.3]])
    h = np.array([[-0.2, 0.4, 0.0], [0.1, 0.1, 0.6], [0.5, -0.3, 0.2]])
    args = (lambda m: (m,)) if f is not np.linalg.solve else \
        (lambda m: (m, np.array([1.0, -2.0, 0.5])))
    rule = RULES[f].jvps[0]
    step = 1e-30
    moved = a + 1j * step * h
    got = np.imag(rule(g, f(*args(moved)), *args(moved))) / step
    assert_close(got, _mixed(reference, a, g, h), rel=1e-8)


def _richardson(fun, h=1e-3):
    """fun'(0) by central differences at h and h/2, combined (error ~h^4)."""
    def central(step):
        return (fun(step) - fun(-step)) / (2 * step)
    return (4 * central(h / 2) - central(h)) / 3


@pytest.mark.parametrize("f, reference", [
    (np.linalg.cholesky, _mp_cholesky),
    (np.linalg.eigvalsh, lambda m: _mp_eigh(m, False, np.eye(3))[0]),
    (numpy_linalg._logabsdet, lambda m: mpmath.log(abs(_mp_det(m)))),
    (np.linalg.norm, lambda m: mpmath.sqrt(sum(v * v for v in np.ravel(m))))],
    ids=["cholesky", "eigvalsh", "logabsdet", "norm"])
def test_second_order_by_differences(f, reference):
    """Where a complex step cannot go (these jvps are real, or refuse complex A): a
    Richardson difference of the jvp along h against mpmath's mixed derivative."""
    a = np.array([[4.0, 0.5, -0.3], [0.5, 3.0, 0.2], [-0.3, 0.2, 2.0]])
    g = np.array([[0.3, -0.1, 0.2], [0.4, 0.5, -0.4], [0.1, 0.2, 0.3]])  # not symmetric
    h = np.array([[-0.2, 0.4, 0.0], [0.1, 0.1, 0.6], [0.5, -0.3, 0.2]])
    rule = RULES[f].jvps[0]
    got = _richardson(lambda t: rule(g, f(a + t * h), a + t * h))
    assert_close(got, _mixed(reference, a, g, h), rel=1e-8)


# ---------------------------------------------------------------------------
# reductions

def _kw(axis, keepdims):
    return {"axis": axis, "keepdims": keepdims}


@hyp(30)
@given(reduction(low=-1.5, high=1.5))
def test_prod(case):
    x, g, axis, keepdims = case
    check(np.prod, [x], [g], **_kw(axis, keepdims))


@hyp()
@given(reduction(), st.data())
def test_prod_where_and_initial(case, data):
    x, g, axis, keepdims = case
    where = data.draw(hnp.arrays(bool, x.shape))
    check(np.prod, [x], [g], axis=axis, keepdims=keepdims, where=where, initial=-1.5)


def test_prod_and_cumprod_at_zeros_are_exact():
    x = np.array([2.0, 0.0, 3.0, 0.5])
    for i, want in enumerate([0.0, 3.0, 0.0, 0.0]):  # d/dx_i: the product of the others
        g = np.eye(4)[i]
        assert jvp(np.prod, [x], [g]) == want
    two = np.array([0.0, 4.0, 0.0])
    assert np.all(jvp(np.prod, [two], [np.ones(3)]) == 0)
    want = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 6.0, 3.0]])  # t_k per g = e_0, e_1
    for row, g in zip(want, np.eye(4)[:2]):
        assert np.array_equal(jvp(np.cumprod, [x], [g]), np.broadcast_to(row, (4,)))
    with np.errstate(all="raise"):  # no division, no 0 * inf anywhere
        assert np.isclose(jvp(np.prod, [np.array([0.0, 1e300, 1e-300])], [np.ones(3)]), 1.0)
        jvp(np.cumprod, [np.array([0.0, 1e300, 1e-300, 0.0])], [np.ones(4)])


@hyp(25)
@given(reduction(low=-1.5, high=1.5), st.sampled_from([np.cumsum, np.cumprod]))
def test_scans(case, f):
    x, g, axis, _ = case
    if isinstance(axis, tuple):
        axis = axis[0]
    check(f, [x], [g], axis=axis)


def test_cumprod_long_axis():
    x = np.linspace(0.5, 1.5, 37).reshape(1, 37)
    g = np.cos(np.arange(37.0)).reshape(1, 37)
    check(np.cumprod, [x], [g], axis=1)
    assert np.all(jvp(np.cumsum, [x], [g], dtype=int) == 0)


EXTREMA = [np.max, np.amax, np.min, np.amin, np.nanmax, np.nanmin]


@pytest.mark.parametrize("f", EXTREMA, ids=lambda f: f.__name__)
@hyp(12)
@given(case=reduction(unique=True))
def test_extrema(f, case):
    x, g, axis, keepdims = case
    check(f, [x], [g], **_kw(axis, keepdims))


def test_extrema_ties_where_initial_and_nans():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    g = np.array([[5.0, 1.0, 2.0], [3.0, 6.0, 0.0]])
    assert np.array_equal(jvp(np.max, [x], [g], axis=1), [1.5, 3.0])  # ties averaged
    assert np.array_equal(jvp(np.amin, [x], [g], axis=1, keepdims=True), [[5.0], [3.0]])
    where = np.array([[True, True, False], [False, True, True]])
    assert np.array_equal(jvp(np.max, [x], [g], axis=1, where=where, initial=-10),
                          [1.0, 3.0])
    assert np.array_equal(jvp(np.max, [x], [g], axis=1, initial=3.0), [1.0, 0.0])
    assert np.array_equal(jvp(np.max, [x], [g], axis=1, initial=9.0), [0.0, 0.0])
    y = np.array([1.0, np.nan, 4.0])
    assert jvp(np.nanmax, [y], [np.array([1.0, 2.0, 3.0])]) == 3.0
    assert jvp(np.nanmin, [y], [np.array([1.0, 2.0, 3.0])]) == 1.0


def test_ptp_is_max_minus_min():
    COVERED.add(np.ptp)
    model = RULES[np.ptp].function
    x = np.array([[1.0, 4.0, -2.0], [0.5, 0.25, 3.0]])
    for kw in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}):
        assert np.array_equal(model(x, **kw), np.ptp(x, **kw))
    with refused("out="):
        model(x, out=np.zeros(()))


@pytest.mark.parametrize("f", [np.var, np.std], ids=["var", "std"])
@hyp(20)
@given(case=reduction(), ddof=st.sampled_from([0, 1]))
def test_var_std(f, case, ddof):
    x, g, axis, keepdims = case
    size = int(np.prod([x.shape[i] for i in _array.reduced_axes(x.ndim, axis)]))
    assume(size > ddof and np.all(np.std(x, axis=axis) > 1e-3))
    check(f, [x], [g], axis=axis, keepdims=keepdims, ddof=ddof)


def test_var_std_keywords_and_zero_spread():
    x = np.array([[1.0, 4.0, -2.0, 0.5], [0.5, 0.25, 3.0, 2.0]])
    g = np.array([[0.3, -1.0, 0.2, 0.1], [1.0, 0.5, -0.5, 0.0]])
    where = np.array([[True, False, True, True], [True, True, True, False]])
    for f in (np.var, np.std):
        def rows(x, axis, where):  # numpy's own f on the kept entries of each row
            return np.array([f(x[i][where[i]]) for i in range(len(x))], dtype=object)
        check(f, [x], [g], axis=1, where=where, reference=rows)
        check(f, [x], [g], axis=0, ddof=1)
        if NUMPY_2:  # its keywords
            check(f, [x], [g], axis=0, correction=1)
            check(f, [x], [g], axis=1, keepdims=True, mean=np.mean(x, axis=1, keepdims=True))
        assert np.all(jvp(f, [x], [g], dtype=int) == 0)
    z = np.array([1 + 1j, 2 - 1j, 0.5j])
    check(np.var, [z], [np.array([1j, 0.5, 1 - 1j])])
    with refused("no spread"):
        jvp(np.std, [np.array([[2.0, 2.0], [1.0, 3.0]])], [np.eye(2)], axis=1)


@hyp(20)
@given(case=reduction(), data=st.data())
def test_average(case, data):
    x, g, axis, keepdims = case
    weights = data.draw(arrays(x.shape, 0.5, 2.0))
    h = data.draw(st.one_of(st.none(), arrays(x.shape, -1, 1)))
    check(np.average, [x, axis, weights], [g, None, h], keepdims=keepdims)


def test_average_with_weights_along_an_axis():
    x = np.arange(12.0).reshape(3, 4) ** 1.5
    g = np.cos(np.arange(12.0)).reshape(3, 4)
    w, h = np.array([1.0, 2.0, 0.5, 1.5]), np.array([0.2, -0.3, 0.5, 0.1])
    check(np.average, [x, 1, w], [g, None, h])
    w3, h3 = np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.0, -0.2])
    check(np.average, [x, 0, w3], [None, None, h3])
    with refused("returned=True"):
        jvp(np.average, [x, 0, w3], [g, None, None], returned=True)
    with refused("numpy.average .called at .*test_ad_numpy_rules.py.*axis is an index"):
        RULES[np.average].jvps[1](1.0, 0.0, x, 0)


@hyp(20)
@given(case=reduction(unique=True))
def test_sort_and_median(case):
    x, g, axis, keepdims = case
    sort_axis = axis if axis is None or isinstance(axis, int) else axis[0]
    check(np.sort, [x], [g], axis=sort_axis)

    def median(x, axis, keepdims):  # numpy's keepdims fails on object arrays: reshaped here
        kept = np.median(np.zeros(x.shape), axis=axis, keepdims=keepdims).shape
        return np.asarray(np.median(x, axis=axis), dtype=object).reshape(kept)
    check(np.median, [x], [g], axis=axis, keepdims=keepdims, reference=median)


def test_sort_and_median_at_ties_and_in_place():
    x = np.array([3.0, 1.0, 3.0, 2.0, 5.0, 3.0])
    g = np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
    got = jvp(np.sort, [x], [g])  # the tied 3.0s take their tangents in some order
    assert np.array_equal(got[[0, 1, 5]], [20.0, 40.0, 50.0])
    assert sorted(got[2:5]) == [10.0, 30.0, 60.0]
    assert jvp(np.median, [x], [g]) == np.mean(got[2:4])  # the middle two, in that order
    with refused("overwrite_input"):
        jvp(np.median, [x], [g], overwrite_input=True)


@hyp(20)
@given(case=reduction(), n=st.integers(1, 2), ends=st.booleans())
def test_diff(case, n, ends):
    x, g, axis, _ = case
    axis = -1 if axis is None or isinstance(axis, tuple) else axis
    two = tuple(2 if i == axis % x.ndim else n for i, n in enumerate(x.shape))
    kw = {"prepend": 0.5, "append": np.ones(two)} if ends else {}
    check(np.diff, [x], [g], n=n, axis=axis, **kw)


@hyp(20)
@given(case=reduction(), data=st.data())
def test_nansum(case, data):
    x, g, axis, keepdims = case
    nans = data.draw(hnp.arrays(bool, x.shape))
    x = np.where(nans, np.nan, x)
    got = jvp(np.nansum, [x], [g], axis=axis, keepdims=keepdims)
    assert_close(got, np.sum(np.where(nans, 0, g), axis=axis, keepdims=keepdims), rel=1e-15)
    assert_close(got, derivative(np.nansum, [np.where(nans, 0, x)], [np.where(nans, 0, g)],
                                 axis=axis, keepdims=keepdims))
    assert np.all(jvp(np.nansum, [x], [g], dtype=int) == 0)


# ---------------------------------------------------------------------------
# interpolation, polynomials, integrals

def _mp_interp(x, xp, fp, left=None, right=None):
    """numpy's interp at any precision: the segment holding x, its chord."""
    x, xp, fp = (np.asarray(v, dtype=object) for v in (x, xp, fp))
    out = []
    for v in x.ravel():
        if v < xp[0]:
            out.append(fp[0] if left is None else left)
        elif v > xp[-1]:
            out.append(fp[-1] if right is None else right)
        elif v == xp[-1]:
            out.append(fp[-1])
        else:
            i = max(k for k in range(len(xp) - 1) if xp[k] <= v)
            out.append(fp[i] + (fp[i + 1] - fp[i]) * (v - xp[i]) / (xp[i + 1] - xp[i]))
    return np.array(out, dtype=object).reshape(x.shape)


@hyp(25)
@given(data=st.data())
def test_interp(data):
    xp = np.sort(data.draw(arrays((5,), -3, 3, unique=True)))
    assume(np.min(np.diff(xp)) > 1e-2)
    x = data.draw(arrays((4,), -4, 4))
    assume(np.min(np.abs(x[:, None] - xp[None, :])) > 1e-6)  # off the knots
    fp = data.draw(arrays((5,)))
    left, right = data.draw(st.sampled_from([(None, None), (-7.0, 9.0)]))
    tangents = [data.draw(st.one_of(st.none(), arrays(s, -1, 1))) for s in ((4,), (5,), (5,))]
    tangents += [None if left is None else data.draw(st.one_of(st.none(), floats(-1, 1)))
                 for _ in range(2)]
    assume(any(t is not None for t in tangents))
    args = [x, xp, fp, left, right]
    got = jvp(np.interp, args, tangents)
    assert_close(got, derivative(_mp_interp, args, tangents))


def test_interp_at_knots_and_period():
    xp, fp = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])
    x = np.array([0.0, 1.0, 3.0, -1.0, 5.0])
    assert np.array_equal(jvp(np.interp, [x, xp, fp], [np.ones(5)]),  # the right segment
                          [2.0, 0.5, 0.0, 0.0, 0.0])
    with refused("period"):
        jvp(np.interp, [x, xp, fp, None, None, 2.0], [np.ones(5)])
    one = [x, np.array([1.0]), np.array([4.0])]  # one knot: a constant in x and xp
    assert np.array_equal(jvp(np.interp, one, [np.ones(5), np.ones(1)]), np.zeros(5))
    assert np.array_equal(jvp(np.interp, one, [None, None, np.ones(1)]), np.ones(5))


@hyp(20)
@given(data=st.data(), degree=st.integers(0, 4))
def test_polyval(data, degree):
    p = data.draw(arrays((degree + 1,)))
    x = data.draw(arrays(data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))))
    tangents = [data.draw(st.one_of(st.none(), arrays(p.shape, -1, 1))),
                data.draw(st.one_of(st.none(), arrays(x.shape, -1, 1)))]
    assume(any(t is not None for t in tangents))
    check(np.polyval, [p, x], tangents)


TRAPEZOIDS = [f for f in (getattr(np, "trapezoid", None), getattr(np, "trapz", None)) if f]


@pytest.mark.parametrize("f", TRAPEZOIDS, ids=lambda f: f.__name__)
@hyp(20)
@given(data=st.data())
def test_trapezoid(f, data):
    y = data.draw(arrays((3, 4)))
    axis = data.draw(st.sampled_from([0, 1, -1]))
    xs = data.draw(st.sampled_from(["none", "1d", "full"]))
    x = {"none": None, "1d": np.sort(data.draw(arrays((y.shape[axis],), unique=True))),
         "full": data.draw(arrays(y.shape))}[xs]
    dx = data.draw(floats(0.5, 2))
    tangents = [data.draw(st.one_of(st.none(), arrays(y.shape, -1, 1))),
                None if x is None else data.draw(st.one_of(st.none(), arrays(x.shape, -1, 1))),
                data.draw(st.one_of(st.none(), floats(-1, 1)))]
    assume(any(t is not None for t in tangents))
    check(f, [y, x, dx, axis], tangents)


def test_constants():
    for f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort,
              np.count_nonzero, np.linalg.matrix_rank):
        assert type(RULES[f]) is Constant, f
        COVERED.add(f)


# ---------------------------------------------------------------------------
# a jvp calls only numpy functions that have rules, so that an enclosing derivative
# differentiates the jvp itself: each jvp runs on arrays that report the numpy
# functions the rule modules call on them (not those numpy calls inside its own
# Python, nor those of the constant facts, which run on plain values)

ALLOWED = {np.matmul, np.transpose, np.swapaxes, np.sum, np.multiply, np.add, np.subtract,
           np.negative, np.divide, np.where, np.reshape, np.expand_dims, np.broadcast_to,
           np.tril, np.triu, np.diagonal, np.trace, np.einsum, np.linalg.solve,
           np.linalg.inv, np.eye, np.conj, np.real, np.take_along_axis, np.cumsum, np.flip,
           np.sqrt, np.abs}  # the rules numpy.py (the core) gives


class Reporting(np.ndarray):
    """An ndarray that records the numpy functions our rule modules call on it."""

    calls: set = set()

    @classmethod
    def record(cls, f):
        frame = sys._getframe(2)
        if frame.f_globals.get("__name__") in RULE_MODULES and frame.f_code not in FACTS:
            cls.calls.add(f)

    def __array_function__(self, func, types, args, kwargs):
        self.record(func)
        return _reporting(super().__array_function__(func, types, args, kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.record(ufunc)
        def plain(x):
            return x.view(np.ndarray) if isinstance(x, Reporting) else x
        if "out" in kwargs:
            kwargs["out"] = tuple(map(plain, kwargs["out"]))
        return _reporting(getattr(ufunc, method)(*map(plain, inputs), **kwargs))


RULE_MODULES = {numpy_linalg.__name__, numpy_reduce.__name__, _array.__name__}
# functions with a line of their own (constant facts, `_left`...) run on plain values
FACTS = {f.__code__ for m in (_array, numpy_linalg, numpy_reduce) for f in vars(m).values()
         if isinstance(f, types.FunctionType) and type(RULES.get(f)) in (Constant, Jvp)}


def _reporting(x):
    """`x` (an array or numpy scalar, as a 0-d array; or those of a tuple) reporting."""
    if isinstance(x, tuple):
        return type(x)(*map(_reporting, x)) if hasattr(x, "_fields") else \
            tuple(map(_reporting, x))
    return np.asarray(x).view(Reporting) if type(x) is np.ndarray or \
        isinstance(x, np.generic) else x


def test_jvps_call_only_functions_with_rules():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(3, 3)) + 4 * np.eye(3)
    spd_, tall, wide = m @ m.T, rng.normal(size=(4, 2)), rng.normal(size=(2, 4))
    x, v = rng.normal(size=(3, 4)), rng.normal(size=3)
    xp, fp = np.array([-1.0, 0.0, 2.0]), np.array([1.0, 3.0, 2.0])
    cases = [  # f, arguments, keywords
        (np.inner, [v, v], {}), (np.einsum, ["ij,j", m, v], {}), (np.trace, [m], {}),
        (np.linalg.inv, [m], {}), (np.linalg.solve, [m, v], {}), (np.linalg.solve, [m, m], {}),
        (np.linalg.det, [m], {}), (numpy_linalg._sign, [m * (1 + 1j)], {}),
        (numpy_linalg._logabsdet, [m], {}), (np.linalg.cholesky, [spd_], {}),
        (np.linalg.cholesky, [spd_], {"upper": True} if NUMPY_2 else {}),
        (numpy_linalg._eigenvalues, [spd_], {}), (numpy_linalg._eigenvectors, [spd_], {}),
        (np.linalg.eigvalsh, [spd_], {"UPLO": "U"}), (numpy_linalg._singular_values, [m], {}),
        (numpy_linalg._left, [tall], {}), (numpy_linalg._right, [wide], {}),
        (np.linalg.norm, [x], {}), (np.linalg.norm, [v], {"ord": 1}),
        (np.linalg.norm, [v], {"ord": np.inf}), (np.linalg.norm, [x], {"ord": 1}),
        (np.linalg.norm, [x], {"ord": "nuc"}), (np.prod, [x], {"axis": 1, "where": x > 0}),
        (np.cumsum, [x], {"axis": 0}), (np.cumprod, [x], {"axis": 1}),
        (np.max, [x], {"axis": 0, "initial": 0.0}), (np.nanmin, [x], {}),
        (np.var, [x], {"axis": 1, "ddof": 1}), (np.std, [x], {}),
        (np.average, [x, 1, np.ones(4)], {}), (np.sort, [x], {}), (np.median, [x], {}),
        (np.nansum, [x], {"axis": 1}), (np.diff, [x], {"prepend": 0.0}),
        (np.interp, [v, xp, fp, 0.0, 5.0], {}), (np.polyval, [v, x], {}),
        (TRAPEZOIDS[0], [x, None, 0.5], {})]
    for f, args, kw in cases:
        ans = f(*args, **kw)
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc" or isinstance(a, float):
                g = rng.normal(size=np.shape(a)) if np.ndim(a) else 0.5
                RULES[f].jvps[i](_reporting(g), _reporting(ans), *map(_reporting, args), **kw)
    unruled = {f for f in Reporting.calls if f not in ALLOWED and f not in RULES}
    assert not unruled, sorted(map(repr, unruled))
    assert Reporting.calls & {np.linalg.solve, np.cumprod, np.interp}  # it does report


# ---------------------------------------------------------------------------
# every function named has a line or is refused; every line is exercised

VERSIONED = {"trapz", "trapezoid", "linalg.outer", "linalg.cross", "linalg.tensordot",
             "linalg.trace", "linalg.vecdot", "linalg.svdvals", "linalg.vector_norm",
             "linalg.matrix_norm"}


def _named(module, heading):
    """The functions a docstring lists under `heading:` (up to the next blank line)."""
    text = re.sub(r"\([^)]*\)", "", module.__doc__.split(f"\n{heading}")[1])
    text = text.split(":", 1)[1].split("\n\n")[0]
    names = [n.strip() for n in re.split(r"[,\s]+(?:and as constants\s+)?", text) if n.strip()]
    found = {}
    for name in names:
        owner = np
        for part in name.split("."):
            owner = getattr(owner, part, None)
        found[name] = owner
    return found


def _own_lines():
    """The table's keys whose rules these modules wrote (not `ad/_rules/numpy.py`'s own
    lines, which may use `_array`'s helpers too: test_ad_numpy_table covers those)."""
    ours = {m.__name__ for m in MODULES} | {_array.__name__}
    lines = set()
    for key, rule in RULES.items():
        if key in numpy_rules.LINES:
            continue
        functions = rule.jvps if type(rule) is Jvp else \
            (rule.function,) if type(rule) is Model else ()
        if any(getattr(f, "__module__", None) in ours for f in functions) or \
                getattr(key, "__module__", None) in ours:
            lines.add(key)
    return lines


def test_every_function_named_has_a_line_or_is_refused_and_every_line_is_exercised():
    named, refused_ = {}, {}
    for module in MODULES:
        named.update(_named(module, "Ruled"))
        refused_.update(_named(module, "Refused"))
    absent = {name for name, f in {**named, **refused_}.items() if f is None}
    assert absent <= VERSIONED, absent  # names of one numpy major version only
    assert not [name for name, f in named.items() if f is not None and f not in RULES]
    assert not [name for name, f in refused_.items() if f is not None and f in RULES]
    constant_facts = {f for m in (_array, *MODULES) for f in vars(m).values()
                      if isinstance(f, types.FunctionType) and f.__module__ == m.__name__
                      and type(RULES.get(f)) is Constant}
    lines = _own_lines() - constant_facts
    unnamed = {key for key in lines if getattr(key, "__module__", "").startswith("numpy")
               and key not in named.values()}
    assert not unnamed, sorted(map(repr, unnamed))
    assert not lines - COVERED, sorted(map(repr, lines - COVERED))
