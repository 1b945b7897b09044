"""Rules for the methods of the number types, called unbound (`float.__mul__(a, b)`,
as uncertainties calls them) or on a number carrying a tangent (the context looks
up `x.as_integer_ratio` as `float.as_integer_ratio` bound to `x`).

* An arithmetic dunder of `int`, `float`, `complex` or `Fraction` has the rule of
  its operator (a reflected one, `__rsub__`, with the arguments swapped), and its
  own plain semantics: its value is the dunder on the plain values, and where the
  dunder declines (`float.__mul__(0.7, Fraction(1, 2))` is NotImplemented, and
  the operator would ask `Fraction.__rmul__`), the call returns NotImplemented.
  Given an object that is not a number (a user class's instance), a dunder
  written in Python (`Fraction`'s) runs its own code in the context: before
  3.13, `Fraction.__pow__` answers any exponent with `float(a) ** b`, which
  calls the exponent's `__rpow__`.
* `as_integer_ratio()` is `(n, d)` with `n / d` the number; the denominator is a
  constant, so the numerator carries the tangent times it, and `n / d` or
  `Fraction(n, d)` (statistics' exact sums) carries the number's tangent.
* `Fraction.limit_denominator` is a step function, derivative 0 (as `round`);
  `Fraction.__copy__` and `__deepcopy__` give the number itself, tangent and all.
"""

import builtins
import math
import numbers
import operator as op
import types
from fractions import Fraction

import mpmath

from ad._rules import operator as operator_rules  # noqa: F401 (the rules the dunders take)
from ad._rules._support import body, numerator_tangent
from ad._rules._table import RULES, Jvp, defconstant, defjvp, defmodel, defsame

_KINDS = (int, float, complex, Fraction)
_BINARY = {"add": op.add, "sub": op.sub, "mul": op.mul, "truediv": op.truediv,
           "floordiv": op.floordiv, "mod": op.mod, "pow": builtins.pow}
_UNARY = {"__neg__": op.neg, "__pos__": op.pos, "__abs__": op.abs, "__trunc__": math.trunc,
          "__floor__": math.floor, "__ceil__": math.ceil, "__round__": builtins.round}


def plain_result(method, *args):
    """What `method` gives on the plain values (a constant): NotImplemented where it
    declines, and its own exceptions."""
    return method(*args)


def _swapped(jvp):
    """A reflected dunder's jvp: `kind.__rsub__(a, b)` is `b - a`."""
    return lambda g, ans, a, b, *rest: jvp(g, ans, b, a, *rest)


# dunder -> the function of its value, keyed by its operator's rule (the dunder's
# own key holds the model, which declines first)
VALUES: dict = {}
# dunder written in Python -> its code, run in the context for other objects
BODIES: dict = {}


def _binary(kind, name, operator, reflected):
    """The rules of the dunder `kind.name`: its model, and its value's rule."""
    dunder = getattr(kind, name)

    def value(*args):
        return dunder(*args)

    value.__name__, value.__module__ = name, kind.__module__
    value.__qualname__ = f"{kind.__qualname__}.{name}"
    rule = RULES[operator]
    if reflected and type(rule) is Jvp:
        first, second, *rest = rule.jvps
        defjvp(value, _swapped(second), _swapped(first), *map(_swapped, rest))
    else:
        defsame(value, operator)
    VALUES[dunder] = value
    if type(dunder) is types.FunctionType:
        BODIES[dunder] = body(dunder)
    defmodel(dunder, lambda *args: declining(dunder, *args))


def declining(dunder, *args):
    """A binary dunder, run in the context: NotImplemented where it declines on the
    plain values, else its value, with its operator's tangent; its own code, given
    an object that is not a number (whose Python method that code may call). Not
    given numbers only: Fraction's code computes with their integer parts (gcd,
    floor division), which carry no derivative."""
    if dunder in BODIES and not all(isinstance(a, numbers.Number) for a in args):
        return BODIES[dunder](*args)
    if plain_result(dunder, *args) is NotImplemented:
        return NotImplemented
    return VALUES[dunder](*args)


def _ratio(method):
    """The model of `method`, an `as_integer_ratio`."""
    def as_integer_ratio(x):
        n, d = plain_result(method, x)
        return numerator_of(x, n, d, method), d
    return as_integer_ratio


def numerator_of(x, n, d, method):
    """`n`, the numerator of `x` over the constant `d`."""
    return n


for _kind in _KINDS:
    for _name, _operator in _BINARY.items():
        for _reflected, _dunder in ((False, f"__{_name}__"), (True, f"__r{_name}__")):
            if hasattr(_kind, _dunder):
                _binary(_kind, _dunder, _operator, _reflected)
    for _dunder, _operator in _UNARY.items():
        if hasattr(_kind, _dunder):
            defsame(getattr(_kind, _dunder), _operator)
for _method in (int.as_integer_ratio, float.as_integer_ratio, Fraction.as_integer_ratio,
                mpmath.mpf.as_integer_ratio):
    defmodel(_method, _ratio(_method))

defjvp(numerator_of, lambda g, ans, x, n, d, method: numerator_tangent(g, d, method))
defconstant(plain_result, Fraction.limit_denominator)
defjvp(Fraction.__copy__, lambda g, ans, x: g)
defjvp(Fraction.__deepcopy__, lambda g, ans, x, memo: g)
