"""The overdub engine: finding bodies by code object, hooks, models, bad input."""

from __future__ import annotations

import ast
import asyncio
import collections
import dataclasses
import functools
import gc
import importlib
import importlib.util
import inspect
import itertools
import linecache
import operator
import sys
import textwrap
import types
import weakref

import attrs
import pytest

from contexts import Context, canrecurse, context, lowered, overdub, primitive
from contexts._runtime import Runtime
from contexts.layer import Layer
from tests.engine_helpers import Events, Trace, name_of


# 1. Finding the source of what runs, by code object ------------------------------

def helper(x):
    return x + 100


def plain(x):
    return helper(x) * 2


def test_plain_function_body_is_seen():
    t = Trace()
    assert overdub(t, plain, 1) == 202
    assert t.metadata == [(helper, (1,)), (operator.add, (1, 100)),
                          (operator.mul, (101, 2))]


add_one, double, minus = (lambda x: x + 1), (lambda x: x * 2), (lambda x: x - 3)  # noqa: E731
nested_lambdas = lambda x: (lambda y: y - 1)(x) * 5  # noqa: E731


@pytest.mark.parametrize("f, op, result", [(add_one, operator.add, 11),
                                           (double, operator.mul, 20),
                                           (minus, operator.sub, 7)])
def test_each_lambda_on_one_line_is_found(f, op, result):
    t = Trace()
    assert overdub(t, f, 10) == result
    assert t.callees == [op]


def test_lambda_inside_lambda_on_one_line():
    t = Trace()
    assert overdub(t, nested_lambdas, 4) == 15
    assert [f for f in t.callees if f in (operator.sub, operator.mul)] == [
        operator.sub, operator.mul]
    assert t.args_of(operator.sub) == [(4, 1)]


def make_closure(k):
    scale = k * 10

    def inner(x):
        return helper(x) + scale

    return inner


def make_counter():
    count = 0

    def bump(step):
        nonlocal count
        count += step
        return count

    return bump


def test_nested_function_with_closure():
    inner = make_closure(2)
    t = Trace()
    assert overdub(t, inner, 1) == 121
    assert t.metadata == [(helper, (1,)), (operator.add, (1, 100)),
                          (operator.add, (101, 20))]


def test_nonlocal_store_reaches_the_real_cell():
    bump = make_counter()
    t = Trace()
    assert overdub(t, bump, 3) == 3
    assert overdub(t, bump, 4) == 7
    assert bump(1) == 8  # the cell the transformed code wrote is the function's own
    assert t.args_of(operator.iadd) == [(0, 3), (3, 4)]


class Shape:
    sides = 4

    def __init__(self, size):
        self.size = size

    def area(self):
        return helper(self.size) * self.size

    @classmethod
    def unit(cls):
        return cls(helper(-99))

    @staticmethod
    def twice(x):
        return helper(x) * 2

    def __call__(self, x):
        return helper(x) - self.size


def test_bound_method():
    shape = Shape(3)
    t = Trace()
    assert overdub(t, shape.area) == 309
    assert t.callees[:1] == [helper]
    assert t.args_of(operator.mul) == [(103, 3)]


def test_class_method():
    t = Trace()
    unit = overdub(t, Shape.unit)
    assert isinstance(unit, Shape) and unit.size == 1
    assert t.args_of(helper) == [(-99,)]
    assert t.saw(Shape)


def test_static_method():
    t = Trace()
    assert overdub(t, Shape.twice, 1) == 202
    assert t.args_of(helper) == [(1,)]


def test_callable_object_runs_its_call_method():
    shape = Shape(5)
    t = Trace()
    assert overdub(t, shape, 1) == 96
    assert t.args_of(helper) == [(1,)]
    assert t.args_of(operator.sub) == [(101, 5)]


def build_shape(size):
    return Shape(size)


def test_construction_emulates_type_call():
    t = Trace()
    shape = overdub(t, build_shape, 6)
    assert type(shape) is Shape and shape.size == 6
    assert t.saw(Shape)
    assert t.args_of(Shape.__init__) == [(shape, 6)]


class Other:
    made = []

    def __new__(cls, x):
        return helper(x)

    def __init__(self, x):  # never runs: __new__ returns another type
        Other.made.append(x)


def build_other(x):
    return Other(x)


def test_new_returning_another_type_skips_init():
    t = Trace()
    assert overdub(t, build_other, 1) == 101
    assert Other.made == []
    assert t.saw(Other.__new__)
    assert not t.saw(Other.__init__)
    assert t.args_of(helper) == [(1,)]


class Counting(type):
    """A metaclass whose Python `__call__` wraps construction."""

    made = 0

    def __call__(cls, *args):
        Counting.made += 1
        return helper(super().__call__(*args).size)


class Counted(metaclass=Counting):
    def __init__(self, size):
        self.size = size


def test_a_metaclass_call_runs_in_the_context():
    """`Counted(5)` is `Counting.__call__(Counted, 5)`: its calls, and the `__init__`
    its `super().__call__` runs, are seen."""
    t, before = Trace(), Counting.made
    assert overdub(t, lambda: Counted(5)) == 105
    assert Counting.made == before + 1
    assert t.args_of(Counted.__init__)[0][1:] == (5,)
    assert t.args_of(helper) == [(5,)]


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        wrapper.calls.append(args)
        return fn(*args) + 1000

    wrapper.calls = []
    return wrapper


@logged
def wrapped(x):
    return helper(x)


def test_wraps_wrapper_runs_its_own_body():
    t = Trace()
    assert overdub(t, wrapped, 1) == 1101
    assert wrapped.calls == [(1,)]
    assert wrapped.__wrapped__ in t.callees  # the wrapper's call of fn
    assert t.args_of(operator.add)[-1] == (101, 1000)


def three(a, b, c=0):
    return helper(a) - b + c


def call_partial(p):
    return p(5)


def test_partial_called_at_top():
    p = functools.partial(three, 1, c=7)
    t = Trace()
    assert overdub(t, p, 2) == 106
    assert t.args_of(helper) == [(1,)]


def test_partial_called_inside():
    p = functools.partial(three, 1)
    t = Trace()
    assert overdub(t, call_partial, p) == 96
    assert t.callees[0] is p
    assert t.args_of(helper) == [(1,)]
    assert t.args_of(operator.sub) == [(101, 5)]


def squares(n):
    for i in range(n):
        yield helper(i)


def drain(n):
    out = []
    for value in squares(n):
        out.append(value)
    return out


def test_generator_body_is_seen():
    t = Trace()
    assert overdub(t, drain, 3) == [100, 101, 102]
    assert t.args_of(helper) == [(0,), (1,), (2,)]


def test_generator_function_overdubbed_directly():
    t = Trace()
    gen = overdub(t, squares, 2)
    assert list(gen) == [100, 101]
    assert t.args_of(helper) == [(0,), (1,)]


async def coro_add(x):
    await asyncio.sleep(0)
    return helper(x)


def drive(coro):
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value


def run_coroutine_by_hand(x):
    return drive(coro_add(x))


def test_coroutine_body_is_seen():
    t = Trace()
    assert overdub(t, run_coroutine_by_hand, 4) == 104
    assert t.saw(coro_add)
    assert t.args_of(helper) == [(4,)]


def test_coroutine_function_overdubbed_directly():
    t = Trace()
    coro = overdub(t, coro_add, 5)
    assert asyncio.iscoroutine(coro)
    assert asyncio.run(coro) == 105
    assert t.args_of(helper) == [(5,)]


class Ticking:
    """An async iterator and async context manager written in Python: CPython calls
    `__aiter__`, `__anext__`, `__aenter__` and `__aexit__` natively, each `async def`
    one making a coroutine of its untransformed code."""

    def __init__(self, v):
        self.v, self.n = v, 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.n >= 2:
            raise StopAsyncIteration
        self.n += 1
        return helper(self.v * self.n)

    async def __aenter__(self):
        return helper(self.v)

    async def __aexit__(self, *exc):
        return False


async def ticked(x):
    total = 0
    async for v in Ticking(x):
        total += v
    async with Ticking(x) as entered:
        total += entered
    return total + sum([v async for v in Ticking(x)])


def test_async_for_and_async_with_run_their_python_methods_in_the_context():
    t = Trace()
    assert overdub(t, lambda x: asyncio.run(ticked(x)), 4) == asyncio.run(ticked(4)) == 528
    assert t.args_of(helper) == [(4,), (8,), (4,), (4,), (8,)]
    assert t.saw(Ticking.__anext__) and t.saw(Ticking.__aenter__) and t.saw(Ticking.__aexit__)


class WithStatic:
    @staticmethod
    def shifted(x):
        return helper(x)


def call_the_staticmethod_object(x):
    return WithStatic.__dict__["shifted"](x)  # a staticmethod object is callable (3.10)


def test_a_staticmethod_object_called_directly_runs_its_function_in_the_context():
    """It was a C callable's `__call__`, run natively: its body unseen, and under
    `D` refused as C code with no rule."""
    t = Trace()
    assert overdub(t, call_the_staticmethod_object, 4) == 104
    assert t.args_of(helper) == [(4,)]


def positive(instance, attribute, value):
    if value <= 0:
        raise ValueError(f"{attribute.name} must be positive")


@attrs.define
class Measured:
    size: int = attrs.field(validator=positive)


def build_measured(size):
    return Measured(size)


def test_attrs_generated_init_calls_validator_in_context():
    t = Trace()
    made = overdub(t, build_measured, 3)
    assert made == Measured(3)
    assert t.saw(Measured.__init__)
    calls = t.args_of(positive)
    assert len(calls) == 1 and calls[0][0] is made and calls[0][2] == 3
    with pytest.raises(ValueError, match="size must be positive"):
        overdub(Trace(), build_measured, -1)


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
    tags: list = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self.tags.append(helper(self.x))


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "b"


def build(cls, *args, **kwargs):
    return cls(*args, **kwargs)


def test_dataclass_init_has_no_source_but_is_modelled():
    assert Point.__init__.__code__.co_filename == "<string>"
    assert canrecurse(Trace(), Point.__init__)
    t = Trace()
    made = overdub(t, build, Point, 1, y=2)
    assert made == Point(1, 2) == build(Point, 1, y=2)
    # the model's stores are no calls, as `self.x = x` in a written `__init__` is none
    assert not t.saw(setattr)
    assert t.saw(list) and t.saw(Point.__post_init__)  # the default factory, the hook
    assert t.args_of(helper) == [(1,)]


def test_frozen_dataclass_and_errors_match_plain():
    assert overdub(Trace(), build, Frozen, 1) == Frozen(1) == Frozen(1, "b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        overdub(Trace(), setattr, Frozen(1), "a", 2)
    with pytest.raises(TypeError) as plain_error:
        Point()
    with pytest.raises(TypeError) as overdubbed_error:
        overdub(Trace(), build, Point)
    assert str(overdubbed_error.value) == str(plain_error.value)


Pair = collections.namedtuple("Pair", "left right", defaults=[9])


def test_namedtuple_new_is_modelled():
    with pytest.raises(OSError):
        inspect.getsource(Pair.__new__)
    assert canrecurse(Trace(), Pair.__new__)
    t = Trace()
    made = overdub(t, build, Pair, 1)
    assert made == Pair(1) == (1, 9) and type(made) is Pair
    assert overdub(Trace(), build, Pair, right=3, left=2) == Pair(2, 3)
    assert t.saw(Pair.__new__)


# A module edited after import --------------------------------------------------

ORIGINAL = """
def compute(x):
    return x + 1
"""
EDITED = """
def compute(x):
    return x - 1
"""


@pytest.fixture
def editable_module(tmp_path, monkeypatch):
    """`(module, edit)`: a fresh module holding ORIGINAL; `edit()` rewrites its file."""
    name = f"engine_edited_{len(sys.modules)}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(ORIGINAL))
    monkeypatch.syspath_prepend(str(tmp_path))

    def edit():
        path.write_text(textwrap.dedent(EDITED))
        linecache.checkcache(str(path))
        assert "x - 1" in "".join(linecache.getlines(str(path)))

    yield importlib.import_module(name), edit
    sys.modules.pop(name, None)


def test_source_edited_after_import_is_not_run(editable_module):
    module, edit = editable_module
    edit()
    ctx = Trace()
    assert not canrecurse(ctx, module.compute)
    reason = canrecurse.why(ctx, module.compute)
    assert "edited" in reason and "compute" in reason
    assert overdub(ctx, module.compute, 5) == 6  # the original behaviour
    assert module.compute(5) == 6


class Doubling(Context):
    """Another mode than `Trace`: only `+` is claimed."""

    @primitive(operator.add)
    def add(self, a, b):
        return 2 * (a + b)


def test_source_edited_after_first_use_is_not_used_later(editable_module):
    """Other modes transform the source that was verified, not the edited file."""
    module, edit = editable_module
    assert overdub(Trace(), module.compute, 5) == 6
    edit()
    assert overdub(Doubling(), module.compute, 5) == 12  # 2 * (5 + 1), not 5 - 1
    assert module.compute(5) == 6


TWICE = """
class Shape:
    def area(self, side):
        return side * side + 1


def outer(x):
    def inner(y):
        return y * 2
    return inner(x) + 1


def plain(x):
    return x * 2 + 1
"""


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_file_loaded_twice_transforms_in_every_mode(tmp_path):
    """The first transform takes the file index's node; every later one (another
    mode, or the same file's other code objects) must still get the source."""
    path = tmp_path / "loaded_twice.py"
    path.write_text(TWICE)
    first, second = _load(path, "loaded_once"), _load(path, "loaded_twice")
    for module in (first, second):
        for ctx in (Trace(), Doubling()):
            assert canrecurse(ctx, module.plain), canrecurse.why(ctx, module.plain)
            assert canrecurse(ctx, module.Shape.area)
            expected = {Trace: (7, 10, 7), Doubling: (14, 20, 14)}[type(ctx)]
            assert (overdub(ctx, module.plain, 3), overdub(ctx, module.Shape().area, 3),
                    overdub(ctx, module.outer, 3)) == expected



NESTED = """
def outer(x):
    scale = 2

    def inner(y):
        return y * scale + 1
    shift = lambda z: z - 1
    pairs = [(lambda k: k * scale)(i) for i in range(2)]
    return inner, shift, inner(x) + shift(x) + sum(pairs)
"""


def _bump_every_int(context_type, f, tree):
    """A pass that rewrites nested bodies too (as `ast.walk` passes do)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 100
    return tree


Bumping = context("Bumping")
Bumping.passes = [_bump_every_int]


@pytest.mark.parametrize("outer_first", [True, False])
def test_scopes_inside_a_function_are_found_before_or_after_it(tmp_path, outer_first):
    """A function's body is indexed when a scope inside it is first asked for: from
    the file's own node, or from a fresh parse once the function's node was handed
    to its first transform, which a pass may have changed all through. Later modes
    still get the source of the scopes inside."""
    path = tmp_path / f"nested_{outer_first}.py"
    path.write_text(NESTED)
    module = _load(path, f"nested_{outer_first}")
    inner, shift, total = module.outer(3)
    ctx = Trace()
    if outer_first:
        overdub(Bumping(), module.outer, 3)
    assert (overdub(ctx, inner, 3), overdub(ctx, shift, 3)) == (7, 2)
    if not outer_first:  # it must not change the nodes found inside it
        overdub(Bumping(), module.outer, 3)
    assert overdub(ctx, module.outer, 3)[2] == total
    assert {f for f, _ in ctx.metadata} >= {operator.mul, operator.add, operator.sub}
    for f in (module.outer, inner, shift):
        assert canrecurse(ctx, f), canrecurse.why(ctx, f)
    assert (overdub(Doubling(), inner, 3), overdub(Doubling(), shift, 3)) == (14, 2)



def test_no_transformed_tree_outlives_its_compile(tmp_path):
    """The file index hands its node's contents to the first transform: neither
    the index nor the cached source keeps the (larger) transformed tree alive."""
    path = tmp_path / "retained_probe.py"
    path.write_text("def retained_probe(x):\n    return x * 2 + 1\n")
    module = _load(path, "retained_probe")
    assert overdub(Trace(), module.retained_probe, 3) == 7
    gc.collect()
    trees = [o for o in gc.get_objects()
             if isinstance(o, ast.FunctionDef) and o.name == "retained_probe"]
    assert trees, "the file index keeps the definition's node"
    hidden = [n.id for tree in trees for n in ast.walk(tree)
              if isinstance(n, ast.Name) and n.id.startswith("__ovd")]
    assert hidden == []


def lazily_compiled(x, *, me=None):
    """networkx's lazy decorators: on the first call, put the real code in place
    (`me` is the function itself), then call itself to run it."""
    me.__code__ = compiled_body.__code__
    return me(x)


def compiled_body(x, *, me=None):
    return helper(x) * 3


def fresh_lazy():
    lazy = types.FunctionType(lazily_compiled.__code__, globals(), "lazy")
    lazy.__kwdefaults__ = {"me": lazy}
    return lazy


class OnlyAPrimitive(Context):
    """Resolves callees without hooks: calls go through the resolution table."""

    @primitive(abs)
    def never_called(self, x):
        raise AssertionError("abs is not called")


@pytest.mark.parametrize("make_context", [Trace, OnlyAPrimitive, lambda: Context(tag=Bare())])
def test_a_function_that_replaces_its_own_code_runs_the_new_code(make_context):
    ctx = make_context()
    lazy = fresh_lazy()
    assert overdub(ctx, lambda x: lazy(x), 1) == 303  # the old code would recurse forever
    assert overdub(ctx, lambda x: lazy(x) + 1, 1) == 304


def lazily_compiled_in_a_list(x, *, me=None):
    """The same, the function reached through an expression evaluated once."""
    [me][0].__code__ = compiled_body.__code__
    return me(x)


@pytest.mark.parametrize("make_context", [Trace, OnlyAPrimitive, lambda: Context(tag=Bare())])
def test_a_code_store_through_an_expression_is_seen_too(make_context):
    lazy = types.FunctionType(lazily_compiled_in_a_list.__code__, globals(), "lazy")
    lazy.__kwdefaults__ = {"me": lazy}
    assert overdub(make_context(), lambda x: lazy(x), 1) == 303


@pytest.mark.xfail(strict=True, reason="known limit: code replaced outside every context "
                                        "is not seen by a context that already resolved it")
def test_code_replaced_between_runs_is_seen_by_a_context_used_again():
    ctx = OnlyAPrimitive()
    lazy = fresh_lazy()
    assert overdub(ctx, lambda x: lazy(x), 1) == 303  # resolved with compiled_body's code
    lazy.__code__ = helper.__code__
    assert overdub(ctx, lambda x: lazy(x), 1) == 101


# 2. Hooks ------------------------------------------------------------------------

def leaf(x):
    return x * 3


def branch(x):
    return leaf(x) + 1


def tree(x):
    a = branch(x)
    b = leaf(a)
    return a - b


def test_exact_hook_order_for_a_nested_call_tree():
    e = Events()
    assert overdub(e, tree, 2) == 7 - 21
    assert e.metadata == [
        ("pre", "branch", (2,)),
        ("pre", "leaf", (2,)),
        ("pre", "mul", (2, 3)),
        ("post", "mul", 6),
        ("post", "leaf", 6),
        ("pre", "add", (6, 1)),
        ("post", "add", 7),
        ("post", "branch", 7),
        ("pre", "leaf", (7,)),
        ("pre", "mul", (7, 3)),
        ("post", "mul", 21),
        ("post", "leaf", 21),
        ("pre", "sub", (7, 21)),
        ("post", "sub", -14),
    ]


class Outputs(Context):
    def posthook(self, output, f, *args, **kwargs):
        self.metadata.append((name_of(f), output, args, kwargs))


def kwcall(x):
    return three(x, 2, c=x)


def test_posthook_gets_output_and_keyword_arguments():
    ctx = Outputs(metadata=[])
    assert overdub(ctx, kwcall, 4) == 106
    assert ctx.metadata[-1] == ("three", 106, (4, 2), {"c": 4})
    assert ("helper", 104, (4,), {}) in ctx.metadata


def operators(xs, i, y):
    a = xs[i]
    xs[i] = -a
    b = y in xs
    c = a < y <= 10
    y += 1
    del xs[0]
    return a, b, c, y, not b


def test_operators_are_seen_as_operator_calls():
    t = Trace()
    xs = [1, 2, 3]
    assert overdub(t, operators, xs, 1, 5) == (2, False, True, 6, True)
    assert xs == [-2, 3]
    assert t.callees == [operator.getitem, operator.neg, operator.setitem,
                         operator.contains, operator.lt, operator.le, operator.iadd,
                         operator.delitem, operator.not_]
    [(container, item)] = t.args_of(operator.contains)
    assert container is xs and item == 5


def text_of(x):
    return str(x)


def key_neg(x):
    return -x


def is_odd(x):
    return x % 2 == 1


def add2(a, b):
    return a + b


def sorted_by(xs):
    return sorted(xs, key=key_neg)


def mapped(xs):
    return list(map(key_neg, xs))


def filtered(xs):
    return list(filter(is_odd, xs))


def extremes(xs):
    return min(xs, key=key_neg), max(xs, key=key_neg)


def reduced(xs):
    return functools.reduce(add2, xs)


def accumulated(xs):
    return list(itertools.accumulate(xs, add2))


def starmapped(xs):
    return list(itertools.starmap(add2, zip(xs, xs)))


def taken(xs):
    return list(itertools.takewhile(is_odd, xs))


def dropped(xs):
    return list(itertools.dropwhile(is_odd, xs))


def filtered_false(xs):
    return list(itertools.filterfalse(is_odd, xs))


def grouped(xs):
    return [(k, list(g)) for k, g in itertools.groupby(xs, is_odd)]


@pytest.mark.parametrize("f, callback, expected_calls", [
    (sorted_by, key_neg, 4),
    (mapped, key_neg, 4),
    (filtered, is_odd, 4),
    (extremes, key_neg, 8),
    (reduced, add2, 3),
    (accumulated, add2, 3),
    (starmapped, add2, 4),
    (taken, is_odd, 3),
    (dropped, is_odd, 3),
    (filtered_false, is_odd, 4),
    (grouped, is_odd, 4),
])
def test_builtin_models_show_callbacks(f, callback, expected_calls):
    xs = [3, 1, 4, 2]
    t = Trace()
    assert overdub(t, f, xs) == f(xs)
    assert len(t.args_of(callback)) == expected_calls


class Num:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Num(self.v + (other.v if isinstance(other, Num) else other))

    __radd__ = __add__

    def __eq__(self, other):
        return isinstance(other, Num) and self.v == other.v

    __hash__ = None


def sum_nums(n):
    return sum((Num(i) for i in range(n)), Num(0))


def test_sum_over_generator_adds_in_context():
    t = Trace()
    assert overdub(t, sum_nums, 3) == Num(3)
    adds = t.args_of(operator.add)
    assert [(a.v, b.v) for a, b in adds if isinstance(a, Num)] == [(0, 0), (0, 1), (1, 2)]


class Countdown:
    """An iterator written in Python: C code would call `__next__` unseen."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


class Table:
    """A mapping written in Python, for `dict.update`."""

    def __init__(self, data):
        self.data = data

    def keys(self):
        return list(self.data)

    def __getitem__(self, key):
        return self.data[key]


class Letters:
    """A sequence written in Python, for `reversed`."""

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if not 0 <= i < 3:
            raise IndexError(i)
        return "abc"[i]


def list_of_iterator(n):
    return list(Countdown(n))


def update_from_table():
    d = {"z": 0}
    d.update(Table({"a": 1, "b": 2}))
    return d


def extend_from_iterator(n):
    out = [9]
    out.extend(Countdown(n))
    return out


def join_iterator(n):
    return "-".join(map(str, Countdown(n)))


def enumerate_iterator(n):
    return list(enumerate(Countdown(n), 1))


def zip_iterators(n):
    return list(zip(Countdown(n), Countdown(n + 1)))


def reversed_sequence():
    return list(reversed(Letters()))


def list_of_generator(n):
    return list(x * 10 for x in Countdown(n))


def contains_by_iterating(n):
    return 1 in Countdown(n)


def contains_by_indexing():
    return "c" in Letters()


def yield_from_iterator(n):
    return list(delegate_to(Countdown(n)))


@pytest.mark.parametrize("f, args, seen, count", [
    (list_of_iterator, (3,), Countdown.__next__, 4),
    (update_from_table, (), Table.__getitem__, 2),
    (extend_from_iterator, (2,), Countdown.__next__, 3),
    (join_iterator, (2,), Countdown.__next__, 3),
    (enumerate_iterator, (2,), Countdown.__next__, 3),
    (zip_iterators, (2,), Countdown.__next__, 5),
    (reversed_sequence, (), Letters.__getitem__, 3),
    (list_of_generator, (2,), Countdown.__next__, 3),
    (contains_by_iterating, (3,), Countdown.__next__, 2),
    (contains_by_indexing, (), Letters.__getitem__, 3),
    (yield_from_iterator, (2,), Countdown.__next__, 3),
    (yield_from_iterator, (2,), Countdown.__iter__, 1),
])
def test_builtin_models_show_python_protocol_calls(f, args, seen, count):
    t = Trace()
    assert overdub(t, f, *args) == f(*args)
    assert len(t.args_of(seen)) == count


def test_join_sees_str_calls_from_map():
    t = Trace()
    assert overdub(t, join_iterator, 3) == "2-1-0"
    assert t.args_of(str) == [(2,), (1,), (0,)]


class Silo:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


class SiloCtx(Context):
    @primitive(Silo.__iter__)
    def silo_iter(self, silo):
        return iter(["x", "y"])


def loop_silo(silo):
    out = []
    for item in silo:
        out.append(item)
    return out


def pair(a, b):
    return a + b


def splat_silo(silo):
    return pair(*silo)


def list_silo(silo):
    return list(silo)


def comprehend_silo(silo):
    return [item * 2 for item in silo]


def unpack_silo(silo):
    a, b = silo
    return b, a


def contains_silo(silo):
    return "y" in silo, 2 in silo, "x" not in silo


def delegate_to(iterable):
    return (yield from iterable)


def yield_from_silo(silo):
    return list(delegate_to(silo))


@pytest.mark.parametrize("f, expected", [
    (loop_silo, ["x", "y"]), (splat_silo, "xy"), (list_silo, ["x", "y"]),
    (comprehend_silo, ["xx", "yy"]), (unpack_silo, ("y", "x")),
    (contains_silo, (True, False, False)), (yield_from_silo, ["x", "y"]),
])
def test_iter_primitive_is_honoured_however_the_silo_is_iterated(f, expected):
    silo = Silo([1, 2])
    assert overdub(SiloCtx(), f, silo) == expected


class Vec:
    def __init__(self, *xs):
        self.xs = xs

    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

    def __getitem__(self, i):
        return helper(self.xs[i])

    def __call__(self, k):
        return Vec(*[helper(x) * k for x in self.xs])

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    __hash__ = None


def use_vec(a, b):
    c = a + b
    return c[0], c(2)


def test_protocol_methods_of_user_classes_are_reached():
    t = Trace()
    a, b = Vec(1, 2), Vec(10, 20)
    first, called = overdub(t, use_vec, a, b)
    assert (first, called) == use_vec(a, b) == (111, Vec(222, 244))
    assert t.args_of(Vec.__add__) == [(a, b)]
    assert len(t.args_of(Vec.__init__)) == 2  # made by __add__ and by __call__
    assert [args[1:] for args in t.args_of(Vec.__getitem__)] == [(0,)]
    assert t.args_of(helper) == [(11,), (11,), (22,)]  # inside __getitem__ and __call__


class Redefined(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append("first")


def two_calls():
    return helper(1) + helper(2)


def test_redefining_a_hook_takes_effect_for_existing_instances():
    before = Redefined(metadata=[])
    overdub(before, two_calls)
    assert before.metadata == ["first"] * 5
    original = Redefined.prehook
    try:
        def prehook(self, f, *args, **kwargs):
            self.metadata.append(name_of(f))

        Redefined.prehook = prehook
        before.metadata.clear()
        overdub(before, two_calls)
        assert before.metadata == ["helper", "add", "helper", "add", "add"]
        fresh = Redefined(metadata=[])
        overdub(fresh, two_calls)
        assert fresh.metadata == before.metadata
    finally:
        Redefined.prehook = original


class Swapped(Context):
    @primitive(helper)
    def replaced(self, x):
        return -x


def test_redefining_a_primitive_takes_effect_for_existing_instances():
    ctx = Swapped()
    assert overdub(ctx, two_calls) == -3
    original = Swapped.replaced
    try:
        Swapped.replaced = primitive(helper)(lambda self, x: x * 1000)
        assert overdub(ctx, two_calls) == 3000
        del Swapped.replaced
        assert overdub(ctx, two_calls) == 203
    finally:
        Swapped.replaced = original
    assert overdub(ctx, two_calls) == -3


class Scaler:
    """A callable object (as a numpy ufunc is): neither a function nor a builtin."""

    def __call__(self, x):
        return 2 * x


SCALE = Scaler()
SCALE_TABLE = {SCALE: "scaled"}


class AsksOnce(Context):
    asked = 0

    @primitive(SCALE_TABLE, told=True)
    def scaled(self, f):
        AsksOnce.asked += 1
        return lambda x: 10 * x


def three_scalings(x):
    return SCALE(x) + SCALE(x) + SCALE(x)


def test_a_told_primitive_is_asked_once_per_callable_object_and_context():
    ctx = AsksOnce()
    AsksOnce.asked = 0
    assert overdub(ctx, three_scalings, 1) == 30
    assert overdub(ctx, three_scalings, 2) == 60
    assert AsksOnce.asked == 1  # (a function or builtin is; a callable object too)


exec_namespace: dict = {}
exec("def no_source(x):\n    return helper(x) + 1\n", {"helper": helper}, exec_namespace)
no_source = exec_namespace["no_source"]


def running_code():
    return sys._getframe().f_code


def callee_code():
    return running_code()


def test_empty_context_runs_f_untouched():
    assert overdub(Context(), plain, 1) == plain(1) == 202
    assert overdub(Context(), no_source, 1) == 102
    assert overdub(Context(), tree, 3) == tree(3)
    assert overdub(Context(), sum_nums, 4) == Num(6)
    # lowered() shows what a run would be, but an empty context runs the original code
    assert "__ovd0_res__(helper)(x) * 2" in lowered(Context(), plain)
    assert overdub(Context(), running_code) is running_code.__code__
    assert overdub(Context(), callee_code) is running_code.__code__
    assert overdub(Trace(), callee_code) is not running_code.__code__


def make_inner_code():
    def inner_code():
        return sys._getframe().f_code

    return inner_code


@pytest.mark.parametrize("f", [running_code, make_inner_code(),
                               lambda: sys._getframe().f_code])
def test_transformed_code_keeps_the_original_flags(f):
    """The body is compiled nested in a factory; `CO_NESTED` must still say where
    the original was defined."""
    transformed = overdub(Trace(), f)
    assert transformed is not f.__code__
    assert transformed.co_flags == f.__code__.co_flags


def test_empty_context_leaves_errors_and_side_effects_alone():
    xs = [3, 1]
    assert overdub(Context(), list.sort, xs) is None
    assert xs == [1, 3]
    with pytest.raises(ZeroDivisionError):
        overdub(Context(), operator.truediv, 1, 0)


def test_lowered_shows_hooked_calls():
    text = lowered(Trace(), plain)
    # `* 2` goes through the hooked helper for `mul` with a builtin constant on the right
    assert "__ovd0_op_mul_vk__(__ovd0_call1__(helper, x), 2)" in text
    assert "return helper(x) * 2" not in text


# 3. Bad input --------------------------------------------------------------------

def test_non_callable_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="42"):
        overdub(Trace(), 42)
    with pytest.raises(TypeError, match="42"):
        overdub(Context(), 42, 1)


@pytest.mark.parametrize("not_a_context", [None, "ctx", Context, 3])
def test_non_context_first_argument_is_a_type_error(not_a_context):
    with pytest.raises(TypeError, match="Context"):
        overdub(not_a_context, plain, 1)


def calls_no_source(x):
    return no_source(x) * 2


def test_function_without_source_runs_as_a_foreign_call():
    t = Trace()
    assert not canrecurse(t, no_source)
    reason = canrecurse.why(t, no_source)
    assert isinstance(reason, str) and "no_source" in reason
    assert overdub(t, calls_no_source, 1) == 204
    assert t.callees == [no_source, operator.mul]  # helper inside it is not seen
    assert overdub(t, no_source, 2) == 103
    assert canrecurse.why(t, plain) is None and canrecurse(t, plain)


class Boom(Exception):
    pass


def raises(x):
    raise Boom(x)


def raises_inside(x):
    return helper(raises(x))


def test_exceptions_propagate_unchanged():
    error = Boom("x")

    def thrower():
        raise error

    for ctx in (Context(), Trace(), Events()):
        with pytest.raises(Boom) as caught:
            overdub(ctx, raises_inside, 5)
        assert caught.value.args == (5,)
        assert caught.traceback[-1].name == "raises"
        with pytest.raises(Boom) as caught:
            overdub(ctx, thrower)
        assert caught.value is error


# Operators reach the dunders of user classes, in Python's order -------------------

class Money:
    def __init__(self, cents):
        self.cents = cents

    def __add__(self, other):
        if isinstance(other, Money):
            return Money(self.cents + other.cents)
        return NotImplemented

    def __radd__(self, other):
        return self if other == 0 else NotImplemented

    def __lt__(self, other):
        return self.cents < other.cents if isinstance(other, Money) else NotImplemented

    def __eq__(self, other):
        return isinstance(other, Money) and self.cents == other.cents

    __hash__ = None


class Euro(Money):
    def __radd__(self, other):
        return "euro"


class Bag:
    def __init__(self):
        self.items = {}

    def __setitem__(self, key, value):
        self.items[key] = value

    def __delitem__(self, key):
        del self.items[key]

    def __contains__(self, key):
        return len(self.items) if key in self.items else 0

    def __neg__(self):
        return sorted(self.items)

    def __iadd__(self, other):
        self.items.update(other)
        return self


def add(a, b):
    return a + b


def greater(a, b):
    return a > b


def same(a, b):
    return a == b


def bag_work(bag):
    bag["a"] = 1
    bag["b"] = 2
    bag += {"c": 3}
    del bag["b"]
    return "a" in bag, "z" in bag, -bag


def accumulate_money(m):
    m += Money(1)
    return m


@pytest.mark.parametrize("a, b, method, operands", [
    (0, Money(5), Money.__radd__, "ba"),           # int gives up, the reflected runs
    (Money(1), Euro(2), Euro.__radd__, "ba"),      # a subclass's reflected runs first
    (Money(1), Money(2), Money.__add__, "ab"),
])
def test_binary_operator_dunders_in_pythons_order(a, b, method, operands):
    t = Trace()
    result = overdub(t, add, a, b)
    assert result == add(a, b)
    expected = (a, b) if operands == "ab" else (b, a)
    assert t.args_of(method) == [expected]
    if method is Euro.__radd__:
        assert not t.saw(Money.__add__)


def test_unsupported_operands_raise_pythons_error_after_one_try():
    t = Trace()
    with pytest.raises(TypeError) as plain_error:
        add(Money(1), "x")
    with pytest.raises(TypeError) as overdubbed_error:
        overdub(t, add, Money(1), "x")
    assert str(overdubbed_error.value) == str(plain_error.value)
    assert len(t.args_of(Money.__add__)) == 1


def test_comparisons_use_the_reflected_method():
    a, b = Money(1), Money(2)
    t = Trace()
    assert overdub(t, greater, b, a) is True  # Money has no __gt__: a.__lt__(b)
    assert t.args_of(Money.__lt__) == [(a, b)]
    t = Trace()
    assert overdub(t, same, a, Money(1)) is True
    assert len(t.args_of(Money.__eq__)) == 1
    plain_obj = object()
    assert overdub(Trace(), same, plain_obj, plain_obj) is True
    with pytest.raises(TypeError, match="'>' not supported"):
        overdub(Trace(), greater, Money(1), 3)


def test_in_place_operator_falls_back_to_binary_dunder():
    t = Trace()
    result = overdub(t, accumulate_money, Money(2))
    assert result == Money(3)
    assert len(t.args_of(Money.__add__)) == 1


def test_item_unary_and_in_place_dunders_are_reached():
    t = Trace()
    bag = Bag()
    assert overdub(t, bag_work, bag) == bag_work(Bag()) == (True, False, ["a", "c"])
    assert [args[1:] for args in t.args_of(Bag.__setitem__)] == [("a", 1), ("b", 2)]
    assert [args[1:] for args in t.args_of(Bag.__delitem__)] == [("b",)]
    assert [args[1:] for args in t.args_of(Bag.__contains__)] == [("a",), ("z",)]
    assert len(t.args_of(Bag.__iadd__)) == 1 and len(t.args_of(Bag.__neg__)) == 1


class AddIsConcat(Context):
    @primitive(Vec.__add__)
    def vec_add(self, a, b):
        return Vec(*a.xs, *b.xs)

    @primitive(Vec.__getitem__)
    def vec_item(self, v, i):
        return ("item", i)


def test_primitive_on_a_dunder_is_honoured_without_hooks():
    a, b = Vec(1), Vec(2)
    assert overdub(AddIsConcat(), use_vec, a, b)[0] == ("item", 0)
    assert overdub(AddIsConcat(), add, a, b) == Vec(1, 2)


# Model details -----------------------------------------------------------------------

def test_construction_shows_only_new_and_init_calls():
    t = Trace()
    overdub(t, build_shape, 2)
    assert t.callees == [Shape, Shape.__init__]


class Guarded:
    def __setattr__(self, name, value):
        raise AssertionError("the override must not run")


def base_methods(obj, xs):
    set_plain = object.__setattr__.__get__(obj)
    set_plain("a", 1)
    append = list.append.__get__(xs)
    append(2)
    return obj.a, xs


class NoAppend(list):
    def append(self, x):
        raise AssertionError("the override must not run")


def test_a_base_method_bound_by_hand_is_not_the_override():
    obj, xs = Guarded(), NoAppend([1])
    assert overdub(Trace(), base_methods, obj, xs) == (1, [1, 2])


def key_with_log(log):
    def key(x):
        log.append(x)
        return x // 3

    return key


def lazy_groups(log):
    groups = itertools.groupby(range(100), key_with_log(log))
    return [(k, list(itertools.islice(g, 2))) for k, g in itertools.islice(groups, 2)]


def test_groupby_model_is_lazy_and_calls_key_once_per_item():
    plain_log, overdub_log = [], []
    assert overdub(Trace(), lazy_groups, overdub_log) == lazy_groups(plain_log) == [
        (0, [0, 1]), (1, [3, 4])]
    assert overdub_log == plain_log


def tens_until_three(x):
    """A callback that ends the iteration calling it, as `next` on an empty iterator
    does: C's iterators (`map`, `filter`, ...) stop there, their caller's loop ends."""
    if x == 3:
        raise StopIteration
    return x * 10


class Counting3:
    """A Python iterator: 1, 2, 3."""

    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        if self.n > 3:
            raise StopIteration
        return self.n


def roundrobin(*iterables):
    """more-itertools' recipe: a `map(next, ...)` ends when one iterable does."""
    iterators = map(iter, iterables)
    for active in range(len(iterables), 0, -1):
        iterators = itertools.cycle(itertools.islice(iterators, active))
        yield from map(next, iterators)


CALLBACKS_THAT_STOP = {
    "map": lambda: list(map(tens_until_three, [1, 2, 3, 4])),
    "map of two": lambda: list(map(lambda a, b: tens_until_three(a) + b, [1, 2, 3, 4],
                                   [5, 6, 7, 8])),
    "map(next, ...)": lambda: list(roundrobin([1, 2], [3], [4, 5, 6])),
    "filter": lambda: list(filter(tens_until_three, [1, 2, 3, 4])),
    "starmap": lambda: list(itertools.starmap(tens_until_three, [(1,), (2,), (3,), (4,)])),
    "takewhile": lambda: list(itertools.takewhile(tens_until_three, [1, 2, 3, 4])),
    "dropwhile": lambda: list(itertools.dropwhile(tens_until_three, [1, 2, 3, 4])),
    "filterfalse": lambda: list(itertools.filterfalse(tens_until_three, [0, 1, 2, 3, 4])),
    "accumulate": lambda: list(itertools.accumulate([1, 2, 3, 4],
                                                    lambda t, x: t + tens_until_three(x))),
    "groupby": lambda: [k for k, _ in itertools.groupby([1, 2, 3, 4], key=tens_until_three)],
    "zip of a Python iterator": lambda: list(zip(Counting3(), [1, 2, 3, 4])),
}


@pytest.mark.parametrize("run", CALLBACKS_THAT_STOP.values(), ids=CALLBACKS_THAT_STOP.keys())
def test_a_callback_raising_stop_iteration_ends_the_models_iteration_as_in_c(run):
    assert overdub(Trace(), run) == run()


inner_made = lambda: (lambda: helper(1))  # noqa: E731


def test_function_made_inside_a_transformed_lambda_keeps_its_name_and_source():
    t = Trace()
    made = overdub(t, inner_made)
    assert made.__qualname__ == "<lambda>.<locals>.<lambda>"
    assert overdub(t, made) == 101
    assert t.args_of(helper) == [(1,)]


class Pinned(list):
    pass


def append_to_fresh():
    fresh = Pinned()
    fresh.append(1)
    return weakref.ref(fresh)


def append_to_many(count):
    return [append_to_fresh() for _ in range(count)]


class Quiet(Context):
    def prehook(self, f, *args, **kwargs):
        pass


def test_bound_builtin_methods_pin_a_bounded_number_of_objects():
    ctx = Quiet()
    refs = overdub(ctx, append_to_many, 1000)
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    assert alive <= 256  # the cache of bound methods is emptied when it is full
    assert overdub(ctx, append_to_many, 3)  # and the context still works


def call_closures(count):
    """Makes `count` closures, calls each twice; weak references to them."""
    refs = []
    for k in range(count):
        inner = make_closure(k)
        inner(1)
        inner(2)
        refs.append(weakref.ref(inner))
    return refs


def test_closures_are_resolved_once_each_and_not_kept_alive(monkeypatch):
    ctx = Quiet()
    resolved = []
    resolve = Runtime.resolve
    monkeypatch.setattr(Runtime, "resolve",
                        lambda self, f, primitives: resolved.append(
                            getattr(f, "__name__", None)) or resolve(self, f, primitives))
    refs = overdub(ctx, call_closures, 50)
    assert resolved.count("inner") == 50  # once each, though each is called twice
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0


def sourceless_closures(count):
    """`count` closures made from code with no source file, each called once."""
    namespace: dict = {}
    exec("def make(k):\n    def inner(x):\n        return x + k\n    return inner", namespace)
    refs = []
    for k in range(count):
        inner = namespace["make"](k)
        inner(1)
        refs.append(weakref.ref(inner))
    return refs


class Bare(Layer):
    """A layer that adds nothing: foreign calls go through its runner."""


@pytest.mark.parametrize("make_context", [Quiet, lambda: Context(tag=Bare())])
def test_closures_run_natively_are_not_kept_alive_either(make_context):
    ctx = make_context()  # alive while the closures' release is checked
    refs = overdub(ctx, sourceless_closures, 20)
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0
    assert overdub(ctx, sourceless_closures, 1)  # and the context still works


class _Stacks:
    def stack(self):
        return [3]


def _calls_stack(stacks):
    return stacks.stack()


def test_a_method_named_stack_is_a_call_the_context_sees():
    # (only `inspect.stack()` itself needs its caller's frame and runs natively)
    seen = []

    class Seeing(Context):
        def prehook(self, f, *args, **kwargs):
            seen.append(getattr(f, "__qualname__", None))

    assert overdub(Seeing(), _calls_stack, _Stacks()) == [3]
    assert "_Stacks.stack" in seen
