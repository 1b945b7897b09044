"""Tests written by planting bugs: each one is here because a deliberate bug in the
line it guards survived every other test.

The habit (hand-made mutation testing), for the heap and store code above all
(`tagging/_store.py`, `_fast.py`, `_heap.py`, `_primitives.py`), where a lost or
misplaced metadata is a wrong derivative in `ad`, never an error:

1. Work in a throwaway worktree, never in a checkout others edit:
   `git worktree add /tmp/mutants HEAD && cd /tmp/mutants`; check that
   `python -c "import tagging; print(tagging.__file__)"` run there names the
   worktree's copy (else run with `PYTHONPATH=/tmp/mutants`).
2. Plant one small bug in the line a test claims to cover: an off-by-one, `==` for
   `is`, a dropped `forget`/`record`, the wrong table (`entries` for `members`), a
   reversed order, a check that forgets the tag (`type(v) is Tagged` without
   `and v.tag is tag`), a copy where the original is meant.
3. Run the tests that should catch it (`python -m pytest -q -x
   tests/test_tagging*.py tests/test_ad.py tests/test_nesting.py
   tests/test_stdlib.py`, about a minute and a half). If they all pass, the
   bug survived: write a test through the public API (`enabletagging`, `tag`,
   `overdub`, `untag`, `metadata`, reading the store only for memory laws)
   that fails with the bug, and name it for the behaviour, not the line.
4. `git checkout -- <file>` to remove the plant; the new test must pass.
   A test that survives a planted bug in the line it claims to cover is not yet a test.

Skip equivalent mutants (a change no program can observe, such as when a sweep
runs) and say so. A test that fails with no plant at all has found a real bug:
fix it (the two at the end of this file were found so, and fixed).

Each test below says in its docstring which planted bug it kills. The functions run
under `overdub` are module-level and assert nothing (pytest rewrites asserts in test
modules, and the engine must find each function's source matching its code).
"""

from __future__ import annotations

import gc
from collections import deque

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, istagged, metadata, tag, untag

from tests.test_tagging import Box, MetaCtx, assert_carries, read, tagged_run
from tests.test_tagging_builtins import outcome


def labels(ctx, container):
    """The metadata at each position of a sequence, read in `ctx` (None: none)."""
    found = []
    for index in range(len(container)):
        value = read(ctx, container, index)
        found.append(metadata(value, ctx) if istagged(value, ctx) else None)
    return found


# A value another context tagged is not this context's own -------------------------------


def store_in_heap_slots(x):
    items = [0.0]
    items[0] = x
    table = {}
    table["k"] = x
    box = Box()
    box.value = x
    return items[0], table["k"], box.value


def run_inner_natively(x):
    """Called by `OuterRunsInnerNatively`'s primitive, so not under the outer context:
    the inner context's fast paths meet a value only the outer context tagged."""
    inner = enabletagging(MetaCtx(), store_in_heap_slots)
    return inner, overdub(inner, store_in_heap_slots, x)


class OuterRunsInnerNatively(MetaCtx):
    @primitive(run_inner_natively)
    def run_natively(self, x):
        return run_inner_natively(x)


def outer_run_of_inner(x):
    return run_inner_natively(x)


def escaped_then_stored(x):
    """A value tagged by one context, handed to a run of another."""
    first = enabletagging(MetaCtx(), store_in_heap_slots)
    second = enabletagging(MetaCtx(), store_in_heap_slots)
    return first, second, overdub(second, store_in_heap_slots, tag(x, first, "outer"))


@pytest.mark.parametrize("how", ["primitive runs the inner context", "escaped value"])
def test_a_value_tagged_by_another_context_keeps_that_metadata_through_item_and_attribute_stores(
        how):
    """Kills `_fast.istore` (and its twin `astore`) treating any `Tagged` as the running
    context's own (`type(value) is Tagged` without `and value.tag is tag`): the item
    would be stored stripped of the outer tag, the outer metadata recorded as the
    inner context's."""
    if how == "escaped value":
        outer, inner, reads = escaped_then_stored(1.5)
    else:
        outer = enabletagging(OuterRunsInnerNatively(), outer_run_of_inner)
        inner, reads = overdub(outer, outer_run_of_inner, tag(1.5, outer, "outer"))
    for value in reads:
        assert not istagged(value, inner) and metadata(value, inner) == NoMetaData()
        assert istagged(value, outer) and metadata(value, outer) == "outer"
        assert untag(value, outer) == 1.5


# Deleting a dict entry forgets its key's metadata -------------------------------------


def add_then_delete_key(x, box):
    table = {x: 1.0}
    box.value = x
    del table[x]
    return table


def read_first_key(table):
    for key in table:
        return key


def test_del_of_a_dict_entry_forgets_the_keys_metadata():
    """Kills `del d[k]` leaving the key's metadata in the store (`forget_entry` not
    forgetting the `members` table): the key object, added again by code the context
    does not see, would come back with the metadata of the deleted key."""
    box = Box()
    ctx, table = tagged_run(add_then_delete_key, (1.5, "m"), box)
    assert table == {} and ctx.tag.store.members == {}
    table[box.value] = 2.0  # the very object, added back outside the context
    assert not istagged(overdub(ctx, read_first_key, table), ctx)


# One object at several positions, each with its own metadata --------------------------


def order_preserving_moves(a, b):
    items = [7.0, a, b]
    items.remove(7.0)
    items.insert(0, 5.0)
    del items[0]
    items.insert(1, 6.0)
    return items


def test_one_object_at_two_positions_keeps_each_positions_metadata_through_order_preserving_moves():
    """Kills the in-place remap giving every position of one object the first
    metadata recorded for it (`metas[0]` for `metas.pop(0)`). A small int is one
    shared object, so `1` tagged "a" and `1` tagged "b" are the same raw object."""
    ctx = enabletagging(MetaCtx(), order_preserving_moves)
    items = overdub(ctx, order_preserving_moves, tag(1, ctx, "a"), tag(1, ctx, "b"))
    assert items == [1, 6.0, 1]
    assert labels(ctx, items) == ["a", None, "b"]


# A popped element is found by identity -------------------------------------------------


def pop_last(x, y):
    items = [x, y]
    queue = deque([x, y])
    return items.pop(), queue.pop(), queue.popleft()


def test_a_popped_element_keeps_its_own_metadata_not_an_equal_ones():
    """Kills the popped element getting the metadata of another position's equal
    element (`_retag_removed` matching by value, or taking the first position's):
    `[x, y].pop()` with x == y would give y x's metadata."""
    ctx, popped = tagged_run(pop_last, (1.5, "x"), (1.5, "y"))
    assert [metadata(read(ctx, popped, i), ctx) for i in range(3)] == ["y", "y", "x"]


# The store's sweep: a container in both tables -----------------------------------------


def churn_entries_and_members(x, n):
    found = None
    for _ in range(n):
        table = {x: x}  # the key in `members`, the value in `entries`
        found = table[x]
    return found


def test_temporary_dicts_with_tagged_keys_and_values_do_not_pile_up():
    """Kills the sweep not counting the second reference a container in both tables
    has from the store (`+ (key in other)` dropped): every temporary dict with a
    tagged key and a tagged value would be kept for the life of the context."""
    ctx = enabletagging(MetaCtx(), churn_entries_and_members)
    result = overdub(ctx, churn_entries_and_members, tag(1.5, ctx, "m"), 3000)
    assert_carries(result, ctx, 1.5, "m")
    gc.collect()
    assert len(ctx.tag.store.entries) < 1000 and len(ctx.tag.store.members) < 1000


def keep_one_and_churn(x, n):
    kept = {x: x}
    items = [x]
    churn_entries_and_members(x, n)
    for key in kept:
        return kept, items, key, kept[key], items[0]


def test_a_held_container_survives_the_sweeps_with_its_metadata():
    """Kills the sweep counting one reference too many (a container held once by the
    user taken for one only the store holds): a live dict or list would lose the
    metadata of its keys and values at the next sweep."""
    ctx, result = tagged_run(keep_one_and_churn, (1.5, "m"), 3000)
    kept, items = result[0], result[1]
    for index in (2, 3, 4):
        assert_carries(read(ctx, result, index), ctx, 1.5, "m")
    assert_carries(read(ctx, items, 0), ctx, 1.5, "m")
    assert_carries(overdub(ctx, read_first_key, kept), ctx, 1.5, "m")


# contexts: the zip model's strict=True, and vars()/dir() of an object ------------------


def zip_strict(*iterables):
    return list(zip(*iterables, strict=True))


class Hooked(Context):
    def prehook(self, f, *args, **kwargs):
        pass


def kind_of(result):
    """An outcome without the error's message."""
    return result[:2]


LENGTHS = st.lists(st.integers(0, 3), min_size=1, max_size=3)


@given(LENGTHS)
@example([1, 2])
@example([0, 1])
@example([2, 2, 3])
def test_zip_strict_raises_whichever_argument_is_shorter(lengths):
    """Kills the `zip` model raising for `strict=True` only when a later argument is
    the shorter (`if strict and position`): a shorter first argument ended silently.
    (The message is the next test's.)"""
    iterables = [list(range(n)) for n in lengths]
    expected = outcome(zip_strict, *iterables)
    for ctx in (Hooked(), enabletagging(MetaCtx(), zip_strict)):
        assert kind_of(outcome(overdub, ctx, zip_strict, *iterables)) == kind_of(expected)


@given(LENGTHS)
@example([0, 1])
@example([1, 1, 0])
def test_zip_strict_errors_say_what_cpythons_say(lengths):
    """Found with no plant: the model said 'argument 1 is longer than argument 1' for a
    shorter first argument, and 'argument 1' where CPython says 'arguments 1-2'."""
    iterables = [list(range(n)) for n in lengths]
    expected = outcome(zip_strict, *iterables)
    for ctx in (Hooked(), enabletagging(MetaCtx(), zip_strict)):
        assert outcome(overdub, ctx, zip_strict, *iterables) == expected


def vars_and_dir_of(obj, x):
    vars(obj)["y"] = x
    setattr(obj, "__ovd_user", 1.0)
    return obj.y, vars(obj) is obj.__dict__, "__ovd_user" in dir(obj)


def test_vars_and_dir_of_an_object_are_cpythons_own():
    """Kills `vars(obj)`/`dir(obj)` filtered into a copy (only the argument-less
    `vars()`/`dir()`/`locals()` hide the engine's names): a write through
    `vars(obj)` would be lost, an attribute named `__ovd...` hidden."""
    plain = overdub(Hooked(), vars_and_dir_of, Box(), 2.0)
    assert plain == (2.0, True, True)
    ctx, result = tagged_run(vars_and_dir_of, Box(), (1.5, "m"))
    assert result == (1.5, True, True)
    assert_carries(read(ctx, result, 0), ctx, 1.5, "m")


# Found with no plant: one shared object at several positions ----------------------------
#
# The metadata of a list or deque changed in place was found again by the identity of
# each element; an object at several positions with different metadata (a small int,
# `True`, any object `tag` cannot copy) got them in the order the store recorded them,
# whatever the operation did to the positions: `reverse`, `rotate`, a slice store,
# `sort`, even `pop(0)`. As a derivative, `[x, x*x - x]` at the int 2 (see test_ad).
# Now each change is replayed on the positions (`_heap.positions`).


def apply_moves(items, moves, filler):
    """Position-only moves, so the same function run on a list of labels is the oracle."""
    for move, at in moves:
        size = len(items)
        if move == "pop" and size:
            items.pop(at % size)
        elif move == "del" and size:
            del items[at % size]
        elif move == "insert":
            items.insert(at, filler)
        elif move == "reverse":
            items.reverse()
        elif move == "slice":
            items[at:] = items[at:][::-1]
        elif move == "rotate":
            items[:] = items[at:] + items[:at]
        elif move == "remove" and filler in items:
            items.remove(filler)
        elif move == "sort":
            items.sort(key=lambda item: item == filler, reverse=at % 2 == 1)
    return items


def build_then_move(moves, filler, *values):
    return apply_moves([*values], moves, filler)


MOVES = st.lists(st.tuples(st.sampled_from(["pop", "del", "insert", "reverse", "slice",
                                            "rotate", "remove", "sort"]),
                           st.integers(0, 4)), max_size=6)


@given(st.integers(1, 4), MOVES)
@example(2, [("reverse", 0)])
@example(2, [("pop", 0)])
def test_one_shared_object_at_several_positions_keeps_each_positions_metadata(size, moves):
    """Oracle: the same moves applied to the list of labels."""
    ctx = enabletagging(MetaCtx(), build_then_move)
    items = overdub(ctx, build_then_move, moves, 7.0,
                    *[tag(1, ctx, f"m{i}") for i in range(size)])
    assert labels(ctx, items) == apply_moves([f"m{i}" for i in range(size)], moves, None)
