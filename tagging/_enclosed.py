"""The heap primitives of a tagging context as a context enclosing it runs them.

Run transformed by an enclosing context (a derivative of a derivative), a
primitive's own bookkeeping (which slot keeps which metadata of this context)
costs the enclosing context dozens of operations for each one, and its cost
multiplies with every level of nesting. So each primitive here says how an
enclosing context without hooks or passes runs it (`enclosed`): natively, its
store read and written as at depth one, and the heap operation itself made
through the enclosing context's resolution (`outer`), so the enclosing context
keeps its own metadata of what is read or stored. Where the operation may run
Python code (a property, a `__getattr__`), the general primitive runs, as the
enclosing context runs it, seeing every step. Each built function says the same
for a context enclosing that one: its callees resolved there in turn.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable

from contexts.layer import GETTERS, dispatched, enclosed, nativecalls
from tagging import _heap as heap
from tagging import _markers as markers
from tagging import _primitives as primitives
from tagging._store import ABSENT
from tagging._tagged import Tagged

nativecalls(__name__, "heap", "GETTERS")


def getattr_enclosed(ctx: Any, outer: Callable) -> Callable:
    """`obj.name` (and `getattr(obj, name)`) of `ctx`, run natively by the context
    whose resolution is `outer`: an attribute found without Python code, on an
    object that is no tagged value, is read by that context's own `getattr` and
    given `ctx`'s metadata of its slot."""
    read = outer(getattr)
    general = dispatched(outer, functools.partial(primitives.getattr_, ctx))

    def load(obj, name, *default):
        if not default and type(obj) is not Tagged:
            route = GETTERS.get((type(obj), name))  # (route, check): see `getter_route`
            if route is not None and route[0] is None and \
                    (route[1] is None or route[1]()):
                return heap.load_attribute(ctx.tag, obj, name, read(obj, name))
        return general(obj, name, *default)

    return enclosed(load, lambda further: getattr_enclosed(ctx, _through(further, outer)))


def getitem_enclosed(ctx: Any, outer: Callable) -> Callable:
    """`container[key]` of `ctx`, run natively by the context whose resolution is
    `outer`: an exact list or tuple indexed by an int is read by that context's own
    `operator.getitem` and given `ctx`'s metadata of its slot."""
    read = outer(operator.getitem)
    general = dispatched(outer, functools.partial(primitives.getitem, ctx))

    def load(container, key):
        kind = type(container)
        if type(key) is int and (kind is list or kind is tuple):
            return heap.load_item(ctx.tag, container, key, read(container, key))
        return general(container, key)

    return enclosed(load, lambda further: getitem_enclosed(ctx, _through(further, outer)))


def display_enclosed(marker: Callable) -> Callable:
    """`[a, b]` (`marker` is `display_list`) or `(a, b)` (`display_tuple`) of a
    context, as the context whose resolution is `outer` runs it: the items, this
    context's tag taken off, displayed by that context's own display, and this
    context's metadata of each recorded for its slot of what that gives."""
    def form(ctx: Any, outer: Callable) -> Callable:
        build = outer(marker)

        def display(*items):
            tag = ctx.tag
            pairs = [heap.split(item, tag) for item in items]
            made = build(*[value for value, _ in pairs])
            for index, (value, meta) in enumerate(pairs):
                if meta is not ABSENT:
                    heap.record(tag, made, index, value, meta)
            return made

        return enclosed(display, lambda further: form(ctx, _through(further, outer)))

    return form


def built_from(ctx: Any, outer: Callable, cls: type) -> Callable:
    """`list(items)` or `tuple(items)` of `ctx` (`cls`), run natively by the context
    whose resolution is `outer`: of an exact list or tuple, that context's own
    `cls(items)` (its metadata of each element follows it), given `ctx`'s metadata
    of each element by position; anything else by the general primitive."""
    build = outer(cls)
    general = dispatched(outer, functools.partial(primitives.BUILTINS[cls], ctx, cls))

    def construct(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            items, = args
            kind = type(items)
            if kind is list or kind is tuple:
                made = build(items)
                heap.copy_slots(ctx.tag, items, made)
                return made
        return general(*args, **kwargs)

    return enclosed(construct,
                    lambda further: built_from(ctx, _through(further, outer), cls))


def _through(further: Callable, outer: Callable) -> Callable:
    """The resolution of a context enclosing the one `outer` resolves for: a callee
    as the nearer one runs it, as the farther one runs that."""
    return lambda f: further(outer(f))


# The primitives (`_primitives.BUILTINS`' values) with a form of their own for an
# enclosing context: `form(ctx, outer, *leading)` (`leading`: a constructor's class).
FORMS: dict = {primitives.getattr_: getattr_enclosed, primitives.getitem: getitem_enclosed,
               primitives.display_list: display_enclosed(markers.display_list),
               primitives.display_tuple: display_enclosed(markers.display_tuple),
               primitives.from_list: built_from, primitives.tuple_from: built_from}


def primitive(found: Callable, ctx: Any, *leading: Any) -> Callable:
    """The primitive `found` of `ctx`, told the context and `leading` (the class of
    a constructor's), as a partial of them would be, which a context enclosing
    `ctx` runs in its form of `FORMS`."""
    def run(*args, **kwargs):
        return found(ctx, *leading, *args, **kwargs)

    return enclosed(run, lambda outer: FORMS[found](ctx, outer, *leading))
