"""Special methods CPython calls implicitly, from bytecode or from a builtin, written in
Python and reading or writing the heap: each is a call in the derivative, or refused.
Run natively, such a method reads the heap plain and what it computes or stores has
derivative 0, with no error. Every subject here is 2x², built from `x * x`."""

import asyncio
import operator

import pytest

from ad import D, NonDifferentiableError

EXACT = {1: 6.0, 2: 4.0, 3: 0.0}  # the derivatives of 2x² at 1.5


def derivative(f, depth):
    for _ in range(depth):
        f = D(f)
    return f(1.5)


class Recorder:
    """A subject whose special method, called implicitly, stores twice its value
    (`record`): what a test reads back from `out`."""

    def __init__(self, v):
        self.v, self.out = v, []

    def record(self):
        self.out.append(self.v * 2)


class Truthy(Recorder):
    """A truth test of it runs `__bool__`, which stores twice its value."""

    def __bool__(self):
        self.record()
        return True


class Sized(Recorder):
    """A truth test of it runs `__len__` (it has no `__bool__`), which stores."""

    def __len__(self):
        self.record()
        return 1


def if_test(x):
    b = Truthy(x * x)
    if b:
        pass
    return b.out[0]


def while_test(x):
    b = Truthy(x * x)
    while b:
        break
    return b.out[0]


def and_operand(x):
    b = Truthy(x * x)
    b and 1
    return b.out[0]


def conditional_expression(x):
    b = Truthy(x * x)
    1 if b else 2
    return b.out[0]


def comprehension_condition(x):
    b = Truthy(x * x)
    [1 for _ in [1] if b]
    return b.out[0]


def not_operand(x):
    b = Truthy(x * x)
    not b
    return b.out[0]


def bool_builtin(x):
    b = Truthy(x * x)
    bool(b)
    return b.out[0]


def operator_truth(x):
    b = Truthy(x * x)
    operator.truth(b)
    return b.out[0]


def any_builtin(x):
    b = Truthy(x * x)
    any([b])
    return b.out[0]


def len_tested(x):
    b = Sized(x * x)
    if b:
        pass
    return b.out[0]


def len_by_bool(x):
    b = Sized(x * x)
    bool(b)
    return b.out[0]


TRUTH_TESTS = [if_test, while_test, and_operand, conditional_expression,
               comprehension_condition, not_operand, bool_builtin, operator_truth,
               any_builtin, len_tested, len_by_bool]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", TRUTH_TESTS, ids=lambda f: f.__name__)
def test_a_truth_test_runs_a_python_bool_or_len_in_the_derivative(f, depth):
    assert f(1.5) == 4.5
    assert derivative(f, depth) == EXACT[depth]


def init_subclass_keyword(x):
    out = []

    class Base:
        def __init_subclass__(cls, w=0, **kwargs):
            out.append(w * 2)

    class Made(Base, w=x * x):
        pass
    return out[0]


def set_name_of_a_descriptor(x):
    out = []

    class Named:
        def __init__(self, v):
            self.v = v

        def __set_name__(self, owner, name):
            out.append(self.v * 2)

    class Made:
        a = Named(x * x)
    return out[0]


def mro_entries_of_a_base(x):
    out = []

    class Entry:
        def __init__(self, v):
            self.v = v

        def __mro_entries__(self, bases):
            out.append(self.v * 2)
            return (object,)

    class Made(Entry(x * x)):
        pass
    return out[0]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [init_subclass_keyword, set_name_of_a_descriptor,
                               mro_entries_of_a_base], ids=lambda f: f.__name__)
def test_a_class_hook_c_calls_natively_on_a_derivative_is_refused(f, depth):
    assert f(1.5) == 4.5
    with pytest.raises(NonDifferentiableError, match="natively"):
        derivative(f, depth)


def resolved_bases(x):
    import types
    out = []

    class Entry:
        def __init__(self, v):
            self.v = v

        def __mro_entries__(self, bases):
            out.append(self.v * 2)
            return (object,)

    class Made(*types.resolve_bases((Entry(x * x),))):
        pass
    return out[0]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_way_out_of_mro_entries_resolves_the_bases_in_the_derivative(depth):
    assert derivative(resolved_bases, depth) == EXACT[depth]


class Point:
    """A class pattern reads `a`, a property, by `__match_args__`: CPython runs its
    getter natively."""

    __match_args__ = ("a", "b")
    b = 0

    def __init__(self, v):
        self.v = v

    @property
    def a(self):
        return self.v * 2


class Lazy:
    """A class pattern reads `a`, which only `__getattr__` answers."""

    __match_args__ = ("a",)

    def __init__(self, v):
        self.v = v

    def __getattr__(self, name):
        return self.v * 2


def positional_property(x):
    match Point(x * x):
        case Point(a, b):
            return a


def keyword_property(x):
    match Point(x * x):
        case Point(a=a):
            return a


def getattr_answered(x):
    match Lazy(x * x):
        case Lazy(a):
            return a


def in_a_coroutine(x):
    async def run():
        match Point(x * x):
            case Point(a, b):
                return a
    return asyncio.run(run())


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [positional_property, keyword_property, getattr_answered,
                               in_a_coroutine], ids=lambda f: f.__name__)
def test_a_class_pattern_reading_through_python_code_is_refused(f, depth):
    assert f(1.5) == 4.5
    with pytest.raises(NonDifferentiableError, match="class pattern"):
        derivative(f, depth)


def subject_captured(x):
    match Point(x * x):
        case Point() as p:
            return p.a


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_way_out_of_a_class_pattern_reads_the_attribute_in_the_body(depth):
    assert derivative(subject_captured, depth) == EXACT[depth]


class Holder(Recorder):
    """`in` runs `__contains__`, which stores twice its value."""

    def __contains__(self, item):
        self.record()
        return True


class Walked(Recorder):
    """`in` loops over `__iter__` (there is no `__contains__`), which stores."""

    def __iter__(self):
        self.record()
        return iter([1])


def membership(x):
    h = Holder(x * x)
    1 in h
    return h.out[0]


def membership_negated(x):
    h = Holder(x * x)
    found = 1 not in h
    return h.out[0]


def membership_by_iteration(x):
    h = Walked(x * x)
    1 in h
    return h.out[0]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [membership, membership_negated, membership_by_iteration],
                         ids=lambda f: f.__name__)
def test_in_runs_a_python_contains_or_iteration_in_the_derivative(f, depth):
    assert f(1.5) == 4.5
    assert derivative(f, depth) == EXACT[depth]


class Position(Recorder):
    """A list's slice reads the bound by `__index__`, which stores twice its value."""

    def __index__(self):
        self.record()
        return 1


def slice_read(x):
    i = Position(x * x)
    [1, 2, 3][i:]
    return i.out[0]


def slice_step_of_a_tuple(x):
    i = Position(x * x)
    (1, 2, 3)[::i]
    return i.out[0]


def slice_written(x):
    i = Position(x * x)
    xs = [1, 2, 3]
    xs[:i] = [x]
    return i.out[0]


def slice_deleted(x):
    i = Position(x * x)
    xs = [1, 2, 3]
    del xs[i:]
    return i.out[0]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [slice_read, slice_step_of_a_tuple, slice_written, slice_deleted],
                         ids=lambda f: f.__name__)
def test_a_slice_bound_s_python_index_runs_in_the_derivative(f, depth):
    assert f(1.5) == 4.5
    assert derivative(f, depth) == EXACT[depth]


def slice_takes_its_items(x):
    xs = [x, x * x, x * 3]
    return sum(xs[Position(x):])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_slice_by_a_user_index_keeps_the_derivatives_of_its_items(depth):
    assert derivative(slice_takes_its_items, depth) == {1: 6.0, 2: 2.0, 3: 0.0}[depth]


class Deletable:
    """`del` of `p` runs its deleter, of `d` a descriptor's `__delete__`: each stores
    twice the value."""

    class Descriptor:
        def __get__(self, obj, kind=None):
            return 0

        def __delete__(self, obj):
            obj.out.append(obj.v * 2)

    d = Descriptor()

    def __init__(self, v):
        self.v, self.out = v, []

    @property
    def p(self):
        return 0

    @p.deleter
    def p(self):
        self.out.append(self.v * 2)


class Forgets(Recorder):
    def __delattr__(self, name):
        self.record()


def property_deleted(x):
    o = Deletable(x * x)
    del o.p
    return o.out[0]


def descriptor_deleted(x):
    o = Deletable(x * x)
    del o.d
    return o.out[0]


def delattr_called(x):
    o = Forgets(x * x)
    del o.anything
    return o.out[0]


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [property_deleted, descriptor_deleted, delattr_called],
                         ids=lambda f: f.__name__)
def test_del_of_an_attribute_runs_a_python_deleter_in_the_derivative(f, depth):
    assert f(1.5) == 4.5
    assert derivative(f, depth) == EXACT[depth]


class Intercepting:
    """Every attribute read runs `__getattribute__`, which reads its own slot by
    `object.__getattribute__` (the engine, asking for `__dict__`, must not call it)."""

    def __init__(self, v):
        object.__setattr__(self, "_v", v)

    def __getattribute__(self, name):
        return object.__getattribute__(self, "_v") * 2


class InterceptingProperty:
    """`object.__getattribute__` finds a property: C would run its getter natively."""

    def __init__(self, v):
        self._v = v

    @property
    def doubled(self):
        return self._v * 2

    def __getattribute__(self, name):
        return object.__getattribute__(self, "doubled" if name == "w" else name)


def getattribute_reads_its_slot(x):
    return Intercepting(x * x).w


def getattribute_kept_in_a_variable(x):
    o = Intercepting(x * x)
    return o.w


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("f", [getattribute_reads_its_slot, getattribute_kept_in_a_variable],
                         ids=lambda f: f.__name__)
def test_a_python_getattribute_reading_its_own_slot_keeps_the_derivative(f, depth):
    assert f(1.5) == 4.5
    assert derivative(f, depth) == EXACT[depth]


def getattribute_finds_a_property(x):
    return InterceptingProperty(x * x).w


@pytest.mark.parametrize("depth", [1, 2])
def test_object_getattribute_finding_a_python_property_is_refused(depth):
    assert getattribute_finds_a_property(1.5) == 4.5
    with pytest.raises(NonDifferentiableError, match="__getattribute__"):
        derivative(getattribute_finds_a_property, depth)


class Doubling:
    def __class_getitem__(cls, item):
        return item * 2


def class_subscript(x):
    return Doubling[x * x]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_class_subscript_runs_a_python_class_getitem_in_the_derivative(depth):
    assert class_subscript(1.5) == 4.5
    assert derivative(class_subscript, depth) == EXACT[depth]


# Known limits: Python code that C calls natively, whose answer is a constant (an int,
# a bool) but which stores what it computes. What it stores has derivative 0.

FINALIZED = []


class Finalized:
    def __init__(self, v):
        self.v = v

    def __del__(self):
        FINALIZED.append(self.v * 2)


def finalizer_stores(x):
    FINALIZED.clear()
    o = Finalized(x * x)
    del o
    return FINALIZED[0]


class Keyed(Recorder):
    def __hash__(self):
        self.record()
        return 1


def dict_key_hash_stores(x):
    k = Keyed(x * x)
    {k: 1}
    return k.out[0]


class Checking(type):
    out = []

    def __instancecheck__(cls, obj):
        Checking.out.append(obj.v * 2)
        return True


class Checked(metaclass=Checking):
    pass


def instancecheck_stores(x):
    Checking.out.clear()
    isinstance(Keyed(x * x), Checked)
    return Checking.out[0]


@pytest.mark.xfail(strict=True, reason="C calls __del__, a dict's __hash__ and isinstance's "
                   "__instancecheck__ natively; what they store has derivative 0")
@pytest.mark.parametrize("f", [finalizer_stores, dict_key_hash_stores, instancecheck_stores],
                         ids=lambda f: f.__name__)
def test_a_constant_answering_dunder_c_calls_natively_loses_what_it_stores(f):
    assert f(1.5) == 4.5
    assert derivative(f, 1) == EXACT[1]
