"""Python models of the C builtins that call back into Python.

`sorted(xs, key=k)` in C calls `k` where no context can see it; here each
builtin that takes a callback, iterates a user object or builds a container
from an iterable has a plain Python twin that the engine runs transformed, so
the callbacks are calls in the context like any other. A model's own machinery
runs natively: the steps in `_model_support` and the builtins called as
`native.type(x)` (both declared once, below, with `nativecalls`), and a class
called through `nooverdub(cls)`. When no callback is given and the context
does not watch operators, a model hands the work to the builtin itself.
`model_for` maps a canonical callee to its model.

This is a quiet module (`_marks`): hooks see only what a model marks `seen`,
what the builtin calls back (the user's callbacks, the operators it applies
to the user's values, the user's `__iter__`, `__next__`, `__init__`, ...);
the rest runs in the context unreported.
"""

from __future__ import annotations

import builtins as native
import collections
import contextvars
import dataclasses
import functools
import itertools
import json.scanner
import operator
import re
import sys
import types
import weakref
from typing import Any

from contexts import _exec
from contexts import _model_support as support
from contexts._marks import contextslot, nativecalls, nooverdub, quietmodule, seen

quietmodule(__name__)
nativecalls(__name__, "native", "support", "_exec")

_MISSING = object()


# Construction ----------------------------------------------------------------

def construct(cls, /, *args, **kwargs):
    """`type.__call__`: `__new__`, then `__init__` when it made an instance."""
    new = support.own_new(cls)
    if not new:
        obj = native.object.__new__(cls, *args, **kwargs)
    elif support.is_python(new):
        obj = seen(new(cls, *args, **kwargs))
    elif support.ignores_its_arguments(new):  # `dict.__new__` of a dict subclass
        obj = new(cls)
    else:
        obj = new(cls, *args, **kwargs)
    if native.isinstance(obj, cls):
        init = support.own_init(obj)
        if not init:
            native.object.__init__(obj, *args, **kwargs)
            return obj
        if support.is_python(init):
            result = seen(init(obj, *args, **kwargs))
        elif init is native.dict.__init__:  # its entries stored in the context, as
            result = dict.update(obj, *args, **kwargs)  # C stores them (no `__setitem__`)
        else:
            result = init(obj, *args, **kwargs)
        if result is not None:  # its type asked in the context: a layer's wrapper unwrapped
            raise support.bad_init_result(type(result))
    return obj


def dataclass_init(cls, /, self, *args, **kwargs):
    """The `__init__` that `dataclasses` generates, with stores in the context."""
    frozen, fields = support.dataclass_fields(cls, self, args, kwargs)
    initvars = []
    for name, value, factory, initvar in fields:
        if factory:
            value = seen(factory())
        if initvar:
            native.list.append(initvars, value)
        elif frozen:
            object.__setattr__(self, name, value)
        else:
            setattr(self, name, value)
    post_init = native.getattr(cls, "__post_init__", None)
    if post_init:
        seen(post_init(self, *initvars))


def namedtuple_new(new, cls, /, *args, **kwargs):
    """The `__new__` that `collections.namedtuple` generates (`new`)."""
    values = [*support.namedtuple_values(new, cls, args, kwargs)]
    return tuple.__new__(cls, values)


# Containers from iterables -----------------------------------------------------

def list_(cls, iterable=(), /):
    if support.iterates_natively(iterable):
        return nooverdub(cls)(iterable)
    out = nooverdub(cls)()
    for item in iterable:
        out.append(item)
    return out


def tuple_(cls, iterable=(), /):
    return nooverdub(cls)(list_(list, iterable))


def set_(cls, iterable=(), /):
    if support.iterates_natively(iterable):
        return nooverdub(cls)(iterable)
    out = native.set()
    for item in iterable:
        out.add(item)
    return out if cls is set else nooverdub(cls)(out)


def dict_(cls, *args, **kwargs):
    out = nooverdub(cls)()
    dict_update(out, *args, **kwargs)
    return out


def simple_namespace(cls, /, **kwargs):
    """`types.SimpleNamespace(a=x)`: its attributes stored in the context."""
    out = nooverdub(cls)()
    for name in kwargs:
        setattr(out, name, kwargs[name])
    return out


def dict_update(self, other=(), /, **kwargs):
    if support.dict_iterated(other):
        # a dict subclass iterated as a dict: C merges its entries, not its methods
        for key in native.dict.keys(other):
            self[key] = native.dict.__getitem__(other, key)
    elif native.hasattr(other, "keys"):
        for key in seen(other.keys()):
            self[key] = other[key]
    else:
        for position, pair in enumerate(other):
            try:
                key, value = pair
            except (TypeError, ValueError):
                support.bad_pair(pair, position)
                raise
            self[key] = value
    for key in kwargs:
        self[key] = kwargs[key]


def list_extend(self, iterable, /):
    if support.iterates_natively(iterable) and support.plain(contextslot()):
        return native.list.extend(self, iterable)
    for item in list_(list, iterable):
        self.append(item)


def str_join(self, iterable, /):
    return native.str.join(self, list_(list, iterable))


# Reductions --------------------------------------------------------------------

def sum_(iterable, /, start=0):
    if support.plain(contextslot()):
        return native.sum(list_(list, iterable), start)
    total = start
    for item in iterable:
        total = seen(total + item)
    return total


def any_(iterable, /):
    for item in iterable:
        if item:
            return True
    return False


def all_(iterable, /):
    for item in iterable:
        if not item:
            return False
    return True


def min_(*args, key=None, default=_MISSING):
    return _extreme("min", args, key, default, operator.lt)


def max_(*args, key=None, default=_MISSING):
    return _extreme("max", args, key, default, operator.gt)


_EMPTY = ("{}() arg is an empty sequence" if sys.version_info < (3, 12)
          else "{}() iterable argument is empty")  # CPython's message


def _extreme(name, args, key, default, better):
    if not args:
        raise TypeError(f"{name} expected at least 1 argument, got 0")
    if len(args) > 1 and default is not _MISSING:
        raise TypeError(f"Cannot specify a default for {name}() with multiple "
                        "positional arguments")
    items = args[0] if len(args) == 1 else args
    if key is None and support.plain(contextslot()):
        return support.extreme(name, items, () if default is _MISSING else (default,))
    best = best_key = _MISSING
    for item in items:
        item_key = item if key is None else seen(key(item))
        if best is _MISSING or seen(better(item_key, best_key)):
            best, best_key = item, item_key
    if best is _MISSING:
        if default is _MISSING:
            raise ValueError(_EMPTY.format(name))
        return default
    return best


def reduce_(function, iterable, initial=_MISSING, /):
    iterator = iterator_of(iterable)
    if initial is _MISSING:
        try:
            value = next(iterator)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    else:
        value = initial
    for item in iterator:
        value = seen(function(value, item))
    return value


# Sorting -------------------------------------------------------------------------

def sorted_(iterable, /, *, key=None, reverse=False):
    items = list_(list, iterable)
    list_sort(items, key=key, reverse=reverse)
    return items


def list_sort(self, /, *, key=None, reverse=False):
    keys = self if key is None else [seen(key(item)) for item in self]
    if support.scalars_only(keys) or (
            key is None and support.plain(contextslot())):
        order = support.native_order(keys, reverse)
    else:
        order = merge_order(keys, reverse)
    support.reorder(self, order)


def merge_order(keys, reverse):
    """A stable merge sort on `<` alone, as `list.sort` compares."""
    order = list(range(len(keys)))
    if reverse:
        order.reverse()
    width = 1
    while width < len(order):
        merged = []
        for start in range(0, len(order), 2 * width):
            left = order[start:start + width]
            right = order[start + width:start + 2 * width]
            i = j = 0
            while i < len(left) and j < len(right):
                if seen(keys[right[j]] < keys[left[i]]):
                    merged.append(right[j])
                    j += 1
                else:
                    merged.append(left[i])
                    i += 1
            merged.extend(left[i:])
            merged.extend(right[j:])
        order = merged
        width *= 2
    if reverse:
        order.reverse()
    return order


# Lazy iterators --------------------------------------------------------------------

# Each model calls `iter` on its arguments at once, as the C constructors do (so a
# bad argument fails at the call), and returns a generator over the iterators.
# A callback that raises StopIteration (`map(next, iterators)`) ends the C iterator's
# step, and so the loop of its caller: the model returns there, where letting it out
# of a generator would make it a RuntimeError. (C's iterator could still be stepped
# again; a model's, like any generator's, is then done.)

def iterator_of(iterable):
    """`iter(iterable)`, to be stepped as C code steps it: an iterator with the user's
    `__next__` is driven (a loop over it would call its `__iter__` again)."""
    iterator = iter(iterable)
    if support.is_python(native.getattr(native.type(iterator), "__next__", None)):
        return drive(iterator)
    return iterator


def map_(cls, function, iterable, /, *iterables):
    if iterables:
        return _map_many(function, zip_(zip, iterable, *iterables))
    return _map_one(function, iterator_of(iterable))


def _map_one(function, iterator):
    for item in iterator:
        try:
            value = seen(function(item))
        except StopIteration:
            return
        yield value


def _map_many(function, arguments):
    for args in arguments:
        try:
            value = seen(function(*args))
        except StopIteration:
            return
        yield value


def filter_(cls, function, iterable, /):
    return _filter(function, iterator_of(iterable))


def _filter(function, iterator):
    for item in iterator:
        try:
            kept = item if function is None else seen(function(item))
        except StopIteration:
            return
        if kept:
            yield item


def enumerate_(cls, iterable, start=0):
    return _enumerate(iterator_of(iterable), start)


def _enumerate(iterator, index):
    for item in iterator:
        yield index, item
        index += 1


def zip_(cls, *iterables, strict=False):
    return _zip([iterator_of(i) for i in iterables], strict)


def _zip(iterators, strict):
    if not iterators:
        return
    while True:
        items = []
        for position, iterator in enumerate(iterators):
            try:
                items.append(next(iterator))
            except StopIteration:
                if strict and position:
                    raise _uneven(position, "shorter") from None
                longer = _first_left(iterators) if strict else None
                if longer:
                    raise _uneven(longer, "longer") from None
                return
        yield tuple(items)


def _first_left(iterators):
    """The position of the first iterator after the first that still has an item."""
    for position, iterator in enumerate(iterators[1:], 1):
        for _ in iterator:
            return position
    return None


def _uneven(position, which):
    """CPython's error for `zip(..., strict=True)` over iterables of unequal lengths."""
    earlier = " 1" if position == 1 else f"s 1-{position}"
    return ValueError(f"zip() argument {position + 1} is {which} than argument{earlier}")


def reversed_(cls, sequence, /):
    kind = native.type(sequence)
    method = native.getattr(kind, "__reversed__", _MISSING)
    if method is None or (method is _MISSING and not support.is_sequence(kind)):
        raise TypeError(f"'{kind.__name__}' object is not reversible")
    if method is not _MISSING:
        return seen(method(sequence)) if support.is_python(method) else method(sequence)
    return reversed_sequence(sequence, len(sequence))


def reversed_sequence(sequence, length):
    index = length - 1
    while index >= 0:
        try:
            item = sequence[index]
        except (IndexError, StopIteration):
            return
        yield item
        index -= 1


def iter_(obj, *sentinel):
    if sentinel:
        return _call_until(obj, sentinel[0])
    kind = native.type(obj)
    method = native.getattr(kind, "__iter__", None)
    if method is None:
        if native.hasattr(kind, "__getitem__"):
            return _sequence_iterator(obj)
        raise TypeError(f"'{kind.__name__}' object is not iterable")
    iterator = seen(method(obj)) if support.is_python(method) else method(obj)
    if not native.hasattr(native.type(iterator), "__next__"):
        raise TypeError(f"iter() returned non-iterator of type "
                        f"'{native.type(iterator).__name__}'")
    return iterator  # itself: a loop over it is driven by `drive` (see _implicit_runtime)


def drive(iterator):
    """A loop over an iterator whose `__next__` is Python: each step a call in the context."""
    while True:
        try:
            item = next_(iterator)
        except StopIteration:
            return
        yield item


def delegate(iterator):
    """`yield from iterator` (PEP 380) for an iterator with Python methods: each step,
    `send`, `throw` and `close` a call in the context; returns what it returns."""
    try:
        value = next_(iterator)
    except StopIteration as stop:
        return stop.value
    while True:
        try:
            sent = yield value
        except GeneratorExit:
            close = native.getattr(iterator, "close", None)
            if close is not None:
                seen(close())
            raise
        except BaseException as error:
            throw = native.getattr(iterator, "throw", None)
            if throw is None:
                raise
            try:  # the exception as raised (CPython passes what `throw` was given)
                value = seen(throw(error))
            except StopIteration as stop:
                return stop.value
        else:
            try:
                value = next_(iterator) if sent is None else seen(iterator.send(sent))
            except StopIteration as stop:
                return stop.value


def _call_until(function, sentinel):
    while True:
        try:
            value = seen(function())
        except StopIteration:
            return
        if support.identical(value, sentinel) or seen(value == sentinel):
            return
        yield value


def _sequence_iterator(sequence):
    index = 0
    while True:
        try:
            item = sequence[index]
        except (IndexError, StopIteration):
            return
        yield item
        index += 1


def next_(iterator, *default):
    method = native.getattr(native.type(iterator), "__next__", None)
    if method is None:
        raise TypeError(f"'{native.type(iterator).__name__}' object is not an iterator")
    try:
        if support.is_python(method):
            return seen(method(iterator))
        return method(iterator)
    except StopIteration:
        if default:
            return default[0]
        raise


# Attribute lookup --------------------------------------------------------------------

def getattr_(*args, **kwargs):
    """`getattr(obj, name[, default])` calls a property's getter in the context, as
    `obj.name` does there."""
    getter = support.getter_for(args, kwargs, 3)
    if getter is None:
        return native.getattr(*args, **kwargs)
    obj, _, *default = args
    if not default:
        return seen(getter(obj))
    try:
        return seen(getter(obj))
    except AttributeError:
        return default[0]


def hasattr_(*args, **kwargs):
    getter = support.getter_for(args, kwargs, 2)
    if getter is None:
        return native.hasattr(*args, **kwargs)
    obj, _ = args
    try:
        seen(getter(obj))
    except AttributeError:
        return False
    return True


# Truth -------------------------------------------------------------------------------

def not_(a, /):
    return False if a else True


def truth_(a, /):
    return True if a else False


def bool_(cls, *args, **kwargs):
    if kwargs or native.len(args) != 1:
        return nooverdub(cls)(*args, **kwargs)  # CPython's own errors, or False
    value, = args
    return True if value else False


def partial_call(self, /, *args, **kwargs):
    keywords = self.keywords
    if not keywords:  # the common case, in fewer steps (each a call in a layered context)
        return seen(self.func(*self.args, *args, **kwargs))
    return seen(self.func(*self.args, *args, **{**keywords, **kwargs}))


# itertools ------------------------------------------------------------------------

def accumulate_(cls, iterable, func=None, *, initial=None):
    return _accumulate(iterator_of(iterable), func, initial)


def _accumulate(iterable, func, initial):
    total = initial
    if initial is not None:
        yield initial
    for item in iterable:
        if total is None:
            total = item
        else:
            try:
                total = seen(total + item) if func is None else seen(func(total, item))
            except StopIteration:
                return
        yield total


def starmap_(cls, function, iterable, /):
    return _starmap(function, iterator_of(iterable))


def _starmap(function, iterable):
    for args in iterable:
        if native.type(args) is not tuple:
            args = tuple(args)  # as C does, with its error for a non-iterable
        try:
            value = seen(function(*args))
        except StopIteration:
            return
        yield value


def takewhile_(cls, predicate, iterable, /):
    return _takewhile(predicate, iterator_of(iterable))


def _takewhile(predicate, iterable):
    for item in iterable:
        try:
            taken = seen(predicate(item))
        except StopIteration:
            return
        if not taken:
            return
        yield item


def dropwhile_(cls, predicate, iterable, /):
    return _dropwhile(predicate, iterator_of(iterable))


def _dropwhile(predicate, iterable):
    dropping = True
    for item in iterable:
        if dropping:
            try:
                dropped = seen(predicate(item))
            except StopIteration:
                return
            if dropped:
                continue
            dropping = False
        yield item


def filterfalse_(cls, predicate, iterable, /):
    return _filterfalse(predicate, iterator_of(iterable))


def _filterfalse(predicate, iterable):
    for item in iterable:
        try:
            kept = item if predicate is None else seen(predicate(item))
        except StopIteration:
            return
        if not kept:
            yield item


def groupby_(cls, iterable, key=None):
    """Lazy, calling `key` once per item, and a group ends when the next begins, as in C."""
    return _groupby(support.GroupBy(iter(iterable), key))


def _groupby(state):
    while True:
        support.new_turn(state)
        while True:
            if state.filled:
                if state.targeted:
                    if _same_key(state.target, state.current):
                        pass
                    else:
                        break
                else:
                    break
            if _groupby_step(state):
                continue
            return
        state.target = state.current
        state.targeted = True
        yield state.current, _group(state, state.turn)


def _same_key(a, b):
    return support.identical(a, b) or seen(a == b)


def _groupby_step(state):
    try:
        value = next(state.iterator)
        state.current = seen(state.key(value)) if state.keyed else value
    except StopIteration:  # the iterable's end, or the key's (see "Lazy iterators")
        return False
    state.value = value
    state.filled = True
    return True


def _group(state, turn):
    while support.is_turn(state, turn):
        if state.filled or _groupby_step(state):
            if _same_key(state.target, state.current):
                state.filled = False
                yield state.value
                continue
        return


# Code given as text ---------------------------------------------------------------

def exec_(source, globals=None, locals=None, /, **kwargs):
    """`exec` given a namespace: the text runs in the context (see `_exec`); what a
    function cannot express is a foreign call."""
    run = None if kwargs else _exec.wrap(source, globals, locals, "exec")
    if run is None:
        return nooverdub(contextslot().fallback)(exec, _native_text(source, "exec"),
                                                 globals, locals, **kwargs)
    run()
    return None


def eval_(source, globals=None, locals=None, /):
    """`eval` given a namespace, as `exec_`."""
    run = _exec.wrap(source, globals, locals, "eval")
    if run is None:
        return nooverdub(contextslot().fallback)(eval, _native_text(source, "eval"),
                                                 globals, locals)
    return run()


def _native_text(source, mode):
    """What `exec` or `eval` runs natively: text compiled with its source kept."""
    code = _exec.registered(source, mode) if native.type(source) is str else None
    return source if code is None else code


# Callbacks C calls ---------------------------------------------------------------------

# A function handed to C and called from there runs natively, outside the context,
# even when the code that handed it over runs in it. These models hand C
# `in_context(f)` instead: each call of it runs `call_back` transformed, so `f` is a
# call in the running context, seen by hooks, where a layer's values keep their
# metadata. The C function itself is a foreign call (`support.foreign`: the
# context's `fallback`, so a layer gives it plain arguments).

def call_back(function, /, *args, **kwargs):
    return seen(function(*args, **kwargs))


def in_context(function):
    """`function` as C is to call it: in the running context."""
    return support.bound_to(contextslot(), call_back, function)


def context_run(self, function, /, *args, **kwargs):
    """`contextvars.Context.run`: how asyncio runs every callback and task step."""
    return nooverdub(contextvars.Context.run)(self, in_context(function), *args, **kwargs)


def pattern_sub(method, self, repl, string, count=0):
    """`re.Pattern.sub` and `subn` (so `re.sub`): a replacement function runs in the context."""
    return support.foreign(contextslot(), method, self, _callable_in_context(repl), string,
                           count)


def weakref_ref(cls, obj, callback=None, /):
    """`weakref.ref(obj, callback)` (and so `weakref.finalize`): the callback, run when
    `obj` dies, is a call in the context that made the reference.

    A static type (`float`, a key of `functools.singledispatch`'s cache) never dies,
    so its reference keeps the callback as given. Wrapped, it would hold a transformed
    `call_back`, which CPython 3.12.1 frees once the interpreter is torn down, when
    it drops the weak references to the builtin types: the weakref callbacks on its
    code (the engine's tables) then run Python code there, and the process crashes
    (SIGSEGV) at exit.
    """
    if support.never_dies(obj) or not native.callable(callback):
        return support.foreign(contextslot(), cls, obj, callback)
    return support.foreign(contextslot(), cls, obj,
                           support.on_death(contextslot(), call_back, callback))


def create_function(method, self, name, narg, func, *, deterministic=False):
    """`sqlite3.Connection.create_function`: SQL calls `func` in the context."""
    support.foreign(contextslot(), method, self, name, narg, _callable_in_context(func),
                    deterministic=deterministic)


def future_set_result(method, self, result, /):
    """`asyncio.Future.set_result` (C): the result is kept as the context has it, as
    an asyncio task keeps what its coroutine returns, so `await` gives it back."""
    return nooverdub(method)(self, result)


def _callable_in_context(value):
    return in_context(value) if native.callable(value) else value


# Callables that C makes from Python ones ---------------------------------------------

def cmp_to_key_(mycmp):
    """`functools.cmp_to_key`: keys whose comparisons call `mycmp` in the context."""
    return functools.partial(CmpKey, mycmp)


class CmpKey:
    """The key `functools.cmp_to_key` makes, as its Python version in `functools` is."""

    __slots__ = ("cmp", "obj")
    __hash__ = None

    def __init__(self, cmp, obj):
        self.cmp, self.obj = cmp, obj

    def __lt__(self, other):
        return seen(self.cmp(self.obj, other.obj)) < 0

    def __gt__(self, other):
        return seen(self.cmp(self.obj, other.obj)) > 0

    def __eq__(self, other):
        return seen(self.cmp(self.obj, other.obj)) == 0

    def __le__(self, other):
        return seen(self.cmp(self.obj, other.obj)) <= 0

    def __ge__(self, other):
        return seen(self.cmp(self.obj, other.obj)) >= 0


def methodcaller_call(self, obj, /):
    name, args, kwargs = support.methodcaller_parts(self)
    return seen(getattr(obj, name)(*args, **kwargs))


def attrgetter_call(self, obj, /):
    paths = support.attrgetter_paths(self)
    values = []
    for path in paths:
        value = obj
        for name in path:
            value = getattr(value, name)
        values.append(value)
    return values[0] if len(values) == 1 else tuple(values)


def itemgetter_call(self, obj, /):
    keys = support.itemgetter_keys(self)
    return obj[keys[0]] if len(keys) == 1 else tuple([obj[key] for key in keys])


# The table -------------------------------------------------------------------------

# callee -> (model, whether the model receives the callee first)
_MODELS: dict = {
    sorted: (sorted_, False), list.sort: (list_sort, False),
    min: (min_, False), max: (max_, False), sum: (sum_, False),
    any: (any_, False), all: (all_, False), functools.reduce: (reduce_, False),
    map: (map_, True), filter: (filter_, True), enumerate: (enumerate_, True),
    zip: (zip_, True), reversed: (reversed_, True), iter: (iter_, False),
    next: (next_, False), functools.partial.__call__: (partial_call, False),
    list: (list_, True), tuple: (tuple_, True), set: (set_, True),
    frozenset: (set_, True), dict: (dict_, True), dict.update: (dict_update, False),
    list.extend: (list_extend, False), str.join: (str_join, False),
    type.__call__: (construct, False),  # `super().__call__(...)` in a metaclass's `__call__`
    itertools.accumulate: (accumulate_, True), itertools.starmap: (starmap_, True),
    itertools.takewhile: (takewhile_, True), itertools.dropwhile: (dropwhile_, True),
    itertools.filterfalse: (filterfalse_, True), itertools.groupby: (groupby_, True),
    exec: (exec_, False), eval: (eval_, False),
    collections.OrderedDict: (dict_, True), types.SimpleNamespace: (simple_namespace, True),
    # callbacks C calls, callables C makes
    contextvars.Context.run: (context_run, False), re.Pattern.sub: (pattern_sub, True),
    re.Pattern.subn: (pattern_sub, True), weakref.ref: (weakref_ref, True),
    functools.cmp_to_key: (cmp_to_key_, False),
    operator.methodcaller.__call__: (methodcaller_call, False),
    operator.attrgetter.__call__: (attrgetter_call, False),
    operator.itemgetter.__call__: (itemgetter_call, False),
    **({operator.call: (call_back, False)} if native.hasattr(operator, "call") else {}),
    # json's decoder calls its hooks from the C scanner: the Python scanner calls them here
    **({json.scanner.c_make_scanner: (json.scanner.py_make_scanner, False)}
       if json.scanner.c_make_scanner is not None else {}),
}
# Models of C methods of modules that are not imported for them (`asyncio` takes a
# while): (module of the class, qualified name) -> as above.
_NAMED_MODELS: dict = {("_asyncio", "Future.set_result"): (future_set_result, True),
                       ("sqlite3", "Connection.create_function"): (create_function, True)}
# Models for where a context sees property reads, or truth tests (its `Mode`
# says): elsewhere those run natively, and so do these builtins.
_PROPERTY_MODELS: dict = {getattr: (getattr_, False), hasattr: (hasattr_, False)}
_TRUTH_MODELS: dict = {operator.not_: (not_, False), operator.truth: (truth_, False),
                       bool: (bool_, True)}


def model_for(key: Any, mode: Any) -> tuple | None:
    """`(model, leading arguments)` for a canonical callee in a `Mode`, or None."""
    try:
        found = _MODELS.get(key) or (mode.properties and _PROPERTY_MODELS.get(key)) or (
            mode.truths and _TRUTH_MODELS.get(key)) or _named_model(key)
    except TypeError:
        return None
    if found is not None:
        model, receives_callee = found
        return model, (key,) if receives_callee else ()
    if isinstance(key, type):
        call = type(key).__call__
        if call is type.__call__ and key.__flags__ & support.HEAP_TYPE:
            return construct, (key,)
        if support.is_python(call):  # a metaclass's `__call__`, given the class first
            return call, (key,)
        return None
    if type(key) is types.FunctionType and key.__code__.co_filename == "<string>":
        return _generated_model(key)
    return None


def _named_model(key: Any) -> tuple | None:
    if type(key) is not types.MethodDescriptorType:
        return None
    return _NAMED_MODELS.get((key.__objclass__.__module__, key.__qualname__))


def _generated_model(f: types.FunctionType) -> tuple | None:
    """Models for the sourceless methods that dataclasses and namedtuple make."""
    owner_name, _, method = f.__qualname__.rpartition(".")
    if method == "__new__" and (f.__module__ or "").startswith("namedtuple_") and \
            f.__globals__.get("_tuple_new") is tuple.__new__:
        return namedtuple_new, (f,)
    owner = sys.modules.get(f.__module__)
    for part in owner_name.split(".") if owner_name else ():
        owner = getattr(owner, part, None)
    if not isinstance(owner, type) or owner.__dict__.get(method) is not f:
        owner = support.class_defining(f, method)  # a class made inside a function
    if owner is None:
        return None
    if method == "__init__" and dataclasses.is_dataclass(owner):
        return dataclass_init, (owner,)
    return None
