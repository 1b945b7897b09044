"""Native helpers of the heap primitives: finding slots, reading and writing metadata.

These run natively (the primitives call them through `nooverdub`); they only
touch plain containers and the store, never call user code.
"""

from __future__ import annotations

import types
from collections import deque
from typing import Any

from tagging._store import ABSENT
from tagging._tag import Tag, Tagged, rawest

SEQUENCES = (list, tuple, deque)
_VIEWS = (type({}.values()), type({}.items()))
_getters: dict = {}
_setters: dict = {}


def own(x: Any, tag: Tag) -> Any:
    """`x` without `tag`'s layer."""
    return x.value if type(x) is Tagged and x.tag is tag else x


def split(x: Any, tag: Tag) -> tuple:
    """(value without `tag`'s layer, its metadata or ABSENT)."""
    if type(x) is Tagged and x.tag is tag:
        return x.value, x.meta
    return x, ABSENT


def retag(tag: Tag, value: Any, meta: Any) -> Any:
    return value if meta is ABSENT else Tagged(tag, value, meta)


# Attributes ---------------------------------------------------------------------

def _find(kind: type, name: str) -> Any:
    for klass in kind.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def python_getter(obj: Any, name: str) -> Any:
    """The Python getter behind `obj.name` (a property's), if there is one."""
    key = (type(obj), name)
    found = _getters.get(key, ABSENT)
    if found is ABSENT:
        attribute = _find(type(obj), name)
        found = None
        if isinstance(attribute, property) and type(attribute.fget) is types.FunctionType:
            found = attribute.fget
        _getters[key] = found
    return found


def python_setter(obj: Any, name: str) -> Any:
    """`(setter, takes_name)`: a property's setter or a Python `__setattr__`, if any."""
    key = (type(obj), name)
    found = _setters.get(key, ABSENT)
    if found is ABSENT:
        attribute = _find(type(obj), name)
        custom = _find(type(obj), "__setattr__")
        if isinstance(attribute, property) and type(attribute.fset) is types.FunctionType:
            found = (attribute.fset, False)
        elif type(custom) is types.FunctionType:
            found = (custom, True)
        else:
            found = None
        _setters[key] = found
    return found


def attribute_slot(obj: Any, name: str) -> tuple:
    """(container, slot) holding `obj.name`: its `__dict__`, or itself."""
    if not isinstance(obj, type):
        namespace = getattr(obj, "__dict__", None)
        if type(namespace) is dict and name in namespace:
            return namespace, name
    return obj, name


def load_attribute(tag: Tag, obj: Any, name: str, value: Any) -> Any:
    store = tag.store
    if not store.entries:
        return value
    obj, raw = rawest(obj), rawest(value)
    container, slot = attribute_slot(obj, name)
    meta = store.lookup(container, slot, raw)
    if meta is ABSENT and container is obj and not isinstance(obj, type):
        for klass in type(obj).__mro__:  # a class attribute read through an instance
            if name in klass.__dict__:
                meta = store.lookup(klass, name, raw)
                break
    return retag(tag, value, meta)


def note_attribute(tag: Tag, obj: Any, name: str, meta: Any) -> None:
    obj = rawest(obj)
    container, slot = attribute_slot(obj, name)
    if meta is ABSENT:
        tag.store.forget(container, slot)
    else:
        stored = container[slot] if container is not obj else getattr(obj, name)
        tag.store.record(container, slot, stored, meta)


def forget_attribute(tag: Tag, obj: Any, name: str) -> None:
    obj = rawest(obj)
    tag.store.forget(obj, name)
    namespace = getattr(obj, "__dict__", None)
    if type(namespace) is dict:
        tag.store.forget(namespace, name)


# Items -----------------------------------------------------------------------------

def _index(container: Any, key: Any) -> Any:
    if isinstance(container, SEQUENCES) and type(key) is int and key < 0:
        return key + len(container)
    return key


def load_item(tag: Tag, container: Any, key: Any, value: Any) -> Any:
    store = tag.store
    if not store.entries:
        return value
    container, key = rawest(container), rawest(key)
    if type(key) is slice:
        slots = store.slots(container)
        if slots:
            indices = range(*key.indices(len(container)))
            copy_slots(tag, container, rawest(value), list(indices))
        return value
    return retag(tag, value, store.lookup(container, _index(container, key), rawest(value)))


def note_item(tag: Tag, container: Any, key: Any, meta: Any) -> None:
    container, key = rawest(container), rawest(key)
    slot = _index(container, key)
    if meta is ABSENT:
        tag.store.forget(container, slot)
    else:
        tag.store.record(container, slot, container[key], meta)


def copy_slots(tag: Tag, source: Any, target: Any, indices: list | None = None) -> None:
    """Give `target[j]` the metadata of `source[indices[j]]` (or of `source[j]`)."""
    store = tag.store
    slots = store.slots(rawest(source))
    if not slots:
        return
    source, target = rawest(source), rawest(target)
    if isinstance(target, dict):
        for key, (raw, meta) in list(slots.items()):
            if key in target and target[key] is raw:
                store.record(target, key, raw, meta)
        return
    positions = indices if indices is not None else range(len(target))
    for j, i in enumerate(positions):
        found = slots.get(i)
        if found is not None and j < len(target) and target[j] is found[0]:
            store.record(target, j, found[0], found[1])


def snapshot(tag: Tag, container: Any) -> list:
    """The (raw, meta) pairs recorded for a sequence, before it is changed in place."""
    slots = tag.store.slots(rawest(container))
    return list(slots.values()) if slots else []


def remap(tag: Tag, container: Any, before: list, incoming: list = ()) -> None:
    """After an in-place change, find each element's metadata by the element's identity."""
    container = rawest(container)
    pool: dict = {}
    for raw, meta in [*before, *incoming]:
        pool.setdefault(id(raw), []).append(meta)
    slots = {}
    if pool:
        for index, item in enumerate(container):
            metas = pool.get(id(item))
            if metas:
                slots[index] = (item, metas.pop(0) if len(metas) > 1 else metas[0])
    tag.store.replace(container, slots)


def tagged_items(tag: Tag, iterable: Any):
    """Iterate a container giving back each element's metadata."""
    iterable = own(iterable, tag)
    container = rawest(iterable)
    kind = type(container)
    if kind in _VIEWS:
        mapping = container.mapping
        slots = tag.store.slots(mapping)
        if not slots:
            return iterable
        if kind is _VIEWS[0]:
            return (retag(tag, v, tag.store.lookup(mapping, k, v)) for k, v in
                    mapping.items())
        return ((k, retag(tag, v, tag.store.lookup(mapping, k, v))) for k, v in
                mapping.items())
    if isinstance(container, SEQUENCES):
        slots = tag.store.slots(container)
        if not slots:
            return iterable
        return (retag(tag, item, tag.store.lookup(container, i, item))
                for i, item in enumerate(container))
    return None
