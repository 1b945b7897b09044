"""The native half of the models of builtins (`_models`).

What a model finds out or keeps without the context: whether a method is the
user's Python code, which `__new__` and `__init__` a class has, a dataclass's
fields, a sort's permutation, a `groupby`'s shared state. C does these steps
without calling back into Python, so hooks must not see them and a layer must
not look into them; `_models` declares this module's calls native once, with
`nativecalls`.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import inspect
import types
import weakref
from collections import deque
from typing import Any

from contexts._implicit_runtime import property_getter
from contexts._marks import is_quiet
from contexts._running import enclosing

_SCALARS = frozenset({int, float, complex, bool, str, bytes, type(None)})
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE


def is_python(method: Any) -> bool:
    """Whether a special method is the user's Python code (not C, not the engine's)."""
    return type(method) is types.FunctionType and not is_quiet(method.__code__)


def plain(ctx: Any) -> bool:
    """Whether the running context leaves operators native (so builtins may run)."""
    mode = ctx._runtime.mode  # the running context's runtime is current
    return mode.operators == frozenset() and mode.layer is None


# Construction ----------------------------------------------------------------------

def class_defining(method: Any, name: str) -> type | None:
    """The class whose own `name` is `method`, found through the collector's
    referrers: a class made inside a function cannot be reached by its qualified
    name (`f.<locals>.Point`), and only its namespace refers to the method."""
    for namespace in gc.get_referrers(method):
        if type(namespace) is dict and namespace.get(name) is method:
            for owner in gc.get_referrers(namespace):
                if isinstance(owner, type) and owner.__dict__.get(name) is method:
                    return owner
    return None


def own_new(cls: type) -> Any:
    """`cls.__new__`, or None when it is `object.__new__` (which runs natively)."""
    new = cls.__new__
    return None if new is object.__new__ else new


# C `__new__`s that make an empty container whatever they are given: its `__init__`
# (or `update`) fills it.
_EMPTY_NEW = frozenset({dict.__new__, list.__new__, set.__new__, deque.__new__})


def ignores_its_arguments(new: Any) -> bool:
    return new in _EMPTY_NEW


def own_init(obj: Any) -> Any:
    """`type(obj).__init__`, or None when it is `object.__init__`."""
    init = type(obj).__init__
    return None if init is object.__init__ else init


def bad_init_result(kind: type) -> TypeError:
    """CPython's error for an `__init__` that returned a `kind` value."""
    return TypeError(f"__init__() should return None, not '{kind.__name__}'")


def dataclass_fields(cls: type, self: Any, args: tuple, kwargs: dict) -> tuple:
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


def _dataclass_signature(init: Any) -> inspect.Signature:
    found = _init_signatures.get(init) if type(init) is types.FunctionType else None
    if found is None:
        found = inspect.signature(init)
        if type(init) is types.FunctionType:
            _init_signatures[init] = found
    return found


def namedtuple_values(new: Any, cls: type, args: tuple, kwargs: dict) -> tuple:
    """The field values, in order, with the defaults filled in."""
    try:
        bound = inspect.signature(new).bind(cls, *args, **kwargs)
    except TypeError:
        new(cls, *args, **kwargs)  # raises CPython's own message
        raise
    bound.apply_defaults()
    return tuple(bound.arguments.values())[1:]


# Containers ---------------------------------------------------------------------------

def iterates_natively(iterable: Any) -> bool:
    return type(iterable) in (list, tuple, range, str, bytes, dict, set, frozenset)


def dict_iterated(other: Any) -> bool:
    """Whether `other` is a dict subclass that iterates as a dict (C merges its entries)."""
    kind = type(other)
    return kind is not dict and isinstance(other, dict) and kind.__iter__ is dict.__iter__


def bad_pair(pair: Any, position: int) -> None:
    """Raise CPython's error for an element of `dict(pairs)` that is not a pair."""
    if not hasattr(type(pair), "__iter__") and not hasattr(type(pair), "__getitem__"):
        raise TypeError(f"cannot convert dictionary update sequence element #{position} "
                        "to a sequence")
    if hasattr(type(pair), "__len__") and len(pair) != 2:
        raise ValueError(f"dictionary update sequence element #{position} has length "
                         f"{len(pair)}; 2 is required")


def is_sequence(kind: type) -> bool:
    return not issubclass(kind, dict) and hasattr(kind, "__getitem__")


# Reductions and sorting ------------------------------------------------------------------

def extreme(name: str, items: Any, default: tuple) -> Any:
    """`min(items)` or `max(items)` (with the `default`, if one is given), natively."""
    builtin = min if name == "min" else max
    return builtin(items, default=default[0]) if default else builtin(items)


def scalars_only(keys: list) -> bool:
    """Whether sorting `keys` can run no Python code (so it may run natively)."""
    return all(type(k) in _SCALARS for k in keys)


def native_order(keys: list, reverse: bool) -> list:
    """The permutation that sorts `keys`, found by the builtin sort."""
    return sorted(range(len(keys)), key=keys.__getitem__, reverse=reverse)


def reorder(items: list, order: list) -> None:
    items[:] = [items[i] for i in order]


# Attribute lookup ------------------------------------------------------------------------

def getter_for(args: tuple, kwargs: dict, most: int) -> Any:
    """The getter `obj.name` would call, for arguments `getattr`/`hasattr` accept
    (else None)."""
    if kwargs or not 2 <= len(args) <= most or type(args[1]) is not str:
        return None
    return property_getter(type(args[0]), args[1])


# Callbacks and the callables C makes --------------------------------------------------

def bound_to(ctx: Any, call_back: Any, function: Any) -> Any:
    """What C calls in place of `function` so that it runs in the running `ctx`:
    `call_back` transformed for `ctx`, with `function` first; and when `ctx` runs
    under other contexts, that wrapped in turn for each of them, outwards, so each
    outer context runs the inner one's call (as it runs the rest of its code)."""
    for running in enclosing(ctx):
        function = functools.partial(running._runtime.transformed(call_back), function)
    return function


def never_dies(obj: Any) -> bool:
    """Whether `obj` is a static type (`float`, a class of C code): one never freed,
    so a weak reference to it never calls back."""
    return isinstance(obj, type) and not obj.__flags__ & HEAP_TYPE


def foreign(ctx: Any, f: Any, /, *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)` as the context's foreign call (its `fallback`)."""
    return ctx.fallback(f, *args, **kwargs)


def methodcaller_parts(caller: Any) -> tuple:
    """`(name, args, kwargs)` of an `operator.methodcaller`, from its reduction."""
    made, args = caller.__reduce__()
    if type(made) is functools.partial:  # keywords: partial(methodcaller, name, **kw)
        return made.args[0], args, made.keywords
    return args[0], args[1:], {}


def attrgetter_paths(getter: Any) -> list:
    """The dotted names of an `operator.attrgetter`, each split at its dots."""
    return [name.split(".") for name in getter.__reduce__()[1]]


def itemgetter_keys(getter: Any) -> tuple:
    return getter.__reduce__()[1]


# groupby ------------------------------------------------------------------------------

class GroupBy:
    """What a `groupby` model shares with its groups."""

    def __init__(self, iterator: Any, key: Any) -> None:
        self.iterator, self.key, self.keyed = iterator, key, key is not None
        self.filled = self.targeted = False
        self.value = self.current = self.target = None
        self.turn = 0


def new_turn(state: GroupBy) -> None:
    state.turn += 1


def is_turn(state: GroupBy, turn: int) -> bool:
    return state.turn == turn


def identical(a: Any, b: Any) -> bool:
    return a is b
