"""The heap primitives every tagging context has.

Lowering turns attribute access, subscripts, container displays, globals and
closure cells into calls; these primitives answer them: the heap receives the
plain value, the shadow store the metadata, and a read gives it back. Each is
`impl(ctx, *args)`; the calls the tagging pass writes (displays, unpacking)
are the markers of `_markers`, answered by the primitives of the same names.
They are plain Python, so when the tagging context itself runs under another
one, the outer context runs them and its own primitives see the heap
operations they make. Their machinery runs natively, declared once below with
`nativecalls`: the heap helpers, `rawest`, and the builtins called as
`native.len(...)`, whose temporaries hold tagged values as they are. Python
code a heap operation reaches (a property, a `__setattr__`, a `__getitem__`,
an `__iter__`, a sort key) runs as a call in the context (`call_in`).

So a primitive moves elements (lists them, unpacks them, picks them in a new
order, builds a dict of them) in the context, never in a native helper, and
hands a native helper only what a native helper made (the pairs of
`heap.split`): run under an outer context, a native step over the heap would
keep this context's metadata and silently drop the outer one's, and the outer
derivative of an inner one would be wrong.
"""

from __future__ import annotations

import array
import builtins as native
import copy
import functools
import operator
import types
import weakref
from collections import OrderedDict, defaultdict, deque

from contexts import layer as engine
from contexts import fallback, nooverdub, recurse
from tagging import _channels as channels
from tagging import _heap as heap
from tagging import _iterators as iterators
from tagging import _routes as routes
from tagging import _markers as markers
from tagging._markers import items_to_unpack
from tagging._routes import generic_getattr
from tagging._store import ABSENT
from tagging._tagged import Tagged, rawest

engine.nativecalls(__name__, "native", "heap", "routes", "channels", "markers", "rawest",
                   "READERS")

_PLAIN_ITERABLES = frozenset({str, bytes, range})
_KEYED = frozenset({dict, set, frozenset, heap.KEYS})
_GENERATOR = types.GeneratorType
_COROUTINE = types.CoroutineType
_FINITE = (tuple, list)


# Python code behind an operation --------------------------------------------------

def call_in(ctx, f, *args):
    """`f(*args)` as a call made in `ctx`: its hooks see it, the engine runs its body.

    For the Python code a heap operation reaches (a property, a `__setattr__`,
    a `__getitem__`): run natively it would see tagged values as they are, or
    store them in the heap.
    """
    return recurse(ctx, _call, f, *args)


def _call(f, *args):
    return f(*args)


# Attributes ------------------------------------------------------------------------

def getattr_(ctx, obj, name, *default):
    """`obj.name`. An attribute that a value tagged for `ctx` has natively (a
    number's `.real`, a slot of its class) is read by C code: a foreign call
    `getattr(value, name)`, which reaches the context's `fallback`; a Python
    getter (a property of `Fraction` or `mpf`) is called with the tagged value."""
    tag = ctx.tag
    mine = obj if type(obj) is Tagged and obj.tag is tag else None
    obj, name = heap.own(obj, tag), heap.own(name, tag)
    receiver = obj if mine is None else mine
    route = routes.python_getter(rawest(obj), name)
    if route is None:
        if mine is not None:
            return ctx.fallback(getattr, mine, name, *default)
        value = getattr(obj, name, *default)
        return heap.load_attribute(tag, obj, name, value)
    function, leading, trailing, hook = route
    try:
        if function is None:  # found natively, or else by the Python `__getattr__`
            value = generic_getattr(obj, name)  # a context running this one sees the read
        else:
            value = call_in(ctx, function, *leading, receiver, *trailing)
        return heap.load_attribute(tag, obj, name, value)
    except AttributeError:
        if hook is None:
            if default:
                return default[0]
            raise
    try:
        return call_in(ctx, hook, receiver, name)
    except AttributeError:
        if default:
            return default[0]
        raise


def object_getattribute(ctx, obj, name):
    """`object.__getattribute__(obj, name)`, as a Python `__getattribute__` reads its
    own object: an instance attribute is the load of its slot, which gets its
    metadata back. Where the class's attribute runs Python code (a property, a
    descriptor), C would run it natively: the foreign call, which a layer may refuse."""
    tag = ctx.tag
    obj, name = heap.own(obj, tag), heap.own(name, tag)
    if routes.python_descriptor(rawest(obj), name):
        return ctx.fallback(object.__getattribute__, obj, name)
    return heap.load_attribute(tag, obj, name, object.__getattribute__(obj, name))


def found_natively(ctx, obj, name):
    """`obj.name` found without a Python `__getattr__` (`routes.generic_getattr`), as
    a context enclosing one that reads it sees the read: a load of the slot, which
    gets this context's metadata back."""
    return heap.load_attribute(ctx.tag, obj, name, generic_getattr(obj, name))


def method_of(ctx, dispatch, obj, name):
    """What `obj.name(...)` calls: the attribute, read as `obj.name` is, resolved
    (the general path of the `method` cell)."""
    return nooverdub(dispatch)(getattr_(ctx, obj, name))


def setattr_(ctx, obj, name, value):
    tag = ctx.tag
    obj, name = heap.own(obj, tag), heap.own(name, tag)
    route = routes.python_setter(rawest(obj), name)
    if route is not None:
        function, leading, takes_name = route
        if takes_name:
            call_in(ctx, function, *leading, obj, name, value)
        else:
            call_in(ctx, function, *leading, obj, value)
        return None
    return _store_attribute(ctx, setattr, obj, name, value)


def object_setattr(ctx, obj, name, value):
    return _store_attribute(ctx, object.__setattr__, obj, name, value)


def _store_attribute(ctx, store, obj, name, value):
    tag = ctx.tag
    obj, name = heap.own(obj, tag), heap.own(name, tag)
    handler = handler_of(ctx, obj)
    if handler is not None:  # (`a.imag = v` writes into an ndarray's memory)
        handler.setattr(ctx, obj, name, value)
        return
    if name == "args" and native.isinstance(rawest(obj), BaseException) and \
            native.type(rawest(value)) is not tuple:
        # C keeps an exact tuple as it is, and would make anything else one natively
        value = tuple_from(ctx, tuple, value)
    inner, meta = heap.split(value, tag)
    if meta is not ABSENT and routes.stored_by_c_descriptor(rawest(obj), name):
        fallback(ctx, store, obj, name, value)  # C code keeps what it makes of the value
        return
    store(obj, name, inner)
    heap.note_attribute(tag, obj, name, meta)


def delattr_(ctx, obj, name):
    """`del obj.name`: a Python `__delattr__`, property deleter or descriptor's
    `__delete__` is called in the context (C would call it natively, and what it
    computes and stores would lose its metadata); else the slot is forgotten."""
    tag = ctx.tag
    obj, name = heap.own(obj, tag), heap.own(name, tag)
    route = routes.python_deleter(rawest(obj), name)
    if route is not None:
        function, leading, takes_name = route
        call_in(ctx, function, *leading, obj, *((name,) if takes_name else ()))
        return None
    delattr(obj, name)
    heap.forget_attribute(tag, obj, name)


# Items -----------------------------------------------------------------------------

# C containers that read a key as a position, `operator.index(key)`.
_POSITIONAL = (*heap.SEQUENCES, str, bytes, bytearray, range, memoryview, array.array)


def _position(ctx, container, key):
    """`key` as a C sequence reads it: a key whose class has a Python `__index__`
    becomes the int that gives, called in the context (natively, what it computes
    and stores would lose its metadata), so the slot is found by its position."""
    kind = native.type(rawest(key))
    if kind is slice:
        return _bounds(ctx, container, key)
    if kind is int or routes.python_method(kind, "__index__") is None or \
            not native.isinstance(rawest(container), _POSITIONAL):
        return key
    return heap.own(call_in(ctx, operator.index, key), ctx.tag)


def _bounds(ctx, container, key):
    """A slice as a C sequence reads it: each bound whose class has a Python
    `__index__` becomes the int that gives, called in the context, as `_position`
    does for a key (`xs[i:]` with `i` a user's index)."""
    raw = rawest(key)
    bounds = (raw.start, raw.stop, raw.step)
    if not native.any(_converted(bound) for bound in bounds) or \
            not native.isinstance(rawest(container), _POSITIONAL):
        return key
    return native.slice(*[heap.own(call_in(ctx, operator.index, bound), ctx.tag)
                          if _converted(bound) else bound for bound in bounds])


def _converted(bound) -> bool:
    kind = native.type(bound)
    return bound is not None and kind is not int and \
        routes.python_method(kind, "__index__") is not None


def handler_of(ctx, raw):
    """What the context's class says reads, writes and iterates the items of C
    containers of `raw`'s type (its `item_handlers`, see `tagging.layer`), or None."""
    handlers = native.getattr(native.type(ctx), "item_handlers", None)
    if handlers:
        for kind in native.type(raw).__mro__:
            found = handlers.get(kind)
            if found is not None:
                return found
    return None


def getitem(ctx, container, key):
    tag = ctx.tag
    container, plain_key, method = heap.item_operands(tag, container, key, "__getitem__")
    if method is not None:  # (given the key as written: it may compute with it)
        return call_in(ctx, method, container, key)
    hook = _class_getitem(container)
    if hook is not None:
        return call_in(ctx, hook, container, key)
    handler = handler_of(ctx, container)
    if handler is not None:
        return handler.getitem(ctx, container, plain_key)
    plain_key = _position(ctx, container, plain_key)
    if native.isinstance(rawest(container), dict):
        return _dict_read(ctx, container, key, operator.getitem)
    if native.type(rawest(container)) is heap.PROXY:
        return _proxy_read(ctx, rawest(container), key, plain_key)
    value = operator.getitem(container, plain_key)
    return heap.load_item(tag, container, plain_key, value)


def _class_getitem(container):
    """The function of a class's `__class_getitem__` written in Python, which
    `cls[key]` calls (natively, what it computed would lose its metadata), or None."""
    raw = rawest(container)
    if not native.isinstance(raw, type):
        return None
    found = native.getattr(raw, "__class_getitem__", None)
    function = native.getattr(found, "__func__", None)
    return function if native.type(function) is types.FunctionType else None


def _proxy_read(ctx, proxy, key, plain_key):
    """`proxy[key]` of a mappingproxy reads what it shows: a mapping, read as itself
    (a dict's slot, a Python `__getitem__` in the context), or a class's attribute."""
    shown = heap.proxied(proxy)
    if native.isinstance(shown, type):
        return heap.load_item(ctx.tag, shown, plain_key, operator.getitem(proxy, plain_key))
    return getitem(ctx, shown, key)


# Containers whose item stores keep the very object stored: a read gives it back, and
# by identity its metadata. A C container that converts what it is given (an
# `array.array`, a `memoryview`, a `bytearray`, a NumPy array) gives back a new object,
# so the metadata could not be found again: storing a value that carries some is a
# foreign call, answered by the context's `fallback` (which sees the tagged value).
_KEEPS_OBJECTS = (list, dict, deque)


def setitem(ctx, container, key, value):
    tag = ctx.tag
    container, plain_key, method = heap.item_operands(tag, container, key, "__setitem__")
    if method is not None:  # (given the key as written: a dict subclass keeps its metadata)
        call_in(ctx, method, container, key, value)
        return
    handler = handler_of(ctx, container)
    if handler is not None:
        handler.setitem(ctx, container, plain_key, value)
        return
    plain_key = _position(ctx, container, plain_key)
    if not native.isinstance(rawest(container), _KEEPS_OBJECTS):
        _store_converted(ctx, container, plain_key, value)
        return
    if native.type(rawest(plain_key)) is slice:
        before = heap.snapshot(tag, container)
        moved = heap.positions(container)
        incoming = _incoming(ctx, value)
        operator.setitem(container, plain_key, [v for v, _ in incoming])
        labels, metas = heap.labelled(incoming)
        operator.setitem(moved, plain_key, labels)
        heap.remap(tag, container, before, moved, metas)
        return
    if native.isinstance(rawest(container), dict):
        _dict_store(ctx, container, key, value, operator.setitem)
        return
    inner, meta = heap.split(value, tag)
    operator.setitem(container, plain_key, inner)
    heap.note_item(tag, container, plain_key, meta)


def _store_converted(ctx, container, key, value):
    """`container[key] = value` into a C container that converts what it is given
    (see `_KEEPS_OBJECTS`): natively where no metadata goes in, as a foreign call
    where some would. A slice's iterator is read once, into a list of its items."""
    tag = ctx.tag
    if native.type(rawest(key)) is slice:
        items = rawest(value)
        if native.iter(items) is items:
            value = [heap.retag(tag, v, meta) for v, meta in _incoming(ctx, items)]
        carried = native.any(meta is not ABSENT for _, meta in _incoming(ctx, value))
    else:
        carried = heap.split(value, tag)[1] is not ABSENT
    if carried:
        fallback(ctx, native.type(rawest(container)).__setitem__, container, key, value)
    else:
        operator.setitem(container, key, value)


def delitem(ctx, container, key):
    tag = ctx.tag
    written = key
    container, key, method = heap.item_operands(tag, container, key, "__delitem__")
    if method is not None:
        call_in(ctx, method, container, key)
        return
    key = _position(ctx, container, key)
    if native.isinstance(rawest(container), dict):
        _keyed(tag, heap.split(written, tag)[1], operator.delitem, container, key)
        heap.forget_entry(tag, container, key)
        return
    before = heap.snapshot(tag, container)
    moved = heap.positions(container)
    operator.delitem(container, key)
    operator.delitem(moved, key)
    heap.remap(tag, container, before, moved)


def _incoming(ctx, iterable):
    """(value, meta) pairs of an iterable's items, metadata split off."""
    return [heap.split(item, ctx.tag) for item in iterate(ctx, iterable)]


# Iteration -------------------------------------------------------------------------

def iterate(ctx, iterable, reported=False):
    """Iterate anything, giving back the metadata of container elements. The `iter`
    call of a Python iterable is one hooks see when `reported` (the user's loop),
    not when a builtin's model iterates."""
    tag = ctx.tag
    raw = rawest(iterable)
    kind = native.type(raw)
    if kind in _PLAIN_ITERABLES:
        return heap.own(iterable, tag)
    handler = handler_of(ctx, raw)
    if handler is not None:
        return handler.iterate(ctx, heap.own(iterable, tag))
    if kind in _KEYED or kind is heap.PROXY:
        return _iterate_keyed(ctx, iterable, raw)
    if routes.python_iteration(kind):  # `__iter__` runs in the context
        own = heap.own(iterable, tag)
        iterator = call_in(ctx, iter, own) if reported else iter_(ctx, own)
        if routes.python_stepping(native.type(iterator)):
            iterator = recurse(ctx, engine.drive, iterator)
        return _retagging(ctx, iterator) if native.type(iterator) is _GENERATOR \
            else iterator
    if native.isinstance(raw, heap.SEQUENCES):
        if heap.iterates_with_metadata(tag, raw):
            return iterate_items(ctx, heap.own(iterable, tag), raw)
        return heap.own(iterable, tag)
    if native.isinstance(raw, heap.KEYED):
        return _iterate_keyed(ctx, iterable, raw)
    if native.isinstance(raw, (heap.VALUES, heap.ITEMS)):  # an OrderedDict's views too
        mapping = heap.view_mapping(raw)
        if native.isinstance(raw, heap.VALUES):
            return _iterate_values(ctx, mapping, raw)
        return _iterate_pairs(ctx, mapping, raw)
    if kind is heap.REVERSED_VALUES or kind is heap.REVERSED_ITEMS:
        return _iterate_reversed(ctx, heap.view_mapping(raw), raw)
    if kind is _GENERATOR:
        return _retagging(ctx, heap.own(iterable, tag))
    return heap.own(iterable, tag)  # (not iterable: the site raises its error)


def _iterate_keyed(ctx, iterable, raw):
    """A set, a dict, its keys or a mappingproxy of it (iterated natively): the
    members keep their metadata."""
    iterable = heap.own(iterable, ctx.tag)
    if not heap.iterates_with_metadata(ctx.tag, raw):
        return iterable
    container = heap.view_mapping(raw) if native.isinstance(raw, (heap.KEYS, heap.PROXY)) \
        else raw
    return _iterate_members(ctx, iterable, container)


def _retagging(ctx, generator):
    """Iterate a generator, giving back the metadata of what it yields."""
    for item in generator:
        yield channels.take_yielded(ctx.tag, generator, item)


def iter_(ctx, obj, *sentinel):
    """`iter(x)`: over a container with metadata, an iterator that gives it back; the
    native iterator where no Python code runs and there is no metadata."""
    if not sentinel:
        raw = rawest(obj)
        kind = native.type(raw)
        handler = handler_of(ctx, raw)
        if handler is not None:
            return handler.iterate(ctx, heap.own(obj, ctx.tag))
        if not routes.python_iteration(kind):
            if not heap.iterates_with_metadata(ctx.tag, raw):
                return iter(heap.own(obj, ctx.tag))
            reader = recurse(ctx, _each, heap.own(obj, ctx.tag))
            READERS[reader] = raw
            return reader
    return recurse(ctx, engine.iter_, obj, *sentinel)


# The generators `iter_` made -> the container each reads (run in the context, each
# step reads the slot's metadata as it gets there): C code given one takes from the
# container what it holds when it iterates (`tagging.layer.container_read_by`).
READERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def awaitable(ctx, obj):
    """What `await obj` awaits: `obj`, unless its class's `__await__` is Python code,
    which CPython would call natively: then called here, in the context, and what it
    returns handed over by a `channels.Awaiting`."""
    method = routes.python_method(native.type(rawest(obj)), "__await__")
    if method is None:
        return obj
    return channels.Awaiting(call_in(ctx, method, heap.own(obj, ctx.tag)))


def delegate(ctx, iterable):
    """What `yield from iterable` delegates to: a builtin container whose elements
    have metadata, through `iter_`'s iterator, which gives it back; anything else
    as it is (a generator keeps receiving `send` and `throw`; the engine calls a
    Python `__iter__`)."""
    raw = rawest(iterable)
    if routes.python_iteration(native.type(raw)) or \
            not heap.iterates_with_metadata(ctx.tag, raw):
        return iterable
    return iter_(ctx, iterable)


def next_(ctx, iterator, *default):
    """`next(it)`: a native iterator steps natively; a generator (which gives back
    metadata) or a Python `__next__` is a call in the context."""
    kind = native.type(rawest(iterator))
    if kind is not _GENERATOR and routes.python_method(kind, "__next__") is None:
        return next(heap.own(iterator, ctx.tag), *default)
    return recurse(ctx, engine.next_, iterator, *default)


def _each(items):
    for item in items:
        yield item


def reversed_(ctx, cls, sequence):
    """`reversed(x)`: over a sequence with metadata, an iterator that gives it back."""
    raw = rawest(sequence)
    kind = native.type(raw)
    if native.isinstance(raw, heap.SEQUENCES) and \
            routes.python_method(kind, "__reversed__") is None and \
            routes.python_method(kind, "__getitem__") is None and \
            heap.iterates_with_metadata(ctx.tag, raw):
        own = heap.own(sequence, ctx.tag)
        return recurse(ctx, engine.reversed_sequence, own, native.len(own))
    if native.type(raw) is tuple:
        return reversed(heap.own(sequence, ctx.tag))  # (an outer context sees this call)
    if native.isinstance(raw, (heap.VALUES, heap.ITEMS)):
        return _iterate_reversed(ctx, heap.view_mapping(raw), native.reversed(raw), raw)
    return recurse(ctx, engine.reversed_, cls, sequence)


def generator_next(ctx, generator):
    return _resumed(ctx, _GENERATOR.__next__, heap.own(generator, ctx.tag))


def generator_send(ctx, generator, value):
    """`gen.send(x)`: the generator gets `x` plain; the `yield` it resumes at
    takes x's metadata from the store."""
    tag = ctx.tag
    generator = heap.own(generator, tag)
    inner, key = channels.note_sent(tag, generator, value)
    try:
        return _resumed(ctx, _GENERATOR.send, generator, inner)
    finally:
        channels.forget_sent(tag, key)


def generator_throw(ctx, generator, *args):
    return _resumed(ctx, _GENERATOR.throw, heap.own(generator, ctx.tag), *args)


def _resumed(ctx, step, generator, *args):
    """`step(generator, *args)`, its `__next__`, `send` or `throw`: what the generator
    yields, with its metadata; if it returns, as `_stepped` says."""
    return channels.take_yielded(ctx.tag, generator, _stepped(ctx, step, generator, *args))


def _stepped(ctx, step, generator, *args):
    """`step(generator, *args)` of a generator or a coroutine: if it returns, the
    `StopIteration` keeps the metadata of the value in its `value` and `args`
    (`_channels`)."""
    tag = ctx.tag
    awaited = channels.await_return(tag, generator)
    try:
        return step(generator, *args)
    except StopIteration as stop:
        channels.note_stop(tag, awaited, stop)
        raise
    finally:
        channels.forget_awaited(tag, awaited)


def coroutine_send(ctx, coroutine, value):
    """`coro.send(x)`, a coroutine stepped by hand (a task written in Python, or your
    own loop): if it returns, as `_stepped` says. What it is sent goes on to the
    awaitable it waits on, C's: a value with metadata is sent as a foreign call."""
    tag = ctx.tag
    coroutine = heap.own(coroutine, tag)
    if heap.split(value, tag)[1] is not ABSENT:
        return fallback(ctx, _COROUTINE.send, coroutine, value)
    return _stepped(ctx, _COROUTINE.send, coroutine, value)


def coroutine_throw(ctx, coroutine, *args):
    return _stepped(ctx, _COROUTINE.throw, heap.own(coroutine, ctx.tag), *args)


def _result_reader(method):
    """`fut.result()` (a C future's or task's): the result with the metadata it was
    set with (`_channels`)."""
    def primitive(ctx, future):
        tag = ctx.tag
        future = heap.own(future, tag)
        return channels.take_result(tag, future, method(future))
    return primitive


def _result_keeper(method):
    """`fut.set_result(x)` (a C future's): the future keeps `x` plain, its metadata
    in the store for the consumers of the result (`_channels`)."""
    def primitive(ctx, future, result):
        tag = ctx.tag
        future = heap.own(future, tag)
        inner, meta = heap.split(result, tag)
        method(future, inner)
        channels.note_result(tag, future, inner, meta)
    return primitive


# The iterations below are plain Python, so that a context this one runs under
# sees the reads they make (and re-attaches its own metadata of each element).

def iterate_items(ctx, iterable, raw):
    """Iterate a list, a deque or a tuple with metadata (`raw`, `iterable` without
    this context's layer), each element with the metadata its slot holds when the
    iteration reaches it: a list with none when the loop began may be given some
    ahead of it (`heap.iterates_with_metadata`)."""
    tag = ctx.tag
    entries, key = tag.store.entries, native.id(raw)
    index = 0
    for item in iterable:
        if key in entries:
            item = heap.retag_item(tag, raw, index, item)
        yield item
        index += 1


def _iterate_members(ctx, iterable, container):
    """Iterate a set or a dict's keys, giving back the members' metadata."""
    tag = ctx.tag
    for member in iterable:
        yield heap.retag_member(tag, container, member)


def _iterate_values(ctx, mapping, view):
    """Iterate a values `view` of `mapping`, giving back the values' metadata."""
    tag = ctx.tag
    for key, value in heap.view_pairs(mapping, view):
        yield heap.retag_value(tag, mapping, key, value)


def _iterate_reversed(ctx, mapping, iterator, view=None):
    """Step `reversed(d.values())` or `reversed(d.items())` (of `view`, when known),
    giving back the values' metadata: the iterator itself steps (it may have stepped
    before), and the key of each step comes from the same pairs, reversed, from
    where it stands. The keys are listed and each value read by its key in the
    context, so that a context this one runs under keeps its own metadata of them."""
    tag = ctx.tag
    keys = [key for key, _ in heap.view_pairs(mapping, view)]
    left = operator.length_hint(iterator, -1)  # (an OrderedDict's: fresh, no hint)
    for key in reversed(keys[:left if left >= 0 else native.len(keys)]):
        item = native.next(iterator)
        value = dict.__getitem__(mapping, key)
        if native.type(item) is native.tuple:
            pair = (key, value)
            heap.note_pair(tag, mapping, pair)
            yield pair
        else:
            yield heap.retag_value(tag, mapping, key, value)


def _iterate_pairs(ctx, mapping, view):
    """Iterate an items `view` of `mapping`: plain pairs, the key's and the value's
    metadata in slots 0 and 1."""
    tag = ctx.tag
    for key, value in heap.view_pairs(mapping, view):
        pair = (key, value)
        heap.note_pair(tag, mapping, pair)
        yield pair


def splatted(ctx, mapping):
    """What `f(**mapping)` hands over: a dict whose values have metadata as a
    temporary dict of the tagged values. Built in the context, so that a context
    this one runs under keeps its own metadata of them."""
    tag = ctx.tag
    if native.type(rawest(mapping)) is heap.PROXY:  # read here: C would read it natively
        mapping = dict_new(ctx, dict, mapping)
    if native.type(mapping) is not dict or not heap.has_slots(tag, mapping):
        return mapping
    out = {}
    for key, value in dict.items(mapping):
        out[key] = heap.retag_value(tag, mapping, rawest(key), value)
    return out


def unpack(ctx, value, shape):
    """The items of `value` for an unpacking target of the given (nested) shape.

    The result is a temporary list, unpacked at once by the caller; nested
    positions are unpacked in turn, so every level gets its metadata back.
    """
    raw = rawest(value)
    if native.type(raw) in _FINITE and handler_of(ctx, raw) is None:
        items = _listed(ctx, heap.own(value, ctx.tag), raw)  # the common case, in one step
    else:
        iterable = iterate(ctx, value, reported=True)
        kind = native.type(iterable)
        if not routes.iterable_type(kind):
            raise TypeError(f"cannot unpack non-iterable {kind.__name__} object")
        items = items_to_unpack(iterable, shape)
    for index, inner in native.enumerate(shape):
        if type(inner) is tuple and index < native.len(items):
            native.list.__setitem__(items, index, unpack(ctx, items[index], inner))
    return items


def _listed(ctx, sequence, raw):
    """The items of an exact list or tuple (`sequence`, `raw` without any layer),
    each with the metadata of its position: what iterating it gives, without the
    generator of `iterate_items` (no Python code can run: its iteration is C's)."""
    tag = ctx.tag
    if not heap.has_slots(tag, raw):
        return list(sequence)
    return [heap.retag_item(tag, raw, index, item) for index, item in enumerate(sequence)]


def unpack_each(ctx, iterable, shape):
    """`unpack` for each item of a loop whose target has that shape."""
    unpacked = iterators.zip_unpacked(ctx.tag, iterable, shape)
    return unpacked if unpacked is not None else _unpack_each(ctx, iterable, shape)


def _unpack_each(ctx, iterable, shape):
    for item in iterate(ctx, iterable, reported=True):
        yield unpack(ctx, item, shape)


# Containers ------------------------------------------------------------------------

def _appender(method, bounded=False):
    """`list.append`, `deque.append`: the new last element keeps its metadata.
    (The pair `split` made is handed to `labelled` as it is: a pair displayed
    anew would be a container of a context this one runs under, read natively
    without that context's metadata of `meta`.)"""

    def primitive(ctx, container, value):
        tag = ctx.tag
        container = heap.own(container, tag)
        pair = heap.split(value, tag)
        inner, meta = pair
        raw = rawest(container)
        if bounded and raw.maxlen is not None:  # a full deque drops its first element
            before = heap.snapshot(tag, container)
            moved = heap.positions(container)
            method(container, inner)
            labels, metas = heap.labelled([pair])
            method(moved, labels[0])
            heap.remap(tag, container, before, moved, metas)
            return
        method(container, inner)
        if meta is not ABSENT:
            heap.record(tag, raw, native.len(raw) - 1, inner, meta)

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


list_append = _appender(list.append)
deque_append = _appender(deque.append, bounded=True)


# In-place methods that take an element (its argument's position) or find one by value.
_ELEMENT_ARGUMENT = {list.insert: 1, deque.insert: 1, deque.appendleft: 0}
_BY_VALUE = (list.remove, deque.remove)


def _in_place(method):
    """A list or deque method that moves elements: the same change is replayed on the
    positions, so each element's metadata follows it (`remove` is `index`, then `del`)."""

    position = _ELEMENT_ARGUMENT.get(method)

    def primitive(ctx, container, *args, **kwargs):
        tag = ctx.tag
        container = heap.own(container, tag)
        raw = rawest(container)
        before = heap.snapshot(tag, container)
        moved = heap.positions(container)
        incoming = [heap.split(a, tag) for a in args]
        plain = [v for v, _ in incoming]
        metas = {}
        if method in _BY_VALUE:
            where = heap.index_of(raw, plain[0])
            if where is None:
                return method(container, *plain)  # raises the method's own error
            del raw[where]
            del moved[where]
            result = None
        else:
            result = method(container, *plain, **kwargs)
            if position is not None:
                labels, metas = heap.labelled([incoming[position]])
                plain[position] = labels[0]
            method(moved, *plain, **kwargs)
        heap.remap(tag, container, before, moved, metas)
        return heap.retag_removed(tag, result, before, moved)

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


def _extender(append):
    """`list.extend`, `deque.extend`: appends, one element at a time."""

    def primitive(ctx, container, iterable):
        for item in list(iterate(ctx, iterable)):
            append(ctx, container, item)

    primitive.__name__ = f"tagged_extend_{append.__name__}"
    return primitive


list_extend = _extender(list_append)


def deque_extendleft(ctx, container, iterable):
    tag = ctx.tag
    container = heap.own(container, tag)
    before = heap.snapshot(tag, container)
    moved = heap.positions(container)
    incoming = _incoming(ctx, iterable)
    deque.extendleft(container, [v for v, _ in incoming])
    labels, metas = heap.labelled(incoming)
    deque.extendleft(moved, labels)
    heap.remap(tag, container, before, moved, metas)


def list_sort(ctx, container, *, key=None, reverse=False):
    """`list.sort`: keys computed in the context, compared natively when they are
    plain scalars, else by the engine's model (with `<` in the context); the
    elements move by a slice store, so their metadata moves with them. The
    elements are listed and picked in the context, so that a context this one
    runs under keeps its own metadata of them; the keys, which only decide the
    order, are a native temporary."""
    container = heap.own(container, ctx.tag)
    items = list(iterate(ctx, container))
    keys = items
    if key is not None:
        keys = native.list()
        for item in items:
            native.list.append(keys, call_in(ctx, key, item))
    order = heap.native_order(keys, reverse)
    if order is None:
        order = recurse(ctx, engine.merge_order, keys, reverse)
    setitem(ctx, container, native.slice(None), [items[i] for i in order])


def sorted_(ctx, iterable, *, key=None, reverse=False):
    items = from_list(ctx, list, iterable)
    list_sort(ctx, items, key=key, reverse=reverse)
    return items


def _copier(method):
    """`list.copy`, `dict.copy`, `copy.copy`, ...: the copy keeps the elements' metadata."""

    def primitive(ctx, container, *args):
        tag = ctx.tag
        container = heap.own(container, tag)
        copied = method(container, *args)
        heap.copy_slots(tag, container, copied)
        heap.copy_attributes(tag, container, copied)
        return copied

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


_plain_copy = _copier(copy.copy)
_COPY_METHODS = ("__copy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__")


def copy_copy(ctx, obj):
    """`copy.copy(obj)`: when the class copies itself with Python code (`__copy__`, a
    reduction, `__getstate__`), that code runs in the context; else natively, the
    copy taking the metadata of the original's slots."""
    kind = native.type(rawest(obj))
    if handler_of(ctx, rawest(obj)) is not None:  # the layer's container copies in the context
        return recurse(ctx, _copy_in_context, obj)
    for name in _COPY_METHODS:
        if routes.python_method(kind, name) is not None:
            return recurse(ctx, _copy_in_context, obj)
    return _plain_copy(ctx, obj)


def _copy_in_context(obj):
    """What `copy.copy` does for a class with Python copying methods."""
    copier = getattr(type(obj), "__copy__", None)
    if copier is not None:
        return copier(obj)
    return copy._reconstruct(obj, None, *obj.__reduce_ex__(4))


def reduce_ex(ctx, obj, protocol):
    """`obj.__reduce_ex__(p)`, how `copy.deepcopy` takes a deque or a defaultdict apart:
    when the reduction iterates the elements natively, iterators that give back
    their metadata take the place of its element iterators."""
    tag = ctx.tag
    obj = heap.own(obj, tag)
    raw = rawest(obj)
    reduce = routes.python_method(native.type(raw), "__reduce__")
    if reduce is not None:  # what `object.__reduce_ex__` calls, in the context
        return call_in(ctx, reduce, obj)
    reduced = object.__reduce_ex__(obj, heap.own(protocol, tag))
    if native.type(reduced) is tuple and native.len(reduced) > 2:
        reduced = _with_state(ctx, obj, reduced)
    if native.type(reduced) is not tuple or not heap.has_slots(tag, raw) or \
            not heap.native_reduction(native.type(raw)):
        return reduced
    parts = native.list(reduced)
    if native.isinstance(raw, (set, frozenset)):  # (cls, (members as a list,), state)
        heap.list_members(tag, raw, parts[1][0])
    if native.len(parts) > 3 and parts[3] is not None:
        parts[3] = iter_(ctx, obj)
    if native.len(parts) > 4 and parts[4] is not None:
        parts[4] = iter_(ctx, dict.items(obj))
    return native.tuple(parts)


def _with_state(ctx, obj, reduced):
    """A reduction whose state keeps its metadata: a Python `__getstate__` (a
    `@dataclass(slots=True)`'s) is called again in the context, where C called it
    natively; the values C read from `__slots__` get the metadata of the slots."""
    getstate = routes.python_method(native.type(rawest(obj)), "__getstate__")
    if getstate is not None:
        parts = native.list(reduced)
        parts[2] = call_in(ctx, getstate, obj)
        return native.tuple(parts)
    heap.note_slot_state(ctx.tag, rawest(obj), reduced[2])
    return reduced


def from_iterable(kind):
    """`list(it)`, `tuple(it)`, `deque(it, maxlen)`: elements keep their metadata."""

    def primitive(ctx, cls, iterable=(), *args, **kwargs):
        args, kwargs = heap.own_arguments(ctx.tag, args, kwargs)
        if args or kwargs:
            cls((), *args, **kwargs)  # the constructor's own errors, before iterating
        out = []
        for item in iterate(ctx, iterable):
            list_append(ctx, out, item)
        if cls is list:
            return out
        made = cls(out, *args, **kwargs)
        heap.move_slots(ctx.tag, out, made)
        return made

    primitive.__name__ = f"tagged_{kind.__name__}"
    return primitive


from_list = from_iterable(list)
tuple_from = from_iterable(tuple)


def tuple_new(ctx, cls, iterable=()):
    """`tuple.__new__(cls, items)` (how a namedtuple is made): items keep metadata."""
    out = from_list(ctx, list, iterable)
    made = tuple.__new__(cls, out)
    heap.move_slots(ctx.tag, out, made)
    return made


def partial_new(ctx, cls, func, *args, **keywords):
    """`functools.partial(f, *args, **keywords)`: the stored arguments keep metadata
    (the engine's model of calling a partial reads them back in the context)."""
    tag = ctx.tag
    incoming = [heap.split(a, tag) for a in args]
    named = {k: heap.split(v, tag) for k, v in dict.items(keywords)}
    func = heap.own(func, tag)
    made = cls(func, *[v for v, _ in incoming],
               **{k: v for k, (v, _) in dict.items(named)})
    # C flattens a partial of a partial without a `__dict__` (`made.args` then starts
    # with `func.args`): whether it did shows in `made.func`, never in the types
    flattened = made.func is not func
    inherited = heap.snapshot(tag, func.args) if flattened else {}
    labels, metas = heap.labelled(incoming)
    moved = [*native.range(native.len(func.args) if flattened else 0), *labels]
    heap.remap(tag, made.args, inherited, moved, metas)
    if flattened:  # `made.keywords` is a copy of `func.keywords`, updated with `named`
        heap.copy_slots(tag, func.keywords, made.keywords)
    for key, (value, meta) in dict.items(named):
        heap.note_entry(tag, made.keywords, key, value, meta)
    return made


# Dicts: as CPython's own methods, they read and write the storage, never a
# subclass's Python `__getitem__` or `__setitem__`.

def dict_new(ctx, cls, *args, **kwargs):
    out = cls()
    _merge(ctx, out, "dict", args, kwargs)
    return out


def defaultdict_new(ctx, cls, *args, **kwargs):
    """`defaultdict(factory, ...)`: the rest is taken as `dict(...)` takes it."""
    made = cls(*[heap.own(a, ctx.tag) for a in args[:1]])
    _merge(ctx, made, "dict", args[1:], kwargs)
    return made


def dict_update(ctx, container, *args, **kwargs):
    _merge(ctx, heap.own(container, ctx.tag), "update", args, kwargs)


def _merge(ctx, container, name, args, kwargs):
    """`dict.update`: a dict iterated as a dict is merged from its storage, another
    mapping through its `keys()` and `[]`, anything else as pairs."""
    tag = ctx.tag
    if native.len(args) > 1:
        raise TypeError(f"{name} expected at most 1 argument, got {native.len(args)}")
    if args:
        other = heap.own(args[0], tag)
        raw = rawest(other)
        if heap.merges_storage(raw):
            for key, value in dict.items(other):  # (it may be a frame's `**kwargs`)
                _dict_store(ctx, container, heap.retag_member(tag, raw, key),
                            heap.retag_value(tag, raw, key, value))
        elif getattr_(ctx, other, "keys", ABSENT) is not ABSENT:
            keys = call_in(ctx, getattr_(ctx, other, "keys"))
            for key in list(iterate(ctx, keys)):
                _dict_store(ctx, container, key, getitem(ctx, other, key))
        else:
            position = 0
            for item in iterate(ctx, other):
                key, value = _pair(ctx, item, position)
                _dict_store(ctx, container, key, value)
                position += 1
    for key in kwargs:
        _dict_store(ctx, container, key, kwargs[key])


def _pair(ctx, item, position):
    """An element of `dict(pairs)`, any iterable of two, with CPython's errors."""
    try:
        items = list(iterate(ctx, item))
    except TypeError:
        items = None
    if items is None:
        raise TypeError(f"cannot convert dictionary update sequence element #{position} "
                        "to a sequence")
    if native.len(items) != 2:
        raise ValueError(f"dictionary update sequence element #{position} has length "
                         f"{native.len(items)}; 2 is required")
    return items[0], items[1]


def _dict_store(ctx, container, key, value, store=dict.__setitem__):
    """`store(container, key, value)`: the value keeps its metadata, and so does the
    key if it is a new one (an equal key already there stays, with its own)."""
    tag = ctx.tag
    key, key_meta = heap.split(key, tag)
    inner, meta = heap.split(value, tag)
    before = heap.count(container)
    store(container, key, inner)
    heap.note_entry(tag, container, key, inner, meta)
    heap.note_member(tag, container, key, key_meta, before)


def dict_setitem(ctx, container, key, value):
    """`dict.__setitem__` (a subclass's `super().__setitem__`)."""
    _dict_store(ctx, heap.own(container, ctx.tag), key, value)


def ordered_setitem(ctx, container, key, value):
    """`OrderedDict.__setitem__`, as the primitives of `OrderedDict`'s methods call
    it: a context running this one's code sees it as a store."""
    _dict_store(ctx, heap.own(container, ctx.tag), key, value, OrderedDict.__setitem__)


def dict_getitem(ctx, container, key):
    """`dict.__getitem__` (a subclass's `super().__getitem__`)."""
    return _dict_read(ctx, heap.own(container, ctx.tag), key, dict.__getitem__)


def _dict_read(ctx, container, key, read):
    """`read(container, key)`: the value keeps its metadata, and so does a key that
    `__missing__` adds (a defaultdict's)."""
    tag = ctx.tag
    computed = _missing(ctx, container, key)
    if computed is not ABSENT:
        return computed
    key, key_meta = heap.split(key, tag)
    before = heap.count(container)
    value = _keyed(tag, key_meta, read, container, key)
    heap.note_member(tag, container, key, key_meta, before)
    return heap.load_item(tag, container, key, value)


def _keyed(tag, key_meta, method, container, key, *rest):
    """`method(container, key, *rest)`; the `KeyError` C raises for a missing key
    holds the key in its `args`, which keeps the key's metadata there."""
    try:
        return method(container, key, *rest)
    except KeyError as error:
        heap.note_argument(tag, error, 0, key, key_meta)
        raise


def _missing(ctx, container, key):
    """`container[key]` for a key a dict subclass lacks, when Python code gives it: a
    defaultdict's factory or the class's `__missing__`, run in the context (C would
    call them natively, on plain values). ABSENT when the key is there or no Python
    code runs."""
    raw = rawest(container)
    kind = native.type(raw)
    if kind is dict or not native.isinstance(raw, dict) or \
            dict.__contains__(raw, heap.own(key, ctx.tag)):
        return ABSENT
    missing = routes.python_method(kind, "__missing__")
    if missing is not None:
        return call_in(ctx, missing, container, key)
    if native.isinstance(raw, defaultdict) and raw.default_factory is not None and \
            engine.class_attribute(kind, "__missing__") is defaultdict.__missing__:
        value = call_in(ctx, raw.default_factory)
        _dict_store(ctx, raw, key, value)
        return value
    return ABSENT


def dict_delitem(ctx, container, key):
    """`dict.__delitem__` (a subclass's `super().__delitem__`)."""
    tag = ctx.tag
    container, (key, key_meta) = heap.own(container, tag), heap.split(key, tag)
    _keyed(tag, key_meta, dict.__delitem__, container, key)
    heap.forget_entry(tag, container, key)


def dict_iter(ctx, container):
    """`dict.__iter__` (a subclass's own keys, past its `__iter__`): the keys keep
    their metadata, as `iter` gives them."""
    raw = heap.own(container, ctx.tag)
    iterator = dict.__iter__(raw)  # (its own errors)
    if heap.iterates_with_metadata(ctx.tag, raw):
        return recurse(ctx, _each, dict.keys(raw))
    return iterator


def dict_get(ctx, container, key, default=None):
    tag = ctx.tag
    container, key = heap.own(container, tag), heap.own(key, tag)
    value = dict.get(container, key, ABSENT)
    if value is ABSENT:
        return default
    return heap.load_item(tag, container, key, value)


# A dict's methods and an OrderedDict's: the same primitives, each calling its own
# type's C method (an OrderedDict keeps an order of its own, which `dict`'s methods
# would not update).

def _popper(pop):
    """`dict.pop`, `OrderedDict.pop`: the value keeps its metadata."""

    def primitive(ctx, container, key, *default):
        value = dict_get(ctx, container, key, ABSENT)
        tag = ctx.tag
        container, (key, key_meta) = heap.own(container, tag), heap.split(key, tag)
        if value is ABSENT:
            return _keyed(tag, key_meta, pop, container, key, *default)
        pop(container, key)
        heap.forget_entry(tag, container, key)
        return value

    primitive.__name__ = f"tagged_{pop.__qualname__}"
    return primitive


def _pair_popper(popitem):
    """`dict.popitem`, `OrderedDict.popitem(last)`: the pair keeps the key's and the
    value's metadata."""

    def primitive(ctx, container, *last, **named_last):
        container = heap.own(container, ctx.tag)
        pair = popitem(container, *last, **named_last)
        heap.note_popped(ctx.tag, container, pair)
        return pair

    primitive.__name__ = f"tagged_{popitem.__qualname__}"
    return primitive


def _defaulter(store):
    """`dict.setdefault`, `OrderedDict.setdefault`."""

    def primitive(ctx, container, key, default=None):
        value = dict_get(ctx, container, key, ABSENT)
        if value is ABSENT:
            _dict_store(ctx, heap.own(container, ctx.tag), key, default, store)
            return default
        return value

    primitive.__name__ = f"tagged_{store.__qualname__}"
    return primitive


def dict_clear(ctx, container):
    container = heap.own(container, ctx.tag)
    dict.clear(container)
    heap.forget_items(ctx.tag, container)
    heap.forget_members(ctx.tag, container)


def dict_fromkeys(ctx, iterable, value=None):
    """`dict.fromkeys(keys, value)`: every entry keeps the value's metadata."""
    out = {}
    for key in iterate(ctx, iterable):
        _dict_store(ctx, out, key, value)
    return out


# Sets: CPython decides which of equal members a set keeps; each member then keeps
# the metadata its very object came with.

def set_new(ctx, cls, *args, **kwargs):
    """`set(it)`, `frozenset(it)`: the members keep their metadata."""
    tag = ctx.tag
    args, kwargs = heap.own_arguments(tag, args, kwargs)
    if native.len(args) != 1 or kwargs:
        return cls(*args, **kwargs)  # the empty set, or CPython's error
    items = iterate(ctx, args[0])
    if items is args[0] or (cls is frozenset and
                            native.type(rawest(args[0])) is frozenset):
        return cls(args[0])  # nothing to give back, or a frozenset that is its own copy
    out = set()
    for item in items:
        set_add(ctx, out, item)
    if cls is set:
        return out
    made = cls(out)
    heap.move_members(tag, out, made)
    return made


def set_add(ctx, container, member):
    tag = ctx.tag
    container = heap.own(container, tag)
    inner, meta = heap.split(member, tag)
    before = heap.count(container)
    set.add(container, inner)
    heap.note_member(tag, container, inner, meta, before)


def _remover(method):
    """`set.discard`, `set.remove`: the member leaves with its metadata."""

    def primitive(ctx, container, member):
        tag = ctx.tag
        container, (member, meta) = heap.own(container, tag), heap.split(member, tag)
        _keyed(tag, meta, method, container, member)
        heap.forget_member(tag, container, member)

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


def set_pop(ctx, container):
    container = heap.own(container, ctx.tag)
    return heap.take_member(ctx.tag, container, set.pop(container))


def set_clear(ctx, container):
    container = heap.own(container, ctx.tag)
    set.clear(container)
    heap.forget_members(ctx.tag, container)


def _set_operation(method):
    """`s.union(*others)`, `s.update(*others)`, ...: CPython computes the result from
    plain operands; each member of the result (or of `s`, changed in place) then
    gets the metadata its object had in the operand it came from."""

    def primitive(ctx, container, *others):
        tag = ctx.tag
        container = heap.own(container, tag)
        pool = {}
        heap.pool_members(tag, container, pool)
        operands = [_pooling(ctx, other, pool) for other in others]
        result = method(container, *operands)
        heap.settle_members(tag, container if result is None else result, pool)
        return result

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


def _pooling(ctx, other, pool):
    """An operand of a set method, for C to iterate: a set or dict iterated natively as
    it is, its members' metadata pooled; any other iterable as it is if iterating it
    gives back no metadata, else iterated in the context (lazily, as C would), its
    items' metadata pooled."""
    tag = ctx.tag
    raw = rawest(other)
    kind = native.type(raw)
    if routes.python_iteration(kind) or kind is _GENERATOR:
        return _pooled_items(ctx, other, pool)
    if native.isinstance(raw, (*heap.KEYED, heap.KEYS)):
        heap.pool_members(tag, raw, pool)
    elif heap.iterates_with_metadata(tag, raw):
        return _pooled_items(ctx, other, pool)
    return heap.own(other, tag)


def _pooled_items(ctx, iterable, pool):
    for item in iterate(ctx, iterable):
        yield heap.pool_item(ctx.tag, item, pool)


def _shown(method):
    """A method of a mappingproxy, which calls the same method of what the proxy
    shows: a mapping's, called in the context (`dict.get` reads the dict's slot); a
    class namespace's, whose values are the class's attributes, is a foreign call."""
    name = method.__name__

    def primitive(ctx, proxy, *args):
        shown = heap.proxied(rawest(proxy))
        if native.isinstance(shown, type):
            if method is heap.PROXY.keys:  # the attributes' names
                return method(proxy)
            if method is heap.PROXY.get and args:  # an attribute, with its metadata
                return _attribute_shown(ctx, shown, method(rawest(proxy), heap.own(
                    args[0], ctx.tag), ABSENT), *args)
            if name in _SNAPSHOTS and not args:
                snapshot = _attributes_shown(ctx, shown, rawest(proxy))
                return snapshot if name == "copy" else getattr_(ctx, snapshot, name)()
            return fallback(ctx, method, proxy, *args)
        return call_in(ctx, getattr_(ctx, shown, name), *args)

    primitive.__name__ = f"tagged_{name}"
    return primitive


# What a class's mappingproxy answers from a snapshot of the attributes: a dict.
_SNAPSHOTS = frozenset({"items", "values", "copy"})


def _attributes_shown(ctx, kind, proxy):
    """A dict of the attributes `kind` has of its own (`proxy` shows them), each
    with the metadata of the class's slot."""
    snapshot = {}
    for key in heap.PROXY.keys(proxy):
        value = types.MappingProxyType.get(proxy, key, ABSENT)
        setitem(ctx, snapshot, key, _attribute_shown(ctx, kind, value, key))
    return snapshot


def _attribute_shown(ctx, kind, value, name, default=None):
    """`vars(kind).get(name, default)`, given the attribute's `value` (ABSENT if
    `kind` has none of its own), which keeps the metadata of the class's slot."""
    if value is ABSENT:
        return default
    tag = ctx.tag
    return heap.retag(tag, value, tag.store.lookup(kind, heap.own(name, tag), value))


# Methods that only read, or store plain values (indices, counts, views)

def _native(method, iterables=False):
    """`method` run natively on untagged arguments; with `iterables`, the arguments
    after the first are iterated by C, so a Python iteration runs in the context."""

    def primitive(ctx, *args, **kwargs):
        args, kwargs = heap.own_arguments(ctx.tag, args, kwargs)
        if iterables:
            args = [*args[:1], *[_plain_items(ctx, a) for a in args[1:]]]
        return method(*args, **kwargs)

    primitive.__name__ = f"tagged_{method.__name__}"
    return primitive


def _plain_items(ctx, iterable):
    """An argument C code will iterate: itself, unless that runs Python code (set
    methods take a set's storage)."""
    raw = rawest(iterable)
    if native.isinstance(raw, (set, frozenset)) or \
            not routes.python_iteration(native.type(raw)):
        return iterable
    return _owned_items(ctx, iterable)


def _owned_items(ctx, iterable):
    for item in iterate(ctx, iterable):
        yield heap.own(item, ctx.tag)


def display_list(ctx, *items):
    """`[a, b, ...]`: a fresh list of the plain items, their metadata recorded in
    one write of the store (the list is new: no slot of it is known yet)."""
    tag = ctx.tag
    pairs = [heap.split(item, tag) for item in items]
    out = [value for value, _ in pairs]
    heap.record_fresh(tag, out, pairs)
    return out


def display_tuple(ctx, *items):
    out = display_list(ctx, *items)
    made = tuple(out)
    heap.move_slots(ctx.tag, out, made)
    return made


def display_set(ctx, *items):
    out = set()
    for item in items:
        set_add(ctx, out, item)
    return out


def display_dict(ctx, *flat):
    out = {}
    index = 0
    while index < native.len(flat):
        key, value = flat[index], flat[index + 1]
        if key is markers.DOUBLE_STAR:
            dict_update(ctx, out, value)
        else:
            setitem(ctx, out, key, value)
        index += 2
    return out


def list_from(ctx, temporary):
    """A list comprehension's result: its elements stored plain."""
    return display_list(ctx, *temporary)


def _by_name(method, primitive, *leading):
    """`method` called by its name (`a.__iter__()`, `key=a.__getitem__`) on an exact
    instance of its class: what the operation it implements does (`iter(a)`,
    `a[k]`), which reads and writes the slots' metadata; C's own method would read
    the plain values, or iterate them later, after a write ahead of it. On a
    subclass (whose override the name bypasses) the method itself, as a foreign
    call."""
    owner = method.__objclass__

    def primitive_by_name(ctx, obj, *args):
        if native.type(rawest(obj)) is owner:
            return primitive(ctx, *leading, obj, *args)
        return fallback(ctx, method, obj, *args)
    return primitive_by_name


# C methods of modules not imported for them (`asyncio` takes a while): (module of
# the class, qualified name) -> the primitive's maker, given the method.
_NAMED = {("_asyncio", "Future.result"): _result_reader,
          ("_asyncio", "Task.result"): _result_reader,
          ("_asyncio", "Future.set_result"): _result_keeper}


def named(key):
    """The primitive of a C method named in `_NAMED`, or None."""
    if native.type(key) is not types.MethodDescriptorType:
        return None
    maker = _NAMED.get((key.__objclass__.__module__, key.__qualname__))
    return maker and maker(key)


def dict_from(ctx, temporary):
    """A dict comprehension's result, from its temporary list of [key, value] pairs."""
    out = {}
    for key, value in temporary:
        setitem(ctx, out, key, value)
    return out


BUILTINS: dict = {
    # attributes and items
    getattr: getattr_, setattr: setattr_, delattr: delattr_,
    object.__setattr__: object_setattr, object.__getattribute__: object_getattribute,
    generic_getattr: found_natively,
    operator.getitem: getitem, operator.setitem: setitem, operator.delitem: delitem,
    # iteration
    iter: iter_, next: next_, reversed: reversed_, _GENERATOR.__next__: generator_next,
    _GENERATOR.send: generator_send, _GENERATOR.throw: generator_throw,
    _COROUTINE.send: coroutine_send, _COROUTINE.throw: coroutine_throw,
    # construction, copies
    list: from_list, tuple: tuple_from, deque: from_iterable(deque),
    set: set_new, frozenset: set_new,
    dict: dict_new, defaultdict: defaultdict_new, dict.fromkeys: dict_fromkeys,
    tuple.__new__: tuple_new, functools.partial: partial_new, sorted: sorted_,
    copy.copy: copy_copy, object.__reduce_ex__: reduce_ex,
    # lists and deques (more below)
    list.append: list_append, list.extend: list_extend, list.sort: list_sort,
    deque.append: deque_append, deque.extend: _extender(deque_append),
    deque.extendleft: deque_extendleft,
    # dicts
    dict.__getitem__: dict_getitem, dict.__setitem__: dict_setitem,
    dict.__delitem__: dict_delitem, dict.__iter__: dict_iter, dict.update: dict_update,
    dict.get: dict_get,
    dict.pop: _popper(dict.pop), dict.popitem: _pair_popper(dict.popitem),
    dict.setdefault: _defaulter(dict.__setitem__), dict.clear: dict_clear,
    OrderedDict.__setitem__: ordered_setitem, OrderedDict.pop: _popper(OrderedDict.pop),
    OrderedDict.popitem: _pair_popper(OrderedDict.popitem),
    OrderedDict.setdefault: _defaulter(OrderedDict.__setitem__),
    # sets (more below)
    set.add: set_add, set.discard: _remover(set.discard), set.remove: _remover(set.remove),
    set.pop: set_pop, set.clear: set_clear,
    # a container's dunders called by name
    list.__iter__: _by_name(list.__iter__, iter_),
    tuple.__iter__: _by_name(tuple.__iter__, iter_),
    deque.__iter__: _by_name(deque.__iter__, iter_),
    heap.VALUES.__iter__: _by_name(heap.VALUES.__iter__, iter_),
    heap.ITEMS.__iter__: _by_name(heap.ITEMS.__iter__, iter_),
    list.__reversed__: _by_name(list.__reversed__, reversed_, reversed),
    deque.__reversed__: _by_name(deque.__reversed__, reversed_, reversed),
    list.__getitem__: _by_name(list.__getitem__, getitem),
    tuple.__getitem__: _by_name(tuple.__getitem__, getitem),
    deque.__getitem__: _by_name(deque.__getitem__, getitem),
    list.__setitem__: _by_name(list.__setitem__, setitem),
    deque.__setitem__: _by_name(deque.__setitem__, setitem),
    # what the tagging pass writes
    markers.display_list: display_list, markers.display_tuple: display_tuple,
    markers.display_dict: display_dict, markers.display_set: display_set,
    markers.list_from: list_from, markers.dict_from: dict_from, markers.unpack: unpack,
    markers.unpack_each: unpack_each,
}
for _method in (list.copy, dict.copy, set.copy, frozenset.copy, deque.copy, defaultdict.copy,
                OrderedDict.copy):
    BUILTINS[_method] = _copier(_method)
for _method in (list.insert, list.pop, list.remove, list.reverse, list.clear,
                deque.appendleft, deque.pop, deque.popleft, deque.rotate, deque.remove,
                deque.reverse, deque.clear, deque.insert):
    BUILTINS[_method] = _in_place(_method)
for _method in (set.update, set.intersection_update, set.difference_update,
                set.symmetric_difference_update, set.union, set.intersection,
                set.difference, set.symmetric_difference, frozenset.union,
                frozenset.intersection, frozenset.difference, frozenset.symmetric_difference):
    BUILTINS[_method] = _set_operation(_method)
for _method in (list.index, list.count, tuple.index, tuple.count, deque.index, deque.count,
                dict.keys, dict.values, dict.items):
    BUILTINS[_method] = _native(_method)
for _method in (heap.PROXY.keys, heap.PROXY.values, heap.PROXY.items, heap.PROXY.get,
                heap.PROXY.copy):
    BUILTINS[_method] = _shown(_method)
for _method in (set.issubset, set.issuperset, set.isdisjoint, frozenset.issubset,
                frozenset.issuperset, frozenset.isdisjoint):
    BUILTINS[_method] = _native(_method, iterables=True)
