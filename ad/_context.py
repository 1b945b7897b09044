"""The differentiation context: a tagging context whose metadata is the tangent.

Every function of the rule tables is one primitive of it, told which function
was called. A call with no argument tagged for this context runs as it would
without it (so an enclosing derivative sees it); otherwise the table line says
how the tangent goes. Other number types (an `IntEnum`, a `float` subclass) are
constants to the rules, unless the engine finds their Python operator to run.
Foreign calls that receive a tangent, directly or in a container's slot, are
refused before they run unless `_foreign` lets them (their result carries no
number, or its elements keep their tangents), and then refused if they hand back
a number: a derivative is never dropped silently, nor stored without it.
"""

from __future__ import annotations

import array
import builtins
import functools
import inspect
import math
import numbers
import operator
import pickle
import types
from collections.abc import Collection
from fractions import Fraction
from typing import Any, Callable

from contexts import Context, canrecurse, primitive, recurse
from contexts.layer import dispatched, enclosed
from tagging import NoMetaData, Tagged, tag
from tagging.layer import (WAYS_OUT, carries_metadata, container_read_by, dropped,
                           keeps_element_metadata, rawest, tagger)

from ad._array_items import NOT_HANDLED
from ad._array_items import foreign as foreign_array_call
from ad._arrays import ITEM_HANDLERS, holds_array_numbers, is_array_function, takes_arrays
from ad._arrays import call as call_array
from ad._arrays import seen as arrays_seen
from ad._crossings import CROSSINGS, crossing
from ad._errors import NonDifferentiableError, describe, lost, no_rule, no_source, refusal
from ad._foreign import builds_an_exception, keeps_as_it_is, runs_then_checked
from ad import _numbers
from ad._numbers import SCALARS, is_number
from ad._rules import (ATTRIBUTES, METHODS, RULES, Constant, Jvp, Model, Refused, User, method,
                       rule_of)
from ad._rules._support import python_dunder
from ad._swallowers import SWALLOWERS, swallower
from ad._twins import comparing_twin, python_twin


class Differentiation(Context):
    """Values tagged with their tangent; one fresh tag per derivative taken."""

    refused: NonDifferentiableError | None = None  # the first refusal of the run

    def begin(self) -> None:
        """Forget the previous run's refusal and memo (see `ad._pool`): a context
        is reused, with a fresh tag, for many derivatives."""
        if self.refused is not None:  # (a write runs attrs' `__setattr__`, in Python)
            self.refused = None
        self.__dict__.pop("_memo", None)
        self.__dict__.pop("arrays", None)

    def end(self) -> None:
        """Let go of the arrays' tangents when the derivative ends (`_array_table`)."""
        arrays = self.__dict__.pop("arrays", None)
        if arrays is not None:
            arrays.clear()

    def refuse(self, error: NonDifferentiableError) -> NonDifferentiableError:
        """`error`, remembered: the derivative raises it at its end even when `f`
        caught it (a user's `except TypeError`), so a refusal is never swallowed
        and no value computed after it passes for a derivative."""
        if self.refused is None:
            self.refused = error
        return error

    @classmethod
    def metadatatype(cls, value_type: type) -> Any:
        numeric = value_type in _numbers.NUMBERS and value_type is not bool
        return _numbers.NUMBERS if numeric else NoMetaData

    # ndarrays' items are read, written and iterated by `ad._arrays` (tagging's hook),
    # filled when numpy is first seen
    item_handlers = ITEM_HANDLERS

    @primitive(RULES, told=True)
    def rule_for(self, f: Callable) -> Callable:
        """What runs for `f`, a function of the rule tables, in this context: the
        general `differentiate`, with the commonest cases (one or two numbers, one
        carrying a tangent) unrolled for speed; a numpy function's, the array runner."""
        rule = RULES[f]
        if is_array_function(f):
            return functools.partial(call_array, self, f, rule)
        general = functools.partial(differentiate, self, f, rule)
        if type(rule) is Constant and f not in _DUNDERS:
            return _constant_rule(self, f)
        if type(rule) is Jvp and not rule.bound and rule.variadic is None:
            if len(rule.jvps) == 1:
                return _unary(self, f, rule.jvps[0], general, tagger(self))
            if len(rule.jvps) >= 2:  # a third argument takes the general way
                return _binary(self, f, *rule.jvps[:2], general, tagger(self))
        return general

    crossing = primitive(CROSSINGS, told=True)(crossing)  # threads, processes, queues
    swallower = primitive(SWALLOWERS, told=True)(swallower)  # an event loop's handler

    def fallback_inside(self, f: Callable, dispatch: Callable) -> Callable:
        """The foreign call of `f` as a derivative enclosing this one runs it
        (`dispatch` is its resolution): given nothing that may carry this
        derivative's tangent, and with no way of its own here (`_own_way`), the
        enclosing derivative's own call of `f`, with no step of this one to run;
        otherwise `fallback`, which it runs, seeing every step. And so on for one
        enclosing that one."""
        receiver = _receiver(f)
        general = dispatched(dispatch, functools.partial(self.fallback, f))
        if _own_way(f) is not None:
            return general

        def built(target: Callable, general: Callable) -> Callable:
            def fallback_enclosed(*args, **kwargs):
                if _carried(self, args, kwargs, receiver):
                    return general(*args, **kwargs)
                return target(*args, **kwargs)

            return enclosed(fallback_enclosed, lambda outer: built(
                outer(target), dispatched(outer, general)))

        return built(dispatch(f), general)

    def fallback(self, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
        if numpy_seen():  # an ndarray's method, say
            answer = foreign_array_call(self, f, args, kwargs)
            if answer is not NOT_HANDLED:
                return answer
        own_way = _own_way(f)
        if own_way is not None:
            return own_way(self, f, args, kwargs)
        rule = rule_of(f)
        receiver = _receiver(f)
        if type(rule) is Constant or not _carried(self, args, kwargs, receiver):
            return super().fallback(f, *args, **kwargs)
        if type(rule) is User:
            if _numbers_only(args, kwargs):
                # a user rule the engine cannot key a primitive by (an unhashable
                # ctypes function): it is found here, by identity
                return _apply_user(self, f, rule, args)
            raise self.refuse(_beyond_the_rule(f))
        if f is getattr:
            return _attribute(self, *args)
        if f is dropped:
            _, route = args
            raise self.refuse(lost(route, WAYS_OUT[route]))
        if f is pickle.dumps or f is pickle.dump:  # refused before it writes
            raise self.refuse(refusal(
                f, "it would turn a value carrying a derivative into bytes, which carry "
                   "none; to copy the value, use copy.deepcopy, which keeps its derivative"))
        if isinstance(f, (types.FunctionType, types.MethodType)):
            raise self.refuse(no_source(f, canrecurse.why(self, f)))
        twin = python_twin(f)
        if twin is not None:  # `heapq.heappush`: its Python definition, in the context
            return recurse(self, twin, *args, **kwargs)
        if _stores(f):  # refused before it runs: nothing is stored without its tangent
            raise self.refuse(no_rule(f, f"{describe(f)} would keep a value carrying a "
                                         "derivative in C storage, which converts it and "
                                         "keeps no derivative"))
        if type(rule) in _APPLY and not kwargs and all(
                isinstance(a, numbers.Number) or type(a) is Tagged and a.tag is self.tag
                for a in args):
            # a rule's function run as C on numbers only, some of a type outside
            # NUMBERS (an IntEnum, a float subclass, Decimal): they are constants
            return _APPLY[type(rule)](self, f, rule, args)
        if not runs_then_checked(f, receiver, args):  # refused before it runs (`_foreign`)
            raise self.refuse(refusal(f, _KEPT_ELSEWHERE.format(describe(f)))
                              if builds_an_exception(f) else no_rule(f))
        result = super().fallback(f, *args, **kwargs)
        if isinstance(result, _PLAIN_RESULTS) or keeps_element_metadata(f, result) or \
                isinstance(result, _VIEWS) or result is None and isinstance(receiver, dict) \
                or _text(result) or keeps_as_it_is(f):
            return result
        if rule is not None and _container(result):  # `d1 + d2`
            raise self.refuse(refusal(
                f, f"it built a {describe(type(result))} out of values carrying a "
                   "derivative, and which of its elements carries which derivative is not "
                   "followed; build a list or a tuple instead"))
        raise self.refuse(no_rule(f))  # a number, or where it may have gone


def numpy_seen() -> bool:
    """Whether numpy is in play (the program imported it). The first time it is, its
    rules are loaded (`ad._arrays.seen`), and the engine is told that the table
    changed, as for a user rule (`_user_rules`): every context claims them."""
    if ITEM_HANDLERS:
        return True
    if not arrays_seen():
        return False
    Differentiation.rule_for = Differentiation.__dict__["rule_for"]
    return True


def _own_way(f: Callable) -> Callable | None:
    """How a foreign call of `f` runs in the context whatever it is given, if it has
    a way of its own: an `lru_cache`d function's body runs in the context (its own
    cache was filled natively); `heapq.heappush` runs its Python twin, so that a
    user's `__lt__` runs in the context."""
    if type(f) is _CACHED:
        return _memoised
    return _twin_run if comparing_twin(f) is not None else None


def _twin_run(ctx: Differentiation, f: Callable, args: tuple, kwargs: dict) -> Any:
    return recurse(ctx, comparing_twin(f), *args, **kwargs)


def _carried(ctx: Differentiation, args: tuple, kwargs: dict, receiver: Any) -> bool:
    """Whether a foreign call's arguments, or the object its C method is bound to,
    may hand it this derivative's tangent."""
    return any(_may_carry(a, ctx) for a in args) or bool(kwargs) and any(
        _may_carry(v, ctx) for v in kwargs.values()) or \
        receiver is not None and carries_metadata(receiver, ctx)


def _may_carry(value: Any, ctx: Differentiation) -> bool:
    """Whether a foreign call's argument may hand it a tangent: it carries one, or it
    is a generator (what it yields leaves its tangent in the store for a consumer in
    the context; C code iterating it natively would take plain values), unless it is
    tagging's `iter(container)`, which carries what the container does."""
    if type(value) is types.GeneratorType:
        value = container_read_by(value)
        if value is None:
            return True
    return carries_metadata(value, ctx)


def _text(result: Any) -> bool:
    """Pieces of text (json's C encoder hands back a list of them): text carries no
    derivative, by definition."""
    return isinstance(result, (list, tuple)) and bool(result) and \
        all(type(piece) is str for piece in result)


def _stores(f: Callable) -> bool:
    """Whether `f` is a store into C storage (tagging hands `array.__setitem__`, a
    ctypes field's `setattr`, to the context only when it would convert the value)."""
    return f is setattr or f is object.__setattr__ or \
        getattr(f, "__name__", None) == "__setitem__"


def _receiver(f: Callable) -> Any:
    """The object a C method is bound to (`od.popitem`, or a slot's `xs.__delitem__`),
    whose slots it reads; None for a function (a module's, whose `__self__` is the
    module)."""
    receiver = getattr(f, "__self__", None) if type(f) in _BOUND_C_METHODS else None
    return None if isinstance(receiver, types.ModuleType) else receiver


_BOUND_C_METHODS = (types.BuiltinMethodType, types.MethodWrapperType)

# A dict's views read its slots when iterated, which gives their metadata back; a
# C method of a dict that returns None changed entries, which are slots by key.
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))

_CACHED = type(functools.lru_cache()(len))  # what `lru_cache` and `cache` make


def _memoised(ctx: Differentiation, f: Callable, args: tuple, kwargs: dict) -> Any:
    """A call of an `lru_cache`d function: its body runs in the context, where a
    closure's or a global's tangent reaches it (its own cache, filled natively,
    holds values without). Calls whose arguments carry no tangent are memoised
    for this derivative, so memoised recursion stays linear."""
    if any(carries_metadata(a, ctx) for a in (*args, *kwargs.values())):
        return recurse(ctx, f.__wrapped__, *args, **kwargs)
    memo = ctx.__dict__.setdefault("_memo", {})
    key = (f, args, tuple(kwargs.items()))
    try:
        return memo[key]
    except TypeError:  # an unhashable argument: run, not memoised
        return recurse(ctx, f.__wrapped__, *args, **kwargs)
    except KeyError:
        found = memo[key] = recurse(ctx, f.__wrapped__, *args, **kwargs)
        return found


# What a foreign call given a tangent may hand back: text, a truth value, or an
# exception (raising one is how a value escapes a derivative, as a constant);
# and a container built by an operator (`[x] + [y]`, `(x,) * 3`, `{x} | s`),
# whose elements keep their tangents.
_PLAIN_RESULTS = (str, bool, BaseException)
_KEPT_ELSEWHERE = (
    "{} keeps an argument in a field of its own (as StopIteration's `value` or "
    "OSError's `errno`), where its derivative would be lost; raise an exception of your "
    "own class (class Stop(Exception)) and keep the value as an attribute or in its args")


def differentiate(ctx: Differentiation, f: Callable, rule: Any, *args: Any,
                  **kwargs: Any) -> Any:
    """`f(*args, **kwargs)` in `ctx`: as its table line says when an argument carries
    the context's tangent; else as the engine would run it. Given an ndarray, the
    array runner runs it (`a * b` is numpy's multiply)."""
    if ITEM_HANDLERS and takes_arrays(args, kwargs):
        return call_array(ctx, f, rule, *args, **kwargs)
    if type(rule) is Model:
        return recurse(ctx, rule.function, *args, **kwargs)
    if kwargs:
        args, kwargs = _by_position(f, args, kwargs)
    mine = ctx.tag
    live = objects = False
    for a in args[1:] if getattr(rule, "bound", False) else args:  # not the receiver
        if type(a) is Tagged:
            if a.tag is mine:
                live = True
        elif type(a) not in SCALARS:
            objects = True  # a container or user object: the engine runs its code
    if objects and type(rule) is User and any(
            type(a) is not Tagged and carries_metadata(a, ctx) for a in args):
        raise ctx.refuse(_beyond_the_rule(f))
    if type(f) is types.FunctionType:
        objects = False  # a helper of a model: its rule covers what it is given
    if kwargs:
        return _with_keywords(ctx, f, rule, args, kwargs, live)
    if objects:
        return _with_objects(ctx, f, args)
    if not live:
        return f(*args)
    return _APPLY[type(rule)](ctx, f, rule, args)


# Builtins that call a method of their first argument's class and return what it
# returns: a Python method runs in the context, so its arithmetic is differentiated.
_DUNDERS = {builtins.abs: "__abs__", operator.abs: "__abs__", builtins.round: "__round__",
            builtins.complex: "__complex__", builtins.pow: "__pow__", math.floor: "__floor__",
            math.ceil: "__ceil__", math.trunc: "__trunc__"}


def _with_objects(ctx: Differentiation, f: Callable, args: tuple) -> Any:
    """`f(*args)`, some argument a container or a user object: the engine runs it,
    and a user class's method that `f` calls runs in the context (`abs(v)` runs
    `Vec.__abs__`, `pow(v, 2)` is `v ** 2`, reflected method and all)."""
    if f is builtins.pow and len(args) == 2:
        return recurse(ctx, operator.pow, *args)
    if f is operator.pow and type(args[0]) is Tagged and args[0].tag is ctx.tag and \
            type(args[0].value) is Fraction and not isinstance(rawest(args[1]), numbers.Number):
        # before 3.13 `Fraction.__pow__` answers any exponent (`float(x) ** u`, which
        # calls `u`'s `__rpow__`) before CPython asks the exponent: its code, here
        answer = recurse(ctx, Fraction.__pow__, *args)
        if answer is not NotImplemented:
            return answer
    name = _DUNDERS.get(f)
    method = getattr(type(args[0]), name, None) if name else None
    if type(method) is not types.FunctionType or f is builtins.complex and len(args) > 1:
        return recurse(ctx, f, *args)
    result = recurse(ctx, method, *args)
    if f is builtins.complex and not isinstance(rawest(result), complex):
        raise TypeError(f"__complex__ returned non-complex (type {type(rawest(result)).__name__})")
    return result


def _by_position(f: Callable, args: tuple, kwargs: dict) -> tuple:
    """`(args, kwargs)` with each keyword that names a positional parameter of `f`
    moved to its place, so the rule sees it (`pow(x, 2, mod=5)` is modular,
    `Fraction(x, denominator=2)` halves the tangent)."""
    try:
        bound = _signature(f).bind(*args, **kwargs)
    except (TypeError, ValueError):  # no signature, or a call that raises as it is
        return args, kwargs
    return bound.args, bound.kwargs


@functools.cache
def _signature(f: Callable) -> inspect.Signature:
    return inspect.signature(f)


_ABSENT = object()


def _unary(ctx: Differentiation, f: Callable, d0: Callable, general: Callable,
           tag: Callable) -> Callable:
    def rule(f: Callable, d0: Callable, general: Callable, beneath: Callable) -> Callable:
        """The rule of `f`, from the functions that compute its primal and its
        tangent, its general case, and the test of a value that is a constant to
        this derivative beyond the plain numbers (`_scalar_beneath`)."""

        def unary(x=_ABSENT, /, *more):
            if not more:
                if type(x) is Tagged and x.tag is ctx.tag:
                    value = x.value
                    ans = f(value)
                    return tag(ans, d0(x.meta, ans, value))
                if type(x) in SCALARS or beneath(x):  # `-0.1`: a constant
                    return f(x)
            return general(*(() if x is _ABSENT else (x, *more)))

        return _named_as(unary, f)

    def built(f: Callable, d0: Callable, general: Callable, beneath: Callable) -> Callable:
        """The rule, and how a derivative enclosing it runs it: the primal and the
        tangent computed by the enclosing context's own rules (a tower's outer
        tangents follow), the rest native; and so on for one enclosing that one."""
        return enclosed(keywords(rule(f, d0, general, beneath), general),
                        lambda dispatch: built(dispatch(f), dispatch(d0),
                                               dispatched(dispatch, general), _scalar_beneath))

    keywords = _keywords_for(f)
    return built(f, d0, general, _no)


def _binary(ctx: Differentiation, f: Callable, d0: Callable, d1: Callable,
            general: Callable, tag: Callable) -> Callable:
    def rule(f: Callable, d0: Callable, d1: Callable, add: Callable, general: Callable,
             beneath: Callable) -> Callable:
        """The rule of `f`, from the functions that compute its primal, its two
        tangent terms and their sum, its general case, and the test of an operand
        that is a constant to this derivative beyond the plain numbers."""

        def binary(x=_ABSENT, y=_ABSENT, /, *more):
            if y is not _ABSENT and not more:
                mine = ctx.tag
                x_mine = type(x) is Tagged and x.tag is mine
                y_mine = type(y) is Tagged and y.tag is mine
                if x_mine:
                    vx = x.value
                    if y_mine:
                        vy = y.value
                        ans = f(vx, vy)
                        return tag(ans, add(d0(x.meta, ans, vx, vy), d1(y.meta, ans, vx, vy)))
                    if type(y) in SCALARS or beneath(y):
                        ans = f(vx, y)
                        return tag(ans, d0(x.meta, ans, vx, y))
                elif y_mine:
                    if type(x) in SCALARS or beneath(x):
                        vy = y.value
                        ans = f(x, vy)
                        return tag(ans, d1(y.meta, ans, x, vy))
                elif (type(x) in SCALARS or beneath(x)) and (type(y) in SCALARS or beneath(y)):
                    return f(x, y)
            return general(*[a for a in (x, y) if a is not _ABSENT], *more)

        return _named_as(binary, f)

    def built(f: Callable, d0: Callable, d1: Callable, add: Callable, general: Callable,
              beneath: Callable) -> Callable:
        """The rule, and how a derivative enclosing it runs it: the primal, the
        tangent terms and their sum computed by the enclosing context's own rules
        (a tower's outer tangents follow), the rest native; and so on for one
        enclosing that one."""
        return enclosed(keywords(rule(f, d0, d1, add, general, beneath), general),
                        lambda dispatch: built(
                            dispatch(f), dispatch(d0), dispatch(d1), dispatch(add),
                            dispatched(dispatch, general), _scalar_beneath))

    keywords = _keywords_for(f)
    return built(f, d0, d1, operator.add, general, _no)


def _keywords_for(f: Callable) -> Callable:
    """`(rule, general) -> what runs for f`: the rule itself where `f` takes its
    arguments by position only (every operator, most of `math`), so that a call
    pays for no dict of keywords; elsewhere the rule given a call without keywords
    and `general` one with them (`pow(x, y, mod=m)`)."""
    return _as_it_is if _positional_only(f) else _taking_keywords


def _as_it_is(rule: Callable, general: Callable) -> Callable:
    return rule


def _taking_keywords(rule: Callable, general: Callable) -> Callable:
    def with_keywords(*args, **kwargs):
        return general(*args, **kwargs) if kwargs else rule(*args)

    return with_keywords


def _positional_only(f: Callable) -> bool:
    """Whether `f` takes no argument by keyword (False when its signature is unknown)."""
    try:
        parameters = _signature(f).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL) for p in parameters)


def _named_as(rule: Callable, f: Callable) -> Callable:
    """`rule`, named as `f`: a call giving it keywords, which `f` takes none of, is
    refused as `f`'s (`math.atan2() got some positional-only arguments passed as
    keyword arguments`), and never runs with its arguments bound by those names."""
    name = getattr(f, "__name__", None)
    if name is not None:
        module = getattr(f, "__module__", None)
        rule.__name__, rule.__qualname__ = name, f"{module}.{name}" if module else name
    return rule


def _no(value: Any) -> bool:
    """Outside any other derivative, nothing but a plain number is a constant."""
    return False


def _scalar_beneath(value: Any) -> bool:
    """Whether `value` is a number under the tags of the derivatives enclosing
    this one (their rules take it): what the enclosing contexts' `type` says."""
    while type(value) is Tagged:
        value = value.value
    return type(value) in SCALARS


# Constant functions whose answer, given a user object, is what the object's
# dunder returns (`int(obj)` is `obj.__int__()`, `a < b` is `a.__lt__(b)`): the
# engine runs that dunder in the context, where what it computes and stores keeps
# its tangent; the answer is a constant, as the function's rule says.
_ANSWERED_BY_A_DUNDER = frozenset({int, format, operator.index, math.floor, math.ceil,
                                   math.trunc, operator.lt, operator.le, operator.gt,
                                   operator.ge, operator.eq, operator.ne, bool,
                                   operator.not_, operator.truth})


def _constant_rule(ctx: Differentiation, f: Callable) -> Callable:
    """A function whose result carries no tangent runs natively on the plain values:
    what it computes is right without the engine (a user `__lt__` reads a plain heap)."""
    if f in _ANSWERED_BY_A_DUNDER:
        return _dunder_constant(ctx, f, _plain_constant(f, ctx))
    if f in _ANSWERED_BY_A_PYTHON_DUNDER:
        return _python_dunder_constant(ctx, f, _plain_constant(f, ctx))
    if f is operator.contains:
        return _membership(ctx, _plain_constant(f, ctx))
    return _plain_constant(f, ctx)


def _membership(ctx: Differentiation, constant: Callable) -> Callable:
    """`item in container`: a user container's Python `__contains__` (or, lacking
    one, its `__iter__` or `__getitem__`, which CPython loops over) runs in the
    engine, where what it computes and stores keeps its tangent. Anything else (a
    list, a dict) is the plain constant, natively."""
    def answered(container, item, /):
        kind = type(container)
        if kind not in SCALARS and kind is not Tagged and \
                python_dunder(kind, _MEMBERSHIP) is not None:
            return recurse(ctx, operator.contains, container, item)
        return constant(container, item)

    return answered


_MEMBERSHIP = ("__contains__", "__iter__", "__getitem__")


# Of those, the ones that give a number, whose answer given to them again is itself.
_GIVEN_AGAIN = frozenset({int, operator.index, math.floor, math.ceil, math.trunc})


def _dunder_constant(ctx: Differentiation, f: Callable, constant: Callable) -> Callable:
    """`int(obj)`, `format(obj)`: a user object's dunder answers, run by the engine."""

    def answered(*args, **kwargs):
        mine = ctx.tag
        for a in args[:2]:
            if type(a) not in SCALARS and type(a) is not Tagged:
                # (a number beside it is given plain, as the constant takes it)
                answer = recurse(ctx, f, *_primals(args, mine), **kwargs)
                if type(answer) is Tagged and answer.tag is mine:
                    answer = answer.value
                # `int` given its own answer again: a constant to a derivative
                # enclosing this one too, which runs this and sees that call
                return f(answer) if f in _GIVEN_AGAIN and len(args) == 1 else answer
        return constant(*args, **kwargs)

    return answered


# Constant builtins that C answers by calling one dunder of the object's class (`str`
# calls `__repr__` when the class has only object's `__str__`), and checks the answer.
_ANSWERED_BY_A_PYTHON_DUNDER = {builtins.len: ("__len__",), builtins.hash: ("__hash__",),
                                builtins.repr: ("__repr__",), builtins.ascii: ("__repr__",),
                                builtins.str: ("__str__", "__repr__")}


def _python_dunder_constant(ctx: Differentiation, f: Callable, constant: Callable) -> Callable:
    """`len(obj)`, `hash(obj)`, `repr(obj)`, `str(obj)`, `ascii(obj)` of a user object:
    its Python dunder runs in the context, where what it computes and stores keeps its
    tangent; C checks and converts the answer as its own (`_Answer`). Anything else
    (a list's `len`, a number's `repr`) is the plain constant, natively."""
    names = _ANSWERED_BY_A_PYTHON_DUNDER[f]

    def answered(*args, **kwargs):
        mine = ctx.tag
        if len(args) == 1 and not kwargs and type(args[0]) not in SCALARS and \
                type(args[0]) is not Tagged:
            dunder = python_dunder(type(args[0]), names)
            if dunder is not None:
                answer = recurse(ctx, dunder, args[0])
                return f(_Answer(answer.value if type(answer) is Tagged and answer.tag is mine
                                 else answer))
        return constant(*args, **kwargs)

    return answered


class _Answer:
    """What a user's dunder answered, handed to the builtin that called it, so that C
    checks and converts it as its own (`len`'s index and sign, `hash`'s reduction,
    `str`'s type): no copy of CPython's rules here."""

    __slots__ = ("answer",)

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def __len__(self) -> Any:
        return self.answer

    def __hash__(self) -> Any:
        return self.answer

    def __repr__(self) -> Any:
        return self.answer

    def __str__(self) -> Any:
        return self.answer


def _plain_constant(f: Callable, ctx: Differentiation) -> Callable:
    """`f` on the values under this derivative's tag; a derivative enclosing this one
    runs it natively, `f` being what it runs for `f` (its own constant rule, which
    takes its own tag off), and so on outwards."""
    def constant(*args, **kwargs):
        mine = ctx.tag
        if len(args) == 2 and not kwargs:  # `<`, `is`, `isinstance`: unrolled
            a, b = args
            return f(a.value if type(a) is Tagged and a.tag is mine else a,
                     b.value if type(b) is Tagged and b.tag is mine else b)
        if len(args) == 1 and not kwargs:  # `not`, `type`, `len`
            a, = args
            return f(a.value if type(a) is Tagged and a.tag is mine else a)
        return f(*[a.value if type(a) is Tagged and a.tag is mine else a for a in args],
                 **{k: v.value if type(v) is Tagged and v.tag is mine else v
                    for k, v in kwargs.items()})

    return enclosed(constant, lambda dispatch: _plain_constant(dispatch(f), ctx))


def _with_keywords(ctx: Differentiation, f: Callable, rule: Any, args: tuple,
                   kwargs: dict, live: bool) -> Any:
    """A call with keyword arguments: a tangent may only come by position."""
    mine = ctx.tag
    if any(type(v) is Tagged and v.tag is mine for v in kwargs.values()):
        raise ctx.refuse(no_rule(f, "a keyword argument carries a derivative; pass it by "
                                 "position"))
    if not live:
        return recurse(ctx, f, *args, **kwargs)
    return _APPLY[type(rule)](ctx, functools.partial(f, **kwargs), rule, args)


def _primals(args: tuple, mine: Any) -> list:
    return [a.value if type(a) is Tagged and a.tag is mine else a for a in args]


def _apply_jvp(ctx: Differentiation, f: Callable, rule: Jvp, args: tuple) -> Any:
    mine = ctx.tag
    if len(args) == 1 and not rule.bound and rule.jvps:  # the common case, unrolled
        x = args[0]
        ans = f(x.value)
        return tag(ans, ctx, rule.jvps[0](x.meta, ans, x.value))
    primals = _primals(args, mine)
    ans = f(*primals)
    kind = type(rawest(ans))
    if kind not in _numbers.NUMBERS:  # a constant's type won (`Decimal`, numpy)
        raise ctx.refuse(refusal(
            f, f"its result is a {describe(kind)}, which cannot carry a derivative (ad "
               "differentiates int, float, complex, Fraction, mpf and mpc); convert the "
               "constant first: float(c) or Fraction(c)"))
    if rule.bound:
        args, primals = args[1:], primals[1:]
    if rule.variadic is not None:
        tangents = [a.meta if type(a) is Tagged and a.tag is mine else 0 for a in args]
        return tag(ans, ctx, rule.variadic(tangents, ans, *primals))
    tangent = None
    for index, a in enumerate(args):
        if type(a) is Tagged and a.tag is mine:
            if index >= len(rule.jvps):
                raise ctx.refuse(no_rule(f, f"its rule gives no derivative for argument "
                                            f"{index + 1}"))
            term = rule.jvps[index](a.meta, ans, *primals)
            tangent = term if tangent is None else tangent + term
    return tag(ans, ctx, tangent)


def _apply_constant(ctx: Differentiation, f: Callable, rule: Constant, args: tuple) -> Any:
    return f(*_primals(args, ctx.tag))


def _apply_refused(ctx: Differentiation, f: Callable, rule: Refused, args: tuple) -> Any:
    primals = _primals(args, ctx.tag)
    result = f(*primals)
    if _numeric(result):
        raise ctx.refuse(no_rule(_method_named(primals), "it has no derivative rule"))
    return result


def _apply_user(ctx: Differentiation, f: Callable, rule: User, args: tuple) -> Any:
    mine = ctx.tag
    tangents = [a.meta if type(a) is Tagged and a.tag is mine else 0 for a in args]
    out = rule.function(_primals(args, mine), tangents)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"the rule {rule.name} for {describe(f)} must return "
                        f"(value, tangent), got {out!r}")
    value, tangent = out
    for what, x in (("value", value), ("tangent", tangent)):
        if not is_number(rawest(x)):
            raise TypeError(f"the rule {rule.name} for {describe(f)} returned a {what} of "
                            f"type {type(x).__name__}; it must be a number (int, float, "
                            "complex, Fraction, mpf or mpc)")
    return tag(value, ctx, tangent)


_APPLY = {Jvp: _apply_jvp, Constant: _apply_constant, Refused: _apply_refused,
          User: _apply_user}


def _attribute(ctx: Differentiation, value: Any, name: str, *default: Any) -> Any:
    """`x.real`, `x.conjugate`, `x.as_integer_ratio`: an attribute of a number
    carrying a tangent (one its type has: a float has no `numerator`)."""
    # Only the number's type is asked: under an enclosing derivative, this runs in
    # that context and `value.value` carries its tangent, so the number's own bound
    # method would be the enclosing context's, without this context's tangent.
    kind = type(value.value)
    if name in ATTRIBUTES and hasattr(kind, name):
        return ctx.rule_for(ATTRIBUTES[name])(value)
    if name in METHODS:
        return functools.partial(METHODS[name], value)
    if isinstance(inspect.getattr_static(kind, name, None), _METHODS_OF_A_TYPE):
        unbound = getattr(kind, name)
        if rule_of(unbound) is not None:  # `float.as_integer_ratio`, bound to `x`
            return functools.partial(unbound, value)
        return functools.partial(method, value, name)
    found = getattr(value.value, name, *default)
    if _numeric(found):
        raise ctx.refuse(no_rule(getattr, f"the attribute {name!r} of a number carrying a "
                                          "derivative has no derivative rule"))
    return found


# What a method is, found on its type (not a classmethod, a staticmethod, a property)
_METHODS_OF_A_TYPE = (types.FunctionType, types.MethodDescriptorType,
                      types.WrapperDescriptorType)


def _method_named(primals: list) -> Any:
    """`float.as_integer_ratio`, for the error of `method(x, 'as_integer_ratio')`."""
    return getattr(type(primals[0]), primals[1], method)


def _container(result: Any) -> bool:
    """Whether `result` holds values (bytes hold a number's bits: `_numeric`)."""
    return isinstance(result, Collection) and not isinstance(result, (bytes, bytearray))


def _beyond_the_rule(f: Callable) -> NonDifferentiableError:
    """The error for a derivative a user rule cannot be given: its tangents are
    those of the numbers passed by position."""
    return no_rule(f, "its rule (ad.rule) takes numbers by position, and it received a "
                      "derivative in a container or by keyword")


def _numbers_only(args: tuple, kwargs: dict) -> bool:
    """Whether a call passes only numbers (tagged or not) and no keywords: what a
    user rule's `(primals, tangents)` describes."""
    return not kwargs and all(type(a) is Tagged or type(a) in SCALARS for a in args)


def _numeric(result: Any) -> bool:
    """Whether a foreign call's result holds numbers that a derivative would ride on."""
    if isinstance(result, (bytes, bytearray, memoryview)) or is_number(result):
        return True
    if isinstance(result, array.array) or holds_array_numbers(result):
        return True
    return isinstance(result, (tuple, list)) and any(_numeric(item) for item in result)
