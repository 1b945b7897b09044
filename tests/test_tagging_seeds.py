"""The tagging seeds: the weird identity and CrazyModule (the examples), checked in depth."""

import gc

from hypothesis import given
from hypothesis import strategies as st

from contexts import overdub
from tagging import Tagged, enabletagging, metadata, tag, untag
from tests.examples import load

weird = load("weird_identity")
crazy = load("crazy_module")


def test_weird_identity_keeps_metadata_through_the_heap():
    ctx = enabletagging(weird.FooBarCtx(), weird.foo_bar_identity)
    result = overdub(ctx, weird.foo_bar_identity, tag(1, ctx, 2))
    assert untag(result, ctx) == 1.0 and type(untag(result, ctx)) is float
    assert metadata(result, ctx) == 2.0 and type(metadata(result, ctx)) is float


@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(-10, 10),
       st.floats(-10, 10))
def test_crazy_module_metadata_is_the_same_computation(a, b, ma, mb):
    ctx = enabletagging(crazy.MirrorCtx(), crazy.entry)
    result = overdub(ctx, crazy.entry, tag(a, ctx, ma), tag(b, ctx, mb))
    assert untag(result, ctx) == (a + 2.0) * (3.0 + b)
    assert metadata(result, ctx) == (0.0 + ma + 2.0) * (0.0 + 3.0 + mb)
    # The module's state is plain afterwards.
    assert crazy.CONST_BINDING == []
    assert type(crazy.GLOBAL_BINDING) is float
    assert type(crazy.PLUSFUNC.x) is float


def test_no_tagged_value_is_reachable_after_a_run():
    ctx = enabletagging(crazy.MirrorCtx(), crazy.entry)
    result = overdub(ctx, crazy.entry, tag(1.5, ctx, 1.0), tag(2.5, ctx, 1.0))
    gc.collect()
    leaked = [o for o in gc.get_objects() if type(o) is Tagged and o is not result]
    assert leaked == []


def store_then_fail(x):
    box = weird.Bar(x, x, x)
    return box.missing  # raises AttributeError here, inside a tagging primitive's call


def test_tracebacks_of_tagging_runs_end_at_the_users_line():
    import traceback

    ctx = enabletagging(weird.FooBarCtx(), store_then_fail)
    try:
        overdub(ctx, store_then_fail, tag(1, ctx, 2))
    except AttributeError as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
    else:
        raise AssertionError("no AttributeError")
    assert last.name == "store_then_fail" and "box.missing" in last.line
