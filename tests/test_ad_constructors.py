"""Containers built from values carrying derivatives, by constructors written in C:
an `OrderedDict`, a `types.SimpleNamespace`, a dict subclass (`Counter`, a user's),
and text made by json's C encoder. Each was refused before; the entries now keep
their derivatives (text carries none, by definition)."""

import collections
import json
import types

import pytest

from ad import D


class Mapping(dict):
    """A user's dict subclass: `dict.__new__` ignores its arguments, `dict.__init__`
    fills it."""


CONSTRUCTED = [  # (f, its derivative at 2)
    (lambda x: collections.OrderedDict([("a", x), ("b", 2 * x)])["b"] * 3, 6),
    (lambda x: list(collections.OrderedDict(a=x, b=3.0).values())[0] * 3, 3),
    (lambda x: types.SimpleNamespace(a=x, b=2.0).a * 5, 5),
    (lambda x: Mapping({"a": x}, b=2 * x)["b"] * 2, 4),
    (lambda x: collections.Counter({"a": x})["a"] * 2, 2),
    (lambda x: sum(collections.Counter({"a": x, "b": 2 * x}).values()), 3),
    (lambda x: len(json.dumps({"a": x, "b": [x, 2]})) * x,
     len(json.dumps({"a": 2.0, "b": [2.0, 2]}))),
]
CONSTRUCTED_IDS = ["OrderedDict-pairs", "OrderedDict-keywords", "SimpleNamespace",
                   "dict-subclass", "Counter", "Counter-values", "json-compact"]


@pytest.mark.parametrize("f, derivative", CONSTRUCTED, ids=CONSTRUCTED_IDS)
def test_c_constructors_keep_the_entries_derivatives(f, derivative):
    assert D(f, 2.0) == derivative
    assert D(D(lambda x: f(x) * x), 2.0) == 2 * derivative


def test_the_constructed_objects_are_plain_after_D():
    made = []

    def f(x):
        made.append((collections.OrderedDict(a=x), types.SimpleNamespace(a=x),
                     Mapping(a=x)))
        return x

    D(f, 2.0)
    ordered, namespace, mapping = made[0]
    assert type(ordered["a"]) is float and type(namespace.a) is float and \
        type(mapping["a"]) is float
    assert (ordered, namespace.a, mapping) == (collections.OrderedDict(a=2.0), 2.0, {"a": 2.0})
