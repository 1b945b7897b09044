"""How tagging plugs into the engine: its pass, its primitives, its cells.

Contexts with a tag get the tagging pass in their pipeline, the heap
primitives before their own `overdub`/`fallback` (a user `@primitive` on the
same function still wins), the cell helpers the pass refers to, and a
`fallback` that untags arguments.
"""

from __future__ import annotations

import functools
import operator
import os
import sys
import types
from typing import Any

from contexts import _api, _pipeline, _runtime, _tracebacks
from contexts._precompile import precompile
from tagging import _channels as channels
from tagging import _heap as heap
from tagging import _iterators as iterators
from tagging import _primitives as primitives
from tagging import _tag
from tagging._fast import heap_paths
from tagging._passes import tagging_pass
from tagging._tag import Tagged, rawest, wrap

TRANSPARENT = frozenset({_tag.tag, _tag.untag, _tag.metadata, _tag.hasmetadata,
                         _tag.istagged, _tag.hastagging, _tag.metadatatype,
                         _tag.enabletagging})
BUILTINS = {**primitives.BUILTINS, **iterators.BUILTINS}


def builtin_primitive(ctx: Any, key: Any, f: Any) -> Any:
    """What a tagging context runs for `key` before its own overdub, or None."""
    if key in TRANSPARENT or getattr(key, "__tagging_api__", False):
        return f
    found = BUILTINS.get(key)
    if found is None:
        return None
    return functools.partial(found, ctx, key) if isinstance(key, type) else \
        functools.partial(found, ctx)


def cell_values(runtime: Any) -> dict:
    """The helpers the tagging pass refers to, bound to one context."""
    if not runtime.profile.tagging:
        return {}
    ctx = runtime.ctx
    tag = ctx.tag
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

    def kwargs(mapping):  # `f(**mapping)`: a temporary dict of tagged values
        if type(mapping) is dict and store.slots(mapping):
            return {key: heap.retag(tag, value, store.lookup(mapping, key, value))
                    for key, value in mapping.items()}
        return mapping

    def yielded(value):  # called by a generator's own frame
        return channels.note_yielded(tag, sys._getframe(1), value)

    def received(value):  # what a `yield` evaluates to, in the generator's frame
        return channels.take_sent(tag, sys._getframe(1), value)

    return {"gload": gload, "gstore": gstore, "cload": cload, "cstore": cstore,
            "globals": globals, "plain": plain, "yielded": yielded, "received": received,
            "kwargs": kwargs,
            **heap_paths(ctx, runtime.dispatch,
                         lambda operation: runtime.primitive_for(operation, operation))}


_BUILDERS = frozenset({operator.add, operator.iadd, operator.mul, operator.imul,
                       operator.concat, operator.iconcat, operator.or_, operator.ior,
                       operator.and_, operator.iand, operator.sub, operator.isub,
                       operator.xor, operator.ixor})
_BUILT = (list, tuple, dict, set, frozenset)


def foreign_result(ctx: Any, f: Any, args: tuple, result: Any) -> Any:
    """What a foreign call returns; a container an operator built from containers
    keeps the metadata of the elements it took from them."""
    if type(result) in _BUILT and (ctx.tag.store.entries or ctx.tag.store.members):
        try:
            builder = f in _BUILDERS
        except TypeError:
            return result
        if builder:
            heap.carry_over(ctx.tag, args, result)
    return result


def untag_arguments(ctx: Any, args: tuple, kwargs: dict) -> tuple:
    """Arguments of a foreign call, without this context's tag.

    (A generator needs no wrapping: transformed generators yield plain values.)
    """
    tag = ctx.tag
    for value in args:
        if type(value) is Tagged:
            args = tuple([heap.own(a, tag) for a in args])
            break
    if kwargs:
        kwargs = {k: heap.own(v, tag) for k, v in kwargs.items()}
    return args, kwargs


_pipeline.TAGGING_PASSES.append(tagging_pass)
_runtime.EXTENSIONS.append(cell_values)
_runtime.BUILTIN_PRIMITIVES.append(builtin_primitive)
_api.UNTAG_ARGUMENTS.append(untag_arguments)
_api.FOREIGN_RESULTS.append(foreign_result)


def _engine_functions() -> list:
    """The primitives' functions, whose `nooverdub` markers are compiled away."""
    modules = {primitives.__name__, iterators.__name__}
    found = {f for module in (primitives, iterators) for f in vars(module).values()
             if isinstance(f, types.FunctionType) and f.__module__ in modules}
    found |= {f for f in BUILTINS.values()
              if isinstance(f, types.FunctionType) and f.__module__ in modules}
    return sorted(found, key=lambda f: f.__qualname__)


precompile(_engine_functions())
_tracebacks.ENGINE_PLACES.append(os.path.dirname(os.path.abspath(__file__)) + os.sep)
