"""Rules for the `statistics` module.

Every function takes its data as an iterable, so each is a model (run in the
context) that unpacks the data into a variadic helper: a number helper with a
`defjvp_all` rule whose value is the `statistics` function itself on the plain
values, or, for the functions that pick elements (medians, quantiles, modes), a
constant helper giving the positions of the picked elements, which the model
then takes from the data, so each picked element brings its own tangent:

* `median`, `median_low`, `median_high`, `quantiles`: the elements at the sorted
  positions `statistics` uses, found by sorting positions with Python's stable
  sort, so ties pick the very elements `sorted(data)` puts there; the even median
  and the quantiles interpolate them with `statistics`' own expression.
* `mode`, `multimode`: the value `statistics` returns is the first occurrence of
  the (each) most common value; it brings its tangent, as `max` does. That is
  the derivative where the tied copies move together (`mode([x, x, 1])` is `x`,
  derivative 1); copies that move apart break the tie, where there is none.
* `median_grouped`: the median element's tangent, and the interval's.

The value is exactly what the `statistics` function returns; its exceptions
are its own. Data holding other objects than numbers (strings, Decimals) runs
the `statistics` function's own code in the context, as if it had no rule.
"""

import math
import statistics

from ad._numbers import SCALARS
from ad._rules._support import body, over
from ad._rules._table import defconstant, defjvp, defjvp_all, defmodel


_mean, _fmean, _geometric, _harmonic, _grouped, _variance, _pvariance, _stdev, _pstdev, \
    _covariance, _correlation, _regression = map(body, (
        statistics.mean, statistics.fmean, statistics.geometric_mean,
        statistics.harmonic_mean, statistics.median_grouped, statistics.variance,
        statistics.pvariance, statistics.stdev, statistics.pstdev, statistics.covariance,
        statistics.correlation, statistics.linear_regression))
_median_body, _multimode_body, _quantiles_body = map(body, (
    statistics.median, statistics.multimode, statistics.quantiles))


# Number helpers: the value is the statistics function on the plain values.

def mean(*xs):
    return _mean(xs)


def fmean(*xs):
    return _fmean(xs)


def fmean_weighted(n, *c):
    return _fmean(c[:n], c[n:])


def geometric_mean(*xs):
    return _geometric(xs)


def harmonic_mean(*xs):
    return _harmonic(xs)


def harmonic_mean_weighted(n, *c):
    return _harmonic(c[:n], c[n:])


def median_grouped(interval, *xs):
    return _grouped(xs, interval)


def spread(sample, root, about, c, *xs):
    """variance (sample), pvariance, stdev (sample, root), pstdev (root); about `c`
    when `about`, else about the mean."""
    f = (_stdev if sample else _pstdev) if root else (_variance if sample else _pvariance)
    return f(xs, c) if about else f(xs)


def covariance(n, m, *c):
    return _covariance(c[:n], c[n:])


def correlation(n, m, *c):
    return _correlation(c[:n], c[n:])


def slope(n, m, proportional, *c):
    return _regression(c[:n], c[n:], proportional=proportional).slope


def intercept(n, m, proportional, *c):
    return _regression(c[:n], c[n:], proportional=proportional).intercept


# Constant helpers: positions of the elements a function picks, on plain numbers.

def _order(xs):
    """Positions in the order `sorted(xs)` puts the elements (both sorts are stable)."""
    return sorted(range(len(xs)), key=xs.__getitem__)


def _first(xs, value):
    """Where `value` first occurs in `xs`: what a dict (`Counter`) keeps as its key."""
    return next(i for i, x in enumerate(xs) if x is value or x == value)


def median_at(*xs):
    statistics.median(xs)  # its exceptions
    order, n = _order(xs), len(xs)
    return (order[n // 2],) if n % 2 else (order[n // 2 - 1], order[n // 2])


def median_low_at(*xs):
    statistics.median_low(xs)  # its exceptions
    return _order(xs)[(len(xs) - 1) // 2]


def median_high_at(*xs):
    statistics.median_high(xs)  # its exceptions
    return _order(xs)[len(xs) // 2]


def mode_at(*xs):
    return _first(xs, statistics.mode(xs))


def multimode_at(*xs):
    return [_first(xs, v) for v in statistics.multimode(xs)]


def quantiles_at(n, inclusive, *xs):
    """(position, position, delta) of each cut point, interpolated as
    `(data[a] * (n - delta) + data[b] * delta) / n`."""
    statistics.quantiles(xs, n=n, method="inclusive" if inclusive else "exclusive")
    order, ld = _order(xs), len(xs)
    plan = []
    for i in range(1, n):
        if inclusive:
            j, delta = divmod(i * (ld - 1), n)
            plan.append((order[j], order[j + 1], delta))
        else:
            j = min(max(i * (ld + 1) // n, 1), ld - 1)
            plan.append((order[j - 1], order[j], i * (ld + 1) - j * n))
    return plan


# Models: what the statistics functions compute, as the context runs it. Data of
# other objects than numbers runs the function's own code instead (`body`).

def _numbers(data):
    return all(type(x) in SCALARS for x in data)


def _picked(f, at):
    """The model of `f`, which returns the element at the position `at` gives."""
    code = body(f)

    def model(data):
        data = list(data)
        return data[at(*data)] if _numbers(data) else code(data)
    return model


def _multimode(data):
    data = list(data)
    if not _numbers(data):
        return _multimode_body(data)
    return [data[i] for i in multimode_at(*data)]


def _median(data):
    data = list(data)
    if not _numbers(data):
        return _median_body(data)
    at = median_at(*data)
    return data[at[0]] if len(at) == 1 else (data[at[0]] + data[at[1]]) / 2


def _quantiles(data, *, n=4, method="exclusive"):
    data = list(data)
    if method not in ("exclusive", "inclusive") or not _numbers(data) or type(n) is not int:
        return _quantiles_body(data, n=n, method=method)
    return [(data[a] * (n - delta) + data[b] * delta) / n
            for a, b, delta in quantiles_at(n, method == "inclusive", *data)]


def _fmean_model(data, weights=None):
    data = list(data)
    if weights is None:
        return fmean(*data)
    return fmean_weighted(len(data), *data, *weights)


def _harmonic_model(data, weights=None):
    data = list(data)
    if weights is None:
        return harmonic_mean(*data)
    return harmonic_mean_weighted(len(data), *data, *weights)


def _regression_model(x, y, /, *, proportional=False):
    n, m, proportional = len(x), len(y), bool(proportional)
    return statistics.LinearRegression(
        slope=slope(n, m, proportional, *x, *y),
        intercept=0.0 if proportional else intercept(n, m, proportional, *x, *y))


# Tangents.

def _sorted_positions(xs):
    """Where the sorted data's elements come from (a constant in the context)."""
    return _order(xs)


def _bisect(data, x):
    """`bisect_left(data, x)` and `bisect_right(data, x, lo=...)`, as
    `median_grouped` finds the median's run of equal values."""
    lo, hi = 0, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if data[mid] < x else (lo, mid)
    i, lo, hi = lo, lo, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if x < data[mid] else (mid + 1, hi)
    return i, lo


def _grouping(interval, *xs):
    """(position of the median element, d value / d interval)."""
    order, n = _order(xs), len(xs)
    i, j = _bisect([xs[k] for k in order], xs[order[n // 2]])
    return order[n // 2], (n / 2 - i) / (j - i) - 0.5


def _dgrouped(gs, ans, interval, *xs):
    at, dinterval = _grouping(interval, *xs)
    return float(gs[1 + at]) + float(gs[0]) * dinterval


def _dmoments(gs, xs, c):
    """d sum((x - c)**2): 2 sum((x - c) (dx - dc))."""
    return 2 * sum((x - c) * (g - gs[0]) for g, x in zip(gs[1:], xs))


def _dspread(gs, ans, sample, root, about, c, *xs):
    dss = _dmoments(gs[3:], xs, c if about else statistics.mean(xs))
    dvar = dss / (len(xs) - 1 if sample else len(xs))
    return over(dvar, 2 * ans) if root else dvar


def _dharmonic(gx, gw, ans, xs, ws):
    """H = W / S with W = sum(w), S = sum(w / x) over the nonzero weights; where an
    x is 0 (H is 0 there), the one-sided derivative W / sum(w / dx) over those x."""
    zeros = [(w, g) for x, w, g in zip(xs, ws, gx) if x == 0 and w]
    total = sum(ws)
    if zeros:
        if any(g == 0 for w, g in zeros):
            return ans * 0
        return total / sum(w / g for w, g in zeros)
    dtotal = sum(gw)
    s = sum(w / x for x, w in zip(xs, ws) if w)
    ds = sum(dw / x - w * g / (x * x) for x, w, g, dw in zip(xs, ws, gx, gw) if x != 0)
    return (dtotal - ans * ds) / s


def _centred(c):
    mean = math.fsum(c) / len(c)
    return [v - mean for v in c]


def _dcovariance(gs, ans, n, m, *c):
    dx, dy = _centred(c[:n]), _centred(c[n:])
    return math.fsum([*(g * d for g, d in zip(gs[2:n + 2], dy)),
                      *(g * d for g, d in zip(gs[n + 2:], dx))]) / (n - 1)


def _dcorrelation(gs, ans, n, m, *c):
    dx, dy = _centred(c[:n]), _centred(c[n:])
    gx, gy = gs[2:n + 2], gs[n + 2:]
    sxx, syy = math.fsum(d * d for d in dx), math.fsum(d * d for d in dy)
    dsxy = math.fsum([*(g * d for g, d in zip(gx, dy)), *(g * d for g, d in zip(gy, dx))])
    dsxx = 2 * math.fsum(g * d for g, d in zip(gx, dx))
    dsyy = 2 * math.fsum(g * d for g, d in zip(gy, dy))
    return dsxy / math.sqrt(sxx * syy) - ans * (dsxx / sxx + dsyy / syy) / 2


def _dslope(gs, n, proportional, c):
    """(slope, d slope) of the least squares line of c[n:] on c[:n]."""
    x, y, gx, gy = c[:n], c[n:], gs[3:n + 3], gs[n + 3:]
    dx, dy = (x, y) if proportional else (_centred(x), _centred(y))
    sxy, sxx = math.fsum(a * b for a, b in zip(dx, dy)), math.fsum(a * a for a in dx)
    dsxy = math.fsum([*(g * d for g, d in zip(gx, dy)), *(g * d for g, d in zip(gy, dx))])
    dsxx = 2 * math.fsum(g * d for g, d in zip(gx, dx))
    return sxy / sxx, (dsxy - sxy / sxx * dsxx) / sxx


def _dintercept(gs, ans, n, m, proportional, *c):
    b, db = _dslope(gs, n, proportional, c)
    return math.fsum(gs[n + 3:]) / n - db * (math.fsum(c[:n]) / n) - b * math.fsum(gs[3:n + 3]) / n


defmodel(statistics.mean, lambda data: mean(*data))
defmodel(statistics.fmean, _fmean_model)
defmodel(statistics.geometric_mean, lambda data: geometric_mean(*data))
defmodel(statistics.harmonic_mean, _harmonic_model)
defmodel(statistics.median, _median)
defmodel(statistics.median_low, _picked(statistics.median_low, median_low_at))
defmodel(statistics.median_high, _picked(statistics.median_high, median_high_at))
defmodel(statistics.median_grouped, lambda data, interval=1.0: median_grouped(interval, *data))
defmodel(statistics.mode, _picked(statistics.mode, mode_at))
defmodel(statistics.multimode, _multimode)
defmodel(statistics.quantiles, _quantiles)
defmodel(statistics.pvariance, lambda data, mu=None: spread(
    False, False, mu is not None, 0 if mu is None else mu, *data))
defmodel(statistics.variance, lambda data, xbar=None: spread(
    True, False, xbar is not None, 0 if xbar is None else xbar, *data))
defmodel(statistics.pstdev, lambda data, mu=None: spread(
    False, True, mu is not None, 0 if mu is None else mu, *data))
defmodel(statistics.stdev, lambda data, xbar=None: spread(
    True, True, xbar is not None, 0 if xbar is None else xbar, *data))
defmodel(statistics.covariance, lambda x, y, /: covariance(len(x), len(y), *x, *y))
defmodel(statistics.correlation, lambda x, y, /: correlation(len(x), len(y), *x, *y))
defmodel(statistics.linear_regression, _regression_model)

# sqrt(n / m), correctly rounded, for stdev's exact sums (`NormalDist.from_samples`)
defjvp(statistics._float_sqrt_of_frac, lambda g, ans, n, m: over(g / m, 2 * ans),
       lambda g, ans, n, m: -(g / m) * ans / 2)

defjvp_all(mean, lambda gs, ans, *xs: sum(gs) / len(xs))
defjvp_all(fmean, lambda gs, ans, *xs: math.fsum(gs) / len(xs))
defjvp_all(fmean_weighted, lambda gs, ans, n, *c: math.fsum(
    [w * g + (x - ans) * gw for x, w, g, gw in zip(c[:n], c[n:], gs[1:n + 1], gs[n + 1:])])
    / math.fsum(c[n:]))
defjvp_all(geometric_mean, lambda gs, ans, *xs: ans * math.fsum(
    [g / x for g, x in zip(gs, xs)]) / len(xs))
defjvp_all(harmonic_mean, lambda gs, ans, *xs: _dharmonic(
    gs, [0] * len(xs), ans, xs, [1] * len(xs)))
defjvp_all(harmonic_mean_weighted, lambda gs, ans, n, *c: _dharmonic(
    gs[1:n + 1], gs[n + 1:], ans, c[:n], c[n:]))
defjvp_all(median_grouped, _dgrouped)
defjvp_all(spread, _dspread)
defjvp_all(covariance, _dcovariance)
defjvp_all(correlation, _dcorrelation)
defjvp_all(slope, lambda gs, ans, n, m, proportional, *c: _dslope(gs, n, proportional, c)[1])
defjvp_all(intercept, _dintercept)
defconstant(median_at, median_low_at, median_high_at, mode_at, multimode_at, quantiles_at,
            _grouping)
