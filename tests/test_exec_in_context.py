"""`exec(text, namespace)` and `eval(text, namespace)` run the text in the context:
its calls reach the hooks, and under `D` its arithmetic differentiates. Run in an
empty context, the text does what it does plainly, namespace and errors included."""

import pytest

from ad import D, NonDifferentiableError
from contexts import Context, overdub
from tests.engine_helpers import Trace, name_of

TEXTS = [
    "y = x * 4",
    "y: float = x * 4\nz: int",
    "def g(t):\n    return t * x\ny = g(3)",
    "class K:\n    v = 2\n    def m(self):\n        return self.v * x\ny = K().m()",
    "import math\ny = math.sqrt(x)",
    "from math import sqrt as s\ny = s(x)",
    "ys = [i * x for i in range(3)]\ny = sum(ys)",
    "y = 0\nfor i in range(3):\n    y += i * x\ndel i",
    "'''A docstring\nover two lines'''\ny = x",
    "if x > 1:\n    y = 1\nelse:\n    y = 2",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    y = str(e)",
    "global q\nq = x",
    "y = x\nraise ValueError(y)",
    "return 1",
    "y = (",
    "from math import *\ny = pi",
]


def run_exec(text, x):
    namespace = {"x": x}
    exec(text, namespace)
    return {k: v for k, v in namespace.items() if k not in ("__builtins__", "math", "s",
                                                            "g", "K", "sqrt")}


def outcome(f, *args):
    try:
        return "returned", repr(f(*args))
    except BaseException as error:  # noqa: BLE001 - an outcome here
        return "raised", type(error).__name__, str(error)


@pytest.mark.parametrize("text", TEXTS)
def test_exec_in_an_empty_context_is_plain(text):
    assert outcome(lambda: overdub(Context(), run_exec, text, 2.0)) == \
        outcome(run_exec, text, 2.0)


@pytest.mark.parametrize("text", ["x * 5", "[i * x for i in range(3)]", "(w := x) + w",
                                  "undefined_name", "1 +"])
def test_eval_in_an_empty_context_is_plain(text):
    def run(x):
        return eval(text, {"x": x})

    assert outcome(lambda: overdub(Context(), run, 2.0)) == outcome(run, 2.0)


def test_hooks_see_the_calls_of_the_text():
    def run(x):
        namespace = {"x": x}
        exec("import math\ny = math.sqrt(x)", namespace)
        return namespace["y"]

    trace = Trace()
    overdub(trace, run, 4.0)
    assert "exec" in [name_of(f) for f in trace.callees] and \
        "sqrt" in [name_of(f) for f in trace.callees]


@pytest.mark.parametrize("text, derivative", [
    ("y = x * 4", 4.0),
    ("def g(t):\n    return t * x\ny = g(3)", 3.0),
    ("y = 0\nfor i in range(3):\n    y += i * x", 3.0),
    ("class K:\n    def m(self):\n        return x * x\ny = K().m()", 4.0),
])
def test_exec_differentiates(text, derivative):
    def f(x):
        namespace = {"x": x}
        exec(text, namespace)
        return namespace["y"]

    assert D(f, 2.0) == derivative


def test_eval_differentiates_and_nests():
    assert D(lambda x: eval("x * x * x", {"x": x}), 2.0) == 12.0
    assert D(D(lambda x: eval("x * x * x", {"x": x})), 2.0) == 12.0


def test_separate_locals_are_a_foreign_call():
    """A separate locals mapping cannot be a function's globals: the text runs natively,
    so a derivative reaching it is refused rather than dropped."""
    def f(x):
        local = {}
        exec("y = x * 4", {"x": x}, local)
        return local["y"]

    with pytest.raises(NonDifferentiableError, match="exec"):
        D(f, 2.0)


def _evaluates(x):
    return eval("x * 3")


def _executes(x):
    exec("print(x)")
    return x


def _reads_a_list(x):
    xs = [x]
    return eval("xs[0] * 3")


def _reads_a_cell(x):
    later = lambda: x  # noqa: E731 - `x` lives in a cell
    return eval("x * 3") + later()


@pytest.mark.parametrize("f, derivative", [(_evaluates, 3.0), (_reads_a_list, 3.0),
                                           (_reads_a_cell, 4.0)])
def test_eval_reading_the_functions_variables_differentiates(f, derivative):
    """`eval` without a namespace runs in the context on the caller's variables
    (`tests/test_eval_on_frame.py` holds the rest)."""
    assert D(f, 2.0) == derivative
    assert D(D(f), 2.0) == 0.0


@pytest.mark.parametrize("f", [_executes])
def test_text_reading_the_functions_variables_is_refused(f, capsys):
    """`exec` without a namespace runs natively on the caller's frame, whose
    variables hold values carrying the derivative (an internal TypeError, a tagged
    value printed, or a derivative dropped): refused, with the way out."""
    for point in (2.0, 2):
        with pytest.raises(NonDifferentiableError) as error:
            D(f, point)
        message = str(error.value)
        assert "eval or exec given no namespace" in message and "test_exec_in_context.py" \
            in message and "eval(text, {'x': x})" in message and "Tagged" not in message
        with pytest.raises(NonDifferentiableError):
            D(D(f), point)
    assert "Tagged" not in capsys.readouterr().out


def test_text_given_the_functions_namespace_differentiates():
    def f(x):
        return eval("x * 3", {"x": x}) + eval("x * x", globals(), {"x": x} | {})

    with pytest.raises(NonDifferentiableError, match="eval"):  # separate locals: refused
        D(f, 2.0)
    assert D(lambda x: eval("x * 3", {"x": x}), 2.0) == 3.0


def _three():
    return eval("1 + 2")


def test_text_given_no_namespace_runs_where_nothing_carries_a_derivative():
    """Refused only while the frame's variables or the store hold values carrying the
    derivative (the text is not looked into); `globals()` given runs as without D."""
    assert D(lambda x: x * _three(), 2.0) == 3.0
    with pytest.raises(NameError):  # as without D: `globals()` has no `x`
        D(lambda x: eval("x * 3", globals()), 2.0)
