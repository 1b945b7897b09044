"""Hooked operator sites: one helper per operator and site shape.

A hooked context runs `a < 2` through a helper made for `<` with a builtin
constant on the right (`contexts/_helpers.py`, `operator_helper_factory`): it
writes the operator out when the operands are builtins. Whatever the operator
and whichever operands are constants, the hooks must see the same call
(`operator.lt, a, 2`) and the result or error must be the plain one.
"""

from __future__ import annotations

import importlib.util
import math
import operator
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contexts import Context, overdub, primitive
from tests.engine_helpers import Answer, Trace

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
          "<<": operator.lshift, ">>": operator.rshift, "|": operator.or_,
          "^": operator.xor, "&": operator.and_, "@": operator.matmul,
          "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
          ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not}
INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
           "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
           "**=": operator.ipow, "<<=": operator.ilshift, ">>=": operator.irshift,
           "|=": operator.ior, "^=": operator.ixor, "&=": operator.iand}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not ": operator.not_}
CONSTANT = 3  # the builtin constant of the `k` shapes (`is` compares with None instead)


def _sites() -> dict:
    """name -> (source lines, the operator function, its arguments as a function of a, b)."""
    sites = {}
    for index, (symbol, function) in enumerate(BINARY.items()):
        k = None if symbol.startswith("is") else CONSTANT
        sites[f"b{index}_vv"] = ([f"return a {symbol} b"], function, lambda a, b: (a, b))
        sites[f"b{index}_vk"] = ([f"return a {symbol} {k}"], function,
                                 lambda a, b, k=k: (a, k))
        sites[f"b{index}_kv"] = ([f"return {k} {symbol} b"], function,
                                 lambda a, b, k=k: (k, b))
        # in a truth test, the helper tests its own result (`opt_...`)
        sites[f"t{index}_vv"] = ([f"return 1 if a {symbol} b else 0"], function,
                                 lambda a, b: (a, b))
        sites[f"t{index}_vk"] = ([f"if a {symbol} {k}:", "    return 1", "return 0"], function,
                                 lambda a, b, k=k: (a, k))
    for index, (symbol, function) in enumerate(INPLACE.items()):
        sites[f"i{index}_vv"] = ([f"a {symbol} b", "return a"], function, lambda a, b: (a, b))
        sites[f"i{index}_vk"] = ([f"a {symbol} {CONSTANT}", "return a"], function,
                                 lambda a, b: (a, CONSTANT))
    for index, (symbol, function) in enumerate(UNARY.items()):
        sites[f"u{index}_v"] = ([f"return {symbol}a"], function, lambda a, b: (a,))
    sites["contains_vv"] = (["return b in a"], operator.contains, lambda a, b: (a, b))
    sites["contains_kv"] = (["return b in 'abc3'"], operator.contains,
                            lambda a, b: ("abc3", b))
    sites["getitem_vv"] = (["return a[b]"], operator.getitem, lambda a, b: (a, b))
    sites["getitem_vk"] = ([f"return a[{CONSTANT}]"], operator.getitem,
                           lambda a, b: (a, CONSTANT))
    return sites


SITES = _sites()


@pytest.fixture(scope="module")
def site_module(tmp_path_factory):
    """The sites as functions `name(a, b)` in a real module file (the engine reads source)."""
    lines = []
    for site, (body, _, _) in SITES.items():
        lines += [f"def {site}(a, b):", *(f"    {line}" for line in body), ""]
    path = tmp_path_factory.mktemp("sites") / "operator_sites.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("operator_sites", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("operator_sites", None)


class SeenAfter(Context):
    def posthook(self, out, f, *args, **kwargs):
        self.metadata.append((f, args, out))


class AddClaimed(Trace):
    """`+` has a primitive: it must never run natively, builtin operands or not."""

    @primitive(operator.add)
    def add(self, a, b):
        return ("claimed", a, b)


def outcome(thunk) -> tuple:
    try:
        return ("value", thunk())
    except Exception as error:  # the kind and message of the error are the outcome
        return ("error", type(error), str(error))


def same(x: tuple, y: tuple) -> bool:
    if x[0] == "value" and y[0] == "value":
        a, b = x[1], y[1]
        return type(a) is type(b) and (a == b or (a != a and b != b) or (
            isinstance(a, complex) and all(math.isnan(p) or p == q for p, q in zip(
                (a.real, a.imag), (b.real, b.imag)))))
    return x == y


builtin_operands = st.one_of(
    st.integers(-5, 40), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.none(), st.text(max_size=3), st.binary(max_size=3), st.complex_numbers(max_magnitude=4))


@settings(max_examples=300, deadline=None)
@given(site=st.sampled_from(sorted(SITES)), a=builtin_operands, b=builtin_operands)
@example(site="i0_vv", a="ab", b="c")  # `str += str`, the native exception
@example(site="t15_vk", a=2.5, b=None)
@example(site="i0_vk", a="", b="")  # the constant operand is not a str
def test_a_hooked_operator_site_sees_the_call_and_acts_as_plain(site_module, site, a, b):
    function = getattr(site_module, site)
    _, operator_function, arguments = SITES[site]
    plain = outcome(lambda: function(a, b))
    seen = Trace()
    assert same(outcome(lambda: overdub(seen, function, a, b)), plain)
    if operator_function is operator.iadd and all(type(x) is str for x in arguments(a, b)):
        # `s += t` on strings stays native, to keep CPython's in-place concatenation
        assert seen.metadata == []
        return
    assert seen.metadata == [(operator_function, arguments(a, b))]
    after = SeenAfter(metadata=[])
    assert same(outcome(lambda: overdub(after, function, a, b)), plain)
    if plain[0] == "value":
        (called, called_with, out), = after.metadata
        assert (called, called_with) == (operator_function, arguments(a, b))
        assert same(("value", out), outcome(lambda: operator_function(*arguments(a, b))))


@given(a=st.integers(), b=st.integers())
def test_a_claimed_operator_never_runs_natively(site_module, a, b):
    add_variable, add_constant = site_module.b0_vv, site_module.b0_vk
    assert overdub(AddClaimed(), add_variable, a, b) == ("claimed", a, b)
    assert overdub(AddClaimed(), add_constant, a, b) == ("claimed", a, CONSTANT)
    assert overdub(AddClaimed(), site_module.b1_vk, a, b) == a - CONSTANT


class Meters:
    """A user type beside a builtin constant: its operator is Python code hooks see into."""

    def __init__(self, value):
        self.value = value

    def __mul__(self, other):
        return Meters(self.value * other)

    def __rsub__(self, other):
        return Meters(other - self.value)


def test_a_user_operand_beside_a_constant_goes_through_the_context(site_module):
    seen = Trace()
    assert overdub(seen, site_module.b2_vk, Meters(2), None).value == 6
    assert (Meters.__mul__, (Meters, int)) in [(f, tuple(map(type, args)))
                                              for f, args in seen.metadata]
    seen = Trace()
    assert overdub(seen, site_module.b1_kv, None, Meters(2)).value == 1
    assert Meters.__rsub__ in [f for f, _ in seen.metadata]


@pytest.mark.parametrize("site", ["b15_vk", "t15_vk"])
def test_an_outer_context_sees_the_operator_call_inside_the_helper(site_module, site):
    outer, inner = Trace(), Trace()
    assert overdub(outer, overdub, inner, getattr(site_module, site), 1, None) in (True, 1)
    assert inner.metadata == [(operator.lt, (1, CONSTANT))]
    assert (operator.lt, (1, CONSTANT)) in outer.metadata  # the inner helper's own call


class Weight:
    def __init__(self, grams):
        self.grams = grams

    def __lt__(self, other):
        return Answer(self.grams < other)


def test_a_tested_operator_site_tests_a_user_result_in_the_context(site_module):
    """`if a < 3:` with a user `__lt__`: the hooks see `__lt__`, then `__bool__`."""
    for grams, expected in [(1, 1), (5, 0)]:
        seen = Trace()
        assert overdub(seen, site_module.t15_vk, Weight(grams), None) == expected
        called = [f for f, _ in seen.metadata]
        assert called.index(Weight.__lt__) < called.index(Answer.__bool__)
    seen = Trace()
    assert overdub(seen, site_module.t15_vk, 1, None) == 1
    assert seen.metadata == [(operator.lt, (1, CONSTANT))]  # a bool: nothing else runs
