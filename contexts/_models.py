"""Python models of the C builtins that call back into Python.

`sorted(xs, key=k)` in C calls `k` where no context can see it; here each
builtin that takes a callback, iterates a user object or builds a container
from an iterable has a plain Python twin that the engine runs transformed, so
the callbacks are calls in the context like any other. The machinery inside a
model is marked `nooverdub`; when no callback is given and the context does
not watch operators, a model hands the work to the builtin itself.
`model_for` maps a canonical callee to its model.

This is a quiet module (`_marks`): hooks see only what a model marks `seen`,
what the builtin calls back (the user's callbacks, the operators it applies
to the user's values, the user's `__iter__`, `__next__`, `__init__`, ...);
the rest runs in the context unreported.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
import operator
import sys
import types
import weakref
from typing import Any

from contexts._implicit_runtime import property_getter
from contexts._marks import contextslot, is_quiet, nooverdub, quietmodule, seen

quietmodule(__name__)

_MISSING = object()
_SCALARS = frozenset({int, float, complex, bool, str, bytes, type(None)})


def _python(method) -> bool:
    """Whether a special method is the user's Python code (not C, not the engine's)."""
    return type(method) is types.FunctionType and not is_quiet(method.__code__)


def _plain(ctx: Any) -> bool:
    """Whether the running context leaves operators native (so builtins may run)."""
    mode = ctx._runtime.mode  # the running context's runtime is current
    return mode.operators == frozenset() and mode.layer is None


# Construction ----------------------------------------------------------------

def construct(cls, /, *args, **kwargs):
    """`type.__call__`: `__new__`, then `__init__` when it made an instance."""
    new = nooverdub(_own_new)(cls)
    if not new:
        obj = nooverdub(object.__new__)(cls, *args, **kwargs)
    elif nooverdub(_python)(new):
        obj = seen(new(cls, *args, **kwargs))
    else:
        obj = new(cls, *args, **kwargs)
    if nooverdub(isinstance)(obj, cls):
        init = nooverdub(_own_init)(obj)
        if not init:
            nooverdub(object.__init__)(obj, *args, **kwargs)
        elif nooverdub(_python)(init):
            nooverdub(_check_init_result)(seen(init(obj, *args, **kwargs)))
        else:
            nooverdub(_check_init_result)(init(obj, *args, **kwargs))
    return obj


def _own_new(cls):
    """`cls.__new__`, or None when it is `object.__new__` (which runs natively)."""
    new = cls.__new__
    return None if new is object.__new__ else new


def _own_init(obj):
    """`type(obj).__init__`, or None when it is `object.__init__`."""
    init = type(obj).__init__
    return None if init is object.__init__ else init


def _check_init_result(result):
    if result is not None:
        raise TypeError(f"__init__() should return None, not '{type(result).__name__}'")


def dataclass_init(cls, /, self, *args, **kwargs):
    """The `__init__` that `dataclasses` generates, with stores in the context."""
    frozen, fields = nooverdub(_dataclass_fields)(cls, self, args, kwargs)
    initvars = []
    for name, value, factory, initvar in fields:
        if factory:
            value = seen(factory())
        if initvar:
            nooverdub(initvars.append)(value)
        elif frozen:
            object.__setattr__(self, name, value)
        else:
            setattr(self, name, value)
    post_init = nooverdub(getattr)(cls, "__post_init__", None)
    if post_init:
        seen(post_init(self, *initvars))


def _dataclass_fields(cls, self, args, kwargs):
    """`(frozen, [(name, value, default factory, whether an InitVar)])` to store."""
    try:
        arguments = _dataclass_signature(cls.__init__).bind(self, *args, **kwargs).arguments
    except TypeError:
        cls.__init__(self, *args, **kwargs)  # raises CPython's own message
        raise
    fields = []
    for field in cls.__dataclass_fields__.values():
        if field._field_type is dataclasses._FIELD_CLASSVAR:
            continue
        initvar = field._field_type is dataclasses._FIELD_INITVAR
        if field.name in arguments:
            fields.append((field.name, arguments[field.name], None, initvar))
        elif field.default_factory is not dataclasses.MISSING:
            fields.append((field.name, None, field.default_factory, initvar))
        elif field.default is not dataclasses.MISSING:
            fields.append((field.name, field.default, None, initvar))
    return cls.__dataclass_params__.frozen, fields


# Keyed by the `__init__` itself, not its class: a class may get another
# `__init__` (decorated again) after its first use.
_init_signatures: "weakref.WeakKeyDictionary[types.FunctionType, Any]" = \
    weakref.WeakKeyDictionary()


def _dataclass_signature(init):
    found = _init_signatures.get(init) if type(init) is types.FunctionType else None
    if found is None:

        found = inspect.signature(init)
        if type(init) is types.FunctionType:
            _init_signatures[init] = found
    return found


def namedtuple_new(new, cls, /, *args, **kwargs):
    """The `__new__` that `collections.namedtuple` generates (`new`)."""
    values = [*nooverdub(_namedtuple_values)(new, cls, args, kwargs)]
    return tuple.__new__(cls, values)


def _namedtuple_values(new, cls, args, kwargs):
    """The field values, in order, with the defaults filled in."""
    try:
        bound = _signature_of(new).bind(cls, *args, **kwargs)
    except TypeError:
        new(cls, *args, **kwargs)  # raises CPython's own message
        raise
    bound.apply_defaults()
    return tuple(bound.arguments.values())[1:]


def _signature_of(f):

    return inspect.signature(f)


# Containers from iterables -----------------------------------------------------

def _iterates_natively(iterable) -> bool:
    return type(iterable) in (list, tuple, range, str, bytes, dict, set, frozenset)


def list_(cls, iterable=(), /):
    if nooverdub(_iterates_natively)(iterable):
        return nooverdub(cls)(iterable)
    out = nooverdub(cls)()
    for item in iterable:
        out.append(item)
    return out


def tuple_(cls, iterable=(), /):
    return nooverdub(cls)(list_(list, iterable))


def set_(cls, iterable=(), /):
    if nooverdub(_iterates_natively)(iterable):
        return nooverdub(cls)(iterable)
    out = nooverdub(set)()
    for item in iterable:
        out.add(item)
    return out if cls is set else nooverdub(cls)(out)


def dict_(cls, *args, **kwargs):
    out = nooverdub(cls)()
    dict_update(out, *args, **kwargs)
    return out


def dict_update(self, other=(), /, **kwargs):
    if nooverdub(_dict_iterated)(other):
        # a dict subclass iterated as a dict: C merges its entries, not its methods
        for key in nooverdub(dict.keys)(other):
            self[key] = nooverdub(dict.__getitem__)(other, key)
    elif nooverdub(hasattr)(other, "keys"):
        for key in seen(other.keys()):
            self[key] = other[key]
    else:
        for position, pair in enumerate(other):
            try:
                key, value = pair
            except (TypeError, ValueError):
                nooverdub(_bad_pair)(pair, position)
                raise
            self[key] = value
    for key in kwargs:
        self[key] = kwargs[key]


def _dict_iterated(other) -> bool:
    kind = type(other)
    return kind is not dict and isinstance(other, dict) and kind.__iter__ is dict.__iter__


def _bad_pair(pair, position):
    """Raise CPython's error for an element of `dict(pairs)` that is not a pair."""
    if not hasattr(type(pair), "__iter__") and not hasattr(type(pair), "__getitem__"):
        raise TypeError(f"cannot convert dictionary update sequence element #{position} "
                        "to a sequence")
    if hasattr(type(pair), "__len__") and len(pair) != 2:
        raise ValueError(f"dictionary update sequence element #{position} has length "
                         f"{len(pair)}; 2 is required")


def list_extend(self, iterable, /):
    if nooverdub(_iterates_natively)(iterable) and nooverdub(_plain)(contextslot()):
        return nooverdub(list.extend)(self, iterable)
    for item in list_(list, iterable):
        self.append(item)


def str_join(self, iterable, /):
    return nooverdub(str.join)(self, list_(list, iterable))


# Reductions --------------------------------------------------------------------

def sum_(iterable, /, start=0):
    if nooverdub(_plain)(contextslot()):
        return nooverdub(sum)(list_(list, iterable), start)
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
    if key is None and nooverdub(_plain)(contextslot()):
        builtin = min if name == "min" else max
        if default is _MISSING:
            return nooverdub(builtin)(items)
        return nooverdub(builtin)(items, default=default)
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
    if nooverdub(scalars_only)(keys) or (
            key is None and nooverdub(_plain)(contextslot())):
        order = nooverdub(native_order)(keys, reverse)
    else:
        order = merge_order(keys, reverse)
    nooverdub(_reorder)(self, order)


def scalars_only(keys) -> bool:
    """Whether sorting `keys` can run no Python code (so it may run natively)."""
    return all(type(k) in _SCALARS for k in keys)


def native_order(keys, reverse):
    """The permutation that sorts `keys`, found by the builtin sort."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def _reorder(items, order):
    items[:] = [items[i] for i in order]


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

def iterator_of(iterable):
    """`iter(iterable)`, to be stepped as C code steps it: an iterator with the user's
    `__next__` is driven (a loop over it would call its `__iter__` again)."""
    iterator = iter(iterable)
    if nooverdub(_python)(nooverdub(getattr)(nooverdub(type)(iterator), "__next__", None)):
        return drive(iterator)
    return iterator


def map_(cls, function, iterable, /, *iterables):
    if iterables:
        return _map_many(function, zip_(zip, iterable, *iterables))
    return _map_one(function, iterator_of(iterable))


def _map_one(function, iterator):
    for item in iterator:
        yield seen(function(item))


def _map_many(function, arguments):
    for args in arguments:
        yield seen(function(*args))


def filter_(cls, function, iterable, /):
    return _filter(function, iterator_of(iterable))


def _filter(function, iterator):
    for item in iterator:
        if (item if function is None else seen(function(item))):
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
    kind = nooverdub(type)(sequence)
    method = nooverdub(getattr)(kind, "__reversed__", _MISSING)
    if method is None or (method is _MISSING and not nooverdub(_is_sequence)(kind)):
        raise TypeError(f"'{kind.__name__}' object is not reversible")
    if method is not _MISSING:
        return seen(method(sequence)) if nooverdub(_python)(method) else method(sequence)
    return reversed_sequence(sequence, len(sequence))


def _is_sequence(kind) -> bool:
    return not issubclass(kind, dict) and hasattr(kind, "__getitem__")


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
    kind = nooverdub(type)(obj)
    method = nooverdub(getattr)(kind, "__iter__", None)
    if method is None:
        if nooverdub(hasattr)(kind, "__getitem__"):
            return _sequence_iterator(obj)
        raise TypeError(f"'{kind.__name__}' object is not iterable")
    iterator = seen(method(obj)) if nooverdub(_python)(method) else method(obj)
    if not nooverdub(hasattr)(nooverdub(type)(iterator), "__next__"):
        raise TypeError(f"iter() returned non-iterator of type "
                        f"'{nooverdub(type)(iterator).__name__}'")
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
            close = nooverdub(getattr)(iterator, "close", None)
            if close is not None:
                seen(close())
            raise
        except BaseException as error:
            throw = nooverdub(getattr)(iterator, "throw", None)
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
        if nooverdub(_identical)(value, sentinel) or seen(value == sentinel):
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
    method = nooverdub(getattr)(nooverdub(type)(iterator), "__next__", None)
    if method is None:
        raise TypeError(f"'{nooverdub(type)(iterator).__name__}' object is not an iterator")
    try:
        if nooverdub(_python)(method):
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
    getter = nooverdub(_property_getter)(args, kwargs, 3)
    if getter is None:
        return nooverdub(getattr)(*args, **kwargs)
    obj, _, *default = args
    if not default:
        return seen(getter(obj))
    try:
        return seen(getter(obj))
    except AttributeError:
        return default[0]


def hasattr_(*args, **kwargs):
    getter = nooverdub(_property_getter)(args, kwargs, 2)
    if getter is None:
        return nooverdub(hasattr)(*args, **kwargs)
    obj, _ = args
    try:
        seen(getter(obj))
    except AttributeError:
        return False
    return True


def _property_getter(args, kwargs, most):
    """The getter `obj.name` would call, for arguments the builtin accepts (else None)."""
    if kwargs or not 2 <= len(args) <= most or type(args[1]) is not str:
        return None
    return property_getter(type(args[0]), args[1])


# Truth -------------------------------------------------------------------------------

def not_(a, /):
    return False if a else True


def bool_(cls, *args, **kwargs):
    if kwargs or nooverdub(len)(args) != 1:
        return nooverdub(cls)(*args, **kwargs)  # CPython's own errors, or False
    value, = args
    return True if value else False


def partial_call(self, /, *args, **kwargs):
    return seen(self.func(*self.args, *args, **{**self.keywords, **kwargs}))


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
            total = seen(total + item) if func is None else seen(func(total, item))
        yield total


def starmap_(cls, function, iterable, /):
    return _starmap(function, iterator_of(iterable))


def _starmap(function, iterable):
    for args in iterable:
        if nooverdub(type)(args) is not tuple:
            args = tuple(args)  # as C does, with its error for a non-iterable
        yield seen(function(*args))


def takewhile_(cls, predicate, iterable, /):
    return _takewhile(predicate, iterator_of(iterable))


def _takewhile(predicate, iterable):
    for item in iterable:
        if not seen(predicate(item)):
            return
        yield item


def dropwhile_(cls, predicate, iterable, /):
    return _dropwhile(predicate, iterator_of(iterable))


def _dropwhile(predicate, iterable):
    dropping = True
    for item in iterable:
        if dropping and seen(predicate(item)):
            continue
        dropping = False
        yield item


def filterfalse_(cls, predicate, iterable, /):
    return _filterfalse(predicate, iterator_of(iterable))


def _filterfalse(predicate, iterable):
    for item in iterable:
        if not (item if predicate is None else seen(predicate(item))):
            yield item


def groupby_(cls, iterable, key=None):
    """Lazy, calling `key` once per item, and a group ends when the next begins, as in C."""
    return _groupby(nooverdub(_GroupBy)(iter(iterable), key))


def _groupby(state):
    while True:
        nooverdub(_new_turn)(state)
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


class _GroupBy:
    """What `groupby_` shares with its groups."""

    def __init__(self, iterator, key):
        self.iterator, self.key, self.keyed = iterator, key, key is not None
        self.filled = self.targeted = False
        self.value = self.current = self.target = None
        self.turn = 0


def _new_turn(state):
    state.turn += 1


def _is_turn(state, turn):
    return state.turn == turn


def _identical(a, b):
    return a is b


def _same_key(a, b):
    return nooverdub(_identical)(a, b) or seen(a == b)


def _groupby_step(state):
    try:
        value = next(state.iterator)
    except StopIteration:
        return False
    state.current = seen(state.key(value)) if state.keyed else value
    state.value = value
    state.filled = True
    return True


def _group(state, turn):
    while nooverdub(_is_turn)(state, turn):
        if state.filled or _groupby_step(state):
            if _same_key(state.target, state.current):
                state.filled = False
                yield state.value
                continue
        return


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
    itertools.accumulate: (accumulate_, True), itertools.starmap: (starmap_, True),
    itertools.takewhile: (takewhile_, True), itertools.dropwhile: (dropwhile_, True),
    itertools.filterfalse: (filterfalse_, True), itertools.groupby: (groupby_, True),
}
# Models for where a context sees property reads, or truth tests (its `Mode`
# says): elsewhere those run natively, and so do these builtins.
_PROPERTY_MODELS: dict = {getattr: (getattr_, False), hasattr: (hasattr_, False)}
_TRUTH_MODELS: dict = {operator.not_: (not_, False), bool: (bool_, True)}
_HEAP_TYPE = 1 << 9


def model_for(key: Any, mode: Any) -> tuple | None:
    """`(model, leading arguments)` for a canonical callee in a `Mode`, or None."""
    try:
        found = _MODELS.get(key) or (mode.properties and _PROPERTY_MODELS.get(key)) or (
            mode.truths and _TRUTH_MODELS.get(key)) or None
    except TypeError:
        return None
    if found is not None:
        model, receives_callee = found
        return model, (key,) if receives_callee else ()
    if isinstance(key, type):
        if type(key).__call__ is type.__call__ and key.__flags__ & _HEAP_TYPE:
            return construct, (key,)
        return None
    if type(key) is types.FunctionType and key.__code__.co_filename == "<string>":
        return _generated_model(key)
    return None


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
        return None
    if method == "__init__" and dataclasses.is_dataclass(owner):
        return dataclass_init, (owner,)
    return None
