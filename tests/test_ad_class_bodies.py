"""A class statement inside a derivative runs in it.

Its body's reads, calls and arithmetic are the derivative's; what it binds keeps
its derivative in the class namespace and then in the class attributes; its
decorators, its metaclass (given, or a base's), zero-argument `super()` in its
methods and dataclasses work as in plain Python. Each subject is a polynomial
of degree 4 at most in `x`, so a five-point stencil over exact fractions is its
exact first, second and third derivative. What cannot be followed (a
class-creation hook written in Python that C calls while the namespace holds a
derivative, a value bound by `:=`) is refused, naming the user's line.
"""

import dataclasses
import math
from fractions import Fraction

import mpmath
import pytest

from ad import D, NonDifferentiableError
from contexts import Context, overdub
from tagging import Tagged


def attributes(x):
    class Made:
        a = x * 2
        b = a * a + 1  # a name of the class body, read back
        c = [a, b]
    return Made.a + Made.b * Made.c[0]


def methods(x):
    class Made:
        scale = x * 3

        def at(self, t):
            return self.scale * t * x
    return Made().at(x)


def unpacked_and_looped(x):
    class Made:
        a, b = x, x * x
        a += b
        for _ in range(2):
            b = b * x
        with open(__file__) as _:
            c = a - x
        e, *f = x * 2, x, 3
    return Made.a + Made.b + Made.c + Made.e * Made.f[0]


def decorated(x):
    def doubled(cls):
        cls.d = cls.a * 2
        return cls

    @doubled
    class Made:
        a = x * x
    return Made.d


class Scaled(type):
    def __new__(mcs, name, bases, namespace, **options):
        namespace["scaled"] = namespace["a"] * options["factor"]
        return super().__new__(mcs, name, bases, namespace)

    def __init__(cls, name, bases, namespace, **options):
        super().__init__(name, bases, namespace)


def with_a_metaclass(x):
    class Made(metaclass=Scaled, factor=3):
        a = x * x
    return Made.scaled + Made.a


def a_base_with_a_metaclass(x):
    class Base(metaclass=Scaled, factor=2):
        a = 1

    class Made(Base, factor=x):  # the metaclass comes from the base
        a = x * x
    return Made.scaled


def zero_argument_super(x):
    class Base:
        def value(self):
            return x * x

    class Made(Base):
        k = x

        def value(self):
            return super().value() * self.k
    return Made().value()


def a_dataclass(x):
    @dataclasses.dataclass
    class Point:
        a: Fraction = x * 2
        b: Fraction = 1
        tags: list = dataclasses.field(default_factory=list)

        def area(self):
            return self.a * self.b
    return Point().area() + Point(b=x).area()


def nested_classes(x):
    class Outer:
        class Inner:
            a = x * 3
        b = Inner.a * x
    return Outer.b + Outer.Inner.a


def private_and_global(x):
    global LATER
    LATER = x * x

    class Made:
        __p = x * 2
        q = __p * LATER

        def p(self):
            return self.__p
    return Made.q + Made().p()


def comprehension_and_closure(x):
    class Made:
        a = x * 2
        squares = [x * t for t in range(3)]
        pairs = {t: x * t for t in range(2)}  # (the class's names are not the comprehension's)
        total = sum(squares)
    return Made.total * Made.pairs[1] + Made.a


LATER = None


class Registered:
    """A base whose `__init_subclass__` C calls while the class is made."""

    made: list = []

    def __init_subclass__(cls, **options):
        Registered.made.append(cls.__name__)


def a_hook_and_a_plain_namespace(x):
    class Made(Registered):
        label = "plain"
    Made.a = x * x  # once the class is made: the hook has run
    return Made.a * x


def spread_keywords(x):
    options = {"metaclass": Scaled, "factor": x}

    class Made(**options):
        a = x * x
    return Made.scaled


SUBJECTS = [attributes, methods, unpacked_and_looped, decorated, with_a_metaclass,
            a_base_with_a_metaclass, zero_argument_super, a_dataclass, nested_classes,
            private_and_global, comprehension_and_closure, a_hook_and_a_plain_namespace,
            spread_keywords]
POINTS = [Fraction(3, 2), Fraction(-2, 3), 2]


def exact(f, x, order):
    """The `order`-th derivative of `f` at `x`, exact for a polynomial of degree 4
    or less: a five-point stencil of step 1, in fractions."""
    m2, m1, z, p1, p2 = (f(Fraction(x) + k) for k in (-2, -1, 0, 1, 2))
    if order == 1:
        return (m2 - 8 * m1 + 8 * p1 - p2) / 12
    if order == 2:
        return (-m2 + 16 * m1 - 30 * z + 16 * p1 - p2) / 12
    return (-m2 + 2 * m1 - 2 * p1 + p2) / 2


def nth(f, order):
    for _ in range(order):
        f = D(f)
    return f


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("x", POINTS, ids=str)
@pytest.mark.parametrize("f", SUBJECTS)
def test_a_class_body_differentiates_at_every_depth(f, x, order):
    assert nth(f, order)(x) == exact(f, x, order)


@pytest.mark.parametrize("f", SUBJECTS)
def test_at_a_float_point(f):
    assert nth(f, 1)(1.5) == pytest.approx(float(exact(f, Fraction(3, 2), 1)), rel=1e-12)


def transcendental(x):
    class Made:
        a = math.sin(x) * 2
        b = math.exp(a)
    return Made.b


def test_a_class_body_calling_math_against_mpmath():
    mpmath.mp.dps = 40
    expected = mpmath.diff(lambda t: mpmath.exp(2 * mpmath.sin(t)), mpmath.mpf("0.7"))
    assert D(transcendental, 0.7) == pytest.approx(float(expected), rel=1e-13)


# What a class outlives the derivative with ------------------------------------------

KEPT: list = []


def kept(x):
    class Made:
        a = x * 2
        b = [x, 3]
        c = {"k": x * x}
        d = a * 3

        def at(self, t=x * 5):
            return t
    KEPT.append(Made)
    return Made.a + Made.b[0] * Made.c["k"] + Made.d + Made().at()


def state(kind):
    """The class's own attributes with their types (functions by their defaults)."""
    shown = {}
    for name, value in vars(kind).items():
        if name.startswith("__"):
            continue
        if callable(value):
            value = value.__defaults__
        shown[name] = (value, repr(value), type(value))
    return shown


@pytest.mark.parametrize("x", [1.5, Fraction(2, 3)], ids=str)
def test_a_class_made_in_a_derivative_holds_plain_values_afterwards(x):
    kept(x)
    plain = state(KEPT.pop())
    assert D(kept, x) == 2 + 3 * x * x + 6 + 5
    made = KEPT.pop()
    assert state(made) == plain
    assert not any(type(v) is Tagged for v in vars(made).values())
    assert "__ovd" not in str(list(vars(made)))  # no temporary of the engine's left
    assert made.a + 1 == 2 * x + 1  # a number, not a value tagged by a context


def test_a_class_made_in_a_second_derivative_holds_plain_values_afterwards():
    kept(1.5)
    plain = state(KEPT.pop())
    assert D(D(kept), 1.5) == 6 * 1.5
    assert state(KEPT.pop()) == plain


def test_hooks_see_the_calls_of_a_class_body():
    seen = []

    class Watching(Context):
        def prehook(self, f, *args, **kwargs):
            seen.append(getattr(f, "__name__", None))

    def f(x):
        class Made:
            a = abs(x) * 2
            b = round(a)
        return Made.b

    assert overdub(Watching(), f, -1.25) == f(-1.25) == 2
    assert {"abs", "mul", "round"} <= set(seen)


def test_locals_in_a_class_body_is_the_namespace():
    def f(x):
        class Made:
            locals()["z"] = 5
            a = x * 2
        return Made.a * Made.z

    assert D(f, 1.5) == 10.0


# Refused: what C runs natively while the class is made ------------------------------

def a_hook_reading_the_namespace(x):
    class Made(Registered):
        a = x * 2
    return Made.a


class Named:
    def __set_name__(self, owner, name):
        self.twice = owner.a * 2


def a_set_name_hook(x):
    class Made:
        a = x * 2
        named = Named()
    return Made.named.twice


def bound_by_walrus(x):
    class Made:
        a = (b := x * 2) + 1
    return Made.a


REFUSED = [a_hook_reading_the_namespace, a_set_name_hook, bound_by_walrus]


@pytest.mark.parametrize("f, route, way", [
    (a_hook_reading_the_namespace, "class-creation hook", "once the class is made"),
    (a_set_name_hook, "class-creation hook", "once the class is made"),
    (bound_by_walrus, "binds by `:=`", "name = value")])
@pytest.mark.parametrize("order", [1, 2])
def test_what_a_class_statement_cannot_follow_is_refused(f, route, way, order):
    with pytest.raises(NonDifferentiableError, match=route) as raised:
        nth(f, order)(1.5)
    assert f"{__file__}:" in str(raised.value)  # the user's line
    assert way in str(raised.value)
    for internal in ("Tagged", "tagging", "contexts", "__ovd"):
        assert internal not in str(raised.value)


def made_by_type(x):
    kind = type("Made", (), {"a": x * 2, "b": [x, 1]})
    return kind.a * kind.b[0] + type(kind.a)(1)


def test_a_class_made_by_calling_type_keeps_its_attributes_derivatives():
    """`type(name, bases, namespace)` makes the class as a class statement does (a
    constant before: the derivative of `kind.a` was 0)."""
    assert D(made_by_type, Fraction(3, 2)) == exact(made_by_type, Fraction(3, 2), 1) == 6
    assert D(D(made_by_type), 1.5) == 4.0
    assert D(lambda x: x * (type(x * 2) is float and type(x) is float), 1.5) == 1.0
