"""Canonical callees: one key per function, whatever form the call takes.

`lst.sort` is `list.sort` bound to `lst`, `obj.method` is the function bound to
`obj`, a callable object is its type's `__call__` bound to it. Primitives and
models are keyed by the canonical function, so one entry serves every form.
"""

from __future__ import annotations

import types
from typing import Any, Callable

NOSELF = object()  # the callee is not bound to anything

_PLAIN = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
          types.WrapperDescriptorType, types.ClassMethodDescriptorType)


def split(f: Callable) -> tuple[Any, Any]:
    """`(key, bound)`: the canonical function and what it is bound to (or NOSELF)."""
    kind = type(f)
    if kind is types.FunctionType:
        return f, NOSELF
    if kind is types.MethodType:
        return f.__func__, f.__self__
    if kind is types.BuiltinFunctionType or kind.__base__ is types.BuiltinFunctionType:
        # (the subclass is a C method that is told its class: `re.Pattern.sub`)
        owner = f.__self__
        if owner is None or isinstance(owner, (types.ModuleType, type)):
            return f, NOSELF
        descriptor = _lookup(type(owner), f.__name__, f)
        return (descriptor, owner) if descriptor is not None else (f, NOSELF)
    if kind is types.MethodWrapperType:
        descriptor = f.__objclass__.__dict__.get(f.__name__)
        return (descriptor, f.__self__) if descriptor is not None else (f, NOSELF)
    if isinstance(f, type) or kind in _PLAIN:
        return f, NOSELF
    if kind is staticmethod:  # callable since 3.10: it calls the function it wraps
        return split(f.__func__)
    call = getattr(kind, "__call__", None)
    if call is None:
        return f, NOSELF
    return call, f


def canonical(f: Callable) -> Any:
    """The key under which a primitive for `f` is registered: methods by function."""
    if type(f) in (types.MethodType, types.BuiltinFunctionType, types.MethodWrapperType) or \
            type(f).__base__ is types.BuiltinFunctionType:
        return split(f)[0]
    return f


def _lookup(klass: type, name: str, method: Any) -> Any:
    """The C descriptor of `klass` that `method` is bound from (an override may hide it)."""
    for base in klass.__mro__:
        found = base.__dict__.get(name)
        if type(found) is types.MethodDescriptorType and _binds_to(found, method):
            return found
    return None


def _binds_to(descriptor: Any, method: Any) -> bool:
    if type(method) is types.BuiltinFunctionType:
        return descriptor.__get__(method.__self__) == method
    # A C method told its class (`re.Pattern.sub`; from 3.12 any C method of a
    # subclass's instance, `_GatheringFuture.set_result`): CPython 3.11 crashes
    # comparing two of them, so it is known by its name and its receiver's class.
    return descriptor.__name__ == method.__name__ and \
        isinstance(method.__self__, descriptor.__objclass__)


def class_attribute(kind: type, name: str, default: Any = None) -> Any:
    """The attribute `name` of class `kind` as the interpreter finds it (`default` if absent)."""
    for klass in kind.__mro__:
        namespace = klass.__dict__
        if name in namespace:
            return namespace[name]
    return default
