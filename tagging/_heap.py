"""Slot storage: reading and writing the metadata of heap slots.

These run natively (the primitives declare them `nativecalls`); they only
touch plain containers and the store, never call user code. Which Python code
an attribute access runs is `_routes`; what generators yield is `_channels`.
"""

from __future__ import annotations

import gc
from collections import OrderedDict, deque
from types import MappingProxyType as PROXY
from typing import TYPE_CHECKING, Any

from contexts import layer as engine
from contexts.layer import class_attribute
from tagging._routes import attribute_slot, namespace_of, python_method
from tagging._store import ABSENT
from tagging._tagged import Tagged, rawest, wrap

if TYPE_CHECKING:  # annotations only: the layer imports this module
    from tagging._layer import Tag

SEQUENCES = (list, tuple, deque)
KEYED = (set, frozenset, dict)  # containers whose members (keys) may carry metadata
VALUES, ITEMS, KEYS = type({}.values()), type({}.items()), type({}.keys())
VIEWS = (VALUES, ITEMS, KEYS)
_WRITABLE_WHILE_ITERATED = (list, deque, VALUES, ITEMS)
_STORAGE = (list, tuple, dict, deque)  # containers whose slots `__getitem__` reads
_MEMBERS_KNOWN = (*SEQUENCES, *KEYED)  # containers listed without running user code
REVERSED_VALUES, REVERSED_ITEMS = type(reversed({}.values())), type(reversed({}.items()))
_ORDERED_VIEWS = tuple(type(view) for view in (
    OrderedDict().values(), OrderedDict().items(), OrderedDict().keys()))


def own(x: Any, tag: Tag) -> Any:
    """`x` without `tag`'s layer."""
    return x.value if type(x) is Tagged and x.tag is tag else x


def own_arguments(tag: Tag, args: tuple, kwargs: dict) -> tuple:
    """(args, kwargs) without `tag`'s layer, for a call that runs natively."""
    return [own(a, tag) for a in args], {k: own(v, tag) for k, v in kwargs.items()}


def split(x: Any, tag: Tag) -> tuple:
    """(value without `tag`'s layer, its metadata or ABSENT)."""
    if type(x) is Tagged and x.tag is tag:
        return x.value, x.meta
    return x, ABSENT


def retag(tag: Tag, value: Any, meta: Any) -> Any:
    return value if meta is ABSENT else wrap(tag, value, meta)


# Attributes ---------------------------------------------------------------------

def load_attribute(tag: Tag, obj: Any, name: str, value: Any) -> Any:
    """`value`, just read as `obj.name`, with the metadata stored for that slot."""
    entries = tag.store.entries
    if not entries:
        return value
    if type(value) is Tagged:
        if value.tag is tag:
            return value
        raw = rawest(value)
    else:
        raw = value
    if type(obj) is Tagged:
        obj = rawest(obj)
    container, slot = attribute_slot(obj, name)
    entry = entries.get(id(container))
    if entry is not None:
        found = entry[1].get(slot)
        if found is not None and found[0] is raw:
            return wrap(tag, value, found[1])
    if container is obj and not isinstance(obj, type):
        for klass in type(obj).__mro__:  # a class attribute read through an instance
            if name in klass.__dict__:
                return retag(tag, value, tag.store.lookup(klass, name, raw))
    return value


def note_attribute(tag: Tag, obj: Any, name: str, meta: Any) -> None:
    """After `obj.name` was stored: remember `meta` for the slot (or forget it)."""
    if type(obj) is Tagged:
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
    namespace = namespace_of(obj)
    if type(namespace) is dict:
        tag.store.forget(namespace, name)


# Items -----------------------------------------------------------------------------

def merges_storage(other: Any) -> bool:
    """Whether `dict.update(other)` copies `other`'s storage (a dict that iterates as
    a dict) rather than calling its `keys()` and `__getitem__`."""
    return isinstance(other, dict) and class_attribute(type(other), "__iter__") is dict.__iter__


def note_entry(tag: Tag, mapping: dict, key: Any, value: Any, meta: Any) -> None:
    """After `dict.__setitem__(mapping, key, value)`: remember `meta` (or forget)."""
    mapping, key = rawest(mapping), rawest(key)
    if meta is ABSENT:
        tag.store.forget(mapping, key)
    else:
        tag.store.record(mapping, key, rawest(value), meta)


def note_popped(tag: Tag, mapping: dict, pair: tuple) -> None:
    """A `(key, value)` pair just popped from `mapping` keeps the key's and the
    value's metadata; `mapping` forgets the key."""
    mapping = rawest(mapping)
    note_pair(tag, mapping, pair)
    forget_entry(tag, mapping, pair[0])


def forget_entry(tag: Tag, mapping: dict, key: Any) -> None:
    """After `key` left `mapping`: its value's metadata and its own are forgotten."""
    mapping, key = rawest(mapping), rawest(key)
    tag.store.forget(mapping, key)
    tag.store.forget(mapping, key, tag.store.members)


def native_reduction(kind: type) -> bool:
    """Whether `object.__reduce_ex__` of a `kind` iterates its elements natively
    (`iter(obj)`, `iter(obj.items())`) and runs no Python code."""
    return all(python_method(kind, name) is None
               for name in ("__reduce__", "__reduce_ex__", "__iter__", "__getitem__", "items"))


def note_slot_state(tag: Tag, obj: Any, state: Any) -> None:
    """A reduction's `(dict state, slot state)`, read by C from `obj`'s `__slots__`:
    each slot's value gets the metadata it has as `obj`'s attribute."""
    if type(state) is not tuple or len(state) != 2 or type(state[1]) is not dict:
        return
    slots = tag.store.slots(obj) or {}
    for name, value in state[1].items():
        found = slots.get(name)
        if found is not None and found[0] is value:
            tag.store.record(state[1], name, value, found[1])


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, SEQUENCES) and type(key) is int and key < 0:
        return key + len(container)
    return key


def item_operands(tag: Tag, container: Any, key: Any, dunder: str) -> tuple:
    """(container, key) without `tag`'s layer, and the container type's Python `dunder`."""
    container, key = own(container, tag), own(key, tag)
    return container, key, python_method(type(rawest(container)), dunder)


def load_item(tag: Tag, container: Any, key: Any, value: Any) -> Any:
    """`value`, just read as `container[key]`, with the metadata stored for that slot."""
    entries = tag.store.entries
    if not entries:
        return value
    if type(container) is Tagged:
        container = rawest(container)
    if type(key) is Tagged:
        key = rawest(key)
    if type(key) is slice:
        if tag.store.slots(container):
            indices = range(*key.indices(len(container)))
            copy_slots(tag, container, rawest(value), list(indices))
        return value
    entry = entries.get(id(container))
    if entry is None:
        return value
    if type(key) is int and key < 0 and isinstance(container, SEQUENCES):
        key += len(container)
    try:
        found = entry[1].get(key)
    except TypeError:  # an unhashable key cannot name a slot
        return value
    if found is None or found[0] is not (rawest(value) if type(value) is Tagged else value):
        return value
    return wrap(tag, value, found[1])


def note_item(tag: Tag, container: Any, key: Any, meta: Any) -> None:
    """After `container[key]` was stored: remember `meta` for the slot (or forget it)."""
    if type(container) is Tagged:
        container = rawest(container)
    if type(key) is Tagged:
        key = rawest(key)
    slot = _index(container, key)
    if meta is ABSENT:
        tag.store.forget(container, slot)
    else:
        tag.store.record(container, slot, stored(container, key), meta)


def stored(container: Any, key: Any) -> Any:
    """What `container` holds at `key`, read from its own storage: a subclass's
    `__getitem__` is its author's code, which may compute (`list.__getitem__(self,
    i) * 2`) or do anything else, so what it returns need not be the object the
    slot holds, and it is not run here."""
    for kind in _STORAGE:
        if isinstance(container, kind):
            return kind.__getitem__(container, key)
    return container[key]


def record(tag: Tag, container: Any, slot: Any, value: Any, meta: Any) -> None:
    """Remember `meta` for `value`, just stored natively at `container`'s `slot`."""
    tag.store.record(container, slot, rawest(value), meta)


_ARGS = BaseException.args  # the C field, whatever a subclass calls `args`


def note_arguments(tag: Tag, error: BaseException, incoming: list) -> None:
    """After an exception was built from `incoming` (value, meta) pairs: each
    value's metadata for its slot of `error.args`, the tuple C keeps them in."""
    for index, (value, meta) in enumerate(incoming):
        note_argument(tag, error, index, value, meta)


def note_argument(tag: Tag, error: BaseException, index: int, value: Any, meta: Any) -> None:
    """`note_arguments` for one: given as it is (a pair built in code an enclosing
    context runs would hold its values plain, that context's tags in its store)."""
    args = _ARGS.__get__(rawest(error))
    raw = rawest(value)
    if meta is not ABSENT and index < len(args) and args[index] is raw:
        tag.store.record(args, index, raw, meta)


def forget_items(tag: Tag, container: Any) -> None:
    """After `container` was emptied of items."""
    tag.store.replace(rawest(container), {})


def copy_slots(tag: Tag, source: Any, target: Any, indices: list | None = None) -> None:
    """Give `target[j]` the metadata of `source[indices[j]]` (or of `source[j]`), and
    the members of a set or dict the metadata they have in `source`."""
    store = tag.store
    source, target = rawest(source), rawest(target)
    copy_members(tag, source, target)
    slots = store.slots(source)
    if not slots:
        return
    if isinstance(target, dict):
        for key, (raw, meta) in list(slots.items()):
            if key in target and stored(target, key) is raw:
                store.record(target, key, raw, meta)
        return
    if not isinstance(target, SEQUENCES):  # an object's own slots (`__slots__`), by name
        for name, (raw, meta) in list(slots.items()):
            if type(name) is str and getattr(target, name, None) is raw:
                store.record(target, name, raw, meta)
        return
    positions = indices if indices is not None else range(len(target))
    for j, i in enumerate(positions):
        found = slots.get(i)
        if found is not None and j < len(target) and target[j] is found[0]:
            store.record(target, j, found[0], found[1])


def copy_slot(tag: Tag, source: Any, index: Any, target: Any, position: Any) -> None:
    """Give `target[position]` the metadata of `source[index]`, whose item it holds
    (a tuple `zip` made)."""
    item = target[position]
    meta = tag.store.lookup(source, index, item)
    if meta is not ABSENT:
        tag.store.record(target, position, item, meta)


def copy_attributes(tag: Tag, source: Any, target: Any) -> None:
    """Give a copied object's attributes the metadata of the original's."""
    source, target = rawest(source), rawest(target)
    namespace = namespace_of(source)
    if type(namespace) is dict and type(namespace_of(target)) is dict:
        copy_slots(tag, namespace, target.__dict__)


def carry_over(tag: Tag, sources: tuple, result: Any) -> None:
    """A container a foreign operator built from containers (`a + b`, `a * 3`,
    `a | b`, `a & b`, `+=`, `-=`) gets the metadata of the elements (members) it
    took from them."""
    kind = type(result)
    if kind in (list, tuple, deque):
        # concatenations and repetitions (`a + b`, `a * 3`, `a += b` in place): the
        # sources' positions before the operation, in order, repeated
        sources = [rawest(source) for source in sources]
        times = next((s for s in sources if type(s) is int), 1)
        parts = [s for s in sources if isinstance(s, SEQUENCES)]
        others = sum(len(s) for s in parts if s is not result)
        origin = [(part, i) for part in parts
                  for i in range(len(result) // max(times, 1) - others
                                 if part is result else len(part))]
        if origin and len(origin) * times == len(result):
            slots = {}
            for index, (part, i) in enumerate(origin * times):
                found = (tag.store.slots(part) or {}).get(i)
                if found is not None and result[index] is found[0]:
                    slots[index] = found
            tag.store.replace(result, slots)
    elif kind is dict:
        merge_entries(tag, sources, result)
    elif kind in (set, frozenset):
        pool: dict = {}
        for source in sources:
            pool_members(tag, source, pool)
        settle_members(tag, result, pool)
        note_view_pairs(tag, sources, result)


def merge_entries(tag: Tag, sources: tuple, result: dict) -> None:
    """After `a | b` or `a |= b` of dicts (or a mappingproxy, or a class's namespace),
    as after `a.update(b)`: a value is the last operand's that has its key, with that
    operand's metadata or none; a key is the object of the first operand that has it.
    Identity cannot say which operand a value came from: at the int 2, `{"a": x} |
    {"a": 2}` holds the very object `x` is."""
    result = rawest(result)
    operands = []
    for source in sources:
        source = rawest(source)
        if type(source) is PROXY:  # `proxy | d`: what the proxy shows
            source = proxied(source)
        if isinstance(source, (dict, type)) and source is not result:
            operands.append(source)
    values: dict = {}
    keys: dict = {}
    for source in operands:
        slots = tag.store.slots(source) or {}
        members = tag.store.slots(source, tag.store.members) or {}
        for key in source.__dict__ if isinstance(source, type) else source:
            values[key] = slots.get(key)
            if key not in keys:
                keys[key] = members.get(key)
    for key, found in values.items():
        if found is not None and stored(result, key) is found[0]:
            tag.store.record(result, key, found[0], found[1])
        else:
            tag.store.forget(result, key)
    own = tag.store.slots(result, tag.store.members) or {}
    for member in result:
        found = keys.get(member)
        if member in own or found is None or found[0] is not member:
            continue
        tag.store.record(result, member, member, found[1], tag.store.members)


def note_view_pairs(tag: Tag, sources: tuple, result: Any) -> None:
    """After a set operation on a dict's items view (`d.items() | s`): the pairs C
    made of the dict's entries keep the key's and the value's metadata, as the
    view's own pairs do (`note_pair`). A member that is an object of another
    operand (an equal pair `s` had) keeps its own."""
    sources = [rawest(source) for source in sources]
    mappings = [view_mapping(source) for source in sources if isinstance(source, ITEMS)]
    if not mappings:
        return
    kept = {id(member) for source in sources if isinstance(source, _MEMBERS_KNOWN)
            for member in source}
    for member in result:
        if type(member) is tuple and len(member) == 2 and id(member) not in kept:
            for mapping in reversed(mappings):  # the first operand's, as `|` keeps it
                note_pair(tag, mapping, member)


def move_slots(tag: Tag, source: Any, target: Any) -> None:
    """Give `target` the metadata of a temporary `source` it was made from (a deque
    with a `maxlen` keeps its last elements), and forget the temporary (the store
    must not keep it alive)."""
    source, target = rawest(source), rawest(target)
    skipped = len(source) - len(target) if isinstance(target, SEQUENCES) else 0
    copy_slots(tag, source, target, list(range(skipped, len(source))) if skipped > 0 else None)
    tag.store.replace(source, {})


def has_slots(tag: Tag, container: Any) -> bool:
    """Whether the store knows metadata of some element or member of `container` (or
    a view's dict)."""
    if isinstance(container, VIEWS):
        container = view_mapping(container)
    return bool(tag.store.slots(container) or tag.store.slots(container, tag.store.members))


def iterates_with_metadata(tag: Tag, raw: Any) -> bool:
    """Whether iterating `raw` natively, as lazily as C does, could pass over
    elements or members the store knows metadata of: now, or once the code between
    two steps writes one. A list, a deque, or a dict's values or items may be given
    a value with metadata ahead of a running iteration (`for v in a: a[1] = x * x`),
    and C's iterator would then read the plain value: they are always iterated by
    a step that reads the slot's metadata. A set's members and a dict's keys cannot
    be replaced while iterated, nor can a tuple's items."""
    if isinstance(raw, _WRITABLE_WHILE_ITERATED):  # an OrderedDict's views too
        return True
    if isinstance(raw, tuple):
        return has_slots(tag, raw)
    if isinstance(raw, (KEYS, PROXY)):
        raw = view_mapping(raw)
    return isinstance(raw, KEYED) and bool(tag.store.slots(raw, tag.store.members))


def snapshot(tag: Tag, container: Any) -> dict:
    """position -> (raw, meta) recorded for a sequence, before it changes in place."""
    slots = tag.store.slots(rawest(container))
    return dict(slots) if slots else {}


def positions(container: Any) -> list | deque:
    """Each position's own index, in a container of the same shape (a deque keeps
    its `maxlen`), to replay an in-place change on: what it becomes says where each
    element went. Identity cannot say it: one object may sit at two positions with
    different metadata (`[x, x*x - x]` at the int 2)."""
    raw = rawest(container)
    if isinstance(raw, deque):
        return deque(range(len(raw)), raw.maxlen)
    return list(range(len(raw)))


def remap(tag: Tag, container: Any, before: dict, moved: Any, incoming: dict = {}) -> None:
    """After an in-place change, replayed on `moved` (old positions as their index,
    new elements as the negative labels that key `incoming`): each position gets the
    (raw, meta) of what landed there, if it holds that very object."""
    container = rawest(container)
    slots = {}
    for index, (item, label) in enumerate(zip(container, moved)):
        found = before.get(label) if label >= 0 else incoming.get(label)
        if found is not None and found[0] is item:
            slots[index] = found
    tag.store.replace(container, slots)


def index_of(raw: Any, value: Any) -> int | None:
    try:
        return raw.index(value)
    except ValueError:
        return None


def retag_removed(tag: Tag, result: Any, before: dict, moved: Any) -> Any:
    """A removed element (from `pop`) gets its metadata back: the one of the
    position the replayed change removed. Under an outer context `result` comes
    back carrying the outer tag (the method ran there): its innermost plain value
    is the object recorded, and this tag wraps the outer one."""
    gone = set(before) - set(moved)
    if len(gone) == 1:
        raw, meta = before[gone.pop()]
        if raw is rawest(result):
            return Tagged(tag, result, meta)
    return result


def labelled(pairs: list) -> tuple:
    """(labels, incoming) for new elements given as (value, meta) pairs: a negative
    label each, and label -> (raw, meta) for those that carry metadata."""
    labels = [-1 - n for n in range(len(pairs))]
    incoming = {label: (rawest(value), meta) for label, (value, meta) in zip(labels, pairs)
                if meta is not ABSENT}
    return labels, incoming


def native_order(keys: list, reverse: bool) -> list | None:
    """The sorting permutation of `keys` when they are plain scalars under their tags."""
    raw = [rawest(k) for k in keys]
    return engine.native_order(raw, reverse) if engine.scalars_only(raw) else None


def view_pairs(mapping: dict, view: Any) -> Any:
    """(key, value) pairs in the order `view` shows them: an OrderedDict keeps an
    order of its own (`move_to_end`), which `dict.items` does not follow."""
    if isinstance(view, _ORDERED_VIEWS):
        return OrderedDict.items(mapping)
    return dict.items(mapping)


def view_mapping(view: Any) -> dict:
    """The dict a view of a dict shows (`.mapping` is a proxy)."""
    for referent in gc.get_referents(view):
        if isinstance(referent, dict):
            return referent
    return {}


def proxied(proxy: PROXY) -> Any:
    """What a mappingproxy shows, as the store keys its slots: its mapping (a dict
    view's `.mapping` shows the dict), or the class whose namespace it shows
    (`vars(C)`, `C.__dict__`: a class is its attributes' own container). Found from
    the classes alive, not the store: nested, each context must find the same
    container (and the collector's referrers miss frozen objects)."""
    shown, = gc.get_referents(proxy)
    if type(shown) is dict and "__module__" in shown:  # a class's namespace, perhaps
        pending = [object]
        while pending:
            kind = pending.pop()
            if view_mapping(vars(kind)) is shown:
                return kind
            pending.extend(type.__subclasses__(kind))
    return shown


def record_fresh(tag: Tag, sequence: list, pairs: list) -> None:
    """Record at once the metadata of a list just made of the values of `pairs`
    ((value, meta or ABSENT) from `split`), which the store knows nothing of yet."""
    slots = {index: (rawest(value), meta) for index, (value, meta) in enumerate(pairs)
             if meta is not ABSENT}
    tag.store.replace(sequence, slots)


def retag_item(tag: Tag, sequence: Any, index: int, item: Any) -> Any:
    """`item`, read at `index` of `sequence`, with the metadata recorded there."""
    return retag(tag, item, tag.store.lookup(sequence, index, rawest(item)))


def retag_value(tag: Tag, mapping: dict, key: Any, value: Any) -> Any:
    """`value`, read at `key` of `mapping`, with the metadata recorded there."""
    return retag(tag, value, tag.store.lookup(mapping, key, rawest(value)))


def note_pair(tag: Tag, mapping: dict, pair: tuple) -> None:
    """A `(key, value)` pair of `mapping.items()` keeps the key's metadata in slot 0
    and the value's in slot 1."""
    key, value = rawest(pair[0]), rawest(pair[1])
    store = tag.store
    meta = store.lookup(mapping, key, value)
    if meta is not ABSENT:
        store.record(pair, 1, value, meta)
    meta = store.lookup(mapping, key, key, store.members)
    if meta is not ABSENT:
        store.record(pair, 0, key, meta)


# Set members and dict keys: found by equality, as the container finds them; the
# metadata goes back only to the very object recorded, the one the container holds.

def count(container: Any) -> int:
    """How many members a set or dict has (to see whether an addition added one); 0
    for anything else (the method then called on it raises CPython's error)."""
    container = rawest(container)
    return len(container) if isinstance(container, KEYED) else 0


def note_member(tag: Tag, container: Any, member: Any, meta: Any, before: int) -> None:
    """After `member` was added to `container` (a set, or a dict as a key), which had
    `before` members: a new member keeps `meta`; an equal one already there stays,
    with its own."""
    container = rawest(container)
    if len(container) == before:
        return
    member = rawest(member)
    if meta is ABSENT:
        tag.store.forget(container, member, tag.store.members)
    else:
        tag.store.record(container, member, member, meta, tag.store.members)


def forget_member(tag: Tag, container: Any, member: Any) -> None:
    """After an equal of `member` left `container`."""
    member = rawest(member)
    if isinstance(member, set):  # `s.discard(t)` looks for `frozenset(t)`, as CPython does
        member = frozenset(member)
    tag.store.forget(rawest(container), member, tag.store.members)


def forget_members(tag: Tag, container: Any) -> None:
    """After `container` was emptied."""
    tag.store.replace(rawest(container), {}, tag.store.members)


def retag_member(tag: Tag, container: Any, member: Any) -> Any:
    """`member`, just read from `container` (a set, a dict's keys), with its metadata."""
    raw = rawest(member)
    return retag(tag, member, tag.store.lookup(container, raw, raw, tag.store.members))


def take_member(tag: Tag, container: Any, member: Any) -> Any:
    """`member`, just popped from `container`, with its metadata (which it forgets)."""
    member = retag_member(tag, container, member)
    forget_member(tag, container, member)
    return member


def pool_members(tag: Tag, container: Any, pool: dict) -> None:
    """Add the (raw, meta) of `container`'s members (a view's dict's keys) to `pool`,
    keyed by the members' identity; what is pooled first stays."""
    container = rawest(container)
    if type(container) is KEYS:
        container = view_mapping(container)
    members = tag.store.slots(container, tag.store.members)
    for raw, meta in members.values() if members else ():
        pool.setdefault(id(raw), (raw, meta))


def pool_item(tag: Tag, item: Any, pool: dict) -> Any:
    """`item` without `tag`'s layer, its (raw, meta) pooled as `pool_members` does."""
    inner, meta = split(item, tag)
    if meta is not ABSENT:
        raw = rawest(inner)
        pool.setdefault(id(raw), (raw, meta))
    return inner


def settle_members(tag: Tag, container: Any, pool: dict) -> None:
    """After a set operation made or changed `container`: each member gets the
    metadata its very object has in the pool of the operands."""
    container = rawest(container)
    members = {}
    if pool:
        for member in container:
            found = pool.get(id(member))
            if found is not None:
                members[member] = found
    tag.store.replace(container, members, tag.store.members)


def copy_members(tag: Tag, source: Any, target: Any) -> None:
    """Give the members of a set or dict `target` the metadata the same objects have
    as members of `source`."""
    members = tag.store.slots(source, tag.store.members)
    if not members or target is source or not isinstance(target, KEYED):
        return
    for member in target:
        found = members.get(member)
        if found is not None and found[0] is member:
            tag.store.record(target, member, member, found[1], tag.store.members)


def move_members(tag: Tag, source: Any, target: Any) -> None:
    """`copy_members` from a temporary, which the store then forgets."""
    source = rawest(source)
    copy_members(tag, source, rawest(target))
    tag.store.replace(source, {}, tag.store.members)


def list_members(tag: Tag, container: Any, listed: list) -> None:
    """Give `listed`, a list C code made of `container`'s members, their metadata."""
    for index, member in enumerate(listed):
        meta = tag.store.lookup(container, member, member, tag.store.members)
        if meta is not ABSENT:
            tag.store.record(listed, index, member, meta)
