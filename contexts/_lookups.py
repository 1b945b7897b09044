"""Answers about classes, remembered per type and checked against the type on each use.

The engine remembers, per type, what a lookup found (whether `obj.name` runs a
property's getter, whether a class has a Python `__bool__`, ...). A class can
change after that: a property added, a method replaced or deleted, on the class
or on a base, or `__bases__` reassigned. A remembered answer must then never be
used again. CPython exposes no version number per type, so each answer carries
a `check`: a function of no arguments, true while every class-dict entry the
answer was read from is unchanged:

* the MRO of each (mutable) class looked up is still the same tuple (a new one
  when `__bases__` is reassigned, on the class or on a base);
* each entry it depended on is still the same object, and each name that was
  absent from a class along the way is still absent.

Classes that cannot change (builtin types: `object`, `list`, `property`, ...)
are not checked. `Lookups` is `class_attribute` that notes the entries it reads;
`Lookups.check()` turns them into straight-line code, compiled once per shape,
so checking costs a call and one test per entry (and nothing for a builtin type).
"""

from __future__ import annotations

import types
from typing import Any, Callable

_IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: builtin types, whose dicts never change
_MISSING = object()
_factories: dict = {}  # shape -> factory of checks of that shape


class Lookups:
    """`class_attribute` (and friends) that notes what each answer depends on."""

    __slots__ = ("_noted", "_seen", "_proxies")

    def __init__(self) -> None:
        self._noted: list = []  # (kind of test, operands)
        self._seen: set = set()
        self._proxies: dict = {}  # class -> its `__dict__` (a live view)

    def attribute(self, kind: type, name: str, default: Any = None) -> Any:
        """`class_attribute(kind, name, default)`, noted."""
        mro = kind.__mro__
        if not kind.__flags__ & _IMMUTABLE and ("mro", kind) not in self._seen:
            self._seen.add(("mro", kind))
            self._noted.append(("m", (kind, mro)))
        for klass in mro:
            namespace = klass.__dict__
            found = namespace.get(name, _MISSING)
            if not klass.__flags__ & _IMMUTABLE and (klass, name) not in self._seen:
                self._seen.add((klass, name))
                proxy = self._proxies.setdefault(klass, namespace)
                if found is _MISSING:
                    self._noted.append(("a", (proxy, name)))
                else:
                    self._noted.append(("p", (proxy, name, found)))
            if found is not _MISSING:
                return found
        return default

    def python_method(self, kind: type, name: str) -> Any:
        """`kind`'s attribute `name` if it is a Python function, else None (noted)."""
        found = self.attribute(kind, name)
        return found if type(found) is types.FunctionType else None

    def check(self) -> Callable[[], bool] | None:
        """A function of no arguments: whether everything noted is unchanged (None
        when nothing was noted: the answer was read from builtin types only)."""
        if not self._noted:
            return None
        shape = "".join(kind for kind, _ in self._noted)
        factory = _factories.get(shape)
        if factory is None:
            factory = _factories[shape] = _factory(shape)
        return factory(*[operand for _, operands in self._noted for operand in operands])


def _factory(shape: str) -> Callable:
    """`factory(*operands) -> check` for checks of `shape` ("m", "a", "p" per test)."""
    parameters, tests = [], []
    for i, kind in enumerate(shape):
        if kind == "m":  # the class's MRO is the same tuple
            parameters += [f"k{i}", f"m{i}"]
            tests.append(f"k{i}.__mro__ is m{i}")
        elif kind == "a":  # the name is still absent from the class's dict
            parameters += [f"d{i}", f"n{i}"]
            tests.append(f"n{i} not in d{i}")
        else:  # the class's dict still holds the same object under the name
            parameters += [f"d{i}", f"n{i}", f"v{i}"]
            tests.append(f"d{i}.get(n{i}, MISSING) is v{i}")
    source = (f"def factory({', '.join(parameters)}):\n"
              f"    return lambda: {' and '.join(tests)}\n")
    namespace = {"MISSING": _MISSING}
    exec(compile(source, f"<type check {shape}>", "exec"), namespace)
    return namespace["factory"]


def remembered(compute: Callable, *args: Any) -> tuple:
    """`(answer, check)`: `compute(lookups, *args)` with what it read noted.

    Where the answer is kept, `found[1] is None or found[1]()` says it is current."""
    lookups = Lookups()
    return compute(lookups, *args), lookups.check()


def current(table: dict, key: Any, compute: Callable, *args: Any) -> Any:
    """`table[key]`'s answer if it is still current, else `compute`'s, kept anew."""
    found = table.get(key)
    if found is None or (found[1] is not None and not found[1]()):
        found = table[key] = remembered(compute, *args)
    return found[0]
