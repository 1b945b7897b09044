"""Fast paths of the commonest heap operations, for one tagging context.

Each is the value of a hidden cell (`_cells.TAGGING_CELLS`), built from a runtime
of the context when code naming it is bound, and kept from one tag of the context
to the next: `astore`, `iload` and `istore` hold the tag's store and are built
again for a fresh tag; `aload`, `iter` and `method`, called in nearly every run,
read the tag from the context when called (an attribute read a call), so a fresh
tag builds nothing for them.

`obj.name`, `obj.name = v`, `c[k]` and `c[k] = v` are what tagged code does
most, and iterating (or splatting) a container. The tagging pass writes them
as calls of the closures made here, which handle the everyday case in one
frame: a plain object whose attribute lookup runs no Python code, an exact
`list` or `tuple` indexed by an int, a `dict` by a plain key (into a dict none of
whose keys has metadata), a tuple or list none of whose elements has metadata.
Anything else (a property, a `__setattr__`, a subclass's `__getitem__`, a
slice, a tagged container or key) goes to the general primitive in
`_primitives`. Each closure is a `shortcut` of that primitive: a
context running the tagging context's code under its own runs the primitive
instead, so the outer context sees every step of it.
"""

from __future__ import annotations

import functools
import operator
import types
from collections import deque
from typing import Any, Callable

from contexts.layer import GETTERS, SETTERS, dispatched, enclosed, shortcut
from tagging import _heap as heap
from tagging import _primitives as primitives
from tagging import _routes as routes
from tagging._enclosed import getattr_enclosed, getitem_enclosed
from tagging._store import ABSENT
from tagging._tagged import Tagged, rawest, wrap

_INDEXED = (list, dict, tuple)
_PARTIAL = functools.partial
_STORED = (list, dict)
# Builtin types whose methods are fixed C descriptors and whose instances have no
# attributes of their own: `obj.name` is the type's method, bound.
_FIXED = frozenset({list, dict, set, frozenset, tuple, str, bytes, bytearray, deque})
_C_METHODS = (types.MethodDescriptorType, types.WrapperDescriptorType)


def _claimed(runtime: Any, operation: Callable) -> bool:
    """Whether the user claims `operation` with a `@primitive` (its cell then runs
    what the context's dispatch finds for it)."""
    return runtime.primitive_for(operation, operation) is not None


def _fast_or_claimed(runtime: Any, operation: Callable, fast: Callable,
                     slow: Callable, form: Callable | None = None) -> Callable:
    """The cell of `operation`: `fast`, a shortcut of its primitive `slow`, which a
    context enclosing this one runs as `form(ctx, outer)` says (`_enclosed`), if
    given; what the context's dispatch finds where the user claims `operation`."""
    if _claimed(runtime, operation):
        return functools.partial(_dispatched, runtime.dispatch, operation)
    if form is None:
        return shortcut(fast, slow)
    return enclosed(shortcut(fast, slow), functools.partial(form, runtime.ctx))


def attribute_load(runtime: Any) -> Callable:
    """The cell `aload`: `obj.name`."""
    ctx = runtime.ctx
    getters = GETTERS
    slow_getattr = functools.partial(primitives.getattr_, ctx)

    def aload(obj, name):
        kind = type(obj)
        route = getters.get((kind, name))  # (route, check): see `getter_route`
        if route is None or route[0] is not None or (route[1] is not None and not route[1]()):
            return slow_getattr(obj, name)
        value = getattr(obj, name)
        tag = ctx.tag  # read when called (`Cell.per_layer`)
        entries = tag.store.entries
        if not entries:
            return value
        # (a partial makes its dict when asked: `heap.load_attribute` asks it safely)
        namespace = getattr(obj, "__dict__", None) if kind is not _PARTIAL else None
        if type(namespace) is dict and name in namespace:  # an instance's own attribute
            entry = entries.get(id(namespace))
            if entry is None:
                return value
            found = entry[1].get(name)
            return value if found is None or found[0] is not value else \
                wrap(tag, value, found[1])
        return heap.load_attribute(tag, obj, name, value)

    return _fast_or_claimed(runtime, getattr, aload, slow_getattr, getattr_enclosed)


def attribute_store(runtime: Any) -> Callable:
    """The cell `astore`: `obj.name = value`."""
    ctx = runtime.ctx
    tag = ctx.tag
    store = tag.store
    entries, record = store.entries, store.record
    setters = SETTERS
    slow_setattr = functools.partial(primitives.setattr_, ctx)

    def astore(obj, name, value):
        kind = type(obj)
        route = setters.get((kind, name))  # (route, check): see `setter_route`
        if route is None or route[0] is not None or (route[1] is not None and not route[1]()):
            return slow_setattr(obj, name, value)
        if type(value) is Tagged and value.tag is tag:
            # (before the store: a partial would make its dict when asked)
            namespace = getattr(obj, "__dict__", None) if kind is not _PARTIAL else \
                routes.namespace_of(obj)
            if not (type(namespace) is dict and name in namespace) and \
                    routes.stored_by_c_descriptor(obj, name):  # (a ctypes field)
                return slow_setattr(obj, name, value)
            inner = value.value
            setattr(obj, name, inner)
            if type(namespace) is dict and namespace.get(name) is inner:  # its own slot
                record(namespace, name, inner, value.meta)
            else:
                heap.note_attribute(tag, obj, name, value.meta)
        else:
            if name == "args" and entries and isinstance(obj, BaseException):
                return slow_setattr(obj, name, value)  # C would make a tuple natively
            setattr(obj, name, value)
            if entries:  # (a partial has its dict now: the store made it)
                namespace = getattr(obj, "__dict__", None)
                if type(namespace) is not dict or name not in namespace:
                    heap.note_attribute(tag, obj, name, ABSENT)
                elif id(namespace) in entries:
                    store.forget(namespace, name)
        return None

    return _fast_or_claimed(runtime, setattr, astore, slow_setattr)


def item_load(runtime: Any) -> Callable:
    """The cell `iload`: `container[key]`."""
    ctx = runtime.ctx
    tag = ctx.tag
    entries = tag.store.entries
    slow_getitem = functools.partial(primitives.getitem, ctx)

    def iload(container, key):
        if type(container) not in _INDEXED or type(key) is not int and (
                type(container) is not dict or type(key) is Tagged or type(key) is slice):
            return slow_getitem(container, key)
        value = container[key]
        if entries and id(container) in entries:
            return heap.load_item(tag, container, key, value)
        return value

    return _fast_or_claimed(runtime, operator.getitem, iload, slow_getitem, getitem_enclosed)


def item_store(runtime: Any) -> Callable:
    """The cell `istore`: `container[key] = value`."""
    ctx = runtime.ctx
    tag = ctx.tag
    entries, members = tag.store.entries, tag.store.members
    slow_setitem = functools.partial(primitives.setitem, ctx)

    def istore(container, key, value):
        if type(container) not in _STORED or type(key) is not int and (
                type(container) is not dict or type(key) is Tagged or type(key) is slice) or \
                (members and id(container) in members):  # (a new key may need forgetting)
            return slow_setitem(container, key, value)
        if type(value) is Tagged and value.tag is tag:
            container[key] = value.value
            heap.note_item(tag, container, key, value.meta)
        else:
            container[key] = value
            if entries and id(container) in entries:
                heap.note_item(tag, container, key, ABSENT)
        return None

    return _fast_or_claimed(runtime, operator.setitem, istore, slow_setitem)


def iteration(runtime: Any, reported: bool) -> Callable:
    """The cell `iter` (`reported`: hooks see its `iter` call), or `quiet_iter`: a
    `range`, or a tuple without metadata, as it is; an exact list by the step that
    reads each slot's metadata as the loop reaches it (a write may give it some
    after the loop began); anything else to the general primitive. A context
    enclosing this one runs the same test natively (what it lets through is the
    iterable itself, which the enclosing context's own `iter` then iterates), and
    the primitive as it runs it, seeing every step, lists too; and so on for a
    context enclosing that one. The tag is the context's when called."""
    ctx = runtime.ctx
    slow = functools.partial(primitives.iterate, ctx, reported=reported) \
        if reported else functools.partial(primitives.iterate, ctx)
    iterate_items = primitives.iterate_items

    def iterate_list(items):
        return iterate_items(ctx, items, items)

    def iterating(general, lists):
        def iterate(iterable):
            kind = type(iterable)
            if kind is list:
                return lists(iterable)
            if kind is range or kind is tuple and id(iterable) not in ctx.tag.store.entries:
                return iterable
            return general(iterable)

        def enclosed_by(outer):  # (a list too by the primitive the enclosing context runs)
            run_there = dispatched(outer, general)
            return iterating(run_there, run_there)

        return enclosed(iterate, enclosed_by)

    return shortcut(iterating(slow, iterate_list), slow)


def method_call(runtime: Any) -> Callable:
    """The cell `method` (what `o.m(...)` calls). What it resolves is the runtime's,
    kept from one tag to the next (`_method_parts`); it and the fast path of
    `xs.append(v)` read the tag when called."""
    ctx = runtime.ctx
    runners, general, claims_getattr, claims_append = runtime.part(
        "method", lambda: _method_parts(runtime))

    def append(container, value):
        """`xs.append(v)` on an exact list: the new last slot keeps `v`'s metadata."""
        tag = ctx.tag
        if type(value) is Tagged and value.tag is tag:
            inner = value.value
            container.append(inner)
            tag.store.record(container, len(container) - 1, rawest(inner), value.meta)
        else:
            container.append(value)

    if not claims_append:
        runners[(list, "append")] = append
    return _method_cell(ctx, runtime.dispatch, runtime.value("aload"), claims_getattr,
                        runners, general)


def _method_parts(runtime: Any) -> tuple:
    """What the `method` cell keeps from one tag of a context to the next: the
    runners it resolved by (type, name), its general path, and whether the user
    claims `getattr` and `list.append`."""
    general = functools.partial(primitives.method_of, runtime.ctx, runtime.dispatch)
    return {}, general, _claimed(runtime, getattr), _claimed(runtime, list.append)


def _method_cell(ctx: Any, dispatch: Callable, aload: Callable, claimed: bool,
                 runners: dict, general: Callable) -> Callable:
    """`method(obj, name)`: what `obj.name(...)` runs. A method of a builtin container
    or string is resolved once per (type, name), and bound (the commonest have a
    fast path of their own in `runners`); anything else is read and resolved as
    written. Either way before the arguments are evaluated."""
    bound = types.MethodType

    def method(obj, name):
        kind = type(obj)
        if kind in _FIXED and not claimed:
            runner = runners.get((kind, name))
            if runner is None:
                found = getattr(kind, name, None)
                runner = runners[(kind, name)] = \
                    dispatch(found) if type(found) in _C_METHODS else False
            if runner is not False:
                return bound(runner, obj)
        return dispatch(aload(obj, name))

    def enclosed_by(outer_getattr: Callable, outer_general: Callable) -> Callable:
        """`method` as a context enclosing this one runs it (a derivative of a
        derivative): a module's function (`math.sin`), with no metadata here, read by
        the enclosing context's `getattr` and resolved here, natively; anything else
        by the general path, which the enclosing context runs, seeing every step.
        And so on for a context enclosing that one."""
        def method_enclosed(obj, name):
            entries = ctx.tag.store.entries
            if type(obj) is types.ModuleType and name in obj.__dict__ and \
                    id(obj) not in entries and id(obj.__dict__) not in entries:
                found = outer_getattr(obj, name)
                if type(found) is not Tagged:
                    return dispatch(found)
            return outer_general(obj, name)

        return enclosed(method_enclosed, lambda outer: enclosed_by(
            outer(outer_getattr), outer(outer_general)))

    return enclosed(shortcut(method, general),
                    lambda outer: enclosed_by(outer(getattr), outer(general)))


def _dispatched(dispatch: Callable, operation: Callable, *args: Any) -> Any:
    return dispatch(operation)(*args)
