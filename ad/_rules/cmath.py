"""Rules for the `cmath` module (holomorphic functions: tangent = f'(z) * g)."""

import cmath

from ad._rules._support import over
from ad._rules._table import defconstant, defjvp, defmodel


def _phase(z):
    return cmath.phase(z)


defjvp(cmath.exp, lambda g, ans, z: g * ans)
defjvp(cmath.log, lambda g, ans, z, base=cmath.e: over(g, z * cmath.log(base)),
       lambda g, ans, z, base: over(-g * ans, base * cmath.log(base)))
defjvp(cmath.log10, lambda g, ans, z: over(g, z * cmath.log(10)))
defjvp(cmath.sqrt, lambda g, ans, z: over(g, 2 * ans))
defjvp(cmath.sin, lambda g, ans, z: g * cmath.cos(z))
defjvp(cmath.cos, lambda g, ans, z: -g * cmath.sin(z))
defjvp(cmath.tan, lambda g, ans, z: g * (1 + ans * ans))
defjvp(cmath.asin, lambda g, ans, z: over(g, cmath.sqrt(1 - z * z)))
defjvp(cmath.acos, lambda g, ans, z: over(-g, cmath.sqrt(1 - z * z)))
defjvp(cmath.atan, lambda g, ans, z: over(g, 1 + z * z))
defjvp(cmath.sinh, lambda g, ans, z: g * cmath.cosh(z))
defjvp(cmath.cosh, lambda g, ans, z: g * cmath.sinh(z))
defjvp(cmath.tanh, lambda g, ans, z: g * (1 - ans * ans))
defjvp(cmath.asinh, lambda g, ans, z: over(g, cmath.sqrt(z * z + 1)))
defjvp(cmath.acosh, lambda g, ans, z: over(g, cmath.sqrt(z - 1) * cmath.sqrt(z + 1)))
defjvp(cmath.atanh, lambda g, ans, z: over(g, 1 - z * z))
defjvp(cmath.phase, lambda g, ans, z: complex(over(g, z)).imag)
defjvp(cmath.rect, lambda g, ans, r, phi: g * cmath.rect(1, phi),
       lambda g, ans, r, phi: g * 1j * ans)
defmodel(cmath.polar, lambda z: (abs(z), _phase(z)))
defjvp(_phase, lambda g, ans, z: complex(over(g, z)).imag)
defconstant(cmath.isclose, cmath.isfinite, cmath.isinf, cmath.isnan)
