"""A tagged value that leaves its context refuses to act as a number.

`overdub` in a tagging context may return a `Tagged`. Outside the context, a
comparison, arithmetic, a truth test, a conversion or `format` of it raise a
`TypeError` naming `untag` and `metadata`, instead of answering as a wrong
number would (`r == 1.5` was silently False). Inside the context all of these
keep working on the plain value.
"""

from __future__ import annotations

import math
import operator

import pytest

from contexts import Context, overdub
from tagging import Tagged, enabletagging, metadata, tag, untag


class Ctx(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str


def identity(x):
    return x


@pytest.fixture
def escaped():
    ctx = enabletagging(Ctx(), identity)
    result = overdub(ctx, identity, tag(1.5, ctx, "m"))
    assert type(result) is Tagged
    return ctx, result


OPERATIONS = {
    "==": lambda r: r == 1.5, "!=": lambda r: r != 1.5, "<": lambda r: r < 2.0,
    ">=": lambda r: 2.0 >= r, "+": lambda r: r + 1, "radd": lambda r: 1 + r,
    "*": lambda r: r * 2, "/": lambda r: 3 / r, "**": lambda r: r ** 2, "-x": lambda r: -r,
    "abs": abs, "bool": bool, "not": lambda r: not r, "if": lambda r: 1 if r else 0,
    "float": float, "int": int, "complex": complex, "round": round, "math.floor": math.floor,
    "format": lambda r: format(r, ".2f"), "f-string": lambda r: f"{r:.1f}",
    "operator.index": operator.index, "math.sin": math.sin, "range": range,
}


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=OPERATIONS.keys())
def test_an_escaped_tagged_value_refuses_to_be_a_number(escaped, operation):
    ctx, result = escaped
    with pytest.raises(TypeError, match=r"untag\(r, ctx\).*metadata\(r, ctx\)"):
        operation(result)
    assert untag(result, ctx) == 1.5 and metadata(result, ctx) == "m"


def test_the_repr_of_an_escaped_value_shows_tag_value_and_metadata(escaped):
    ctx, result = escaped
    shown = repr(result)
    assert "1.5" in shown and "'m'" in shown and "Ctx#" in shown
    assert str(result) == shown


def test_an_escaped_value_still_hashes_by_identity(escaped):
    _, result = escaped
    assert {result: 1}[result] == 1


def every_operation(x):
    """The same operations inside the context: all on the plain value."""
    values = [x == 1.5, x != 1.5, x < 2.0, 2.0 >= x, x + 1, 1 + x, x * 2, 3 / x, x ** 2,
              -x, abs(x), bool(x), not x, 1 if x else 0, float(x), int(x), complex(x),
              round(x), math.floor(x), format(x, ".2f"), f"{x:.1f}", math.sin(x),
              [v for v in (x, 0.0) if v], x in (1.5,), (x, 2.0).index(x)]
    return values


def test_inside_the_context_every_operation_sees_the_plain_value():
    ctx = enabletagging(Ctx(), every_operation)
    inside = overdub(ctx, every_operation, tag(1.5, ctx, "m"))
    plain = every_operation(1.5)
    assert [untag(v, ctx) for v in inside] == plain


def test_a_value_tagged_by_another_context_is_compared_by_identity_inside():
    other = enabletagging(Ctx(), identity)
    foreign = tag(1.5, other, "theirs")

    def find(items, item):
        return [item == i for i in items], item in items

    ctx = enabletagging(Ctx(), find)
    assert overdub(ctx, find, [foreign, 1.5], foreign) == ([True, False], True)
