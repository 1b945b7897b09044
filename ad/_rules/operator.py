"""Rules for the `operator` module: what every arithmetic operator lowers to."""

import operator as op

from ad._rules._support import dabs, pow_base, pow_exponent, python_dunder
from ad._rules._table import defconstant, defjvp, defmodel, defsame


def _divmod(x, y):
    """Of numbers (and arrays): the quotient, a constant, and `x % y`, whose rule gives
    the remainder's derivative. Where an operand's class defines `__divmod__` or
    `__rdivmod__` in Python, those, which `x % y` need not agree with (nor exist for)."""
    if python_dunder(type(x), ("__divmod__",)) or python_dunder(type(y), ("__rdivmod__",)):
        return _by_methods(x, y)
    quotient, _ = _plain_divmod(x, y)  # raises as divmod does
    return quotient, x % y


def _by_methods(x, y):
    """`divmod(x, y)` by the Python methods CPython would pick, run in the context:
    the right operand's `__rdivmod__` first if its type is a proper subclass of the
    left's that overrides it. (A C method there answers NotImplemented.)"""
    left, right = type(x), type(y)
    forward = (python_dunder(type(x), ("__divmod__",)), x, y)
    reflected = (python_dunder(type(y), ("__rdivmod__",)) if right is not left else None, y, x)
    subclass_first = reflected[0] is not None and issubclass(right, left) and \
        reflected[0] is not getattr(left, "__rdivmod__", None)
    for method, first, second in (reflected, forward) if subclass_first else (forward, reflected):
        if method is not None:
            result = method(first, second)
            if result is not NotImplemented:
                return result
    raise TypeError(f"unsupported operand type(s) for divmod(): '{left.__name__}' and "
                    f"'{right.__name__}'")


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
