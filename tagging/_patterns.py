"""What a `case` pattern captured, given back its metadata.

A `match` statement matches the plain subject (patterns test types and compare
natively), so each name a pattern binds holds a plain value. Where that value
came from a slot the store knows (an item of a list, tuple or dict, an
attribute of an object, or the subject itself), the metadata is found again
by the slot's path from the subject, and by identity, as any read of the heap
finds it. Walking the path reads containers and instance attributes only
where no Python code runs (builtin lists, tuples and dicts; an instance's
`__dict__` or slots), so no user code runs twice: elsewhere the name stays
plain, as the tagging pass's other native reads do.

A path is a tuple of steps from the subject, written by the pass
(`capture_paths`): `("item", i)`, `("key", k)`, `("attr", name)`,
`("positional", i)` (a class pattern's `__match_args__`, or the subject itself
for the builtin types that match themselves), `("star", before, after)` (the
list a `*rest` builds), `("rest",)` (the dict a `**rest` builds) and
`("any", paths)` (the alternatives of an `|` pattern).
"""

from __future__ import annotations

import ast
from typing import Any

from contexts.layer import getter_route
from tagging import _heap as heap
from tagging import _routes as routes
from tagging._tagged import Tagged, rawest

_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)
_NOT_FOUND = object()


def capture_paths(pattern: ast.pattern, path: tuple = ()) -> list:
    """(name, path) for each name `pattern` binds."""
    if isinstance(pattern, ast.MatchAs):
        inner = capture_paths(pattern.pattern, path) if pattern.pattern else []
        return inner + ([(pattern.name, path)] if pattern.name else [])
    if isinstance(pattern, ast.MatchOr):
        alternatives: dict = {}
        for option in pattern.patterns:
            for identifier, found in capture_paths(option, path):
                alternatives.setdefault(identifier, []).append(found)
        return [(n, ("any", tuple(paths))) for n, paths in alternatives.items()]
    if isinstance(pattern, ast.MatchSequence):
        stars = [i for i, p in enumerate(pattern.patterns) if isinstance(p, ast.MatchStar)]
        star = stars[0] if stars else len(pattern.patterns)
        found = []
        for i, inner in enumerate(pattern.patterns):
            if isinstance(inner, ast.MatchStar):
                after = len(pattern.patterns) - i - 1
                found += [(inner.name, path + (("star", i, after),))] if inner.name else []
            else:
                index = i if i < star else i - len(pattern.patterns)
                found += capture_paths(inner, path + (("item", index),))
        return found
    if isinstance(pattern, ast.MatchMapping):
        found = []
        for key, inner in zip(pattern.keys, pattern.patterns):
            if isinstance(key, ast.Constant):  # (a dotted-name key would be evaluated again)
                found += capture_paths(inner, path + (("key", key.value),))
        return found + ([(pattern.rest, path + (("rest",),))] if pattern.rest else [])
    if isinstance(pattern, ast.MatchClass):
        found = []
        for i, inner in enumerate(pattern.patterns):
            found += capture_paths(inner, path + (("positional", i),))
        for attribute, inner in zip(pattern.kwd_attrs, pattern.kwd_patterns):
            found += capture_paths(inner, path + (("attr", attribute),))
        return found
    return []  # values and singletons bind nothing


def recaptured(tag: Any, value: Any, subject: Any, path: tuple) -> Any:
    """`value`, bound by a pattern at `path` from `subject`, with its metadata."""
    if path and path[0] == "any":
        for option in path[1]:
            found = recaptured(tag, value, subject, option)
            if found is not value:
                return found
        return value
    if not path:
        return subject if type(subject) is Tagged and subject.tag is tag and \
            subject.value is value else value
    container = rawest(subject)
    for step in path[:-1]:
        container = _step(container, step)
        if container is _NOT_FOUND:
            return value
    return _last_step(tag, container, path[-1], subject if len(path) == 1 else None, value)


def read_by_python(subject: Any, path: tuple) -> bool:
    """Whether CPython, matching a class pattern, read an attribute on `path` by
    running Python code natively (a property's getter, a descriptor's `__get__`,
    `__getattr__`, `__getattribute__`): what that code computed from the heap has
    lost its metadata, and running it again here could change what it changes."""
    if path and path[0] == "any":
        return any(read_by_python(subject, option) for option in path[1])
    container = rawest(subject)
    for step in path:
        if step[0] in ("attr", "positional"):
            name = _attribute_name(container, step)
            if name is not None and _python_getter(container, name):
                return True
        container = _step(container, step)
        if container is _NOT_FOUND:
            return False
    return False


def _python_getter(obj: Any, name: str) -> bool:
    route = getter_route(type(obj), name)
    if route is None:
        return False
    function, _leading, _trailing, data, hook = route
    namespace = routes.namespace_of(obj)
    own = type(namespace) is dict and name in namespace
    return function is not None and (data or not own) or hook is not None and not own


def _step(container: Any, step: tuple) -> Any:
    """The object one step further along, read without running Python code."""
    kind, *where = step
    if kind in ("item", "key") and type(container) in (list, tuple, dict):
        try:
            return container[where[0]]
        except (IndexError, KeyError, TypeError):
            return _NOT_FOUND
    if kind in ("attr", "positional"):
        name = _attribute_name(container, step)
        if name is None:
            return container if kind == "positional" else _NOT_FOUND
        namespace = routes.namespace_of(container)
        if type(namespace) is dict and name in namespace:
            return namespace[name]
    return _NOT_FOUND


def _last_step(tag: Any, container: Any, step: tuple, subject: Any, value: Any) -> Any:
    kind, *where = step
    if kind in ("item", "key") and type(container) in (list, tuple, dict):
        key = where[0]
        if kind == "item" and key < 0:
            key += len(container)
        return heap.load_item(tag, container, key, value)
    if kind in ("attr", "positional"):
        name = _attribute_name(container, step)
        if name is None:  # `case float(v)`: the subject itself
            return subject if subject is not None and type(subject) is Tagged and \
                subject.tag is tag and subject.value is value else value
        return heap.load_attribute(tag, container, name, value)
    if kind == "star" and type(container) in (list, tuple) and type(value) is list:
        before, after = where
        heap.copy_slots(tag, container, value, list(range(before, len(container) - after)))
    elif kind == "rest" and type(container) is dict and type(value) is dict:
        heap.copy_slots(tag, container, value)
    return value


def _attribute_name(obj: Any, step: tuple) -> str | None:
    """The attribute a class pattern's step reads; None where the subject matches
    itself (`case float(v)`)."""
    kind, where = step
    if kind == "attr":
        return where
    if isinstance(obj, _SELF_MATCHING) and where == 0:
        return None
    names = getattr(type(obj), "__match_args__", ())
    return names[where] if where < len(names) else None
