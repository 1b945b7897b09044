"""Generator channels: metadata of what a generator yields, is sent or returns.

A generator made by transformed code yields plain values: a tagged value it
yields leaves its metadata in the store, under the generator's frame, and a
consumer in the context takes it from there. So a generator that outlives the
run never hands outside code a `Tagged`. A tagged value sent to a generator
reaches it plain too, its metadata left in the store for the frame that
receives it, while the send runs.

What a generator returns is plain as well (C keeps it in a `StopIteration`, or
hands it to the `yield from` that delegated), and its metadata goes to the
consumer in the context that awaits it: the consumer says so before it resumes
the generator (`await_return`), and takes the metadata once it has returned. A
`next`, `send` or `throw` awaits it while the step runs, and gives the
`StopIteration` the metadata in its `value` and `args[0]`; a `yield from` (or an
`await`) awaits it for as long as it delegates, from the frame the generator
returns to, and evaluates to the value with its metadata. A value carrying
metadata that no consumer awaits (C code drives the generator: `gen.close()`,
a `for` loop, `list(gen)`) is the caller's to refuse (`_leaving`), while the
run lasts.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import TYPE_CHECKING, Any

from tagging._heap import note_argument, note_attribute, split
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


class Awaited:
    """A generator whose return value a consumer in the context awaits: its frame
    (held, so that no other frame takes its id), the frame it must return to (a
    `yield from`'s; None while a `next`, `send` or `throw` runs it), what it
    returned (raw value and metadata, once it has), and the consumer that awaited
    it before (a `yield from` delegating to it while a `next` runs it)."""

    __slots__ = ("frame", "consumer", "raw", "meta", "before")

    def __init__(self, frame: Any, consumer: Any, before: Awaited | None) -> None:
        self.frame, self.consumer, self.before = frame, consumer, before
        self.raw = self.meta = ABSENT


def await_return(tag: Tag, source: Any, consumer: Any = None) -> Awaited | None:
    """Before a consumer resumes `source` (or delegates to it): the `Awaited` that
    keeps the metadata of what it returns, or None if `source` is no generator (or
    coroutine) that can return to it."""
    kind = type(source)
    if kind is types.GeneratorType and not source.gi_running:
        frame = source.gi_frame
    elif kind is types.CoroutineType and not source.cr_running:
        frame = source.cr_frame
    else:
        return None
    if frame is None:
        return None
    returns = tag.store.returns
    awaited = returns[id(frame)] = Awaited(frame, consumer, returns.get(id(frame)))
    return awaited


def forget_awaited(tag: Tag, awaited: Awaited | None) -> None:
    """After the consumer of `awaited` is done with it: the one before awaits again."""
    returns = tag.store.returns
    if awaited is not None and returns.get(id(awaited.frame)) is awaited:
        if awaited.before is None:
            del returns[id(awaited.frame)]
        else:
            returns[id(awaited.frame)] = awaited.before


def note_returned(tag: Tag, frame: Any, value: Any) -> Any:
    """What a generator frame returns: the plain value, its metadata kept for the
    consumer that awaits it; ABSENT if it carries metadata that no consumer awaits."""
    inner, meta = split(value, tag)
    if meta is ABSENT:
        return inner
    awaited = tag.store.returns.get(id(frame))
    if awaited is None or awaited.consumer is not None and frame.f_back is not awaited.consumer:
        return ABSENT
    awaited.raw, awaited.meta = rawest(inner), meta
    return inner


def take_returned(tag: Tag, awaited: Awaited | None, value: Any) -> Any:
    """`value`, what a `yield from` (or `await`) that awaited a generator's return
    evaluates to, with the metadata it was returned with."""
    if awaited is None:
        return value
    forget_awaited(tag, awaited)
    if awaited.meta is ABSENT or awaited.raw is not rawest(value):
        return value
    return wrap(tag, value, awaited.meta)


def note_stop(tag: Tag, awaited: Awaited | None, stop: StopIteration) -> None:
    """`stop` ended the generator `awaited` waited for: its `value` and `args[0]`
    (C holds the returned value in both) keep the metadata it was returned with."""
    if awaited is None or awaited.meta is ABSENT or stop.value is not awaited.raw:
        return
    note_attribute(tag, stop, "value", awaited.meta)
    note_argument(tag, stop, 0, awaited.raw, awaited.meta)


# Futures and tasks ----------------------------------------------------------------

RESULT = object()  # the store's slot of a future's result (a C field of the future)


def is_future(value: Any) -> bool:
    """Whether `value` is an asyncio future (a task too): its class has the attribute
    `asyncio.isfuture` looks for."""
    return getattr(type(value), "_asyncio_future_blocking", None) is not None


def note_settled(tag: Tag, frame: Any, value: Any) -> Any:
    """What a coroutine frame returns while the run lasts, `value` tagged by `tag`:
    plain if it returns to the asyncio task that drives it (C keeps it in the
    task), its metadata recorded for the task's result; plain if a consumer in the
    context awaits it (an `await`, or `coro.send` by hand, whose `StopIteration`
    C keeps), its metadata kept for that consumer, as a generator's; else as it is
    (C code steps it: it is handed on to the `await` C resumes)."""
    task = _task_driving(frame)
    if task is not None:
        _record_result(tag, task, value.value, value.meta)
        return value.value
    if id(frame) in tag.store.returns:  # an `await`, a `send` or `throw` in the context
        inner = note_returned(tag, frame, value)
        if inner is not ABSENT:
            return inner
    return value


def _task_driving(frame: Any) -> Any:
    """The running C asyncio task whose own coroutine runs in `frame`, or None. No
    task runs unless asyncio was imported: it is not imported for this. (A task
    written in Python, `asyncio.tasks._PyTask`, stores the result through the
    context: the value goes to it as it is.)"""
    tasks = sys.modules.get("asyncio.tasks")
    loop = tasks and tasks.events._get_running_loop()
    if loop is None:
        return None
    task = tasks.current_task(loop)
    if not isinstance(task, getattr(tasks, "_CTask", ())) or \
            getattr(task.get_coro(), "cr_frame", None) is not frame:
        return None
    return task


def note_result(tag: Tag, future: Any, value: Any, meta: Any) -> None:
    """After `future.set_result(value)`: its metadata for the future's result."""
    if meta is ABSENT:
        tag.store.forget(future, RESULT)
    else:
        _record_result(tag, future, value, meta)


def _record_result(tag: Tag, future: Any, value: Any, meta: Any) -> None:
    tag.store.record(future, RESULT, rawest(value), meta)


def take_result(tag: Tag, future: Any, value: Any) -> Any:
    """`value`, the result just read from `future`, with the metadata it was set with."""
    meta = tag.store.lookup(future, RESULT, rawest(value))
    return value if meta is ABSENT else wrap(tag, value, meta)


class Awaiting:
    """What `await obj` awaits when `obj`'s class has a Python `__await__`: CPython
    would call it natively, out of the context (`yield; return self.v` would read
    the heap plain), so the context calls it (`_primitives.awaitable`), and this
    hands over the iterator it returned."""

    __slots__ = ("iterator",)

    def __init__(self, iterator: Any) -> None:
        self.iterator = iterator

    def __await__(self) -> Any:
        return self.iterator


def await_source(tag: Tag, source: Any, consumer: Any) -> Any:
    """Before a `yield from` (or `await`) of `source`: what tells `take_awaited`
    where the metadata of its value is (a future, whose result has it in the
    store, also behind the iterator its `__await__` gives; the `Awaited` of a
    generator's return), or None."""
    if type(source) is Awaiting:
        source = _future_of(source.iterator) or source.iterator
    if type(source) is not types.GeneratorType and is_future(source):
        return source
    return await_return(tag, source, consumer)


def _future_of(iterator: Any) -> Any:
    """The future whose C iterator `iterator` is (`task.__await__()`), or None."""
    if type(iterator) is types.GeneratorType:
        return None
    return next((held for held in gc.get_referents(iterator) if is_future(held)), None)


def take_awaited(tag: Tag, awaited: Any, value: Any) -> Any:
    """`value`, what that `yield from` (or `await`) evaluates to, with its metadata:
    that of the generator's return, of the future's result, or, delegating to an
    iterator that C code made, that of the future's result it is, if it is one."""
    if type(awaited) is Awaited:
        return take_returned(tag, awaited, value)
    if awaited is not None:
        return take_result(tag, awaited, value)
    return value
