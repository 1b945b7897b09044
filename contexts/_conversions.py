"""Conversions on user classes: the dunders a C builtin calls, called in the context.

`float(obj)` in C calls `type(obj).__float__` where no context sees it, so a
user `__float__` that computes with the context's values (a closure's `x`)
would run natively on plain ones. As `_protocols` does for operators, the
context resolves such a builtin to a `converter`: when an argument's class
defines the dunder the builtin calls in Python, `convert` (run transformed,
like a model) calls it in the context, checks its result as CPython does, and
either returns it (`float(obj)` is what `obj.__float__()` gives) or calls the
builtin on it in the context (`math.sin(obj)` is `math.sin(float(obj))`).
Otherwise the builtin runs exactly as before: natively, or through `fallback`.

`CONVERSIONS` is the table: a builtin, the dunders it tries in CPython's order,
and which of its arguments it converts. A builtin whose dunder is another's
(`abs`: `__abs__`, `round`: `__round__`, `complex`: `__complex__`) is one more line.
"""

from __future__ import annotations

import builtins as native
import math
import operator
from typing import Any, Callable, NamedTuple

from contexts._canonical import class_attribute
from contexts._marks import dispatched, enclosed, nativecalls, quietmodule, seen
from contexts._protocols import _python as python_method

quietmodule(__name__)  # hooks see the dunder `convert` calls, not its own steps
nativecalls(__name__, "native", "_bad_result")


class Dunder(NamedTuple):
    """One dunder a builtin may call on an argument."""

    name: str
    result: type | None  # the type CPython requires of its result (None: any)
    then_call: bool  # whether the builtin is then called on the result (else it is the answer)


class Conversion(NamedTuple):
    """What a builtin calls on its arguments' classes."""

    dunders: tuple  # of Dunder, in the order CPython tries them
    arities: tuple | None  # the argument counts for which it calls one (None: any)
    every_argument: bool = False  # each argument (math), else the first only


_FLOAT = Dunder("__float__", float, False)
_FLOAT_THEN = Dunder("__float__", float, True)
_INDEX = Dunder("__index__", int, False)

# math functions that take floats: each argument with a Python `__float__` is
# converted in the context, then the function is called (its rule applies).
_FLOAT_MATH = (
    math.acos, math.acosh, math.asin, math.asinh, math.atan, math.atan2, math.atanh,
    math.copysign, math.cos, math.cosh, math.degrees, math.erf, math.erfc, math.exp,
    math.expm1, math.fabs, math.fmod, math.gamma, math.hypot, math.isclose,
    math.isfinite, math.isinf, math.isnan, math.lgamma, math.log, math.log10,
    math.log1p, math.log2, math.pow, math.radians, math.remainder, math.sin,
    math.sinh, math.sqrt, math.tan, math.tanh,
    *[getattr(math, name) for name in ("cbrt", "exp2") if hasattr(math, name)])

CONVERSIONS: dict = {
    float: Conversion((_FLOAT, Dunder("__index__", int, True)), (1,)),
    int: Conversion((Dunder("__int__", int, False), _INDEX), (1,)),
    operator.index: Conversion((_INDEX,), (1,)),
    range: Conversion((Dunder("__index__", int, True),), (1, 2, 3), every_argument=True),
    format: Conversion((Dunder("__format__", str, False),), (1, 2)),
    math.floor: Conversion((Dunder("__floor__", None, False), _FLOAT_THEN), (1,)),
    math.ceil: Conversion((Dunder("__ceil__", None, False), _FLOAT_THEN), (1,)),
    math.trunc: Conversion((Dunder("__trunc__", None, False),), (1,)),
    **{f: Conversion((_FLOAT_THEN,), None, every_argument=True) for f in _FLOAT_MATH},
}

_NATIVE_TYPES = frozenset({int, float, complex, bool, str, bytes, bytearray, type(None)})
_ABSENT = object()


def has_conversion(f: Any) -> bool:
    """Whether `f` is a builtin that may call a user class's conversion dunder."""
    try:
        return f in CONVERSIONS
    except TypeError:
        return False


def converter(f: Callable, foreign: Callable, convert_in_context: Callable,
              kind_of: Callable = type) -> Callable:
    """`f` as a context runs it: `foreign` unless an argument's dunder is Python
    (its class as `kind_of` tells it). A context enclosing this one runs the
    same natively, with `foreign`, `convert_in_context` and `kind_of` as it
    resolves them (see `enclosed`): what it must see of the call is only those."""
    conversion = CONVERSIONS[f]

    def run(*args, **kwargs):
        steps = None if kwargs else plan(conversion, args, kind_of)
        if steps is None:
            return foreign(*args, **kwargs)
        return convert_in_context(f, steps, args)

    return enclosed(run, lambda outer: converter(
        f, outer(foreign), dispatched(outer, convert_in_context), outer(kind_of)))


def plan(conversion: Conversion, args: tuple, kind_of: Callable = type) -> list | None:
    """`[(position, dunder, method)]` for the arguments whose dunder is Python, or None."""
    if conversion.arities is not None and len(args) not in conversion.arities:
        return None
    steps = []
    for position in range(len(args) if conversion.every_argument else 1):
        kind = kind_of(args[position])
        if kind in _NATIVE_TYPES:
            continue
        for dunder in conversion.dunders:
            method = class_attribute(kind, dunder.name, _ABSENT)
            if method is _ABSENT or method is None:
                continue  # CPython tries the next one
            if python_method(method):
                steps.append((position, dunder, method))
            break  # a C slot answers natively
    return steps or None


def convert(f, steps, args):
    """Call the planned dunders in the context; then `f` on their results, or the result."""
    args = native.list(args)
    for position, dunder, method in steps:
        value = seen(method(args[position], *_rest(f, args)))
        kind = type(value)  # asked in the context: a layer's wrapper is seen through
        if dunder.result is not None and not native.issubclass(kind, dunder.result):
            raise _bad_result(args[position], dunder, kind)
        if not dunder.then_call:
            return value
        args[position] = value
    return f(*args)


def _rest(f, args):
    """What a dunder gets besides the object: `format`'s spec (`''` by default)."""
    if operator.is_(f, format):
        return args[1:] if native.len(args) > 1 else ("",)
    return ()


def _bad_result(obj: Any, dunder: Dunder, kind: type) -> TypeError:
    """CPython's error for a conversion dunder that returned the wrong type."""
    owner = type(obj).__name__
    if dunder.name == "__format__":
        return TypeError(f"__format__ must return a str, not {kind.__name__}")
    expected = "float" if dunder.result is float else "int"
    return TypeError(f"{owner}.{dunder.name} returned non-{expected} (type {kind.__name__})")
