"""What a layer built on tagging may use beyond the tagging API (`ad` is one).

A context that decides what foreign calls may receive needs to know whether
a value carries its metadata anywhere: on itself, or in a slot of a container
or object it reaches (`carries_metadata`). The shadow store knows; this asks
it, and nothing here changes it. Such a context may let a container that an
operator built out of containers through (`keeps_element_metadata`;
`builds_containers` asks it of the operator before the call): its elements keep
their metadata. A context whose rules tag every result they compute wants `tag`
without its per-call checks (`tagger`); one reused for many runs gives itself a
fresh tag for each (`retag`). A `Tagged`
(exported by `tagging`) is read through its fields `value`, `meta` and `tag`
(`rawest` is the plain value under every tag); a context's tag is `ctx.tag`.
A context may read, write and iterate the items of some C containers itself
(`ad` does ndarrays', whose elements C converts): its class's `item_handlers`,
a dict from a container type to an object whose `getitem(ctx, container, key)`,
`setitem(ctx, container, key, value)`, `setattr(ctx, container, name, value)`,
`iterate(ctx, container)` and `carries(ctx, container)` tagging calls instead of
its own, for that type and its subclasses (the key and name given plain); and
`copy.copy` of one calls its class's `__copy__` in the context. That is the one
hook for a layer's own containers; `carries_metadata` asks `carries` too.
A generator tagging made for `iter(container)` reads the container as it steps
(`container_read_by`): C code given one takes what the container holds then.
A value carrying metadata that leaves transformed code by a route the metadata
cannot follow (a default argument value, a generator's return value) reaches
the context's `fallback` as a call of `dropped(value, route)`; `WAYS_OUT[route]`
says how to write it so that the metadata is kept.
"""

from __future__ import annotations

import types
from typing import Any, Callable

from contexts.layer import nativecalls
from tagging._heap import PROXY, VIEWS, proxied, stored, view_mapping
from tagging._routes import namespace_of
from tagging._layer import Tag, builds_containers, keeps_element_metadata
from tagging._leaving import WAYS_OUT, dropped
from tagging._primitives import READERS, handler_of
from tagging._store import fresh
from tagging._tag import tag
from tagging._tagged import Tagged, rawest, transparent

__all__ = ["carries_metadata", "container_read_by", "builds_containers",
           "keeps_element_metadata", "tagger", "rawest", "dropped", "WAYS_OUT", "retag"]

# a context running another's walk sees no read of these (`gc.get_referents` of a view)
nativecalls(__name__, "_ARGS", "view_mapping", "proxied", "handler_of", "stored")
_new = object.__new__
_ARGS = BaseException.args

_WALKED = (list, tuple, dict, set, frozenset)
# Modules, classes and functions are not data a call is given: their slots
# (globals, class attributes) are the program's, not the argument's.
_NOT_WALKED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)


def carries_metadata(value: Any, ctx: Any) -> bool:
    """Whether `value` is tagged for `ctx`, or holds, in a slot of a list, tuple,
    dict, set, object or an exception's `args` at any depth, a value that `ctx`
    stored there with metadata (and that the slot still holds); a dict's view and
    a mappingproxy hold what they show."""
    tag = ctx.tag
    if type(value) is Tagged:
        return value.tag is tag
    store = tag.store
    handlers = getattr(type(ctx), "item_handlers", None) or {}
    if not (store.entries or store.members or handlers):
        return False
    return _holds(store, value, ctx, handlers)


def container_read_by(generator: Any) -> Any:
    """The list, deque or dict view that `generator` reads, when tagging made it for
    `iter(container)` (each step reads the slot's metadata as it gets there), else
    None. C code iterating it natively takes what the container holds then: it
    carries what the container carries (`carries_metadata`), where any other
    generator may yield a value whose metadata only a consumer in the context takes."""
    return READERS.get(generator) if type(generator) is types.GeneratorType else None


def _holds(store: Any, value: Any, ctx: Any, handlers: dict) -> bool:
    """The walk of `carries_metadata`: every container and object `value` reaches,
    each once, however deep (a loop, not recursion, so depth costs no stack); a
    container the context handles itself (`item_handlers`) is asked."""
    seen: set = set()
    pending = [value]
    while pending:
        value = pending.pop()
        if id(value) in seen or isinstance(value, _NOT_WALKED):
            continue
        seen.add(id(value))
        handler = handlers and handler_of(ctx, value)
        if handler:
            if handler.carries(ctx, value):
                return True
            continue
        if isinstance(value, BaseException):  # the tuple C keeps its arguments in
            pending.append(_ARGS.__get__(value))
        if isinstance(value, VIEWS):  # a dict's view reads the dict's slots
            pending.append(view_mapping(value))
            continue
        if type(value) is PROXY:  # a mappingproxy reads its mapping's, or its class's
            value = proxied(value)
        namespace = namespace_of(value)
        # An object's slots are its `__dict__`'s; a container's are its own, and a
        # container with a `__dict__` (an OrderedDict, a list subclass) has both.
        containers = [value] if isinstance(value, _WALKED) else []
        if type(namespace) is dict:
            containers.append(namespace)
        elif not containers:
            containers.append(value)
        for container in containers:
            for slot, (raw, _meta) in (store.slots(container) or {}).items():
                if _still_holds(container, slot, raw):
                    return True
        if store.slots(value, store.members):
            return True
        for container in containers:
            if isinstance(container, dict):
                children = container.values()
            elif isinstance(container, _WALKED):
                children = container
            else:
                continue
            pending.extend(child for child in list(children)
                           if isinstance(child, _WALKED) or hasattr(child, "__dict__")
                           or handlers and handler_of(ctx, child))
    return False


def _still_holds(container: Any, slot: Any, raw: Any) -> bool:
    try:
        return stored(container, slot) is raw
    except (LookupError, TypeError):
        return getattr(container, slot, None) is raw if type(slot) is str else False


def retag(ctx: Any) -> None:
    """Give the tagging context `ctx` a fresh tag, in place: a context reused for
    another run (its resolved callees and bound code kept) that must not confuse
    that run's values with an earlier one's. Reuse only a context that is idle
    (`contexts.layer.idle`): a generator of an earlier run would go on under the
    fresh tag. The metadata types the old tag accepted are the context type's: the
    new one starts with them (each is checked again when a context class changes)."""
    ctx.tag = Tag(type(ctx).__name__, accepted=ctx.tag.accepted)


def tagger(ctx: Any) -> Callable[[Any, Any], Tagged]:
    """`tag(value, ctx, meta)` for one context, as `tagger(ctx)(value, meta)`, its
    checks done once per (value type, metadata type). Like `tag`, a context
    running another's code calls it as it is, without looking into it."""
    accepted: set = set()  # (value type, metadata type) pairs `tag` took
    # the pair last found in `accepted`: two identity tests, where building the pair
    # and hashing it costs about a third of a call (a rule's pair is nearly always
    # the previous rule's: float and float)
    last_kind = last_meta_kind = None

    def tag_for_ctx(value: Any, meta: Any) -> Tagged:
        nonlocal last_kind, last_meta_kind
        kind = type(value)
        if kind is not last_kind or type(meta) is not last_meta_kind:
            if (kind, type(meta)) not in accepted:
                tagged = tag(value, ctx, meta)
                if kind is not Tagged and type(meta) is not Tagged:
                    accepted.add((kind, type(meta)))
                return tagged
            last_kind, last_meta_kind = kind, type(meta)
        tagged = _new(Tagged)
        tagged.tag = ctx.tag  # the context's tag when it runs (`retag`)
        tagged.value = value * 1.0 if kind is float else fresh(value)
        tagged.meta = meta
        return tagged

    return transparent(tag_for_ctx)
