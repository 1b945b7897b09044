"""Reads, writes and iteration of ndarrays' items, and their methods, in a derivative.

Tagging hands an ndarray's item reads, writes, attribute writes and iteration to
its context's `item_handlers` (its one hook for a layer's containers): `ArrayItems`
gives an element read its tangent (a numpy scalar tagged with `T[i]`, a view its
window, a copy its own buffer), and a write writes the primal, then the value's
tangent (or 0 for a constant) into the window at the same index. `a.flat` is
refused where a derivative is involved. An ndarray's methods reach the context's
`fallback` as bound C methods (`foreign`): a model over the ruled functions runs
in the context (`a.sum(axis=0)` is `np.sum(a, axis=0)`), or they are refused.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from contexts import recurse
from contexts.layer import nativecalls
from tagging import Tagged
from tagging.layer import carries_metadata

from ad import _array_table as table
from ad._arrays import (METHOD_MODELS, argument_tangent, attach, call, carried, carries_tangent,
                        is_array_function, window_of)
from ad._errors import no_rule, refusal
from ad._rules import RULES

nativecalls(__name__, "table")

NOT_HANDLED = object()


class ArrayItems:
    """Reads, writes and iteration of an ndarray's items (tagging's `item_handlers`)."""

    @staticmethod
    def getitem(ctx: Any, array: Any, key: Any) -> Any:
        value = array[key]
        g = window_of(ctx, operator.getitem, array)
        if g is None:
            return value
        if isinstance(value, type(array)) and window_of(ctx, operator.getitem, value) is not None:
            return value  # a view: its window
        return attach(ctx, operator.getitem, value, g[key])

    @staticmethod
    def setitem(ctx: Any, array: Any, key: Any, value: Any) -> None:
        numpy = table.numpy_module()
        mine = ctx.tag
        if type(value) is Tagged and value.tag is mine:
            raw, g = value.value, value.meta
        elif isinstance(value, (list, tuple)) and carries_metadata(value, ctx):
            raw = recurse(ctx, _as_array, value)
            g = window_of(ctx, operator.setitem, raw)
        else:
            raw, g = value, argument_tangent(ctx, operator.setitem, value)
        ga = window_of(ctx, operator.setitem, array)
        if g is None and ga is None:
            array[key] = raw
            return
        if g is not None and (type(array) is not numpy.ndarray or
                              not table.carries(array.dtype)):
            raise ctx.refuse(refusal(operator.setitem, (
                f"it would write a value carrying a derivative into an array of "
                f"{array.dtype}, which keeps none; make it a float array")))
        if _repeats(numpy, array, key):
            raise ctx.refuse(refusal(operator.setitem, (
                "an index array writes some position more than once, and which write "
                "wins is not defined; write each position once")))
        array[key] = raw
        if ga is None:
            ga = table.ensure(ctx, array)
        ga[key] = 0 if g is None else g

    @staticmethod
    def setattr(ctx: Any, array: Any, name: str, value: Any) -> None:
        """`a.real = v`, `a.imag = v`: a write into the view; `a.shape = s`: the same
        memory, whose windows follow; anything else (`a.flat = v`, `a.dtype = d`)
        runs on constants and is refused where a derivative is involved; `a.dtype = d`
        that keeps the dtype (as numpy's `as_strided` does) changes nothing."""
        if name in ("real", "imag"):
            ArrayItems.setitem(ctx, getattr(array, name), Ellipsis, value)
            return
        if name == "dtype" and not carries_metadata(value, ctx) and \
                table.numpy_module().dtype(value) == array.dtype:
            return
        if name != "shape" and (carries_tangent(ctx, array) or carries_metadata(value, ctx)):
            raise ctx.refuse(refusal(setattr, f"assigning an ndarray's `{name}` given a "
                                              "derivative has no rule"))
        setattr(array, name, value)

    @staticmethod
    def iterate(ctx: Any, array: Any) -> Any:
        """Item by item, each read when the iteration gets to it: an array with no
        tangent when the loop began may be given one ahead of it (`for v in z:
        z[1] = x * x`), which numpy's own iterator would read plain."""
        if array.ndim == 0:
            return iter(array)  # (numpy's own error)
        return _items(ctx, array)

    @staticmethod
    def carries(ctx: Any, array: Any) -> bool:
        return carries_tangent(ctx, array)


class _NoRule:
    """The items of a C reader of arrays with no derivative rule (`a.flat`,
    `np.nditer`, a memoryview): read natively where no array it reads has a tangent
    (`carries`), refused where one has, asked at each read and at each step of an
    iteration (a write ahead of a loop may give one, which C would read plain);
    `why` says what to write instead."""

    why = ""

    @classmethod
    def _check(cls, ctx: Any, reader: Any, value: Any = None) -> None:
        if cls.carries(ctx, reader) or carries_metadata(value, ctx):
            raise ctx.refuse(refusal(type(reader), cls.why))

    @classmethod
    def getitem(cls, ctx: Any, reader: Any, key: Any) -> Any:
        cls._check(ctx, reader)
        return reader[key]

    @classmethod
    def setitem(cls, ctx: Any, reader: Any, key: Any, value: Any) -> None:
        cls._check(ctx, reader, value)
        reader[key] = value

    @classmethod
    def setattr(cls, ctx: Any, reader: Any, name: str, value: Any) -> None:
        cls._check(ctx, reader, value)
        setattr(reader, name, value)

    @classmethod
    def iterate(cls, ctx: Any, reader: Any) -> Any:
        cls._check(ctx, reader)
        return _checked_steps(reader, lambda: cls._check(ctx, reader))


class FlatItems(_NoRule):
    """`a.flat`'s items (`a.ravel()[i]` and `a.reshape(-1)[i] = v` have rules)."""

    why = "`a.flat` has no derivative rule; use a.reshape(-1) or a.ravel()"

    @staticmethod
    def carries(ctx: Any, flat: Any) -> bool:
        return carries_tangent(ctx, flat.base)


class NditerItems(_NoRule):
    """`np.nditer`'s items."""

    why = "np.nditer has no derivative rule; loop over the array itself"

    @staticmethod
    def carries(ctx: Any, nditer: Any) -> bool:
        return any(carries_tangent(ctx, operand) for operand in nditer.operands)


class BufferItems(_NoRule):
    """A memoryview's items (`memoryview(a)`, `a.data`): the array's memory, which
    holds no derivative. A store into one is a store into C storage, which converts
    what it is given: the foreign call tagging makes of it (`fallback` refuses a
    value carrying a derivative)."""

    why = "a memoryview reads and writes an array's memory, which holds no derivative; " \
          "index the array itself"

    @classmethod
    def setitem(cls, ctx: Any, view: Any, key: Any, value: Any) -> None:
        cls._check(ctx, view)
        ctx.fallback(memoryview.__setitem__, view, key, value)

    @classmethod
    def setattr(cls, ctx: Any, view: Any, name: str, value: Any) -> None:
        cls._check(ctx, view)
        ctx.fallback(setattr, view, name, value)

    @staticmethod
    def carries(ctx: Any, view: Any) -> bool:
        try:
            shown = view.obj
        except ValueError:  # released: it shows nothing any more (reads raise)
            return False
        return isinstance(shown, table.numpy_module().ndarray) and carries_tangent(ctx, shown)


def _checked_steps(iterator: Any, check: Callable) -> Any:
    """`iterator`'s steps, natively, each checked (`check`) once it is read."""
    for item in iterator:
        check()
        yield item


def _items(ctx: Any, array: Any) -> Any:
    for index in range(len(array)):
        yield ArrayItems.getitem(ctx, array, index)


def _as_array(values: Any) -> Any:
    """`np.array(values)`, run in the context, where its rule reads the tangents."""
    return table.numpy_module().array(values)


def _repeats(numpy: Any, array: Any, key: Any) -> bool:
    """Whether the index `key` names some position of `array` more than once (an
    index array; ints, slices and masks never do)."""
    parts = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(part, (list, numpy.ndarray)) and numpy.asarray(part).dtype != bool
               for part in parts):
        return False
    positions = numpy.arange(array.size).reshape(array.shape)[key]
    return numpy.unique(positions).size != numpy.size(positions)


def foreign(ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
    """A foreign call that numpy's rules answer: a method of an ndarray, or a numpy
    function the context resolved before its rules were loaded; else NOT_HANDLED."""
    numpy = table.numpy_module()
    receiver = getattr(f, "__self__", None)
    owner = getattr(f, "__objclass__", None)
    if isinstance(owner, type) and issubclass(owner, numpy.ndarray) and args and \
            isinstance(args[0], numpy.ndarray):  # `ndarray.__copy__(a)`, unbound
        f, args = getattr(args[0], f.__name__), args[1:]
        receiver = f.__self__
    if isinstance(receiver, numpy.ndarray) and type(f) is type(len):
        if not (carries_metadata(receiver, ctx) or carried(ctx, args, kwargs)):
            return f(*args, **kwargs)
        model = METHOD_MODELS.get(f.__name__)
        if model is None:
            raise ctx.refuse(no_rule(getattr(numpy.ndarray, f.__name__, f),
                                     f"the method ndarray.{f.__name__} has no derivative "
                                     "rule, and it was given a value carrying a derivative"))
        return recurse(ctx, model, receiver, *args, **kwargs)
    if is_array_function(f):
        return call(ctx, f, RULES[f], *args, **kwargs)
    return NOT_HANDLED
