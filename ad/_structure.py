"""Reading the tangents out of what a differentiated function returned.

A number comes back tagged. A list, tuple or dict of numbers, or an object
with numeric fields (a dataclass, an attrs instance, a namedtuple, a plain
object) holds plain values whose tangents sit in the context's shadow store:
`tangents_of` runs in the context, where reading a field gives its tangent
back, and builds the same shape holding tangents (an object as a copy with its
fields replaced, as JAX treats a registered pytree).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import attrs

from tagging import hasmetadata, metadata, untag
from tagging.layer import rawest

from ad._array_points import is_array, tangent_out
from ad._numbers import is_number, zero_like


def tangents_of(value: Any, ctx: Any) -> Any:
    """The tangent of `value` in `ctx`, in `value`'s shape. Runs in `ctx`."""
    if is_number(untag(value, ctx)):
        return tangent_of(value, ctx)
    if is_array(value):
        return tangent_out(ctx, value)
    kind = type(value)
    if kind is list:
        return [tangents_of(item, ctx) for item in value]
    if kind is tuple:
        return tuple([tangents_of(item, ctx) for item in value])
    if kind is dict:
        return {key: tangents_of(item, ctx) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return kind(*[tangents_of(item, ctx) for item in value])
    fields = field_names(value)
    if fields:
        result = copy.copy(value)
        for name in fields:
            object.__setattr__(result, name, tangents_of(getattr(value, name), ctx))
        return result
    raise TypeError(f"{kind.__name__} has no derivative: a differentiated function must "
                    "return a number, a list, tuple or dict of numbers, or an object "
                    f"with numeric fields; it returned {value!r}")


def tangent_of(value: Any, ctx: Any) -> Any:
    """The tangent of a number: its metadata, or a zero of its type (a plain zero,
    whatever derivatives enclosing this one say of the number)."""
    return metadata(value, ctx) if hasmetadata(value, ctx) else \
        zero_like(rawest(untag(value, ctx)))


def field_names(value: Any) -> list:
    """The fields of a dataclass, an attrs instance or a plain object, in order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [field.name for field in dataclasses.fields(value)]
    if attrs.has(type(value)):
        return [field.name for field in attrs.fields(type(value))]
    namespace = getattr(value, "__dict__", None)
    return list(namespace) if isinstance(namespace, dict) else []
