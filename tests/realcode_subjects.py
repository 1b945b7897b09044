"""Real code that `tests/test_ad_realcode.py` differentiates: the standard library,
numerical recipes written in plain Python, pure-Python packages installed for the tests
(the `realcode` extra), and scalar test functions of other AD projects' suites
(DiffTests.jl, autograd, tangent) written again in Python.

Each subject is an ordinary function of one number (or of a list, for `gradient`). They
live in a file so that `D` can read their source, as it reads a user's. The recipes are
written over plain arithmetic so that the tests can also run them on `mpmath.mpf` at 50
digits, or on `Fraction`, as a reference that owes nothing to `D`.
"""

from __future__ import annotations

import bisect
import cmath
import collections
import colorsys
import copy
import dataclasses
import enum
import functools
import heapq
import itertools
import json
import math
import operator
import random
import statistics
from fractions import Fraction

# --------------------------------------------------------------------------- statistics


def st_mean(x):
    return statistics.mean([x, 2 * x, 3.0, x * x])


def st_fmean(x):
    return statistics.fmean([x, x ** 2, 1.0])


def st_variance(x):
    return statistics.variance([1.0, x, 2 * x, 4.0])


def st_pstdev(x):
    return statistics.pstdev([x, 1.0, 3.0])


def st_geometric_mean(x):
    return statistics.geometric_mean([x, 2.0, 4.0])


def st_harmonic_mean(x):
    return statistics.harmonic_mean([x, 2.0, 5.0])


def st_median(x):
    return statistics.median([3.0, x * x, 1.0, 7.0])


def st_normal_pdf(x):
    return statistics.NormalDist(x, 2.0).pdf(1.5)


def st_normal_cdf(x):
    return statistics.NormalDist(0.5, x).cdf(1.0)


def st_normal_inv_cdf_sigma(x):
    return statistics.NormalDist(1.0, x).inv_cdf(0.9)


def st_normal_inv_cdf_p(x):
    return statistics.NormalDist().inv_cdf(x)


def st_normal_overlap_scaled(x):
    a = statistics.NormalDist(0.0, 1.0) * x
    return a.stdev + a.mean


def st_correlation(x):
    return statistics.correlation([1.0, 2.0, 3.0, 4.0], [x, x * x, 3.0, 5.0])


def st_covariance(x):
    return statistics.covariance([1.0, x, 3.0], [2.0, 1.0, x * x])


def st_linear_regression_slope(x):
    return statistics.linear_regression([1.0, 2.0, 3.0], [x, 2.0, x * x]).slope


def st_from_samples_stdev(x):
    return statistics.NormalDist.from_samples([x, 1.0, 2.0]).stdev


def st_quantiles(x):
    return statistics.quantiles([1.0, x, 5.0, 2 * x, 9.0], n=4)[1]


# --------------------------------------------------------------------------- colorsys


def cs_rgb_to_hsv(x):
    h, s, v = colorsys.rgb_to_hsv(x, 0.3, 0.2)
    return h + 2 * s + 3 * v


def cs_hls_to_rgb(x):
    r, g, b = colorsys.hls_to_rgb(0.2, x, 0.5)
    return r + 2 * g + 3 * b


def cs_rgb_to_yiq(x):
    y, i, q = colorsys.rgb_to_yiq(x, 0.5, 0.25)
    return y * i - q


def cs_hsv_round_trip(x):
    return colorsys.hsv_to_rgb(*colorsys.rgb_to_hsv(0.6, x, 0.1))[1]


# --------------------------------------------------------------------------- cmath, math


def cm_real_path(x):
    return cmath.exp(1j * x).real + cmath.sqrt(x + 2j).imag


def cm_holomorphic(z):
    return cmath.log(z) * cmath.sin(z)


def cm_phase_and_polar(x):
    r, phi = cmath.polar(complex(x, 1.0))
    return r * phi


def m_hypot(x):
    return math.hypot(x, 3.0, 4.0 * x)


def m_dist(x):
    return math.dist((x, 1.0), (0.0, 2 * x))


def m_prod(x):
    return math.prod([x, x + 1, 3.0])


def m_fsum(x):
    return math.fsum([x, x * x, 0.1, -x / 3])


def m_special(x):
    return math.erf(x) * math.lgamma(x + 1) + math.gamma(x)


def m_sumprod(x):
    return math.sumprod([x, 2.0], [3.0, x])


def m_atan2(x):
    return math.atan2(x, 1 - x)


def m_log1p_expm1(x):
    return math.log1p(x) / math.expm1(x)


# --------------------------------------------------------------------------- fractions


def fr_rational(q):
    return (q ** 3 - Fraction(1, 3) * q) / (q + 1)


def fr_series(q):
    return sum(Fraction(1, k) * q ** k for k in range(1, 8))


def fr_mixed_float(x):
    return float(Fraction(1, 3) * x) ** 2


# --------------------------------------------------------------------------- random


def rnd_gauss_scale(x):
    rng = random.Random(42)
    return x * rng.gauss(0.0, 1.0) + rng.random()


def rnd_gauss_sigma(x):
    rng = random.Random(7)
    return rng.gauss(1.0, x)


def rnd_expovariate(x):
    rng = random.Random(3)
    return rng.expovariate(x)


def rnd_uniform_walk(x):
    rng = random.Random(11)
    position = 0.0
    for _ in range(20):
        position += rng.uniform(-x, x)
    return position


def rnd_lognormvariate(x):
    return random.Random(5).lognormvariate(x, 0.5)


def rnd_shuffled_weights(x):
    rng = random.Random(1)
    weights = [x, 2 * x, x * x, 1.0]
    rng.shuffle(weights)
    return weights[0] * 1 + weights[1] * 10 + weights[2] * 100 + weights[3] * 1000


# --------------------------------------------------------------------------- containers, stdlib


def bi_bisect_index(x):
    return bisect.bisect([0.5, 1.5, 2.5], x) * x


def bi_insort(x):
    xs = [1.0, 4.0]
    bisect.insort(xs, x)
    return xs[1] * 3


def hq_nsmallest(x):
    return sum(heapq.nsmallest(2, [x, 3.0, 1.0, x * x]))


def hq_push_pop(x):
    heap = [5.0, 7.0]
    heapq.heappush(heap, x)
    return heapq.heappop(heap) * 2


def it_accumulate(x):
    return sum(itertools.accumulate([x, 2.0, x * x]))


def it_pairwise(x):
    return sum((b - a) ** 2 for a, b in itertools.pairwise([0.0, x, 3 * x, 1.0]))


def it_starmap_dot(x):
    return sum(itertools.starmap(operator.mul, zip([x, 2.0, x], [3.0, x, x])))


def it_product(x):
    return sum(a * b for a, b in itertools.product([x, 1.0], [2.0, x]))


def it_combinations(x):
    return sum(a * b for a, b in itertools.combinations([x, 2.0, 3.0], 2))


def ft_reduce(x):
    return functools.reduce(lambda a, b: a * b + 1, [x, 2.0, x])


@functools.lru_cache(maxsize=None)
def _fib_poly(n, x):
    if n < 2:
        return x if n else 1.0
    return x * _fib_poly(n - 1, x) + _fib_poly(n - 2, x)


def ft_lru_fibonacci_polynomial(x):
    return _fib_poly(6, x)


@dataclasses.dataclass
class Spring:
    k: float
    rest: float

    def energy(self, length):
        return 0.5 * self.k * (length - self.rest) ** 2


def dc_replace(x):
    s = dataclasses.replace(Spring(2.0, 1.0), k=x)
    return s.energy(3.0) + sum(dataclasses.astuple(s))


class Planet(enum.Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

    def gravity(self, scale):
        return 6.67300e-11 * self.mass / (self.radius * scale) ** 2


def en_planet(x):
    return Planet.EARTH.gravity(x) + Planet.MERCURY.gravity(x)


def op_itemgetter_sort(x):
    rows = [("a", x * x), ("b", 2.0), ("c", x)]
    best = max(rows, key=operator.itemgetter(1))
    return best[1]


def op_attrgetter(x):
    return sum(map(operator.attrgetter("k"), [Spring(x, 0.0), Spring(2 * x, 1.0)]))


def cp_deepcopy(x):
    data = {"a": [x, {"b": (x * 2, 3.0)}]}
    clone = copy.deepcopy(data)
    return clone["a"][0] * clone["a"][1]["b"][0]


def co_deque(x):
    q = collections.deque([x, 2.0, 3.0], maxlen=3)
    q.rotate(1)
    q.append(x * x)
    return q[0] * q[-1]


def co_ordereddict(x):
    d = collections.OrderedDict()
    d["a"] = x
    d["b"] = 2.0
    d.move_to_end("a")
    return list(d.values())[1] * 5


def co_namedtuple(x):
    Point = collections.namedtuple("Point", "x y")
    p = Point(x, 1.0)._replace(y=x * 3)
    return p._asdict()["y"] * p.x


def co_counter(x):
    c = collections.Counter({"a": x, "b": 2.0})
    c.update({"a": x})
    return c["a"] * c["b"]


def co_defaultdict_groups(x):
    groups = collections.defaultdict(list)
    for key, value in [("a", x), ("b", 2.0), ("a", x * x)]:
        groups[key].append(value)
    return sum(groups["a"]) * sum(groups["b"])


def js_round_trip(x):
    return json.loads(json.dumps({"a": [x, 2.0]}))["a"][0]


def js_round_trip_indented(x):
    return json.loads(json.dumps({"a": [x, 2.0]}, indent=2))["a"][0] + x


# --------------------------------------------------------------------------- numerical recipes


def newton_sqrt(a):
    t = a if a > 1 else 1.0
    for _ in range(60):
        t = 0.5 * (t + a / t)
    return t


def bisection_root(x):
    """The root of t**3 + x*t - 1 in [0, 1], by bisection alone: the result is built
    from the interval's constant ends, so its derivative is 0 wherever the branch
    choices do not change (a piecewise-constant function of x)."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid ** 3 + x * mid - 1 > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def bisection_root_polished(x):
    """Bisection, then one Newton step: the derivative of the root by the implicit
    function theorem, to the bisection's precision."""
    t = bisection_root(x)
    return t - (t ** 3 + x * t - 1) / (3 * t ** 2 + x)


def secant_root(x):
    """The root of t - cos(x * t) by the secant method."""
    a, b = 0.0, 1.0
    for _ in range(40):
        fa, fb = a - math.cos(x * a), b - math.cos(x * b)
        if fb == fa:
            break
        a, b = b, b - fb * (b - a) / (fb - fa)
    return b


def simpson(f, a, b, n):
    h = (b - a) / n
    total = f(a) + f(b)
    for i in range(1, n):
        total += (4 if i % 2 else 2) * f(a + i * h)
    return total * h / 3


def simpson_exp(x, exp=math.exp):
    return simpson(lambda t: exp(x * t), 0.0, 1.0, 64)


def rk4(f, y, t0, t1, n):
    h = (t1 - t0) / n
    t = t0
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return y


def rk4_decay(a):
    return rk4(lambda t, y: -a * y, Fraction(1), Fraction(0), Fraction(1), 8)


def horner(coefficients, x):
    result = 0
    for c in coefficients:
        result = result * x + c
    return result


def horner_poly(x):
    return horner([Fraction(3), Fraction(-2, 7), Fraction(0), Fraction(5), Fraction(-1)], x)


def tan_continued_fraction(x, depth=30):
    """Lambert's continued fraction tan x = x / (1 - x**2 / (3 - x**2 / (5 - ...)))."""
    tail = 2 * depth + 1
    for k in range(depth, 0, -1):
        tail = (2 * k - 1) - x * x / tail
    return x / tail


def exp_series(x):
    term, total, k = 1.0, 1.0, 0
    while abs(term) > 1e-17 * abs(total):
        k += 1
        term = term * x / k
        total += term
    return total


def kahan_sum(x):
    values = [x / k for k in range(1, 50)]
    total, compensation = 0.0, 0.0
    for v in values:
        y = v - compensation
        t = total + y
        compensation = (t - total) - y
        total = t
    return total


def fixed_point_cos(x):
    """t = cos(x t) by plain iteration."""
    t = 0.5
    for _ in range(200):
        t = math.cos(x * t)
    return t


def black_scholes_call(spot, strike=100.0, rate=0.05, sigma=0.2, years=1.0):
    d1 = (math.log(spot / strike) + (rate + sigma ** 2 / 2) * years) / (sigma * math.sqrt(years))
    d2 = d1 - sigma * math.sqrt(years)
    n = statistics.NormalDist()
    return spot * n.cdf(d1) - strike * math.exp(-rate * years) * n.cdf(d2)


def solve(a, b):
    """Gaussian elimination with partial pivoting, on lists of lists."""
    n = len(b)
    m = [row[:] + [bi] for row, bi in zip(a, b)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= factor * m[col][c]
    y = [0] * n
    for r in range(n - 1, -1, -1):
        y[r] = (m[r][n] - sum(m[r][c] * y[c] for c in range(r + 1, n))) / m[r][r]
    return y


def matrix_of(x):
    return [[x, Fraction(2), Fraction(1)],
            [Fraction(1), x * x, Fraction(3)],
            [Fraction(2), Fraction(1), Fraction(4) + x]]


def solve_linear(x):
    return solve(matrix_of(x), [Fraction(1), Fraction(2), Fraction(3)])[0]


def determinant(m):
    if len(m) == 1:
        return m[0][0]
    return sum((-1) ** j * m[0][j] * determinant([row[:j] + row[j + 1:] for row in m[1:]])
               for j in range(len(m)))


def det_laplace(x):
    return determinant(matrix_of(x))


def trapezoid_arc_length(x, n=400, sqrt=math.sqrt):
    """The length of y = x * t**2 over [0, 1], by the trapezoid rule."""
    h = 1.0 / n
    values = [sqrt(1 + (2 * x * (i * h)) ** 2) for i in range(n + 1)]
    return h * (sum(values) - (values[0] + values[-1]) / 2)


# --------------------------------------------------------------------------- other AD projects' scalar tests


def dt_num2num_1(x):
    return math.sin(x) ** 2 / math.cos(x) ** 2


def dt_num2num_2(x):
    return 2 * x + math.sqrt(x * x * x)


def dt_num2num_3(x):
    return 10.31 ** (x + x) - x


def dt_num2num_5(x):
    return 1.0 / (1.0 + math.exp(-x))


def dt_rosenbrock(v):
    return sum(100 * (v[i + 1] - v[i] ** 2) ** 2 + (1 - v[i]) ** 2 for i in range(len(v) - 1))


def dt_vec2num_1(v):
    return (math.exp(v[0]) + math.log(v[2]) * v[3]) / v[4]


def dt_vec2num_relu_sum(v):
    return sum(t if t > 0 else 0.0 for t in v)


def ag_logsumexp(v):
    m = max(v)
    return m + math.log(sum(math.exp(t - m) for t in v))


def ag_softplus_tanh(x):
    return math.log1p(math.exp(x)) * math.tanh(x / 2)


def tg_while_loop(x):
    """tangent's test shape: a loop whose trip count depends on the value."""
    while x < 10.0:
        x = x * 1.5 + 0.25
    return x


def tg_if_else(x):
    if x > 1.0:
        y = x ** 3
    else:
        y = -x
    return y * math.cos(y)


def tg_nested_function(x):
    def inner(y):
        return y * x + math.sin(y)
    return inner(inner(x))


# --------------------------------------------------------------------------- ordered dicts


def co_ordereddict_values(x):
    """Reading values back by iterating an OrderedDict."""
    d = collections.OrderedDict()
    d["a"] = x
    d["b"] = 2.0
    return sum(d.values()) * 5


def co_ordereddict_items(x):
    d = collections.OrderedDict()
    d["a"] = x
    return next(iter(d.items()))[1] * 5


# --------------------------------------------------------------------------- everyday recipes


class LRU:
    """The least-recently-used cache recipe of the OrderedDict documentation."""

    def __init__(self, size):
        self.size = size
        self.data = collections.OrderedDict()

    def get(self, key):
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.size:
            self.data.popitem(last=False)


def lru_cache_total(x):
    cache = LRU(2)
    cache.put("a", x)
    cache.put("b", 2 * x)
    cache.get("a")
    cache.put("c", x * x)          # evicts "b"
    return sum(cache.data.values())


def lru_evicted(x):
    cache = LRU(1)
    cache.put("a", x)
    cache.data["b"] = 2.0
    return cache.data.popitem(last=False)[1] * 3


def evaluate(expr, env):
    """A small expression evaluator written with structural pattern matching."""
    match expr:
        case ("num", value):
            return value
        case ("var", name):
            return env[name]
        case ("add", left, right):
            return evaluate(left, env) + evaluate(right, env)
        case ("mul", left, right):
            return evaluate(left, env) * evaluate(right, env)
        case ("sin", arg):
            return math.sin(evaluate(arg, env))
    raise ValueError(expr)


def match_evaluator(x):
    expr = ("add", ("mul", ("var", "x"), ("var", "x")), ("sin", ("mul", ("num", 3.0), ("var", "x"))))
    return evaluate(expr, {"x": x})


def match_evaluator_tree(x):
    """The same evaluator over a tree that holds x itself: `case ("num", value)`
    captures it."""
    expr = ("add", ("mul", ("num", x), ("var", "y")), ("sin", ("num", x)))
    return evaluate(expr, {"y": 3.0})


def match_capture(x):
    match x:
        case y:
            return y * 2


@dataclasses.dataclass
class Circle:
    r: float


@dataclasses.dataclass
class Rect:
    w: float
    h: float


def area(shape):
    match shape:
        case Circle(r=r):
            return math.pi * r * r
        case Rect(w, h):
            return w * h


def match_class_patterns(x):
    return area(Circle(x)) + area(Rect(x, 3.0))


class Defaulting(dict):
    """A dict whose missing keys get a value computed from a scale."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def __missing__(self, key):
        value = self[key] = self.scale * len(key)
        return value


def dict_missing(x):
    d = Defaulting(x)
    return d["abc"] + d["abc"]


class Lazy(dict):
    """A dict whose missing keys are computed on first use from a factor."""

    factor = 1.0

    def __missing__(self, key):
        value = self[key] = self.factor * key
        return value


def dict_missing_attribute(x):
    d = Lazy()
    d.factor = x
    return d[3] + d[3]


def averager():
    """Fluent Python's coroutine averager: the mean comes back as the generator's
    return value, through `yield from`."""
    total, count = 0.0, 0
    while True:
        term = yield
        if term is None:
            break
        total += term
        count += 1
    return total / count


def grouper(results, key):
    while True:
        results[key] = yield from averager()


def yield_from_averager(x):
    results = {}
    group = grouper(results, "a")
    next(group)
    for value in [x, 2.0, x * x]:
        group.send(value)
    group.send(None)
    return results["a"]


def local_dataclass(x):
    @dataclasses.dataclass
    class Pt:
        a: float
        b: float = 1.0
    p = Pt(x)
    return p.a * p.b * 3


@functools.singledispatch
def scale(value):
    return value * 2


@scale.register(float)
def _(value):
    return value * 3


def singledispatch_float(x):
    return scale(x)


class Square:
    def __init__(self, side):
        self.side = side

    @functools.cached_property
    def area(self):
        return self.side * self.side


def cached_property_area(x):
    s = Square(x)
    return s.area + s.area


def contextmanager_scaled(x):
    import contextlib

    @contextlib.contextmanager
    def scaled(v):
        yield v * 3

    with scaled(x) as y:
        return y


def asyncio_gather(x):
    import asyncio

    async def part(v, k):
        await asyncio.sleep(0)
        return v * k

    async def main():
        a, b = await asyncio.gather(part(x, 2.0), part(x * x, 1.0))
        return a + b

    return asyncio.run(main())


def chainmap_lookup(x):
    c = collections.ChainMap({"a": x}, {"a": 1.0, "b": x * x})
    return c["a"] + c["b"]


def groupby_totals(x):
    rows = [("a", x), ("a", 2.0), ("b", x * x), ("b", x)]
    return [sum(v for _, v in g) for _, g in itertools.groupby(rows, key=lambda r: r[0])][1]


def zip_longest_dot(x):
    return sum(a * b for a, b in itertools.zip_longest([x, 2.0], [x], fillvalue=1.0))


def heapq_merge_sorted(x):
    return list(heapq.merge([1.0, 3.0], [x, 5.0]))[0] * 3


def itertools_count_islice(x):
    return sum(itertools.islice(itertools.count(x, 0.5), 3))


def list_concat(x):
    return sum([x] + [2.0, x])


def intenum_coefficient(x):
    class K(enum.IntEnum):
        A = 2
    return K.A * x


def simple_namespace(x):
    import types
    ns = types.SimpleNamespace(a=x)
    return ns.a * 3


def dict_union(x):
    d = {"a": x} | {"b": x * x}
    return d["a"] + d["b"]


def pickle_round_trip(x):
    import pickle
    return pickle.loads(pickle.dumps([x]))[0] * 3


def rnd_triangular(x):
    return random.Random(3).triangular(0.0, x, 0.2 * x)


def rnd_gammavariate(x):
    return random.Random(3).gammavariate(2.5, x)


def rnd_choices(x):
    return random.Random(3).choices([x, 2 * x, 3 * x], weights=[1, 1, 1])[0]


def rnd_sample(x):
    return sum(random.Random(3).sample([x, 2 * x, 3 * x, 1.0], 2))


def rnd_paretovariate(x):
    return random.Random(3).paretovariate(x)


def rnd_weibullvariate(x):
    return random.Random(3).weibullvariate(x, 1.5)


def st_median_low(x):
    return statistics.median_low([x, 2.0, 3.0, 0.1]) * 3


def st_stdev_xbar(x):
    return statistics.stdev([1.0, 2.0, 4.0], xbar=x)


def st_pvariance_mu(x):
    return statistics.pvariance([1.0, 2.0, 4.0], mu=x)


def st_normal_zscore(x):
    return statistics.NormalDist(1.0, 2.0).zscore(x)


def st_normal_overlap(x):
    return statistics.NormalDist(0.0, 1.0).overlap(statistics.NormalDist(x, 1.0))


def st_normal_samples(x):
    return sum(statistics.NormalDist(x, 1.0).samples(3, seed=1))


def st_fmean_weights(x):
    return statistics.fmean([1.0, 2.0], weights=[x, 1.0])


def rolling_mean(x):
    """The mean of the last three readings, kept in a deque(maxlen=3)."""
    window = collections.deque(maxlen=3)
    for reading in [x, x * x, 2.0, x ** 3]:
        window.append(reading)
    return sum(window) / len(window)


# --------------------------------------------------------------------------- exact statistics


def st_mean_exact(x):
    return statistics.mean([x, x * x, 3])


def st_variance_exact(x):
    return statistics.variance([1, x, 2 * x, 4])


def st_pvariance_exact(x):
    return statistics.pvariance([x, x * x, 3])


def st_median_exact(x):
    return statistics.median([x, 3, x * x, 1])


# --------------------------------------------------------------------------- stacks and queues


_RPN_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def rpn(text, x):
    """A reverse-Polish calculator on a list used as a stack."""
    stack = []
    for token in text.split():
        if token in _RPN_OPS:
            b = stack.pop()
            a = stack.pop()
            stack.append(_RPN_OPS[token](a, b))
        elif token == "x":
            stack.append(x)
        else:
            stack.append(float(token))
    return stack.pop()


def rpn_polynomial(x):
    return rpn("x x * 3 x * + 1 x / -", x)


def bfs_weighted_sum(x):
    """Breadth-first walk of a small tree held in dicts, with a deque as the queue;
    each node's value is scaled by its depth."""
    tree = {"root": ["a", "b"], "a": ["c"], "b": [], "c": []}
    value = {"root": x, "a": x * x, "b": 2.0, "c": x ** 3}
    queue = collections.deque([("root", 1)])
    total = 0.0
    while queue:
        node, depth = queue.popleft()
        total += depth * value[node]
        for child in tree[node]:
            queue.append((child, depth + 1))
    return total


# --------------------------------------------------------------------------- vector to vector (jacobian)


def jac_rgb_to_hsv(v):
    return colorsys.rgb_to_hsv(*v)


def jac_rgb_to_yiq(v):
    return list(colorsys.rgb_to_yiq(*v))


def jac_polar(v):
    return cmath.polar(complex(v[0], v[1]))


def jac_linear_regression(v):
    fit = statistics.linear_regression([1.0, 2.0, 3.0], v)
    return [fit.slope, fit.intercept]


def jac_spherical(v):
    x, y, z = v
    r = math.sqrt(x * x + y * y + z * z)
    return (r, math.acos(z / r), math.atan2(y, x))


# --------------------------------------------------------------------------- more mappings


def od_pop(x):
    d = collections.OrderedDict()
    d["a"] = x
    return d.pop("a") * 3


def od_copy(x):
    d = collections.OrderedDict()
    d["a"] = x
    return d.copy()["a"] * 3


def od_from_pairs(x):
    d = collections.OrderedDict([("a", x), ("b", 2.0)])
    return d["a"] * 3


def od_setdefault(x):
    d = collections.OrderedDict()
    d.setdefault("a", x)
    return d["a"] * 3


def chainmap_values_sum(x):
    c = collections.ChainMap({"a": x}, {"b": x * x})
    return sum(c.values())


def methodcaller_conjugate(x):
    return operator.methodcaller("conjugate")(x) * 3


def fraction_limit_denominator(x):
    return Fraction(x).limit_denominator(1000) + x


def simpson_cexp(z, exp=cmath.exp):
    return simpson(lambda t: exp(z * t), 0.0, 1.0, 64)


def horner_float(x):
    return horner([3.0, -0.5, 0.0, 5.0, -1.0], x)


def dijkstra(edges, source, target):
    """Shortest path length, plain Python: a list kept sorted as the priority queue."""
    graph = collections.defaultdict(list)
    for a, b, w in edges:
        graph[a].append((b, w))
        graph[b].append((a, w))
    best = {source: 0.0}
    queue = [(0.0, source)]
    done = set()
    while queue:
        queue.sort()
        dist, node = queue.pop(0)
        if node in done:
            continue
        done.add(node)
        if node == target:
            return dist
        for nxt, w in graph[node]:
            if nxt not in best or dist + w < best[nxt]:
                best[nxt] = dist + w
                queue.append((dist + w, nxt))
    raise ValueError("unreachable")


def dijkstra_length(x):
    """The graph of the networkx cases: the path a-b-c-d, of length x + 2x + x*x."""
    edges = [("a", "b", x), ("b", "c", 2 * x), ("a", "c", 3.5), ("c", "d", x * x),
             ("b", "d", 4.0)]
    return dijkstra(edges, "a", "d")


# --------------------------------------------------------------------------- gradients over data


def gr_stdev(v):
    return statistics.stdev(v)


def gr_correlation(v):
    return statistics.correlation([1.0, 2.0, 3.0, 4.0], v)


def gr_geometric_mean(v):
    return statistics.geometric_mean(v)


def gr_harmonic_mean(v):
    return statistics.harmonic_mean(v)


def gr_hypot(v):
    return math.hypot(*v)


def gr_prod(v):
    return math.prod(v)
