"""`contexts.layer` is an interface any package can implement, not tagging's back
door: a small layer written here gets its foreign calls, its built-in primitives
and its end-of-run call from the engine."""

import math

import pytest

from contexts import Context, overdub, similarcontext
from contexts.layer import Layer


class Watching(Layer):
    """Records the foreign calls and the runs; answers `len` itself."""

    def __init__(self):
        self.foreign = []
        self.runs = 0

    def builtin(self, ctx, key, f):
        return (lambda xs: 100) if key is len else None

    def call_foreign(self, ctx, f, args, kwargs):
        self.foreign.append(getattr(f, "__name__", repr(f)))
        return f(*args, **kwargs)

    def finish_run(self, ctx):
        self.runs += 1


class Box:
    def __init__(self, value):
        self.value = value


def measure(xs):
    box = Box(math.sqrt(sum(xs)))
    return box.value + len(xs)


def test_a_layer_of_ones_own_gets_foreign_calls_builtins_and_the_end_of_runs():
    layer = Watching()
    ctx = similarcontext(Context(), tag=layer)
    assert overdub(ctx, measure, [4.0, 5.0]) == 3.0 + 100
    # `sum` is modelled: its additions are the foreign calls; attribute access is
    # lowered to `getattr`/`setattr` calls, as for any layer
    assert {"sqrt", "add", "getattr", "setattr"} <= set(layer.foreign)
    assert "len" not in layer.foreign and "sum" not in layer.foreign
    assert layer.runs == 1
    overdub(ctx, measure, [1.0])
    assert layer.runs == 2


def raises(x):
    return math.sqrt(x)


def test_the_end_of_a_run_is_told_when_it_raises_too():
    layer = Watching()
    with pytest.raises(ValueError):
        overdub(similarcontext(Context(), tag=layer), raises, -1.0)
    assert layer.runs == 1


def test_the_tag_field_holds_a_layer_or_nothing():
    with pytest.raises(TypeError, match="contexts.layer.Layer"):
        similarcontext(Context(), tag="a tag")
    assert similarcontext(Context(), tag=None).tag is None
