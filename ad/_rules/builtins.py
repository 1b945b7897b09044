"""Rules for the numeric builtins, number constructors and attributes of numbers.

`sum`, `min`, `max`, `sorted` and `functools.reduce` need none: the engine runs
Python models of them, so the tangents ride through their additions and the
element they pick (with Python's own tie rules).
"""

import builtins
from fractions import Fraction

import mpmath

from ad._rules._support import dabs, numerator_tangent, pow_base, pow_exponent
from ad._rules._table import defconstant, defjvp, defrefused, defsame


def real(x):
    return x.real


def imag(x):
    return x.imag


def conjugate(x):
    return x.conjugate()


def numerator(x):
    """`x.numerator` (an int's, a Fraction's), over the constant `x.denominator`."""
    return x.numerator


def denominator(x):
    return x.denominator


def modular(jvp):
    """`pow`'s rule for one argument: `pow(x, y, mod)` is integer-only (modular
    arithmetic), piecewise constant, so a modulus makes the derivative 0."""
    return lambda g, ans, x, y, mod=None: jvp(g, ans, x, y) if mod is None else g * 0


def method(x, name, *args):
    """`x.name(*args)`, for a method of a number that has no rule of its own."""
    return getattr(x, name)(*args)


defjvp(builtins.abs, dabs)
defjvp(builtins.pow, modular(pow_base), modular(pow_exponent), lambda g, ans, x, y, mod: g * 0)
defjvp(builtins.float, lambda g, ans, x: float(g))
defjvp(builtins.complex, lambda g, ans, x, y=0: complex(g), lambda g, ans, x, y: g * 1j)
defjvp(Fraction, lambda g, ans, x, d=1: Fraction(g) / d, lambda g, ans, x, d: -g * ans / d)
defjvp(mpmath.mpf, lambda g, ans, x: mpmath.mpf(g))
defjvp(mpmath.mpc, lambda g, ans, x, y=0: mpmath.mpc(g), lambda g, ans, x, y: g * 1j)
defjvp(real, lambda g, ans, x: g.real)
defjvp(imag, lambda g, ans, x: g.imag)
defjvp(conjugate, lambda g, ans, x: g.conjugate())
defjvp(numerator, lambda g, ans, x: numerator_tangent(g, x.denominator, builtins.getattr))
defconstant(denominator)
# a Fraction's are properties, whose getters the context calls with the number itself
defsame(Fraction.numerator.fget, numerator)
defconstant(Fraction.denominator.fget)
defconstant(builtins.int, builtins.round, builtins.bool, builtins.hash, builtins.id,
            builtins.len)
# Not numeric: they run on the plain value (and a derivative's own machinery, run in
# an enclosing one, asks them about its `Tagged` wrappers without a detour).
defconstant(builtins.isinstance, builtins.issubclass, builtins.callable, builtins.repr,
            builtins.ascii, builtins.str, builtins.format, builtins.print)
defrefused(method)

# Attributes of a number carrying a tangent: `x.real` is `real(x)`; a method
# `x.conjugate` is `conjugate` bound to the tagged number, so calling it reaches
# the rule, and so is one with a rule of its own (`float.as_integer_ratio`, in
# `methods`). Any other method is `method(x, name)`, refused if it gives a number.
ATTRIBUTES = {"real": real, "imag": imag, "numerator": numerator, "denominator": denominator}
METHODS = {"conjugate": conjugate}
