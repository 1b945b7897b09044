"""Small functions the rule tables share: signs, safe quotients, logarithms, and
the body of a Python function that has a rule.

A rule's tangent never raises or turns NaN where the primal did not: where a
derivative is infinite (`sqrt` at 0) it is an infinity of the tangent's sign,
and a zero tangent stays zero (`0 * inf` is taken as 0, the strong zero).
"""

from __future__ import annotations

import cmath
import math
import types
from typing import Any

import mpmath

from ad._errors import refusal

_MP = (mpmath.mpf, mpmath.mpc)


def body(f: Any) -> Any:
    """`f` as another function object: the same code, which the context runs as
    code (the rule is keyed by `f` itself), for arguments the rule does not
    cover, and runs as `f` itself outside it."""
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    return g


def python_dunder(kind: type, names: tuple) -> Any:
    """The first of `names` that `kind` defines itself rather than inherits from
    `object`, if it is written in Python (else None): the dunder a builtin would call
    natively, which the context calls instead."""
    for name in names:
        found = getattr(kind, name, None)
        if found is not getattr(object, name, None):
            return found if type(found) is types.FunctionType else None
    return None


def is_complex(x: Any) -> bool:
    return isinstance(x, (complex, mpmath.mpc))


def sign(x: Any) -> int:
    """-1, 0 or 1."""
    return (x > 0) - (x < 0)


def dabs(g: Any, ans: Any, x: Any) -> Any:
    """d|x|: for reals, the tangent of the branch taken, `x` for x >= 0 and `-x`
    below, so +1 at 0 (ForwardDiff's convention: a derivative 0 at 0 would kill
    every higher derivative of a smooth |x|**2 there); Re(conj(x) g) / |x| for
    complex numbers."""
    if is_complex(x):
        return over((x.conjugate() * g).real, ans)
    return g if x >= 0 else -g


def over(numerator: Any, denominator: Any) -> Any:
    """`numerator / denominator`, an infinity of the numerator's sign at a zero
    denominator, and 0 when both are 0."""
    if denominator != 0:
        return numerator / denominator
    if numerator == 0:
        return numerator * 0
    if is_complex(numerator):
        return type(numerator)(over(numerator.real, 0), over(numerator.imag, 0))
    infinity = math.copysign(math.inf, numerator)
    return mpmath.mpf(infinity) if isinstance(numerator, mpmath.mpf) else infinity


def log(x: Any) -> Any:
    """The natural logarithm in `x`'s own kind (real, complex or mpmath)."""
    if isinstance(x, _MP):
        return mpmath.log(x)
    if is_complex(x) or x < 0:
        return cmath.log(x)
    return math.log(x)


def digamma(x: Any) -> Any:
    """ψ(x) = Γ'(x)/Γ(x), in `x`'s precision (math has no digamma)."""
    if isinstance(x, _MP):
        return mpmath.digamma(x)
    return float(mpmath.digamma(x))


def pow_base(g: Any, ans: Any, x: Any, y: Any) -> Any:
    """d(x**y) from x's tangent: y * x**(y-1), with x**0 constant, and infinite at
    x = 0 for 0 < y < 1. (At x = 0 with y >= 1 the formula itself is right; a
    shortcut such as `g * 0` there would drop what an enclosing derivative needs:
    d/dx of 2x at 0 is 2.)"""
    if y == 0:
        return g * 0
    if x == 0 and not is_complex(y) and y < 1:
        return over(g * y, 0)
    return g * y * x ** (y - 1)


def pow_exponent(g: Any, ans: Any, x: Any, y: Any) -> Any:
    """d(x**y) from y's tangent: x**y * log(x); 0 at x = 0; for a negative real
    x (an integer y) the real part, x**y * log(-x)."""
    if x == 0:
        return g * 0
    if not is_complex(ans) and x < 0:
        return g * ans * log(-x)
    return g * ans * log(x)


def product_terms(gs: Any, factors: tuple) -> list:
    """The product rule's terms, g_i times the product of the other factors, by
    prefix and suffix products (no division, so zero factors are fine)."""
    prefix, suffix = [1] * (len(factors) + 1), [1] * (len(factors) + 1)
    for i, x in enumerate(factors):
        prefix[i + 1] = prefix[i] * x
    for i in range(len(factors) - 1, -1, -1):
        suffix[i] = suffix[i + 1] * factors[i]
    return [g * prefix[i] * suffix[i + 1] for i, g in enumerate(gs)]


def numerator_tangent(g: Any, denominator: int, f: Any) -> Any:
    """The tangent of a numerator over a constant `denominator` (`as_integer_ratio`,
    `.numerator`): `g * denominator`. A float tangent that this overflows (the
    denominator of a float below about 1e-292 is beyond the floats) is refused,
    named by `f`: an infinite tangent would pass for a derivative."""
    try:
        tangent = g * denominator
    except OverflowError:  # a float times an int beyond the floats
        tangent = math.inf
    if isinstance(tangent, float) and math.isinf(tangent) and not math.isinf(g):
        raise refusal(f, f"the tangent of the numerator, the tangent times the denominator "
                         f"(of {denominator.bit_length()} bits), overflows a float; "
                         "differentiate at a Fraction point (D(f, Fraction(x))), where "
                         "tangents are exact")
    return tangent
