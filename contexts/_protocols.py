"""Operators on user classes: the dunders an operator calls, called in the context.

Lowering makes `a + b` the call `operator.add(a, b)`. Run natively, CPython would
call `type(a).__add__` (or `type(b).__radd__`) where no context sees it, so the
context resolves an operator function to a `dispatcher`: when an operand's class
defines the operator's method in Python, `plan` lists the methods CPython would
try, in its order, and `perform` (run transformed, like a model) calls them
through the context, so hooks see `Vec.__add__` and the engine recurses into it.
Otherwise the operator runs exactly as before: natively, or through `fallback`.
"""

from __future__ import annotations

import builtins as native
import operator
import types
from typing import Any, Callable

from contexts._canonical import class_attribute
from contexts._operators import (BINARY_METHODS, COMPARE_METHODS, DIRECT_METHODS,
                                 INPLACE_METHODS, INPLACE_SYMBOLS, SYMBOLS)
from contexts._marks import nativecalls, natively_here, quietmodule, seen
from contexts._models import iterator_of

quietmodule(__name__)  # hooks see the dunders `perform` calls, not its own steps
nativecalls(__name__, "native", "operator", "_answers", "_result")

_NATIVE_TYPES = frozenset({int, float, complex, bool, str, bytes, bytearray, type(None),
                           list, tuple, dict, set, frozenset, range, slice})
_C_METHODS = (types.WrapperDescriptorType, types.MethodDescriptorType)
_ABSENT = object()


def has_protocol(op: Any) -> bool:
    """Whether `op` is an operator function that may call a user class's dunder."""
    try:
        return (op in BINARY_METHODS or op in INPLACE_METHODS or op in COMPARE_METHODS
                or op in DIRECT_METHODS)
    except TypeError:
        return False


def dispatcher(op: Callable, foreign: Callable, perform: Callable) -> Callable:
    """`op` as a context runs it: `foreign` unless a Python dunder is involved."""

    def run(*args):
        steps = plan(op, args)
        return perform(op, steps, args) if steps else foreign(*args)

    def run2(a, b, /):  # the common case, kept short: it runs for every `x + y`
        if type(a) in _NATIVE_TYPES and type(b) in _NATIVE_TYPES:
            return foreign(a, b)
        return run(a, b)

    return run2 if op in BINARY_METHODS or op in COMPARE_METHODS or op in INPLACE_METHODS else run


def perform(op, steps, args):
    """Call the planned methods in order (in the context); the first answer wins."""
    for method, operands, python in steps:
        if operator.is_(method, search):  # the engine's loop: in the context, unseen
            result = method(*operands)
        elif python:
            result = seen(method(*operands))
        else:  # a C method: native here, a call of its own for an enclosing context
            result = natively_here(method)(*operands)
        if _answers(op, result):
            return _result(op, result)
    return _unanswered(op, args)


def plan(op: Callable, args: tuple) -> list | None:
    """`[(method, operands, whether it runs in the context)]`, or None for native."""
    for arg in args:
        if type(arg) not in _NATIVE_TYPES:
            break
    else:
        return None
    if op in DIRECT_METHODS:
        kind = type(args[0])
        method = class_attribute(kind, DIRECT_METHODS[op], _ABSENT)
        if method is _ABSENT and op is operator.contains and _iterates_in_python(kind):
            return [(search, args, True)]
        if method is _ABSENT and op is operator.getitem and native.isinstance(args[0], type):
            method = _class_getitem(args[0])
        return [(method, args, True)] if _python(method) else None
    if op in INPLACE_METHODS:
        name, binary = INPLACE_METHODS[op]
        method = class_attribute(type(args[0]), name)
        if not _known(method):
            return None
        steps = _binary_steps(binary, *args, force=_python(method))
        if steps is None:
            return None
        return ([_step(method, args)] if method is not None else []) + steps
    if op in BINARY_METHODS:
        return _binary_steps(op, *args)
    return _compare_steps(op, *args)


def _class_getitem(cls: type):
    """`cls[key]` of a class whose metaclass has no `__getitem__` calls its
    `__class_getitem__` (an implicit classmethod): its function, given the class."""
    found = native.getattr(cls, "__class_getitem__", None)
    return native.getattr(found, "__func__", _ABSENT)


def _iterates_in_python(kind: type) -> bool:
    """Whether iterating a `kind` runs a Python `__iter__` (or, lacking one, `__getitem__`)."""
    method = class_attribute(kind, "__iter__", _ABSENT)
    if method is _ABSENT:
        method = class_attribute(kind, "__getitem__")
    return _python(method)


def search(container, item):
    """`item in container` for a type without `__contains__`: CPython iterates it.

    Run in the context, like `perform`, so the `__iter__`, `__next__` or
    `__getitem__` calls are calls in it, as in any loop.
    """
    try:
        elements = iterator_of(container)
    except TypeError:
        elements = None
    if elements is None:  # raised outside the handler: CPython's error has no context
        kind = native.type(container)
        raise TypeError(f"argument of type '{kind.__name__}' is not iterable")
    for element in elements:
        if element is item or seen(element == item):
            return True
    return False


def _binary_steps(op, a, b, force=False):
    name, reflected_name = BINARY_METHODS[op]
    ta, tb = type(a), type(b)
    forward = class_attribute(ta, name)
    reflected = class_attribute(tb, reflected_name) if tb is not ta else None
    if not (force or _worth(forward, reflected)) or not _known(forward, reflected):
        return None
    overrides = reflected is not None and issubclass(tb, ta) and \
        reflected is not class_attribute(ta, reflected_name)
    return _ordered(forward, reflected, a, b, reflected_first=overrides)


def _compare_steps(op, a, b):
    name, reflected_name = COMPARE_METHODS[op]
    ta, tb = type(a), type(b)
    forward, reflected = class_attribute(ta, name), class_attribute(tb, reflected_name)
    if not _worth(forward, reflected) or not _known(forward, reflected):
        return None
    return _ordered(forward, reflected, a, b, reflected_first=tb is not ta and issubclass(tb, ta))


def _ordered(forward, reflected, a, b, reflected_first: bool) -> list:
    """CPython's order: a subclass's reflected method first, then forward, then reflected."""
    steps = []
    if reflected is not None and reflected_first:
        steps.append(_step(reflected, (b, a)))
        reflected = None
    if forward is not None:
        steps.append(_step(forward, (a, b)))
    if reflected is not None:
        steps.append(_step(reflected, (b, a)))
    return steps


def _step(method, operands):
    return method, operands, _python(method)


def _python(method) -> bool:
    """Whether `method` is Python code the context should see (not marked `slotlike`)."""
    return type(method) is types.FunctionType and "__ovd_slotlike__" not in method.__dict__


def _worth(*methods) -> bool:
    return any(_python(m) for m in methods)


def _known(*methods) -> bool:
    """Whether every method is a plain function or a C slot (else leave it native)."""
    return all(m is None or type(m) is types.FunctionType or isinstance(m, _C_METHODS)
               for m in methods)


def _answers(op, result) -> bool:
    return result is not NotImplemented or op in DIRECT_METHODS


def _result(op, result):
    return bool(result) if op is operator.contains else result


def _unanswered(op, args):
    """CPython's answer when no method answered: identity for `==`, else its
    TypeError. Run in the context (not native), so `type(b)` is what the user's
    code sees: `float`, not a layer's wrapper of it."""
    a, b = args
    if op is operator.eq:
        return a is b
    if op is operator.ne:
        return a is not b
    names = f"'{type(a).__name__}' and '{type(b).__name__}'"
    if op in COMPARE_METHODS:
        raise TypeError(f"'{SYMBOLS[op]}' not supported between instances of {names}")
    symbol = INPLACE_SYMBOLS.get(op) or SYMBOLS[op]
    if op is operator.pow:
        symbol = "** or pow()"
    raise TypeError(f"unsupported operand type(s) for {symbol}: {names}")
