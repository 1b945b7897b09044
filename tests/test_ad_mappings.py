"""Dict views keep their values' derivatives: an OrderedDict's `values()` and
`items()` (in its own order, after `move_to_end` too), and `reversed` views of any
dict, also when stepped by hand. Before, each gave a derivative of 0 with no error."""

from collections import OrderedDict

import pytest

from ad import D


def ordered(x):
    o = OrderedDict()
    o["a"], o["b"] = x, 3 * x
    return o


def values_in_order(x):
    o = ordered(x)
    o.move_to_end("a")  # now b, a: dict.items would still say a, b
    first, second = list(o.values())
    return first * 10 + second


def items_in_order(x):
    o = ordered(x)
    o.move_to_end("a")
    return [value * (i + 1) for i, (_, value) in enumerate(o.items())][1]


def reversed_values(x):
    d = {"a": x, "b": 1.0, "c": 2 * x}
    return list(reversed(d.values()))[0] * 5


def reversed_items_stepped(x):
    d = {"a": x, "b": 1.0, "c": 2 * x}
    steps = reversed(d.items())
    first = next(steps)[1]
    return first + sum(value for _, value in steps) * 10


def reversed_ordered(x):
    o = ordered(x)
    o.move_to_end("a")
    return list(reversed(o.values()))[1]


@pytest.mark.parametrize("f, derivative", [
    (values_in_order, 31), (items_in_order, 2), (reversed_values, 10),
    (reversed_items_stepped, 12), (reversed_ordered, 3),
], ids=lambda f: getattr(f, "__name__", ""))
def test_views_keep_their_values_derivatives(f, derivative):
    assert D(f, 2.0) == derivative
    assert D(f, 2) == derivative  # small ints are shared objects: still told apart


def test_views_under_nesting():
    assert D(D(lambda x: values_in_order(x) * x), 2.0) == 62
