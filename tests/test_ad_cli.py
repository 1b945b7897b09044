"""`python -m ad`, run as a user runs it: a subprocess, its output, its exit status."""

from __future__ import annotations

import json
import math
import shlex
import signal
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ad import D
from ad._cli_json import jsonable
from ad._cli_points import attach_values, parse_point
from tests.examples import load

ROOT = Path(__file__).resolve().parent.parent
DEMO = "examples/cli_demo.py:f"


def ad(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ad", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60)


def values(run: subprocess.CompletedProcess) -> dict[str, str]:
    """{"f'(1.0)": "3.04...", ...} from the lines printed."""
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    return dict(line.split(" = ", 1) for line in run.stdout.splitlines()
                if not line.startswith("check:"))


def fails(run: subprocess.CompletedProcess, status: int, *words: str) -> str:
    """The one-line error, after checking the status, the line and the words in it."""
    assert run.returncode == status, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


def fails_in_user_code(run: subprocess.CompletedProcess, status: int, user_file: Path,
                       *words: str) -> str:
    """The error line, after the user's traceback: frames of the user's file only."""
    assert run.returncode == status, (run.stdout, run.stderr)
    lines = run.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):", run.stderr
    assert lines[-1].startswith("error: ") and sum(line.startswith("error: ")
                                                   for line in lines) == 1, run.stderr
    for word in words:
        assert word in lines[-1]
    frames = [line for line in lines if line.startswith("  File ")]
    assert frames and all(line.startswith(f'  File "{user_file}"') for line in frames), frames
    for internal in ("/ad/", "/contexts/", "/tagging/", "_ad_cli_", "<contexts"):
        assert internal not in run.stderr
    return lines[-1]


# Values and derivatives ------------------------------------------------------------------

def test_the_demo_value_and_first_derivative():
    f = load("cli_demo").f
    printed = values(ad(DEMO, "--at", "1.0"))
    assert printed == {"f(1.0)": repr(f(1.0)), "f'(1.0)": repr(D(f, 1.0))}
    x = 1.0
    assert float(printed["f'(1.0)"]) == pytest.approx(
        2 * x * math.sin(x) + x * x * math.cos(x) + math.exp(x / 2) / 2, rel=1e-15)


def test_the_demo_up_to_the_second_derivative_in_order():
    run = ad(DEMO, "--at", "1.0", "--order", "2")
    x = 1.0
    expected = [x * x * math.sin(x) + math.exp(x / 2),
                2 * x * math.sin(x) + x * x * math.cos(x) + math.exp(x / 2) / 2,
                (2 - x * x) * math.sin(x) + 4 * x * math.cos(x) + math.exp(x / 2) / 4]
    assert [line.split(" = ")[0] for line in run.stdout.splitlines()] == [
        "f(1.0)", "f'(1.0)", "f''(1.0)"]
    for got, want in zip(values(run).values(), expected):
        assert float(got) == pytest.approx(want, rel=1e-14)


def test_order_three_and_order_zero(tmp_path):
    (tmp_path / "trig.py").write_text("from math import sin as f\n")
    assert values(ad(f"{tmp_path / 'trig.py'}:f", "--at", "0.5", "--order", "3")) == {
        "f(0.5)": repr(math.sin(0.5)), "f'(0.5)": repr(math.cos(0.5)),
        "f''(0.5)": repr(-math.sin(0.5)), "f'''(0.5)": repr(-math.cos(0.5))}
    assert values(ad(DEMO, "--at", "2", "--order", "0")) == {"f(2)": repr(load("cli_demo").f(2))}


def test_order_three_of_python_code():
    f = load("cli_demo").f
    third = 6 * math.cos(1.0) - 6 * math.sin(1.0) - math.cos(1.0) + math.exp(0.5) / 8
    printed = values(ad(DEMO, "--at", "1.0", "--order", "3"))
    assert float(printed["f'''(1.0)"]) == pytest.approx(third, rel=1e-13)
    assert printed["f''(1.0)"] == repr(D(D(f))(1.0))


def test_points_of_every_kind(tmp_path):
    (tmp_path / "poly.py").write_text("def p(x):\n    return x ** 3 - 2 * x\n")
    target = f"{tmp_path / 'poly.py'}:p"
    assert values(ad(target, "--at", "3")) == {"p(3)": "21", "p'(3)": "25"}  # ints stay ints
    assert values(ad(target, "--at", "1/3")) == {
        "p(1/3)": str(Fraction(1, 27) - Fraction(2, 3)), "p'(1/3)": str(Fraction(1, 3) - 2)}
    assert values(ad(target, "--at", "1+2j")) == {
        "p(1+2j)": str((1 + 2j) ** 3 - 2 * (1 + 2j)), "p'(1+2j)": str(3 * (1 + 2j) ** 2 - 2)}
    assert values(ad(target, "--at", "-1.5")) == {"p(-1.5)": "-0.375", "p'(-1.5)": "4.75"}
    assert values(ad(target, "--at=-1-1j")) == {
        "p(-1-1j)": str((-1 - 1j) ** 3 - 2 * (-1 - 1j)), "p'(-1-1j)": str(3 * (-1 - 1j) ** 2 - 2)}
    assert values(ad(target, "--at", "2.5e-1")) == {"p(2.5e-1)": repr(0.25 ** 3 - 0.5),
                                                     "p'(2.5e-1)": repr(3 * 0.25 ** 2 - 2)}


def test_a_file_that_imports_its_neighbour(tmp_path):
    (tmp_path / "helper.py").write_text("def square(x):\n    return x * x\n")
    (tmp_path / "main.py").write_text("from helper import square\n\n"
                                      "def g(x):\n    return square(x) + x\n")
    assert values(ad("main.py:g", "--at", "2.0", cwd=tmp_path)) == {"g(2.0)": "6.0",
                                                                   "g'(2.0)": "5.0"}


# --check --------------------------------------------------------------------------------

def test_check_agrees_on_the_demo():
    run = ad(DEMO, "--at", "1.0", "--order", "2", "--check")
    f = load("cli_demo").f
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.splitlines()[-1] == (
        f"check: f'(1.0) = {D(f, 1.0)!r} agrees with a numerical derivative")
    assert len(run.stdout.splitlines()) == 4


def test_check_fails_on_a_wrong_rule(tmp_path):
    (tmp_path / "wrong.py").write_text(
        "import math\nimport ad\n\n"
        "def h(x):\n    return math.sin(x) + 2 * x\n\n"
        "@ad.rule(h)\n"
        "def forgets(primals, tangents):\n"
        "    return h(primals[0]), math.cos(primals[0]) * tangents[0]\n")
    run = ad(f"{tmp_path / 'wrong.py'}:h", "--at", "1.0", "--check")
    line = fails(run, 1, "h", "1.0", repr(math.cos(1.0)), "2.5403023", "differ by")
    assert line.startswith("error: D(h) at 1.0 is ")  # not the module's private name
    assert run.stdout.splitlines()[1] == f"h'(1.0) = {math.cos(1.0)!r}"  # printed before
    assert "agrees" not in run.stdout and line


# Errors: one line, a status, no traceback --------------------------------------------------

@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "user.py"
    path.write_text("import struct\n\nN = 3\n\n"
                    "def pole(x):\n    return 1 / (x - 1)\n\n"
                    "def packed(x):\n    return struct.unpack('d', struct.pack('d', x))[0]\n")
    return path


@pytest.mark.parametrize("args, words", [
    (["nowhere.py:f", "--at", "1"], ["no such file", "nowhere.py"]),
    (["{user}:missing", "--at", "1"], ["defines no 'missing'"]),
    (["{user}:N", "--at", "1"], ["N is not a function", "int 3"]),
    (["{user}", "--at", "1"], ["expected FILE.py:FUNC"]),
    (["{user}:pole", "--at", "abc"], ["--at needs a number", "'abc'"]),
    (["{user}:pole", "--at", "1/0"], ["--at needs a number", "'1/0'"]),
    (["{user}:pole", "--at", "[1]"], ["--at needs a number"]),
])
def test_bad_input_exits_2(user_file, args, words):
    args = [arg.replace("{user}", str(user_file)) for arg in args]
    run = ad(*args)
    fails(run, 2, *words)
    assert run.stdout == ""


def test_an_exception_in_the_users_function_exits_1(user_file):
    run = ad(f"{user_file}:pole", "--at", "1")
    fails_in_user_code(run, 1, user_file, "pole(1) raised ZeroDivisionError: division by zero")
    assert "line 6, in pole\n    return 1 / (x - 1)" in run.stderr
    assert run.stdout == ""


def test_an_exception_in_a_derivative_exits_1_after_the_value(user_file):
    run = ad(f"{user_file}:packed", "--at", "1.0")
    fails_in_user_code(run, 1, user_file, "packed'(1.0) raised NonDifferentiableError",
                       "struct.pack")
    assert "ad.NonDifferentiableError: cannot differentiate through struct.pack" in run.stderr
    assert run.stdout == "packed(1.0) = 1.0\n"


def test_real_code_at_a_complex_point_exits_1():
    fails_in_user_code(ad(DEMO, "--at", "1+2j"), 1, ROOT / "examples" / "cli_demo.py",
                       "f(1+2j) raised TypeError")


def test_an_exception_while_loading_the_file_exits_1(tmp_path):
    (tmp_path / "broken.py").write_text("raise RuntimeError('not today')\n")
    fails_in_user_code(ad(f"{tmp_path / 'broken.py'}:f", "--at", "1"), 1,
                       tmp_path / "broken.py", "loading broken.py raised",
                       "RuntimeError: not today")


def test_argparse_refuses_a_missing_point():
    fails(ad(DEMO), 2, "--at", "--range", "--plot", "python -m ad --help")


# Points as Python writes numbers: negative, infinite, complex --------------------------------

@pytest.fixture
def poly(tmp_path):
    (tmp_path / "poly.py").write_text("def p(x):\n    return x ** 3 - 2 * x\n")
    return f"{tmp_path / 'poly.py'}:p"


def test_negative_infinite_and_complex_points_without_an_equals_sign(poly):
    assert values(ad(poly, "--at", "-1e-3")) == {"p(-1e-3)": repr((-1e-3) ** 3 + 2e-3),
                                                 "p'(-1e-3)": repr(3 * (-1e-3) ** 2 - 2)}
    assert values(ad(poly, "--at", "-inf")) == {"p(-inf)": "nan", "p'(-inf)": "inf"}
    assert values(ad(poly, "--at", "-1+2j", "--order", "0")) == {
        "p(-1+2j)": str((-1 + 2j) ** 3 - 2 * (-1 + 2j))}


def test_a_negative_point_before_another_option(poly):
    assert values(ad(poly, "--at", "-2", "--order", "2")) == {
        "p(-2)": "-4", "p'(-2)": "10", "p''(-2)": "-12"}


@given(st.floats(allow_nan=False) | st.complex_numbers(allow_nan=False)
       | st.fractions(max_denominator=10 ** 6))
def test_a_point_reads_back_as_the_number_python_writes(number):
    """The oracle is Python's own spelling: str(x) on the command line is x again,
    also when it starts with '-' (which argparse alone would take for an option)."""
    words = attach_values(["f.py:f", "--at", str(number), "--order", "1"], ["--at"], ["--range"])
    assert words == ["f.py:f", f"--at={number}", "--order", "1"]
    (value,) = parse_point(str(number)).values
    assert value == number and type(value) is (int if isinstance(number, Fraction)
                                               and number.denominator == 1 else type(number))


# module:FUNC, and the user's names ----------------------------------------------------------

@pytest.fixture
def package(tmp_path):
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "mod.py").write_text(
        "import math\nimport ad\n\n"
        "def kink2(x):\n    return x * abs(x)\n\n"
        "def wrong(x):\n    return math.sin(x) + 2 * x\n\n"
        "@ad.rule(wrong)\n"
        "def forgets(primals, tangents):\n"
        "    return wrong(primals[0]), math.cos(primals[0]) * tangents[0]\n")
    return tmp_path


def test_a_function_from_an_importable_module(package):
    assert values(ad("mypkg.mod:kink2", "--at", "-3.0", cwd=package)) == {
        "kink2(-3.0)": "-9.0", "kink2'(-3.0)": "6.0"}
    assert values(ad("math:sin", "--at", "0.5", cwd=package)) == {
        "sin(0.5)": repr(math.sin(0.5)), "sin'(0.5)": repr(math.cos(0.5))}


def test_a_module_function_is_named_as_the_user_wrote_it(package):
    line = fails(ad("mypkg.mod:wrong", "--at", "1.0", "--check", cwd=package), 1)
    assert line.startswith("error: D(mypkg.mod:wrong) at 1.0 is ")


def test_a_missing_module_exits_2(package):
    fails(ad("mypkg.nowhere:f", "--at", "1", cwd=package), 2, "no module named 'mypkg.nowhere'")
    fails(ad("mypkg.mod:nothing", "--at", "1", cwd=package), 2, "defines no 'nothing'",
          "its functions: forgets, kink2, wrong")


def test_a_dataclass_under_postponed_annotations(tmp_path):
    """dataclasses looks the class's module up in sys.modules while the file runs."""
    (tmp_path / "shapes.py").write_text(
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n\n"
        "@dataclass\nclass Square:\n    side: float\n    label: str = 'sq'\n\n"
        "    def area(self) -> float:\n        return self.side * self.side\n\n"
        "def area(x):\n    return Square(x).area()\n")
    assert values(ad("shapes.py:area", "--at", "3.0", cwd=tmp_path)) == {
        "area(3.0)": "9.0", "area'(3.0)": "6.0"}


# Several points, a range ------------------------------------------------------------------

def test_several_points_one_after_the_other(poly):
    run = ad(poly, "--at", "0.1", "-0.5", "1/2")
    assert run.returncode == 0 and run.stderr == ""
    assert run.stdout.splitlines() == [
        f"p(0.1) = {0.1 ** 3 - 0.2!r}", f"p'(0.1) = {3 * 0.1 ** 2 - 2!r}",
        "p(-0.5) = 0.875", "p'(-0.5) = -1.25", "p(1/2) = -7/8", "p'(1/2) = -5/4"]


def test_a_range_of_evenly_spaced_points(poly):
    printed = values(ad(poly, "--range", "-1:1:5", "--order", "0"))
    assert printed == {f"p({x!r})": repr(x ** 3 - 2 * x) for x in (-1.0, -0.5, 0.0, 0.5, 1.0)}
    assert "A:B:N" in ad("--help").stdout
    fails(ad(poly, "--range", "0:1"), 2, "--range needs A:B:N")
    fails(ad(poly, "--range", "0:1:1"), 2, "--range needs A:B:N")


# Several variables -------------------------------------------------------------------------

@pytest.fixture
def two(tmp_path):
    (tmp_path / "two.py").write_text("def g(x, y):\n    return x * x * y + y\n")
    return f"{tmp_path / 'two.py'}:g"


def test_a_function_of_two_variables_gives_its_gradient_and_hessian(two):
    x, y = 1.5, -2.0
    assert values(ad(two, "--at", "1.5,-2.0", "--order", "2")) == {
        "g(1.5, -2.0)": repr(x * x * y + y),
        "gradient g(1.5, -2.0)": repr([2 * x * y, x * x + 1]),
        "hessian g(1.5, -2.0)": repr([[2 * y, 2 * x], [2 * x, 0.0]])}


def test_a_function_of_two_variables_given_one_number(two):
    line = fails(ad(two, "--at", "1.0"), 2, "g takes 2 arguments (x, y)", "--at 1.0,1.0")
    assert "missing" not in line
    fails(ad(two, "--at", "1,2", "--order", "3"), 2, "--order 3", "Hessian (2)")
    fails(ad(two, "--at", "1,2", "--check"), 2, "--check", "one variable")


# --json -------------------------------------------------------------------------------------

def test_json_is_one_document_with_every_kind_of_number(poly):
    run = ad(poly, "--at", "1/3", "1+2j", "-inf", "nan", "2", "--json")
    assert run.returncode == 0 and run.stderr == ""
    document = json.loads(run.stdout)  # one document: json.loads refuses any trailing text
    z = 1 + 2j
    assert document == {"function": "p", "order": 1, "points": [
        {"at": "1/3", "derivatives": ["-17/27", "-5/3"]},
        {"at": {"real": 1.0, "imag": 2.0}, "derivatives": [
            {"real": (z ** 3 - 2 * z).real, "imag": (z ** 3 - 2 * z).imag},
            {"real": (3 * z * z - 2).real, "imag": (3 * z * z - 2).imag}]},
        {"at": "-inf", "derivatives": ["nan", "inf"]},
        {"at": "nan", "derivatives": ["nan", "nan"]},
        {"at": 2, "derivatives": [4, 10]}]}
    assert "NaN" not in run.stdout and "Infinity" not in run.stdout


def test_json_with_check_and_several_variables(two, poly):
    document = json.loads(ad(two, "--at", "1,2", "--order", "2", "--json").stdout)
    assert document["points"] == [{"at": [1, 2], "derivatives": [4, [4, 2], [[4, 2], [2, 0]]]}]
    document = json.loads(ad(poly, "--at", "0.5", "--check", "--json").stdout)
    assert document["points"][0]["check"] == "agrees"


@given(st.floats() | st.complex_numbers() | st.fractions())
@example(math.inf)
@example(-math.inf)
@example(math.nan)
@example(complex(-math.inf, math.nan))
@example(Fraction(-1, 3))
def test_the_json_form_of_a_number_reads_back_as_the_number(number):
    """The documented forms, decoded the documented way, give the number back."""
    form = json.loads(json.dumps(jsonable(number), allow_nan=False))

    def decode(form):
        if isinstance(form, dict):
            return complex(decode(form["real"]), decode(form["imag"]))
        return Fraction(form) if isinstance(form, str) and "/" in form else \
            float(form) if isinstance(form, str) else form

    back = decode(form)
    assert back == number or (back != back and number != number) or \
        (isinstance(number, complex) and repr(back) == repr(number))


# --plot -------------------------------------------------------------------------------------

def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk, after checking the signature."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def test_plot_writes_a_png_of_the_stated_size(tmp_path):
    run = ad(f"{ROOT / 'examples' / 'cli_demo.py'}:f", "--plot", "-1:2", "--order", "2",
             cwd=tmp_path)
    assert run.returncode == 0 and "error" not in run.stderr  # a progress line may show
    assert run.stdout == "wrote f.png (800x600 px)\n"
    assert png_size(tmp_path / "f.png") == (800, 600)
    run = ad(f"{ROOT / 'examples' / 'cli_demo.py'}:f", "--plot", "0:1", "--size", "640x480",
             "--out", "small.png", cwd=tmp_path)
    assert run.returncode == 0 and png_size(tmp_path / "small.png") == (640, 480)


def test_plot_refusals(tmp_path, user_file):
    fails(ad(DEMO, "--plot", "2:1"), 2, "--plot needs an interval A:B with A < B")
    fails(ad(DEMO, "--plot", "0:1", "--size", "big"), 2, "--size needs WIDTHxHEIGHT")
    fails(ad(DEMO, "--plot", "0:1", "--json"), 2, "--plot writes a PNG")
    fails(ad(DEMO, "--at", "1", "--out", "x.png"), 2, "--out names the PNG of --plot")
    run = ad(f"{user_file}:pole", "--plot", "1:2", cwd=tmp_path)  # x = 1 is drawn
    fails_in_user_code(run, 1, user_file, "raised ZeroDivisionError")
    assert not (tmp_path / "pole.png").exists()


def test_plot_without_matplotlib_says_how_to_install_it(tmp_path):
    hide = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            "sys.argv = ['ad', *sys.argv[1:]]; runpy.run_module('ad', run_name='__main__')")
    run = subprocess.run([sys.executable, "-c", hide, DEMO, "--plot", "0:1"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    fails(run, 2, "--plot needs matplotlib: pip install 'cassette-py[plot]'")


# Progress, Ctrl-C, exit codes ----------------------------------------------------------------

@pytest.fixture
def slow(tmp_path):
    (tmp_path / "slow.py").write_text(
        "import time\n\n"
        "def nap(x):\n    time.sleep(1.3)\n    return 2 * x\n\n"
        # a second or more plainly, so its derivative (never faster) shows a progress line
        "def busy(x):\n    for _ in range(30_000_000):\n        x = x * 1.0\n    return x\n")
    return tmp_path / "slow.py"


def test_slow_work_says_what_it_computes_on_stderr(slow):
    run = ad(f"{slow}:nap", "--at", "1", "--order", "1")
    assert run.returncode == 0
    assert run.stdout == "nap(1) = 2\nnap'(1) = 2\n"
    assert run.stderr.splitlines() == ["ad: computing nap(1) (order 0 of 1)...",
                                       "ad: computing nap'(1) (order 1 of 1)..."]


def test_ctrl_c_exits_130_without_a_traceback(slow):
    process = subprocess.Popen([sys.executable, "-m", "ad", f"{slow}:busy", "--at", "1.0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stderr:  # until the progress line: inside the derivative
            if "busy'(1.0)" in line:
                break
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Traceback" not in err and err.splitlines()[-1] == "interrupted"


def test_a_reader_that_stops_early_gets_no_traceback():
    """`python -m ad ... | head -1`: the pipe closes while lines are still coming."""
    process = subprocess.Popen([sys.executable, "-m", "ad", DEMO, "--range", "0:1:3000",
                                "--order", "0"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "f(0.0) = 1.0\n"
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0 and err == ""


def test_help_lists_the_exit_codes():
    run = ad("--help")
    assert run.returncode == 0
    codes = run.stdout[run.stdout.index("exit status:"):].split("\n")
    assert [line.split()[0] for line in codes[1:] if line[:3].strip()] == ["0", "1", "2", "130"]


# Bad input: one line that says what and how to fix it -----------------------------------------

@pytest.mark.parametrize("args, status, words", [
    (["nowhere.py:f", "--at", "1"], 2, ["no such file: nowhere.py", "give the path"]),
    (["{user}:missing", "--at", "1"], 2, ["defines no 'missing'", "its functions: packed, pole"]),
    (["{user}:pole", "--at", "one"], 2, ["--at needs a number", "1/3", "'one'"]),
    (["{user}:pole", "--at", "1", "--order", "-1"], 2, ["--order must be 0 or more, got -1"]),
    (["{user}:pole", "--at", "1", "--order", "two"], 2, ["--order", "'two'", "--help"]),
    (["{syntax}:f", "--at", "1"], 1, ["loading syntax.py raised SyntaxError", "line 1"]),
])
def test_every_misuse_is_one_line(user_file, tmp_path, args, status, words):
    (tmp_path / "syntax.py").write_text("def f(x)\n    return x\n")
    args = [arg.replace("{user}", str(user_file)).replace("{syntax}", str(tmp_path / "syntax.py"))
            for arg in args]
    run = ad(*args)
    fails(run, status, *words)
    assert run.stdout == ""


def test_the_readme_commands_work_as_written(tmp_path):
    """Each `python -m ad` line of README.md's command-line block, from a folder that
    has the examples (the plot is written there); the pip line is the set-up's."""
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("From the shell"):].split("```")[1]
    commands = [shlex.split(line.split("  #")[0]) for line in block.splitlines()
                if line.startswith(".venv/bin/python -m ad ")]
    assert len(commands) >= 5
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for words in commands:
        run = ad(*words[3:], cwd=tmp_path)
        assert run.returncode == 0 and "error" not in run.stderr, (words, run.stderr)
    assert png_size(tmp_path / "f.png") == (800, 600)
