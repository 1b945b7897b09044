"""The hidden cells of the tagging layer: their declarations, and their builders.

The tagging pass (`_passes`) writes each of these names, taken from the table
(`TAGGING_CELLS.hidden`); the engine builds a cell's value for a runtime of a
tagging context when code naming it is bound there, and again for each fresh
tag of that context (`per_layer`) if it was built: a derivative pays for the
cells its code uses, not for all two dozen. The cells nearly every run calls
(`gload`, `cload`, `aload`, `iter`, `method`) read the tag from the context
when called instead, and a fresh tag builds none of them: an attribute read a
call, against rebuilding each (about 0.7 µs a cell) for every derivative.
"""

from __future__ import annotations

import builtins
import functools
import sys
from typing import Any, Callable

from contexts.layer import Cell, Cells, eval_on_frame, is_running
from tagging import _channels as channels
from tagging import _classes as classes
from tagging import _fast as fast
from tagging import _heap as heap
from tagging import _primitives as primitives
from tagging._leaving import FRAME_TEXT, GENERATOR_RETURN, PATTERN_READ, dropped
from tagging._patterns import read_by_python, recaptured
from tagging._reach import carries_metadata
from tagging._store import ABSENT
from tagging._tagged import Tagged, rawest, wrap


def _global_load(runtime: Any) -> Callable:
    ctx = runtime.ctx

    def gload(namespace, key, value):  # also for cells: (cell, 0)
        tag = ctx.tag  # read when called: a fresh tag builds nothing (`Cell.per_layer`)
        entry = tag.store.entries.get(id(namespace))
        if entry is None:
            return value
        found = entry[1].get(key)
        if found is None or found[0] is not (
                rawest(value) if type(value) is Tagged else value):
            return value
        return wrap(tag, value, found[1])

    return gload


def _global_store(runtime: Any) -> Callable:
    tag = runtime.layer
    store = tag.store
    entries = store.entries

    def gstore(namespace, key, value):  # also for cells: (cell, 0)
        if type(value) is Tagged and value.tag is tag:
            store.record(namespace, key, rawest(value.value), value.meta)
            return value.value
        if entries:
            store.forget(namespace, key)
        return value

    return gstore


def _cell_load(runtime: Any) -> Callable:
    gload = runtime.value("gload")

    def cload(cell, value):
        return gload(cell, 0, value)

    return cload


def _cell_store(runtime: Any) -> Callable:
    gstore = runtime.value("gstore")

    def cstore(cell, value):
        return gstore(cell, 0, value)

    return cstore


def _plain(runtime: Any) -> Callable:
    tag = runtime.layer

    def plain(value):
        return heap.own(value, tag)

    return plain


def _captured(runtime: Any) -> Callable:
    tag = runtime.layer
    entries = tag.store.entries
    ctx = runtime.ctx

    def captured(value, subject, path):  # what a `case` pattern bound (`_patterns`)
        if not entries and type(subject) is not Tagged:
            return value
        if read_by_python(subject, path) and carries_metadata(subject, ctx):
            ctx.fallback(dropped, subject, PATTERN_READ)
        return recaptured(tag, value, subject, path)

    return captured


def _class_name(runtime: Any) -> Callable:
    gload = runtime.value("gload")

    def classname(namespace, key, container, slot, value):  # a class body's read
        if key in namespace:
            return gload(namespace, key, value)
        return gload(container, slot, value)

    return classname


def _class_maker(runtime: Any) -> Callable:
    def classmaker(given, spread):  # a class statement's metaclass (`_classes`)
        return classes.statement(runtime.ctx, given, spread)

    return classmaker


def _decorator(runtime: Any) -> Callable:
    def decorator(applied):  # what a `def` or `class` statement's decorator applies
        return functools.partial(primitives.call_in, runtime.ctx, applied)

    return decorator


def _frame_text(runtime: Any) -> Callable:
    tag = runtime.layer
    store = tag.store
    entries = store.entries
    ctx = runtime.ctx

    def frametext(callee, source, globals, local, names, *values):  # `eval(text)`
        """What the call site `eval(text)` or `exec(text)` calls. The builtin given no
        namespace runs on the caller's globals and `locals()` dict, as CPython runs
        it: `eval` in the context where it can (`eval_on_frame`; `names` and
        `values`: the variables held in cells, as the frame reads them; `names` is
        None in a class body), otherwise natively, refused while a value carrying
        the derivative is live (`_leaving`). Any other callee named so is called as
        any call."""
        if callee is not builtins.eval and callee is not builtins.exec:
            return functools.partial(callee, source)
        made = eval_on_frame(source, globals, local, dict(zip(names, values))) \
            if callee is builtins.eval and names is not None else None
        if made is not None:
            function, arguments = made
            return functools.partial(function, *arguments)
        if entries or store.members or any(
                type(value) is Tagged and value.tag is tag for value in local.values()):
            source = ctx.fallback(dropped, wrap(tag, source, None), FRAME_TEXT)
        return functools.partial(callee, source, globals, local)

    return frametext


def _frame_locals(runtime: Any) -> Callable:
    def framelocals(local, names, *values):  # `locals()`, `vars()`
        """The caller's `locals()` with its variables held in cells as the frame reads
        them, their metadata on (C fills the dict from the cells, which hold plain
        values: the store keeps their metadata); the unbound ones are not in it."""
        for name, value in zip(names, values):
            if name in local:
                local[name] = value
        return local

    return framelocals


def _default(runtime: Any) -> Callable:
    tag = runtime.layer
    store = tag.store

    def default(value):  # tagged while the run lasts (`_leaving`)
        layer = value  # (under a context run inside this one, that one's layer is outside)
        while type(layer) is Tagged:
            if layer.tag is tag:
                store.defaults.append(layer)
                break
            layer = layer.value
        return value

    return default


def _returning(runtime: Any) -> Callable:
    tag = runtime.layer

    def returning(value):  # what a generator returns, in its frame (`_channels`)
        if type(value) is not Tagged or value.tag is not tag:
            return value
        inner = channels.note_returned(tag, sys._getframe(1), value)
        if inner is not ABSENT:
            return inner
        if is_running(runtime.ctx):  # no consumer in the context awaits it (`_leaving`)
            return runtime.ctx.fallback(dropped, value, GENERATOR_RETURN)
        return value.value  # resumed after the run: plain, as what it yields

    return returning


def _settled(runtime: Any) -> Callable:
    tag = runtime.layer

    def settled(value):  # what a coroutine returns (`_channels`, `_leaving`)
        if type(value) is not Tagged or value.tag is not tag:
            return value
        if not is_running(runtime.ctx):
            return value.value
        return channels.note_settled(tag, sys._getframe(1), value)

    return settled


def _awaiting(runtime: Any) -> Callable:
    tag = runtime.layer

    def awaiting(source):  # `yield from source` (or `await`), in the delegating frame
        return channels.await_source(tag, source, sys._getframe(1))

    return awaiting


def _returned(runtime: Any) -> Callable:
    tag = runtime.layer

    def returned(awaited, value):  # what that `yield from` evaluates to
        return channels.take_awaited(tag, awaited, value)

    return returned


def _yielded(runtime: Any) -> Callable:
    tag = runtime.layer

    def yielded(value):  # called by a generator's own frame
        return channels.note_yielded(tag, sys._getframe(1), value)

    return yielded


def _received(runtime: Any) -> Callable:
    tag = runtime.layer

    def received(value):  # what a `yield` evaluates to, in the generator's frame
        return channels.take_sent(tag, sys._getframe(1), value)

    return received


# The hidden cells the tagging pass (`_passes`) writes, and what fills them.
TAGGING_CELLS = Cells(
    Cell("gload", _global_load, "a global's or a closure cell's load"),
    Cell("gstore", _global_store, "a global's or a closure cell's store", per_layer=True),
    Cell("cload", _cell_load, "a closure cell's load"),
    Cell("cstore", _cell_store, "a closure cell's store", per_layer=True),
    Cell("globals", lambda runtime: globals, "the module a global is in"),
    Cell("plain", _plain, "an f-string field, a match subject: untagged", per_layer=True),
    Cell("captured", _captured, "what a case pattern captured (_patterns)", per_layer=True),
    Cell("locals", lambda runtime: locals, "a class body's namespace"),
    Cell("classname", _class_name, "a name a class body reads (_classes)"),
    Cell("classmaker", _class_maker, "a class statement's metaclass (_classes)"),
    Cell("decorator", _decorator, "a decorator, applied in the context"),
    Cell("frametext", _frame_text, "eval/exec on the frame (_leaving)", per_layer=True),
    Cell("framelocals", _frame_locals, "locals(), vars() of a frame with cell variables"),
    Cell("default", _default, "a nested function's defaults (_leaving)", per_layer=True),
    Cell("yielded", _yielded, "what a generator yields (_channels)", per_layer=True),
    Cell("received", _received, "what a yield is sent (_channels)", per_layer=True),
    Cell("returning", _returning, "what a generator returns (_channels)", per_layer=True),
    Cell("settled", _settled, "what a coroutine returns (_channels)", per_layer=True),
    Cell("awaiting", _awaiting, "yield from, await: the source (_channels)", per_layer=True),
    Cell("returned", _returned, "yield from, await: its value (_channels)", per_layer=True),
    Cell("kwargs", lambda runtime: functools.partial(primitives.splatted, runtime.ctx),
         "f(**mapping)"),
    Cell("delegate", lambda runtime: functools.partial(primitives.delegate, runtime.ctx),
         "yield from a container"),
    Cell("awaitable", lambda runtime: functools.partial(primitives.awaitable, runtime.ctx),
         "await: a Python __await__, called in the context"),
    Cell("aload", fast.attribute_load, "obj.name"),
    Cell("astore", fast.attribute_store, "obj.name = value", per_layer=True),
    Cell("iload", fast.item_load, "container[key]", per_layer=True),
    Cell("istore", fast.item_store, "container[key] = value", per_layer=True),
    Cell("method", fast.method_call, "obj.name(...)"),
    Cell("iter", lambda runtime: fast.iteration(runtime, reported=True),
         "iteration (the engine's own `iter` cell, for a tagging context)"),
    Cell("quiet_iter", lambda runtime: fast.iteration(runtime, reported=False),
         "a model's iteration"),
)
