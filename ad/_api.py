"""`D`, `jvp`, `gradient`, `jacobian` and `hessian`.

Each derivative takes a tagging context with a fresh tag (so no two
derivatives, nested or side by side, share one), tags the inputs with their
tangents, runs `f` in it and reads the tangents of what comes back. The
context, with what it resolved, is reused by later derivatives on the same
thread (`_pool`); nothing else is kept between calls, so threads, asyncio
tasks and worker processes need no coordination.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Iterable, Sequence

from contexts import overdub
from contexts.layer import enclosed, nativecalls
from tagging import tag, untag
from tagging.layer import rawest

from ad._array_points import (columns_shaped, copied, fresh, is_array, restore, seed, shaped,
                              tangent_out, unit)
from ad._array_points import is_point as is_array_point
from ad._context import numpy_seen as arrays_seen
from ad._errors import describe
from ad._numbers import is_number, one_like
from ad._pool import give_back, take
from ad._structure import tangent_of, tangents_of

# a derivative enclosing this one sees none of these
nativecalls(__name__, "take", "give_back", "seed", "arrays_seen", "is_array_point")

_MISSING = object()


def D(f: Callable, x: Any = _MISSING) -> Any:
    """The derivative of `f` at `x`; without `x`, the derivative function.

    `D(D(f))(x)` is the second derivative. `f` may return a number, a list,
    tuple or dict of numbers, or an object with numeric fields; the derivative
    has the same shape.
    """
    check_callable(f, "D")
    if x is _MISSING:
        return Derivative(f)
    arrays_seen()
    _check_point(x, "D", f)
    return _derivative(f, (x,), (one_like(x),), overdub)[1]  # (what jvp checks, checked)


def _D_inside(run_in: Callable) -> Callable:
    """`D` as a derivative enclosing it runs it: the checks and the tagging of the
    point natively, the run of `f` by `run_in` (`overdub` as the enclosing context
    runs it). Run transformed by it instead, each inner derivative's bookkeeping
    would cost it hundreds of operations."""
    def D_inside(f: Callable, x: Any = _MISSING) -> Any:
        check_callable(f, "D")
        if x is _MISSING:
            return Derivative(f)
        arrays_seen()
        _check_point(rawest(x), "D", f)
        return _derivative(f, (x,), (one_like(rawest(x)),), run_in)[1]

    return enclosed(D_inside, lambda outer: _D_inside(outer(run_in)))


class Derivative:
    """The derivative function of `f`, made by `D(f)`: calling it at `x` is `D(f, x)`.

    An object of its own rather than a closure, so that it shows what it is
    (`D(sin)`, `D(D(f))`), and pickles whenever `f` does (`Pool.map(D(f), xs)`).
    `__wrapped__` is `f`.
    """

    __slots__ = ("__wrapped__",)

    def __init__(self, f: Callable) -> None:
        self.__wrapped__ = f

    def __call__(self, x: Any) -> Any:
        return D(self.__wrapped__, x)

    def __repr__(self) -> str:
        f = self.__wrapped__
        return f"D({getattr(f, '__qualname__', None) or repr(f)})"

    def __reduce__(self) -> tuple:
        return Derivative, (self.__wrapped__,)


def jvp(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """`(f(*primals), its derivative in the direction of tangents)`."""
    check_callable(f, "jvp")
    primals, tangents = tuple(primals), tuple(tangents)
    _check_pairs(f, primals, tangents)
    return _derivative(f, primals, tangents, overdub)


def _jvp_inside(run_in: Callable, items: Callable, copy: Callable) -> Callable:
    """`jvp` as a derivative enclosing it runs it, as `_D_inside` runs `D`; the
    primals and tangents are read through it (`items`), as they may carry its
    tangents in their slots, and an array tangent is copied by it (`copy`), as it
    may carry its tangent."""
    def jvp_inside(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
        check_callable(f, "jvp")
        primals, tangents = items(primals), items(tangents)
        _check_pairs(f, primals, tangents)
        return _derivative(f, primals, tangents, run_in, copy)

    return enclosed(jvp_inside, lambda outer: _jvp_inside(outer(run_in), outer(items),
                                                          outer(copy)))


def _check_pairs(f: Callable, primals: tuple, tangents: tuple) -> None:
    if len(primals) != len(tangents):
        raise ValueError(f"jvp() needs one tangent per primal; got {len(primals)} primals "
                         f"and {len(tangents)} tangents")
    arrays_seen()
    for x, t in zip(primals, tangents):
        _check_point(rawest(x), "jvp", f, arrays=True)
        _check_point(rawest(t), "jvp", f, arrays=is_array_point(rawest(x)))


def _derivative(f: Callable, primals: tuple, tangents: tuple, run_in: Callable,
                copy: Callable = copied) -> tuple:
    """`(f(*primals), its derivative)`: `f` run by `run_in(ctx, f, *args)` (`overdub`)
    in a context taken with a fresh tag, the primals tagged with their tangents (an
    array's given a buffer made by `copy`). The caller has checked the points, after
    `arrays_seen()`."""
    ctx = take(f)
    try:
        result = run_in(ctx, f, *[seed(ctx, x, t, copy) if is_array_point(x) else
                                  tag(x, ctx, t) for x, t in zip(primals, tangents)])
    except Exception:
        # refused inside `f`, caught there, and `f` failed after it (pint turns a
        # TypeError into NotImplemented, then `*` fails): the refusal says why
        if ctx.refused is None:
            raise
        raise ctx.refused
    else:
        if ctx.refused is not None:  # refused inside `f`, and caught there
            raise ctx.refused
        return untag(result, ctx), _tangents(result, ctx, f, run_in)
    finally:
        give_back(ctx)


def _items_through(dispatch: Callable) -> Callable:
    """The items of a sequence, each read by `dispatch`'s `getitem`: a list made in
    an enclosing derivative keeps its tangents in that derivative's store."""
    as_tuple, get = dispatch(tuple), dispatch(operator.getitem)

    def items(sequence: Any) -> tuple:
        sequence = as_tuple(sequence)
        return tuple([get(sequence, index) for index in range(len(sequence))])

    return items


def gradient(f: Callable, xs: Sequence) -> Any:
    """The gradient of a scalar `f` at the point `xs`: a list of numbers (`f` is
    called with a list) or a float ndarray (`f` is called with it; the gradient is
    an array of its shape)."""
    return _gradient(f, xs, "gradient")


def jacobian(f: Callable, xs: Sequence) -> Any:
    """The rows d f_i / d x_j of a vector `f` at `xs`; `f` is called with a list
    (rows as lists), or with `xs` if it is an ndarray (an array of shape
    `f(xs).shape + xs.shape`)."""
    columns = []
    for j in range(_check_points(xs, "jacobian", f)):
        value, column = _partial(f, xs, j)
        if is_array_point(xs):
            columns.append(column)
            continue
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"jacobian() needs {describe(f)} to return a list or tuple of "
                            f"numbers; it returned {type(value).__name__} {value!r}. For a "
                            f"function returning one number use gradient({describe(f)}, xs)")
        columns.append(column)
    if is_array_point(xs):
        return columns_shaped(columns, value, xs)
    return [list(row) for row in zip(*columns)]


def hessian(f: Callable, xs: Sequence) -> Any:
    """The matrix of second derivatives of a scalar `f` at `xs` (a list of rows; an
    `(n, n)` array at an ndarray of n numbers)."""
    _check_points(xs, "hessian", f)
    return jacobian(lambda ys: _gradient(f, ys, "hessian"), xs)


# What to call instead, when the user's function returns several numbers.
_SEVERAL_OUT = {
    "gradient": "use jacobian({name}, xs)",
    "hessian": "take the hessian of each: hessian(lambda v: {name}(v)[i], xs)",
}


def _gradient(f: Callable, xs: Sequence, caller: str) -> Any:
    """The partials of a scalar `f`, one forward pass each; a function returning
    anything but one number is refused, named in `caller`'s words."""
    partials = []
    for i in range(_check_points(xs, caller, f)):
        value, partial = _partial(f, xs, i)
        if not is_number(value):
            raise TypeError(
                f"{caller}() is of a scalar function: it needs {describe(f)} to return "
                f"one number; it returned {type(value).__name__} {value!r}. For a function "
                f"returning several numbers, " + _SEVERAL_OUT[caller].format(name=describe(f)))
        partials.append(partial)
    return shaped(partials, xs) if is_array_point(xs) else partials


def _partial(f: Callable, xs: Sequence, index: int) -> tuple:
    """(f(xs), d f(xs) / d xs[index]): one forward pass, xs[index] seeded with 1. An
    array point is given to `f` itself in every pass, as `jvp` gives it (an `f` that
    also reads it through a closure or a global reads the point, with its tangent, in
    each pass: a copy in some passes made a mixture of two derivatives), and its
    contents are put back after each pass but the last: a pass of an `f` that writes
    into its argument must not move the point of the passes after it, and the point
    is changed as one plain call changes it."""
    if is_array_point(xs):
        if index == xs.size - 1:
            return jvp(f, (xs,), (unit(xs, index),))
        before = fresh(xs)
        try:
            return jvp(f, (xs,), (unit(xs, index),))
        finally:
            restore(xs, before)
    xs = list(xs)
    tangents = [one_like(x) if i == index else 0 * x for i, x in enumerate(xs)]
    return jvp(_called_with_list(f), xs, tangents)


def _called_with_list(f: Callable) -> Callable:
    """`f` taking the point as separate arguments; it gets them as one list."""
    def with_list(*xs: Any) -> Any:
        return f(list(xs))

    return with_list


def _tangents(result: Any, ctx: Any, f: Callable, run_in: Callable) -> Any:
    if is_number(rawest(untag(result, ctx))):
        return tangent_of(result, ctx)
    if run_in is overdub and is_array(result):  # no derivative encloses this one
        return tangent_out(ctx, result)  # natively: no second run in the context
    if callable(result):
        raise TypeError(
            f"{describe(f)} returned a function; derivatives of function-valued "
            "functions are not supported. Differentiate the value it computes instead: "
            "D(lambda x: f(x)(y), x0)")
    try:
        return run_in(ctx, tangents_of, result, ctx)
    except TypeError as error:
        raise TypeError(f"{describe(f)}: {error}") from None


def check_callable(f: Any, caller: str) -> None:
    if not callable(f):
        raise TypeError(f"{caller}() needs a function, got {type(f).__name__} {f!r}")


def _check_point(x: Any, caller: str, f: Callable, arrays: bool = False) -> None:
    if is_number(x) or arrays and is_array_point(x):
        return
    several = isinstance(x, Iterable) and not isinstance(x, (str, bytes))
    instead = (_SEVERAL_IN if several else _CONVERTED).get(caller, _IN_A_LIST[several])
    raise TypeError(f"{caller}() differentiates at a number (int, float, complex, Fraction, "
                    f"mpf, mpc or a numpy scalar{_ARRAYS_TOO.get(caller, '')}); "
                    f"got {type(x).__name__} {x!r} for {describe(f)}. "
                    + instead.format(caller=caller, name=describe(f)))


# What to call instead of a point that is no number: for a point that holds
# several, and for one of another type; gradient, jacobian and hessian take a list.
_SEVERAL_IN = {
    "D": "For a function of several numbers use gradient({name}, xs) or jacobian({name}, xs), "
         "which call it with one list (or one ndarray), or jvp({name}, (x,), (v,))",
    "jvp": "Pass one number per argument: jvp({name}, (x, y), (dx, dy))",
}
_ARRAYS_TOO = {"jvp": ", or a float ndarray", "gradient": ", or one float ndarray",
               "jacobian": ", or one float ndarray", "hessian": ", or one float ndarray"}
_CONVERTED = {
    "D": "Convert it: D({name}, float(x)), or Fraction(x) to stay exact",
    "jvp": "Convert each: jvp({name}, [float(x) for x in primals], tangents)",
}
_IN_A_LIST = {True: "The point is one flat list of numbers: {caller}({name}, [x, y, ...])",
              False: "Convert each: {caller}({name}, [float(x) for x in xs])"}


def _check_points(xs: Any, caller: str, f: Callable) -> int:
    arrays_seen()
    if is_array_point(xs) and xs.size:
        return xs.size
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{caller}() needs a non-empty list of numbers, got "
                        f"{type(xs).__name__} {xs!r} for {describe(f)}")
    for x in xs:
        _check_point(x, caller, f)
    return len(xs)


enclosed(D, lambda dispatch: _D_inside(dispatch(overdub)))
enclosed(jvp, lambda dispatch: _jvp_inside(dispatch(overdub), _items_through(dispatch),
                                           _copies_through(dispatch)))


def _copies_through(dispatch: Callable) -> Callable:
    """`copied`, run by `dispatch`'s context: the copy of an array tangent keeps
    the tangent that context has for it."""
    def copy(tangent: Any, like: Any) -> Any:
        return dispatch(copied)(tangent, like)

    return copy
