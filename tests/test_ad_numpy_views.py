"""Views under `ad`: PyTorch forward AD's five view cases, and the state a
derivative leaves: arrays `f` was given or finds in globals hold after `D` exactly
the data the plain call leaves, and nothing of the derivative stays in the heap.

PyTorch's cases (`torch/csrc/autograd/autograd_meta.cpp`): (1) a view of an array
with a tangent has the window of that tangent; (2) an in-place change of a view
reaches its base's tangent; (3) an in-place change of the base reaches its views'
tangents; (4) a value with a tangent written into a view of a base without one
gives the base a zero tangent with the view's window set; (5) a tangent the base
gains after a view was made is the view's too. Each against the Richardson
difference of the plain program (`test_ad_numpy_hunt.richardson`) and exact values.
"""

import gc

import pytest

np = pytest.importorskip("numpy")

from ad import D, NonDifferentiableError, gradient, hessian, jacobian, jvp  # noqa: E402
from ad import _pool  # noqa: E402
from tagging import Tagged  # noqa: E402
from tests.hunt_pieces import module_of  # noqa: E402
from tests.test_ad_numpy_hunt import close, richardson, source_of  # noqa: E402

X = np.array([0.3, -0.7, 1.1, 0.5])

CASES = {
    "1: a view of an array with a tangent": (
        ["a = t * np.arange(1.0, 7.0).reshape(2, 3)", "v = a.T[1:]", "w = a.reshape(-1)[::2]"],
        "np.concatenate([v.ravel() * t, w])"),
    "2: an in-place change of a view reaches the base": (
        ["a = t * np.arange(1.0, 5.0)", "v = a[1:3]", "v *= t", "v += t * t",
         "a.reshape(2, 2).T[0] -= t"], "a"),
    "3: an in-place change of the base reaches its views": (
        ["a = t * np.arange(1.0, 5.0)", "v = a[::-1]", "w = a.reshape(2, 2)", "a *= t",
         "a[2] = t ** 3"], "np.concatenate([v, w.ravel()])"),
    "4: a value with a tangent written into a view of a constant base": (
        ["a = np.arange(1.0, 7.0).reshape(2, 3)", "v = a[:, 1]", "v[...] = t * t",
         "a.T[2, 0] = np.sin(t)"], "a"),
    "5: a tangent the base gains after the view was made": (
        ["a = np.zeros(5)", "v = a[1:4]", "w = v[::2]", "a[...] = t * np.arange(5.0)",
         "a[3] *= t"], "np.concatenate([v, w])"),
    "5, the view made by C before the base had a tangent": (
        ["a = np.ones((2, 2))", "d = np.diagonal(a)", "r = np.ravel(a)",
         "a[1] = t * a[0]"], "np.concatenate([d * 1.0, r])"),
    "4 and 5 through two levels of views": (
        ["a = np.zeros(6)", "v = a.reshape(2, 3)", "w = v[1]", "w[1:] = t * np.array([1.0, 2.0])",
         "v[0] = w * t"], "a"),
}


@pytest.mark.parametrize("body, result", list(CASES.values()), ids=list(CASES))
@pytest.mark.parametrize("order", [1, 2])
def test_pytorch_view_cases(body, result, order):
    f = module_of(source_of(body, result)).f
    want, agreement = richardson(f, 1.3, order)
    assert agreement < 1e-7
    got = D(f, 1.3) if order == 1 else D(D(f), 1.3)
    assert close(got, want), (got, want)


def test_case_4_gives_the_base_zeros_outside_the_window():
    def f(t):
        a = np.ones(4)
        a[1:3] = t * np.array([2.0, 3.0])
        return a

    assert np.array_equal(D(f, 1.0), [0.0, 2.0, 3.0, 0.0])


# ---------------------------------------------------------------------------
# the state a derivative leaves

MUTATED = np.array([1.0, 2.0, 3.0])


def mutates_a_global(t):
    MUTATED[0] = t * MUTATED[1]
    MUTATED[1:] *= t
    return np.sum(MUTATED)


def mutates_its_point(x):
    x *= 2.0
    x[0] = x[1] * x[2]
    view = x[1:]
    view += x[0]
    return np.sum(x * x)


def test_a_global_array_holds_after_D_the_plain_call_data():
    MUTATED[...] = [1.0, 2.0, 3.0]
    mutates_a_global(0.7)
    plain = MUTATED.copy()
    MUTATED[...] = [1.0, 2.0, 3.0]
    derivative = D(mutates_a_global, 0.7)
    assert type(MUTATED) is np.ndarray and np.array_equal(MUTATED, plain)
    assert MUTATED.dtype == np.float64 and MUTATED.flags.writeable
    # d/dt [t·2 + 2t + 3t] at the start values: 2 + 2 + 3
    assert abs(derivative - 7.0) < 1e-14


def test_jvp_mutates_its_point_exactly_as_the_plain_call():
    plain = X[:3].copy()
    value = mutates_its_point(plain)
    point = X[:3].copy()
    got, tangent = jvp(mutates_its_point, (point,), (np.array([1.0, 0.0, 0.0]),))
    assert np.array_equal(point, plain) and got == value
    assert np.isfinite(tangent)


def doubles_its_point(x):
    x *= 2.0
    return np.sum(x * x * x)


@pytest.mark.parametrize("take, want", [
    (gradient, lambda x: 24 * x * x),
    (lambda f, x: jacobian(lambda a: f(a) * np.ones(1), x)[0], lambda x: 24 * x * x),
    (hessian, lambda x: np.diag(48 * x)),
], ids=["gradient", "jacobian", "hessian"])
def test_gradient_jacobian_hessian_of_an_f_that_writes_its_point(take, want):
    """Each direction's pass ran on the point the passes before had doubled: the
    gradient of sum((2x)^3) at [1, 2, 3] came out [24, 384, 3456], not
    [24, 96, 216]. The point is now changed as one plain call changes it."""
    point = np.array([1.0, 2.0, 3.0])
    plain = point.copy()
    doubles_its_point(plain)
    got = take(doubles_its_point, point)
    assert np.allclose(got, want(np.array([1.0, 2.0, 3.0])), rtol=1e-14)
    assert np.array_equal(point, plain)


class Holder:
    def __init__(self):
        self.arrays = []


HELD = Holder()
GENERATORS: list = []


def stores_everywhere(t):
    a = t * X
    HELD.arrays.append(a)
    HELD.arrays.append({"view": a[1:], "copy": a.copy(), "scalar": a[0]})

    def later():
        yield a
        yield a * 2.0, a[1] * 2.0

    steps = later()
    next(steps)
    GENERATORS.append(steps)
    return np.sum(a * a)


def test_the_heap_stays_plain_after_D():
    derivative = D(stores_everywhere, 2.0)
    assert abs(derivative - 2 * 2.0 * np.sum(X * X)) < 1e-13
    array, held = HELD.arrays[-2], HELD.arrays[-1]
    for value in (array, held["view"], held["copy"]):
        assert type(value) is np.ndarray and value.dtype == np.float64
    assert np.array_equal(array, 2.0 * X) and held["view"].base is array
    assert type(held["scalar"]) is np.float64 and held["scalar"] == 2.0 * X[0]
    for ctx in _pool._pool.free:  # no table of tangents survives a derivative
        assert not ctx.__dict__.get("arrays")
    gc.collect()
    reachable = gc.get_referents(HELD, *HELD.arrays, *held.values())
    assert not any(type(value) is Tagged for value in reachable)
    # a generator holding the array, resumed after D, sees plain data
    doubled, element = next(GENERATORS[-1])
    assert type(doubled) is np.ndarray and np.array_equal(doubled, 4.0 * X)
    assert type(element) is np.float64 and element == 4.0 * X[1]
    # a later derivative reading the stored array sees a constant
    assert D(lambda t: t * np.sum(HELD.arrays[-2]), 1.0) == np.sum(2.0 * X)


def test_a_memoryview_of_an_array_with_a_derivative_is_refused_when_read():
    """`a.data[0]` read the array's memory, plain (derivative 0, no error), also
    through a view made before the array was given a derivative; a memoryview of
    plain memory reads as it does outside `D`."""
    def data_read(t):
        return np.array([t * t]).data[0]

    def made_before(t):
        a = np.zeros(1)
        view = memoryview(a)
        a[0] = t * t
        return view[0]

    def of_bytes(t):
        return t * memoryview(b"\x02")[0]

    for f in (data_read, made_before):
        assert f(3.0) == 9.0
        with pytest.raises(NonDifferentiableError, match="memoryview"):
            D(f, 3.0)
    assert D(of_bytes, 3.0) == 2


def test_raw_memory_read_through_a_pointer_is_a_constant():
    """Documented (README): C reading an array's memory through `a.ctypes` gets the
    plain values, and what it computes from them is a constant."""
    import ctypes

    def f(t):
        a = np.array([t * t])
        return t + a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))[0]

    assert f(3.0) == 12.0 and D(f, 3.0) == 1.0
