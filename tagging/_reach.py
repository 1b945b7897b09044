"""Whether a value carries a context's metadata anywhere it reaches (`carries_metadata`,
exported by `tagging.layer`): asked by a layer above before a foreign call, and by
tagging itself before C runs a hook written in Python natively on what a class
statement is given (`_classes`)."""

from __future__ import annotations

import types
from typing import Any

from contexts.layer import nativecalls
from tagging._heap import PROXY, VIEWS, proxied, stored, view_mapping
from tagging._primitives import handler_of
from tagging._routes import namespace_of
from tagging._tagged import Tagged

# a context running another's walk sees no read of these (`gc.get_referents` of a view)
nativecalls(__name__, "_ARGS", "view_mapping", "proxied", "handler_of", "stored")
_ARGS = BaseException.args

_WALKED = (list, tuple, dict, set, frozenset)
# Modules, classes and functions are not data a call is given: their slots
# (globals, class attributes) are the program's, not the argument's.
_NOT_WALKED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)


def carries_metadata(value: Any, ctx: Any) -> bool:
    """Whether `value` is tagged for `ctx`, or holds, in a slot of a list, tuple,
    dict, set, object or an exception's `args` at any depth, a value that `ctx`
    stored there with metadata (and that the slot still holds); a dict's view and
    a mappingproxy hold what they show."""
    tag = ctx.tag
    if type(value) is Tagged:
        return value.tag is tag
    store = tag.store
    handlers = getattr(type(ctx), "item_handlers", None) or {}
    if not (store.entries or store.members or handlers):
        return False
    return _holds(store, value, ctx, handlers)


def _holds(store: Any, value: Any, ctx: Any, handlers: dict) -> bool:
    """The walk of `carries_metadata`: every container and object `value` reaches,
    each once, however deep (a loop, not recursion, so depth costs no stack); a
    container the context handles itself (`item_handlers`) is asked."""
    seen: set = set()
    pending = [value]
    while pending:
        value = pending.pop()
        if id(value) in seen or isinstance(value, _NOT_WALKED):
            continue
        seen.add(id(value))
        handler = handlers and handler_of(ctx, value)
        if handler:
            if handler.carries(ctx, value):
                return True
            continue
        if isinstance(value, BaseException):  # the tuple C keeps its arguments in
            pending.append(_ARGS.__get__(value))
        if isinstance(value, VIEWS):  # a dict's view reads the dict's slots
            pending.append(view_mapping(value))
            continue
        if type(value) is PROXY:  # a mappingproxy reads its mapping's, or its class's
            value = proxied(value)
        namespace = namespace_of(value)
        # An object's slots are its `__dict__`'s; a container's are its own, and a
        # container with a `__dict__` (an OrderedDict, a list subclass) has both.
        containers = [value] if isinstance(value, _WALKED) else []
        if type(namespace) is dict:
            containers.append(namespace)
        elif not containers:
            containers.append(value)
        for container in containers:
            for slot, (raw, _meta) in (store.slots(container) or {}).items():
                if _still_holds(container, slot, raw):
                    return True
        if store.slots(value, store.members):
            return True
        for container in containers:
            if isinstance(container, dict):
                children = container.values()
            elif isinstance(container, _WALKED):
                children = container
            else:
                continue
            pending.extend(child for child in list(children)
                           if isinstance(child, _WALKED) or hasattr(child, "__dict__")
                           or handlers and handler_of(ctx, child))
    return False


def _still_holds(container: Any, slot: Any, raw: Any) -> bool:
    try:
        return stored(container, slot) is raw
    except (LookupError, TypeError):
        return getattr(container, slot, None) is raw if type(slot) is str else False
