"""NumPy under `ad`: the API at ndarray points, views and writes, reads, nesting,
the plain heap, and refusals (issue 21). The rules one by one are in
`test_ad_numpy_table.py` and `test_ad_numpy_rules.py`."""

import math
import subprocess
import sys

import mpmath
import pytest

np = pytest.importorskip("numpy")

import ad  # noqa: E402
from ad import D, NonDifferentiableError, gradient, hessian, jacobian, jvp  # noqa: E402
from ad import _pool  # noqa: E402

mp = mpmath.mp
X = np.array([0.3, -0.7, 1.1])


def mp_diff(f, x, n=1):
    with mp.workdps(40):
        return float(mp.diff(f, mp.mpf(x), n))


# ---------------------------------------------------------------------------
# the API at ndarray points and for ndarray results

def test_jvp_with_ndarray_primals_gives_ndarrays():
    v = np.array([1.0, 2.0, -1.0])
    value, tangent = jvp(lambda a: np.sin(a) * a, (X,), (v,))
    assert type(value) is np.ndarray and type(tangent) is np.ndarray
    assert np.array_equal(value, np.sin(X) * X)
    assert np.allclose(tangent, (np.cos(X) * X + np.sin(X)) * v, rtol=1e-14)


def test_D_of_an_ndarray_valued_function_is_an_ndarray_of_its_shape():
    derivative = D(lambda t: np.array([[t, t * t], [np.sin(t), 1.0]]), 0.5)
    assert derivative.shape == (2, 2) and derivative.dtype == np.float64
    assert np.allclose(derivative, [[1.0, 1.0], [math.cos(0.5), 0.0]], rtol=1e-15)


def test_gradient_jacobian_hessian_at_an_ndarray_point():
    g = gradient(lambda a: np.sum(a ** 3), X)
    assert type(g) is np.ndarray and g.shape == X.shape
    assert np.allclose(g, 3 * X ** 2, rtol=1e-14)
    square = X.reshape(3, 1) * np.ones((1, 2))
    grid = gradient(lambda a: np.sum(np.exp(a)), square)
    assert grid.shape == (3, 2) and np.allclose(grid, np.exp(square), rtol=1e-14)
    j = jacobian(lambda a: np.array([a[0] * a[1], np.sin(a[2])]), X)
    assert j.shape == (2, 3)
    assert np.allclose(j, [[X[1], X[0], 0.0], [0.0, 0.0, math.cos(X[2])]], rtol=1e-14)
    h = hessian(lambda a: a[0] ** 2 * a[1] + np.sum(a * a), X)
    assert h.shape == (3, 3)
    assert np.allclose(h, [[2 * X[1] + 2, 2 * X[0], 0], [2 * X[0], 2, 0], [0, 0, 2]],
                       rtol=1e-14)


def test_a_jacobian_of_an_array_valued_function_has_shape_f_then_x():
    j = jacobian(lambda a: a.reshape(3, 1) * a, X)
    assert j.shape == (3, 3, 3)
    want = np.zeros((3, 3, 3))
    for i in range(3):
        for k in range(3):
            want[i, k, i] += X[k]
            want[i, k, k] += X[i]
    assert np.allclose(j, want, rtol=1e-15)


def test_lists_of_numbers_keep_working():
    assert gradient(lambda v: v[0] * v[1], [2.0, 3.0]) == [3.0, 2.0]


def test_numpy_scalar_points_and_results_keep_their_types():
    d = D(lambda t: t * t, np.float64(3.0))
    assert d == 6.0 and type(d) is np.float64
    d32 = D(lambda t: np.sin(t), np.float32(0.5))
    assert type(d32) is np.float32 and abs(d32 - math.cos(0.5)) < 1e-6
    assert type(D(lambda t: t * np.float64(2.0), 1.0)) is np.float64


def test_an_array_inside_a_returned_container_gets_its_tangent():
    result = D(lambda t: {"a": [t * X, 2.0], "b": (np.float64(t),)}, 2.0)
    assert np.array_equal(result["a"][0], X) and result["a"][1] == 0.0
    assert result["b"][0] == 1.0


def test_a_point_array_is_refused_twice_in_one_jvp():
    with pytest.raises(ValueError, match="share memory"):
        jvp(lambda a, b: a + b, (X, X), (X, X))


def test_an_int_array_is_no_point():
    with pytest.raises(TypeError, match="ndarray"):
        gradient(lambda a: np.sum(a), np.array([1, 2]))


# ---------------------------------------------------------------------------
# views and writes

def test_the_write_then_read_regression():
    def f(x):
        z = np.zeros(2)
        z[0] = x
        return z[0] * 2

    assert D(f, 1.5) == 2.0


def test_writes_through_slice_reshape_and_transpose_views_reach_the_base():
    def f(t):
        base = np.zeros((2, 3))
        base[0, :][1:] = t          # a slice of a row
        base.reshape(6)[5] = t * t  # a reshape view
        base.T[0, 1] = 3 * t        # a transposed view
        return base

    assert np.array_equal(D(f, 2.0), [[0.0, 1.0, 1.0], [3.0, 0.0, 4.0]])


def test_a_write_through_an_imag_view_of_a_complex_array():
    def f(t):
        z = np.zeros(2, dtype=complex)
        z.imag[1] = t * t
        z.real[0] = t
        return z

    assert np.array_equal(D(f, 3.0), np.array([1.0, 6.0j]))


@pytest.mark.filterwarnings("ignore:Setting the shape:DeprecationWarning")  # numpy >= 2.5
def test_attribute_writes_real_imag_and_shape():
    def f(t):
        z = np.zeros(2, dtype=complex)
        z.imag = t * np.array([1.0, 2.0])   # carries a derivative in
        z.real = 3.0                        # a constant: no derivative
        a = t * np.ones(6)
        a.shape = (2, 3)                    # the same memory, reshaped in place
        return z, a.T[1]

    z, column = D(f, 1.0)
    assert np.array_equal(z, [1j, 2j]) and np.array_equal(column, [1.0, 1.0])

    def flat(t):
        a = t * X
        return a.flat[1]

    with pytest.raises(NonDifferentiableError, match="flat"):
        D(flat, 1.0)


def test_fortran_ordered_arrays_and_points():
    def f(t):
        a = np.zeros((3, 2), order="F")
        a[:, 0] = t * X
        return a.T.copy()

    assert np.array_equal(D(f, 1.0), [X, [0.0, 0.0, 0.0]])
    F = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(gradient(lambda a: np.sum(a[:, 1:] ** 2), F),
                          [[0.0, 2.0, 4.0], [0.0, 8.0, 10.0]])


def test_copies_of_arrays_keep_their_tangents():
    import copy

    assert np.array_equal(D(lambda t: copy.deepcopy([t * X])[0] + copy.copy(t * X), 1.0),
                          2 * X)


def test_a_view_made_before_its_base_had_a_tangent_sees_it():
    def f(t):
        base = np.zeros(4)
        view = base[1:3]
        base[2] = t * t
        return view * 1.0

    assert np.array_equal(D(f, 3.0), [0.0, 6.0])


def test_aliases_in_lists_see_in_place_updates():
    def f(t):
        y = np.ones(3)
        held = [y]
        y += t * X      # in place: `held[0]` is `y`
        y *= t
        return held[0]

    # y = (1 + t X) t; dy/dt = 1 + 2 t X
    assert np.allclose(D(f, 2.0), 1 + 4 * X, rtol=1e-15)


def test_y_is_x_then_y_plus_equals_t():
    def f(t):
        x = np.zeros(2)
        y = x
        y += t
        y /= (t + 1.0)
        return x

    # x = t / (t + 1); dx/dt = 1 / (t + 1) ** 2
    assert np.allclose(D(f, 1.0), [0.25, 0.25], rtol=1e-15)


def test_in_place_operators_whose_operand_is_the_target_itself():
    def f(t):
        a, b, c = t * X, t * X, t * np.ones(3)
        a *= a                 # t^2 X^2: 2 t X^2
        b /= b                 # 1: 0
        c[1:] *= c[:-1]        # [t, t^2, t^2]: [1, 2t, 2t]
        return a + b + c

    assert np.allclose(D(f, 2.0), 4 * X * X + np.array([1.0, 4.0, 4.0]), rtol=1e-15)
    assert np.allclose(D(D(f), 2.0), 2 * X * X + np.array([0.0, 2.0, 2.0]), rtol=1e-15)


def test_a_result_whose_tangent_is_an_arguments_keeps_a_tangent_of_its_own():
    # np.positive's and np.asarray's jvps hand back the argument's tangent itself, and a
    # linear rule may hand back a constant of its own: an in-place update of the result
    # must not reach the argument's tangent (the runner adopts only a term nobody holds)
    def f(t):
        a = t * X
        b = np.positive(a)
        c = a + 0.0
        b += a          # b's tangent becomes 2 X; a's stays X
        c *= t          # c = t^2 X; a's tangent stays X
        return np.array([np.sum(a), np.sum(b), np.sum(c)])

    s = float(np.sum(X))
    assert np.allclose(D(f, 2.0), [s, 2 * s, 4 * s], rtol=1e-15)


def test_a_plain_write_zeroes_the_tangent_it_overwrites():
    def f(t):
        z = t * np.ones(3)
        z[1] = 5.0
        z[2:] = np.array([7.0])
        return z

    assert np.array_equal(D(f, 2.0), [1.0, 0.0, 0.0])


def test_mask_and_index_array_writes_and_reads():
    def f(t):
        z = np.zeros(4)
        z[np.array([True, False, True, False])] = t * np.array([1.0, 2.0])
        z[[1, 3]] = t * t
        return z[[0, 1, 2]] + z[z > 0][-1]

    assert np.allclose(D(f, 3.0), [1.0 + 6.0, 6.0 + 6.0, 2.0 + 6.0], rtol=1e-15)


def test_a_write_into_an_int_array_is_refused():
    def f(t):
        z = np.zeros(2, dtype=np.int64)
        z[0] = t
        return z

    with pytest.raises(NonDifferentiableError, match="int64.*float array") as raised:
        D(f, 1.5)
    assert "test_ad_numpy.py" in str(raised.value)


def test_out_is_refused():
    def f(t):
        buffer = np.empty(3)
        np.sin(t * X, out=buffer)
        return buffer

    with pytest.raises(NonDifferentiableError, match="numpy.sin.*out=") as raised:
        D(f, 1.0)
    assert "test_ad_numpy.py" in str(raised.value)


def test_an_index_array_writing_a_position_twice_is_refused():
    def f(t):
        z = np.zeros(3)
        z[[0, 0]] = t * np.array([1.0, 2.0])
        return z

    with pytest.raises(NonDifferentiableError, match="more than once"):
        D(f, 1.0)


# ---------------------------------------------------------------------------
# reads

def test_reads_give_elements_their_tangents():
    def f(a):
        total = 0.0
        for v in a:                      # iteration
            total = total + v * v
        total = total + float(a[0]) + a.item(1) + a[2] + a[1:].sum()
        return total + sum(a) + sum(a.tolist()) + sum(list(a))

    # d/da_i: 2 a_i + [1, 1, 1] + [0, 1, 1] + 3
    want = 2 * X + np.array([1.0, 1.0, 1.0]) + np.array([0.0, 1.0, 1.0]) + 3
    assert np.allclose(gradient(f, X), want, rtol=1e-15)


def test_element_types_of_reads():
    def f(t):
        a = t * X
        assert type(a[0]) is np.float64 and type(a.item(0)) is float
        assert type(a.tolist()[0]) is float and type(float(a[1:2].sum())) is float
        return a[0]

    assert D(f, 1.0) == X[0]


def test_methods_that_answer_from_the_values():
    def f(t):
        a = t * X
        b = np.zeros(2)
        b.fill(t * t)                      # a write of every element
        assert a.any() and not (a > 5).all()
        return b + a[0].item() + np.float64(t).item()

    assert np.array_equal(D(f, 2.0), [4.0 + X[0] + 1, 4.0 + X[0] + 1])


def test_python_builtins_and_math_on_arrays():
    def f(t):
        a = t * X
        return (abs(a) + pow(a, 2) + divmod(a + 3.0, 2.0)[1] + round(a[0], 1) + max(a)
                + min(a) + sorted(a)[1] + math.fsum(a) + math.prod(a[:2]) + a ** 2 // 1)

    # at t = 1: |X| + X^2 + (X + 3) mod 2 + ...: d/dt at t = 1
    want = np.abs(X) + 2 * X * X + X + 0 + X.max() + X.min() + np.sort(X)[1] + X.sum() \
        + 2 * X[0] * X[1]
    assert np.allclose(D(f, 1.0), want, rtol=1e-14)


def test_numpy_scalars_flow_through_math_and_a_python_loop():
    def f(t):
        s = np.float64(0.0)
        for k in range(1, 4):
            s = s + math.sin(np.float64(k) * t) / k
        return s

    with mp.workdps(40):
        want = float(sum(mp.cos(k * mp.mpf(0.4)) for k in range(1, 4)))
    assert abs(D(f, 0.4) - want) < 1e-15


# ---------------------------------------------------------------------------
# nested derivatives

def test_second_derivative_through_sin_exp_and_matmul_against_mpmath():
    A = np.array([[1.0, 0.5], [-0.3, 2.0]])

    def f(t):
        v = np.sin(t * np.array([1.0, 2.0]))
        return np.exp(v @ A @ v)

    def fm(t):
        v = [mp.sin(t), mp.sin(2 * t)]
        q = sum(v[i] * A[i, j] * v[j] for i in range(2) for j in range(2))
        return mp.exp(q)

    assert abs(D(D(f), 0.3) - mp_diff(fm, 0.3, 2)) < 1e-12 * abs(mp_diff(fm, 0.3, 2))


def test_second_derivative_through_an_item_write():
    def f(t):
        z = np.zeros(3)
        z[1] = np.exp(t)
        z[2] = t * t
        return np.sum(np.sin(z))

    def fm(t):
        return mp.sin(mp.exp(t)) + mp.sin(t * t)

    assert abs(D(D(f), 0.7) - mp_diff(fm, 0.7, 2)) < 1e-12


def test_hessian_through_numpy_against_mpmath():
    def f(a):
        return np.sum(np.sin(a) * np.exp(a[::-1]))

    def fm(*a):
        return sum(mp.sin(a[i]) * mp.exp(a[2 - i]) for i in range(3))

    h = hessian(f, X)
    assert h.shape == (3, 3)
    with mp.workdps(40):
        for i in range(3):
            for j in range(3):
                order = [0, 0, 0]
                order[i] += 1
                order[j] += 1
                want = float(mp.diff(fm, [mp.mpf(v) for v in X], tuple(order)))
                assert abs(h[i, j] - want) < 1e-12, (i, j)


def test_inner_derivatives_do_not_confuse_their_arrays():
    # x * D(y -> sum(x * y * a)) at y: sum(x * a); d/dx of x * sum(x a) = 2 x sum(a)
    a = np.array([1.0, 2.0])

    def f(x):
        return x * D(lambda y: np.sum(x * y * a), 3.0)

    assert D(f, 5.0) == 2 * 5.0 * 3.0


def test_an_inner_jvp_keeps_the_outer_tangent_of_its_array_direction_and_point():
    # d/ds of the inner directional derivative 2 <X, s X> is 2 <X, X>, whether s
    # rides on the direction or on the point
    want = 2 * np.sum(X * X)
    assert abs(D(lambda s: jvp(lambda a: np.sum(a * a), (X,), (s * X,))[1], 1.0) - want) < 1e-14
    assert abs(D(lambda s: jvp(lambda a: np.sum(a * a), (s * X,), (X,))[1], 1.0) - want) < 1e-14


# ---------------------------------------------------------------------------
# the heap stays plain

class Box:
    def __init__(self, value):
        self.value = value


STORED: list = []


def test_arrays_stored_by_f_hold_plain_data_and_no_tangent_survives():
    box = Box(None)

    def f(t):
        a = t * X
        box.value = a
        STORED.append(a)
        return np.sum(a)

    assert D(f, 2.0) == np.sum(X)
    assert type(box.value) is np.ndarray and np.array_equal(box.value, 2.0 * X)
    assert STORED[-1] is box.value
    for ctx in _pool._pool.free:
        assert not ctx.__dict__.get("arrays")  # no table survives a derivative
    # a later derivative reading the stored array sees a constant
    assert D(lambda t: t * np.sum(box.value), 1.0) == np.sum(2.0 * X)


def test_import_ad_does_not_import_numpy():
    code = "import sys, ad; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_a_function_mixing_objects_globals_lists_and_numpy():
    def f(t):
        box = Box(np.array([t, 2.0]))
        rows = [box.value, box.value * t]
        STORED.append(rows)
        total = 0.0
        for row in rows:
            total = total + row @ np.array([1.0, t])
        return total

    # rows: [t, 2], [t^2, 2t]; total = t + 2t + t^2 + 2t^2 = 3t + 3t^2
    assert D(f, 2.0) == 3 + 6 * 2.0


# ---------------------------------------------------------------------------
# refusals name the function and the user's line

@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
@pytest.mark.parametrize("f, named", [
    (lambda t: np.linalg.pinv(t * np.eye(2)), "numpy.linalg.pinv"),
    (lambda t: np.polyval([t, 1.0], 2.0), "numpy.polyval"),
    (lambda t: np.vectorize(lambda u: u * 2)(t * X), "vectorize"),
    (lambda t: MATRIX * t, "subclass of ndarray"),
    (lambda t: (t * X).sort(), "ndarray.sort"),
    (lambda t: (t * X).view(np.int64), "reinterprets"),
])
def test_refusals_name_the_function_and_the_line(f, named):
    with pytest.raises(NonDifferentiableError, match=named) as raised:
        D(f, 1.0)
    assert "test_ad_numpy.py" in str(raised.value)


@pytest.mark.parametrize("f", [lambda t: np.polyfit(X, t * X, 1),  # numpy's Python
                               lambda t: np.linalg.pinv(t * np.eye(2))])  # and its C
def test_a_numpy_function_with_no_rule_says_to_use_ruled_ones_not_ad_rule(f):
    """`ad.rule` takes numbers, not arrays: the way out of a numpy function with no rule
    is the ruled numpy functions, and nothing says it "runs in C" when it is Python."""
    with pytest.raises(NonDifferentiableError, match="no derivative rule in ad's NumPy "
                                                     "tables") as raised:
        D(f, 1.0)
    assert "ad.rule" not in str(raised.value) and "runs in C" not in str(raised.value)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_a_refusal_inside_numpys_own_python_code_names_the_users_line():
    def f(t):
        return np.asmatrix(t * X)  # numpy's `matrix.__new__` is refused, in numpy's code

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(NonDifferentiableError, match="subclass of ndarray") as raised:
        D(f, 1.0)
    assert f"test_ad_numpy.py:{line} in f)" in str(raised.value)
    assert "defmatrix" not in str(raised.value)


with pytest.warns(PendingDeprecationWarning):
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_an_ndarray_subclass_without_a_tangent_runs_its_own_operators():
    def f(t):
        return t * (MATRIX * MATRIX)[0, 1]  # np.matrix's `*` is a matrix product

    assert D(f, 1.0) == (MATRIX * MATRIX)[0, 1] == 10.0


def test_numpy_code_that_never_meets_a_derivative_runs_as_usual():
    def f(t):
        a = np.arange(6.0).reshape(2, 3)
        a[0] += 1
        return t * float(np.cumprod(a)[-1])

    assert D(f, 1.0) == float(np.cumprod(np.arange(6.0).reshape(2, 3) + [[1], [0]])[-1])
