"""`eval(text)` given no namespace runs in the derivative: the text reads the
caller's variables (in cells or not) with their derivatives, and otherwise does
what CPython does on this version: its own scope reads the caller's `locals()`,
its nested scopes (a lambda's body, before 3.12 a comprehension's) read globals.
`locals()` and `vars()` give the variables held in cells with their derivatives
too. Derivatives are checked against exact central differences of `Fraction`s."""

from fractions import Fraction

import pytest

from ad import D, NonDifferentiableError, jvp
from contexts import Context, overdub

SCALE = 5


def _square(x):
    return eval("x * x")


def _closure_and_global(x):
    g = lambda t: t * x  # noqa: E731 - `x` lives in a cell
    return eval("g(x) * SCALE")


def _comprehension(x):
    return sum(eval("[x * i * x for i in range(3)]"))  # NameError before 3.12, as CPython


def _comprehension_of_its_own(x):
    return sum(eval("[i * 2 for i in range(3)]")) * x * x


def _first_iterable(x):
    return sum(eval("[t * t for t in (x, 2 * x)]"))


def _lambda_body_reads_globals(x):
    return eval("(lambda: x)()")  # NameError: a lambda's body reads globals


def _lambda_default(x):
    return eval("(lambda t=x: t * t * t)()")


def _list_of_the_frame(x):
    xs = [x, 3]
    return eval("xs[0] * xs[0] * xs[1]")


def _cell_of_the_enclosing_function(x):
    def inner():
        return eval("x * x * x")  # `x` is not read by `inner`'s own code: global
    return inner()


def _free_variable_read(x):
    def inner():
        return x and eval("x * x * x")  # `x` is a free variable of `inner`: a local
    return inner()


def _nested_evals(x):
    y = x * 2
    return eval("y * x") + eval("x * x * x")


def _unbound_local_reads_the_global(x):
    if x > 100:
        SCALE = 1  # noqa: F841 - a local, unbound here
    return eval("SCALE * x")


def _locals_with_a_cell(x):
    g = lambda: x  # noqa: E731 - `x` lives in a cell, which C reads into `locals()`
    shown = locals()
    return shown["x"] * shown["x"] * g()


def _vars_with_a_free_variable(x):
    def inner():
        y = x * 2
        return vars()["x"] * y * x  # `x` is a free variable of `inner`
    return inner()


SUBJECTS = [_square, _closure_and_global, _comprehension, _comprehension_of_its_own,
            _first_iterable, _lambda_body_reads_globals, _lambda_default, _list_of_the_frame,
            _cell_of_the_enclosing_function, _free_variable_read, _nested_evals,
            _unbound_local_reads_the_global, _locals_with_a_cell, _vars_with_a_free_variable]


def _differences(f, x, order):
    """The `order`-th derivative's central difference with step 1: exact for these
    polynomials of degree at most 3."""
    if order == 1:
        return (8 * (f(x + 1) - f(x - 1)) - (f(x + 2) - f(x - 2))) / 12
    if order == 2:
        return f(x + 1) - 2 * f(x) + f(x - 1)
    return (f(x + 2) - 2 * f(x + 1) + 2 * f(x - 1) - f(x - 2)) / 2


def _outcome(run):
    try:
        return run()
    except Exception as error:  # noqa: BLE001 - what the plain call raises, compared
        return type(error), str(error)


@pytest.mark.parametrize("f", SUBJECTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("point", [Fraction(3, 2), Fraction(-2)])
def test_eval_on_the_frame_differentiates_as_the_plain_text_runs(f, point):
    plain = _outcome(lambda: f(point))
    derivatives = [D(f), D(D(f)), D(D(D(f)))]
    for order, derivative in enumerate(derivatives, start=1):
        for at in (point, float(point)):
            got = _outcome(lambda: derivative(at))
            if isinstance(plain, tuple):  # the plain call raised: so does each derivative
                assert got == plain
            else:
                assert got == _differences(f, point, order)


@pytest.mark.parametrize("f", SUBJECTS, ids=lambda f: f.__name__)
def test_eval_on_the_frame_keeps_the_value(f):
    """The value of `f` itself, run under `D` or in an empty context, is the plain one
    (an error included)."""
    plain = _outcome(lambda: f(2.0))
    assert _outcome(lambda: jvp(f, (2.0,), (1.0,))[0]) == plain
    assert _outcome(lambda: overdub(Context(), f, 2.0)) == plain


def _outer_variable(y):
    def inner(x):
        return y and eval("y * y * x + x * x * y")  # `y` carries the outer derivative
    return D(inner, 1.0) * y


@pytest.mark.parametrize("point", [Fraction(3, 2), Fraction(-2)])
def test_a_variable_of_an_outer_derivative_keeps_it(point):
    """Inside a nested derivative, a cell variable carrying the outer derivative
    reaches the text with it (a dict of the cells would hold it plain)."""
    def exact_inner(y):
        return y * y + 2 * y  # d/dx of y*y*x + x*x*y at x = 1
    expected = _differences(lambda y: exact_inner(y) * y, point, 1)
    assert D(_outer_variable, point) == expected
    assert D(_outer_variable, float(point)) == float(expected)


def _user_eval(x):
    def eval(text):  # noqa: A001 - a user's function named `eval`: called as any call
        return len(text) * x
    return eval("abc") * x


def test_a_function_named_eval_is_called_as_any_call():
    assert _user_eval(2.0) == 12.0
    assert D(_user_eval, 2.0) == 12.0
    assert D(D(_user_eval), 2.0) == 6.0


def _binds_a_name(x):
    return eval("(y := x * 2) * y")


def test_text_binding_a_name_is_still_refused():
    """`:=` in the text binds a variable of the frame's `locals()`: such text runs
    natively, refused while a value carrying the derivative is live."""
    assert _binds_a_name(2.0) == 16.0
    with pytest.raises(NonDifferentiableError, match="eval or exec given no namespace"):
        D(_binds_a_name, 2.0)


def _in_a_class_body(x):
    class Holder:
        doubled = x * 2
        value = eval("doubled * 2")  # the class namespace is `locals()` here
    return Holder.value


def _in_a_class_body_reading_the_function(x):
    class Holder:
        value = eval("x * 2")  # plainly, `x` is not found
    return Holder.value


def test_eval_in_a_class_body_runs_natively():
    """In a class body `locals()` is the class namespace, whose values the layer
    keeps in its heap: the text runs natively there, as CPython runs it, and is
    refused while a value carrying the derivative is live."""
    assert _in_a_class_body(2.0) == 8.0
    with pytest.raises(NonDifferentiableError, match="eval or exec given no namespace"):
        D(_in_a_class_body, 2.0)
    with pytest.raises(NameError):
        _in_a_class_body_reading_the_function(2.0)
    with pytest.raises(NameError):
        D(_in_a_class_body_reading_the_function, 2.0)
