"""Attribute routes: which Python code, if any, an attribute access or a loop runs.

Asked per (type, name) and remembered, each answer with the check that it is
still current (`contexts._lookups`), since a class may change after its first
use. Nothing here touches the store: these are questions about types.
"""

from __future__ import annotations

import collections
import functools
import types
from typing import Any

from contexts.layer import (Lookups, class_attribute, current, deleter_route, getter_route,
                            setter_route)
from tagging._tagged import rawest

_methods: dict = {}  # (type, name) -> (its Python method or None, check)
_fields: dict = {}  # (type, name) -> (the item a namedtuple field reads or None, check)
_converting: dict = {}  # (type, name) -> (whether a C descriptor stores it, check)
_TUPLEGETTER = type(collections.namedtuple("_Pair", "a b").a)


def python_method(kind: type, name: str) -> Any:
    """`kind`'s method `name` if it is written in Python (so it must run in the context)."""
    return current(_methods, (kind, name), Lookups.python_method, kind, name)


def python_iteration(kind: type) -> bool:
    """Whether iterating a `kind` runs Python code (its `__iter__` or `__getitem__`)."""
    if python_method(kind, "__iter__") is not None:
        return True
    return (class_attribute(kind, "__iter__") is None
            and python_method(kind, "__getitem__") is not None)


def iterable_type(kind: type) -> bool:
    """Whether `iter()` can try a `kind` (it has `__iter__` or `__getitem__`)."""
    return class_attribute(kind, "__iter__") is not None or \
        class_attribute(kind, "__getitem__") is not None


def python_stepping(kind: type) -> bool:
    """Whether a loop over an iterator of type `kind` runs Python code (its
    `__next__`, or an `__iter__` a native loop would call a second time)."""
    return python_method(kind, "__next__") is not None or \
        python_method(kind, "__iter__") is not None


def python_getter(obj: Any, name: str) -> Any:
    """How `obj.name` runs Python code, or None when the lookup is all native.

    `(function, leading, trailing, hook)`: call `function(*leading, obj, *trailing)`
    (a Python `__getattribute__`, a property's getter, a Python descriptor's
    `__get__`); `hook` is a Python `__getattr__` to call when that raises
    AttributeError. `function` is None when only the hook is Python, or when the
    instance dict shadows a non-data descriptor.
    """
    found = getter_route(type(obj), name)
    if found is None:
        return None
    function, leading, trailing, data, hook = found
    if function is not None and not data:
        namespace = namespace_of(obj)
        if type(namespace) is dict and name in namespace:
            if hook is None:
                return None
            function = None
    return function, leading, trailing, hook


def generic_getattr(obj: Any, name: str) -> Any:
    """`obj.name` found natively, without calling a Python `__getattr__`."""
    obj = rawest(obj)
    return class_attribute(type(obj), "__getattribute__")(obj, name)


def python_descriptor(obj: Any, name: str) -> bool:
    """Whether the class attribute `name` of `obj` runs Python code when read: a
    property's getter or a descriptor's `__get__` written in Python."""
    attribute = class_attribute(type(obj), name)
    if isinstance(attribute, property):
        return type(attribute.fget) is types.FunctionType
    return attribute is not None and python_method(type(attribute), "__get__") is not None


def python_setter(obj: Any, name: str) -> Any:
    """How storing `obj.name` runs Python code, or None (`setter_route` of its type)."""
    return setter_route(type(obj), name)


def python_deleter(obj: Any, name: str) -> Any:
    """How `del obj.name` runs Python code, or None (`deleter_route` of its type)."""
    return deleter_route(type(obj), name)


def stored_by_c_descriptor(obj: Any, name: str) -> bool:
    """Whether storing `obj.name` hands the value to a C data descriptor (a ctypes
    field, a getset descriptor such as an ndarray's `real`), which may keep a
    converted copy: reading it back then gives a new object. A slot of `__slots__`
    and an instance `__dict__` keep the very object stored."""
    return current(_converting, (type(obj), name), _c_data_descriptor, type(obj), name)


def _c_data_descriptor(lookups: Lookups, kind: type, name: str) -> bool:
    attribute = lookups.attribute(kind, name)
    return attribute is not None and hasattr(type(attribute), "__set__") and \
        type(attribute) is not types.MemberDescriptorType


def namespace_of(obj: Any) -> Any:
    """`obj.__dict__`, or None where `obj` has none yet, without making one: a
    `functools.partial` makes its dict when asked for it, and C does not flatten a
    partial that has one (`partial(partial(f, x), y)` would keep two levels, and
    `.args` and `.func` would change under a derivative). (The `aload` fast path
    tests the exact type only, for speed: a subclass of partial read there is
    given its dict.) A class whose `__getattribute__` or `__getattr__` is written
    in Python is asked as `object` would be: run natively, its method would read
    the heap plain and could answer for `__dict__` with anything."""
    kind = type(obj)
    if issubclass(kind, functools.partial):
        return functools.partial.__reduce__(obj)[2][3]
    if python_method(kind, "__getattribute__") is not None or \
            python_method(kind, "__getattr__") is not None:
        try:
            return object.__getattribute__(obj, "__dict__")
        except AttributeError:
            return None
    return getattr(obj, "__dict__", None)


def attribute_slot(obj: Any, name: str) -> tuple:
    """(container, slot) holding `obj.name`: its `__dict__`, a namedtuple's item,
    or itself. (A class's `__dict__` is a proxy, so a class is its own container.)"""
    namespace = namespace_of(obj)
    if type(namespace) is dict and name in namespace:
        return namespace, name
    if isinstance(obj, tuple):
        index = _field_index(type(obj), name)
        if index is not None:
            return obj, index
    return obj, name


def _field_index(kind: type, name: str) -> Any:
    """The item a namedtuple field `name` reads, if it is one."""
    return current(_fields, (kind, name), _field_item, kind, name)


def _field_item(lookups: Lookups, kind: type, name: str) -> Any:
    attribute = lookups.attribute(kind, name)
    return attribute.__reduce__()[1][0] if type(attribute) is _TUPLEGETTER else None
