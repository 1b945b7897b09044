"""Implicit calls reach the context: property getters and setters, `with`, iteration."""

from contexts import Context, overdub, primitive
from tests.engine_helpers import Answer


class Trace(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__qualname__", repr(f)))


class Gauge:
    def __init__(self, value):
        self._value = value
        self.__private = value  # mangled inside the class

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, new):
        self._value = new

    def private(self):
        return self.__private


class Managed:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, traceback):
        self.log.append(("exit", kind))
        return kind is KeyError  # swallow KeyError only


def use_gauge(x):
    gauge = Gauge(x)
    gauge.value = gauge.value + 1
    return gauge.value, gauge.private()


def read_gauge(gauge):
    return gauge.value, getattr(gauge, "value"), getattr(gauge, "value", 0), \
        hasattr(gauge, "value")


def use_manager(log, fail):
    with Managed(log) as manager:
        manager.log.append("body")
        if fail:
            raise fail("boom")
    return log


def test_property_getter_and_setter_are_calls_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, use_gauge, 1) == use_gauge(1) == (2, 1)
    assert ctx.metadata.count("Gauge.value") == 3  # two reads and one write
    assert "Gauge.private" in ctx.metadata


def test_getattr_and_hasattr_call_a_property_getter_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, read_gauge, Gauge(1)) == read_gauge(Gauge(1)) == (1, 1, 1, True)
    assert ctx.metadata.count("Gauge.value") == 4


class Logged(Gauge):
    """A `__setattr__` beside a property: CPython calls `__setattr__` first."""

    def __setattr__(self, name, value):
        self.__dict__.setdefault("log", []).append(name)
        object.__setattr__(self, name, value)


class Described:
    """A Python data descriptor: its `__set__` and `__get__` are user code."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, kind=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, value * 10)


class Holder:
    size = Described()


def store_logged(gauge):
    gauge.value = 5
    return gauge.value, gauge.log


def store_described(holder):
    holder.size = 2
    return holder.size


def test_a_python_setattr_runs_before_a_property_setter():
    ctx = Trace(metadata=[])
    assert overdub(ctx, store_logged, Logged(1)) == store_logged(Logged(1))
    assert "Logged.__setattr__" in ctx.metadata


def test_a_python_descriptor_set_is_a_call_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, store_described, Holder()) == store_described(Holder()) == 20
    assert ctx.metadata.count("Described.__set__") == 1


class ClaimsValue(Context):
    @primitive(Gauge.value.fget)
    def value(self, gauge):
        return "claimed"


def test_a_primitive_on_a_property_getter_is_honoured_however_it_is_read():
    """No hook: the primitive alone makes the context watch attribute reads."""
    claimed = overdub(ClaimsValue(), read_gauge, Gauge(1))
    assert claimed == ("claimed", "claimed", "claimed", True)


def test_with_statement_enter_and_exit_are_calls_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, use_manager, [], None) == ["enter", "body", ("exit", None)]
    assert ctx.metadata.index("Managed.__enter__") < ctx.metadata.index("Managed.__exit__")


def test_with_statement_keeps_exception_semantics():
    ctx = Trace(metadata=[])
    assert overdub(ctx, use_manager, [], KeyError) == use_manager([], KeyError)
    try:
        overdub(ctx, use_manager, [], ValueError)
    except ValueError as error:
        assert str(error) == "boom"
    else:
        raise AssertionError("the ValueError was swallowed")


class Claims(Context):
    @primitive(Managed.__enter__)
    def enter(self, manager):
        manager.log.append("claimed")
        return manager


def test_a_primitive_on_enter_is_honoured():
    assert overdub(Claims(), use_manager, [], None) == ["claimed", "body", ("exit", None)]


class Count:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def truth_tests(a, c):
    """(No `assert`: pytest rewrites those in test modules; see the corpus.)"""
    out = []
    if a:
        out.append("if")
    while c:
        out.append("while")
        break
    out.append("ifexp" if a else "no")
    out.append(not a)
    out.append((a and "and") is a)
    out.append((c or "or") is c)
    out.append([i for i in range(1) if a])
    match 1:
        case 1 if a:
            out.append("guard")
    out.append(bool(c))
    return out


def test_every_truth_test_calls_bool_or_len_in_the_context():
    ctx = Trace(metadata=[])
    expected = truth_tests(Answer(True), Count(0))
    assert overdub(ctx, truth_tests, Answer(True), Count(0)) == expected
    assert ctx.metadata.count("Answer.__bool__") == 6
    assert ctx.metadata.count("Count.__len__") == 3


class Contrary(Context):
    @primitive(Answer.__bool__)
    def answer(self, answer):
        return not answer.value

    @primitive(Count.__len__)
    def count(self, count):
        return 1 - count.n


def test_a_primitive_on_bool_or_len_is_honoured_by_truth_tests():
    """No hook: the primitives alone make truth tests reach the context."""
    expected = truth_tests(Answer(False), Count(1))
    assert overdub(Contrary(), truth_tests, Answer(True), Count(0)) == expected
    assert expected != truth_tests(Answer(True), Count(0))


class Removable:
    """`del` of `value` runs its property's deleter; of `size`, a descriptor's
    `__delete__`; of anything else, `__delattr__`."""

    def __init__(self, log):
        self.log = log

    @property
    def value(self):
        return 1

    @value.deleter
    def value(self):
        self.log.append("fdel")

    class Sized:
        def __get__(self, obj, kind=None):
            return 2

        def __delete__(self, obj):
            obj.log.append("delete")

    size = Sized()


class Forgetful:
    def __delattr__(self, name):
        self.__dict__.setdefault("log", []).append(name)


def delete_three(log):
    removable = Removable(log)
    del removable.value, removable.size
    forgetful = Forgetful()
    del forgetful.anything
    return log + forgetful.log


def test_del_of_an_attribute_calls_its_deleter_descriptor_or_delattr_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, delete_three, []) == delete_three([]) == ["fdel", "delete", "anything"]
    for seen in ("Removable.value", "Removable.Sized.__delete__", "Forgetful.__delattr__"):
        assert ctx.metadata.count(seen) == 1, seen


class Generic:
    def __class_getitem__(cls, item):
        return ("alias", cls.__name__, item)


def subscript_classes():
    return Generic[int], list[int]


def test_a_class_subscript_calls_a_python_class_getitem_in_the_context():
    ctx = Trace(metadata=[])
    assert overdub(ctx, subscript_classes) == subscript_classes()
    assert ctx.metadata.count("Generic.__class_getitem__") == 1
