"""Invariant 1, tracebacks: an exception leaves an overdubbed function unchanged.

Its type, message and identity are the plain ones, and its traceback names the
user's own file, function and line: the last frame is where the user's code
raised, and with the engine's own frames (the `contexts` package and its
generated call helpers) left out, the frames are the ones a plain call shows.
"""

from __future__ import annotations

import os
import sys
import traceback

import pytest

import contexts
from contexts import Context, canrecurse, overdub
from tests import corpus, test_invisible
from tests.test_invisible import CONTEXTS

HERE = os.path.abspath(__file__)
ENGINE = os.path.dirname(os.path.abspath(contexts.__file__)) + os.sep
LINES = open(HERE).read().splitlines()


def line_of(marker: str) -> int:
    """The number of the line of this file that ends with `# <marker>`."""
    found = [i + 1 for i, text in enumerate(LINES) if text.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


def raised(runner, f, *args):
    try:
        runner(f, *args)
    except BaseException as error:  # noqa: BLE001
        return error
    raise AssertionError(f"{f.__name__}{args} did not raise")


def plain(f, *args):
    return f(*args)


def run_in(name):
    ctx = CONTEXTS[name]()
    return lambda f, *args: overdub(ctx, f, *args)


def is_engine(frame: traceback.FrameSummary) -> bool:
    return frame.filename.startswith(ENGINE) or frame.filename.startswith("<contexts")


def is_context(frame: traceback.FrameSummary) -> bool:
    """A frame of the observing contexts' own methods (a hook, a hand-written overdub)."""
    return frame.filename == test_invisible.__file__


def user_frames(error: BaseException, filename: str, function: str) -> list:
    """The frames in `filename`, from the first frame of `function` on."""
    frames = traceback.extract_tb(error.__traceback__)
    start = next(i for i, frame in enumerate(frames)
                 if frame.filename == filename and frame.name == function)
    return [(frame.filename, frame.name, frame.lineno, frame.line)
            for frame in frames[start:] if frame.filename == filename]


# User code with known lines ------------------------------------------------------

class Failure(Exception):
    pass


def innermost(x):
    if x > 0:
        raise Failure(f"innermost failed with {x}")  # raise-innermost
    return x


def middle(x):
    return innermost(x) + 1  # call-innermost


def outer(x):
    y = x * 2
    return middle(y) - 1  # call-middle


def divide(x):
    return x / (x - x)  # divide-by-zero


def attribute(x):
    return x.no_such_attribute  # missing-attribute


def subscript(x):
    return [x][x]  # bad-index


def through_builtin(x):
    return sorted([x, 1], key=lambda v: 1 / (v - x))  # key-divides


def through_model(x):
    return min([], key=abs)  # empty-min


class Widget:
    def __init__(self, x):
        self.x = x

    @property
    def broken(self):
        raise Failure(f"property of {self.x}")  # raise-property

    def method(self):
        return self.broken  # read-property

    def __add__(self, other):
        raise Failure("no adding")  # raise-add


def use_property(x):
    return Widget(x).method()  # call-method


def use_operator(x):
    return Widget(x) + Widget(x)  # add-widgets


def numbers(x):
    yield x
    raise Failure("generator gave up")  # raise-generator


def use_generator(x):
    return list(numbers(x))  # consume-generator


def use_comprehension(x):
    return [innermost(v) for v in range(x + 2)]  # comprehension-calls


# Python 3.11 runs a comprehension in a frame of its own; 3.12 inlines it (PEP 709).
COMPREHENSION_FRAME = [("<listcomp>", "comprehension-calls")] if sys.version_info < (3, 12) else []
PYTHON = f"py{sys.version_info.major}.{sys.version_info.minor}"


def use_lambda(x):
    fail = lambda v: innermost(v)  # noqa: E731 # lambda-calls
    return fail(x)  # call-lambda


class Closing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        raise Failure("exit failed")  # raise-exit


def use_with(x):
    with Closing():  # with-statement
        return x


def reraise(x):
    try:
        innermost(x)  # call-innermost-in-try
    except Failure as error:
        raise ValueError("wrapped") from error  # raise-from


SAVED = Failure("the same object")


def raise_saved(x):
    raise SAVED.with_traceback(None)  # raise-saved


NAMES = list(CONTEXTS)

CASES = [
    # function, argument, [(function name, marker) of the user's frames, outermost first]
    (outer, 1, [("outer", "call-middle"), ("middle", "call-innermost"),
                ("innermost", "raise-innermost")]),
    (divide, 3, [("divide", "divide-by-zero")]),
    (attribute, 3, [("attribute", "missing-attribute")]),
    (subscript, 3, [("subscript", "bad-index")]),
    (through_builtin, 2, [("through_builtin", "key-divides"), ("<lambda>", "key-divides")]),
    (through_model, 2, [("through_model", "empty-min")]),
    (use_property, 4, [("use_property", "call-method"), ("method", "read-property"),
                       ("broken", "raise-property")]),
    (use_operator, 4, [("use_operator", "add-widgets"), ("__add__", "raise-add")]),
    (use_generator, 1, [("use_generator", "consume-generator"),
                        ("numbers", "raise-generator")]),
    (use_comprehension, 0, [("use_comprehension", "comprehension-calls"),
                            *COMPREHENSION_FRAME,
                            ("innermost", "raise-innermost")]),
    (use_lambda, 5, [("use_lambda", "call-lambda"), ("<lambda>", "lambda-calls"),
                     ("innermost", "raise-innermost")]),
    (use_with, 1, [("use_with", "with-statement"), ("__exit__", "raise-exit")]),
    (reraise, 2, [("reraise", "raise-from")]),
    (raise_saved, 0, [("raise_saved", "raise-saved")]),
]


def case_id(f):
    """The case's name, with the Python version where the expected frames depend on it."""
    return f"{f.__name__}-{PYTHON}" if f is use_comprehension else f.__name__


@pytest.mark.parametrize("f", [c[0] for c in CASES], ids=[case_id(c[0]) for c in CASES])
def test_the_engine_sees_into_these_functions(f):
    """Not vacuous: the functions below run transformed, not natively."""
    assert canrecurse(CONTEXTS["hooked"](), f), canrecurse.why(CONTEXTS["hooked"](), f)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("f, x, expected", CASES, ids=[case_id(c[0]) for c in CASES])
def test_the_last_frame_is_the_users_raising_line(f, x, expected, name):
    want = raised(plain, f, x)
    got = raised(run_in(name), f, x)
    assert type(got) is type(want)
    assert str(got) == str(want)
    frames = traceback.extract_tb(got.__traceback__)
    assert not any(is_engine(frame) for frame in frames)
    # A context that overrides `overdub` makes the calls itself (`recurse`,
    # `fallback`): its own method may follow the user's line, and nothing else.
    while name == "overdub" and is_context(frames[-1]):
        assert frames[-1].name == "overdub"
        frames.pop()
    last = frames[-1]
    function, marker = expected[-1]
    assert (last.filename, last.name, last.lineno) == (HERE, function, line_of(marker))
    assert last.line == LINES[line_of(marker) - 1].strip()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("f, x, expected", CASES, ids=[case_id(c[0]) for c in CASES])
def test_the_users_frames_are_the_plain_ones(f, x, expected, name):
    want = raised(plain, f, x)
    got = raised(run_in(name), f, x)
    ours = [(function, line) for _, function, line, _ in user_frames(got, HERE, f.__name__)]
    assert ours == [(function, line_of(marker)) for function, marker in expected]
    assert user_frames(got, HERE, f.__name__) == user_frames(want, HERE, f.__name__)


@pytest.mark.parametrize("name", NAMES)
def test_the_exception_object_is_the_one_raised(name):
    assert raised(run_in(name), raise_saved, 0) is SAVED
    error = raised(run_in(name), reraise, 2)
    assert type(error.__cause__) is Failure
    assert str(error.__cause__) == "innermost failed with 2"
    cause_last = traceback.extract_tb(error.__cause__.__traceback__)[-1]
    assert (cause_last.name, cause_last.lineno) == ("innermost", line_of("raise-innermost"))


@pytest.mark.parametrize("name", NAMES)
def test_frames_carry_the_users_qualified_names(name):
    error = raised(run_in(name), use_property, 1)
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    ours = [code.co_qualname for code in frames if code.co_filename == HERE]
    assert ours[ours.index("use_property"):] == ["use_property", "Widget.method",
                                                 "Widget.broken"]


@pytest.mark.parametrize("name", NAMES)
def test_formatted_traceback_shows_the_users_source(name):
    error = raised(run_in(name), outer, 3)
    text = "".join(traceback.format_exception(error))
    for marker in ("call-middle", "call-innermost", "raise-innermost"):
        assert f'File "{HERE}", line {line_of(marker)}' in text
        assert LINES[line_of(marker) - 1].strip() in text
    assert text.rstrip().endswith("Failure: innermost failed with 6")
    assert "contexts/_" not in text and "<contexts helpers" not in text


# The corpus's raising cases ----------------------------------------------------------

def _raising_cases():
    for ident, f, args, kwargs in corpus.CASES:
        corpus.reset()
        try:
            f(*args, **kwargs)
        except Exception:  # noqa: BLE001
            for name in NAMES:
                yield pytest.param(f, args, kwargs, name, id=f"{ident}[{name}]")


@pytest.mark.parametrize("f, args, kwargs, name", list(_raising_cases()))
def test_corpus_tracebacks_name_the_users_lines(f, args, kwargs, name):
    corpus.reset()
    want = raised(lambda g, *a: g(*a, **kwargs), f, *args)
    corpus.reset()
    ctx = CONTEXTS[name]()
    got = raised(lambda g, *a: overdub(ctx, g, *a, **kwargs), f, *args)
    assert (type(got), str(got)) == (type(want), str(want))
    frames = traceback.extract_tb(got.__traceback__)
    assert not any(is_engine(frame) for frame in frames)
    assert user_frames(got, corpus.__file__, f.__name__) == \
        user_frames(want, corpus.__file__, f.__name__)


def test_there_are_raising_corpus_cases():
    assert len(list(_raising_cases())) >= 20 * len(NAMES)


def test_a_hook_that_raises_is_not_blamed_on_the_user():
    """An error in the context's own hook surfaces with the hook's frame last."""

    class Strict(Context):
        def prehook(self, f, *args, **kwargs):
            if f is innermost:
                raise RuntimeError("hook refused")  # raise-hook

    error = raised(lambda g, *a: overdub(Strict(), g, *a), outer, 1)
    assert type(error) is RuntimeError
    last = traceback.extract_tb(error.__traceback__)[-1]
    assert (last.filename, last.name, last.lineno) == (HERE, "prehook", line_of("raise-hook"))
    names = [frame[1] for frame in user_frames(error, HERE, "outer")]
    assert names == ["outer", "middle", "prehook"]
