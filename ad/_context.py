"""The differentiation context: a tagging context whose metadata is the tangent.

Every function of the rule tables is one primitive of it, told which function
was called. A call with no argument tagged for this context runs as it would
without it (so an enclosing derivative sees it); otherwise the table line says
how the tangent goes. Foreign calls that receive a tangent, directly or in a
container's slot, and hand back a number are refused: a derivative is never
dropped silently.
"""

from __future__ import annotations

import array
import functools
import types
from typing import Any, Callable

from contexts import Context, canrecurse, primitive, recurse
from tagging import NoMetaData, Tagged, tag
from tagging.layer import carries_metadata

from ad._errors import no_rule
from ad._numbers import NUMBERS, SCALARS, is_number
from ad._rules import ATTRIBUTES, METHODS, RULES, Constant, Jvp, Model, Refused, User, method


class Differentiation(Context):
    """Values tagged with their tangent; one fresh tag per derivative taken."""

    @classmethod
    def metadatatype(cls, value_type: type) -> Any:
        return NUMBERS if value_type in NUMBERS and value_type is not bool else NoMetaData

    @primitive(RULES, told=True)
    def differentiate(self, f: Callable, *args: Any, **kwargs: Any) -> Any:
        mine = self.tag
        live = objects = False
        for a in args:
            if type(a) is Tagged:
                live = live or a.tag is mine
            elif type(a) not in SCALARS:
                objects = True  # a container or user object: the engine runs its code
        rule = RULES[f]
        kind = type(rule)
        if kind is Model:
            return recurse(self, rule.function, *args, **kwargs)
        if not (live or objects or kwargs):
            return f(*args)
        if objects or not (live or _tagged_in(kwargs, mine)):
            return recurse(self, f, *args, **kwargs)
        primals = [a.value if type(a) is Tagged and a.tag is mine else a for a in args]
        plain_kwargs = {k: v.value if type(v) is Tagged and v.tag is mine else v
                        for k, v in kwargs.items()}
        if kind is Constant:
            return f(*primals, **plain_kwargs)
        if kind is Refused:
            result = f(*primals, **plain_kwargs)
            if _numeric(result):
                raise no_rule(_method_named(primals, args), "it has no derivative rule")
            return result
        if kind is Jvp:
            if _tagged_in(kwargs, mine):
                raise no_rule(f, "a keyword argument carries a derivative; pass it by "
                                 "position")
            return _apply_jvp(self, f, rule, args, primals, plain_kwargs)
        return _apply_user(self, f, rule, args, primals, plain_kwargs)

    def fallback(self, f: Callable, *args: Any, **kwargs: Any) -> Any:
        if _constant(f) or not any(carries_metadata(a, self)
                                   for a in (*args, *kwargs.values())):
            return super().fallback(f, *args, **kwargs)
        if f is getattr:
            return _attribute(self, *args)
        wrapped = getattr(f, "__wrapped__", None)
        if wrapped is not None and hasattr(f, "cache_info"):  # functools.lru_cache
            return recurse(self, wrapped, *args, **kwargs)
        if isinstance(f, (types.FunctionType, types.MethodType)):
            raise no_rule(f, f"its body cannot be run in the context: {canrecurse.why(self, f)}")
        result = super().fallback(f, *args, **kwargs)
        if _numeric(result):
            raise no_rule(f)
        return result


def _apply_jvp(ctx: Differentiation, f: Callable, rule: Jvp, args: tuple, primals: list,
               kwargs: dict) -> Any:
    mine = ctx.tag
    ans = f(*primals, **kwargs)
    if rule.bound:
        args, primals = args[1:], primals[1:]
    if rule.variadic is not None:
        tangents = [a.meta if type(a) is Tagged and a.tag is mine else 0 for a in args]
        return tag(ans, ctx, rule.variadic(tangents, ans, *primals))
    tangent = None
    for index, a in enumerate(args):
        if type(a) is Tagged and a.tag is mine:
            if index >= len(rule.jvps):
                raise no_rule(f, f"its rule gives no derivative for argument {index + 1}")
            term = rule.jvps[index](a.meta, ans, *primals)
            tangent = term if tangent is None else tangent + term
    return tag(ans, ctx, tangent)


def _apply_user(ctx: Differentiation, f: Callable, rule: User, args: tuple, primals: list,
                kwargs: dict) -> Any:
    mine = ctx.tag
    tangents = [a.meta if type(a) is Tagged and a.tag is mine else 0 for a in args]
    out = rule.function(primals, tangents, **kwargs)
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"the rule {rule.name} for {f!r} must return (value, tangent), "
                        f"got {out!r}")
    value, tangent = out
    for what, x in (("value", value), ("tangent", tangent)):
        if not is_number(x if type(x) is not Tagged else _rawest(x)):
            raise TypeError(f"the rule {rule.name} for {f!r} returned a {what} of type "
                            f"{type(x).__name__}; it must be a number (int, float, "
                            "complex, Fraction, mpf or mpc)")
    return tag(value, ctx, tangent)


def _attribute(ctx: Differentiation, value: Any, name: str, *default: Any) -> Any:
    """`x.real`, `x.conjugate`: an attribute of a number carrying a tangent."""
    if name in ATTRIBUTES:
        return ctx.differentiate(ATTRIBUTES[name], value)
    if name in METHODS:
        return functools.partial(METHODS[name], value)
    found = getattr(value.value, name, *default)
    if callable(found) and getattr(found, "__self__", None) is value.value:
        return functools.partial(method, value, name)
    if _numeric(found):
        raise no_rule(getattr, f"the attribute {name!r} of a number carrying a derivative "
                               "has no derivative rule")
    return found


def _method_named(primals: list, args: tuple) -> Any:
    """`float.as_integer_ratio`, for the error of `method(x, 'as_integer_ratio')`."""
    return getattr(type(primals[0]), primals[1], method)


def _constant(f: Any) -> bool:
    """Whether `f`'s results carry no tangent by its rule (`len`, `<`)."""
    try:
        return type(RULES.get(f)) is Constant
    except TypeError:  # unhashable
        return False


def _tagged_in(kwargs: dict, mine: Any) -> bool:
    return any(type(v) is Tagged and v.tag is mine for v in kwargs.values())


def _rawest(x: Any) -> Any:
    while type(x) is Tagged:
        x = x.value
    return x


def _numeric(result: Any) -> bool:
    """Whether a foreign call's result holds numbers that a derivative would ride on."""
    if isinstance(result, (bytes, bytearray, memoryview)) or is_number(result):
        return True
    if isinstance(result, array.array):
        return True
    return isinstance(result, (tuple, list)) and any(_numeric(item) for item in result)

