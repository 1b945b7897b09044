"""Exceptions built in a tagging context: their arguments keep their metadata.

`BaseException`'s C constructor keeps its arguments in a tuple, `error.args`,
and hands back that very tuple each time it is read. Built natively from values
carrying metadata, it would hold the plain values, and `error.args[0]` read back
in the context would have lost it. So building an exception is a store: the C
constructor runs on the plain values (`BaseException.__new__(cls, *args)`,
`BaseException.__init__(self, *args)`, a builtin exception class called), then
each argument's metadata is recorded for its slot of the `args` tuple, where a
read finds it again. (Assigning `error.args` is a store too: `setattr_`.) A
copy's attributes (`__setstate__`) are stores in the context as well.

Only the builtin exception types whose C code keeps the arguments nowhere but
in `args` are stores here: `Exception`, `ValueError`, `KeyError`, ... and so
every class made from them. Others copy an argument into a C field of their own
(`StopIteration.value`, `OSError.errno`, `SystemExit.code`), where it would be
read without its metadata: they stay foreign calls, which a layer may refuse.
"""

from __future__ import annotations

import builtins as native
import types

from contexts.layer import nativecalls
from tagging import _heap as heap
from tagging._primitives import setattr_

nativecalls(__name__, "heap", "native")


def exception_call(ctx, cls, *args, **kwargs):
    """`cls(*args)`: a builtin exception class called."""
    made, incoming = _built(ctx, cls, (), args, kwargs)
    heap.note_arguments(ctx.tag, made, incoming)
    return made


def _new(method):
    """The primitive for `method`, an exception type's `__new__`."""

    def exception_new(ctx, cls, *args, **kwargs):
        made, incoming = _built(ctx, method, (heap.own(cls, ctx.tag),), args, kwargs)
        heap.note_arguments(ctx.tag, made, incoming)
        return made

    return exception_new


def _init(method):
    """The primitive for `method`, an exception type's `__init__` (a subclass's
    `super().__init__(value)`)."""

    def exception_init(ctx, error, *args, **kwargs):
        error = heap.own(error, ctx.tag)
        result, incoming = _built(ctx, method, (error,), args, kwargs)
        heap.note_arguments(ctx.tag, error, incoming)
        return result

    return exception_init


def exception_setstate(ctx, error, state):
    """`BaseException.__setstate__(error, state)`, how a copy gets the original's
    attributes: C would set each natively; here each is a store in the context."""
    tag = ctx.tag
    state = heap.own(state, tag)
    if state is None:
        return
    if not native.isinstance(state, dict):
        raise TypeError("state is not a dictionary")
    for name, value in list(dict.items(state)):
        setattr_(ctx, error, name, heap.retag_value(tag, state, name, value))


def _built(ctx, construct, leading, args, kwargs):
    """(`construct(*leading, *args, **kwargs)` run on the plain values, the
    (value, metadata) pairs of `args`). A context running this one sees the call."""
    tag = ctx.tag
    incoming = [heap.split(a, tag) for a in args]
    result = construct(*leading, *[value for value, _ in incoming],
                       **{k: heap.own(v, tag) for k, v in dict.items(kwargs)})
    return result, incoming


def _keeps_arguments_in_args(kind: type) -> bool:
    """Whether the C code of the exception type `kind` keeps its arguments only in
    `args`: no class between it and `BaseException` has a data field of its own."""
    return all(not isinstance(attribute, _C_FIELDS)
               for klass in kind.__mro__ if klass not in (BaseException, object)
               for attribute in vars(klass).values())


_C_FIELDS = (types.MemberDescriptorType, types.GetSetDescriptorType)

BUILTINS: dict = {BaseException.__setstate__: exception_setstate}
for _kind in vars(native).values():
    if isinstance(_kind, type) and issubclass(_kind, BaseException) and \
            _keeps_arguments_in_args(_kind):
        BUILTINS[_kind] = exception_call
        if "__new__" in vars(_kind):
            BUILTINS[vars(_kind)["__new__"]] = _new(vars(_kind)["__new__"])
        if "__init__" in vars(_kind):
            BUILTINS[vars(_kind)["__init__"]] = _init(vars(_kind)["__init__"])
