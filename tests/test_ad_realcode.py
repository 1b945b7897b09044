"""Real code under `D`: the standard library, numerical recipes in plain Python,
pure-Python packages from PyPI (the `realcode` extra, installed by `.[test]`) and
scalar test functions of other AD projects (DiffTests.jl, autograd, tangent).

Every case compares `D` (or `gradient`) with a reference that owes nothing to `D`:
exact `Fraction` arithmetic, a closed-form derivative, the same real code run on
`mpmath.mpf` at 50 digits and differentiated by `mpmath.diff`, a package's own
derivative (uncertainties), or the seeded random draws themselves. Where `D` is refused
or crashes today the case is a strict xfail naming the error; where it returns a wrong
number, the xfail's reason starts with "silently wrong". Subjects live in
`tests/realcode_subjects.py` and `tests/realcode_packages.py`; a case whose package is
not installed is skipped.
"""

from __future__ import annotations

import colorsys
import math
import random
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import mpmath
import pytest

from ad import D, NonDifferentiableError, gradient, hessian, jacobian
from tests import realcode_packages as P
from tests import realcode_subjects as S

mp = mpmath.mp
_PY = sys.version_info[:2]


def mpdiff(g: Callable, x: float, n: int = 1) -> mpmath.mpf:
    """The n-th derivative of g at x, by mpmath at 50 digits (x taken exactly)."""
    with mpmath.workdps(50):
        return mpmath.diff(g, mpmath.mpf(x), n)


def exact(*values: float) -> list:
    return [Fraction(v) for v in values]


@dataclass
class Case:
    id: str
    f: Callable
    x: Any
    ref: Callable[[Any], Any]     # the reference derivative at x
    rel: float = 1e-12            # 0: exact equality
    needs: str | None = None      # a package to import, else skip
    fails: tuple = ()             # (kind, exception type, reason) of a strict xfail
    grad: bool = False            # gradient of f at the list x (hessian if order == 2)
    order: int = 1                # 2: D(D(f)) (nested derivatives)
    jac: bool = False             # jacobian of f at the list x
    marks: list = field(default_factory=list)


def refused(reason: str) -> tuple:
    return ("refused", NonDifferentiableError, reason)


def crash(error: type, reason: str) -> tuple:
    return ("crash", error, reason)


def wrong(reason: str) -> tuple:
    return ("silently wrong", AssertionError, "silently wrong: " + reason)


# ----------------------------------------------------------------- references in mpmath

def _mean(xs):
    return sum(xs) / len(xs)


def _var(xs, ddof=1):
    m = _mean(xs)
    return sum((t - m) ** 2 for t in xs) / (len(xs) - ddof)


def _cov(xs, ys):
    mx, my = _mean(xs), _mean(ys)
    return sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / (len(xs) - 1)


def _corr(xs, ys):
    return _cov(xs, ys) / mpmath.sqrt(_var(xs) * _var(ys))


def _fib_poly(n, t):
    a, b = mpmath.mpf(1), t
    if n == 0:
        return a
    for _ in range(n - 1):
        a, b = b, t * b + a
    return b


def _implicit_cubic_root(x):
    """dt/dx of the root of t**3 + x t - 1, by the implicit function theorem."""
    with mpmath.workdps(50):
        x = mpmath.mpf(x)
        t = mpmath.findroot(lambda t: t ** 3 + x * t - 1, 0.7)
        return -t / (3 * t ** 2 + x)


def _implicit_cos_fixed_point(x):
    """dt/dx of the root of t - cos(x t)."""
    with mpmath.workdps(50):
        x = mpmath.mpf(x)
        t = mpmath.findroot(lambda t: t - mpmath.cos(x * t), 0.7)
        s = mpmath.sin(x * t)
        return -t * s / (1 + x * s)


def _rk4_decay_derivative(a):
    """y = R(z)**8 with z = -a/8 and R RK4's stability polynomial; exact."""
    h = Fraction(1, 8)
    z = -a * h
    r = 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24
    dr = 1 + z + z ** 2 / 2 + z ** 3 / 6
    return 8 * r ** 7 * dr * (-h)


def _solve_derivative(x):
    """dy/dx of A(x) y = b: -A^-1 A' y, in exact arithmetic (the plain solver)."""
    a = S.matrix_of(x)
    y = S.solve(a, exact(1, 2, 3))
    da = [[1, 0, 0], [0, 2 * x, 0], [0, 0, 1]]
    rhs = [-sum(da[i][j] * y[j] for j in range(3)) for i in range(3)]
    return S.solve(a, rhs)[0]


def _det_derivative(x):
    """Jacobi: d det A = sum over columns j of det(A with column j replaced by A')."""
    a = S.matrix_of(x)
    da = [[1, 0, 0], [0, 2 * x, 0], [0, 0, 1]]
    total = Fraction(0)
    for j in range(3):
        m = [row[:j] + [da[i][j]] + row[j + 1:] for i, row in enumerate(a)]
        total += S.determinant(m)
    return total


def _rosenbrock_gradient(v):
    v = [Fraction(t) for t in v]
    g = [Fraction(0)] * len(v)
    for i in range(len(v) - 1):
        g[i] += -400 * v[i] * (v[i + 1] - v[i] ** 2) - 2 * (1 - v[i])
        g[i + 1] += 200 * (v[i + 1] - v[i] ** 2)
    return g


def _vec2num_1_gradient(v):
    with mpmath.workdps(50):
        e, l3 = mpmath.exp(v[0]), mpmath.log(v[2])
        return [e / v[4], 0, v[3] / (v[2] * v[4]), l3 / v[4], -(e + l3 * v[3]) / v[4] ** 2]


def _softmax(v):
    with mpmath.workdps(50):
        es = [mpmath.exp(t) for t in v]
        return [e / sum(es) for e in es]


def _uniform_walk_derivative():
    rng = random.Random(11)
    return sum(Fraction(2 * rng.random()) - 1 for _ in range(20))


def _shuffled_derivative(x):
    rng = random.Random(1)
    tangents = [1, 2, 2 * Fraction(x), 0]
    rng.shuffle(tangents)
    return tangents[0] + 10 * tangents[1] + 100 * tangents[2] + 1000 * tangents[3]


def _uncertainties_derivative(x):
    from uncertainties import ufloat, umath
    u = ufloat(x, 0.1)
    return (umath.sin(u) * 3 + u ** 2).derivatives[u]


def _while_loop_derivative(x):
    n = 0
    while x < 10.0:
        x, n = x * 1.5 + 0.25, n + 1
    return Fraction(3, 2) ** n


_G = 6.67300e-11
_PLANETS = [(3.303e+23, 2.4397e6), (5.976e+24, 6.37814e6)]
_V = [0.5, 1.5, 2.0, 0.3, 1.2]

# ----------------------------------------------------------------- the cases

STDLIB = [
    # statistics
    Case("statistics.mean", S.st_mean, 0.7, lambda x: Fraction(3 + 2 * Fraction(x), 4)),
    Case("statistics.fmean", S.st_fmean, 0.7, lambda x: (1 + 2 * Fraction(x)) / 3),
    Case("statistics.variance", S.st_variance, 0.7,
         lambda x: mpdiff(lambda t: _var([1, t, 2 * t, 4]), x)),
    Case("statistics.pstdev", S.st_pstdev, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(_var([t, 1, 3], ddof=0)), x)),
    Case("statistics.geometric_mean", S.st_geometric_mean, 0.7,
         lambda x: mpdiff(lambda t: mpmath.cbrt(8 * t), x)),
    Case("statistics.harmonic_mean", S.st_harmonic_mean, 0.7,
         lambda x: mpdiff(lambda t: 3 / (1 / t + mpmath.mpf(1) / 2 + mpmath.mpf(1) / 5), x)),
    Case("statistics.median (even count, x*x in the middle pair)", S.st_median, 2.0,
         lambda x: Fraction(x)),
    Case("NormalDist.pdf in mu", S.st_normal_pdf, 0.7,
         lambda x: mpdiff(lambda t: mpmath.npdf(1.5, t, 2), x)),
    Case("NormalDist.cdf in sigma", S.st_normal_cdf, 0.7,
         lambda x: mpdiff(lambda t: mpmath.ncdf(1.0, 0.5, t), x)),
    Case("NormalDist.inv_cdf in sigma", S.st_normal_inv_cdf_sigma, 0.7,
         lambda x: mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(0.9) * 2 - 1)),
    Case("NormalDist.inv_cdf in p", S.st_normal_inv_cdf_p, 0.3,
         lambda x: mpdiff(lambda t: mpmath.sqrt(2) * mpmath.erfinv(2 * t - 1), x)),
    Case("NormalDist * x (scaling a distribution)", S.st_normal_overlap_scaled, 0.7,
         lambda x: 1),
    Case("statistics.correlation", S.st_correlation, 0.7,
         lambda x: mpdiff(lambda t: _corr([1, 2, 3, 4], [t, t * t, 3, 5]), x)),
    Case("statistics.covariance", S.st_covariance, 0.7,
         lambda x: mpdiff(lambda t: _cov([1, t, 3], [2, 1, t * t]), x)),
    Case("statistics.linear_regression slope", S.st_linear_regression_slope, 0.7,
         lambda x: mpdiff(lambda t: _cov([1, 2, 3], [t, 2, t * t]) / _var([1, 2, 3]), x)),
    Case("NormalDist.from_samples stdev", S.st_from_samples_stdev, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(_var([t, 1, 2])), x)),
    Case("statistics.quantiles (exclusive; the middle cut is the element 2x)",
         S.st_quantiles, 0.7, lambda x: 2),
    # colorsys: the same module's code on mpf at 50 digits
    Case("colorsys.rgb_to_hsv", S.cs_rgb_to_hsv, 0.7,
         lambda x: mpdiff(lambda t: (lambda h, s, v: h + 2 * s + 3 * v)(
             *colorsys.rgb_to_hsv(t, mpmath.mpf(0.3), mpmath.mpf(0.2))), x)),
    Case("colorsys.hls_to_rgb", S.cs_hls_to_rgb, 0.7,
         lambda x: mpdiff(lambda t: (lambda r, g, b: r + 2 * g + 3 * b)(
             *colorsys.hls_to_rgb(mpmath.mpf(0.2), t, mpmath.mpf(0.5))), x)),
    Case("colorsys.rgb_to_yiq", S.cs_rgb_to_yiq, 0.7,
         lambda x: mpdiff(lambda t: (lambda y, i, q: y * i - q)(
             *colorsys.rgb_to_yiq(t, mpmath.mpf(0.5), mpmath.mpf(0.25))), x)),
    Case("colorsys hsv round trip (identity in g)", S.cs_hsv_round_trip, 0.7, lambda x: 1),
    # cmath, math
    Case("cmath.exp(1j x).real + cmath.sqrt(x + 2j).imag", S.cm_real_path, 0.7,
         lambda x: mpdiff(lambda t: mpmath.cos(t) + mpmath.im(mpmath.sqrt(mpmath.mpc(t, 2))), x)),
    Case("cmath log * sin at a complex point", S.cm_holomorphic, 1 + 1j,
         lambda z: (lambda w: mpmath.sin(w) / w + mpmath.log(w) * mpmath.cos(w))(
             mpmath.mpc(z.real, z.imag))),
    Case("cmath.polar", S.cm_phase_and_polar, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(t * t + 1) * mpmath.atan2(1, t), x)),
    Case("math.hypot, three arguments", S.m_hypot, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(17 * t * t + 9), x)),
    Case("math.dist", S.m_dist, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(t * t + (1 - 2 * t) ** 2), x)),
    Case("math.prod", S.m_prod, 0.7, lambda x: 6 * Fraction(x) + 3),
    Case("math.fsum", S.m_fsum, 0.7, lambda x: Fraction(2, 3) + 2 * Fraction(x)),
    Case("math.erf * lgamma + gamma", S.m_special, 0.7,
         lambda x: mpdiff(lambda t: mpmath.erf(t) * mpmath.loggamma(t + 1) + mpmath.gamma(t), x)),
    Case("math.atan2", S.m_atan2, 0.7, lambda x: mpdiff(lambda t: mpmath.atan2(t, 1 - t), x)),
    Case("math.log1p / math.expm1", S.m_log1p_expm1, 0.7,
         lambda x: mpdiff(lambda t: mpmath.log1p(t) / mpmath.expm1(t), x)),
    # fractions: exact
    Case("Fraction rational function", S.fr_rational, Fraction(2, 3),
         lambda q: ((3 * q ** 2 - Fraction(1, 3)) * (q + 1) - (q ** 3 - q / 3)) / (q + 1) ** 2,
         rel=0),
    Case("Fraction power series", S.fr_series, Fraction(1, 2),
         lambda q: sum(q ** (k - 1) for k in range(1, 8)), rel=0),
    Case("float(Fraction * x) ** 2", S.fr_mixed_float, 0.7, lambda x: 2 * Fraction(x) / 9),
    # random: the seeded draws themselves
    Case("x * Random(42).gauss(0, 1)", S.rnd_gauss_scale, 0.7,
         lambda x: random.Random(42).gauss(0.0, 1.0), rel=0),
    Case("Random(7).gauss(1, sigma) in sigma", S.rnd_gauss_sigma, 0.7,
         lambda x: random.Random(7).gauss(0.0, 1.0), rel=0),
    Case("Random.expovariate in lambda", S.rnd_expovariate, 1.5,
         lambda x: mpmath.log(1 - mpmath.mpf(random.Random(3).random())) / mpmath.mpf(x) ** 2),
    Case("a walk of Random.uniform(-x, x) steps", S.rnd_uniform_walk, 0.7,
         lambda x: _uniform_walk_derivative()),
    Case("Random.lognormvariate in mu", S.rnd_lognormvariate, 0.7,
         lambda x: random.Random(5).lognormvariate(x, 0.5)),
    Case("Random.shuffle of weights", S.rnd_shuffled_weights, 0.7, _shuffled_derivative),
    # containers and other modules
    Case("bisect.bisect index * x", S.bi_bisect_index, 1.2, lambda x: 1),
    Case("bisect.insort then read", S.bi_insort, 2.0, lambda x: 3),
    Case("heapq.nsmallest", S.hq_nsmallest, 0.7, lambda x: 2 * Fraction(x) + 1),
    Case("heapq.heappush / heappop", S.hq_push_pop, 0.7, lambda x: 2),
    Case("itertools.accumulate", S.it_accumulate, 0.7, lambda x: 3 + 2 * Fraction(x)),
    Case("itertools.pairwise", S.it_pairwise, 0.7, lambda x: 28 * Fraction(x) - 6),
    Case("itertools.starmap(operator.mul, zip(...))", S.it_starmap_dot, 0.7,
         lambda x: 5 + 2 * Fraction(x)),
    Case("itertools.product", S.it_product, 0.7, lambda x: 2 * Fraction(x) + 3),
    Case("itertools.combinations", S.it_combinations, 0.7, lambda x: 5),
    Case("functools.reduce", S.ft_reduce, 0.7, lambda x: 4 * Fraction(x) + 1),
    Case("functools.lru_cache Fibonacci polynomial", S.ft_lru_fibonacci_polynomial, 0.7,
         lambda x: mpdiff(lambda t: _fib_poly(6, t), x)),
    Case("dataclasses.replace / astuple", S.dc_replace, 0.7, lambda x: 3),
    Case("enum.Enum members with data", S.en_planet, 0.7,
         lambda x: mpdiff(lambda t: sum(_G * m / (r * t) ** 2 for m, r in _PLANETS), x)),
    Case("max(rows, key=operator.itemgetter(1))", S.op_itemgetter_sort, 1.6,
         lambda x: 2 * Fraction(x)),
    Case("map(operator.attrgetter('k'), ...)", S.op_attrgetter, 0.7, lambda x: 3),
    Case("copy.deepcopy of nested containers", S.cp_deepcopy, 0.7, lambda x: 4 * Fraction(x)),
    Case("collections.deque rotate / maxlen", S.co_deque, 0.7, lambda x: 3 * Fraction(x) ** 2),
    Case("OrderedDict.move_to_end then list(d.values())", S.co_ordereddict, 0.7, lambda x: 5),
    Case("sum(OrderedDict.values())", S.co_ordereddict_values, 0.7, lambda x: 5),
    Case("next(iter(OrderedDict.items()))", S.co_ordereddict_items, 0.7, lambda x: 5),
    Case("collections.namedtuple _replace / _asdict", S.co_namedtuple, 0.7,
         lambda x: 6 * Fraction(x)),
    Case("collections.Counter update", S.co_counter, 0.7, lambda x: 4),
    Case("collections.defaultdict(list) grouping", S.co_defaultdict_groups, 0.7,
         lambda x: 2 + 4 * Fraction(x)),
    Case("json round trip, compact (text: derivative 0)", S.js_round_trip, 0.7, lambda x: 0,
         rel=0),
    Case("json round trip, indented (text: derivative 0) + x", S.js_round_trip_indented, 0.7,
         lambda x: 1, rel=0),
]

RECIPES = [
    Case("Newton's square root", S.newton_sqrt, 2.0,
         lambda x: 1 / (2 * mpmath.sqrt(mpmath.mpf(x)))),
    Case("bisection alone: piecewise constant, derivative 0", S.bisection_root, 0.7,
         lambda x: 0, rel=0),
    Case("bisection + one Newton step: the implicit derivative", S.bisection_root_polished, 0.7,
         _implicit_cubic_root),
    Case("secant root of t - cos(x t)", S.secant_root, 0.8, _implicit_cos_fixed_point),
    Case("fixed-point iteration t = cos(x t)", S.fixed_point_cos, 0.8, _implicit_cos_fixed_point),
    Case("composite Simpson of exp(x t)", S.simpson_exp, 0.7,
         lambda x: mpdiff(lambda t: S.simpson_exp(t, exp=mpmath.exp), x)),
    Case("RK4 on y' = -a y, exact", S.rk4_decay, Fraction(3, 2), _rk4_decay_derivative, rel=0),
    Case("Horner, exact", S.horner_poly, Fraction(5, 3),
         lambda q: 12 * q ** 3 - Fraction(6, 7) * q ** 2 + 5, rel=0),
    Case("Lambert's continued fraction for tan", S.tan_continued_fraction, 0.7,
         lambda x: mpdiff(S.tan_continued_fraction, x)),
    Case("exp power series to convergence", S.exp_series, 0.7,
         lambda x: mpmath.exp(mpmath.mpf(x)), rel=1e-14),
    Case("Kahan summation", S.kahan_sum, 0.7,
         lambda x: sum(Fraction(1, k) for k in range(1, 50))),
    Case("Black-Scholes delta = N(d1)", S.black_scholes_call, 105.0,
         lambda s: mpmath.ncdf((mpmath.log(mpmath.mpf(s) / 100) + mpmath.mpf("0.05")
                                + mpmath.mpf(0.2) ** 2 / 2) / mpmath.mpf(0.2))),
    Case("Gaussian elimination, exact", S.solve_linear, Fraction(1, 2), _solve_derivative,
         rel=0),
    Case("Laplace determinant, exact", S.det_laplace, Fraction(1, 2), _det_derivative, rel=0),
    Case("trapezoid arc length", S.trapezoid_arc_length, 0.7,
         lambda x: mpdiff(lambda t: S.trapezoid_arc_length(t, sqrt=mpmath.sqrt), x)),
]

PEERS = [
    Case("DiffTests num2num_1", S.dt_num2num_1, 0.7,
         lambda x: mpdiff(lambda t: mpmath.tan(t) ** 2, x)),
    Case("DiffTests num2num_2", S.dt_num2num_2, 0.7,
         lambda x: mpdiff(lambda t: 2 * t + t ** mpmath.mpf(1.5), x)),
    Case("DiffTests num2num_3", S.dt_num2num_3, 0.7,
         lambda x: mpdiff(lambda t: mpmath.mpf(10.31) ** (2 * t) - t, x)),
    Case("DiffTests num2num_5", S.dt_num2num_5, 0.7,
         lambda x: mpdiff(lambda t: 1 / (1 + mpmath.exp(-t)), x)),
    Case("DiffTests rosenbrock gradient", S.dt_rosenbrock, _V, _rosenbrock_gradient, grad=True),
    Case("DiffTests vec2num_1 gradient", S.dt_vec2num_1, _V, _vec2num_1_gradient, grad=True),
    Case("DiffTests relu sum gradient", S.dt_vec2num_relu_sum, _V,
         lambda v: [1 if t > 0 else 0 for t in v], grad=True, rel=0),
    Case("autograd logsumexp gradient", S.ag_logsumexp, _V, _softmax, grad=True),
    Case("autograd softplus * tanh", S.ag_softplus_tanh, 0.7,
         lambda x: mpdiff(lambda t: mpmath.log1p(mpmath.exp(t)) * mpmath.tanh(t / 2), x)),
    Case("tangent while loop", S.tg_while_loop, 1.3, _while_loop_derivative),
    Case("tangent if/else", S.tg_if_else, 0.7,
         lambda x: mpdiff(lambda t: (-t) * mpmath.cos(-t), x)),
    Case("tangent nested function", S.tg_nested_function, 0.7,
         lambda x: mpdiff(lambda t: (lambda inner: inner(inner(t)))(
             lambda y: y * t + mpmath.sin(y)), x)),
]


PACKAGES = [
    Case("pint meter -> cm", P.pint_to_cm, 0.7, lambda x: 100, needs="pint"),
    Case("pint km/h -> m/s", P.pint_speed, 0.7, lambda x: Fraction(5, 36), needs="pint"),
    Case("pint m**2 -> cm**2", P.pint_area, 0.7, lambda x: 2 * Fraction(x) * 10 ** 4,
         needs="pint"),
    Case("pint degC -> degF", P.pint_offset_temperature, 0.7, lambda x: Fraction(9, 5),
         needs="pint"),
    Case("pint Quantity(x, 'm') / s * kg -> N*s", P.pint_quantity_math, 0.7,
         lambda x: 2 * Fraction(x) / 3, needs="pint"),
    Case("networkx dijkstra_path_length", P.nx_dijkstra_length, 0.7,
         lambda x: 3 + 2 * Fraction(x), needs="networkx"),
    Case("networkx bellman_ford_path_length", P.nx_bellman_ford_length, 0.7,
         lambda x: 3 + 2 * Fraction(x), needs="networkx"),
    Case("networkx minimum_spanning_tree weight", P.nx_mst_weight, 0.7,
         lambda x: 3 + 2 * Fraction(x), needs="networkx"),
    Case("networkx all_pairs_dijkstra_path_length", P.nx_all_pairs, 0.7,
         lambda x: 5 + 2 * Fraction(x), needs="networkx"),
    Case("more_itertools.dotproduct", P.mit_dotproduct, 0.7, lambda x: 5 + 2 * Fraction(x),
         needs="more_itertools"),
    Case("more_itertools.polynomial_eval", P.mit_polynomial_eval, 0.7,
         lambda x: 3 * Fraction(x) ** 2 - 8 * Fraction(x) - 17, needs="more_itertools"),
    Case("more_itertools.roundrobin", P.mit_roundrobin, 0.7, lambda x: 2 * Fraction(x),
         needs="more_itertools"),
    Case("more_itertools.windowed", P.mit_windowed_sums, 0.7, lambda x: 1,
         needs="more_itertools"),
    Case("more_itertools.convolve", P.mit_convolve, 0.7, lambda x: 2 * Fraction(x),
         needs="more_itertools"),
    Case("more_itertools.chunked means", P.mit_chunked_means, 0.7, lambda x: 2 + Fraction(x),
         needs="more_itertools"),
    Case("sortedcontainers.SortedList", P.sc_sortedlist, 0.7, lambda x: 10,
         needs="sortedcontainers"),
    Case("sortedcontainers.SortedKeyList(key=neg).add", P.sc_sortedkeylist, 0.7,
         lambda x: 200, needs="sortedcontainers"),
    Case("sortedcontainers.SortedDict", P.sc_sorteddict, 0.7, lambda x: 7 + 2 * Fraction(x),
         needs="sortedcontainers"),
    Case("uncertainties ufloat nominal value vs its own derivative", P.unc_nominal, 0.7,
         _uncertainties_derivative, needs="uncertainties",
         fails=refused("uncertainties' derivative coefficients are lambdas made by eval of "
                       "a string at import, whose source is kept nowhere")),
    Case("uncertainties std_dev in an input's std_dev", P.unc_std_dev, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt((mpmath.mpf(1.5) * t) ** 2
                                                + (2 * mpmath.mpf(0.3)) ** 2), x),
         needs="uncertainties"),
    Case("toolz.pipe", P.tz_pipe, 0.7, lambda x: mpdiff(lambda t: mpmath.sin(t * t) + t, x),
         needs="toolz"),
    Case("toolz.compose / reduce / map", P.tz_compose_reduce, 0.7,
         lambda x: mpdiff(lambda t: mpmath.exp(t / 2) + mpmath.exp(t), x), needs="toolz"),
    Case("toolz.merge_with(sum)", P.tz_merge_with, 0.7,
         lambda x: (1 + 2 * Fraction(x)) * (1 + Fraction(x)) + Fraction(x) + Fraction(x) ** 2,
         needs="toolz"),
    Case("toolz.accumulate", P.tz_accumulate, 0.7, lambda x: 2 * Fraction(x), needs="toolz"),
    Case("toolz.curried pipeline", P.tz_curried, 0.7, lambda x: 1 + 8 * Fraction(x),
         needs="toolz"),
]

EVERYDAY = [
    Case("OrderedDict LRU recipe: sum(cache.values())", S.lru_cache_total, 0.7,
         lambda x: 1 + 2 * Fraction(x)),
    Case("OrderedDict LRU recipe: popitem(last=False)", S.lru_evicted, 0.7, lambda x: 3),
    Case("match evaluator, x from the environment", S.match_evaluator, 0.7,
         lambda x: mpdiff(lambda t: t * t + mpmath.sin(3 * t), x)),
    Case("match evaluator, x inside the tree", S.match_evaluator_tree, 0.7,
         lambda x: 3 + mpmath.cos(mpmath.mpf(x))),
    Case("match x: case y: return y * 2", S.match_capture, 0.7, lambda x: 2),
    Case("match with class patterns (dataclasses)", S.match_class_patterns, 0.7,
         lambda x: 2 * mpmath.pi * mpmath.mpf(x) + 3),
    Case("OrderedDict.pop", S.od_pop, 0.7, lambda x: 3),
    Case("OrderedDict.copy", S.od_copy, 0.7, lambda x: 3),
    Case("OrderedDict([(key, x), ...])", S.od_from_pairs, 0.7, lambda x: 3),
    Case("OrderedDict.setdefault", S.od_setdefault, 0.7, lambda x: 3),
    Case("sum(ChainMap(...).values())", S.chainmap_values_sum, 0.7,
         lambda x: 1 + 2 * Fraction(x)),
    Case("operator.methodcaller('conjugate')", S.methodcaller_conjugate, 0.7, lambda x: 3),
    Case("Fraction(x).limit_denominator(1000) + x (piecewise constant + x)",
         S.fraction_limit_denominator, 0.7, lambda x: 1),
    Case("dict subclass __missing__ reading an attribute", S.dict_missing_attribute, 0.7,
         lambda x: 6),
    Case("dict subclass constructed with x, __missing__", S.dict_missing, 0.7, lambda x: 6),
    Case("yield from: the coroutine averager's return value", S.yield_from_averager, 0.7,
         lambda x: (1 + 2 * Fraction(x)) / 3),
    Case("a dataclass defined inside the function", S.local_dataclass, 0.7, lambda x: 3),
    Case("functools.singledispatch", S.singledispatch_float, 0.7, lambda x: 3),
    Case("functools.cached_property", S.cached_property_area, 0.7, lambda x: 4 * Fraction(x)),
    Case("contextlib.contextmanager", S.contextmanager_scaled, 0.7, lambda x: 3),
    Case("asyncio.run of asyncio.gather", S.asyncio_gather, 0.7, lambda x: 2 + 2 * Fraction(x)),
    Case("collections.ChainMap", S.chainmap_lookup, 0.7, lambda x: 1 + 2 * Fraction(x)),
    Case("itertools.groupby totals", S.groupby_totals, 0.7, lambda x: 1 + 2 * Fraction(x)),
    Case("itertools.zip_longest", S.zip_longest_dot, 0.7, lambda x: 2 * Fraction(x)),
    Case("heapq.merge", S.heapq_merge_sorted, 0.7, lambda x: 3),
    Case("itertools.islice(itertools.count(x, 0.5), 3)", S.itertools_count_islice, 0.7,
         lambda x: 3),
    Case("[x] + [2.0, x]", S.list_concat, 0.7, lambda x: 2),
    Case("IntEnum member * x", S.intenum_coefficient, 0.7, lambda x: 2),
    Case("types.SimpleNamespace(a=x)", S.simple_namespace, 0.7, lambda x: 3),
    Case("dict | dict", S.dict_union, 0.7, lambda x: 1 + 2 * Fraction(x)),
    Case("pickle round trip of [x]", S.pickle_round_trip, 0.7, lambda x: 3,
         fails=refused("pickle.dumps turns x into bytes, which carry no derivative "
                       "(the way out, copy.deepcopy, is tested in test_ad_number_methods)")),
    Case("Random.triangular(0, x, 0.2 x)", S.rnd_triangular, 0.7,
         lambda x: random.Random(3).triangular(0.0, 1.0, 0.2)),
    Case("Random.gammavariate in beta", S.rnd_gammavariate, 0.7,
         lambda x: random.Random(3).gammavariate(2.5, 1.0)),
    Case("Random.choices of multiples of x", S.rnd_choices, 0.7,
         lambda x: random.Random(3).choices([1, 2, 3], weights=[1, 1, 1])[0], rel=0),
    Case("Random.sample of multiples of x", S.rnd_sample, 0.7,
         lambda x: sum(random.Random(3).sample([1, 2, 3, 0], 2)), rel=0),
    Case("Random.paretovariate in alpha", S.rnd_paretovariate, 0.7,
         lambda x: (lambda u, a: u ** (-1 / a) * mpmath.log(u) / a ** 2)(
             1 - mpmath.mpf(random.Random(3).random()), mpmath.mpf(x))),
    Case("Random.weibullvariate in alpha", S.rnd_weibullvariate, 0.7,
         lambda x: random.Random(3).weibullvariate(1.0, 1.5)),
    Case("statistics.median_low", S.st_median_low, 0.7, lambda x: 3),
    Case("statistics.stdev with xbar", S.st_stdev_xbar, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt(sum((v - t) ** 2 for v in (1, 2, 4)) / 2), x)),
    Case("statistics.pvariance with mu", S.st_pvariance_mu, 0.7,
         lambda x: -2 * (7 - 3 * Fraction(x)) / 3),
    Case("NormalDist.zscore", S.st_normal_zscore, 0.7, lambda x: Fraction(1, 2)),
    Case("NormalDist.overlap", S.st_normal_overlap, 0.7,
         lambda x: mpdiff(lambda t: 2 * mpmath.ncdf(-t / 2), x)),
    Case("NormalDist.samples(seed=1)", S.st_normal_samples, 0.7, lambda x: 3),
    Case("math.sumprod (3.12+)", S.m_sumprod, 0.7, lambda x: 5,
         marks=[pytest.mark.skipif(_PY < (3, 12), reason="math.sumprod is new in 3.12")]),
    Case("statistics.fmean with weights", S.st_fmean_weights, 0.7,
         lambda x: mpdiff(lambda t: (t + 2) / (t + 1), x)),
]

def _rk4_decay_second_derivative(a):
    h = Fraction(1, 8)
    z = -a * h
    r = 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24
    dr = 1 + z + z ** 2 / 2 + z ** 3 / 6
    ddr = 1 + z + z ** 2 / 2
    return h ** 2 * (56 * r ** 6 * dr ** 2 + 8 * r ** 7 * ddr)


def _rosenbrock_hessian(v):
    v = [Fraction(t) for t in v]
    n = len(v)
    h = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n - 1):
        h[i][i] += 1200 * v[i] ** 2 - 400 * v[i + 1] + 2
        h[i][i + 1] += -400 * v[i]
        h[i + 1][i] += -400 * v[i]
        h[i + 1][i + 1] += 200
    return h


def _softmax_jacobian(v):
    p = _softmax(v)
    return [[(p[i] if i == j else 0) - p[i] * p[j] for j in range(len(v))]
            for i in range(len(v))]


def _cos_fixed_point(x):
    return mpmath.findroot(lambda t: t - mpmath.cos(x * t), 0.7)


# Second derivatives by nesting D (and hessian): each level's tangent must survive the
# real code's containers and calls.
SECOND = [
    Case("Black-Scholes gamma", S.black_scholes_call, 105.0,
         lambda s: (lambda d1: mpmath.npdf(d1) / (mpmath.mpf(s) * mpmath.mpf(0.2)))(
             (mpmath.log(mpmath.mpf(s) / 100) + mpmath.mpf("0.05") + mpmath.mpf(0.2) ** 2 / 2)
             / mpmath.mpf(0.2)), order=2),
    Case("Newton's square root, second", S.newton_sqrt, 2.0,
         lambda x: mpdiff(mpmath.sqrt, x, 2), order=2),
    Case("RK4 on y' = -a y, second, exact", S.rk4_decay, Fraction(3, 2),
         _rk4_decay_second_derivative, rel=0, order=2),
    Case("statistics.variance, second", S.st_variance, 0.7,
         lambda x: mpdiff(lambda t: _var([1, t, 2 * t, 4]), x, 2), order=2),
    Case("statistics.correlation, second", S.st_correlation, 0.7,
         lambda x: mpdiff(lambda t: _corr([1, 2, 3, 4], [t, t * t, 3, 5]), x, 2), order=2),
    Case("match evaluator, second", S.match_evaluator, 0.7,
         lambda x: 2 - 9 * mpmath.sin(3 * mpmath.mpf(x)), order=2),
    Case("Lambert's continued fraction for tan, second", S.tan_continued_fraction, 0.7,
         lambda x: mpdiff(S.tan_continued_fraction, x, 2), order=2),
    Case("composite Simpson, second", S.simpson_exp, 0.7,
         lambda x: mpdiff(lambda t: S.simpson_exp(t, exp=mpmath.exp), x, 2), order=2),
    Case("fixed-point iteration t = cos(x t), second", S.fixed_point_cos, 0.8,
         lambda x: mpdiff(_cos_fixed_point, x, 2), rel=1e-10, order=2),
    Case("functools.lru_cache Fibonacci polynomial, second", S.ft_lru_fibonacci_polynomial,
         0.7, lambda x: mpdiff(lambda t: _fib_poly(6, t), x, 2), order=2),
    Case("collections.deque rotate / maxlen, second", S.co_deque, 0.7,
         lambda x: 6 * Fraction(x), order=2),
    Case("rolling mean in a deque(maxlen=3), first", S.rolling_mean, 0.7,
         lambda x: (2 * Fraction(x) + 3 * Fraction(x) ** 2) / 3),
    Case("rolling mean in a deque(maxlen=3), second", S.rolling_mean, 0.7,
         lambda x: (2 + 6 * Fraction(x)) / 3, order=2),
    Case("toolz.merge_with(sum), second", P.tz_merge_with, 0.7, lambda x: 4 + 6 * Fraction(x),
         needs="toolz", order=2),
    Case("toolz.pipe, second", P.tz_pipe, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sin(t * t) + t, x, 2), needs="toolz", order=2),
    Case("uncertainties std_dev, second", P.unc_std_dev, 0.7,
         lambda x: mpdiff(lambda t: mpmath.sqrt((mpmath.mpf(1.5) * t) ** 2
                                                + (2 * mpmath.mpf(0.3)) ** 2), x, 2),
         needs="uncertainties", order=2),
    Case("RPN calculator (list as a stack), first", S.rpn_polynomial, 0.7,
         lambda x: 2 * Fraction(x) + 3 + 1 / Fraction(x) ** 2),
    Case("RPN calculator (list as a stack), second", S.rpn_polynomial, 0.7,
         lambda x: 2 - 2 / Fraction(x) ** 3, order=2),
    Case("plain-Python Dijkstra (sorted list as the queue), first", S.dijkstra_length, 0.7,
         lambda x: 3 + 2 * Fraction(x)),
    Case("plain-Python Dijkstra (sorted list as the queue), second", S.dijkstra_length, 0.7,
         lambda x: 2, order=2),
    Case("breadth-first walk with a deque, first", S.bfs_weighted_sum, 0.7,
         lambda x: 1 + 4 * Fraction(x) + 9 * Fraction(x) ** 2),
    Case("breadth-first walk with a deque, second", S.bfs_weighted_sum, 0.7,
         lambda x: 4 + 18 * Fraction(x), order=2),
    Case("more_itertools.partition, first", P.mit_partition, 0.7, lambda x: 10 + 20 * Fraction(x),
         needs="more_itertools"),
    Case("more_itertools.partition, second", P.mit_partition, 0.7, lambda x: 20, order=2,
         needs="more_itertools"),
    Case("more_itertools.islice_extended, first", P.mit_islice_extended, 0.7,
         lambda x: 2 * Fraction(x), needs="more_itertools"),
    Case("more_itertools.islice_extended, second", P.mit_islice_extended, 0.7, lambda x: 2,
         order=2, needs="more_itertools"),
    Case("DiffTests rosenbrock hessian", S.dt_rosenbrock, [0.5, 1.5, 2.0],
         _rosenbrock_hessian, grad=True, order=2),
    Case("autograd logsumexp hessian", S.ag_logsumexp, [0.5, 1.5, 2.0], _softmax_jacobian,
         grad=True, order=2),
]

def _pvariance_exact_derivative(x):
    m = (x + x * x + 3) / 3
    return (2 * x + 4 * x ** 3) / 3 - 2 * m * (1 + 2 * x) / 3


# At exact points: statistics computes in Fractions, so the derivative is exact too.
EXACT = [
    Case("statistics.mean at a Fraction", S.st_mean_exact, Fraction(7, 10),
         lambda x: (1 + 2 * x) / 3, rel=0),
    Case("statistics.variance at a Fraction", S.st_variance_exact, Fraction(7, 10),
         lambda x: (10 * x - (30 + 18 * x) / 4) / 3, rel=0),
    Case("statistics.pvariance at a Fraction", S.st_pvariance_exact, Fraction(7, 10),
         _pvariance_exact_derivative, rel=0),
    Case("statistics.median at a Fraction", S.st_median_exact, Fraction(7, 10),
         lambda x: Fraction(1, 2), rel=0),
    Case("itertools.pairwise at a Fraction (float data: a float result)", S.it_pairwise,
         Fraction(7, 10), lambda x: 28 * x - 6),
    Case("copy.deepcopy at a Fraction", S.cp_deepcopy, Fraction(7, 10), lambda x: 4 * x,
         rel=0),
    Case("dataclasses.replace / astuple at a Fraction", S.dc_replace, Fraction(7, 10),
         lambda x: 3, rel=0),
    Case("NormalDist.from_samples at a Fraction", S.st_from_samples_stdev, Fraction(7, 10),
         lambda x: mpdiff(lambda t: mpmath.sqrt(_var([t, 1, 2])), x)),
]

def mp_jacobian(g: Callable, v: list) -> list:
    """d g_i / d v_j by mpmath at 50 digits; g takes and returns lists of mpf."""
    with mpmath.workdps(50):
        v = [mpmath.mpf(t) for t in v]
        n = len(g(v))

        def partial(i, j):
            return mpmath.diff(lambda t: g(v[:j] + [t] + v[j + 1:])[i], v[j])

        return [[partial(i, j) for j in range(len(v))] for i in range(n)]


def _mp_regression(v):
    xs = [1, 2, 3]
    slope = _cov(xs, v) / _var(xs)
    return [slope, _mean(v) - slope * _mean(xs)]


def _mp_spherical(v):
    x, y, z = v
    r = mpmath.sqrt(x * x + y * y + z * z)
    return [r, mpmath.acos(z / r), mpmath.atan2(y, x)]


JACOBIANS = [
    Case("jacobian of colorsys.rgb_to_hsv", S.jac_rgb_to_hsv, [0.7, 0.3, 0.2],
         lambda v: mp_jacobian(lambda w: list(colorsys.rgb_to_hsv(*w)), v), jac=True),
    Case("jacobian of colorsys.rgb_to_yiq", S.jac_rgb_to_yiq, [0.7, 0.3, 0.2],
         lambda v: mp_jacobian(lambda w: list(colorsys.rgb_to_yiq(*w)), v), jac=True),
    Case("jacobian of cmath.polar", S.jac_polar, [0.7, 0.3],
         lambda v: mp_jacobian(lambda w: [mpmath.hypot(*w), mpmath.atan2(w[1], w[0])], v),
         jac=True),
    Case("jacobian of statistics.linear_regression", S.jac_linear_regression, [0.7, 2.0, 2.5],
         lambda v: mp_jacobian(_mp_regression, v), jac=True),
    Case("jacobian of Cartesian to spherical", S.jac_spherical, [0.7, 0.3, 0.2],
         lambda v: mp_jacobian(_mp_spherical, v), jac=True),
]

def _mpc(z):
    return mpmath.mpc(z.real, z.imag)


def mpdiff_complex(g: Callable, z: complex) -> mpmath.mpc:
    """The complex derivative of a holomorphic g at z, by mpmath at 50 digits."""
    with mpmath.workdps(50):
        return mpmath.diff(g, _mpc(z))


_Z = 0.6 + 0.3j

# Holomorphic real code at a complex point: the complex derivative.
COMPLEX = [
    Case("Lambert's continued fraction at a complex point", S.tan_continued_fraction, _Z,
         lambda z: mpmath.sec(_mpc(z)) ** 2),
    Case("exp power series at a complex point", S.exp_series, _Z,
         lambda z: mpmath.exp(_mpc(z)), rel=1e-14),
    Case("composite Simpson of cmath.exp(z t)", S.simpson_cexp, _Z,
         lambda z: mpdiff_complex(lambda w: S.simpson_cexp(w, exp=mpmath.exp), z)),
    Case("Horner at a complex point", S.horner_float, _Z,
         lambda z: (lambda w: 12 * w ** 3 - mpmath.mpf(1.5) * w ** 2 + 5)(_mpc(z))),
]

def mp_gradient(g: Callable, v: list) -> list:
    return mp_jacobian(lambda w: [g(w)], v)[0]


def mp_hessian(g: Callable, v: list) -> list:
    with mpmath.workdps(50):
        v = [mpmath.mpf(t) for t in v]
        n = len(v)

        def entry(i, j):
            orders = [0] * n
            orders[i] += 1
            orders[j] += 1
            return mpmath.diff(lambda *w: g(list(w)), v, tuple(orders))

        return [[entry(i, j) for j in range(n)] for i in range(n)]


_DATA = [0.7, 1.9, 2.6, 4.3]

# Gradients and hessians over a data vector.
GRADIENTS = [
    Case("gradient of statistics.stdev", S.gr_stdev, _DATA,
         lambda v: mp_gradient(lambda w: mpmath.sqrt(_var(w)), v), grad=True),
    Case("hessian of statistics.stdev", S.gr_stdev, _DATA,
         lambda v: mp_hessian(lambda w: mpmath.sqrt(_var(w)), v), grad=True, order=2,
         rel=1e-10),
    Case("gradient of statistics.correlation", S.gr_correlation, _DATA,
         lambda v: mp_gradient(lambda w: _corr([1, 2, 3, 4], w), v), grad=True),
    Case("gradient of statistics.geometric_mean", S.gr_geometric_mean, _DATA,
         lambda v: mp_gradient(lambda w: mpmath.root(mpmath.fprod(w), len(w)), v), grad=True),
    Case("gradient of statistics.harmonic_mean", S.gr_harmonic_mean, _DATA,
         lambda v: mp_gradient(lambda w: len(w) / sum(1 / t for t in w), v), grad=True),
    Case("gradient of math.hypot(*v)", S.gr_hypot, _DATA,
         lambda v: mp_gradient(lambda w: mpmath.sqrt(sum(t * t for t in w)), v), grad=True),
    Case("hessian of math.prod", S.gr_prod, _DATA,
         lambda v: [[0 if i == j else math.prod(Fraction(t) for k, t in enumerate(v)
                                                 if k not in (i, j))
                     for j in range(len(v))] for i in range(len(v))],
         grad=True, order=2),
]

CASES = (STDLIB + RECIPES + PEERS + PACKAGES + EVERYDAY + SECOND + EXACT + JACOBIANS + COMPLEX
         + GRADIENTS)


def _param(case: Case):
    marks = list(case.marks)
    if case.fails:
        kind, error, reason = case.fails
        marks.append(pytest.mark.xfail(strict=True, raises=error, reason=f"{kind}: {reason}"))
    return pytest.param(case, id=case.id, marks=marks)


def _close(got, ref, rel):
    if rel == 0:
        return got == ref
    if isinstance(got, complex) or isinstance(ref, (complex, mpmath.mpc)):
        return abs(mpmath.mpc(got) - mpmath.mpc(ref)) <= rel * max(1, abs(ref))
    return abs(mpmath.mpf(got) - mpmath.mpf(ref)) <= rel * max(1, abs(mpmath.mpf(ref)))


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_real_code_derivative_matches_the_reference(case):
    if case.needs:
        pytest.importorskip(case.needs)
    if case.jac:
        got = [g for row in jacobian(case.f, list(case.x)) for g in row]
        ref = [r for row in case.ref(case.x) for r in row]
        assert len(got) == len(ref)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert _close(g, r, case.rel), (case.id, i, g, r)
        return
    if case.grad:
        got = (hessian if case.order == 2 else gradient)(case.f, list(case.x))
    else:
        got = D(D(case.f), case.x) if case.order == 2 else D(case.f, case.x)
    ref = case.ref(case.x)
    if case.grad and case.order == 2:
        got = [g for row in got for g in row]
        ref = [r for row in ref for r in row]
    if case.grad:
        assert len(got) == len(ref)
        for i, (g, r) in enumerate(zip(got, ref)):
            assert _close(g, r, case.rel), (case.id, i, g, r)
    else:
        assert _close(got, ref, case.rel), (case.id, got, ref)


def test_the_suite_is_large_enough():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


def test_exact_points_give_exact_tangent_types():
    """At a Fraction point the recipes' derivatives are Fractions, not floats."""
    assert type(D(S.rk4_decay, Fraction(3, 2))) is Fraction
    assert type(D(S.horner_poly, Fraction(5, 3))) is Fraction


# The references checked without `D`: a central difference of the plain function agrees
# with each (to 1e-5), so an xfail's reference is right too. The exceptions are
# conventions, not calculus: bisection alone is piecewise constant in x (derivative 0)
# on a grid finer than any difference step, while the root it approximates moves; text
# carries no derivative (README), so a json round trip is a constant to `D`.
_NOT_SMOOTH_AT_STEP = {"bisection alone: piecewise constant, derivative 0",
                       "json round trip, compact (text: derivative 0)",
                       "json round trip, indented (text: derivative 0) + x"}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES
                                  if c.id not in _NOT_SMOOTH_AT_STEP])
def test_the_reference_agrees_with_a_central_difference(case):
    if case.needs:
        pytest.importorskip(case.needs)
    ref = case.ref(case.x)
    if case.jac:
        for i, row in enumerate(ref):
            for j, r in enumerate(row):
                h = 1e-6
                up, down = list(case.x), list(case.x)
                up[j] += h
                down[j] -= h
                fd = (case.f(up)[i] - case.f(down)[i]) / (2 * h)
                assert abs(fd - float(r)) <= 1e-5 * max(1, abs(float(r))), (i, j, fd, r)
        return
    if case.grad and case.order == 2:
        for i, row in enumerate(ref):
            for j, r in enumerate(row):
                h = 1e-4
                def at(di, dj):
                    v = list(case.x)
                    v[i] += di * h
                    v[j] += dj * h
                    return case.f(v)
                fd = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)
                assert abs(fd - float(r)) <= 1e-4 * max(1, abs(float(r))), (i, j, fd, r)
        return
    if case.grad:
        for i, r in enumerate(ref):
            h = 1e-6
            up, down = list(case.x), list(case.x)
            up[i] += h
            down[i] -= h
            fd = (case.f(up) - case.f(down)) / (2 * h)
            assert abs(fd - float(r)) <= 1e-5 * max(1, abs(float(r))), (i, fd, r)
        return
    if case.order == 2:
        h = Fraction(1, 10 ** 4) if isinstance(case.x, Fraction) else 1e-4
        fd = (case.f(case.x + h) - 2 * case.f(case.x) + case.f(case.x - h)) / h ** 2
        assert abs(float(fd) - float(ref)) <= 1e-4 * max(1, abs(float(ref))), (fd, ref)
        return
    h = Fraction(1, 10 ** 6) if isinstance(case.x, Fraction) else 1e-6
    fd = (case.f(case.x + h) - case.f(case.x - h)) / (2 * h)
    ref = complex(ref) if isinstance(case.x, complex) else float(ref)
    assert abs(complex(fd) - ref) <= 1e-5 * max(1, abs(ref)), (fd, ref)
