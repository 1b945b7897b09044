"""Every route into Python code is a route of the context, or its value is refused:
default argument values (tagged while the derivative runs, plain after it),
generator return values (refused), text run by `exec`/`eval`, and methods of
frozen standard-library modules (`collections.abc`). Before, each of these gave a
derivative of 0 with no error."""

import pytest

from ad import D, NonDifferentiableError
from contexts import Context, overdub
from tagging import enabletagging, tag, untag
from tests.hunt_pieces import Bag  # `get`, `setdefault`, `pop`: collections.abc's, frozen


def default_value(x):
    g = lambda t=x: t * t  # noqa: E731
    return g()


def keyword_default(x):
    def g(*, t=x):
        return t * 3
    return g()


def generator_return(x):
    def inner():
        yield 1
        return x * 6

    def outer():
        result = yield from inner()
        yield result

    return list(outer())[1]


def test_default_values_keep_their_derivatives():
    assert D(default_value, 2.0) == 4.0 and D(keyword_default, 2.0) == 3.0
    assert D(D(default_value), 2.0) == 2.0


def test_a_default_made_in_a_derivative_is_plain_after_it():
    """The function outlives the derivative: its defaults hold plain numbers then."""
    made = []

    def f(x):
        def g(y, k=x, *, m=x):
            return y * k * m
        made.append(g)
        return g(1.0)

    assert D(f, 3.0) == 6.0
    g = made[0]
    assert type(g.__defaults__[0]) is float and type(g.__kwdefaults__["m"]) is float
    assert g(2.0) == 18.0 and D(g, 1.0) == 9.0


def test_a_generator_return_value_carrying_a_derivative_is_refused():
    with pytest.raises(NonDifferentiableError, match="a generator's return value") as raised:
        D(generator_return, 2.0)
    assert "test_ad_routes.py" in str(raised.value)  # the user's line
    assert "yield the value" in str(raised.value)


def test_the_ways_out_keep_the_derivative():
    """What the refusals suggest: pass the value, or yield it."""
    def passed(x):
        g = lambda t: t * t  # noqa: E731
        return g(x)

    def yielded(x):
        def inner():
            yield x * 6
        return next(inner())

    assert D(passed, 2.0) == 4.0 and D(yielded, 2.0) == 6.0


def test_constant_defaults_and_returns_run_as_plain():
    def f(x):
        scale = lambda t, k=3: t * k  # noqa: E731

        def total():
            yield 1
            return 10

        def outer():
            result = yield from total()
            yield result

        return scale(x) + list(outer())[1]

    assert D(f, 2.0) == 3.0


def test_a_container_default_keeps_its_elements_derivatives():
    """A list holds its elements plain, their tangents in the store: it needs no route."""
    def f(x):
        g = lambda t=[x]: t[0] * t[0]  # noqa: E731
        return g()

    assert D(f, 2.0) == 4.0


class Labels(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str


def test_a_tagging_context_gets_the_plain_default():
    """Outside `ad`, the route is a foreign call: the value goes plain, as before."""
    ctx = enabletagging(Labels(), default_value)
    assert untag(overdub(ctx, default_value, tag(2.0, ctx, "input")), ctx) == 4.0


def test_frozen_standard_library_methods_run_in_the_context():
    def f(x):
        bag = Bag(a=x * 7)
        return bag.get("a") + bag.setdefault("b", x) + bag.pop("a")

    assert D(f, 2.0) == 15.0


def test_exec_and_eval_with_a_namespace_differentiate():
    def f(x):
        namespace = {"x": x}
        exec("y = x * 4", namespace)
        return namespace["y"] + eval("x * 5", {"x": x})

    assert D(f, 2.0) == 9.0


def test_a_keyword_argument_named_f_or_output_reaches_the_callee():
    """The hooks' own parameters (`f`, `output`) take no keywords of the user's."""
    def f(x):
        return float("{f}{output}".format(f=1, output=2)) * x

    assert D(f, 2.0) == 12.0


LATER = None  # a global a class body reads


def class_body_reading_a_closure(x):
    class Made:
        v = x * 3
    return Made.v


def class_body_reading_a_global(x):
    global LATER
    LATER = x

    class Made:
        v = LATER * 3
    return Made.v


@pytest.mark.parametrize("f", [class_body_reading_a_closure, class_body_reading_a_global])
def test_a_class_body_reading_a_derivative_is_refused(f):
    """A class body runs natively: what it reads would lose its derivative."""
    with pytest.raises(NonDifferentiableError, match="a value read by a class body") as raised:
        D(f, 2.0)
    assert "test_ad_routes.py" in str(raised.value)
    assert "define the class outside the function" in str(raised.value)


def test_a_class_made_in_a_derivative_from_constants_runs():
    def f(x):
        y = 2.0

        class Made:
            v = y * 3

            def scaled(self, t):
                return self.v * t * x
        return Made().scaled(x)

    assert D(f, 2.0) == 24.0


def test_a_dataclass_made_inside_f_differentiates():
    """Its `__init__` is made by `exec`, with no source; the model of a dataclass's
    `__init__` runs instead, its class found though it has no global name."""
    import dataclasses

    def f(x):
        @dataclasses.dataclass
        class Point:
            a: float
            b: float = 1.0

            def scaled(self):
                return self.a * self.b * x

        return Point(x, 3.0).scaled()

    assert D(f, 2.0) == 12.0
