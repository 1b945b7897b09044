"""The rule table: how each function the engine cannot see into is differentiated.

A table line says what a function's derivative is, in one of four ways:

* `defjvp(f, jvp_0, jvp_1, ...)`: one function per argument, `jvp_i(g, ans, *args)`
  is the tangent `f`'s result gets from argument i's tangent `g` (autograd's form);
  arguments with no tangent are skipped, so their term is never computed.
* `defconstant(f, ...)`: piecewise constant, boolean or not numeric (`floor`, `<`,
  `len`, `hash`): runs on the plain values; the result carries no tangent.
* `defrefused(f, ...)`: runs on the plain values, and a number it returns is refused
  (a method of a number with no rule: `x.as_integer_ratio()`).
* `defmodel(f, model)`: a Python function that computes what `f` computes, run in
  the context, for functions that take containers or return several numbers
  (`math.fsum`, `divmod`): the engine then sees every number they touch.

Keys are the functions as they are called; a bound method (`mpmath.mp.power`) is
keyed by its function and its receiver is passed first, undifferentiated. A user
rule for a callable that cannot be a key (a `ctypes` function is unhashable) is
kept by identity beside the table: `rule_of` and `set_rule` read and write both.
"""

from __future__ import annotations

import types
from typing import Callable

import attrs

RULES: dict = {}  # function -> Jvp, Constant, Refused, Model or User
_UNHASHABLE: dict = {}  # id(f) -> (f, its User rule), for a callable that cannot be a key


@attrs.frozen
class Jvp:
    """Tangent rules per argument; `bound` when the key is a method of a receiver."""

    jvps: tuple
    bound: bool = False
    variadic: Callable | None = None  # jvp(gs, ans, *args) for every argument at once


@attrs.frozen
class Constant:
    """The result carries no tangent."""


@attrs.frozen
class Refused:
    """No rule: a number computed from a value with a tangent is refused."""


@attrs.frozen
class Model:
    """A Python function run in the context instead of `f`."""

    function: Callable


@attrs.frozen
class User:
    """A rule registered with `ad.rule`: `(primals, tangents) -> (value, tangent)`."""

    function: Callable
    name: str
    replaces: object = None  # the built-in rule it stands in for, back when it is removed


def rule_of(f: Callable) -> object:
    """`f`'s rule, or None."""
    try:
        return RULES.get(f)
    except TypeError:  # unhashable: found by identity
        entry = _UNHASHABLE.get(id(f))
        return None if entry is None else entry[1]


def set_rule(f: Callable, rule: object) -> None:
    """Give `f` the rule `rule`; None removes its rule."""
    try:
        if rule is None:
            RULES.pop(f, None)
        else:
            RULES[f] = rule
    except TypeError:  # unhashable: kept by identity (the entry holds `f`, so its id stays its own)
        if rule is None:
            _UNHASHABLE.pop(id(f), None)
        else:
            _UNHASHABLE[id(f)] = (f, rule)


def _key(f: Callable) -> tuple:
    """(key, bound): a bound method is keyed by its function."""
    if type(f) is types.MethodType:
        return f.__func__, True
    return f, False


def defjvp(f: Callable, *jvps: Callable) -> None:
    key, bound = _key(f)
    RULES[key] = Jvp(jvps, bound)


def defjvp_all(f: Callable, jvp: Callable) -> None:
    """A rule for a function of any number of arguments: `jvp(gs, ans, *args)`, with
    `gs` the tangents (0 where an argument has none)."""
    key, bound = _key(f)
    RULES[key] = Jvp((), bound, jvp)


def defconstant(*functions: Callable) -> None:
    for f in functions:
        RULES[_key(f)[0]] = CONSTANT


def defrefused(*functions: Callable) -> None:
    for f in functions:
        RULES[_key(f)[0]] = REFUSED


def defmodel(f: Callable, model: Callable) -> None:
    RULES[_key(f)[0]] = Model(model)


CONSTANT = Constant()
REFUSED = Refused()


def defsame(f: Callable, like: Callable) -> None:
    """`f` has the rule of `like` (an in-place operator, a builtin's twin)."""
    RULES[_key(f)[0]] = RULES[_key(like)[0]]
