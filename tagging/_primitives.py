"""The heap primitives every tagging context has.

Lowering turns attribute access, subscripts, container displays, globals and
closure cells into calls; these primitives answer them: the heap receives the
plain value, the shadow store the metadata, and a read gives it back. Each is
`impl(ctx, *args)`. They are plain Python, so when the tagging context itself
runs under another one, the outer context runs them and its own primitives
see the heap operations they make (their machinery is marked `nooverdub`).
"""

from __future__ import annotations

import copy
import operator
from collections import deque
from typing import Any

from contexts import nooverdub
from tagging import _heap as heap
from tagging._store import ABSENT
from tagging._tag import Tagged, rawest

_MUTABLE_SEQUENCES = (list, deque)


# Attributes ------------------------------------------------------------------------

def getattr_(ctx, obj, name, *default):
    tag = ctx.tag
    obj, name = nooverdub(heap.own)(obj, tag), nooverdub(heap.own)(name, tag)
    getter = nooverdub(heap.python_getter)(rawest(obj), name)
    if getter is not None:
        return getter(obj)
    value = getattr(obj, name, *default)
    return nooverdub(heap.load_attribute)(tag, obj, name, value)


def setattr_(ctx, obj, name, value):
    tag = ctx.tag
    obj, name = nooverdub(heap.own)(obj, tag), nooverdub(heap.own)(name, tag)
    custom = nooverdub(heap.python_setter)(rawest(obj), name)
    if custom is not None:
        setter, takes_name = custom
        if takes_name:
            setter(obj, name, value)
        else:
            setter(obj, value)
        return None
    return object_setattr(ctx, obj, name, value)


def object_setattr(ctx, obj, name, value):
    tag = ctx.tag
    obj, name = nooverdub(heap.own)(obj, tag), nooverdub(heap.own)(name, tag)
    inner, meta = nooverdub(heap.split)(value, tag)
    object.__setattr__(obj, name, inner)
    nooverdub(heap.note_attribute)(tag, obj, name, meta)


def delattr_(ctx, obj, name):
    tag = ctx.tag
    obj, name = nooverdub(heap.own)(obj, tag), nooverdub(heap.own)(name, tag)
    delattr(obj, name)
    nooverdub(heap.forget_attribute)(tag, obj, name)


# Items -----------------------------------------------------------------------------

def getitem(ctx, container, key):
    tag = ctx.tag
    container, key = nooverdub(heap.own)(container, tag), nooverdub(heap.own)(key, tag)
    value = operator.getitem(container, key)
    return nooverdub(heap.load_item)(tag, container, key, value)


def setitem(ctx, container, key, value):
    tag = ctx.tag
    container, key = nooverdub(heap.own)(container, tag), nooverdub(heap.own)(key, tag)
    if nooverdub(type)(nooverdub(rawest)(key)) is slice:
        before = nooverdub(heap.snapshot)(tag, container)
        incoming = _incoming(ctx, value)
        operator.setitem(container, key, [v for v, _ in incoming])
        nooverdub(heap.remap)(tag, container, before,
                              [(rawest(v), m) for v, m in incoming if m is not ABSENT])
        return
    inner, meta = nooverdub(heap.split)(value, tag)
    operator.setitem(container, key, inner)
    nooverdub(heap.note_item)(tag, container, key, meta)


def delitem(ctx, container, key):
    tag = ctx.tag
    container, key = nooverdub(heap.own)(container, tag), nooverdub(heap.own)(key, tag)
    before = nooverdub(heap.snapshot)(tag, container)
    operator.delitem(container, key)
    raw = nooverdub(rawest)(container)
    if nooverdub(isinstance)(raw, dict):
        tag.store.forget(raw, nooverdub(rawest)(key))
    else:
        nooverdub(heap.remap)(tag, container, before)


def _incoming(ctx, iterable):
    """(value, meta) pairs of an iterable's items, metadata split off."""
    return [nooverdub(heap.split)(item, ctx.tag) for item in iterate(ctx, iterable)]


# Iteration -------------------------------------------------------------------------

def iterate(ctx, iterable):
    """Iterate anything, giving back the metadata of container elements."""
    tag = ctx.tag
    raw = nooverdub(rawest)(iterable)
    kind = nooverdub(type)(raw)
    if nooverdub(isinstance)(raw, heap.SEQUENCES) or kind in (
            type({}.values()), type({}.items())):
        items = nooverdub(heap.tagged_items)(tag, iterable)
        if items is not None and nooverdub(type)(iterable) is not Tagged:
            return items
        return _iterate_nested(ctx, nooverdub(heap.own)(iterable, tag), raw)
    if kind in (dict, set, frozenset, str, bytes, range):
        return nooverdub(heap.own)(iterable, tag)
    return iter(nooverdub(heap.own)(iterable, tag))


def _iterate_nested(ctx, iterable, raw):
    """Iteration of a container another tagging context also tags (run under it)."""
    tag = ctx.tag
    for index, item in enumerate(iterable):
        yield nooverdub(heap.retag)(tag, item, tag.store.lookup(
            raw, index, nooverdub(rawest)(item)))


def unpack(ctx, value, shape):
    """The items of `value` for an unpacking target of the given (nested) shape.

    The result is a temporary list, unpacked at once by the caller; nested
    positions are unpacked in turn, so every level gets its metadata back.
    """
    items = nooverdub(list)(iterate(ctx, value))
    for index, inner in nooverdub(enumerate)(shape):
        if inner is not None and index < nooverdub(len)(items):
            nooverdub(operator.setitem)(items, index, unpack(ctx, items[index], inner))
    return items


def unpack_each(ctx, iterable, shape):
    """`unpack` for each item of a loop whose target has that shape."""
    for item in iterate(ctx, iterable):
        yield unpack(ctx, item, shape)


# Containers ------------------------------------------------------------------------

def list_append(ctx, container, value):
    tag = ctx.tag
    container = nooverdub(heap.own)(container, tag)
    inner, meta = nooverdub(heap.split)(value, tag)
    list.append(container, inner)
    if meta is not ABSENT:
        raw = nooverdub(rawest)(container)
        tag.store.record(raw, nooverdub(len)(raw) - 1, nooverdub(rawest)(inner), meta)


def _in_place(method):
    """A list or deque method that moves elements: metadata follows by identity."""

    def primitive(ctx, container, *args, **kwargs):
        tag = ctx.tag
        container = nooverdub(heap.own)(container, tag)
        before = nooverdub(heap.snapshot)(tag, container)
        incoming = [nooverdub(heap.split)(a, tag) for a in args]
        result = method(container, *[v for v, _ in incoming], **kwargs)
        nooverdub(heap.remap)(tag, container, before,
                              [(rawest(v), m) for v, m in incoming if m is not ABSENT])
        return _retag_result(tag, result, before)

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


def _retag_result(tag, result, before):
    """A removed element (from `pop`) gets its metadata back."""
    for raw, meta in before:
        if raw is result:
            return Tagged(tag, result, meta)
    return result


def list_extend(ctx, container, iterable):
    for item in list(iterate(ctx, iterable)):
        list_append(ctx, container, item)


def list_sort(ctx, container, *, key=None, reverse=False):
    tag = ctx.tag
    container = nooverdub(heap.own)(container, tag)
    items = list(iterate(ctx, container))
    keys = items if key is None else [key(item) for item in items]
    order = nooverdub(sorted)(nooverdub(range)(nooverdub(len)(items)),
                              key=[nooverdub(rawest)(k) for k in keys].__getitem__,
                              reverse=reverse)
    before = nooverdub(heap.snapshot)(tag, container)
    container[:] = [nooverdub(heap.own)(items[i], tag) for i in order]
    nooverdub(heap.remap)(tag, container, before)


def copy_container(ctx, container, *args):
    """`list.copy`, `dict.copy`, `copy.copy`: the copy keeps the elements' metadata."""
    tag = ctx.tag
    container = nooverdub(heap.own)(container, tag)
    copied = copy.copy(container)
    nooverdub(heap.copy_slots)(tag, container, copied)
    _copy_attributes(tag, container, copied)
    return copied


def _copy_attributes(tag, source, target):
    source, target = rawest(source), rawest(target)
    namespace = getattr(source, "__dict__", None)
    if type(namespace) is dict:
        nooverdub(heap.copy_slots)(tag, namespace, target.__dict__)


def from_iterable(kind):
    """`list(it)`, `tuple(it)`, `deque(it)`: elements keep their metadata."""

    def primitive(ctx, cls, iterable=(), *args):
        out = []
        for item in iterate(ctx, iterable):
            list_append(ctx, out, item)
        if cls is list:
            return out
        made = cls(out, *args)
        nooverdub(heap.copy_slots)(ctx.tag, out, made)
        return made

    primitive.__name__ = f"tagged_{kind.__name__}"
    return primitive


def dict_new(ctx, cls, *args, **kwargs):
    out = cls()
    dict_update(ctx, out, *args, **kwargs)
    return out


def dict_update(ctx, container, *args, **kwargs):
    tag = ctx.tag
    container = nooverdub(heap.own)(container, tag)
    if args:
        other = nooverdub(heap.own)(args[0], tag)
        if nooverdub(hasattr)(other, "keys"):
            for key in other.keys():
                setitem(ctx, container, key, getitem(ctx, other, key))
        else:
            for pair in iterate(ctx, other):
                key, value = iterate(ctx, pair)
                setitem(ctx, container, key, value)
    for key in kwargs:
        setitem(ctx, container, key, kwargs[key])


def dict_get(ctx, container, key, default=None):
    tag = ctx.tag
    container, key = nooverdub(heap.own)(container, tag), nooverdub(heap.own)(key, tag)
    raw = nooverdub(rawest)(container)
    if nooverdub(rawest)(key) in raw:
        return getitem(ctx, container, key)
    return default


def dict_pop(ctx, container, key, *default):
    value = dict_get(ctx, container, key, ABSENT)
    if value is ABSENT:
        return dict.pop(nooverdub(heap.own)(container, ctx.tag), key, *default)
    delitem(ctx, container, key)
    return value


def dict_setdefault(ctx, container, key, default=None):
    value = dict_get(ctx, container, key, ABSENT)
    if value is ABSENT:
        setitem(ctx, container, key, default)
        return default
    return value


def display_list(ctx, *items):
    out = []
    for item in items:
        list_append(ctx, out, item)
    return out


def display_tuple(ctx, *items):
    out = display_list(ctx, *items)
    made = tuple(out)
    nooverdub(heap.copy_slots)(ctx.tag, out, made)
    return made


def display_dict(ctx, *flat):
    out = {}
    index = 0
    while index < nooverdub(len)(flat):
        key, value = flat[index], flat[index + 1]
        if key is DOUBLE_STAR:
            dict_update(ctx, out, value)
        else:
            setitem(ctx, out, key, value)
        index += 2
    return out


def list_from(ctx, temporary):
    """A list comprehension's result: its elements stored plain."""
    return display_list(ctx, *temporary)


def dict_from(ctx, temporary):
    """A dict comprehension's result, from its temporary list of [key, value] pairs."""
    out = {}
    for key, value in temporary:
        setitem(ctx, out, key, value)
    return out


DOUBLE_STAR = object()  # marks `**mapping` in a dict display

BUILTINS: dict = {
    getattr: getattr_, setattr: setattr_, delattr: delattr_,
    object.__setattr__: object_setattr,
    operator.getitem: getitem, operator.setitem: setitem, operator.delitem: delitem,
    list.append: list_append, list.extend: list_extend, list.sort: list_sort,
    list.copy: copy_container, dict.copy: copy_container, copy.copy: copy_container,
    set.copy: copy_container, deque.copy: copy_container,
    list: from_iterable(list), tuple: from_iterable(tuple), deque: from_iterable(deque),
    dict: dict_new, dict.update: dict_update, dict.get: dict_get, dict.pop: dict_pop,
    dict.setdefault: dict_setdefault,
    deque.append: list_append,
    display_list: display_list, display_tuple: display_tuple, display_dict: display_dict,
    list_from: list_from, dict_from: dict_from, unpack: unpack, unpack_each: unpack_each,
}
for _method in (list.insert, list.pop, list.remove, list.reverse, list.clear,
                deque.appendleft, deque.pop, deque.popleft, deque.rotate, deque.remove,
                deque.reverse, deque.extendleft, deque.clear, deque.insert):
    BUILTINS[_method] = _in_place(_method)


def display_set(ctx, *items):
    out = set()
    for item in items:
        out.add(nooverdub(heap.own)(item, ctx.tag))
    return out


BUILTINS[display_set] = display_set
