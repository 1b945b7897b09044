"""Run-time helpers for the calls Python makes implicitly: iteration, `yield from`,
properties, `with`, truth tests.

Generated code calls these (bound to one context) where the protocol pass put
them. Each does the native thing when no Python code would run, and otherwise
makes the Python method a call in the context, so hooks see a property's
getter, a `Silo.__iter__` or a manager's `__enter__` like any other call.
"""

from __future__ import annotations

import builtins as native
import types
from typing import Any, Callable

from contexts._canonical import class_attribute
from contexts._lookups import Lookups, current, remembered
from contexts._marks import nativecalls

# The truth test's type is the value's own: a layer's wrapper, for an enclosing
# context running this code, answers natively (its number's `__bool__` unasked).
nativecalls(__name__, "native")

_NATIVE_ITERABLES = frozenset({list, tuple, dict, set, frozenset, str, bytes, bytearray,
                               range, type({}.keys()), type({}.values()),
                               type({}.items()), types.GeneratorType})
_ABSENT = object()
# Remembered per type, each answer with the check that it is still current
# (`contexts._lookups`): a class may change after its first use.
_truth_methods: dict = {}  # type -> (what `_truth_method` found, check)
GETTERS: dict = {}  # (type, name) -> (`getter_route`'s answer, check)
SETTERS: dict = {}  # (type, name) -> (`setter_route`'s answer, check)
DELETERS: dict = {}  # (type, name) -> (`deleter_route`'s answer, check)


def getter_route(kind: type, name: str) -> tuple | None:
    """How `obj.name` runs Python code for a `kind`, or None when the lookup is native.

    `(function, leading, trailing, data, hook)`: CPython calls
    `function(*leading, obj, *trailing)` (a Python `__getattribute__`, a
    property's getter, a Python descriptor's `__get__`, which an instance's own
    attribute shadows unless `data`); `hook` is a Python `__getattr__` it calls
    when that raises AttributeError. `function` is None when only the hook is Python.
    """
    return current(GETTERS, (kind, name), _getter_route, kind, name)


def _getter_route(lookups: Lookups, kind: type, name: str) -> tuple | None:
    hook = lookups.python_method(kind, "__getattr__")
    getattribute = lookups.python_method(kind, "__getattribute__")
    if getattribute is not None:
        return getattribute, (), (name,), True, hook
    attribute = lookups.attribute(kind, name)
    function, leading, trailing, data = None, (), (), True
    if isinstance(attribute, property):
        if type(attribute.fget) is types.FunctionType:
            function = attribute.fget
    elif attribute is not None:
        get = lookups.python_method(type(attribute), "__get__")
        if get is not None:
            function, leading, trailing = get, (attribute,), (kind,)
            data = lookups.attribute(type(attribute), "__set__") is not None or \
                lookups.attribute(type(attribute), "__delete__") is not None
    if function is None and hook is None:
        return None
    return function, leading, trailing, data, hook


def property_getter(kind: type, name: str) -> Callable | None:
    """The Python getter of a property `name` of `kind`, if `obj.name` just calls it
    (no Python `__getattribute__` deciding for itself, no `__getattr__` to fall to)."""
    route = getter_route(kind, name)
    if route is None:
        return None
    function, leading, trailing, _, hook = route
    return function if not leading and not trailing and hook is None else None


def setter_route(kind: type, name: str) -> tuple | None:
    """How storing `obj.name` runs Python code for a `kind`, or None when it is native.

    `(function, leading, takes_name)`: CPython calls `function(obj, name, value)`
    (a Python `__setattr__`, first) or `function(*leading, obj, value)` (a
    property's setter, a Python descriptor's `__set__`).
    """
    return current(SETTERS, (kind, name), _setter_route, kind, name)


def _setter_route(lookups: Lookups, kind: type, name: str) -> tuple | None:
    custom = lookups.python_method(kind, "__setattr__")
    if custom is not None:
        return (custom, (), True)
    attribute = lookups.attribute(kind, name)
    if isinstance(attribute, property):
        if type(attribute.fset) is types.FunctionType:
            return (attribute.fset, (), False)
        return None
    if attribute is not None:
        setter = lookups.python_method(type(attribute), "__set__")
        if setter is not None:
            return (setter, (attribute,), False)
    return None


def deleter_route(kind: type, name: str) -> tuple | None:
    """How `del obj.name` runs Python code for a `kind`, or None when it is native:
    as `setter_route`, with `__delattr__`, a property's deleter, a descriptor's
    `__delete__`, called without a value."""
    return current(DELETERS, (kind, name), _deleter_route, kind, name)


def _deleter_route(lookups: Lookups, kind: type, name: str) -> tuple | None:
    custom = lookups.python_method(kind, "__delattr__")
    if custom is not None:
        return (custom, (), True)
    attribute = lookups.attribute(kind, name)
    if isinstance(attribute, property):
        if type(attribute.fdel) is types.FunctionType:
            return (attribute.fdel, (), False)
        return None
    if attribute is not None:
        deleter = lookups.python_method(type(attribute), "__delete__")
        if deleter is not None:
            return (deleter, (attribute,), False)
    return None


def make_iterate(call1: Callable, drive: Callable) -> Callable:
    """`for x in s`: `iter(s)` as a call; an iterator with a Python `__next__` is driven
    by `drive`, so each step is a call in the context too (`iter(s)` itself returns
    the iterator unchanged, as in CPython)."""
    def iterate(iterable):
        if _iterates_natively(type(iterable)):
            return iterable
        iterator = call1(iter, iterable)
        if _python_method(type(iterator), "__next__"):
            return drive(iterator)
        return iterator

    return iterate


def make_yield_from(call1: Callable, delegate: Callable) -> Callable:
    """`yield from s`: `iter(s)` as a call, as for a loop. A generator or C iterator
    is then delegated to natively; an iterator with a Python `__next__` (or
    `__iter__`, which `yield from` would call again) by `delegate`, so that its
    `__next__`, `send`, `throw` and `close` are calls in the context."""
    def yield_from(iterable):
        if _iterates_natively(type(iterable)):
            return iterable  # generators and coroutines among them: no `iter` call
        iterator = call1(iter, iterable)
        kind = type(iterator)
        if _python_method(kind, "__next__") or _python_method(kind, "__iter__"):
            return delegate(iterator)
        return iterator

    return yield_from


def _iterates_natively(kind: type) -> bool:
    """Whether iterating a `kind` is left to the native site (also when it cannot
    be iterated: the site raises its own error)."""
    return kind in _NATIVE_ITERABLES or (class_attribute(kind, "__iter__") is None and
                                         class_attribute(kind, "__getitem__") is None)


def _python_method(kind: type, name: str) -> bool:
    return type(class_attribute(kind, name)) is types.FunctionType


def make_attribute(call1: Callable) -> Callable:
    def attribute(obj, name):
        getter = property_getter(type(obj), name)
        return getattr(obj, name) if getter is None else call1(getter, obj)

    return attribute


def make_setattribute(call2: Callable, call3: Callable) -> Callable:
    def setattribute(obj, name, value):
        route = setter_route(type(obj), name)
        if route is None:
            setattr(obj, name, value)
            return
        function, leading, takes_name = route
        if takes_name:
            call3(function, obj, name, value)
        elif leading:
            call3(function, *leading, obj, value)
        else:
            call2(function, obj, value)

    return setattribute


def make_delattribute(call1: Callable, call2: Callable) -> Callable:
    def delattribute(obj, name):
        route = deleter_route(type(obj), name)
        if route is None:
            delattr(obj, name)
            return
        function, leading, takes_name = route
        if takes_name:
            call2(function, obj, name)
        elif leading:
            call2(function, *leading, obj)
        else:
            call1(function, obj)

    return delattribute


def make_truth(call1: Callable) -> Callable:
    """A truth test: a Python `__bool__` (or, lacking one, `__len__`) is a call in
    the context, and its answer is checked and converted as CPython does."""
    def truth(value):
        kind = native.type(value)
        found = _truth_methods.get(kind)
        if found is None or (found[1] is not None and not found[1]()):
            found = _truth_methods[kind] = remembered(_truth_method, kind)
        if found[0] is None:
            return value  # the native test runs no Python code
        method, checked = found[0]
        return bool(checked(call1(method, value)))

    return truth


def _truth_method(lookups: Lookups, kind: type) -> tuple | None:
    """`(method, checked)`: the Python method a truth test of a `kind` calls and the
    class whose `bool()` checks its answer; None when the test runs no Python code
    (a layer's wrapper answers with a `slotlike` method: the native test asks it)."""
    method = lookups.attribute(kind, "__bool__", _ABSENT)
    if method is not _ABSENT:
        return (method, _Said) if _python(method) else None
    method = lookups.attribute(kind, "__len__")
    return (method, _Counted) if _python(method) else None


def _python(method: Any) -> bool:
    return type(method) is types.FunctionType and "__ovd_slotlike__" not in method.__dict__


class _Said:
    """What a `__bool__` answered: `bool()` of it checks the answer as CPython does."""

    __slots__ = ("answer",)

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def __bool__(self):
        return self.answer


class _Counted:
    """What a `__len__` answered: `bool()` of it checks the answer as CPython does."""

    __slots__ = ("answer",)

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def __len__(self):
        return self.answer


class _Managed:
    """A context manager whose enter and exit methods run in the context (CPython
    calls them natively; an `async def` one would make a coroutine of its
    untransformed code): `with`'s `__enter__` and `__exit__`, and `async with`'s
    `__aenter__` and `__aexit__`, whose calls give what is awaited."""

    __slots__ = ("manager", "enter", "exit", "call")

    def __init__(self, manager: Any, enter: str, exit: Callable, call: Callable) -> None:
        self.manager, self.enter, self.exit, self.call = manager, enter, exit, call

    def __enter__(self):
        return self.call(getattr(type(self.manager), self.enter), (self.manager,), {})

    def __exit__(self, kind, value, traceback):
        return self.call(self.exit, (self.manager, kind, value, traceback), {})

    __aenter__, __aexit__ = __enter__, __exit__


def _manager_wrapper(enter: str, exit: str) -> Callable:
    """`make_with` (`enter` and `exit` name `with`'s methods) or `make_async_with`."""
    def make(callx: Callable) -> Callable:
        def managed(manager):
            kind = type(manager)
            exit_method = class_attribute(kind, exit)
            if type(class_attribute(kind, enter)) is not types.FunctionType and \
                    type(exit_method) is not types.FunctionType:
                return manager
            return _Managed(manager, enter, exit_method, callx)

        return managed

    return make


make_with = _manager_wrapper("__enter__", "__exit__")
make_async_with = _manager_wrapper("__aenter__", "__aexit__")


class _AsyncIterated:
    """An async iterator whose `__anext__` runs in the context (its `__aiter__`
    did, when this was made), as `_Managed`'s methods do."""

    __slots__ = ("iterator", "call")

    def __init__(self, iterator: Any, call: Callable) -> None:
        self.iterator, self.call = iterator, call

    def __aiter__(self):
        return self

    def __anext__(self):
        return self.call(type(self.iterator).__anext__, (self.iterator,), {})


def make_async_iterate(callx: Callable) -> Callable:
    def iterated(iterable):
        kind = type(iterable)
        start = class_attribute(kind, "__aiter__")
        if start is None or type(start) is not types.FunctionType and \
                type(class_attribute(kind, "__anext__")) is not types.FunctionType:
            return iterable  # (an async generator, or CPython's own error)
        iterator = callx(kind.__aiter__, (iterable,), {})
        if type(class_attribute(type(iterator), "__anext__")) is not types.FunctionType:
            return iterator
        return _AsyncIterated(iterator, callx)

    return iterated
