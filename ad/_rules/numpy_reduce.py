"""Rules for numpy's reductions, scans, order statistics and interpolation, one line
per function.

Loaded once numpy is in use, never by `import ad`. `sum` and `mean` are in
`numpy.py`. x is the data, g its tangent, z the answer.

Ruled:
    prod, cumsum, cumprod, max, amax, min, amin, nanmax, nanmin, ptp, var, std,
    average, sort, diff, interp, polyval, trapezoid, trapz (whichever numpy has),
    nansum, median, and as constants argmax, argmin, nanargmax, nanargmin, argsort,
    count_nonzero

* prod and cumprod never divide by x (z/x is NaN at a zero): prod is Σ gᵢ Πⱼ≠ᵢ xⱼ
  by exclusive prefix and suffix products; cumprod's tangent is the scan
  t_k = x_k t_{k−1} + (Π_{j<k} x_j) g_k, done as a log-depth (Hillis–Steele) scan of
  its affine maps. Both honour axis, dtype=, initial= (a factor) and where=.
* max, min (amax, amin) and nanmax, nanmin: the mean of g over the positions equal
  to the answer (ties averaged, as JAX's chooser), within where=; a constant
  initial= that ties with the answer counts as one more candidate, with no tangent
  (so where initial wins, the tangent is 0). NaNs never match: nanmax skips them.
* ptp is a model: max − min. var: 2 Σ Re(conj(x − μ) g)/(N − ddof) (with where=,
  mean= and correction=); std: var′/(2z), refused where z = 0 (the spread of equal
  data has no derivative; var is smooth there).
* average: linear in the data; in the weights w (they may carry tangents),
  Σ h (x − z)/Σ w. returned=True (a pair) is refused.
* sort: g taken along argsort(x) (at ties, where sort has no derivative, in the
  order argsort gives them: a one-sided derivative, as `abs` takes +g at 0; a
  stable argsort would cost 15 times more). median: the tangent of the middle
  element, or the mean of the two middle ones, in the same order;
  overwrite_input=True is refused (numpy reorders x in place).
* diff, cumsum, trapezoid: linear (trapezoid in y and in x; in dx when x is None);
  a constant prepend=/append= has tangent 0. nansum: the sum of g where x is not NaN.
* interp(x, xp, fp): in fp linear (interp of the tangent); in x the slope of the
  segment holding x; in xp −slope·interp(x, xp, h); in left/right their tangent
  where they are taken. At a knot, and at xp[-1], the right segment's derivative
  (the function has a kink there; the right-hand side, as `abs` takes at 0).
  period= is refused.
* polyval(p, x): polyval of the tangent in p; polyval of p's derivative times g in x.
* An integer or boolean dtype= makes the answer a step function of the data: tangent 0.

Refused (no line: the engine refuses them with `NonDifferentiableError`):
    partition (not yet: sort does the same), percentile,
    quantile, nanmedian, nanpercentile, nanquantile, nanmean, nanvar, nanstd,
    nanprod, nancumsum, nancumprod (not yet), histogram, bincount (counts of
    bins: piecewise constant in the data, but their weights= would need a rule)
"""

from __future__ import annotations

import numpy as np

from ad._rules._array import (equal_at, is_complex, kept_shape,
                              linear_in, mean_over_ties, no_tangent, reduced_axes, refuse,
                              shape, to_last, truncates)
from ad._rules._table import defconstant, defjvp, defmodel


# ---------------------------------------------------------------------------
# facts that carry no tangent (run on the plain values, see `_array`)

def _previous(size):
    """For each position k along the last axis, k - 1 (0 at 0), and whether k >= 1."""
    k = np.arange(size)
    return np.maximum(k - 1, 0), k >= 1


def _shifted_back(size, step):
    k = np.arange(size)
    return np.maximum(k - step, 0), k >= step


def _not_nan(x):
    return np.logical_not(np.isnan(x))


def _segments(x, xp):
    """For each x: the segment [xp_i, xp_i+1] holding it (the right one at a knot),
    whether x lies in [xp_0, xp_-1), where x < xp_0 and where x > xp_-1."""
    xp = np.asarray(xp)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, max(len(xp) - 2, 0))
    inside = np.logical_and(np.greater_equal(x, xp[0]), np.less(x, xp[-1]))
    return i, inside, np.less(x, xp[0]), np.greater(x, xp[-1])


def _zero_width(xp):
    return np.equal(np.diff(xp), 0)


def _sizes(where, x_shape, axes):
    """How many elements a reduction over `axes` reads (within `where`), kept dims."""
    return np.sum(np.broadcast_to(where, x_shape), axis=axes, keepdims=True)


def _require_spread(ans):
    if np.any(np.equal(ans, 0)):
        refuse(np.std, "the data have no spread (std = 0): std has no derivative there "
                       "(it is |t|·std(g) along a direction g); differentiate var, "
                       "smooth at 0")


def _require_single(f, returned):
    if returned:
        refuse(f, "returned=True gives a pair; call average, and np.sum of the weights, "
                  "separately")


def _require_kept_input(overwrite_input):
    if overwrite_input:
        refuse(np.median, "overwrite_input=True lets numpy reorder the data in place, "
                          "which then no longer match their tangent; pass a copy")


def _require_no_period(period):
    if period is not None:
        refuse(np.interp, "period= has no rule; wrap x into one period with np.mod "
                          "first")


defconstant(_previous, _shifted_back, _not_nan, _segments, _zero_width, _sizes,
            _require_spread, _require_single, _require_kept_input, _require_no_period)


# ---------------------------------------------------------------------------
# products and scans

def _exclusive_cumprod(x):
    """Π_{j<k} x_j along the last axis (1 at k = 0)."""
    earlier, later = _previous(shape(x)[-1])
    shifted = np.where(later, np.take_along_axis(x, np.broadcast_to(earlier, shape(x)),
                                                 axis=-1), 1)
    return np.cumprod(shifted, axis=-1)


def _prod(g, ans, a, axis=None, dtype=None, out=None, keepdims=False, initial=1,
          where=True):
    if truncates({"dtype": dtype}):
        return np.zeros(())
    axes = reduced_axes(len(shape(a)), axis)
    if where is not True:
        a, g = np.where(where, a, 1), np.where(where, g, 0)
    x, h = to_last(a, axes), to_last(g, axes)
    others = _exclusive_cumprod(x) * np.flip(_exclusive_cumprod(np.flip(x, -1)), -1)
    return np.reshape(np.sum(h * others, axis=-1) * initial, shape(ans))


def _cumprod(g, ans, a, axis=None, dtype=None, out=None):
    """The scan t_k = x_k t_{k-1} + P_{k-1} g_k of the affine maps t -> x_k t + P_{k-1}
    g_k, composed in ceil(log2 n) vectorised steps (no division)."""
    if truncates({"dtype": dtype}):
        return np.zeros(())
    if axis is None:
        a, g, axis = np.reshape(a, -1), np.reshape(g, -1), -1
    x, z = np.swapaxes(a, axis, -1), np.swapaxes(ans, axis, -1)
    size = shape(x)[-1]
    earlier, later = _previous(size)
    before = np.where(later, np.take_along_axis(z, np.broadcast_to(earlier, shape(z)),
                                                axis=-1), 1)  # P_{k-1}
    factor, term = x, before * np.swapaxes(g, axis, -1)
    step = 1
    while step < size:
        source, reaches = _shifted_back(size, step)
        source = np.broadcast_to(source, shape(term))
        term = np.where(reaches, np.take_along_axis(term, source, axis=-1) * factor + term,
                        term)
        factor = np.where(reaches, np.take_along_axis(factor, source, axis=-1) * factor,
                          factor)
        step *= 2
    return np.swapaxes(term, axis, -1)


# ---------------------------------------------------------------------------
# extrema, spread

def _extremum(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
    axes = reduced_axes(len(shape(a)), axis)
    answer = np.reshape(ans, kept_shape(a, axes))
    extra = 0 if initial is None else equal_at(initial, answer)
    return np.reshape(mean_over_ties(g, equal_at(a, answer, where), axes, extra),
                      shape(ans))


def _ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        refuse(np.ptp, "out= is not differentiated; use the result")
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def _variance_tangent(g, a, axis, ddof, where, mean, correction):
    """var's tangent, kept dims."""
    axes = reduced_axes(len(shape(a)), axis)
    ddof = ddof if correction is None else correction
    sizes = _sizes(where, shape(a), axes)
    center = np.sum(a, axis=axes, keepdims=True, where=where) / sizes if mean is None else mean
    spread = np.real(np.conj(a - center) * g) if is_complex(a) else (a - center) * g
    total = np.sum(spread, axis=axes, keepdims=True, where=where)
    return 2 * total / (sizes - ddof)


def _var(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
         where=True, mean=None, correction=None):
    if truncates({"dtype": dtype}):
        return np.zeros(())
    return np.reshape(_variance_tangent(g, a, axis, ddof, where, mean, correction),
                      shape(ans))


def _std(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
         where=True, mean=None, correction=None):
    if truncates({"dtype": dtype}):
        return np.zeros(())
    _require_spread(ans)
    axes = reduced_axes(len(shape(a)), axis)
    tangent = _variance_tangent(g, a, axis, ddof, where, mean, correction)
    return np.reshape(tangent / (2 * np.reshape(ans, kept_shape(a, axes))), shape(ans))


# ---------------------------------------------------------------------------
# weighted means, order statistics

def _along(w, a, axis):
    """Weights as numpy's average aligns them with the data: their own shape, or
    1-d (a tuple axis: one dimension per axis, in the axis' order) along `axis`."""
    if shape(w) == shape(a):
        return w
    given = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = [i % len(shape(a)) for i in given]
    w = np.transpose(w, np.argsort(axes)) if len(axes) > 1 else w
    aligned = tuple(shape(a)[i] if i in axes else 1 for i in range(len(shape(a))))
    return np.broadcast_to(np.reshape(w, aligned), shape(a))


def _average_data(g, ans, a, axis=None, weights=None, returned=False, *, keepdims=False):
    _require_single(np.average, returned)
    return np.average(g, axis=axis, weights=weights, keepdims=keepdims)


def _average_weights(h, ans, a, axis=None, weights=None, returned=False, *,
                     keepdims=False):
    _require_single(np.average, returned)
    axes = reduced_axes(len(shape(a)), axis)
    center = np.reshape(ans, kept_shape(a, axes))
    moved = np.sum(_along(h, a, axis) * (a - center), axis=axes, keepdims=True)
    total = np.sum(_along(weights, a, axis), axis=axes, keepdims=True)
    return np.reshape(moved / total, shape(ans))


def _sort(g, ans, a, axis=-1, kind=None, order=None, *, stable=None):
    if axis is None:
        a, g, axis = np.reshape(a, -1), np.reshape(g, -1), -1
    return np.take_along_axis(g, np.argsort(a, axis=axis), axis=axis)


def _median(g, ans, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    _require_kept_input(overwrite_input)
    axes = reduced_axes(len(shape(a)), axis)
    x, h = to_last(a, axes), to_last(g, axes)
    ordered = np.take_along_axis(h, np.argsort(x, axis=-1), axis=-1)
    size = shape(x)[-1]
    middle = (ordered[..., (size - 1) // 2] + ordered[..., size // 2]) / 2
    return np.reshape(middle, shape(ans))


def _nansum(g, ans, a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
            where=True):
    if truncates({"dtype": dtype}):
        return np.zeros(())
    return np.sum(np.where(_not_nan(a), g, 0), axis=axis, keepdims=keepdims, where=where)


# ---------------------------------------------------------------------------
# differences, integrals, interpolation, polynomials

def _diff(g, ans, a, n=1, axis=-1, prepend=None, append=None):
    ends = {key: np.zeros(shape(value)) for key, value in
            (("prepend", prepend), ("append", append)) if value is not None}
    return np.diff(g, n, axis, **ends)


def _slopes(x, xp, fp):
    """The slope of the segment holding each x (the right one at a knot), 0 outside."""
    if shape(xp)[0] < 2:  # one knot: a constant
        return np.zeros(())
    i, inside, _, _ = _segments(x, xp)
    widths = np.diff(xp)
    slopes = np.diff(fp) / np.where(_zero_width(xp), 1, widths)
    return np.where(inside, slopes[i], 0)


def _interp_x(g, ans, x, xp, fp, left=None, right=None, period=None):
    _require_no_period(period)
    return _slopes(x, xp, fp) * g


def _interp_xp(h, ans, x, xp, fp, left=None, right=None, period=None):
    _require_no_period(period)
    return np.negative(_slopes(x, xp, fp)) * np.interp(x, xp, h, left=0.0, right=0.0)


def _interp_fp(h, ans, x, xp, fp, left=None, right=None, period=None):
    _require_no_period(period)
    return np.interp(x, xp, h, left=None if left is None else 0.0,
                     right=None if right is None else 0.0)


def _interp_left(h, ans, x, xp, fp, left=None, right=None, period=None):
    _require_no_period(period)
    return np.where(_segments(x, xp)[2], h, 0)


def _interp_right(h, ans, x, xp, fp, left=None, right=None, period=None):
    _require_no_period(period)
    return np.where(_segments(x, xp)[3], h, 0)


def _polyval_x(g, ans, p, x):
    degree = shape(p)[0] - 1
    if degree < 1:
        return np.zeros(())
    return np.polyval(np.multiply(p[:-1], np.arange(degree, 0, -1)), x) * g


def _in_dx(trapezoid):
    """The jvp of trapezoid(y, x, dx) in dx: linear, and nothing when x is given."""
    def jvp(h, ans, y, x=None, dx=1.0, axis=-1):
        return np.zeros(()) if x is not None else trapezoid(y, None, h, axis)
    return jvp


defjvp(np.prod, _prod)
defjvp(np.cumsum, linear_in(np.cumsum, 0))
defjvp(np.cumprod, _cumprod)
for _extreme in (np.max, np.amax, np.min, np.amin, np.nanmax, np.nanmin):
    defjvp(_extreme, _extremum)
defmodel(np.ptp, _ptp)
defjvp(np.var, _var)
defjvp(np.std, _std)
defjvp(np.average, _average_data, no_tangent(np.average, "axis"), _average_weights)
defjvp(np.sort, _sort)
defjvp(np.median, _median)
defjvp(np.nansum, _nansum)
defjvp(np.diff, _diff)
defjvp(np.interp, _interp_x, _interp_xp, _interp_fp, _interp_left, _interp_right)
defjvp(np.polyval, linear_in(np.polyval, 0), _polyval_x)
for _trapezoid in (getattr(np, "trapezoid", None), getattr(np, "trapz", None)):
    if _trapezoid is not None:
        defjvp(_trapezoid, linear_in(_trapezoid, 0), linear_in(_trapezoid, 1),
               _in_dx(_trapezoid))
defconstant(np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.count_nonzero)
