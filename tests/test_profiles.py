"""A context class's profile follows the class: a change of what it intercepts
takes effect on the next run of every context of it or of its subclasses; a
write that cannot change it (a counter the hooks keep) rebuilds nothing."""

import pytest

from contexts import Context, overdub, primitive
from tagging import enabletagging, metadata, tag


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def double(x):
    return abs(x) * 2


class Counting(Context):
    calls = 0

    def prehook(self, f, *args, **kwargs):
        type(self).calls += 1


def test_a_counter_kept_on_the_class_rebuilds_nothing():
    ctx = Counting()
    overdub(ctx, fib, 6)
    runtime, calls = ctx._runtime, Counting.calls
    overdub(ctx, fib, 6)
    assert ctx._runtime is runtime
    assert Counting.calls == 2 * calls > 0


class Base(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append("base")


class Derived(Base):
    pass


class Unrelated(Context):
    pass


@pytest.fixture
def derived():
    """A fresh subclass pair per test (the tests redefine their methods)."""
    base = type("Base", (Base,), {})
    return base, type("Derived", (base,), {})


def seen(ctx):
    ctx.metadata = []
    overdub(ctx, double, -2)
    return set(ctx.metadata)


def test_a_hook_redefined_on_the_class_takes_effect_on_the_next_run(derived):
    base, _ = derived
    ctx = base(metadata=[])
    assert seen(ctx) == {"base"}
    base.prehook = lambda self, f, *args, **kwargs: self.metadata.append("new")
    assert seen(ctx) == {"new"}


def test_a_hook_redefined_on_a_base_class_reaches_the_subclass(derived):
    base, sub = derived
    ctx = sub(metadata=[])
    assert seen(ctx) == {"base"}
    base.prehook = lambda self, f, *args, **kwargs: self.metadata.append("new")
    assert seen(ctx) == {"new"}


def test_a_deleted_hook_falls_back_to_the_base_class(derived):
    base, sub = derived
    sub.prehook = lambda self, f, *args, **kwargs: self.metadata.append("own")
    ctx = sub(metadata=[])
    assert seen(ctx) == {"own"}
    del sub.prehook
    assert seen(ctx) == {"base"}


def test_a_primitive_added_after_the_first_run_is_honoured(derived):
    base, _ = derived
    ctx = base(metadata=[])
    assert overdub(ctx, double, -2) == 4
    base.absolute = primitive(abs)(lambda self, x: 100)
    assert overdub(ctx, double, -2) == 200


def test_a_change_to_an_unrelated_class_rebuilds_nothing(derived):
    base, _ = derived
    ctx = base(metadata=[])
    seen(ctx)
    runtime = ctx._runtime
    Unrelated.prehook = lambda self, f, *args, **kwargs: None
    del Unrelated.prehook
    seen(ctx)
    assert ctx._runtime is runtime


def test_a_redefined_metadatatype_is_checked_again():
    class Kind(Context):
        @classmethod
        def metadatatype(cls, value_type):
            return str

    ctx = enabletagging(Kind(), double)
    assert metadata(tag(1.5, ctx, "m"), ctx) == "m"
    Kind.metadatatype = classmethod(lambda cls, value_type: int)
    with pytest.raises(TypeError, match="not a int"):
        tag(1.5, ctx, "m")
    assert metadata(tag(1.5, ctx, 7), ctx) == 7
    Kind.metadatatype = classmethod(lambda cls, value_type: str)
    assert metadata(tag(1.5, ctx, "m"), ctx) == "m"
