"""`contexts.layer` is an interface any package can implement, not tagging's back
door: a small layer written here gets its foreign calls, its built-in primitives
and its end-of-run call from the engine."""

import importlib
import math
import sys

import pytest

import tagging  # noqa: F401  (its modules declare native calls too)
from contexts import Context, _marks, overdub, similarcontext
from contexts.layer import Layer, shortcut
from tests.engine_helpers import Trace, name_of


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


class Runners(Layer):
    """Makes its own runner for each foreign callee, counting how many it made."""

    def __init__(self):
        self.made = []

    def foreign_runner(self, ctx, f):
        self.made.append(f)
        return lambda *args: -f(*args) if f is math.sqrt else f(*args)


def roots(n):
    return [math.sqrt(i) for i in range(n)]


class OwnFallback(Context):
    def fallback(self, f, *args, **kwargs):
        return f(*args, **kwargs)


def test_a_foreign_callee_gets_the_layers_runner_made_once():
    layer = Runners()
    ctx = similarcontext(Context(), tag=layer)
    assert overdub(ctx, roots, 5) == [-math.sqrt(i) for i in range(5)]
    assert layer.made.count(math.sqrt) == 1
    # a context's own `fallback` is what runs foreign calls then, not the runner
    assert overdub(similarcontext(OwnFallback(), tag=Runners()), roots, 3) == roots(3)


def test_the_tag_field_holds_a_layer_or_nothing():
    with pytest.raises(TypeError, match="contexts.layer.Layer"):
        similarcontext(Context(), tag="a tag")
    assert similarcontext(Context(), tag=None).tag is None


# Native calls declared once per module ------------------------------------------------

ENGINE_MODULE = '''
import builtins as native
import math

from contexts.layer import nativecalls

nativecalls(__name__, "native", "helper", "math")


def helper(x):
    return abs(x)


def machinery(xs):
    """Declared calls run natively; `len` and `sorted` stay calls in the context."""
    total = helper(-1.0) + math.sqrt(4.0) + native.len(xs)
    return total + len(sorted(xs))
'''


@pytest.fixture
def engine_module(tmp_path, monkeypatch):
    (tmp_path / "declared_natives.py").write_text(ENGINE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("declared_natives")
    yield module
    sys.modules.pop("declared_natives", None)


def test_a_module_declares_its_native_calls_once(engine_module):
    trace = Trace()
    assert overdub(trace, engine_module.machinery, [3, 1]) == engine_module.machinery([3, 1])
    seen_callees = {name_of(f) for f in trace.callees}
    assert {"len", "sorted"} <= seen_callees
    assert not seen_callees & {"helper", "sqrt", "abs"}  # nor anything `helper` calls
    assert sum(1 for f in trace.callees if f is len) == 1  # `native.len` is not seen


def test_a_layer_sees_no_attribute_load_of_a_declared_native_module(engine_module):
    layer = Watching()
    ctx = similarcontext(Context(), tag=layer)
    # the layer answers the plain `len` (100), not `native.len` (2)
    assert overdub(ctx, engine_module.machinery, [3, 1]) == 1.0 + 2.0 + 2 + 100
    assert "getattr" not in layer.foreign and "sqrt" not in layer.foreign
    assert "add" in layer.foreign  # the undeclared operators are still the layer's


def test_every_declared_native_name_is_a_global_of_its_module():
    ours = [m for name, m in list(sys.modules.items())
            if name.split(".")[0] in ("contexts", "tagging", "ad")]
    declaring = [m for m in ours if m.__file__ in _marks._native_names]
    assert {m.__name__ for m in declaring} >= {"contexts._models", "tagging._primitives"}
    for module in declaring:
        names = _marks._native_names[module.__file__]
        assert names <= vars(module).keys(), (module.__name__, names - vars(module).keys())


# Shortcuts ------------------------------------------------------------------------------

def general_double(x):
    return math.fsum([x, x])


def fast_double(x):
    return 2 * x


shortcut(fast_double, general_double)


def calls_the_shortcut(x):
    return fast_double(x)


def test_a_context_runs_the_general_function_a_shortcut_stands_for():
    trace = Trace()
    assert overdub(trace, calls_the_shortcut, 3.0) == 6.0 == fast_double(3.0)
    # the call is the one written; what runs in the context is the general body
    assert trace.callees == [fast_double, math.fsum]
