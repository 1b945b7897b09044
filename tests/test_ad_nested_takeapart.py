"""Nested derivatives through the primitives that take a value apart and put it
back (issue 18, rows 1-2 and item 2).

An inner `D` runs under the outer one: the inner context's primitives (its
unpacking, `pop`, iteration, sorting) run transformed in the outer context, so
each must move values where the outer context sees them move, or the outer
tangent is silently dropped. Each subject below is a polynomial in its three
arguments that passes every argument through one such primitive. It is
differentiated in two ways, each checked against mpmath's derivative of the
plain function at 50 digits:

* one argument per level: the innermost `D` over `c`, the next over `b`, the
  outermost over `a`, so a primitive meets values of different levels side by
  side; each level is checked (`d/dc`, `d2/db dc`, `d3/da db dc`);
* one variable at every level: `D(D(g))` and `D(D(D(g)))` of `g(v) = h(v, v*v,
  v+1)`, so a primitive meets values carrying the tangents of every level.

Both at float points and at small-int points (cached objects, where an identity
test cannot tell two equal values apart).

Planted bugs these tests catch (each planted alone, the tests run, the plant
removed; each was also the code before its fix): `unpack` listing its items
natively (`markers.items_to_unpack` among the native calls); `retag_removed`
comparing the recorded object with the popped value as it comes back (`raw is
result`), not its plain value; `list_sort` listing the elements natively
(`native.list(iterate(...))`), or picking them natively; `_merge` and `_pair`
listing natively; `getitem` handing a Python `__getitem__` the plain key; the
tagging pass leaving `yield from` to the container's own iterator; the
`kwargs` helper building the splatted dict natively; the bounded `append`
displaying `(inner, meta)` anew for `labelled`.

The subjects are module-level and assert nothing: the engine reads their source.
"""

from __future__ import annotations

import copy
import heapq
import itertools
from collections import OrderedDict, deque, namedtuple

import mpmath
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ad import D, gradient, jacobian
from contexts import overdub
from tagging import enabletagging, istagged, metadata, tag, untag

from tests.test_tagging import Box, MetaCtx, read

# Subjects: h(a, b, c), a polynomial, each argument taken apart and put back ---------


def unpack_tuple(a, b, c):
    p, q, r = (a, b, c)
    return p * q * r


def unpack_list(a, b, c):
    [p, q, r] = [c, a, b]
    return p * q * r


def unpack_starred(a, b, c):
    p, *rest = (a, b, c)
    *init, last = [p, *rest]
    return init[0] * init[1] * last


def unpack_nested(a, b, c):
    p, (q, r) = (a, (b, c))
    return p * q * r


def swap(a, b, c):
    a, b = b, a
    c, a = a, c
    return a * a * b * c


def swap_items(a, b, c):
    xs = [a, b, c]
    xs[0], xs[2] = xs[2], xs[0]
    xs[1], xs[0] = xs[0], xs[1]
    return xs[0] * xs[1] * xs[2] * xs[0]


def list_pop(a, b, c):
    xs = [a, b, c]
    return xs.pop() * xs.pop(0) * xs.pop()


def single_pop(a, b, c):
    return [a].pop() * [b].pop() * c


def deque_pop(a, b, c):
    d = deque([a, b, c])
    return d.pop() * d.popleft() * d.pop()


def dict_popitem(a, b, c):
    d = {"a": a, "b": b, "c": c}
    _, first = d.popitem()
    _, second = d.popitem()
    return first * second * d["a"]


def dict_pop(a, b, c):
    d = {"a": a, "b": b, "c": c}
    return d.pop("a") * d.pop("b") * d.pop("c", 0)


def dict_setdefault(a, b, c):
    d = {"a": a}
    return d.setdefault("a", b) * d.setdefault("b", b) * d.setdefault("c", c)


def set_pop(a, b, c):
    return {a}.pop() * {b}.pop() * c


def loop_list(a, b, c):
    s = 1
    for v in [a, b, c]:
        s = s * v
    return s


def loop_tuple(a, b, c):
    s = 1
    for v in (a, b, c):
        s = s * v
    return s


def loop_dict(a, b, c):
    d = {a: "a", b: "b", c: "c"}
    s = 1
    for k in d:
        s = s * k
    for v in {"a": a, "b": b}.values():
        s = s * v
    return s


def loop_dict_items(a, b, c):
    s = 1
    for _, (u, v) in {"p": (a, b), "q": (c, a)}.items():
        s = s + u * v
    return s * b


def loop_zip(a, b, c):
    s = 0
    for p, q in zip([a, b], [b, c]):
        s = s + p * q
    return s * a


def loop_enumerate(a, b, c):
    s = 0
    for i, (p, q) in enumerate(zip([a, b], [b, c]), start=1):
        s = s + i * p * q
    return s * c


def loop_reversed(a, b, c):
    s = 0
    for i, v in enumerate(reversed((a, b, c))):
        s = s + (i + 1) * v * v
    return s * a * b


def reversed_views(a, b, c):
    d = {"a": a, "b": b, "c": c}
    steps = reversed(d.items())
    _, last = next(steps)
    s = last * next(steps)[1]
    for v in reversed(OrderedDict(a=a, b=b).values()):
        s = s * v
    for k, _ in reversed({a: 1, c: 2}.items()):
        s = s + k * k
    return s


def comprehensions(a, b, c):
    ys = [p * q for p, q in zip([a, b, c], [c, a, b])]
    d = {k: v for k, v in zip("xyz", ys)}
    return d["x"] * d["y"] * d["z"]


def iter_next(a, b, c):
    it = iter([a, b, c])
    return next(it) * next(it) * next(it)


def slicing(a, b, c):
    xs = [a, b, c]
    ys = xs[1:]
    zs = xs[::-1]
    return ys[0] * ys[1] * zs[2]


def slice_store(a, b, c):
    xs = [c, c, c]
    xs[0:2] = [a, b]
    return xs[0] * xs[1] * xs[2]


def remove_insert(a, b, c):
    xs = [a, 7, b]
    xs.remove(7)
    xs.insert(1, c)
    return xs[0] * xs[1] * xs[2]


def deque_moves(a, b, c):
    d = deque([a, 7, b])
    d.remove(7)
    d.appendleft(c)
    d.rotate(1)
    d.reverse()
    return d[0] * d[1] * d[2]


def bounded_deque(a, b, c):
    d = deque([a, b, 7], maxlen=2)
    d.append(c)
    e = deque([b], maxlen=1)
    e.append(a * c)
    return d[0] * d[1] * e[0]


def copies(a, b, c):
    xs = [a, b, c]
    return copy.copy(xs)[0] * xs.copy()[1] * list(xs)[2] * tuple(xs)[0]


def dict_built(a, b, c):
    d = dict(zip("abc", [a, b, c]))
    e = dict([("x", a), ("y", b)])
    e.update(d)
    return d["a"] * d["b"] * d["c"] * e["x"] * e["y"]


class Squares:
    """A mapping (to `dict.update`) whose keys are the points themselves."""

    def __init__(self, *points):
        self.points = points

    def keys(self):
        return list(self.points)

    def __getitem__(self, key):
        return key * key


def mapping_update(a, b, c):
    d = {}
    d.update(Squares(a, b, c))
    s = 1
    for k, v in d.items():
        s = s * k + v
    return s


def extremes(a, b, c):
    return max(a, b, c) * min([a, b, c]) * max([a, b, c], key=lambda v: -v)


def sorting(a, b, c):
    s = sorted([a, b, c])
    return s[0] * s[1] * s[2] * s[0]


def sorting_by_key(a, b, c):
    s = sorted([a, b, c], key=lambda v: -v, reverse=True)
    return s[0] * s[1] * s[2] * s[2]


def list_sort(a, b, c):
    s = [c, b, a]
    s.sort(reverse=True)
    return s[0] * s[1] * s[2] * s[2]


def itertools_twins(a, b, c):
    s = 1
    for v in itertools.islice(itertools.chain([a], [b, c]), 3):
        s = s * v
    for p, q in itertools.pairwise([a, b, c]):
        s = s + p * q
    return s


def generator_channels(a, b, c):
    def produce():
        yield a
        received = yield b
        yield received * c

    g = produce()
    return next(g) * next(g) * g.send(a)


def yield_from(a, b, c):
    def produce():
        yield from [a, b]
        yield from {"c": c}.values()

    xs = list(produce())
    return xs[0] * xs[1] * xs[2] * next(produce())


def transpose(a, b, c):
    (p, q), (r, s) = zip(*[[a, b], [c, a]])
    return p * q * r * s


def unpack_into_slots(a, b, c):
    box = Box()
    box.x, box.y = a, b
    box.x, box.y = box.y, box.x
    d = {}
    d["p"], [d["q"]] = c, [box.x]
    return box.x * box.y * d["p"] * d["q"]


def drain(a, b, c):
    stack, queue, s = [a, b], deque([c, a]), 1
    while stack:
        s = s * stack.pop()
    while queue:
        s = s * queue.popleft()
    return s


Point = namedtuple("Point", "x y z")


def named_tuples(a, b, c):
    x, y, z = Point(a, b, c)
    moved = Point(a, b, c)._replace(x=c)
    return x * y * z * moved.x * moved[1]


def set_operations(a, b, c):
    s = {a, b}
    s.update([c])
    t = s.union({a}).intersection(s)
    s.discard(a)
    low, middle, high = sorted(t)
    return low * middle * high * max(s)


def deep_copies(a, b, c):
    xs = copy.deepcopy([a, [b, c]])
    d = copy.deepcopy({"a": a, "b": (b, c)})
    return xs[0] * xs[1][0] * xs[1][1] * d["a"] * d["b"][1]


def positional(*args):
    first, *rest = args
    return first * rest[0] * rest[1]


def keywords(**named):
    return named["p"] * named["q"] * named["r"]


def splats(a, b, c):
    xs = [a, b]
    d = {"q": b, "r": c}
    return positional(*xs, c) * keywords(p=a, **d) * keywords(**{"p": c, "q": a, "r": b})


SUBJECTS = [unpack_tuple, unpack_list, unpack_starred, unpack_nested, swap, swap_items,
            list_pop, single_pop, deque_pop, dict_popitem, dict_pop, dict_setdefault,
            set_pop, loop_list, loop_tuple, loop_dict, loop_dict_items, loop_zip,
            loop_enumerate, loop_reversed, reversed_views, comprehensions, iter_next, slicing, slice_store,
            remove_insert, deque_moves, bounded_deque, copies, dict_built, mapping_update,
            extremes, sorting, sorting_by_key, list_sort, itertools_twins,
            generator_channels, yield_from, splats, transpose, unpack_into_slots, drain,
            named_tuples, set_operations, deep_copies]


def last_partials(h, point, levels):
    """The derivative of h over its last `levels` arguments, one nested `D` each: the
    innermost over the last argument; the others are plain."""
    first = len(point) - levels

    def level(j, args):
        if j == len(point) - 1:
            return D(lambda v: h(*args, v), point[j])
        return D(lambda v: level(j + 1, (*args, v)), point[j])

    return level(first, tuple(point[:first]))


def along_one_variable(h, x, depth):
    """The depth-th derivative, by nested `D`, of g(v) = h(v, v*v, v+1)."""
    f = lambda v: h(v, v * v, v + 1)
    for _ in range(depth):
        f = D(f)
    return f(x)


def expected_partials(h, point, levels):
    with mpmath.workdps(50):
        orders = (0,) * (len(point) - levels) + (1,) * levels
        return mpmath.diff(lambda *v: h(*v), [mpmath.mpf(p) for p in point], orders)


def expected_along(h, x, depth):
    with mpmath.workdps(50):
        return mpmath.diff(lambda v: h(v, v * v, v + 1), mpmath.mpf(x), depth)


def agrees(got, want):
    return abs(got - want) <= 1e-9 * (1 + abs(want))


POINTS = [(2.0, 3.5, 0.75), (2, 3, 5), (-3, 4, -1)]


@pytest.mark.parametrize("point", POINTS, ids=str)
@pytest.mark.parametrize("h", SUBJECTS, ids=lambda h: h.__name__)
def test_each_level_of_a_mixed_partial(h, point):
    for levels in (1, 2, 3):
        got = last_partials(h, point, levels)
        want = expected_partials(h, point, levels)
        assert agrees(got, want), (levels, got, float(want))
        if all(type(p) is int for p in point):
            assert type(got) is int


@pytest.mark.parametrize("x", [1.5, 2, -3], ids=str)
@pytest.mark.parametrize("h", SUBJECTS, ids=lambda h: h.__name__)
def test_each_order_along_one_variable(h, x):
    for depth in (1, 2, 3):
        got = along_one_variable(h, x, depth)
        want = expected_along(h, x, depth)
        assert agrees(got, want), (depth, got, float(want))


def _distinct(values):
    """Whether the values, and the constant 7 the subjects remove by value, are apart:
    away from ties, where `max`, `min`, `sorted` and `remove` switch elements."""
    return all(abs(p - q) > 1e-3 for p, q in itertools.combinations((*values, 7), 2))


finite = st.floats(-4, 4, allow_nan=False).filter(lambda v: abs(v) > 1e-3)
small_ints = st.integers(-5, 12)


@given(st.sampled_from(SUBJECTS), st.one_of(st.tuples(finite, finite, finite),
                                             st.tuples(small_ints, small_ints, small_ints)),
       st.sampled_from([2, 3]))
def test_nested_partials_agree_with_mpmath(h, point, levels):
    assume(_distinct(point))
    got = last_partials(h, point, levels)
    assert agrees(got, expected_partials(h, point, levels))


@given(st.sampled_from(SUBJECTS), st.one_of(finite, small_ints), st.sampled_from([2, 3]))
def test_nested_derivatives_agree_with_mpmath(h, x, depth):
    assume(_distinct((x, x * x, x + 1)))
    got = along_one_variable(h, x, depth)
    assert agrees(got, expected_along(h, x, depth))


# The reproductions ---------------------------------------------------------


def unpacks_inside_an_inner_derivative(x):
    def g(y):
        a, b = (y, x)
        return a * b

    return D(g, 1.0)


def zips_inside_an_inner_derivative(x):
    def g(y):
        s = 0
        for a, b in zip([y, y], [x, x * x]):
            s = s + a * b
        return s

    return D(g, 1.0)


def test_unpacking_inside_an_inner_derivative():
    assert D(unpacks_inside_an_inner_derivative, 2.0) == 1.0
    assert D(zips_inside_an_inner_derivative, 2.0) == 1.0 + 2 * 2.0


def gradient_unpacking_the_outer_point(v):
    def f(w):
        a, b = v
        return w[0] * w[1] * a + w[0] * b * b

    return gradient(f, [v[0], v[1]])


def gradient_zipping_with_the_outer_point(v):
    def f(w):
        s = 0
        for p, q in zip(w, v):
            s = s + p * q * p
        return s

    return gradient(f, [1.0, 1.0])


def test_a_jacobian_of_a_gradient():
    # the gradient at w = v is [v0 v1 + v1**2, v0**2]: its jacobian [[v1, v0 + 2 v1], [2 v0, 0]]
    assert jacobian(gradient_unpacking_the_outer_point, [2.0, 3.0]) == [[3.0, 8.0], [4.0, 0.0]]
    # the gradient at w = (1, 1) is [2 v0, 2 v1] (it was all zeros)
    assert jacobian(gradient_zipping_with_the_outer_point, [2.0, 3.0]) == [[2.0, 0.0],
                                                                           [0.0, 2.0]]


@pytest.mark.parametrize("pop", [lambda a: [a].pop(), lambda a: deque([a]).pop(),
                                 lambda a: deque([a]).popleft()],
                         ids=["list.pop", "deque.pop", "deque.popleft"])
def test_a_popped_value_times_itself(pop):
    assert D(D(lambda a: pop(a) * a))(3.0) == 2.0
    assert D(D(D(lambda a: pop(a) * a * a)))(3.0) == 6.0
    assert D(D(lambda a: pop(a) * a))(3) == 2


# heapq's C functions, through their Python twins -----------------------------------


def heap_push_pop(a, b, c):
    h = []
    for v in (a, b, c):
        heapq.heappush(h, v)
    return heapq.heappop(h) * heapq.heappop(h) * h[0]


@pytest.mark.parametrize("levels", [2, 3])
def test_heapq_under_nesting(levels):
    """Refused before `ad` ran heapq's Python twin; now right at each level."""
    point = (2.0, 3.5, 0.75)
    assert agrees(last_partials(heap_push_pop, point, levels),
                  expected_partials(heap_push_pop, point, levels))


# The same under tagging alone: an element popped from a list keeps both tags ------


def pop_in_inner(x, outer):
    inner = enabletagging(MetaCtx(), pop_one)
    popped = overdub(inner, pop_one, tag(x, inner, "inner"))
    return untag(popped, inner), metadata(popped, inner)


def pop_one(v):
    return [v].pop()


def test_a_popped_element_keeps_the_inner_and_the_outer_metadata():
    outer = enabletagging(MetaCtx(), pop_in_inner)
    result = overdub(outer, pop_in_inner, tag(2.5, outer, "outer"), outer)
    assert result[1] == "inner"
    value = read(outer, result, 0)
    assert istagged(value, outer) and metadata(value, outer) == "outer"
    assert untag(value, outer) == 2.5


# A Python `__getitem__` computes with the key it is given -------------------------


class Polynomial:
    def __init__(self, *coefficients):
        self.coefficients = coefficients

    def __getitem__(self, t):
        return sum(c * t ** n for n, c in enumerate(self.coefficients))


def evaluated_by_subscript(t):
    return Polynomial(1.0, 2.0, 3.0)[t]


def test_a_python_getitem_gets_the_key_with_its_tangent():
    # 1 + 2t + 3t**2: 2 + 6t, 6 (the key used to arrive plain: 0.0)
    assert D(evaluated_by_subscript, 2.0) == 14.0
    assert D(D(evaluated_by_subscript))(2.0) == 6.0


# `yield from` a container --------------------------------------------------------


def yields_from_a_list(x):
    def produce():
        yield from [x, 2.0]

    return sum(produce()) * x


def test_yield_from_a_list_hands_out_its_elements_tangents():
    # (x + 2) x: 2x + 2 (the elements came out bare: 2.0)
    assert D(yields_from_a_list, 2.0) == 6.0
    assert D(D(yields_from_a_list))(2.0) == 2.0


def second_of_a_pair(v, w):
    p, q = (v, w)
    return q


def unpack_in_inner(x, y):
    inner = enabletagging(MetaCtx(), second_of_a_pair)
    return overdub(inner, second_of_a_pair, tag(x, inner, "inner"), y)


def test_an_inner_unpacking_keeps_the_outer_metadata():
    outer = enabletagging(MetaCtx(), unpack_in_inner)
    result = overdub(outer, unpack_in_inner, 1.5, tag(2.5, outer, "outer"))
    assert istagged(result, outer) and metadata(result, outer) == "outer"
    assert untag(result, outer) == 2.5
