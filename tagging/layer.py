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

from tagging._layer import Tag, builds_containers, keeps_element_metadata
from tagging._leaving import WAYS_OUT, dropped
from tagging._primitives import READERS
from tagging._reach import carries_metadata
from tagging._store import fresh
from tagging._tag import tag
from tagging._tagged import Tagged, rawest, transparent

__all__ = ["carries_metadata", "container_read_by", "builds_containers",
           "keeps_element_metadata", "tagger", "rawest", "dropped", "WAYS_OUT", "retag"]

_new = object.__new__


def container_read_by(generator: Any) -> Any:
    """The list, deque or dict view that `generator` reads, when tagging made it for
    `iter(container)` (each step reads the slot's metadata as it gets there), else
    None. C code iterating it natively takes what the container holds then: it
    carries what the container carries (`carries_metadata`), where any other
    generator may yield a value whose metadata only a consumer in the context takes."""
    return READERS.get(generator) if type(generator) is types.GeneratorType else None


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
