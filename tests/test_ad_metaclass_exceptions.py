"""A metaclass with a Python `__call__`, and exceptions built from values carrying a
derivative: under `D` each gives the derivative worked out by hand, or is refused
(`NonDifferentiableError`). The refusals are strict xfails, so a fix that makes them
run shows up here with the value it must give.

An exception keeps its arguments in the tuple `error.args` (C code); tagging treats
building one as a store into that tuple's slots, so `error.args[0]` read back inside
the derivative keeps its derivative, at every nesting depth, through `raise ... from`,
exception groups, copies and `error.args = ...`. An exception that leaves `D` holds
plain values.

Calling a class whose metaclass defines `__call__` in Python calls that `__call__`
with the class first, in the context; `super().__call__(...)` inside it constructs as
`type.__call__` does. A metaclass without one (`abc.ABCMeta`) constructs as `type`."""

import abc
import copy
import pickle
from fractions import Fraction

import pytest

from ad import D, NonDifferentiableError


class Scaling(type):
    """A metaclass whose `__call__` computes with the value it is given."""

    def __call__(cls, v):
        obj = super().__call__(v)
        obj.scaled = 3 * v
        return obj


class Box(metaclass=Scaling):
    def __init__(self, v):
        self.v = v


def boxed(x):
    box = Box(x * x)
    return box.scaled + box.v  # 4 x**2


def test_a_metaclass_call_computing_with_the_value():
    assert D(boxed, 0.7) == pytest.approx(8 * 0.7, rel=1e-15)
    assert D(lambda x: D(boxed, x), 0.7) == pytest.approx(8, rel=1e-15)


class Registry(type):
    """A metaclass keeping one instance per key: a later call gets the first one."""

    def __call__(cls, key, v):
        if key not in cls.instances:
            cls.instances[key] = super().__call__(v)
        return cls.instances[key]


class Single(metaclass=Registry):
    instances: dict = {}

    def __init__(self, v):
        self.v = v


def registered(x):
    Single.instances.clear()
    first = Single("a", x * x)
    again = Single("a", 5.0)  # the first instance, v = x**2
    return first.v + again.v * x  # x**2 + x**3


def test_a_metaclass_call_caching_instances():
    assert D(registered, 0.7) == pytest.approx(2 * 0.7 + 3 * 0.7 ** 2, rel=1e-15)
    assert D(lambda x: D(registered, x), 0.7) == pytest.approx(2 + 6 * 0.7, rel=1e-15)


class Factory(type):
    """A metaclass whose `__call__` returns a number, no instance of the class."""

    def __call__(cls, v):
        return v * cls.scale


class Doubled(metaclass=Factory):
    scale = 2.0


def doubled(x):
    return Doubled(x * x) + x  # 2 x**2 + x


def test_a_metaclass_call_returning_something_other_than_an_instance():
    assert D(doubled, 0.7) == pytest.approx(4 * 0.7 + 1, rel=1e-15)
    assert D(lambda x: D(doubled, x), 0.7) == pytest.approx(4, rel=1e-15)


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


def cubed(x):
    return Square(x).area() * x  # x**3


def test_an_abcmeta_class_constructs_as_type_does():
    assert D(cubed, 0.7) == pytest.approx(3 * 0.7 ** 2, rel=1e-15)
    assert D(lambda x: D(cubed, x), 0.7) == pytest.approx(6 * 0.7, rel=1e-15)
    with pytest.raises(TypeError, match="abstract"):
        D(lambda x: Shape().area() * x, 0.7)


class Kept(Exception):
    """An exception keeping the value as an attribute only."""

    def __init__(self, value):
        self.value = value


class Passed(Exception):
    """An exception passing the value on to `Exception.__init__` as well."""

    def __init__(self, value):
        super().__init__(value)
        self.value = value


def caught_attribute(x):
    try:
        raise Kept(x * x)
    except Kept as error:
        return error.value * 2  # 2 x**2


def caught_passed(x):
    try:
        raise Passed(x * x)
    except Passed as error:
        return error.value * 2  # 2 x**2


def caught_args(x):
    try:
        raise Exception(x * x)
    except Exception as error:
        return error.args[0] * 2  # 2 x**2


def test_a_user_exception_keeping_the_value_in_an_attribute():
    assert D(caught_attribute, 0.7) == pytest.approx(4 * 0.7, rel=1e-15)


def test_a_user_exception_passing_the_value_to_exception_init():
    assert D(caught_passed, 0.7) == pytest.approx(4 * 0.7, rel=1e-15)


def test_an_exceptions_args_read_back():
    assert D(caught_args, 0.7) == pytest.approx(4 * 0.7, rel=1e-15)


def test_the_plain_functions_are_what_the_derivatives_are_of():
    """The hand-worked derivatives above are of these values."""
    for f, coefficient in ((boxed, 4), (caught_attribute, 2), (caught_passed, 2),
                           (caught_args, 2)):
        assert f(0.7) == pytest.approx(coefficient * 0.7 ** 2, rel=1e-15)
    assert registered(0.7) == pytest.approx(0.7 ** 2 + 0.7 ** 3, rel=1e-15)
    assert doubled(0.7) == pytest.approx(2 * 0.7 ** 2 + 0.7, rel=1e-15)
    assert cubed(0.7) == pytest.approx(0.7 ** 3, rel=1e-15)


class Measured(Exception):
    """Several arguments passed on, and a keyword-only attribute."""

    def __init__(self, low, high, *, scale):
        super().__init__(low, high)
        self.scale = scale


def several(x):
    try:
        raise Measured(x, x * x, scale=3 * x)
    except Measured as error:
        low, high = error.args
        return low * high + error.scale * error.args[1]  # x**3 + 3 x**3


def chained(x):
    try:
        try:
            raise ValueError(x * x)
        except ValueError as first:
            raise KeyError(3 * x) from first
    except KeyError as second:
        return second.args[0] * second.__cause__.args[0]  # 3 x**3


def implicitly_chained(x):
    try:
        try:
            raise Kept(x * x)
        except Kept:
            raise LookupError(2 * x)
    except LookupError as second:
        return second.args[0] * second.__context__.value  # 2 x**3


def grouped(x):
    try:
        raise ExceptionGroup("values", [Passed(x * x), ValueError(3 * x)])
    except* Passed as passed:
        first = passed.exceptions[0].args[0]
    except* ValueError as plain:
        second = plain.exceptions[0].args[0]
    return first * second  # 3 x**3


def args_assigned(x):
    error = Exception()
    error.args = [x * x, "text"]  # C would make the list a tuple natively
    replaced = Exception("text")
    replaced.args = (x, x * x)
    return error.args[0] * replaced.args[0] + replaced.args[1]  # x**3 + x**2


def copied(x):
    return copy.copy(Exception(x * x)).args[0] * copy.deepcopy(Passed(x)).value  # x**3


# (f, f', f''), each worked out by hand from the comment in `f`.
EXCEPTIONS = [
    (caught_attribute, lambda x: 4 * x, lambda x: 4),
    (caught_passed, lambda x: 4 * x, lambda x: 4),
    (caught_args, lambda x: 4 * x, lambda x: 4),
    (several, lambda x: 12 * x ** 2, lambda x: 24 * x),
    (chained, lambda x: 9 * x ** 2, lambda x: 18 * x),
    (implicitly_chained, lambda x: 6 * x ** 2, lambda x: 12 * x),
    (grouped, lambda x: 9 * x ** 2, lambda x: 18 * x),
    (args_assigned, lambda x: 3 * x ** 2 + 2 * x, lambda x: 6 * x + 2),
    (copied, lambda x: 3 * x ** 2, lambda x: 6 * x),
]


@pytest.mark.parametrize("f, first, second", EXCEPTIONS, ids=lambda f: f.__name__)
def test_values_read_back_from_an_exception_keep_their_derivatives(f, first, second):
    assert D(f, 0.7) == pytest.approx(first(0.7), rel=1e-14)
    assert D(D(f), 0.7) == pytest.approx(second(0.7), rel=1e-14)


@pytest.mark.parametrize("f, first, second", EXCEPTIONS, ids=lambda f: f.__name__)
def test_exactly_at_a_fraction(f, first, second):
    x = Fraction(3, 7)
    assert D(f, x) == first(x) and type(D(f, x)) is Fraction
    assert D(D(f), x) == second(x)


def test_an_exception_from_an_inner_derivative_keeps_the_outer_one():
    def outer(x):
        def inner(y):
            raise Exception(x * y * y, y)  # escapes the inner derivative

        try:
            D(inner, 1.0)
        except Exception as error:
            return error.args[0] * x  # x**2 at y = 1

    assert D(outer, 0.7) == pytest.approx(1.4, rel=1e-15)


def test_an_exception_leaving_the_derivative_holds_plain_values():
    def raising(x):
        raise Measured(x, x * x, scale=3 * x)

    with pytest.raises(Measured) as caught:
        D(raising, 0.7)
    error = caught.value
    assert [type(v) for v in (*error.args, error.scale)] == [float, float, float]
    assert error.args == pytest.approx((0.7, 0.49)) and error.scale == pytest.approx(2.1)
    assert D(lambda y: error.args[1] * y, 2.0) == error.args[1]  # a constant now


def test_an_exception_that_keeps_an_argument_in_a_field_of_its_own_is_refused():
    with pytest.raises(NonDifferentiableError, match="StopIteration keeps an argument"):
        D(lambda x: StopIteration(x * x).value * 2, 0.7)


def test_pickling_an_exception_holding_a_derivative_is_refused():
    with pytest.raises(NonDifferentiableError, match="pickle"):
        D(lambda x: pickle.loads(pickle.dumps(Exception(x * x))).args[0] * 2, 0.7)


class Base:
    def __init__(self, v):
        self.v = v


class Derived(Base):
    def __init__(self, v):
        self.w = 2 * v
        super().__init__(v)  # `super` given an object whose attribute carries one


def test_super_of_an_object_holding_a_derivative():
    assert D(lambda x: Derived(x * x).v * Derived(x).w, 0.7) == \
        pytest.approx(6 * 0.7 ** 2, rel=1e-15)


def _missing_key(read, empty):
    """`f(x)`: twice the key the lookup of x**2 in an empty container raised `KeyError`
    for (its derivative 4x)."""
    def f(x):
        try:
            read(empty(), x * x)
        except KeyError as error:
            return error.args[0] * 2
    return f


def _delete(container, key):
    del container[key]


@pytest.mark.parametrize("read, empty", [(lambda d, k: d[k], dict), (dict.pop, dict),
                                         (_delete, dict), (set.remove, set)],
                         ids=["subscript", "pop", "del", "set.remove"])
def test_the_key_error_of_a_missing_key_keeps_its_derivative(read, empty):
    f = _missing_key(read, empty)
    assert D(f, 0.7) == pytest.approx(4 * 0.7, rel=1e-15)
    assert D(D(f), 0.7) == pytest.approx(4.0, rel=1e-15)
