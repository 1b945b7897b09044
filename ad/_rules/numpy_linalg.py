"""Rules for numpy's products and linear algebra, one line per function.

Loaded once numpy is in use, never by `import ad`. `dot` and `matmul` are in
`numpy.py`; here are the other products and `numpy.linalg`. Y is A⁻¹, G and H the
tangents of A and b, z the answer.

Ruled:
    inner, outer, tensordot, kron, einsum, cross, vdot, trace,
    linalg.outer, linalg.cross, linalg.tensordot, linalg.trace, linalg.vecdot
    (numpy 2), linalg.multi_dot, linalg.inv, linalg.solve, linalg.det, linalg.slogdet,
    linalg.cholesky, linalg.eigh, linalg.eigvalsh, linalg.svd, linalg.svdvals
    (numpy 2), linalg.norm, linalg.matrix_power, and as constants linalg.matrix_rank

* The products are multilinear: each operand's tangent is the product with that
  operand replaced by its tangent (autograd's `def_linear`). `multi_dot` is a chain
  of `matmul` (numpy picks the cheapest order; the value may differ in the last bits).
* inv: −YGY. solve(A, b): solve(A, H − G z), for a vector b (numpy 2: b.ndim == 1)
  and a stack of matrices b alike. det: z·tr(solve(A, G)); slogdet: the log's
  tangent Re tr(solve(A, G)), the sign's 0 for real A (i·Im tr(solve(A, G))·sign for
  complex A).
* det at a singular or nearly singular A (1-norm condition number above 1/√eps,
  about 7e7) is refused: its derivative tr(adj(A) G) is finite there, but z·A⁻¹ loses
  the adjugate's digits (JAX computes the adjugate by a cofactor solve; we do not
  yet). slogdet at a singular A (log|det| = −inf) is refused.
* cholesky and eigh read one triangle of A (numpy's, not JAX's symmetrised A), so
  the tangent G enters as that triangle mirrored, Ĝ: tril(G) + tril(G, −1)ᵀ (triu
  for `upper=True` / `UPLO='U'`); the other triangle changes nothing.
  cholesky: L·Φ(L⁻¹ĜL⁻ᵀ), Φ the lower triangle with its diagonal halved.
  eigh: w′ = diag(VᵀĜV), V′ = V(F∘VᵀĜV) with F_ij = 1/(w_j − w_i), F_ii = 0;
  refused where two eigenvalues are closer than √eps times the largest |w| (there
  the eigenvectors, and the sorted eigenvalues, have no derivative), and for
  complex Hermitian A (not yet).
* svd (real A): with dS = UᵀGV (the reduced U, V), s′ = diag(dS),
  U′ = U(F∘(dS·S + S·dSᵀ)) (+ (I − UUᵀ)GVS⁻¹ when A is tall), V′ likewise with
  F_ij = 1/(s_j² − s_i²) (JAX's rule). Refused where two singular values are
  closer than √eps·max s or one is below it (there the singular values have a kink
  and the vectors are not determined), for complex A, for full_matrices=True of a
  non-square A (the added columns are any basis of a complement: no derivative) and
  for hermitian=True with vectors (numpy's signs come from eigh there).
* norm: the 2-norm of vectors and the Frobenius norm, Re⟨x, g⟩/z, refused at
  z = 0 (no linear map is the derivative of |x| at 0 in more than one dimension;
  `x @ x` is smooth there); vector ord 1 (Σ|x|), ord ±inf (the largest or
  smallest |x|) and ord 0 (a count: no tangent); matrix ord ±1 and ±inf (the
  extreme column or row sum of |x|). |x| follows `abs`: +g at x = 0; ties are
  averaged, as `max` does. Matrix ord 2, −2 and 'nuc': the largest, smallest or
  sum of the singular values' tangents, refused where that singular value is
  repeated or 0 ('nuc': where one is 0). ord 1 and ±inf of complex x are refused,
  and so are other ords.
* matrix_power: a model over matmul, numpy's own squarings (the same value).

Refused (no line: the engine refuses them with `NonDifferentiableError`):
    linalg.eig, linalg.eigvals (nonsymmetric eigenproblems: complex, and their
    eigenvectors have no normalisation to differentiate), linalg.pinv,
    linalg.lstsq, linalg.cond (not yet: write them with svd, solve or inv),
    linalg.qr (not yet), linalg.tensorinv, linalg.tensorsolve,
    linalg.vector_norm, linalg.matrix_norm (numpy 2; not yet: use linalg.inv,
    linalg.solve, linalg.norm)
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ad._rules._array import (abs_equal_at, dtype_of, is_complex, kept_shape, linear_in,
                              mean_over_ties, reduced_axes, refuse, shape, signed)
from ad._rules._table import defconstant, defjvp, defmodel

_EPS = np.finfo(float).eps
_TIGHT = np.sqrt(_EPS)  # a relative gap or 1/condition below this loses half the digits
_NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
_SLOGDET = type(np.linalg.slogdet(np.eye(1)))
_EIGH = type(np.linalg.eigh(np.eye(1)))
_SVD = type(np.linalg.svd(np.eye(1)))
_MAX_OPERANDS = 130  # einsum's operands and sublists (interleaved form), at most


def _multilinear(f, arguments):
    """`f` is linear in each of its first `arguments` arguments."""
    defjvp(f, *(linear_in(f, i) for i in range(arguments)))


# ---------------------------------------------------------------------------
# facts that carry no tangent (run on the plain values, see `_array`)

def _vector_rhs(a, b):
    """Whether solve(a, b) reads b as a vector (numpy 2: b is 1-d; numpy 1: one
    dimension fewer than a)."""
    return np.ndim(b) == 1 if _NUMPY_2 else np.ndim(b) == np.ndim(a) - 1


def _require_regular(f, a):
    # the 1-norm condition number: within a factor n of the 2-norm one, and an LU
    # away (the 2-norm one is an SVD, dearer than the rule itself)
    with np.errstate(divide="ignore", invalid="ignore"):
        condition = np.max(np.linalg.cond(a, 1)) if np.size(a) else 1.0
    if not condition < 1 / _TIGHT:
        refuse(f, f"at a singular or nearly singular matrix (condition number "
                  f"{condition:.3g}) det's derivative tr(adj(A)·G) is not computed: "
                  "det(A)·A⁻¹ would lose the adjugate's digits; differentiate away from "
                  "the singular matrix, or slogdet where A is regular")


def _require_nonsingular(f, logabsdet):
    if np.any(np.isneginf(logabsdet)):
        refuse(f, "the matrix is singular: log|det A| is -inf and has no derivative")


def _require_real(f, a, what):
    if np.iscomplexobj(a):
        refuse(f, f"{what} of a complex matrix has no rule yet (of a real matrix it has)")


def _require_distinct(f, w):
    """Eigenvalues closer than √eps·max|w|: their eigenvectors (and the sorted
    eigenvalues) are not differentiable there."""
    if np.shape(w)[-1] < 2:
        return
    gaps = np.min(np.diff(w, axis=-1))
    scale = np.max(np.abs(w)) or 1.0
    if not gaps > _TIGHT * scale:
        refuse(f, f"two eigenvalues are (nearly) equal (a gap of {gaps:.3g} at a scale of "
                  f"{scale:.3g}): the eigenvectors of a repeated eigenvalue are not "
                  "determined and the sorted eigenvalues have no derivative there; "
                  "differentiate a symmetric function of them written without eigh "
                  "instead (their sum is np.trace(a), their squares' sum np.sum(a * a))")


def _require_separated(f, s, which=slice(None), apart=True):
    """Singular values (descending) `which` (all by default) each apart from 0, and
    (`apart`) from the others, by more than √eps·max s."""
    s = np.asarray(s)
    if s.shape[-1] == 0:
        return
    scale = np.max(s) or 1.0
    neighbours = np.concatenate([np.full(s.shape[:-1] + (1,), np.inf), s,
                                 np.zeros(s.shape[:-1] + (1,))], axis=-1)
    distance = np.minimum(neighbours[..., :-2] - s, s - neighbours[..., 2:]) if apart else s
    closest = np.min(distance[..., which])
    if not closest > _TIGHT * scale:
        refuse(f, f"a singular value is (nearly) repeated or 0 (within {closest:.3g} at a "
                  f"scale of {scale:.3g}): there it has a kink, and its singular vectors "
                  "are not determined; differentiate a smooth function of the matrix "
                  "instead (np.sum(a * a) is the sum of the squared singular values)")


def _require_nonzero(f, ans):
    if np.any(np.equal(ans, 0)):
        refuse(f, "the 2-norm (and the Frobenius norm) has no derivative at 0: no linear "
                  "map is the derivative of |x| at 0 in more than one dimension; "
                  "differentiate the squared norm x @ x (or np.sum(x * x)), smooth there")


defconstant(_vector_rhs, _require_regular, _require_nonsingular, _require_real,
            _require_distinct, _require_separated, _require_nonzero)


# ---------------------------------------------------------------------------
# inverse, solve, determinants

def _solve_a(g, ans, a, b):
    vector = _vector_rhs(a, b)
    z = np.expand_dims(ans, -1) if vector else ans
    term = np.linalg.solve(a, np.negative(g @ z))
    return term[..., 0] if vector else term


def _det(g, ans, a):
    _require_regular(np.linalg.det, a)
    return ans * np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1)


def _sign(a):
    return np.linalg.slogdet(a)[0]


def _logabsdet(a):
    return np.linalg.slogdet(a)[1]


def _sign_tangent(g, ans, a):
    if not is_complex(a):
        return np.zeros(())
    turn = np.real(np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1) * -1j)  # Im tr(YG)
    return ans * (1j * turn)


def _logabsdet_tangent(g, ans, a):
    _require_nonsingular(np.linalg.slogdet, ans)
    return np.real(np.trace(np.linalg.solve(a, g), axis1=-2, axis2=-1))


def _slogdet(a):
    pair = (_sign(a), _logabsdet(a))
    return pair if _SLOGDET is tuple else _SLOGDET(*pair)


# ---------------------------------------------------------------------------
# one triangle of a Hermitian matrix: cholesky and eigh

def _mirrored(g, upper):
    """The symmetric matrix numpy reads from g's lower (or upper) triangle."""
    if upper:
        return np.triu(g) + np.swapaxes(np.triu(g, 1), -1, -2)
    return np.tril(g) + np.swapaxes(np.tril(g, -1), -1, -2)


def _cholesky(g, ans, a, *, upper=False):
    _require_real(np.linalg.cholesky, a, "the Cholesky factor")
    lower = np.swapaxes(ans, -1, -2) if upper else ans
    inverse = np.linalg.inv(lower)  # one factorisation for both sides of Ĝ
    inner = inverse @ _mirrored(g, upper) @ np.swapaxes(inverse, -1, -2)
    n = shape(a)[-1]
    phi = np.where(np.eye(n, dtype=bool), inner / 2, np.tril(inner, -1))
    tangent = lower @ phi
    return np.swapaxes(tangent, -1, -2) if upper else tangent


def _eigenvalues(a, UPLO="L"):  # noqa: N803 (numpy's name)
    return np.linalg.eigh(a, UPLO)[0]


def _eigenvectors(a, UPLO="L"):  # noqa: N803
    return np.linalg.eigh(a, UPLO)[1]


def _eigh(a, UPLO="L"):  # noqa: N803
    return _EIGH(_eigenvalues(a, UPLO), _eigenvectors(a, UPLO))


def _projected(f, g, a, UPLO, w, v):  # noqa: N803
    """VᵀĜV, refused for complex A and (nearly) repeated eigenvalues w."""
    _require_real(f, a, "the eigendecomposition")
    _require_distinct(f, w)
    return np.swapaxes(v, -1, -2) @ _mirrored(g, UPLO.upper() == "U") @ v


def _eigenvalues_tangent(f):
    """w′ = diag(VᵀĜV), refusals naming `f` (eigh or eigvalsh); `ans` is w."""
    def jvp(g, ans, a, UPLO="L"):  # noqa: N803
        projected = _projected(f, g, a, UPLO, ans, _eigenvectors(a, UPLO))
        return np.diagonal(projected, axis1=-2, axis2=-1)
    return jvp


def _eigenvectors_tangent(g, ans, a, UPLO="L"):  # noqa: N803
    w, v = _eigenvalues(a, UPLO), ans
    projected = _projected(np.linalg.eigh, g, a, UPLO, w, v)
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # w_j - w_i
    diagonal = np.eye(shape(w)[-1], dtype=bool)
    f = np.where(diagonal, 0.0, 1 / np.where(diagonal, 1.0, gaps))
    return v @ (f * projected)


# ---------------------------------------------------------------------------
# singular values and vectors (the reduced U and V; real A)

def _singular_values(a, vectors=True):
    """numpy's s, as `svd` computes it with vectors or without them."""
    return np.linalg.svd(a, full_matrices=False)[1] if vectors else \
        np.linalg.svd(a, compute_uv=False)


def _left(a):
    return np.linalg.svd(a, full_matrices=False)[0]


def _right(a):
    return np.linalg.svd(a, full_matrices=False)[2]


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:  # hermitian=True: the same values, by the general path
        return _singular_values(a, False)
    m, n = shape(a)[-2:]
    if hermitian or (full_matrices and m != n):
        refuse(np.linalg.svd, "the singular vectors of hermitian=True (numpy takes their "
                              "signs from eigh) and the added columns of full_matrices=True "
                              "for a non-square matrix (any basis of a complement) have no "
                              "derivative; call svd(a, full_matrices=False)")
    return _SVD(_left(a), _singular_values(a), _right(a))


def _svd_frame(f, g, a, u=None, s=None, vh=None):
    """(U, s, V, UᵀGV, F) with F_ij = 1/(s_j² − s_i²), 0 on the diagonal; those of
    U, s, Vᵀ not given (a rule's answer) are computed."""
    _require_real(f, a, "the singular value decomposition")
    u = _left(a) if u is None else u
    s = _singular_values(a) if s is None else s
    vh = _right(a) if vh is None else vh
    _require_separated(f, s)
    v = np.swapaxes(vh, -1, -2)
    row, column = np.expand_dims(s, -2), np.expand_dims(s, -1)
    diagonal = np.eye(shape(s)[-1], dtype=bool)
    squares = (row + column) * (row - column)
    f_ = np.where(diagonal, 0.0, 1 / np.where(diagonal, 1.0, squares))
    return u, s, v, np.swapaxes(u, -1, -2) @ g @ v, f_


def _singular_values_tangent(g, ans, a, *options):
    return np.diagonal(_svd_frame(np.linalg.svd, g, a, s=ans)[3], axis1=-2, axis2=-1)


def _left_tangent(g, ans, a):
    u, s, v, projected, f = _svd_frame(np.linalg.svd, g, a, u=ans)
    scaled = projected * np.expand_dims(s, -2)  # UᵀGV·S
    tangent = u @ (f * (scaled + np.swapaxes(scaled, -1, -2)))
    m, n = shape(a)[-2:]
    if m > n:  # the part of G V outside U's columns
        moved = g @ v
        tangent = tangent + (moved - u @ (np.swapaxes(u, -1, -2) @ moved)) / \
            np.expand_dims(s, -2)
    return tangent


def _right_tangent(g, ans, a):
    """The tangent of Vᵀ (numpy's vh)."""
    u, s, v, projected, f = _svd_frame(np.linalg.svd, g, a, vh=ans)
    scaled = np.expand_dims(s, -1) * projected  # S·UᵀGV
    tangent = v @ (f * (scaled + np.swapaxes(scaled, -1, -2)))
    m, n = shape(a)[-2:]
    if n > m:  # the part of Gᵀ U outside V's columns
        moved = np.swapaxes(g, -1, -2) @ u
        tangent = tangent + (moved - v @ (np.swapaxes(v, -1, -2) @ moved)) / \
            np.expand_dims(s, -2)
    return np.swapaxes(tangent, -1, -2)


# ---------------------------------------------------------------------------
# norm

def _norm(g, ans, x, ord=None, axis=None, keepdims=False):  # noqa: A002 (numpy's name)
    ndim = len(shape(x))
    axes = reduced_axes(ndim, axis)
    matrix = len(axes) == 2 and (axis is not None or ord is not None)
    answer = np.reshape(ans, kept_shape(x, axes))
    if ord is None or ord in ("fro", "f") or (ord == 2 and not matrix):
        _require_nonzero(np.linalg.norm, ans)
        inner = np.sum(np.real(np.conj(x) * g), axis=axes, keepdims=True)
        return np.reshape(inner / answer, shape(ans))
    if matrix and ord in (2, -2, "nuc"):
        return np.reshape(_spectral(g, x, ord, axis if axis is not None else (0, 1)),
                          shape(ans))
    if is_complex(x) or (ord not in (0, 1, -1, np.inf, -np.inf)) or (ord == 0 and matrix):
        refuse(np.linalg.norm, f"ord={ord!r} {'of complex values ' if is_complex(x) else ''}"
                               "has no rule (the vector and Frobenius 2-norms, vector ord "
                               "0, 1, inf, -inf and matrix ord 1, -1, inf, -inf of real "
                               "values have); write the norm with np.sum and np.abs")
    if ord == 0:
        return np.zeros(())
    if not matrix:
        if ord == 1:
            return np.sum(signed(g, x), axis=axes, keepdims=keepdims)
        tangent = mean_over_ties(signed(g, x), abs_equal_at(x, answer), axes)
        return np.reshape(tangent, shape(ans))
    first, second = tuple(axis) if axis is not None else (0, 1)
    summed, extreme = (first, second) if abs(ord) == 1 else (second, first)
    summed, extreme = summed % ndim, extreme % ndim
    sums = np.sum(np.abs(x), axis=summed, keepdims=True)
    sum_tangent = np.sum(signed(g, x), axis=summed, keepdims=True)
    tangent = mean_over_ties(sum_tangent, abs_equal_at(sums, answer), (extreme,))
    return np.reshape(tangent, shape(ans))


def _spectral(g, x, ord, axis):  # noqa: A002
    """The tangent of the largest (ord 2), smallest (-2) or sum ('nuc') of the
    singular values of the matrices on `axis`."""
    _require_real(np.linalg.norm, x, f"the matrix norm ord={ord!r}")
    ndim = len(shape(x))
    rows, columns = (i % ndim for i in axis)
    order = [i for i in range(ndim) if i not in (rows, columns)] + [rows, columns]
    y, h = np.transpose(x, order), np.transpose(g, order)
    which = {2: slice(0, 1), -2: slice(-1, None)}.get(ord, slice(None))
    # Σ s′ is symmetric in the singular values: only a 0 (a kink) is refused for 'nuc'
    _require_separated(np.linalg.norm, _singular_values(y, False), which,
                       apart=ord != "nuc")
    u, v = _left(y), np.swapaxes(_right(y), -1, -2)
    tangents = np.diagonal(np.swapaxes(u, -1, -2) @ h @ v, axis1=-2, axis2=-1)
    return np.sum(tangents, axis=-1) if ord == "nuc" else tangents[..., which][..., 0]


# ---------------------------------------------------------------------------
# models: a chain of matmul

def _matrix_power(a, n):
    """numpy's own sequence of products (so the same value), in the context."""
    n = operator.index(n)
    if len(shape(a)) < 2 or shape(a)[-1] != shape(a)[-2]:
        raise np.linalg.LinAlgError("matrix_power: the last two dimensions of the array "
                                    "must be square")
    if n == 0:
        return np.broadcast_to(np.eye(shape(a)[-1], dtype=dtype_of(a)),
                               shape(a)).copy()
    if n < 0:
        a, n = np.linalg.inv(a), -n
    if n == 1:
        return a
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    result = square = None
    while n > 0:
        square = a if square is None else square @ square
        n, bit = divmod(n, 2)
        if bit:
            result = square if result is None else result @ square
    return result


def _multi_dot(arrays, *, out=None):
    if out is not None:
        refuse(np.linalg.multi_dot, "out= is not differentiated; use the result")
    return functools.reduce(np.matmul, arrays)


for _product, _arguments in ((np.inner, 2), (np.outer, 2), (np.tensordot, 2), (np.kron, 2),
                             (np.cross, 2), (np.vdot, 2), (np.trace, 1),
                             (np.einsum, _MAX_OPERANDS)):
    _multilinear(_product, _arguments)
for _name, _arguments in (("outer", 2), ("cross", 2), ("tensordot", 2), ("trace", 1),
                          ("vecdot", 2)):
    if hasattr(np.linalg, _name):  # numpy 2's array-API names
        _multilinear(getattr(np.linalg, _name), _arguments)

defjvp(np.linalg.inv, lambda g, ans, a: np.negative(ans @ g @ ans))
defjvp(np.linalg.solve, _solve_a, lambda g, ans, a, b: np.linalg.solve(a, g))
defjvp(np.linalg.det, _det)
defmodel(np.linalg.slogdet, _slogdet)
defjvp(_sign, _sign_tangent)
defjvp(_logabsdet, _logabsdet_tangent)
defjvp(np.linalg.cholesky, _cholesky)
defmodel(np.linalg.eigh, _eigh)
defjvp(_eigenvalues, _eigenvalues_tangent(np.linalg.eigh))
defjvp(_eigenvectors, _eigenvectors_tangent)
defjvp(np.linalg.eigvalsh, _eigenvalues_tangent(np.linalg.eigvalsh))
defmodel(np.linalg.svd, _svd)
defjvp(_singular_values, _singular_values_tangent)
defjvp(_left, _left_tangent)
defjvp(_right, _right_tangent)
if hasattr(np.linalg, "svdvals"):  # numpy 2
    defjvp(np.linalg.svdvals, _singular_values_tangent)
defconstant(np.linalg.matrix_rank)
defjvp(np.linalg.norm, _norm)
defmodel(np.linalg.matrix_power, _matrix_power)
defmodel(np.linalg.multi_dot, _multi_dot)
