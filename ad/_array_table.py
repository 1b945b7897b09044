"""The tangents of ndarrays: one table per derivative, keyed by memory owner.

An ndarray is never wrapped: it stays a plain object in frames and in the heap.
A derivative keeps, for each array *owner* (`a.base` followed while it is an
ndarray; the array itself when it owns its memory), a tangent buffer of the
owner's shape and dtype. The tangent of any array is the window of its owner's
buffer at the array's byte offset and strides, so views (slices, `.T`,
`.real`/`.imag`, reshapes, views made by C, views made before the owner had a
buffer) are right by construction, with no rule. An owner with no entry has a
zero tangent, never materialised unless written into.

Entries hold the owner by a weak reference whose callback removes the entry, so
the table keeps no dead array alive and a reused `id` finds nothing of an
earlier array. The table is emptied when its derivative ends (`_pool`).

This module is bookkeeping, called natively (`nativecalls`) by the array rules:
a derivative enclosing this one finds the outer tangent of a window through
`.base` (the window's owner is the inner buffer, which the outer table keys),
so memory keying composes without the enclosing derivative seeing these steps.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

_INEXACT = "fc"  # dtype kinds that carry tangents: float, complex


def numpy_module() -> Any:
    """numpy, if the program imported it (`import ad` never does)."""
    return sys.modules.get("numpy")


def owner(array: Any) -> Any:
    """The array that owns `array`'s memory (itself when it owns it)."""
    base = array.base
    if base is None:  # the commonest case, first
        return array
    ndarray = numpy_module().ndarray
    while isinstance(base, ndarray):
        array, base = base, base.base
    return array


def _of(ctx: Any) -> "Tangents":
    """The table of the derivative that `ctx` runs (made when first needed)."""
    found = ctx.__dict__.get("arrays")
    if found is None:
        found = ctx.__dict__["arrays"] = Tangents()
    return found


# The table of a context, as one call each (`table.window(ctx, a)`), so that code
# declaring `table` native (`nativecalls`) runs every step of it natively.

def window(ctx: Any, array: Any) -> Any:
    """`array`'s tangent in `ctx`: its window, or None (see `Tangents.window`)."""
    return _of(ctx).window(array)


def ensure(ctx: Any, array: Any) -> Any:
    """`array`'s tangent window in `ctx`, its owner given a zero buffer if it had none."""
    return _of(ctx).ensure(array)


def register(ctx: Any, own: Any, buffer: Any) -> None:
    _of(ctx).register(own, buffer)


def holds_any(ctx: Any) -> bool:
    """Whether any array has a tangent in `ctx`."""
    return bool(_of(ctx).entries)


def carries(dtype: Any) -> bool:
    """Whether arrays of `dtype` carry tangents (float and complex ones)."""
    return dtype.kind in _INEXACT


class Tangents:
    """One derivative's table: id(owner) -> (weak reference to owner, buffer)."""

    __slots__ = ("entries", "__weakref__")

    def __init__(self) -> None:
        self.entries: dict = {}

    def clear(self) -> None:
        self.entries.clear()

    def buffer(self, own: Any) -> Any:
        """The tangent buffer of the owner `own`, or None."""
        entry = self.entries.get(id(own))
        if entry is None or entry[0]() is not own:
            return None
        return entry[1]

    def register(self, own: Any, buffer: Any) -> None:
        """Give the owner `own` the tangent buffer `buffer`, of the same shape, dtype
        and memory layout (its views' windows are found by byte offset and strides).
        Raises ValueError for a buffer laid out otherwise."""
        if buffer.strides != own.strides or buffer.shape != own.shape:
            raise ValueError("an array laid out in memory otherwise than its tangent "
                             "cannot carry it; make a copy first: np.array(a)")
        key = id(own)
        entries = self.entries

        def forget(ref: Any, key: int = key) -> None:
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                del entries[key]

        entries[key] = (weakref.ref(own, forget), buffer)

    def window(self, array: Any) -> Any:
        """The tangent of `array`: the window of its owner's buffer, or None (a zero
        tangent). Raises ValueError for a view that reinterprets the owner's dtype."""
        if not self.entries:
            return None
        own = owner(array)
        buffer = self.buffer(own)
        if buffer is None:
            return None
        if own is array and array.shape == buffer.shape and array.strides == buffer.strides \
                and array.dtype == buffer.dtype:
            return buffer
        return _window(buffer, own, array)  # a view, or an owner reshaped in place

    def ensure(self, array: Any) -> Any:
        """The tangent window of `array`, giving its owner a zero buffer first if it
        has none (a value with a tangent is about to be written into it)."""
        numpy = numpy_module()
        own = owner(array)
        if self.buffer(own) is None:
            self.register(own, numpy.zeros_like(own, order="K", subok=False))
        return self.window(array)


def _window(buffer: Any, own: Any, array: Any) -> Any:
    """The part of `buffer` (laid out as `own`) that `array`, a view of `own`, sees."""
    numpy = numpy_module()
    if not carries(array.dtype) or \
            _real_size(array.dtype) != _real_size(buffer.dtype):
        raise ValueError(f"a view of a {buffer.dtype} array as {array.dtype} reinterprets "
                         "its bytes, which carries no derivative")
    offset = array.__array_interface__["data"][0] - own.__array_interface__["data"][0]
    return numpy.ndarray(array.shape, array.dtype, buffer=buffer, offset=offset,
                         strides=array.strides)


def _real_size(dtype: Any) -> int:
    """The size of one real number of `dtype` (a complex's part)."""
    return dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
