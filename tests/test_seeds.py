"""The seed examples: each runs, prints what its comments say, and computes what it claims."""

from __future__ import annotations

import math
import operator
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from contexts import Context, lowered, overdub, recurse
from tests.examples import FOLDER, load

EXAMPLES = FOLDER
NAMES = ["print_trace", "posthook_trace", "count_calls", "accumulate", "nested_trace",
         "memoize", "slice_dispatch", "slice_pass", "literal_translation", "math_to_mpmath",
         "weird_identity", "crazy_module", "nested_d"]
TOUR = ["ad_seeds", "projectile", "newton", "least_squares", "property_test", *NAMES]  # the ad examples have tests of their own


def documented_output(name: str) -> str:
    """The `# Output:` block written at the bottom of an example."""
    lines = (EXAMPLES / f"{name}.py").read_text().splitlines()
    start = lines.index("# Output:") + 1
    block = [line[2:] if line.startswith("# ") else line[1:] for line in lines[start:]]
    return "\n".join(block) + "\n"


# Every example prints exactly what its comments say ---------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_example_prints_its_documented_output(name, capsys):
    load(name).main()
    assert capsys.readouterr().out == documented_output(name)


def test_tour_runs_every_example_in_turn():
    run = subprocess.run([sys.executable, str(EXAMPLES / "tour.py")], capture_output=True,
                         text=True, timeout=120, check=True)
    sections = run.stdout.split("\n\n== ")
    assert len(sections) == len(TOUR)
    for number, (name, section) in enumerate(zip(TOUR, sections), 1):
        heading, _, body = section.partition("\n")
        title = load(name).__doc__.splitlines()[0]
        assert heading.removeprefix("== ") == f"{number}. {title}"
        assert body + ("" if number == len(TOUR) else "\n") == documented_output(name)
    assert run.stderr == ""


# Print and posthook traces ---------------------------------------------------------


def test_print_trace_sees_conversions_then_division(capsys):
    example = load("print_trace")
    assert overdub(example.PrintCtx(), example.div, 3, 4) == 0.75
    assert capsys.readouterr().out == "float (3,)\nfloat (4,)\ntruediv (3.0, 4.0)\n"


def test_posthook_trace_prints_outputs_in_completion_order(capsys):
    example = load("posthook_trace")
    assert overdub(example.PostPrintCtx(), example.div, 3, 4) == 0.75
    assert capsys.readouterr().out == (
        "3.0 = float (3,)\n4.0 = float (4,)\n0.75 = truediv (3.0, 4.0)\n")


# Counting and accumulating ---------------------------------------------------------


def test_count_calls_counts_only_calls_with_all_arguments_of_the_kind():
    example = load("count_calls")
    assert example.count_calls(float, example.div, 1, 2) == (0.5, 1)
    assert example.count_calls(int, example.div, 1, 2) == (0.5, 2)
    assert example.count_calls(str, example.div, 1, 2) == (0.5, 0)
    assert example.count_calls(float, example.hypot, 3.0, 4.0) == (5.0, 4)
    # int arguments: x * x and y * y are int calls; the sum and the power are not all-float
    assert example.count_calls(float, example.hypot, 3, 4) == (5.0, 0)
    assert example.count_calls(int, example.hypot, 3, 4) == (5.0, 3)


def test_accumulate_sums_every_numeric_output():
    example = load("accumulate")
    assert example.accumulate(example.div, 1, 2) == (0.5, 3.5)
    assert example.accumulate(example.div, 3, 4) == (0.75, 3.0 + 4.0 + 0.75)


# Nested tracing --------------------------------------------------------------------


def test_nested_trace_has_the_structure_of_the_seed():
    example = load("nested_trace")
    x, y, z = 0.25, 3.0, 5.0
    result, calls = example.trace(example.f, x, y, z)
    assert result == example.f(x, y, z)
    assert calls == [((example.f, x, y, z), [((operator.mul, x, y), []),
                                             ((operator.mul, y, z), []),
                                             ((operator.add, x * y, y * z), [])])]


def test_nested_trace_nests_python_callees_one_level_down():
    example = load("nested_trace")
    result, calls = example.trace(example.g, 3.0)
    assert result == example.g(3.0) == 20.0
    [((g, arg), inside)] = calls
    assert (g, arg) == (example.g, 3.0)
    assert [call for call, _ in inside] == [(operator.add, 3.0, 1), (example.f, 3.0, 4.0, 2.0)]
    assert inside[0][1] == []
    assert [call for call, _ in inside[1][1]] == [
        (operator.mul, 3.0, 4.0), (operator.mul, 4.0, 2.0), (operator.add, 12.0, 8.0)]


# Memoisation -----------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 10, 25])
def test_memo_fib_agrees_with_fib_and_runs_each_body_once(n):
    example = load("memoize")
    value, memo = example.memo_fib(n)
    assert value == example.fib(n)
    arguments = range(n + 1) if n >= 2 else [n]  # fib(n) for n < 2 calls nothing
    assert memo.table == {k: example.fib(k) for k in arguments}
    # each body from n down to 2 makes two calls of fib, every one seen by the posthook
    assert memo.calls == 2 * max(n - 1, 0)


def test_memo_context_keeps_its_table_across_runs():
    example = load("memoize")
    memo = example.Memo()
    ctx = example.MemoCtx(metadata=memo)
    assert overdub(ctx, example.fib, 12) == 144
    first = memo.calls
    assert overdub(ctx, example.fib, 14) == 377
    assert memo.calls == first + 4  # only fib(13) and fib(14) ran a body


# Println slicing -------------------------------------------------------------------


def test_slice_by_dispatch_defers_every_print(capsys):
    example = load("slice_dispatch")
    ctx = example.SliceCtx(metadata=example.Callback(lambda: None))
    assert overdub(ctx, example.add, 1.5, 2.0) == 3.5
    assert capsys.readouterr().out == ""
    ctx.metadata.f()
    assert capsys.readouterr().out == "I'm about to add 1.5 + 2.0\nc = 3.5\n"
    ctx.metadata.f()  # the callback can be replayed
    assert capsys.readouterr().out == "I'm about to add 1.5 + 2.0\nc = 3.5\n"


def test_slice_by_pass_returns_the_result_and_a_callback(capsys):
    example = load("slice_pass")
    result, callback = example.sliced(example.add, 1.5, 2.0)
    assert result == 3.5
    assert capsys.readouterr().out == ""
    callback()
    assert capsys.readouterr().out == "I'm about to add 1.5 + 2.0\nc = 3.5\n"


def test_slice_pass_rewrites_the_body_as_in_the_seed():
    example = load("slice_pass")
    ctx = example.SliceCtx(metadata=lambda: None, passes=[example.slice_print])
    text = lowered(ctx, example.add)
    lines = [line.strip() for line in text.splitlines()]
    assert lines[1].startswith("_callback_ = getattr(")  # of the context slot
    assert lines[1].endswith(", 'metadata')")
    assert lines[-1] == "return (c, _callback_)"
    assert sum(line.startswith("_, _callback_ = ") for line in lines) == 2
    assert sum(line.startswith("c, _callback_ = ") for line in lines) == 1


def greet(name):
    print("hello", name)
    return name


def greet_twice(name):
    first = greet(name)
    print("between")
    greet(first)


def test_slice_by_pass_threads_the_callback_through_python_callees(capsys):
    example = load("slice_pass")
    result, callback = example.sliced(greet_twice, "ada")
    assert result is None  # greet_twice falls off its end
    assert capsys.readouterr().out == ""
    callback()
    assert capsys.readouterr().out == "hello ada\nbetween\nhello ada\n"


def test_slice_by_pass_starts_from_the_metadata_callback(capsys):
    example = load("slice_pass")
    ctx = example.SliceCtx(metadata=lambda: print("earlier"), passes=[example.slice_print])
    name, callback = recurse(ctx, greet, "bob")
    assert name == "bob"
    callback()
    assert capsys.readouterr().out == "earlier\nhello bob\n"


# Literal translation ---------------------------------------------------------------


def test_literal_translation_makes_arithmetic_exact():
    example = load("literal_translation")
    assert example.tenths(10) != 1
    exact = example.exactly(example.tenths, 10)
    assert type(exact) is Fraction and exact == 1
    assert example.exactly(example.tenths, 7) == Fraction(7, 10)


def test_literal_translation_reaches_callees():
    example = load("literal_translation")
    assert example.mean_of_tenths(3) != 1
    assert example.exactly(example.mean_of_tenths, 3) == Fraction(1)


def test_literal_translation_writes_fractions_into_the_body():
    example = load("literal_translation")
    text = lowered(Context(passes=[example.exact_literals]), example.tenths)
    assert "Fraction(1, 10)" in text and "0.1" not in text
    assert "Fraction(0, 1)" in text  # the 0.0 start


# math -> mpmath ----------------------------------------------------------------------


def test_math_to_mpmath_computes_in_high_precision():
    example = load("math_to_mpmath")
    assert type(example.golden_ratio()) is float
    value = example.in_mpmath(example.golden_ratio, digits=40)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(40):
        assert value == (1 + mpmath.sqrt(5)) / 2
        assert abs(example.in_mpmath(example.angle_sum, 1, 2, digits=40)
                   - mpmath.sin(3)) < mpmath.mpf(10) ** -38


def test_math_to_mpmath_keeps_log_with_a_base():
    example = load("math_to_mpmath")
    assert example.in_mpmath(lambda x: math.log(x, 2), 8) == 3
    assert isinstance(example.in_mpmath(math.exp, 1), mpmath.mpf)
