"""Dict views keep their values' derivatives: an OrderedDict's `values()` and
`items()` (in its own order, after `move_to_end` too), and `reversed` views of any
dict, also when stepped by hand. Before, each gave a derivative of 0 with no error."""

import types
from collections import OrderedDict

import pytest

from ad import D, NonDifferentiableError


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


VIEWS = [  # (f, its derivative at 2)
    (values_in_order, 31), (items_in_order, 2), (reversed_values, 10),
    (reversed_items_stepped, 12), (reversed_ordered, 3),
]


@pytest.mark.parametrize("f, derivative", VIEWS, ids=lambda f: getattr(f, "__name__", ""))
def test_views_keep_their_values_derivatives(f, derivative):
    assert D(f, 2.0) == derivative
    assert D(f, 2) == derivative  # small ints are shared objects: still told apart


def test_views_under_nesting():
    assert D(D(lambda x: values_in_order(x) * x), 2.0) == 62


def lru_cache_recipe(x):
    """The LRU cache of the OrderedDict documentation: evict with popitem(last=False)."""
    cache = OrderedDict()
    for key, value in (("a", x), ("b", 2 * x), ("c", 3 * x)):
        cache[key] = value
        cache.move_to_end(key)
        if len(cache) > 2:
            cache.popitem(last=False)
    return sum(cache.values()) + cache.popitem()[1]


ORDERED_METHODS = [  # (f, its derivative at 2)
    (lambda x: ordered(x).pop("a") * 3, 3),
    (lambda x: ordered(x).popitem(last=False)[1] * 3, 3),
    (lambda x: ordered(x).popitem()[1], 3),
    (lambda x: ordered(x).setdefault("a", 1.0) * 3, 3),
    (lambda x: ordered(x).copy()["b"] * 3, 9),
    (lru_cache_recipe, 8),
]


@pytest.mark.parametrize("f, derivative", ORDERED_METHODS)
def test_an_ordered_dicts_own_methods_keep_derivatives(f, derivative):
    """Its C methods, not dict's: `dict.popitem` would not follow its order."""
    assert D(f, 2.0) == derivative and D(D(f), 2.0) == 0


def test_a_c_method_of_a_container_holding_derivatives_is_refused():
    """A C method with no primitive, bound to a container that holds derivatives (an
    OrderedDict has a `__dict__` of its own: its entries are looked at too)."""
    with pytest.raises(NonDifferentiableError, match="__reversed__"):
        D(lambda x: next(ordered(x).__reversed__()), 2.0)


def test_a_chain_map_of_dicts_holding_derivatives():
    """`ChainMap.__iter__` reverses its list of maps: a list of plain dicts, reversed
    natively, whose entries keep their own derivatives (it was refused)."""
    import collections

    def f(x):
        return sum(collections.ChainMap({"a": x}, {"b": 2 * x, "a": 5.0}).values())

    assert D(f, 2.0) == 3.0


def test_reversed_under_nesting_keeps_the_outer_derivative():
    """A list that holds only the outer derivative's values, reversed inside an inner
    derivative: the outer context sees the reversal."""
    def f(y):
        return D(lambda x: list(reversed([2.0 * y, 1.0]))[1] * x, 1.0)

    assert D(f, 3.0) == 2.0


def test_a_c_call_given_a_view_of_a_dict_holding_derivatives_is_refused():
    """A view reads its dict's slots: C's `reversed` of the keys of a dict whose keys
    carry derivatives hands them back plain (it gave 0, no error)."""
    with pytest.raises(NonDifferentiableError, match="dict_keys.__reversed__"):
        D(lambda x: next(reversed({x: 1}.keys())) * 2, 2.0)


# A set built by an operator on a dict's items view: C makes a fresh (key, value)
# pair per entry, which keeps the entry's derivatives (issue 18: they gave 0).

def items_or_a_set(x):
    return sorted({"a": x}.items() | {("b", 2.0)})[0][1] * 3


def a_set_or_items(x):
    return sorted({("b", 2.0)} | {"a": x}.items())[0][1] * 3


def items_minus_and_xor(x):
    d = {"a": x, "b": 2.0}
    return sorted(d.items() - {("b", 2.0)})[0][1] + sorted(d.items() ^ {("c", 1.0)})[0][1]


def items_or_items(x):
    return sum(value for _, value in {"a": x}.items() | {"b": 5 * x}.items())


def items_and_their_own_pairs(x):
    """Whichever pair `&` keeps, the view's or the set's, carries the derivative."""
    d = {"a": x}
    return sorted(d.items() & set(d.items()))[0][1] * 3


def keys_carrying_a_derivative(x):
    return min({x: "k"}.items() | {(10.0, "j")})[0] * 3


VIEW_SETS = [  # (f, its derivative at 2)
    (items_or_a_set, 3), (a_set_or_items, 3), (items_minus_and_xor, 2),
    (items_or_items, 6), (items_and_their_own_pairs, 3), (keys_carrying_a_derivative, 3),
]


@pytest.mark.parametrize("f, derivative", VIEW_SETS, ids=lambda f: getattr(f, "__name__", ""))
def test_a_set_made_of_an_items_view_keeps_each_pairs_derivatives(f, derivative):
    assert D(f, 2.0) == derivative
    assert D(f, 2) == derivative
    assert D(D(f), 2.0) == 0


def test_a_set_made_of_an_items_view_under_nesting():
    """Nested, the inner derivative's check of what the view carries ran its read of
    the view's dict (`gc.get_referents`) in the enclosing derivative, which refused it."""
    for f, derivative in VIEW_SETS:
        assert D(lambda y: D(lambda x: f(x * y), 2.0), 3.0) == derivative


# A mappingproxy shows a mapping (a dict view's `.mapping`, `MappingProxyType(d)`) or a
# class's namespace (`vars(C)`, `type(obj).__dict__`): reading it reads their slots
# (issue 18: `d.values().mapping["a"]` gave 0).

class Holder:
    """A class whose attribute `f` sets."""


def a_views_mapping(x):
    return {"a": x}.values().mapping["a"] * 3


def a_proxy_of_a_dict_changed_after(x):
    d = {"a": 1.0}
    proxy = types.MappingProxyType(d)
    d["a"] = x * 4
    return proxy["a"]


def a_class_namespace(x):
    Holder.attr = x * 3
    return type(Holder()).__dict__["attr"] + vars(Holder)["attr"]


def copies_of_a_proxy(x):
    proxy = types.MappingProxyType({"a": x, "b": 2 * x})
    return dict(proxy)["a"] + {**proxy}["b"]


def a_proxy_splatted(x):
    return (lambda a: a * 3)(**types.MappingProxyType({"a": x}))


def keys_of_a_proxy(x):
    proxy = types.MappingProxyType({x: "k"})
    return min(proxy) * 3 + next(iter(proxy)) + list(proxy.keys())[0]


def methods_of_a_proxy(x):
    proxy = {"a": x, "b": 2 * x}.values().mapping
    return proxy.get("a") + proxy.copy()["b"] + (proxy | {})["a"] + \
        list(proxy.values())[1] + dict(proxy.items())["a"]


def copies_of_a_class_namespace(x):
    Holder.attr = x * 3
    return dict(vars(Holder))["attr"] + {**vars(Holder)}["attr"] + (vars(Holder) | {})["attr"]


PROXIES = [  # (f, its derivative at 2)
    (a_views_mapping, 3), (a_proxy_of_a_dict_changed_after, 4), (a_class_namespace, 6),
    (copies_of_a_proxy, 3), (a_proxy_splatted, 3), (keys_of_a_proxy, 5),
    (methods_of_a_proxy, 7), (copies_of_a_class_namespace, 9),
]


@pytest.mark.parametrize("f, derivative", PROXIES, ids=lambda f: getattr(f, "__name__", ""))
def test_a_mappingproxy_reads_the_slots_of_what_it_shows(f, derivative):
    assert D(f, 2.0) == derivative
    assert D(f, 2) == derivative
    assert D(lambda y: D(lambda x: f(x * y), 2.0), 3.0) == derivative


# Reads of a class's own namespace through each of its snapshots (`values`, `items`, `copy`)
_SNAPSHOT_READS = {
    "values": lambda shown: [v for k, v in zip(shown.keys(), shown.values()) if k == "attr"][0],
    "items": lambda shown: dict(shown.items())["attr"],
    "copy": lambda shown: shown.copy()["attr"],
}


@pytest.mark.parametrize("method", _SNAPSHOT_READS)
def test_a_class_namespaces_own_views_and_copies_keep_the_derivatives(method):
    """Their values are the class's attributes, whose derivatives the store keeps by
    the class, not by its namespace dict: they are a snapshot of the attributes, made
    in the context, each with its derivative."""
    def f(x):
        Holder.attr = x * 3
        return _SNAPSHOT_READS[method](vars(Holder))

    assert D(f, 2.0) == 3.0 and D(f, 2) == 3
    assert D(D(lambda x: f(x * x / 2)), 2.0) == 3.0
