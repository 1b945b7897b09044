"""Rules for the `operator` module: what every arithmetic operator lowers to."""

import operator as op

from ad._rules._support import dabs, pow_base, pow_exponent
from ad._rules._table import defconstant, defjvp, defmodel, defsame


def _divmod(x, y):
    quotient, _ = _plain_divmod(x, y)  # raises as divmod does
    return quotient, x % y


def _plain_divmod(x, y):
    return divmod(x, y)


defjvp(op.add, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
defjvp(op.sub, lambda g, ans, x, y: g, lambda g, ans, x, y: -g)
defjvp(op.mul, lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g)
defjvp(op.truediv, lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y)
defjvp(op.mod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * (x // y))
defjvp(op.pow, pow_base, pow_exponent)
defjvp(op.neg, lambda g, ans, x: -g)
defjvp(op.pos, lambda g, ans, x: +g)
defjvp(op.abs, dabs)
defmodel(divmod, _divmod)
defconstant(op.floordiv, op.lt, op.le, op.gt, op.ge, op.eq, op.ne, op.not_, op.truth,
            op.is_, op.is_not, op.contains, op.index, _plain_divmod)

for in_place, plain in ((op.iadd, op.add), (op.isub, op.sub), (op.imul, op.mul),
                        (op.itruediv, op.truediv), (op.imod, op.mod), (op.ipow, op.pow),
                        (op.ifloordiv, op.floordiv)):
    defsame(in_place, plain)
