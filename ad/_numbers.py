"""The numbers `ad` differentiates, and the tangents they carry.

A tangent lives in its primal's type: an int point is seeded with the int 1, a
`Fraction` with `Fraction(1)`, an `mpf` with `mpf(1)` (at the working precision),
and arithmetic on tangents promotes them as Python promotes the primals.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

NUMBERS = (int, float, complex, Fraction, mpmath.mpf, mpmath.mpc)
# Arguments a rule takes as they are; any other object (a list, a user class
# with `__add__`) sends the call to the engine, which runs its Python code. Not
# `str`: with one, an operator formats or repeats text (`"%.3f" % x`, `"-" * n`),
# which runs on the plain values and carries no derivative. A set, so that the
# numpy scalar types join it when numpy is first seen (`add_number_types`).
SCALARS = set(NUMBERS) | {bool, type(None)}


def add_number_types(kinds: tuple) -> None:
    """Make `kinds` numbers like Python's (numpy's scalar types, when numpy is first
    seen: `import ad` does not import it). `NUMBERS` is read through this module
    (`_numbers.NUMBERS`) by whoever must see the types added later."""
    global NUMBERS
    NUMBERS = (*NUMBERS, *[kind for kind in kinds if kind not in NUMBERS])
    SCALARS.update(kinds)


def is_number(x: Any) -> bool:
    return isinstance(x, NUMBERS) and type(x) is not bool


def one_like(x: Any) -> Any:
    """The seed tangent of a point: 1 in the point's own type."""
    return type(x)(1)


def zero_like(x: Any) -> Any:
    """The tangent of a result that does not depend on the point: 0 in its type."""
    return type(x)(0) if is_number(x) else 0
