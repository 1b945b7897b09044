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
import types
from collections import deque
from typing import Any, Callable

import attrs

from contexts.layer import Layer, hide_frames_from, nativecalls, precompile
from tagging import _enclosed as enclosing
from tagging import _classes as classes
from tagging import _exceptions as exceptions
from tagging import _heap as heap
from tagging import _iterators as iterators
from tagging import _primitives as primitives
from tagging._cells import TAGGING_CELLS
from tagging._leaving import plain_defaults
from tagging._passes import tagging_pass
from tagging._store import Store
from tagging._tagged import Tagged

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
    cells = TAGGING_CELLS

    def __repr__(self) -> str:
        return f"Tag({self.context_name}#{self.serial})"

    def builtin(self, ctx: Any, key: Any, f: Callable) -> Callable | None:
        if getattr(key, "__tagging_api__", False):
            return f
        found = BUILTINS.get(key) or primitives.named(key)
        if found is None:
            return None
        leading = (key,) if isinstance(key, type) else ()
        if found in enclosing.FORMS:
            return enclosing.primitive(found, ctx, *leading)
        return functools.partial(found, ctx, *leading)

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
