"""NumPy under `ad`: the array runner, array items, array methods.

An ndarray stays plain; its tangent is the window of its memory owner's buffer
in the derivative's table (`_array_table`). A numpy scalar is a number like
Python's, tagged in frames. The rules are the table lines of `ad/_rules/numpy.py`
(and the modules it loads), keyed by the numpy callables; `call` runs one:

* each argument is a value tagged for this derivative, an ndarray (its window,
  or none: a zero tangent), or a constant;
* the primal is the function on the plain values, exactly;
* each argument with a tangent adds `jvp_i(g, ans, *args, **kwargs)`, the terms
  broadcast to the answer's shape and cast to its dtype in a fresh buffer that
  the answer owns (an answer that is a view of a buffered owner already has its
  window, and is left alone); a number answer is tagged.

Operators on arrays reach it from the operator rules (`a * b` is `np.multiply`),
in-place operators update the owner's buffer in place, so aliases stay right.
Item reads, writes and iteration of ndarrays come from tagging's one hook
(`item_handlers`), and the methods of ndarrays from the foreign call of the bound
method (`a.sum(axis=0)` runs the model `METHOD_MODELS["sum"]` in the context).
Everything else given a tangent is refused, as any C call with no rule is.

This code runs natively in its own derivative; a derivative enclosing it runs it
transformed, so the primal and the tangent arithmetic carry its own tangents
(the buffers are arrays its table may key in turn). Only the table's
bookkeeping stays native (`_array_table`).
"""

from __future__ import annotations

import importlib
import operator
from typing import Any, Callable

from contexts import recurse
from contexts.layer import nativecalls
from tagging import Tagged, tag
from tagging.layer import carries_metadata

from ad import _array_table as table
from ad._errors import describe, no_rule, refusal
from ad._rules import RULES, Constant, Jvp, Model, Refused

nativecalls(__name__, "table")

# Filled when numpy is first seen (`seen`), by `ad/_rules/numpy.py`:
ITEM_HANDLERS: dict = {}  # Differentiation.item_handlers: ndarray -> ArrayItems
ARRAY_FUNCTIONS: set = set()  # the keys of the numpy rule tables (they list them)
METHOD_MODELS: dict = {}  # ndarray method name -> Python model over numpy functions
OPERATORS: dict = {}  # operator given an array -> the numpy function whose rule it takes
IN_PLACE: dict = {}  # in-place operator -> (the numpy function, its tangent update)
REFUSALS: dict = {}  # function -> why it is refused given a tangent

NOT_HANDLED = object()
REFUSED_IN_PLACE = object()  # an IN_PLACE update: refused when a tangent is involved


def seen() -> bool:
    """Whether numpy is in play (the program imported it); its rules are loaded the
    first time it is. `import ad` never imports numpy."""
    if ITEM_HANDLERS:
        return True
    if table.numpy_module() is None:
        return False
    importlib.import_module("ad._rules.numpy")  # an optional part, loaded when needed
    ITEM_HANDLERS[table.numpy_module().flatiter] = FlatItems
    ITEM_HANDLERS[table.numpy_module().ndarray] = ArrayItems
    return True


def is_array_function(f: Callable) -> bool:
    try:
        return f in ARRAY_FUNCTIONS
    except TypeError:  # unhashable
        return False


def takes_arrays(args: tuple, kwargs: dict) -> bool:
    ndarray = table.numpy_module().ndarray
    return any(isinstance(a, ndarray) for a in args) or bool(kwargs) and any(
        isinstance(v, ndarray) for v in kwargs.values())


def call(ctx: Any, f: Callable, rule: Any, *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)` in `ctx`, some argument an array or `f` a numpy function."""
    ndarray = table.numpy_module().ndarray
    if f in OPERATORS:
        if any(isinstance(a, ndarray) and type(a) is not ndarray for a in args):
            return _subclass_operator(ctx, f, args)  # `*` of np.matrix is a product
        if f in IN_PLACE and type(args[0]) is ndarray:
            return _in_place(ctx, f, *args)
        f = OPERATORS[f]
        rule = RULES[f]
    if type(rule) is Model:
        if _carried(ctx, args, kwargs):
            return recurse(ctx, rule.function, *args, **kwargs)
        return f(*args, **kwargs)
    plain, tangents = _split(ctx, f, args)
    if kwargs and any(carries_metadata(v, ctx) for v in kwargs.values()):
        raise ctx.refuse(no_rule(f, "a keyword argument carries a derivative (the `out=` "
                                    "of a ufunc, or a value by keyword); pass it by position, "
                                    "and use the result rather than `out=`"))
    if all(g is None for g in tangents):
        return f(*plain, **kwargs)
    if type(rule) is Refused or f in REFUSALS:
        raise ctx.refuse(refusal(f, REFUSALS.get(f, "it has no derivative rule")))
    if type(rule) is Constant:
        return f(*plain, **kwargs)
    if type(rule) is not Jvp:
        raise ctx.refuse(no_rule(f))
    if "out" in kwargs or "where" in kwargs and isinstance(f, _ufunc()):
        raise ctx.refuse(refusal(f, "`out=` and `where=` leave parts of an array "
                                    "unwritten or written in place; use the result"))
    ans = f(*plain, **kwargs)
    if isinstance(ans, table.numpy_module().ndarray) and _window(ctx, f, ans) is not None:
        return ans  # a view of an array with a tangent: its window is its tangent
    if rule.variadic is not None:
        return attach(ctx, f, ans, rule.variadic(tangents, ans, *plain, **kwargs))
    tangent = None
    for index, g in enumerate(tangents):
        if g is None:
            continue
        if index >= len(rule.jvps):
            raise ctx.refuse(no_rule(f, f"its rule gives no derivative for argument "
                                        f"{index + 1}"))
        jvp = rule.jvps[index]
        term = None if jvp is None else jvp(g, ans, *plain, **kwargs)
        if term is not None:
            tangent = term if tangent is None else tangent + term
    return attach(ctx, f, ans, tangent)


def _subclass_operator(ctx: Any, f: Callable, args: tuple) -> Any:
    """An operator given an ndarray subclass, whose own operator answers (np.matrix's
    `*` is a matrix product): run as it is on constants, refused given a tangent."""
    plain, tangents = _split(ctx, f, args)
    if any(g is not None for g in tangents):
        raise ctx.refuse(refusal(f, _SUBCLASS))
    return f(*plain)


_SUBCLASS = ("a subclass of ndarray (np.matrix, a masked array) has operators and "
             "methods of its own, which have no derivative rules; use np.asarray(...)")


def _ufunc() -> type:
    return table.numpy_module().ufunc


def _split(ctx: Any, f: Callable, args: tuple) -> tuple:
    """(plain arguments, their tangents: None where an argument has none)."""
    mine = ctx.tag
    plain, tangents = [], []
    for a in args:
        if type(a) is Tagged and a.tag is mine:
            plain.append(a.value)
            tangents.append(a.meta)
        else:
            plain.append(a)
            tangents.append(_tangent(ctx, f, a))
    return plain, tangents


def _tangent(ctx: Any, f: Callable, value: Any) -> Any:
    """The tangent of a plain argument: an array's window; a container's that holds
    a tangent is refused (the rules take arrays: a model unpacks lists)."""
    numpy = table.numpy_module()
    if isinstance(value, numpy.ndarray):
        return _window(ctx, f, value)
    if isinstance(value, (list, tuple, dict)) and carries_metadata(value, ctx):
        raise ctx.refuse(no_rule(f, f"{describe(f)} was given a {type(value).__name__} "
                                    "holding values carrying a derivative; make it an "
                                    "array first (np.array(...))"))
    return None


def _window(ctx: Any, f: Callable, array: Any) -> Any:
    """`array`'s tangent window in `ctx`, or None; refused where it cannot be one."""
    numpy = table.numpy_module()
    if type(array) is not numpy.ndarray:
        if table.of(ctx).entries and _subclass_carries(ctx, array):
            raise ctx.refuse(refusal(f, _SUBCLASS))
        return None
    try:
        return table.of(ctx).window(array)
    except ValueError as error:
        raise ctx.refuse(refusal(f, str(error))) from None


def _subclass_carries(ctx: Any, array: Any) -> bool:
    try:
        return table.of(ctx).window(array) is not None
    except ValueError:
        return True


def _carried(ctx: Any, args: tuple, kwargs: dict) -> bool:
    return any(carries_metadata(a, ctx) for a in args) or bool(kwargs) and any(
        carries_metadata(v, ctx) for v in kwargs.values())


def attach(ctx: Any, f: Callable, ans: Any, tangent: Any) -> Any:
    """`ans` with `tangent` (None: none): an array gets a buffer (or, a view of an
    owner without one, its window in a fresh zero buffer of the owner); a number is
    tagged."""
    if tangent is None:
        return ans
    numpy = table.numpy_module()
    if isinstance(ans, numpy.ndarray):
        if type(ans) is not numpy.ndarray:
            raise ctx.refuse(refusal(f, _SUBCLASS))
        if not table.carries(ans.dtype):
            raise ctx.refuse(refusal(f, f"its result is an array of {ans.dtype}, which "
                                        "carries no derivative; compute in floats"))
        buffer = numpy.empty_like(ans)
        buffer[...] = tangent
        try:
            if table.owner(ans) is ans:
                table.of(ctx).register(ans, buffer)
            else:
                table.of(ctx).ensure(ans)[...] = buffer
        except ValueError as error:
            raise ctx.refuse(refusal(f, str(error))) from None
        return ans
    if isinstance(ans, (tuple, list)):
        raise ctx.refuse(refusal(f, "it returns several values, which its rule does not "
                                    "differentiate"))
    if isinstance(tangent, numpy.ndarray):
        tangent = tangent.reshape(())[()]
    return tag(ans, ctx, type(ans)(tangent))


def _in_place(ctx: Any, f: Callable, a: Any, b: Any) -> Any:
    """`a += b` (`-=`, `*=`, `/=`) on an array: the primal in place, then the
    tangent of `a`'s owner in place, so every alias of `a` sees both."""
    plain_function, update = IN_PLACE[f]
    (_, vb), (ga, gb) = _split(ctx, plain_function, (a, b))
    if ga is None and gb is None:
        return f(a, vb)
    if update is REFUSED_IN_PLACE:
        raise ctx.refuse(refusal(f, "this in-place operator on an array has no derivative "
                                    "rule; write `a = a ** b` (a new array) instead"))
    if not table.carries(a.dtype):
        raise ctx.refuse(refusal(f, f"it would write a value carrying a derivative into an "
                                    f"array of {a.dtype}, which keeps none; make it a float "
                                    "array"))
    old = a.copy() if update is not None else None
    f(a, vb)
    if ga is None:
        ga = table.of(ctx).ensure(a)
    if update is None:  # `+=`, `-=`: the tangents add the same way
        if gb is not None:
            f(ga, gb)
    else:
        update(ga, gb, a, old, vb)
    return a


class ArrayItems:
    """Reads, writes and iteration of an ndarray's items (tagging's `item_handlers`)."""

    @staticmethod
    def getitem(ctx: Any, array: Any, key: Any) -> Any:
        value = array[key]
        g = _window(ctx, operator.getitem, array)
        if g is None:
            return value
        if isinstance(value, type(array)) and _window(ctx, operator.getitem, value) is not None:
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
            g = _window(ctx, operator.setitem, raw)
        else:
            raw, g = value, _tangent(ctx, operator.setitem, value)
        ga = _window(ctx, operator.setitem, array)
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
            ga = table.of(ctx).ensure(array)
        ga[key] = 0 if g is None else g

    @staticmethod
    def setattr(ctx: Any, array: Any, name: str, value: Any) -> None:
        """`a.real = v`, `a.imag = v`: a write into the view; `a.shape = s`: the same
        memory, whose windows follow; anything else (`a.flat = v`, `a.dtype = d`)
        runs on constants and is refused where a derivative is involved."""
        if name in ("real", "imag"):
            ArrayItems.setitem(ctx, getattr(array, name), Ellipsis, value)
            return
        if name != "shape" and (_subclass_carries(ctx, array) or carries_metadata(value, ctx)):
            raise ctx.refuse(refusal(setattr, f"assigning an ndarray's `{name}` given a "
                                              "derivative has no rule"))
        setattr(array, name, value)

    @staticmethod
    def iterate(ctx: Any, array: Any) -> Any:
        if array.ndim == 0 or _window(ctx, iter, array) is None:
            return iter(array)
        return _items(ctx, array)

    @staticmethod
    def carries(ctx: Any, array: Any) -> bool:
        return _subclass_carries(ctx, array)


class FlatItems:
    """`a.flat`'s items: the plain ones of an array without a tangent; refused where a
    derivative is involved (`a.ravel()[i]` and `a.reshape(-1)[i] = v` have rules)."""

    @staticmethod
    def _check(ctx: Any, flat: Any, value: Any = None) -> None:
        if _subclass_carries(ctx, flat.base) or carries_metadata(value, ctx):
            raise ctx.refuse(refusal(type(flat), "`a.flat` has no derivative rule; use "
                                                 "a.reshape(-1) or a.ravel()"))

    @staticmethod
    def getitem(ctx: Any, flat: Any, key: Any) -> Any:
        FlatItems._check(ctx, flat)
        return flat[key]

    @staticmethod
    def setitem(ctx: Any, flat: Any, key: Any, value: Any) -> None:
        FlatItems._check(ctx, flat, value)
        flat[key] = value

    @staticmethod
    def setattr(ctx: Any, flat: Any, name: str, value: Any) -> None:
        FlatItems._check(ctx, flat, value)
        setattr(flat, name, value)

    @staticmethod
    def iterate(ctx: Any, flat: Any) -> Any:
        FlatItems._check(ctx, flat)
        return flat

    @staticmethod
    def carries(ctx: Any, flat: Any) -> bool:
        return _subclass_carries(ctx, flat.base)


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
        if not (carries_metadata(receiver, ctx) or _carried(ctx, args, kwargs)):
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


def is_point(x: Any) -> bool:
    """Whether `x` is an ndarray a derivative may be taken at (float or complex)."""
    numpy = table.numpy_module()
    return numpy is not None and type(x) is numpy.ndarray and table.carries(x.dtype)


def seed(ctx: Any, x: Any, tangent: Any, copy: Callable) -> Any:
    """The point `x`, an ndarray, given `tangent` (of its shape) in `ctx`'s table.
    The buffer is `copy(tangent, x)`: made by the context enclosing this
    derivative if there is one (`ad._api`), so that a tangent carrying that
    context's own tangent keeps it (the buffer is then the owner it keys)."""
    numpy = table.numpy_module()
    if numpy.shape(tangent) != x.shape:
        raise ValueError(f"the tangent of an array of shape {x.shape} must have that shape; "
                         f"got {numpy.shape(tangent)}")
    arrays = table.of(ctx)
    if arrays.window(x) is not None:
        raise ValueError("two points share memory (the same array, or views of one); "
                         "pass copies: np.array(x)")
    buffer = copy(tangent, x)
    if table.owner(x) is x:
        arrays.register(x, buffer)
    else:  # a view: its owner's buffer, zero but for its window
        arrays.ensure(x)[...] = buffer
    return x


def copied(tangent: Any, like: Any) -> Any:
    """A fresh array of `tangent`'s values laid out as `like` (a point's buffer)."""
    buffer = table.numpy_module().empty_like(like)
    buffer[...] = tangent
    return buffer


def tangent_out(ctx: Any, array: Any) -> Any:
    """The tangent of an array the differentiated function returned: a copy of its
    window, or zeros of its shape."""
    numpy = table.numpy_module()
    window = table.of(ctx).window(array)
    if window is None:
        kind = array.dtype if table.carries(array.dtype) else numpy.float64
        return numpy.zeros(array.shape, kind)
    return numpy.array(window)


def unit(x: Any, index: int) -> Any:
    """The direction of `x`'s element `index` (in C order): zeros, and a one there."""
    direction = table.numpy_module().zeros_like(x)
    direction.flat[index] = 1  # (in place whatever the layout, unlike a reshape)
    return direction


def shaped(partials: list, x: Any) -> Any:
    """A gradient's partials as an array of the point's shape."""
    return table.numpy_module().array(partials).reshape(x.shape)


def columns_shaped(columns: list, value: Any, x: Any) -> Any:
    """A Jacobian's columns (one per element of `x`) as an array of shape
    `value.shape + x.shape`."""
    numpy = table.numpy_module()
    stacked = numpy.stack([numpy.asarray(column) for column in columns], axis=-1)
    return stacked.reshape(numpy.shape(value) + x.shape)


def is_array(x: Any) -> bool:
    numpy = table.numpy_module()
    return numpy is not None and isinstance(x, numpy.ndarray)
