"""`check`: `D(f, x)`, compared with a numerical derivative.

A numerical derivative is only as good as its step, and the right step depends
on the precision `f` computes in. Double-precision code (`math.sin` turns an
`mpf` into a float; at 40 digits `mpmath.diff` steps so little that a float
does not move, and returns 0) gets central differences in double precision:
Ridders' method, which starts from a step of 1e-5 * max(1, |x|) (smaller if
f turns within it), shrinks it, extrapolates the differences to step 0
(Richardson) and estimates its own error, good to about 1e-9. Code that keeps
mpmath numbers mpmath numbers gets `mpmath.diff` at 40 digits, far beyond double
precision, when that agrees with the double-precision estimate (an `mpf` that
passed through `math.exp` on its way may still come out an `mpf`, but only
double-precision good).

At a complex point both derivatives are taken along the real direction, as `D`
seeds it: the complex derivative for holomorphic code, the partial derivative
in Re(x) otherwise.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import mpmath

from ad._api import D
from ad._errors import describe
from ad._numbers import is_number

_DIGITS = 40


def check(f: Callable, x: Any, *, rtol: float = 1e-6, atol: float = 1e-9) -> Any:
    """`D(f, x)` if a numerical derivative agrees with it, else `AssertionError`.

    A test of a derivative rule, or of `D` itself, on your code: the two
    methods share nothing but `f`. They agree when |AD - numerical| <= atol +
    rtol * |numerical| + the numerical method's error estimate (which grows
    with |f(x)|, as rounding does). `f` must return one number.
    """
    if not callable(f):
        raise TypeError(f"check() needs a function to differentiate, got "
                        f"{type(f).__name__} {f!r}")
    if not is_number(x):
        raise TypeError(f"check() differentiates at a number (int, float, complex, "
                        f"Fraction, mpf or mpc); got {type(x).__name__} {x!r} for "
                        f"{describe(f)}")
    derivative = D(f, x)
    if not is_number(derivative):
        raise TypeError(f"check() compares derivatives of functions returning one "
                        f"number; {describe(f)} has the derivative "
                        f"{type(derivative).__name__} {derivative!r} at {x!r}")
    numerical, error = _numerical_derivative(f, x)
    with mpmath.workdps(_DIGITS):
        difference = abs(mpmath.mpmathify(derivative) - numerical)
        tolerance = atol + rtol * abs(numerical) + error
        if difference <= tolerance:
            return derivative
        raise AssertionError(
            f"D({describe(f)}) at {x!r} is {derivative!r}, but a numerical derivative "
            f"gives {_show(numerical)}: they differ by {_show(difference)} (tolerance "
            f"{_show(tolerance)})")


def _numerical_derivative(f: Callable, x: Any) -> tuple[Any, Any]:
    """(derivative, error estimate), in the precision `f` computes in."""
    estimate = _ridders(f, x, 1e-5 * max(1.0, abs(x)))
    for _ in range(3):  # f turns within the step (sin(50 x) at x = 1e4): smaller ones
        if estimate[1] <= 1e-9 * max(1.0, abs(estimate[0])):
            break
        estimate = min(_ridders(f, x, estimate[2] / 100), estimate, key=lambda e: e[1])
    derivative, error, _ = estimate
    with mpmath.workdps(_DIGITS):
        point = mpmath.mpmathify(x)
        if _returns_mpmath(f, point):
            precise = mpmath.diff(lambda h: f(point + h), 0)
            if abs(precise - derivative) <= 2 * error + 1e-9 * abs(precise):
                return precise, 0
    return derivative, error


def _returns_mpmath(f: Callable, point: Any) -> bool:
    try:
        return isinstance(f(point), (mpmath.mpf, mpmath.mpc))
    except Exception:  # code for floats only (math.sqrt of an mpc, say)
        return False


def _ridders(f: Callable, x: Any, step: float) -> tuple[Any, float, float]:
    """(f'(x), error estimate, first step) by Ridders' method: central differences
    at shrinking steps, extrapolated to step 0 (Numerical Recipes, `dfridr`)."""
    def central(h: float) -> Any:  # over the distance x + h and x - h really are apart
        return (f(x + h) - f(x - h)) / ((x + h) - (x - h))

    first, shrink, tableau = step, 1.4, [[central(step)]]
    best, error = tableau[0][0], float("inf")
    for i in range(1, 10):
        step /= shrink
        row = [central(step)]
        factor = 1.0
        for j in range(1, i + 1):
            factor *= shrink ** 2
            row.append((row[j - 1] * factor - tableau[i - 1][j - 1]) / (factor - 1))
            estimate = max(abs(row[j] - row[j - 1]), abs(row[j] - tableau[i - 1][j - 1]))
            if estimate <= error:
                best, error = row[j], estimate
        tableau.append(row)
        if abs(row[i] - tableau[i - 1][i - 1]) >= 2 * error:
            break  # round-off has taken over: smaller steps only make it worse
    # Each f(x +- h) is rounded to about EPSILON * |f|, and the difference divided by h.
    error += 10 * sys.float_info.epsilon * abs(f(x)) / first
    return best, error, first


def _show(value: Any) -> str:
    """A number as a float or complex would print, whatever its type."""
    return repr(complex(value) if isinstance(value, (complex, mpmath.mpc)) else float(value))
