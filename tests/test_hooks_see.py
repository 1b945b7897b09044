"""What hooks see of a builtin that has a Python model: the user's call of it and
what it calls back, never the model's own bookkeeping.

Each case runs a small user function that calls one builtin with a callback or
a user object, records the callee of every call the hooks see, and compares the
list with what the builtin calls back in CPython (a model's `list_`, `append`,
`is` tests or `len` showing up, or a callback missing, fails it). The user's own
code inside the callbacks is seen as usual (`Num.__lt__` compares with `lt`).
"""

from __future__ import annotations

import functools
import itertools
import operator

import pytest

from contexts import Context, overdub, primitive
from tagging import enabletagging, metadata, tag, untag

from tests.engine_helpers import name_of
from tests.test_tagging import MetaCtx


def callee(f) -> str:
    """A callee's name; a callable object (a `partial`) is named by its type."""
    return name_of(f) if hasattr(f, "__name__") else type(f).__name__


class Seen(Context):
    """Records the name of every callee its prehook sees."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(callee(f))


class SeenWithOperators(Seen):
    """Claims an operator and runs foreign calls itself: no operator runs natively,
    even on builtin operands (and a primitive on `<` would hide `Num.__lt__`)."""

    @primitive(operator.mul)
    def mul(self, a, b):
        return a * b

    def fallback(self, f, *args, **kwargs):
        return f(*args, **kwargs)


class SeenByOverdub(Context):
    """Records what its `overdub` is asked to run, past the top-level call."""

    def overdub(self, f, *args, **kwargs):
        if self.metadata is not None:
            self.metadata.append(callee(f))
        else:
            self.metadata = []
        return super().overdub(f, *args, **kwargs)


class Num:
    """A user number: Python comparison and addition."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v < other.v

    def __add__(self, other):
        return Num(self.v + other.v)

    def __radd__(self, other):  # `sum`'s start, 0
        return self


class Ticks:
    """A user iterator: Python `__iter__` and `__next__`."""

    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return self

    def __next__(self):
        if self.items:
            return self.items.pop(0)
        raise StopIteration


class Letters:
    """A user sequence without `__iter__`: `reversed` indexes it."""

    def __init__(self, text):
        self.text = text

    def __len__(self):
        return len(self.text)

    def __getitem__(self, index):
        return self.text[index]


class Table:
    """A user mapping: `dict.update` calls its `keys` and `__getitem__`."""

    def keys(self):
        return ["a"]

    def __getitem__(self, key):
        return 1


class Answer:
    """A user truth value."""

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        return self.value


class Shape:
    """A user property, for `getattr`."""

    @property
    def area(self):
        return 6


class Manager:
    """A user context manager."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def _with(manager):
    with manager:
        pass


def key(n):
    return n.v


def pred(n):
    return n.v > 1


def combine(a, b):
    return b


def nums():
    return [Num(3), Num(1), Num(2)]


# (name, user function, arguments made afresh for each run, callees seen)
CASES = [
    ("sorted, scalar keys", lambda xs: sorted(xs, key=key), nums,
     ["sorted", "key", "key", "key"]),
    ("sorted, user objects", lambda xs: sorted(xs), lambda: [Num(2), Num(1)],
     ["sorted", "lt", "Num.__lt__", "lt"]),
    ("list.sort", lambda xs: xs.sort(key=key), nums, ["list.sort", "key", "key", "key"]),
    ("min, key", lambda xs: min(xs, key=key), nums,
     ["min", "key", "key", "lt", "key", "lt"]),
    ("max, user objects", lambda xs: max(xs), lambda: [Num(1), Num(2)],
     ["max", "gt", "Num.__lt__", "lt"]),
    ("sum", lambda xs: sum(xs), lambda: [Num(1), Num(2)],
     ["sum", "add", "Num.__radd__", "add", "Num.__add__", "add", "Num", "Num.__init__"]),
    ("map", lambda xs: list(map(key, xs)), nums, ["map", "list", "key", "key", "key"]),
    ("filter", lambda xs: list(filter(pred, xs)), nums,
     ["filter", "list", "pred", "gt", "pred", "gt", "pred", "gt"]),
    ("any", lambda xs: any(xs), lambda: [Answer(False), Answer(True)],
     ["any", "Answer.__bool__", "Answer.__bool__"]),
    ("all", lambda xs: all(xs), lambda: [Answer(False)], ["all", "Answer.__bool__"]),
    ("enumerate", lambda it: list(enumerate(it)), lambda: Ticks([7]),
     ["enumerate", "Ticks.__iter__", "list", "Ticks.__next__", "list.pop",
      "Ticks.__next__"]),
    ("zip", lambda it: list(zip([1, 2], it)), lambda: Ticks([7]),
     ["zip", "Ticks.__iter__", "list", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("list of an iterator", lambda it: list(it), lambda: Ticks([7]),
     ["list", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("dict", lambda it: dict(it), lambda: Ticks([(1, 2)]),
     ["dict", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("set", lambda it: set(it), lambda: Ticks([1]),
     ["set", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("dict.update", lambda d, t: d.update(t), lambda: ({}, Table()),
     ["dict.update", "Table.keys", "Table.__getitem__"]),
    ("str.join", lambda it: "-".join(it), lambda: Ticks(["a"]),
     ["str.join", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("list.extend", lambda xs, it: xs.extend(it), lambda: ([], Ticks([1])),
     ["list.extend", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("construction", lambda: Num(1), tuple, ["Num", "Num.__init__"]),
    ("reversed", lambda s: list(reversed(s)), lambda: Letters("ab"),
     ["reversed", "list", "Letters.__getitem__", "getitem", "Letters.__getitem__",
      "getitem"]),
    ("iter", lambda it: iter(it), lambda: Ticks([]), ["iter", "Ticks.__iter__"]),
    ("next", lambda it: next(it), lambda: Ticks([1]), ["next", "Ticks.__next__", "list.pop"]),
    # (the sentinel comes back as itself: identical, so not compared, as in CPython)
    ("iter with a sentinel", lambda it: list(iter(it.__next__, 2)), lambda: Ticks([1, 2]),
     ["iter", "list", "Ticks.__next__", "list.pop", "eq", "Ticks.__next__", "list.pop"]),
    ("functools.reduce", lambda xs: functools.reduce(combine, xs), nums,
     ["reduce", "combine", "combine"]),
    ("functools.partial", lambda: functools.partial(combine, 1)(2), tuple,
     ["partial", "partial", "combine"]),
    ("getattr of a property", lambda s: getattr(s, "area"), Shape, ["getattr", "Shape.area"]),
    ("accumulate", lambda xs: list(itertools.accumulate(xs, combine)), nums,
     ["accumulate", "list", "combine", "combine"]),
    ("starmap", lambda: list(itertools.starmap(combine, [(1, 2)])), tuple,
     ["starmap", "list", "combine"]),
    ("takewhile", lambda xs: list(itertools.takewhile(pred, xs)), nums,
     ["takewhile", "list", "pred", "gt", "pred", "gt"]),
    ("dropwhile", lambda xs: list(itertools.dropwhile(pred, xs)), nums,
     ["dropwhile", "list", "pred", "gt", "pred", "gt"]),
    ("filterfalse", lambda xs: list(itertools.filterfalse(pred, xs)), nums,
     ["filterfalse", "list", "pred", "gt", "pred", "gt", "pred", "gt"]),
    ("groupby", lambda xs: [k for k, _ in itertools.groupby(xs, key)], nums,
     ["groupby", "key", "key", "eq", "key", "eq"]),
    ("in, without __contains__", lambda it: 9 in it, lambda: Ticks([5, 7]),
     ["contains", "Ticks.__iter__", "Ticks.__next__", "list.pop", "eq", "Ticks.__next__",
      "list.pop", "eq", "Ticks.__next__"]),
    ("an operator on user objects", lambda a, b: a < b, lambda: (Num(1), Num(2)),
     ["lt", "Num.__lt__", "lt"]),
    # not models, for comparison: the user's own loop and `with`
    ("a loop", lambda it: [x for x in it], lambda: Ticks([1]),
     ["iter", "Ticks.__iter__", "Ticks.__next__", "list.pop", "Ticks.__next__"]),
    ("with", _with, Manager, ["Manager.__enter__", "Manager.__exit__"]),
]


@pytest.mark.parametrize("context", [Seen, SeenWithOperators, SeenByOverdub])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hooks_see_the_call_and_what_the_builtin_calls_back(case, context):
    _, f, arguments, expected = case
    made = arguments()
    args = made if type(made) is tuple else (made,)
    ctx = context(metadata=None if context is SeenByOverdub else [])
    overdub(ctx, f, *args)
    assert ctx.metadata == expected


# Tagging: its primitives and Python twins are models too -------------------------------


class TaggedSeen(MetaCtx):
    """A tagging context whose prehook records callee names."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(callee(f))


def same(x):
    return x


def sort_two(a, b):
    return sorted([b, a], key=same)


def map_two(a, b):
    return list(map(same, [a, b]))


def min_two(a, b):
    return min([b, a])


@pytest.mark.parametrize("f, expected", [
    # a list display is a call of the tagging context's (the user wrote it)
    (sort_two, ["display_list", "sorted", "same", "same"]),
    (map_two, ["display_list", "map", "list", "same", "same"]),
    (min_two, ["display_list", "min", "lt"]),  # keys with metadata: not plain scalars
])
def test_tagging_hooks_see_the_same_and_metadata_is_kept(f, expected):
    ctx = enabletagging(TaggedSeen(metadata=[]), f)
    result = overdub(ctx, f, tag(1.0, ctx, "a"), tag(2.0, ctx, "b"))
    assert ctx.metadata == expected
    first = result if f is min_two else overdub(ctx, operator.getitem, result, 0)
    assert (untag(first, ctx), metadata(first, ctx)) == (1.0, "a")


def _sliced(islice, it):
    return list(islice(it, 2))


def _chained(chain, it):
    return list(chain(it))


def _compressed(compress, it, selectors):
    return list(compress(it, selectors))


def _cycled(cycle, islice, it):
    return list(islice(cycle(it), 3))


def _paired(pairwise, it):
    return list(pairwise(it))


def _zipped(zip_longest, it):
    return list(zip_longest(it))


def _product(product, it):
    return list(product(it))


def _teed(tee, it):
    first, _ = tee(it)
    return list(first)


# One `Ticks.__next__` in a tagging context: its `self.items` and `.pop` are reads.
STEP = ["Ticks.__next__", "getattr", "getattr", "getattr", "list.pop"]
STOP = ["Ticks.__next__", "getattr"]


@pytest.mark.parametrize("f, tools, expected", [
    (_sliced, (itertools.islice,), ["islice", "Ticks.__iter__", "list", *STEP, *STEP]),
    (_chained, (itertools.chain,), ["chain", "list", "Ticks.__iter__", *STEP, *STEP, *STOP]),
    (_compressed, (itertools.compress,),
     ["compress", "Ticks.__iter__", "list", *STEP, *STEP, *STOP]),
    (_cycled, (itertools.cycle, itertools.islice),
     ["cycle", "Ticks.__iter__", "islice", "list", *STEP, *STEP, *STOP]),
    (_paired, (itertools.pairwise,), ["pairwise", "Ticks.__iter__", "list", *STEP, *STEP,
                                      *STOP]),
    (_zipped, (itertools.zip_longest,),
     ["zip_longest", "Ticks.__iter__", "list", *STEP, *STEP, *STOP]),
    (_product, (itertools.product,), ["product", "Ticks.__iter__", *STEP, *STEP, *STOP,
                                      "list"]),
    (_teed, (itertools.tee,), ["tee", "Ticks.__iter__", "unpack", "list", *STEP, *STEP,
                               *STOP]),
])
def test_tagging_twins_of_c_iterators_show_only_the_sources_methods(f, tools, expected):
    ctx = enabletagging(TaggedSeen(metadata=[]), f)
    extra = ([1, 1],) if f is _compressed else ()
    overdub(ctx, f, *tools, Ticks([tag(1.0, ctx, "a"), 2.0]), *extra)
    assert ctx.metadata == expected
