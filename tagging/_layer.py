"""The tagging layer: what a context carrying a `Tag` adds to its runs.

Through the engine's layer interface (`contexts.layer`): the tagging pass over
each body, the cells it names (heap loads and stores, globals, closure cells,
generator channels), the heap primitives consulted before the context's own
`overdub` (a user `@primitive` on the same function still wins), foreign calls
given untagged arguments, and a sweep of the shadow store after each run, so
the temporaries of finished runs do not pile up.
"""

from __future__ import annotations

import functools
import itertools
import operator
import os
import sys
import types
from collections import deque
from typing import Any, Callable

import attrs

from contexts.layer import Layer, hide_frames_from, is_running, nativecalls, precompile
from tagging import _channels as channels
from tagging import _classes as classes
from tagging import _exceptions as exceptions
from tagging import _heap as heap
from tagging import _iterators as iterators
from tagging import _primitives as primitives
from tagging._fast import heap_paths
from tagging._leaving import FRAME_TEXT, GENERATOR_RETURN, dropped, plain_defaults
from tagging._patterns import recaptured
from tagging._passes import tagging_pass
from tagging._store import ABSENT, Store
from tagging._tagged import Tagged, rawest, wrap

nativecalls(__name__, "_own_arguments", "_foreign_result")
_serials = itertools.count(1)
BUILTINS = {**primitives.BUILTINS, **iterators.BUILTINS, **exceptions.BUILTINS,
            **classes.BUILTINS}
# Operators that may build a container out of containers (foreign results).
_BUILDERS = frozenset({operator.add, operator.iadd, operator.mul, operator.imul,
                       operator.concat, operator.iconcat, operator.or_, operator.ior,
                       operator.and_, operator.iand, operator.sub, operator.isub,
                       operator.xor, operator.ixor})
_BUILT = (list, tuple, deque, dict, set, frozenset)


@attrs.define(eq=False, repr=False)
class Tag(Layer):
    """The identity of one tagging context, the owner of its shadow store, and
    the layer through which the engine runs the context."""

    context_name: str
    serial: int = attrs.field(factory=lambda: next(_serials))
    store: Store = attrs.field(factory=Store)
    # (context type, value type, metadata type) -> the class version it was accepted at
    accepted: dict = attrs.field(factory=dict)

    passes = (tagging_pass,)

    def __repr__(self) -> str:
        return f"Tag({self.context_name}#{self.serial})"

    def builtin(self, ctx: Any, key: Any, f: Callable) -> Callable | None:
        if getattr(key, "__tagging_api__", False):
            return f
        found = BUILTINS.get(key)
        if found is None:
            return None
        return functools.partial(found, ctx, key) if isinstance(key, type) else \
            functools.partial(found, ctx)

    def call_foreign(self, ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
        """`f` given arguments without this tag. The call itself is not marked: in
        a context running this one, it is a call there, with the outer tags."""
        args, kwargs = _own_arguments(self, args, kwargs)
        return _foreign_result(self, f, args, f(*args, **kwargs))

    def foreign_runner(self, ctx: Any, f: Callable) -> Callable:
        return _foreign_runner(ctx, f)

    def finish_run(self, ctx: Any) -> None:
        if self.store.added:
            self.store.sweep()
        if self.store.defaults:
            plain_defaults(self.store.defaults, functools.partial(heap.own, tag=self))
        # a `yield from` that still delegates, or that raised, awaits no more: the
        # frames it holds (and their values) are let go
        self.store.returns.clear()

    def cells(self, runtime: Any) -> dict:
        return _cells(self, runtime)


def _foreign_runner(ctx: Any, f: Callable) -> Callable:
    """`call_foreign` for one callee, in one frame for one or two arguments (an
    operator's). Plain Python, so a context running this one sees its call of `f`.
    The tag is the context's when it runs (a context may get a fresh one per run)."""

    def run(*args, **kwargs):
        tag = ctx.tag
        if kwargs or len(args) > 2:
            args, kwargs = _own_arguments(tag, args, kwargs)
            return _foreign_result(tag, f, args, f(*args, **kwargs))
        if len(args) == 2:
            a, b = args
            if type(a) is Tagged and a.tag is tag:
                a = a.value
            if type(b) is Tagged and b.tag is tag:
                b = b.value
            result = f(a, b)
            args = (a, b)
        elif args:
            a, = args
            if type(a) is Tagged and a.tag is tag:
                a = a.value
            result = f(a)
            args = (a,)
        else:
            result = f()
        if type(result) in _BUILT and (tag.store.entries or tag.store.members):
            return _foreign_result(tag, f, args, result)
        return result

    run.__name__ = f"foreign_{getattr(f, '__name__', 'call')}"
    return run


def _own_arguments(tag: Tag, args: tuple, kwargs: dict) -> tuple:
    """Arguments of a foreign call, without `tag`'s layer.

    (A generator needs no unwrapping: transformed generators yield plain values.)
    """
    for value in args:
        if type(value) is Tagged:
            args = tuple([heap.own(a, tag) for a in args])
            break
    if kwargs:
        kwargs = {k: heap.own(v, tag) for k, v in kwargs.items()}
    return args, kwargs


def _foreign_result(tag: Tag, f: Callable, args: tuple, result: Any) -> Any:
    """What a foreign call returns; a container an operator built from containers
    keeps the metadata of the elements it took from them."""
    if (tag.store.entries or tag.store.members) and keeps_element_metadata(f, result):
        heap.carry_over(tag, args, result)
    return result


def builds_containers(f: Callable) -> bool:
    """Whether the foreign call `f` is an operator that may build a container out of
    containers (`a + b`, `a * 3`, `a | b`), whose result `keeps_element_metadata`."""
    try:
        return f in _BUILDERS
    except TypeError:  # unhashable
        return False


def keeps_element_metadata(f: Callable, result: Any) -> bool:
    """Whether `result`, returned by the foreign call `f`, gets the metadata of the
    elements (members) it took from `f`'s arguments: a builtin container that an
    operator built out of containers (`a + b`, `a * 3`, `a | b`, `a += b`). Not a
    deque with a `maxlen`, which drops elements from either end."""
    if type(result) not in _BUILT or type(result) is deque and result.maxlen is not None:
        return False
    return builds_containers(f)


def _cells(tag: Tag, runtime: Any) -> dict:
    """The helpers the tagging pass refers to, bound to one context."""
    store = tag.store
    entries = store.entries

    def gload(namespace, key, value):  # also for cells: (cell, 0)
        entry = entries.get(id(namespace))
        if entry is None:
            return value
        found = entry[1].get(key)
        if found is None or found[0] is not (
                rawest(value) if type(value) is Tagged else value):
            return value
        return wrap(tag, value, found[1])

    def gstore(namespace, key, value):  # also for cells: (cell, 0)
        if type(value) is Tagged and value.tag is tag:
            store.record(namespace, key, rawest(value.value), value.meta)
            return value.value
        if entries:
            store.forget(namespace, key)
        return value

    def cload(cell, value):
        return gload(cell, 0, value)

    def cstore(cell, value):
        return gstore(cell, 0, value)

    def plain(value):
        return heap.own(value, tag)

    def captured(value, subject, path):  # what a `case` pattern bound (`_patterns`)
        if not entries and type(subject) is not Tagged:
            return value
        return recaptured(tag, value, subject, path)

    def classname(namespace, key, container, slot, value):  # a class body's read
        if key in namespace:
            return gload(namespace, key, value)
        return gload(container, slot, value)

    def classmaker(given, spread):  # a class statement's metaclass (`_classes`)
        return classes.statement(runtime.ctx, given, spread)

    def decorator(applied):  # what a `def` or `class` statement's decorator applies
        return functools.partial(primitives.call_in, runtime.ctx, applied)

    def frametext(source, local):  # eval/exec on this frame (`_leaving`)
        if entries or store.members or any(
                type(value) is Tagged and value.tag is tag for value in local.values()):
            return runtime.ctx.fallback(dropped, wrap(tag, source, None), FRAME_TEXT)
        return source

    def default(value):  # tagged while the run lasts (`_leaving`)
        layer = value  # (under a context run inside this one, that one's layer is outside)
        while type(layer) is Tagged:
            if layer.tag is tag:
                store.defaults.append(layer)
                break
            layer = layer.value
        return value

    def returning(value):  # what a generator returns, in its frame (`_channels`)
        if type(value) is not Tagged or value.tag is not tag:
            return value
        inner = channels.note_returned(tag, sys._getframe(1), value)
        if inner is not ABSENT:
            return inner
        if is_running(runtime.ctx):  # no consumer in the context awaits it (`_leaving`)
            return runtime.ctx.fallback(dropped, value, GENERATOR_RETURN)
        return value.value  # resumed after the run: plain, as what it yields

    def settled(value):  # what a coroutine returns (`_leaving`)
        if type(value) is Tagged and value.tag is tag and not is_running(runtime.ctx):
            return value.value
        return value

    def awaiting(source):  # `yield from source` (or `await`), in the delegating frame
        return channels.await_return(tag, source, sys._getframe(1))

    def returned(awaited, value):  # what that `yield from` evaluates to
        return channels.take_returned(tag, awaited, value)

    def yielded(value):  # called by a generator's own frame
        return channels.note_yielded(tag, sys._getframe(1), value)

    def received(value):  # what a `yield` evaluates to, in the generator's frame
        return channels.take_sent(tag, sys._getframe(1), value)

    return {"gload": gload, "gstore": gstore, "cload": cload, "cstore": cstore,
            "globals": globals, "plain": plain, "captured": captured,
            "locals": locals, "classname": classname, "classmaker": classmaker,
            "decorator": decorator, "frametext": frametext, "default": default,
            "yielded": yielded, "received": received, "returning": returning,
            "settled": settled, "awaiting": awaiting, "returned": returned,
            "kwargs": functools.partial(primitives.splatted, runtime.ctx),
            "delegate": functools.partial(primitives.delegate, runtime.ctx),
            **heap_paths(runtime.ctx, runtime.dispatch,
                         lambda operation: runtime.primitive_for(operation, operation))}


def _engine_functions() -> list:
    """The primitives' functions, whose native calls are compiled as such."""
    modules = {primitives.__name__, iterators.__name__, exceptions.__name__,
               classes.__name__}
    found = {f for module in (primitives, iterators, exceptions, classes)
             for f in vars(module).values()
             if isinstance(f, types.FunctionType) and f.__module__ in modules}
    found |= {f for f in BUILTINS.values()
              if isinstance(f, types.FunctionType) and f.__module__ in modules}
    return sorted(found, key=lambda f: f.__qualname__)


precompile([*_engine_functions(), Tag.call_foreign])
hide_frames_from(os.path.dirname(__file__))
