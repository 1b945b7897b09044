"""Rules for the `math` module, one line per function."""

import functools
import math
import operator

from ad import _numbers
from ad._rules._support import (dabs, digamma, over, pow_base, pow_exponent, product_terms,
                                sign)
from ad._rules._table import defconstant, defjvp, defjvp_all, defmodel


def _fsum(*xs):
    return math.fsum(xs)


def _prod(start, *xs):
    return math.prod(xs, start=start)


def _product(iterable, *, start=1):
    """`math.prod`: numbers by the rule of `_prod`; a user object's `__mul__` (which
    C would call natively) by multiplying in the context, as `math.prod` does."""
    items = list(iterable)
    if all(isinstance(item, _numbers.NUMBERS) for item in (start, *items)):
        return _prod(start, *items)
    return functools.reduce(operator.mul, items, start)


def _sumprod(n, *c):
    return math.sumprod(c[:n], c[n:])


_END = object()


def _products(p, q, /):
    """`math.sumprod(p, q)`: the iterables taken in step, as C takes them; numbers
    summed by the rule of `_sumprod` (its value `math.sumprod` on the plain values),
    other objects by their `*` and `+` in the context, from 0, as C does."""
    p, q = iter(p), iter(q)
    ps, qs = [], []
    while True:
        a, b = next(p, _END), next(q, _END)
        if (a is _END) != (b is _END):
            raise ValueError("Inputs are not the same length")
        if a is _END:
            break
        ps.append(a)
        qs.append(b)
    if all(isinstance(item, _numbers.NUMBERS) for item in (*ps, *qs)):
        return _sumprod(len(ps), *ps, *qs)
    return functools.reduce(operator.add, map(operator.mul, ps, qs), 0)


def _dist(n, *coordinates):
    return math.dist(coordinates[:n], coordinates[n:])


def _frac(x):
    return math.modf(x)[0]


def _whole(x):
    return math.modf(x)[1]


def _exponent(x):
    return math.frexp(x)[1]


# fsum calls each item's `__float__` (a user class's, in the context)
defmodel(math.fsum, lambda iterable: _fsum(*[float(item) for item in iterable]))
defmodel(math.prod, _product)
# dist calls each coordinate's `__float__` (a user class's, in the context)
defmodel(math.dist, lambda p, q: _dist(len(p), *[float(v) for v in p], *[float(v) for v in q]))
defmodel(math.modf, lambda x: (_frac(x), _whole(x)))
defmodel(math.frexp, lambda x: (math.ldexp(x, -_exponent(x)), _exponent(x)))

defjvp_all(_fsum, lambda gs, ans, *xs: sum(gs))
defjvp_all(math.hypot, lambda gs, ans, *xs: over(sum(g * x for g, x in zip(gs, xs)), ans))
defjvp_all(_prod, lambda gs, ans, start, *xs: sum(product_terms(gs, (start, *xs))))
if hasattr(math, "sumprod"):  # Python 3.12+
    defmodel(math.sumprod, _products)
    # d sum(p q) = sum(dp q) + sum(p dq), itself a sumprod, as precise as the value
    defjvp_all(_sumprod, lambda gs, ans, n, *c: math.sumprod(
        [*gs[1:n + 1], *c[:n]], [*c[n:], *gs[n + 1:]]))
defjvp_all(_dist, lambda gs, ans, n, *c: over(sum(
    (p - q) * (gp - gq) for p, q, gp, gq in zip(c[:n], c[n:], gs[1:n + 1], gs[n + 1:])), ans))
defjvp(_frac, lambda g, ans, x: g)

defjvp(math.sin, lambda g, ans, x: g * math.cos(x))
defjvp(math.cos, lambda g, ans, x: -g * math.sin(x))
defjvp(math.tan, lambda g, ans, x: g * (1 + ans * ans))
defjvp(math.asin, lambda g, ans, x: over(g, math.sqrt(1 - x * x)))
defjvp(math.acos, lambda g, ans, x: over(-g, math.sqrt(1 - x * x)))
defjvp(math.atan, lambda g, ans, x: g / (1 + x * x))
defjvp(math.atan2, lambda g, ans, y, x: over(g * x, x * x + y * y),
       lambda g, ans, y, x: over(-g * y, x * x + y * y))
defjvp(math.sinh, lambda g, ans, x: g * math.cosh(x))
defjvp(math.cosh, lambda g, ans, x: g * math.sinh(x))
defjvp(math.tanh, lambda g, ans, x: g * (1 - ans * ans))
defjvp(math.asinh, lambda g, ans, x: g / math.sqrt(x * x + 1))
defjvp(math.acosh, lambda g, ans, x: over(g, math.sqrt(x * x - 1)))
defjvp(math.atanh, lambda g, ans, x: over(g, 1 - x * x))
defjvp(math.exp, lambda g, ans, x: g * ans)
defjvp(math.exp2, lambda g, ans, x: g * ans * math.log(2))
defjvp(math.expm1, lambda g, ans, x: g * (ans + 1))
defjvp(math.log, lambda g, ans, x, base=math.e: over(g, x * math.log(base)),
       lambda g, ans, x, base: over(-g * ans, base * math.log(base)))
defjvp(math.log2, lambda g, ans, x: over(g, x * math.log(2)))
defjvp(math.log10, lambda g, ans, x: over(g, x * math.log(10)))
defjvp(math.log1p, lambda g, ans, x: over(g, 1 + x))
defjvp(math.sqrt, lambda g, ans, x: over(g, 2 * ans))
defjvp(math.cbrt, lambda g, ans, x: over(g, 3 * ans * ans))
defjvp(math.pow, pow_base, pow_exponent)
defjvp(math.fabs, lambda g, ans, x: float(dabs(g, ans, x)))
defjvp(math.copysign, lambda g, ans, x, y: g * sign(x) * math.copysign(1, ans),
       lambda g, ans, x, y: g * 0)
defjvp(math.fmod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * ((x - ans) / y))
defjvp(math.remainder, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * ((x - ans) / y))
defjvp(math.ldexp, lambda g, ans, x, i: math.ldexp(g, i))
defjvp(math.degrees, lambda g, ans, x: g * (180 / math.pi))
defjvp(math.radians, lambda g, ans, x: g * (math.pi / 180))
defjvp(math.erf, lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * math.exp(-x * x))
defjvp(math.erfc, lambda g, ans, x: -g * (2 / math.sqrt(math.pi)) * math.exp(-x * x))
defjvp(math.gamma, lambda g, ans, x: g * ans * digamma(x))
defjvp(math.lgamma, lambda g, ans, x: g * digamma(x))
defjvp(math.nextafter, lambda g, ans, x, y: g, lambda g, ans, x, y: g * 0)

defconstant(math.ceil, math.floor, math.trunc, math.isclose, math.isfinite, math.isinf,
            math.isnan, math.comb, math.perm, math.factorial, math.gcd, math.lcm,
            math.isqrt, math.ulp, _whole, _exponent)
