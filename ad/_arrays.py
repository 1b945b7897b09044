"""NumPy under `ad`: the array runner, which runs the rules of numpy's callables.

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
Item reads and writes, iteration and methods of ndarrays are `_array_items`'s;
the points and results of the API, `_array_points`'s. Everything else given a
tangent is refused, as any C call with no rule is.

This code runs natively in its own derivative; a derivative enclosing it runs it
transformed, so the primal and the tangent arithmetic carry its own tangents
(the buffers are arrays its table may key in turn). Only the table's
bookkeeping stays native (`_array_table`).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any, Callable

from contexts import recurse
from contexts.layer import nativecalls
from tagging import Tagged, tag
from tagging.layer import carries_metadata

from ad import _array_table as table
from ad._errors import describe, no_rule, refusal
from ad._rules import RULES, Constant, Jvp, Model, Refused, rule_of

nativecalls(__name__, "table", "sys", "inspect")  # `sys.getrefcount`: see `attach`

# Filled when numpy is first seen (`seen`), by `ad/_rules/numpy.py`:
ITEM_HANDLERS: dict = {}  # Differentiation.item_handlers: ndarray -> `_array_items`' handler
METHOD_MODELS: dict = {}  # ndarray method name -> Python model over numpy functions
OPERATORS: dict = {}  # operator given an array -> the numpy function whose rule it takes
IN_PLACE: dict = {}  # in-place operator -> (the numpy function, its tangent update)
REFUSALS: dict = {}  # function -> why it is refused given a tangent
# functions whose result reads its arrays later, step by step (`np.ndenumerate`): their
# models run given no tangent yet too, as a write ahead of a step may give one
READ_LATER: set = set()

REFUSED_IN_PLACE = object()  # an IN_PLACE update: refused when a tangent is involved


def seen() -> bool:
    """Whether numpy is in play (the program imported it); its rules are loaded the
    first time it is. `import ad` never imports numpy."""
    if ITEM_HANDLERS:
        return True
    if table.numpy_module() is None:
        return False
    importlib.import_module("ad._rules.numpy")  # an optional part; it fills the tables
    return True


def is_array_function(f: Callable) -> bool:
    """Whether `f` is a line of the numpy rule tables (`ad/_rules/numpy*.py`): one of
    numpy's own callables with a rule, or a helper those tables key (a private fact
    of a rule, `numpy.stack`'s joiner). Told by where `f` was defined, not by when
    its line was loaded, so it holds whichever rule module a program imported first."""
    home = getattr(getattr(f, "__objclass__", f), "__module__", None) or ""
    return (home == "numpy" or home.startswith(_ARRAY_HOMES)) and rule_of(f) is not None


_ARRAY_HOMES = ("numpy.", "ad._rules.numpy", "ad._rules._array")


def holds_array_numbers(value: Any) -> bool:
    """Whether `value` is an ndarray or an iterator over one (`x.flat`): what a
    numpy scalar's method or attribute gives (`x.reshape(-1)`, `x.flat`), whose
    numbers a derivative would ride on."""
    numpy = table.numpy_module()
    return numpy is not None and isinstance(value, (numpy.ndarray, numpy.flatiter))


def takes_arrays(args: tuple, kwargs: dict) -> bool:
    ndarray = table.numpy_module().ndarray
    return any(isinstance(a, ndarray) for a in args) or bool(kwargs) and any(
        isinstance(v, ndarray) for v in kwargs.values())


def call(ctx: Any, f: Callable, rule: Any, *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)` in `ctx`, some argument an array or `f` a numpy function."""
    ndarray = table.numpy_module().ndarray
    if f in OPERATORS and len(args) <= 2:  # (not `pow(a, b, mod)`, which numpy has not)
        if any(isinstance(a, ndarray) and type(a) is not ndarray for a in args):
            return _subclass_operator(ctx, f, args)  # `*` of np.matrix is a product
        if f in IN_PLACE and type(args[0]) is ndarray:
            return _in_place(ctx, f, *args)
        f = OPERATORS[f]
        rule = RULES[f]
    if type(rule) is Model:
        if f in READ_LATER or carried(ctx, args, kwargs):
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
    if "out" in kwargs or "where" in kwargs and isinstance(f, _ufunc()) or \
            _out_by_position(f, plain):
        raise ctx.refuse(refusal(f, "`out=` and `where=` leave parts of an array "
                                    "unwritten or written in place; use the result"))
    ans = f(*plain, **kwargs)
    if isinstance(ans, ndarray) and window_of(ctx, f, ans) is not None:
        return ans  # a view of an array with a tangent: its window is its tangent
    if rule.variadic is not None:
        return attach(ctx, f, ans, rule.variadic(tangents, ans, *plain, **kwargs))
    return attach(ctx, f, ans, _summed(ctx, f, rule, tangents, ans, plain, kwargs))


def _summed(ctx: Any, f: Callable, rule: Jvp, tangents: list, ans: Any, plain: list,
            kwargs: dict) -> Any:
    """The sum of the jvp terms of the arguments with a tangent (None: none)."""
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
    return tangent


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


def _out_by_position(f: Callable, args: list) -> bool:
    """Whether `args` give `f` an `out` by position (`np.sin(x, y)`, `np.sum(x, 1,
    None, y)`): a ufunc's arguments past its inputs, or one at the place of the
    parameter `out` in `f`'s signature. Refused as `out=` is: the rules would write
    the tangent into it (a linear rule calls `f` on the tangent with the same
    arguments), or return it as an answer whose window is its old tangent."""
    if isinstance(f, _ufunc()):
        return len(args) > f.nin
    place = _out_place(f)
    return place is not None and len(args) > place and args[place] is not None


def _out_place(f: Callable) -> int | None:
    """The position of `f`'s parameter `out`, or None (no signature, no `out`)."""
    try:
        return _OUT_PLACES[f]
    except KeyError:
        pass
    except TypeError:  # unhashable: looked up each time
        return _signature_out_place(f)
    place = _OUT_PLACES[f] = _signature_out_place(f)
    return place


def _signature_out_place(f: Callable) -> int | None:
    try:
        parameters = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return None
    for place, parameter in enumerate(parameters):
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return None
        if parameter.name == "out":
            return place
    return None


_OUT_PLACES: dict = {}  # f -> the position of its parameter `out`, or None


def _split(ctx: Any, f: Callable, args: tuple) -> tuple:
    """(plain arguments, their tangents: None where an argument has none)."""
    mine = ctx.tag
    ndarray = table.numpy_module().ndarray
    plain, tangents = [], []
    for a in args:
        if type(a) is Tagged and a.tag is mine:
            plain.append(a.value)
            tangents.append(a.meta)
        elif type(a) is ndarray:  # (`window_of`'s commonest case, inline)
            plain.append(a)
            try:
                tangents.append(table.window(ctx, a))
            except ValueError as error:
                raise ctx.refuse(refusal(f, str(error))) from None
        else:
            plain.append(a)
            tangents.append(argument_tangent(ctx, f, a))
    return plain, tangents


def argument_tangent(ctx: Any, f: Callable, value: Any) -> Any:
    """The tangent of a plain argument: an array's window; a container's or an
    object's that holds a tangent is refused (the rules take arrays: a model unpacks
    lists; numpy would call an object's methods in C, outside the derivative:
    `np.ones(2) + box` calls `box.__radd__` on each element)."""
    numpy = table.numpy_module()
    if isinstance(value, numpy.ndarray):
        return window_of(ctx, f, value)
    if table.exporter_of(value) is not None:
        return None  # `as_strided`'s: the array made of it is a view, whose window it has
    if carries_metadata(value, ctx):
        way_out = "make it an array first (np.array(...))" if isinstance(
            value, (list, tuple, dict)) else "numpy would call its methods in C, outside " \
            "the derivative; compute with the numbers it holds"
        raise ctx.refuse(no_rule(f, f"{describe(f)} was given a {type(value).__name__} "
                                    f"holding values carrying a derivative; {way_out}"))
    return None


def window_of(ctx: Any, f: Callable, array: Any) -> Any:
    """`array`'s tangent window in `ctx`, or None; refused where it cannot be one."""
    numpy = table.numpy_module()
    if type(array) is not numpy.ndarray:
        if table.holds_any(ctx) and carries_tangent(ctx, array):
            raise ctx.refuse(refusal(f, _SUBCLASS))
        return None
    try:
        return table.window(ctx, array)
    except ValueError as error:
        raise ctx.refuse(refusal(f, str(error))) from None


def carries_tangent(ctx: Any, array: Any) -> bool:
    try:
        return table.window(ctx, array) is not None
    except ValueError:
        return True


def carried(ctx: Any, args: tuple, kwargs: dict) -> bool:
    return any(carries_metadata(a, ctx) for a in args) or bool(kwargs) and any(
        carries_metadata(v, ctx) for v in kwargs.values())


def attach(ctx: Any, f: Callable, ans: Any, tangent: Any) -> Any:
    """`ans` with `tangent` (None: none): an array gets a buffer (or, a view of an
    owner without one, its window in a fresh zero buffer of the owner); a number is
    tagged. A tangent that nothing else holds (see `_adoptable`) is the buffer
    itself, not copied into one."""
    if tangent is None:
        return ans
    numpy = table.numpy_module()
    if isinstance(ans, numpy.ndarray):
        if type(ans) is not numpy.ndarray:
            raise ctx.refuse(refusal(f, _SUBCLASS))
        if not table.carries(ans.dtype):
            raise ctx.refuse(refusal(f, f"its result is an array of {ans.dtype}, which "
                                        "carries no derivative; compute in floats"))
        # (inline: a call would hold `tangent` once more; 2 is this name and the argument)
        if sys.getrefcount(tangent) == 2 and _adoptable(numpy, tangent, ans):
            table.register(ctx, ans, tangent)
            return ans
        buffer = numpy.empty_like(ans)
        buffer[...] = tangent
        try:
            if table.owner(ans) is ans:
                table.register(ctx, ans, buffer)
            else:
                table.ensure(ctx, ans)[...] = buffer
        except ValueError as error:
            raise ctx.refuse(refusal(f, str(error))) from None
        return ans
    if isinstance(ans, (tuple, list)):
        raise ctx.refuse(refusal(f, "it returns several values, which its rule does not "
                                    "differentiate"))
    if isinstance(tangent, numpy.ndarray):
        tangent = tangent.reshape(())[()]
    return tag(ans, ctx, type(ans)(tangent))


def _adoptable(numpy: Any, tangent: Any, ans: Any) -> bool:
    """Whether `tangent`, an array that nothing but the runner holds (a jvp term the
    rule just made: no argument's tangent, no constant of a rule, no view, since
    each of those is held elsewhere too), can be `ans`'s tangent buffer as it is:
    it owns its memory, is writeable, and is laid out as `ans`, which owns its own."""
    return type(tangent) is numpy.ndarray and tangent.base is None and \
        tangent.flags.writeable and tangent.dtype == ans.dtype and \
        tangent.shape == ans.shape and tangent.strides == ans.strides and \
        ans.base is None


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
    old = None
    if update is not None:  # `*=`, `/=` read `b` and its tangent after `a` has changed
        old = a.copy()
        vb = _unaliased(vb, a)
        gb = gb if ga is None else _unaliased(gb, ga)
    f(a, vb)
    if ga is None:
        ga = table.ensure(ctx, a)
    if update is None:  # `+=`, `-=`: the tangents add the same way
        if gb is not None:
            f(ga, gb)
    else:
        update(ga, gb, a, old, vb)
    return a


def _unaliased(value: Any, target: Any) -> Any:
    """`value`, copied if it may share memory with `target` (`a *= a`), so that
    writing `target` does not change it."""
    numpy = table.numpy_module()
    if isinstance(value, numpy.ndarray) and numpy.may_share_memory(value, target):
        return value.copy()
    return value
