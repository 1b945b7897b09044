"""`python -m ad FILE.py:FUNC --at X [--order N] [--check]`, run as a user runs it."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from ad import D
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
    fails(run, 1, "pole(1) raised ZeroDivisionError: division by zero")
    assert run.stdout == ""


def test_an_exception_in_a_derivative_exits_1_after_the_value(user_file):
    run = ad(f"{user_file}:packed", "--at", "1.0")
    fails(run, 1, "packed'(1.0) raised NonDifferentiableError", "struct.pack")
    assert run.stdout == "packed(1.0) = 1.0\n"


def test_real_code_at_a_complex_point_exits_1():
    fails(ad(DEMO, "--at", "1+2j"), 1, "f(1+2j) raised TypeError")


def test_an_exception_while_loading_the_file_exits_1(tmp_path):
    (tmp_path / "broken.py").write_text("raise RuntimeError('not today')\n")
    fails(ad(f"{tmp_path / 'broken.py'}:f", "--at", "1"), 1, "broken.py",
          "RuntimeError: not today")


def test_argparse_refuses_a_missing_point():
    run = ad(DEMO)
    assert run.returncode == 2 and "--at" in run.stderr and "Traceback" not in run.stderr
