"""Rules for `mpmath` functions of mpf and mpc numbers, one line per function.

The tangents are computed with mpmath at the working precision, so an mpf
point has mpf tangents (and a float point given to an mpmath function gets
the mpf its value is). Many mpmath functions are methods of the context
`mpmath.mp` (`mpmath.power`, `mpmath.log`): a table line keys them by their
function, so `mpmath.power` and `mpmath.mp.power` share it. The arithmetic
of mpf and mpc needs no line here: `x * y` is `operator.mul`.
"""

import mpmath

from ad._errors import no_rule
from ad._rules._support import (dabs, is_complex, over, pow_base, pow_exponent,
                                product_terms)
from ad._rules._table import defconstant, defjvp, defjvp_all, defmodel


def _fsum(absolute, squared, *terms):
    return mpmath.fsum(terms, absolute=absolute, squared=squared)


def _fprod(*factors):
    return mpmath.fprod(factors)


def _dterm(g, t, absolute, squared):
    """The tangent of one term of `fsum`: t, |t|, t**2 or |t|**2 (mpmath's choice
    for each mix of a real or complex term and the two flags)."""
    if squared and absolute and is_complex(t):
        return 2 * mpmath.re(mpmath.conj(t) * g)
    if squared:
        return 2 * t * g
    if absolute:
        return dabs(g, abs(t), t)
    return g


def _drgamma(g, ans, x):
    """d(1/Γ(x)) = -ψ(x)/Γ(x); at the poles of Γ (x = -n) it is (-1)**n n!."""
    if ans == 0 and x <= 0 and mpmath.isint(x):
        return g * (-1) ** int(-x) * mpmath.factorial(-x)
    return -g * ans * mpmath.digamma(x)


def _none(f, what):
    """A jvp for an argument `f` has no derivative in (an order, a branch)."""
    def refuse(g, ans, *args):
        raise no_rule(f, f"it has no derivative rule for its {what}")
    return refuse


def _pi():
    return +mpmath.pi  # an mpf at the working precision


defmodel(mpmath.fsum, lambda ctx, terms, absolute=False, squared=False: _fsum(
    bool(absolute), bool(squared), *terms) if ctx is mpmath.mp
    else ctx.fsum(terms, absolute, squared))
defmodel(mpmath.fprod, lambda ctx, factors: _fprod(*factors) if ctx is mpmath.mp
         else ctx.fprod(factors))
defjvp_all(_fsum, lambda gs, ans, absolute, squared, *terms: mpmath.fsum(
    _dterm(g, t, absolute, squared) for g, t in zip(gs[2:], terms)))
defjvp_all(_fprod, lambda gs, ans, *xs: mpmath.fsum(product_terms(gs, xs)))

defjvp(mpmath.sqrt, lambda g, ans, x: over(g, 2 * ans))
defjvp(mpmath.cbrt, lambda g, ans, x: over(g, 3 * ans * ans))
defjvp(mpmath.root, lambda g, ans, x, n, k=0: over(g, n * ans ** (n - 1)))
defjvp(mpmath.exp, lambda g, ans, x: g * ans)
defjvp(mpmath.expm1, lambda g, ans, x: g * (ans + 1))
defjvp(mpmath.expj, lambda g, ans, x: g * 1j * ans)
defjvp(mpmath.expjpi, lambda g, ans, x: g * 1j * _pi() * ans)
defjvp(mpmath.ln, lambda g, ans, x: over(g, x))
defjvp(mpmath.log, lambda g, ans, x, b=None: over(g, x if b is None else x * mpmath.ln(b)),
       lambda g, ans, x, b: over(-g * ans, b * mpmath.ln(b)))
defjvp(mpmath.log10, lambda g, ans, x: over(g, x * mpmath.ln(10)))
defjvp(mpmath.log1p, lambda g, ans, x: over(g, 1 + x))
defjvp(mpmath.power, pow_base, pow_exponent)
defjvp(mpmath.sin, lambda g, ans, x: g * mpmath.cos(x))
defjvp(mpmath.cos, lambda g, ans, x: -g * mpmath.sin(x))
defjvp(mpmath.tan, lambda g, ans, x: g * (1 + ans * ans))
defjvp(mpmath.sec, lambda g, ans, x: g * ans * mpmath.tan(x))
defjvp(mpmath.csc, lambda g, ans, x: -g * ans * mpmath.cot(x))
defjvp(mpmath.cot, lambda g, ans, x: -g * (1 + ans * ans))
defjvp(mpmath.sinpi, lambda g, ans, x: g * _pi() * mpmath.cospi(x))
defjvp(mpmath.cospi, lambda g, ans, x: -g * _pi() * mpmath.sinpi(x))
defjvp(mpmath.asin, lambda g, ans, x: over(g, mpmath.sqrt(1 - x * x)))
defjvp(mpmath.acos, lambda g, ans, x: over(-g, mpmath.sqrt(1 - x * x)))
defjvp(mpmath.atan, lambda g, ans, x: over(g, 1 + x * x))
defjvp(mpmath.acot, lambda g, ans, x: over(-g, 1 + x * x))
defjvp(mpmath.atan2, lambda g, ans, y, x: over(g * x, x * x + y * y),
       lambda g, ans, y, x: over(-g * y, x * x + y * y))
defjvp(mpmath.sinh, lambda g, ans, x: g * mpmath.cosh(x))
defjvp(mpmath.cosh, lambda g, ans, x: g * mpmath.sinh(x))
defjvp(mpmath.tanh, lambda g, ans, x: g * (1 - ans * ans))
defjvp(mpmath.sech, lambda g, ans, x: -g * ans * mpmath.tanh(x))
defjvp(mpmath.csch, lambda g, ans, x: -g * ans * mpmath.coth(x))
defjvp(mpmath.coth, lambda g, ans, x: g * (1 - ans * ans))
defjvp(mpmath.asinh, lambda g, ans, x: over(g, mpmath.sqrt(x * x + 1)))
defjvp(mpmath.acosh, lambda g, ans, x: over(g, mpmath.sqrt(x - 1) * mpmath.sqrt(x + 1)))
defjvp(mpmath.atanh, lambda g, ans, x: over(g, 1 - x * x))
defjvp(mpmath.acoth, lambda g, ans, x: over(g, 1 - x * x))
defjvp(mpmath.hypot, lambda g, ans, x, y: over(g * x, ans), lambda g, ans, x, y: over(g * y, ans))
defjvp(mpmath.degrees, lambda g, ans, x: g * (180 / _pi()))
defjvp(mpmath.radians, lambda g, ans, x: g * (_pi() / 180))
defjvp(mpmath.ldexp, lambda g, ans, x, n: mpmath.ldexp(g, n))
defjvp(mpmath.gamma, lambda g, ans, x: g * ans * mpmath.digamma(x))
defjvp(mpmath.rgamma, _drgamma)
defjvp(mpmath.factorial, lambda g, ans, x: g * ans * mpmath.digamma(x + 1))
defjvp(mpmath.loggamma, lambda g, ans, x: g * mpmath.digamma(x))
defjvp(mpmath.digamma, lambda g, ans, x: g * mpmath.psi(1, x))
defjvp(mpmath.psi, _none(mpmath.psi, "order m"), lambda g, ans, m, z: g * mpmath.psi(m + 1, z))
defjvp(mpmath.beta, lambda g, ans, a, b: g * ans * (mpmath.digamma(a) - mpmath.digamma(a + b)),
       lambda g, ans, a, b: g * ans * (mpmath.digamma(b) - mpmath.digamma(a + b)))
defjvp(mpmath.erf, lambda g, ans, x: g * 2 / mpmath.sqrt(_pi()) * mpmath.exp(-x * x))
defjvp(mpmath.erfc, lambda g, ans, x: -g * 2 / mpmath.sqrt(_pi()) * mpmath.exp(-x * x))
defjvp(mpmath.lambertw, lambda g, ans, z, k=0: over(g, mpmath.exp(ans) * (1 + ans)))
defjvp(mpmath.polylog, _none(mpmath.polylog, "order s"),
       lambda g, ans, s, z: g * (mpmath.polylog(s - 1, z) / z if z != 0 else 1))
defjvp(mpmath.fabs, lambda g, ans, x: over(mpmath.re(mpmath.conj(x) * g), ans) if is_complex(x)
       else dabs(g, ans, x))
defjvp(mpmath.sign, lambda g, ans, x: over(g - ans * mpmath.re(mpmath.conj(ans) * g), abs(x))
       if is_complex(x) else 0 * ans * g)
defjvp(mpmath.frac, lambda g, ans, x: g)
defjvp(mpmath.re, lambda g, ans, z: mpmath.re(g))
defjvp(mpmath.im, lambda g, ans, z: mpmath.im(g))
defjvp(mpmath.conj, lambda g, ans, z: mpmath.conj(g))
defjvp(mpmath.arg, lambda g, ans, z: over(mpmath.im(mpmath.conj(z) * g), abs(z) ** 2))
defjvp(mpmath.fneg, lambda g, ans, x: -g)
defjvp(mpmath.fadd, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
defjvp(mpmath.fsub, lambda g, ans, x, y: g, lambda g, ans, x, y: -g)
defjvp(mpmath.fmul, lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g)
defjvp(mpmath.fdiv, lambda g, ans, x, y: g / y,
       lambda g, ans, x, y: -g * ans / y)
defconstant(mpmath.floor, mpmath.ceil, mpmath.nint, mpmath.isnan, mpmath.isinf, mpmath.isint,
            mpmath.isfinite, mpmath.isnormal, mpmath.almosteq, mpmath.mag)

# `.real` and `.imag` of mpf and mpc are properties: their getters are the keys.
defjvp(mpmath.mpf.real.fget, lambda g, ans, x: mpmath.re(g))
defjvp(mpmath.mpf.imag.fget, lambda g, ans, x: mpmath.im(g))
defjvp(mpmath.mpc.real.fget, lambda g, ans, z: mpmath.re(g))
defjvp(mpmath.mpc.imag.fget, lambda g, ans, z: mpmath.im(g))
