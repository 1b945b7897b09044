"""The numbers `ad` differentiates, and the tangents they carry.

A tangent lives in its primal's type: an int point is seeded with the int 1, a
`Fraction` with `Fraction(1)`, an `mpf` with `mpf(1)` (at the working precision),
and arithmetic on tangents promotes them as Python promotes the primals.
"""

from __future__ import annotations

import numbers
import types
import weakref
from fractions import Fraction
from typing import Any

import mpmath

NUMBERS = (int, float, complex, Fraction, mpmath.mpf, mpmath.mpc)
# Arguments a rule takes as they are; any other object (a list, a user class
# with `__add__`) sends the call to the engine, which runs its Python code. Not
# `str`: with one, an operator formats or repeats text (`"%.3f" % x`, `"-" * n`),
# which runs on the plain values and carries no derivative.
SCALARS = frozenset(NUMBERS) | {bool, type(None)}


_ARITHMETIC = frozenset(f"__{name}__" for name in (
    "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod divmod rdivmod "
    "pow rpow matmul rmatmul and rand or ror xor rxor lshift rlshift rshift rrshift neg pos "
    "abs invert").split())
_constant_kinds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def is_constant_number(kind: type) -> bool:
    """Whether values of `kind`, a type outside `NUMBERS`, are numbers with no
    operator of their own in Python (an `IntEnum`, a `float` or `Fraction`
    subclass that adds none, `Decimal`, numpy's scalars): a rule takes them as
    constants, as it takes a float. A class that defines an operator in Python is
    not one: the engine runs that code."""
    found = _constant_kinds.get(kind)
    if found is None:
        found = issubclass(kind, numbers.Number) and not any(
            type(vars(cls).get(name)) is types.FunctionType
            for cls in _own_classes(kind) for name in _ARITHMETIC)
        _constant_kinds[kind] = found
    return found


def _own_classes(kind: type) -> list:
    """The classes of `kind`'s MRO before its base among `NUMBERS` (whose
    operators the rules stand for)."""
    own = []
    for cls in kind.__mro__:
        if cls in NUMBERS:
            break
        own.append(cls)
    return own


def is_number(x: Any) -> bool:
    return isinstance(x, NUMBERS) and type(x) is not bool


def one_like(x: Any) -> Any:
    """The seed tangent of a point: 1 in the point's own type."""
    return type(x)(1)


def zero_like(x: Any) -> Any:
    """The tangent of a result that does not depend on the point: 0 in its type."""
    return type(x)(0) if is_number(x) else 0
