"""Generator channels: metadata of what a generator yields or is sent.

A generator made by transformed code yields plain values: a tagged value it
yields leaves its metadata in the store, under the generator's frame, and a
consumer in the context takes it from there. So a generator that outlives the
run never hands outside code a `Tagged`. A tagged value sent to a generator
reaches it plain too, its metadata left in the store for the frame that
receives it, while the send runs.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from tagging._heap import split
from tagging._store import ABSENT
from tagging._tagged import rawest, wrap

if TYPE_CHECKING:  # annotations only: the layer imports this module
    from tagging._layer import Tag


def note_yielded(tag: Tag, frame: Any, value: Any) -> Any:
    """What a generator frame yields: the plain value; its metadata goes to the store."""
    inner, meta = split(value, tag)
    if meta is ABSENT:
        tag.store.yielded.pop(id(frame), None)
    else:
        tag.store.yielded[id(frame)] = (frame.f_code, rawest(inner), meta)
    return inner


def take_yielded(tag: Tag, generator: Any, value: Any) -> Any:
    """`value`, just produced by `generator`, with the metadata it was yielded with."""
    frame = _running_frame(generator)
    if frame is None or not tag.store.yielded:
        return value
    found = tag.store.yielded.get(id(frame))
    if found is None or found[0] is not frame.f_code or found[1] is not rawest(value):
        return value
    del tag.store.yielded[id(frame)]
    return wrap(tag, value, found[2])


def _running_frame(generator: Any) -> Any:
    """The frame of the generator that `generator` delegates to (`yield from`), or its own."""
    while type(generator.gi_yieldfrom) is types.GeneratorType:
        generator = generator.gi_yieldfrom
    return generator.gi_frame


def note_sent(tag: Tag, generator: Any, value: Any) -> tuple:
    """Before `generator.send(value)`: (the plain value to send, the key under which
    its metadata waits for the receiving frame, or None)."""
    inner, meta = split(value, tag)
    frame = _running_frame(generator)
    if meta is ABSENT or frame is None:
        return inner, None
    tag.store.sent[id(frame)] = (rawest(inner), meta)
    return inner, id(frame)


def forget_sent(tag: Tag, key: Any) -> None:
    """After the send: metadata the receiving frame did not take is dropped."""
    if key is not None:
        tag.store.sent.pop(key, None)


def take_sent(tag: Tag, frame: Any, value: Any) -> Any:
    """`value`, what a `yield` in `frame` evaluates to, with the metadata it was sent with."""
    if not tag.store.sent:
        return value
    found = tag.store.sent.pop(id(frame), None)
    if found is None or found[0] is not rawest(value):
        return value
    return wrap(tag, value, found[1])
