"""A class changed after its first use: every answer remembered per type notices.

The engine remembers per type how `obj.name` runs (a property's getter, a
`__getattr__`, a descriptor), how a store runs, which Python dunders a class
has, what a truth test calls. A class can change after that: a property added
or deleted, a method replaced, on the class or on a base, `__bases__`
reassigned. The next run must see the class as it is, in a hooked context (the
getter is a call the hooks see) and in a tagging context (a property returning
a constant gives it without metadata, never the metadata once stored in the
slot it now hides).
"""

from __future__ import annotations

import collections
import dataclasses

import pytest

from contexts import Context, overdub
from tagging import NoMetaData, enabletagging, istagged, metadata, tag, untag

SEVEN = 7.0  # what the properties added below return


class Counting(Context):
    """Records every function a call in the run reaches."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(f)


class MetaCtx(Context):
    """Numbers may carry a string as metadata."""

    @classmethod
    def metadatatype(cls, value_type):
        return str if issubclass(value_type, (int, float, complex)) else NoMetaData


class Recording(MetaCtx):
    """A tagging context whose prehook records every function called."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(f)


def reached(f, calls):
    """Whether `f` (or a method bound from it) is among the functions called."""
    return any(getattr(call, "__func__", call) is f for call in calls)


def counted(f, *args):
    """`(result, functions called)` of `f(*args)` in a fresh counting context."""
    ctx = Counting(metadata=[])
    return overdub(ctx, f, *args), ctx.metadata


def tagged(f, *args, ctx_type=MetaCtx):
    """`(ctx, result)`: `f` run with each `(value, meta)` argument tagged."""
    ctx = enabletagging(ctx_type(metadata=[]), f)
    values = [tag(a[0], ctx, a[1]) if type(a) is tuple else a for a in args]
    return ctx, overdub(ctx, f, *values)


# The functions that run in the contexts -------------------------------------------------

def read_x(obj):
    return obj.x


def store_and_read_x(obj, value):
    obj.x = value
    return obj.x


def store_x(obj, value):
    obj.x = value


def call_m(obj):
    return obj.m()


def first_item(obj):
    return obj[0]


def total(obj):
    result = 0.0
    for value in obj:
        result = result + value
    return result


def truthy(obj):
    return 1 if obj else 0


def field_a(x, y):
    pair = Pair2(x, y)
    return pair.a


def make(cls, *args):
    return cls(*args)


# The getters and setters added to the classes ---------------------------------------

def seven(self):
    return SEVEN


def ignore(self, value):
    pass


def added_property():
    return property(seven, ignore)


def get_y(self):
    return self.y


def set_y(self, value):
    self.y = value


# The four kinds of class: (class to instantiate, class the property goes on) ---------

def plain():
    class Plain:
        def __init__(self, x=1.0):
            self.x = x

    return Plain, Plain


def changed_base():
    class Base:
        pass

    class Derived(Base):
        def __init__(self, x=1.0):
            self.x = x

    return Derived, Base


def slotted():
    class SlotBase:
        __slots__ = ("x", "y")

    class Slotted(SlotBase):  # its own dict is where the property goes
        __slots__ = ()

        def __init__(self, x=1.0):
            self.x = x

    return Slotted, Slotted


def dataclassed():
    @dataclasses.dataclass
    class Point:
        x: float = dataclasses.field(default_factory=lambda: 1.0)  # no class attribute

    return Point, Point


KINDS = [plain, changed_base, slotted, dataclassed]


@pytest.fixture(params=KINDS, ids=lambda kind: kind.__name__)
def kind(request):
    return request.param()


# (a) a property added after the first run is a call the hooks see --------------------

def test_a_property_added_later_is_seen_by_hooks(kind):
    cls, owner = kind
    obj = cls(1.0)
    result, calls = counted(read_x, obj)
    assert result == 1.0 and not reached(seven, calls)
    owner.x = added_property()
    result, calls = counted(read_x, obj)
    assert result == SEVEN and reached(seven, calls)


def test_a_property_setter_added_later_is_seen_by_hooks(kind):
    cls, owner = kind
    counted(store_x, cls(1.0), 2.0)
    owner.x = added_property()
    _, calls = counted(store_x, cls(1.0), 2.0)
    assert reached(ignore, calls)


# (b) in a tagging context, the property's constant carries no metadata --------------

def test_a_property_added_later_returns_its_constant_without_metadata(kind):
    cls, owner = kind
    ctx, result = tagged(store_and_read_x, cls(), (1.5, "m"))
    assert istagged(result, ctx) and untag(result, ctx) == 1.5 and metadata(result, ctx) == "m"
    owner.x = added_property()
    ctx, result = tagged(store_and_read_x, cls.__new__(cls), (1.5, "m"))
    assert result == SEVEN and not istagged(result, ctx)
    ctx, result = tagged(store_and_read_x, cls.__new__(cls), (1.5, "m"), ctx_type=Recording)
    assert reached(seven, ctx.metadata) and reached(ignore, ctx.metadata)


def test_the_same_context_notices_the_change_between_runs(kind):
    cls, owner = kind
    ctx = enabletagging(MetaCtx(), store_and_read_x)
    result = overdub(ctx, store_and_read_x, cls(), tag(1.5, ctx, "m"))
    assert metadata(result, ctx) == "m"
    owner.x = added_property()
    result = overdub(ctx, store_and_read_x, cls.__new__(cls), tag(1.5, ctx, "m"))
    assert result == SEVEN and not istagged(result, ctx)


def test_a_property_added_later_over_a_tagged_field_gives_its_metadata(kind):
    cls, owner = kind
    ctx, result = tagged(store_and_read_x, cls(), (1.5, "m"))
    assert metadata(result, ctx) == "m"
    owner.x = property(get_y, set_y)  # `x` now stores into and reads `y`
    ctx, result = tagged(store_and_read_x, cls.__new__(cls), (2.5, "n"))
    assert untag(result, ctx) == 2.5 and metadata(result, ctx) == "n"


# (d) deleting the property again goes back ------------------------------------------

def test_deleting_the_property_goes_back(kind):
    cls, owner = kind
    obj = cls(1.0)
    counted(read_x, obj)
    owner.x = added_property()
    assert counted(read_x, obj)[0] == SEVEN
    del owner.x
    result, calls = counted(read_x, obj)
    assert result == 1.0 and not reached(seven, calls)
    ctx, result = tagged(store_and_read_x, cls(), (1.5, "m"))
    assert untag(result, ctx) == 1.5 and metadata(result, ctx) == "m"
    owner.x = added_property()
    ctx, result = tagged(store_and_read_x, cls.__new__(cls), (1.5, "m"))
    assert not istagged(result, ctx)
    del owner.x
    ctx, result = tagged(store_and_read_x, cls(), (1.5, "m"))
    assert untag(result, ctx) == 1.5 and metadata(result, ctx) == "m"


def test_reassigning_bases_is_noticed():
    class Old:
        pass

    class New:
        x = added_property()

    class Derived(Old):
        pass

    obj = Derived()
    obj.x = 1.0
    assert counted(read_x, obj)[0] == 1.0
    ctx, result = tagged(store_and_read_x, Derived(), (1.5, "m"))
    assert metadata(result, ctx) == "m"
    Derived.__bases__ = (New,)
    result, calls = counted(read_x, obj)
    assert result == SEVEN and reached(seven, calls)
    ctx, result = tagged(store_and_read_x, Derived(), (1.5, "m"))
    assert result == SEVEN and not istagged(result, ctx)


# (c) replaced methods and dunders take effect ---------------------------------------

def test_a_replaced_method_takes_effect(kind):
    cls, owner = kind

    def before(self):
        return 1.0

    def after(self):
        return 2.0

    owner.m = before
    assert counted(call_m, cls())[0] == 1.0
    ctx, result = tagged(call_m, cls(), ctx_type=Recording)
    assert result == 1.0 and reached(before, ctx.metadata)
    owner.m = after
    result, calls = counted(call_m, cls())
    assert result == 2.0 and reached(after, calls) and not reached(before, calls)
    ctx, result = tagged(call_m, cls(), ctx_type=Recording)
    assert result == 2.0 and reached(after, ctx.metadata) and not reached(before, ctx.metadata)


def test_a_getattr_added_later_runs_in_the_context(kind):
    cls, owner = kind

    def fallback(self, name):
        return SEVEN

    ctx, result = tagged(store_and_read_x, cls(), (1.5, "m"), ctx_type=Recording)
    assert metadata(result, ctx) == "m"
    owner.__getattr__ = fallback
    ctx, result = tagged(read_x, cls.__new__(cls), ctx_type=Recording)  # no x: the hook
    assert result == SEVEN and reached(fallback, ctx.metadata)


def test_a_setattr_added_later_runs_in_the_context(kind):
    cls, owner = kind
    seen = []

    def custom(self, name, value):
        seen.append(value)

    _, calls = counted(store_x, cls(), 1.0)
    ctx, _ = tagged(store_x, cls(), (1.5, "m"), ctx_type=Recording)
    owner.__setattr__ = custom
    _, calls = counted(store_x, cls.__new__(cls), 2.0)
    assert reached(custom, calls) and seen == [2.0]
    ctx, _ = tagged(store_x, cls.__new__(cls), (1.5, "m"), ctx_type=Recording)
    assert reached(custom, ctx.metadata)
    assert seen[-1] == 1.5 and type(seen[-1]) is float  # plain in the heap


def test_a_replaced_getitem_takes_effect():
    class Items:
        def __getitem__(self, key):
            return 1.0

    def replaced(self, key):
        return 2.0

    ctx, result = tagged(first_item, Items(), ctx_type=Recording)
    assert result == 1.0
    Items.__getitem__ = replaced
    ctx, result = tagged(first_item, Items(), ctx_type=Recording)
    assert result == 2.0 and reached(replaced, ctx.metadata)
    assert counted(first_item, Items())[0] == 2.0


def test_a_replaced_iter_takes_effect():
    class Values(list):
        pass

    def python_iter(self):
        yield 10.0

    ctx, result = tagged(total, Values([1.0, 2.0]), ctx_type=Recording)
    assert result == 3.0
    Values.__iter__ = python_iter
    ctx, result = tagged(total, Values([1.0, 2.0]), ctx_type=Recording)
    assert result == 10.0 and reached(python_iter, ctx.metadata)
    result, calls = counted(total, Values([1.0, 2.0]))
    assert result == 10.0 and reached(python_iter, calls)
    del Values.__iter__
    ctx, result = tagged(total, Values([1.0, 2.0]), ctx_type=Recording)
    assert result == 3.0 and not reached(python_iter, ctx.metadata)


def test_a_replaced_bool_takes_effect(kind):
    cls, owner = kind

    def yes(self):
        return True

    def no(self):
        return False

    owner.__bool__ = yes
    assert counted(truthy, cls())[0] == 1
    owner.__bool__ = no
    result, calls = counted(truthy, cls())
    assert result == 0 and reached(no, calls) and not reached(yes, calls)
    del owner.__bool__
    assert counted(truthy, cls())[0] == 1


class Pair(collections.namedtuple("Pair", "a b")):
    pass


class Pair2(Pair):
    pass


def test_a_namedtuple_field_aliased_later_reads_the_other_item():
    ctx, result = tagged(field_a, (1.5, "x"), (2.5, "y"))
    assert untag(result, ctx) == 1.5 and metadata(result, ctx) == "x"
    Pair2.a = Pair.b
    try:
        ctx, result = tagged(field_a, (1.5, "x"), (2.5, "y"))
        assert untag(result, ctx) == 2.5 and metadata(result, ctx) == "y"
    finally:
        del Pair2.a


@dataclasses.dataclass
class Redecorated:  # at module level: its generated `__init__` runs as a model
    x: float = 1.0


def test_a_dataclass_decorated_again_constructs_with_its_new_fields():
    result, calls = counted(make, Redecorated, 2.0)
    assert result == Redecorated(2.0) and reached(Redecorated.__init__, calls)
    del Redecorated.__init__
    Redecorated.__annotations__ = {"x": "float", "y": "float"}
    Redecorated.y = 0.0
    dataclasses.dataclass(Redecorated)
    result, calls = counted(make, Redecorated, 2.0, 3.0)
    assert (result.x, result.y) == (2.0, 3.0) and reached(Redecorated.__init__, calls)


# (d) construction notices a replaced `__init__` or an added `__new__` ----------------

class Built:
    def __init__(self, x):
        self.x, self.version = x, 1


VERSIONS: list = []  # the `version` of each object `build` made


def build(x):
    obj = Built(x)
    VERSIONS.append(obj.version)
    return obj.x


def test_a_replaced_init_or_added_new_takes_effect_in_the_same_context():
    ctx = enabletagging(MetaCtx(), build)
    x = tag(1.5, ctx, "m")

    def built(expected_version):
        value = overdub(ctx, build, x)
        assert VERSIONS.pop() == expected_version
        assert untag(value, ctx) == 1.5 and metadata(value, ctx) == "m"

    built(1)
    original = Built.__init__
    try:
        def replaced(self, x):
            self.x, self.version = x, 2

        Built.__init__ = replaced
        built(2)

        def made_elsewhere(cls, x):
            obj = object.__new__(cls)
            obj.version = -1
            return obj

        Built.__new__ = made_elsewhere  # `__init__` still runs on what it returns
        built(2)
    finally:
        Built.__init__ = original
        if "__new__" in vars(Built):
            del Built.__new__  # (CPython's own `Built(x)` then fails in `object.__new__`)


class Returning:
    def __init__(self, x):
        pass


def build_returning(x):
    return Returning(x)


def test_an_init_that_comes_to_return_a_value_fails_as_in_cpython():
    ctx = enabletagging(MetaCtx(), build_returning)
    x = tag(1.5, ctx, "m")
    assert type(overdub(ctx, build_returning, x)) is Returning
    original = Returning.__init__
    try:
        def returns_a_value(self, x):
            return x

        Returning.__init__ = returns_a_value
        with pytest.raises(TypeError, match="should return None, not 'float'"):
            overdub(ctx, build_returning, x)
        with pytest.raises(TypeError, match="should return None, not 'float'"):
            Returning(1.5)  # what CPython says, for the same class
        with pytest.raises(TypeError, match="should return None, not 'float'"):
            overdub(Counting(metadata=[]), build_returning, 1.5)  # and the model
    finally:
        Returning.__init__ = original
