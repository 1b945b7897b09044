"""What the numpy rule modules (`numpy_linalg`, `numpy_reduce`) share: facts about a
value that carry no tangent, the rule of a function linear in an argument, keyword
arguments fit for a tangent, the axes of a reduction, and refusals.

A jvp runs again, under an enclosing derivative, on values that carry that
derivative's tangents; so what it only inspects (a shape, a dtype, a mask, an index)
is computed by a function of this module registered as constant: it runs on the plain
values there, and the jvp differentiates only what it computes with numpy functions
that have rules.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

try:  # numpy 2
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # numpy 1
    from numpy.core.numeric import normalize_axis_tuple

from ad._errors import refusal
from ad._rules._table import defconstant, defjvp


def shape(x: Any) -> tuple:
    return np.shape(x)


def is_complex(x: Any) -> bool:
    return np.iscomplexobj(x)


def dtype_of(x: Any) -> np.dtype:
    return np.result_type(x)


def kept_shape(x: Any, axes: tuple) -> tuple:
    """`x`'s shape with the reduced `axes` kept as 1: a reduction's keepdims shape."""
    return tuple(1 if i in axes else n for i, n in enumerate(np.shape(x)))


defconstant(shape, is_complex, dtype_of, kept_shape)


def reduced_axes(ndim: int, axis: Any) -> tuple:
    """The axes a reduction over `axis` (None, an int or a tuple) removes, as
    non-negative ints in increasing order (numpy's own check of them)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(sorted(normalize_axis_tuple(axes, ndim)))


def to_last(x: Any, axes: tuple) -> Any:
    """`x` with the `axes` reduced over moved to the end and flattened into one:
    shape (kept axes in order..., size of the reduced ones)."""
    ndim = len(shape(x))
    kept = [i for i in range(ndim) if i not in axes]
    moved = np.transpose(x, kept + list(axes))
    return np.reshape(moved, tuple(shape(x)[i] for i in kept) + (-1,))


def for_tangent(kwargs: dict) -> dict:
    """The keyword arguments of a call, without `out=`: a tangent is never written
    into the user's array (the runner decides what `out=` means)."""
    return {key: value for key, value in kwargs.items() if key != "out"}


def truncates(kwargs: dict) -> bool:
    """Whether the call computes in an integer or boolean `dtype=`: numpy casts the
    data first, a step function, so the answer carries no tangent."""
    dtype = kwargs.get("dtype")
    return dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact)


def linear_in(f: Callable, i: int) -> Callable:
    """The jvp of `f` in argument i when `f` is linear in it (a sum, a product's
    operand, a trace): `f` with argument i replaced by its tangent."""
    def jvp(g, ans, *args, **kwargs):
        if truncates(kwargs):
            return np.zeros(())
        return f(*args[:i], g, *args[i + 1:], **for_tangent(kwargs))
    jvp.__qualname__ = f"linear_in({getattr(f, '__name__', f)}, {i})"
    return jvp


def deflinear(*functions: Callable) -> None:
    """Rules for functions linear in their first argument (shapes, copies,
    selections, sums): each applied to the tangent."""
    for f in functions:
        defjvp(f, linear_in(f, 0))


def no_tangent(f: Callable, name: str) -> Callable:
    """The jvp slot of an argument that cannot carry a tangent (an axis, a count)."""
    def jvp(g, ans, *args, **kwargs):
        refuse(f, f"its argument {name} is an index, which has no derivative; pass a "
                  "constant (an int computed without the differentiated value)")
    return jvp


def refuse(f: Callable, why: str) -> None:
    raise refusal(f, why)


def equal_at(x: Any, target: Any, where: Any = True) -> Any:
    """Where `x` equals `target` (a reduction's answer, kept dims) and `where` holds."""
    return np.logical_and(np.equal(x, target), where)


def abs_equal_at(x: Any, target: Any) -> Any:
    return np.equal(np.abs(x), target)


def nonnegative(x: Any) -> Any:
    return np.greater_equal(x, 0)


def count(hits: Any, axes: tuple, extra: Any = 0) -> Any:
    """How many positions `hits` marks along `axes` (kept dims), plus `extra`; at
    least 1, so a mean over them never divides by 0 (no position: a sum of 0)."""
    return np.maximum(np.sum(hits, axis=axes, keepdims=True) + extra, 1)


defconstant(equal_at, abs_equal_at, nonnegative, count)


def signed(g: Any, x: Any) -> Any:
    """The tangent of |x| for real x: the branch taken, g for x >= 0 and -g below
    (the convention of `abs` in every table: +g at 0)."""
    return np.where(nonnegative(x), g, np.negative(g))


def mean_over_ties(g: Any, hits: Any, axes: tuple, extra: Any = 0) -> Any:
    """The tangent of an extremum along `axes`: the mean of `g` over the positions
    `hits` marks (the ties), kept dims; `extra` more tied candidates carry no
    tangent (a constant `initial=`)."""
    total = np.sum(np.where(hits, g, 0), axis=axes, keepdims=True)
    return np.divide(total, count(hits, axes, extra))
