"""Profiles: what a context type intercepts, kept current as classes change.

Which hooks a context type overrides, which functions it claims as primitives
and which layer it carries decide what code the engine generates for it; that
summary is its `Profile`, made once per (context type, layer type). A write to
a context class that can change it (a hook, a method, `passes`, `metadatatype`,
its bases) marks the profiles of that class and its subclasses stale, so the
next run of any of their contexts rebuilds its runtime; other writes (a
counter a hook keeps on the class) cost nothing.
"""

from __future__ import annotations

import functools
import operator
import threading
import types
from typing import Any, Callable

import attrs

from contexts._canonical import canonical

HOOKS = ("prehook", "posthook", "overdub", "fallback")
_PROFILED = frozenset({*HOOKS, "__default_passes__", "metadatatype", "__bases__"})

_lock = threading.Lock()
_profiles: dict = {}  # (context type, layer type) -> Profile
# Bumped with every stale profile: caches keyed by what a context class allows
# (a layer's accepted metadata types, say) compare it.
class_version = [0]


def default_hook(method: Callable) -> Callable:
    """Mark one of `Context`'s own hooks: a class that keeps it does not override it."""
    method.__default_hook__ = True
    return method


@attrs.define(eq=False)
class Profile:
    """What a context type intercepts; decides the code generated for it (made once
    per context type, so what is derived from it is computed once too)."""

    hooks: frozenset  # the overridden hooks among prehook, posthook, overdub, fallback
    primitives: dict  # function -> name of the method that implements it
    layer: type | None  # the type of the layer the context carries
    stale: bool = attrs.field(default=False, init=False)  # its class changed since

    @property
    def empty(self) -> bool:
        return not (self.hooks or self.primitives) and self.layer is None

    @property
    def hooked(self) -> bool:
        """Whether call sites must call hooks (so they need a helper frame)."""
        return bool(self.hooks & {"prehook", "posthook", "overdub"})

    @functools.cached_property
    def intercepts_operators(self) -> bool:
        """Whether operators must become calls (else they stay native).

        A primitive on a dunder (`Vec.__add__`) needs them: the operator's call
        is what reaches the dunder through the context.
        """
        return self.hooked or self.layer is not None or "fallback" in self.hooks or any(
            _is_operator_function(f) or getattr(f, "__name__", "").startswith("__")
            for f in self.primitives
        )

    @functools.cached_property
    def intercepts_protocols(self) -> bool:
        """Whether implicit protocol calls (iteration, dunders, properties) must be seen."""
        return self.hooked or self.layer is not None or any(
            _called_implicitly(f) for f in self.primitives)

    @functools.cached_property
    def intercepts_truth(self) -> bool:
        """Whether truth tests must reach the context: for hooks, for a layer (a
        Python `__bool__` run natively would read the heap without its metadata), or
        a primitive on a `__bool__` or `__len__`."""
        return self.hooked or self.layer is not None or any(
            getattr(f, "__name__", "") in _TRUTH_METHODS for f in self.primitives)


_TRUTH_METHODS = ("__bool__", "__len__")


def _called_implicitly(f: Callable) -> bool:
    """Whether Python may call `f` where the source shows no call: a dunder, or a
    method defined in a class body (a property's accessor is one)."""
    if getattr(f, "__name__", "").startswith("__"):
        return True
    owner = getattr(f, "__qualname__", "").rpartition(".")[0]
    return type(f) is types.FunctionType and owner != "" and not owner.endswith("<locals>")


def _is_operator_function(f: Callable) -> bool:
    return getattr(operator, getattr(f, "__name__", ""), None) is f


def profile_of(ctx_type: type, layer: type | None) -> Profile:
    """The (cached) profile of a context type carrying a `layer`; cheap on the hot path."""
    key = (ctx_type, layer)
    found = _profiles.get(key)
    if found is not None:
        return found
    with _lock:
        found = _profiles[key] = _compute_profile(ctx_type, layer)
        return found


def _compute_profile(ctx_type: type, layer: type | None) -> Profile:
    hooks = frozenset(name for name in HOOKS
                      if not getattr(getattr(ctx_type, name), "__default_hook__", False))
    primitives: dict = {}
    for klass in reversed(ctx_type.__mro__):
        for name, member in vars(klass).items():
            for entry in getattr(member, "__primitive_of__", ()):
                for f in (entry if isinstance(entry, dict) else (entry,)):
                    primitives[canonical(f)] = name
    return Profile(hooks=hooks, primitives=primitives, layer=layer)


def changed(cls: type, name: str, old: Any, new: Any) -> None:
    """Class `cls` had attribute `name` changed from `old` to `new` (absent: None):
    if that can change what it intercepts, its profiles and its subclasses' are stale."""
    if name not in _PROFILED and not _behaviour(old) and not _behaviour(new):
        return
    with _lock:
        class_version[0] += 1
        for key in [key for key in _profiles if issubclass(key[0], cls)]:
            _profiles.pop(key).stale = True


def _behaviour(value: Any) -> bool:
    """Whether a class attribute is behaviour (a method, a descriptor), not data."""
    return callable(value) or isinstance(value, (classmethod, staticmethod, property))
