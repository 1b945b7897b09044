"""A hunt over numpy: random small programs built from numpy pieces, each
differentiated by a scalar `t` and compared with a numerical derivative of the
same program run plainly. `D` must give that derivative or raise
`NonDifferentiableError`; any other number, or any other error where the plain
program runs, fails the hunt (issue 21, with issue 18's standard).

A program carries an array `a` (float64, of a random shape) from `t * A + B`
through steps drawn at random: expression trees of ufuncs and operators over `a`,
`t` and constants of shapes that broadcast with it; reductions over random axes
with `keepdims`; shape operations; slices and views and writes through them
(`v = a[1:]; v *= t`, `a.T[0] = ...`, `b = a.reshape(-1); b[...] = ...`);
in-place operators on aliases; item reads (`a[i]`, iteration, `.item()`,
`float()`, `.tolist()`); arrays kept in lists, dicts, objects, slots, globals,
closures and generators and read back; numpy scalars mixed with Python floats
through `math`; `np.array([...])` of differentiated numbers; `np.where`, `clip`,
`maximum`; copies (`copy.copy`, `deepcopy`, `.copy()`, `np.array(a)`); nested `D`;
`as_strided` views. Each step is run on concrete arrays as it is drawn, so only
steps the plain program can run are kept.

The oracle is not `D`: it is Richardson extrapolation of central differences of
the plain program (`richardson`), steps h, h/2, h/4. Two estimates, from (h, h/2)
and from (h/2, h/4), must agree to 1e-7 relative before the example counts: where
they do not, the program has a kink within h of the point (`abs`, `maximum`,
`clip`, `where`) or is too badly conditioned for a float64 difference, and the
example is discarded (never counted as a pass). Where they agree, the remaining
error of the extrapolated value is far below that, and D's float64 rounding is
near 1e-14: the tolerance 1e-6 (relative, plus 1e-6 absolute on the scale of the
answer) lets both through and catches any missing or extra term, which is of the
size of the derivative itself. A planted bug shows it
(`test_the_hunt_catches_a_wrong_derivative`).
"""


import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
hnp = pytest.importorskip("hypothesis.extra.numpy")

from ad import D, NonDifferentiableError  # noqa: E402
from tests.hunt_pieces import module_of  # noqa: E402

_PROBE = 0.83  # where each drawn step is tried, to keep the ones the plain program runs


def source_of(body: list, result: str) -> str:
    lines = ["    global G"] + ["    " + line for line in body] + [f"    return {result}"]
    return "from tests.numpy_hunt_pieces import *\n\n\ndef f(t):\n" + "\n".join(lines) + "\n"


def literal(values) -> str:
    """An array literal that reads back bitwise (floats by repr)."""
    values = np.asarray(values, dtype=float)
    return f"np.array({[float(v) for v in values.ravel()]!r}).reshape({values.shape!r})"


# ---------------------------------------------------------------------------
# the pieces: each draws the lines of one step, given the shape of `a`

constants = st.floats(-1.5, 1.5, allow_nan=False).map(lambda c: round(c, 3))


def constant_like(draw, shape):
    """A constant array of a shape that broadcasts with `shape`, or a number."""
    if draw(st.booleans()):
        return repr(draw(constants))
    other = draw(hnp.broadcastable_shapes(shape, max_dims=max(len(shape), 1), max_side=3))
    return literal(draw(hnp.arrays(np.float64, other, elements=constants)))


UNARY = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(0.3 * {})", "np.arctan({})",
         "np.sqrt({} ** 2 + 1.0)", "np.log1p({} * {})", "np.square({})", "np.abs({})",
         "-{}", "np.hypot({}, 0.5)", "np.arctan2({}, 2.0)", "1.0 / (1.5 + {} * {})",
         "np.expm1(0.2 * {})", "np.sinh(0.5 * {})", "np.cosh(0.5 * {})", "{} ** 3",
         "np.power(np.abs({}) + 1.0, 0.5)", "np.exp2(0.1 * {})", "np.arcsinh({})"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / (2.0 + np.abs({})))",
          "np.maximum({}, {})", "np.minimum({}, {})", "np.where({} > 0, {}, {})",
          "np.clip({}, -0.6, {})", "np.add({}, {})", "np.multiply({}, {})",
          "np.logaddexp({}, {})", "np.fmax({}, {})"]


def expression(draw, shape, depth=0):
    """A random expression tree of ufuncs and operators over `a`, `t` and constants."""
    leaf = depth >= 3 or draw(st.integers(0, 3)) == 0
    if leaf:
        return draw(st.sampled_from(["a", "a", "t", "(t * t)", constant_like(draw, shape)]))
    if draw(st.booleans()):
        inner = expression(draw, shape, depth + 1)
        return draw(st.sampled_from(UNARY)).replace("{}", inner)
    form = draw(st.sampled_from(BINARY))
    parts = [expression(draw, shape, depth + 1) for _ in range(form.count("{}"))]
    if form.startswith("np.clip"):
        parts[-1] = "0.6"
    return form.format(*parts)


def ufunc_tree(draw, shape):
    return [f"a = a * 1.0 + {expression(draw, shape)}"]


def reduction(draw, shape):
    if not shape:
        return None
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    keepdims = draw(st.booleans())
    how = draw(st.sampled_from(["np.sum", "np.mean", "np.max", "np.min", "np.prod",
                                "np.cumsum", "np.var", "a.sum", "a.mean", "a.max",
                                "np.linalg.norm"]))
    if how == "np.cumsum":
        return [f"a = np.cumsum(a, axis={axis if axis is not None else 0})"]
    if how == "np.linalg.norm":
        return [f"a = np.linalg.norm(a + 2.0, axis={axis}, keepdims={keepdims})"]
    call = f"{how}(axis={axis}, keepdims={keepdims})" if how.startswith("a.") else \
        f"{how}(a, axis={axis}, keepdims={keepdims})"
    return [f"a = np.atleast_1d({call})"]  # an array, also where it reduced to a number


def shape_operation(draw, shape):
    size = int(np.prod(shape)) if shape else 1
    choices = ["a = a.T", "a = np.transpose(a)", "a = a.reshape(-1)", "a = np.ravel(a)",
               "a = a[::-1]", "a = np.expand_dims(a, 0)", "a = np.squeeze(a)",
               "a = np.concatenate([a.reshape(-1), t * a.reshape(-1)])",
               "a = np.stack([a, t * a])", "a = np.flip(a)", "a = np.roll(a, 1)",
               f"a = a.reshape({(size,)!r})", "a = np.atleast_2d(a)",
               "a = np.broadcast_to(a, (2,) + a.shape) * 1.0", "a = np.tile(a, 2)",
               "a = np.repeat(a, 2)", "a = np.diff(a.reshape(-1), prepend=t)"]
    if shape and shape[0] > 1:
        choices += ["a = a[1:]", "a = a[:-1] + a[1:]", "a = a[np.array([0, -1, 0])]",
                    "a = a[a.reshape(a.shape[0], -1)[:, 0] > 0.2]"]
    if len(shape) >= 2:
        choices += ["a = np.swapaxes(a, 0, -1)", "a = np.moveaxis(a, 0, -1)",
                    "a = a[:, ::2]", "a = np.sum(a, axis=(0, 1))"]
    if len(shape) == 2 and shape[0] == shape[1]:
        choices += ["a = np.diagonal(a)", "a = np.triu(a)", "a = a @ a",
                    "a = np.linalg.solve(a @ a.T + 3.0 * np.eye(a.shape[0]), a)",
                    "a = np.linalg.inv(a @ a.T + 3.0 * np.eye(a.shape[0]))",
                    "a = np.linalg.det(a + 3.0 * np.eye(a.shape[0])) * a",
                    "a = np.einsum('ij,jk->ik', a, a.T)"]
    if len(shape) == 1:
        choices += ["a = np.outer(a, a)", "a = a @ a * np.ones(a.shape)",
                    "a = np.dot(a, np.ones(a.shape)) + a", "a = np.sort(a)",
                    "a = np.interp(a, [-1.0, 0.0, 1.0], [t, 1.0, t * t])"]
    return [draw(st.sampled_from(choices))]


def view_write(draw, shape):
    """Writes through slices and views, in-place operators on aliases."""
    choices = ["a = a.copy()\nv = a.reshape(-1)[1:]\nv *= t",
               "a = a.copy()\nb = a.reshape(-1)\nb[...] = np.sin(b) * t",
               "a = a.copy()\nb = a\nb += t * a",
               "a = a.copy()\nb = a\nb *= a",
               "a = a.copy()\nb = a[...]\nb -= 0.5 * a * t",
               "a = a.copy()\na /= (1.5 + a * a)",
               "a = a.copy()\na[...] = a * t",
               "a = a.copy()\na.reshape(-1)[0] = t * t",
               "a = a.copy()\na[a > 0] = t",
               "a = np.zeros(a.shape) + a\nw = a.reshape(-1)\nw[::2] += t",
               "z = np.zeros(a.shape)\nz[...] = a\nz *= t\na = z",
               "a = a.copy()\nv = a.reshape(-1)\nv[:] = v[::-1]",
               "a = a.copy()\nv = a.reshape(-1)\nv[1:] += v[:-1]",
               "a = a.copy()\nv = a.reshape(-1)\nv[:-1] *= t * v[1:]",
               "a = a.copy()\nv = a.reshape(-1)\nv[[0]] = t * v[[-1]]",
               "a = a.copy()\nv = a.reshape(-1)\nv[-1] = np.float64(t) * 2.0",
               "a = a.copy()\nv = as_strided(a.reshape(-1), (1,), (8,))\nv *= t",
               "a = a.copy()\nv = a.reshape(-1)\ns = as_strided(v, (max(v.size - 1, 0), 2), (8, 8))\n"
               "a = a * (1.0 + np.sum(s))",
               "a = a.copy()\nv = a.reshape(-1)\nv.fill(t)\na = a + v.sum()",
               "a = a.copy()\na.reshape(-1)[-1] = 0.5",       # constant writes: the
               "a = a.copy()\na[a < 0.1] = 0.0",              # tangent there is 0
               "a = a.copy()\nw = a.reshape(-1)\nw[::2] = 1.5"]
    if len(shape) >= 1:
        choices += ["a = a.copy()\na.T[0] = t * a.T[-1]",
                    "a = a.copy()\nv = a[:1]\nv[...] = 2.0\nv *= t"]
    if len(shape) >= 2:
        choices += ["a = a.copy()\na[0, ...] = a[-1, ...] ** 2",
                    "a = np.ascontiguousarray(a.T).copy()\na[:, 0] -= t"]
    return draw(st.sampled_from(choices)).split("\n")


def item_read(draw, shape):
    choices = ["a = a * a.reshape(-1)[0]",
               "a = a + float(a.reshape(-1)[-1])",
               "a = a + a.reshape(-1).item(0)",
               "a = a + sum(a.reshape(-1).tolist())",
               "a = a + sum(x * x for x in a.reshape(-1))",
               "a = a * math.sin(a.reshape(-1)[0])",
               "a = a + math.exp(np.float64(t) * 0.1) * np.float64(0.5)",
               "a = np.array([v * t for v in a.reshape(-1)]).reshape(a.shape)",
               "a = np.array(a.tolist()) * 1.0",
               "a = a + max(a.reshape(-1)) - min(a.reshape(-1).tolist())",
               "a = a * np.array([t, t * t, 1.0])[1]",
               "a = a + np.asarray([a.reshape(-1)[0], t]).sum()",
               "a = a + sorted(a.reshape(-1))[0]",
               "a = a + np.float64(a.reshape(-1)[0]) * np.float32(0.5).item()",
               "a = a * list(a.reshape(-1))[-1]",
               "a = a + a.reshape(-1)[-1:].item()"]
    if shape and len(shape) == 1:
        choices += ["total = 0.0\nfor x in a:\n    total = total + x * t\na = a + total",
                    "a = a + a[0] * a[-1]"]
    if len(shape) >= 1:
        choices += ["a = a * np.asarray(a.tolist()[0]).sum()"]
    return draw(st.sampled_from(choices)).split("\n")


def storage(draw, shape):
    choices = ["box = Box(a)\na = box.v * 1.0",
               "slot = Slot(a)\nslot.v *= t\na = slot.v",
               "held = [a, t]\na = held[0] * held[1]",
               "d = {'k': a}\nd['k'] = d['k'] + t\na = d['k']",
               "G = a\na = G * t",
               "G = a\nG *= 2.0\na = G",
               "get = lambda: a * t\na = get()",
               "a = sum(yielded(a))",
               "a = passthrough(a, scale=t)",
               "a = Vector(a) * t\na = a.total()",
               "a = copy.copy(a) * t",
               "a = copy.deepcopy([a, {'k': a}])[1]['k']",
               "a = a.copy()",
               "b = np.array(a)\nb *= t\na = a + b",
               "b = np.copy(a)\na = b",
               "c = copy.copy(a)\nc += t\na = a * c"]
    return draw(st.sampled_from(choices)).split("\n")


def nested(draw, shape):
    choices = ["a = a * D(lambda u: u * t, 1.0)",
               "a = D(lambda u: np.sin(u * a), 1.0)",
               "a = a + D(lambda u: np.sum(np.tanh(u * a)), 0.5)",
               "a = D(lambda u: u * u * a, t)",
               "a = a * D(lambda u: float(np.sum(u * a)), 1.0)"]
    return [draw(st.sampled_from(choices))]


PIECES = {"ufunc tree": ufunc_tree, "reduction": reduction, "shape": shape_operation,
          "view write": view_write, "item read": item_read, "storage": storage,
          "nested D": nested}


def shape_after(body: list) -> tuple | None:
    """The shape of `a` after `body`, run plainly at `_PROBE`; None where it fails or
    leaves `a` other than a small finite float array."""
    source = source_of(body, "a")
    try:
        with np.errstate(all="raise"):
            a = module_of(source).f(_PROBE)
    except Exception:  # noqa: BLE001 (a drawn step the plain program cannot run)
        return None
    if not isinstance(a, np.ndarray) or a.dtype != np.float64 or a.size > 64 or \
            not np.all(np.isfinite(a)) or np.max(np.abs(a), initial=0.0) > 1e6:
        return None
    return a.shape


@st.composite
def programs(draw, max_steps=5):
    """(body, result) of a random program, every step of which runs plainly."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    slope = draw(hnp.arrays(np.float64, shape, elements=constants))
    offset = draw(hnp.arrays(np.float64, shape, elements=constants))
    body = [f"a = t * {literal(slope)} + {literal(offset)}"]
    for _ in range(draw(st.integers(1, max_steps))):
        piece = PIECES[draw(st.sampled_from(sorted(PIECES)))]
        lines = piece(draw, shape)
        if lines is None:
            continue
        after = shape_after(body + lines)
        if after is not None:
            body, shape = body + lines, after
    result = draw(st.sampled_from(["a", "np.sum(np.sin(a))", "float(np.sum(a * a))",
                                   "a.reshape(-1)[0] if a.size else t"]))
    return body, result


def richardson(f, t, order=1, h=2.0 ** -9):
    """(estimate, agreement) of f's `order`-th derivative at t: central differences
    at h, h/2, h/4, extrapolated twice (error O(h^6) for smooth f); `agreement` is
    the largest relative gap between the two once-extrapolated estimates."""
    def central(step):
        if order == 1:
            return (np.asarray(f(t + step), float) - np.asarray(f(t - step), float)) / (2 * step)
        return (np.asarray(f(t + step), float) - 2 * np.asarray(f(t), float) +
                np.asarray(f(t - step), float)) / (step * step)

    d1, d2, d4 = central(h), central(h / 2), central(h / 4)
    r1, r2 = (4 * d2 - d1) / 3, (4 * d4 - d2) / 3
    best = (16 * r2 - r1) / 15
    scale = 1.0 + np.max(np.abs(best), initial=0.0)
    return best, np.max(np.abs(r1 - r2), initial=0.0) / scale


def close(got, want) -> bool:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    scale = 1.0 + np.max(np.abs(want), initial=0.0)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= 1e-6 * scale))


def differentiated(f, t, order):
    return D(f, t) if order == 1 else D(D(f), t)


def hunt(body, result, t, order):
    f = module_of(source_of(body, result)).f
    try:
        with np.errstate(all="raise"):
            want, agreement = richardson(f, t, order)
    except Exception:  # noqa: BLE001 (the plain program fails near t: nothing to compare)
        assume(False)
    assume(np.all(np.isfinite(want)) and agreement < 1e-7)
    try:
        got = differentiated(f, t, order)
    except NonDifferentiableError as error:
        event(f"refused: {str(error).splitlines()[0][-260:-100]}")
        return
    event("compared")
    assert close(got, want), (body, result, t, got, want)


points = st.floats(0.35, 1.4, allow_nan=False).map(lambda t: round(t, 4))
HUNT = settings(max_examples=320, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@HUNT
@given(programs(), points)
def test_random_numpy_programs_are_right_or_refused(program, t):
    hunt(*program, t, 1)


@settings(HUNT, max_examples=60)
@given(programs(max_steps=3), points)
def test_random_numpy_programs_nested_twice_are_right_or_refused(program, t):
    """The second derivative by nesting `D`, against the second difference of the
    plain program: every step now runs under two derivatives at once."""
    hunt(*program, t, 2)


def test_the_hunt_catches_a_wrong_derivative():
    """Not vacuous: a program whose derivative is dropped on the way (text is
    documented to drop it) is caught by the comparison."""
    body = ["a = t * np.array([0.5, 1.0])", "a = np.array([float(str(x)) for x in a])"]
    f = module_of(source_of(body, "np.sum(a)")).f
    want, agreement = richardson(f, 0.7)
    assert agreement < 1e-7 and not close(D(f, 0.7), want)


@pytest.mark.parametrize("body, result, want", [
    ([], "D(lambda u: np.stack([u * t * np.ones(1)]), 1.0)", [[1.0]]),
    ([], "jvp(lambda u: np.sum(np.stack([t * np.ones(2)])), (0.5,), (1.0,))[0]", 2.0),
    (["s = t * t * 2.0"], "np.stack([s, t])", None),
])
def test_np_stack_inside_an_enclosing_derivative(body, result, want):
    """A call of an attribute named `stack` is wrapped so that `inspect.stack()` gets
    its caller's frame; the wrapped call was left native at every level, so a
    derivative enclosing another never saw `np.stack` and dropped its own tangent
    (0 here, or a TypeError nested twice)."""
    f = module_of(source_of(body, result)).f
    if want is None:  # the second derivative, against the plain program's
        expected, agreement = richardson(f, 0.8, 2)
        assert agreement < 1e-7 and close(D(D(f), 0.8), expected)
    else:
        assert np.array_equal(D(f, 1.0), want)


# ---------------------------------------------------------------------------
# the hunt's finds, each a program that was silently wrong

def test_as_strided_views_are_windows_of_their_base():
    """numpy's `as_strided` makes its view of a `DummyArray` holding the base: the
    view's `.base` is that object, not an ndarray, and the view was taken for an
    owner of its own (derivative 0 read through it, writes lost)."""
    body = ["a = t * np.array([0.3, -0.7, 1.1])",
            "pairs = as_strided(a, (2, 2), (8, 8))",  # overlapping windows of a
            "z = np.zeros(3)",
            "as_strided(z, (2,), (8,))[1] = t * t",   # a write through one
            "total = np.sum(pairs) + np.sum(z)"]
    f = module_of(source_of(body, "total")).f
    want, agreement = richardson(f, 0.9)
    assert agreement < 1e-7 and close(D(f, 0.9), want)
    assert abs(D(f, 0.9) - (0.3 - 2 * 0.7 + 1.1 + 2 * 0.9)) < 1e-14


def test_an_object_holding_a_derivative_given_to_numpy_is_refused():
    """numpy calls an object's operators in C, element by element, outside the
    derivative: `np.ones(2) + box` gave derivative 0."""
    for result in ("(np.ones(2) + Held(t))[0]", "(Held(t) + np.ones(2))[0]",
                   "np.multiply(Held(t), np.ones(2))[0]"):
        f = module_of(source_of([], result)).f
        assert abs(richardson(f, 1.0)[0] - 1.0) < 1e-9  # the plain program runs
        with pytest.raises(NonDifferentiableError, match="numpy would call its methods"):
            D(f, 1.0)


@pytest.mark.parametrize("method", ["reshape(-1)", "ravel()", "flatten()", "cumsum()",
                                    "repeat(2)", "__array__()", "flat[0]"])
def test_array_methods_of_a_numpy_scalar_are_refused_never_zero(method):
    """`np.float64(x).reshape(-1)` (a 0-d array's arithmetic gives such scalars) gave
    an array with derivative 0: the method ran on the plain number."""
    f = module_of(source_of(["s = np.float64(t * 2.0)"], f"s.{method}")).f
    with pytest.raises(NonDifferentiableError):
        D(f, 1.0)


@pytest.mark.parametrize("result", [
    "np.clip(a, a_min=-0.5, a_max=0.5)", "np.clip(a, min=-0.5, max=0.5)",
    "a.clip(max=0.5)", "np.clip(a)", "np.clip(a, t, 0.0)", "np.clip(a, -t, 0.5 * t)",
    "np.clip(0.4 * a, t - 1.5, t * 0.0)"])
def test_clip_is_told_by_its_answer(result):
    """Bounds by keyword, no bounds, and a lower bound above the upper one (numpy
    then answers the upper): the rule read positional bounds only (a TypeError
    naming its own helper) and, with the bounds crossed, gave the lower bound's
    tangent where numpy answers the upper."""
    f = module_of(source_of(["a = t * np.array([0.3, -0.7, 1.1])"], result)).f
    want, agreement = richardson(f, 1.0)
    assert agreement < 1e-7 and close(D(f, 1.0), want), (D(f, 1.0), want)


@pytest.mark.parametrize("body, result", [
    (["a = np.zeros(3)", "b = np.asarray(memoryview(a))", "a[0] = t * 2"], "b * 1.0"),
    (["a = np.zeros(3)", "b = np.frombuffer(a.data)", "a[1] = t"], "b * 1.0"),
    (["a = np.zeros(3)", "b = np.asarray(memoryview(a))", "b[2] = t * t"], "a"),
])
def test_arrays_made_over_a_memoryview_are_windows_of_their_base(body, result):
    """An array made of a memoryview of another (`np.asarray(memoryview(a))`,
    `np.frombuffer(a.data)`) has the memoryview as its base, not an ndarray: it was
    taken for an owner of its own, and derivative 0 came out."""
    f = module_of(source_of(body, result)).f
    want, agreement = richardson(f, 1.3)
    assert agreement < 1e-7 and np.any(want) and close(D(f, 1.3), want)


def test_a_view_over_a_memoryview_that_reinterprets_the_bytes_is_refused():
    f = module_of(source_of(["a = np.zeros(4)", "b = np.frombuffer(a, dtype=np.float32)",
                             "a[0] = t"], "b.astype(float)")).f
    with pytest.raises(NonDifferentiableError, match="reinterprets"):
        D(f, 1.3)


def test_a_copy_is_laid_out_as_numpy_lays_it_out():
    """`a.T.copy()` is C-ordered (ndarray.copy's default), and `np.copy` of a view
    keeps its layout ("K"): the method ran `np.copy`, so a reshape of the copy was a
    copy under `D` and a view in the plain call, and a write through it was lost."""
    for copy in ("a.copy()", "np.copy(a)", "copy.copy(a)", "a.copy(order='F')"):
        body = ["a = t * np.arange(1.0, 10.0).reshape(3, 3)", "a = a.T", f"a = {copy}",
                "v = a.reshape(-1)[1:]", "v *= t"]
        f = module_of(source_of(body, "a")).f
        want, agreement = richardson(f, 1.2)
        assert agreement < 1e-7 and close(D(f, 1.2), want), copy
