"""The ad examples: each runs as a script, prints its `# Output:` block, and computes
what it claims."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys

import mpmath
import pytest

import ad
from ad import D
from tests.examples import FOLDER, load
from tests.test_seeds import documented_output

NAMES = ["ad_seeds", "projectile", "newton", "least_squares", "property_test", "cli_demo"]


@pytest.mark.parametrize("name", NAMES)
def test_example_prints_its_documented_output(name):
    run = subprocess.run([sys.executable, str(FOLDER / f"{name}.py")], capture_output=True,
                         text=True, timeout=60, cwd=FOLDER.parent)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout == documented_output(name)


def test_the_seeds_are_what_they_claim():
    lines = documented_output("ad_seeds").splitlines()
    assert lines[0].split()[-4] == lines[0].split()[-1] == repr(math.cos(1.0))
    assert float(lines[1].split()[-4]) == pytest.approx(math.cos(2.0), rel=1e-15)
    assert [line.split(" = ")[1] for line in lines[2:]] == ["10", "2.0", "1"]


def test_projectile_derivatives_match_central_differences():
    example = load("projectile")
    for f, x in [(example.range_by_drag, 0.02), (example.range_by_angle, 45.0)]:
        h = 1e-6 * x
        assert D(f, x) == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6)
    # the simulation is honest: more drag, shorter range; the derivative says so too
    assert example.range_by_drag(0.03) < example.range_by_drag(0.02)
    assert D(example.range_by_drag, 0.02) < 0
    assert isinstance(example.Projectile(30.0, 45.0, 0.02).launch(), example.State)


def test_newton_finds_the_closed_form_minimiser():
    example = load("newton")
    iterates = example.minimise(example.f, 2.0)
    assert iterates[-1] == pytest.approx(math.log(2) / 3, abs=1e-15)
    assert 3 <= len(iterates) <= 12  # quadratic convergence, not a slow crawl
    with pytest.raises(ArithmeticError, match="not a minimum"):
        example.minimise(lambda x: -example.f(x), 2.0)


def _mp_fit(times, values):
    """The example's least-squares quadratic, in mpmath at the working precision."""
    design = mpmath.matrix([[1, t, t * t] for t in times])
    return mpmath.lu_solve(design.T * design, design.T * mpmath.matrix(values))


def test_least_squares_sensitivities_match_mpmath():
    example = load("least_squares")
    times = [mpmath.mpf(float(t)) for t in example.TIMES]
    values = [mpmath.mpf(float(v)) for v in example.VALUES]
    k = example.K

    def moved(which, x):
        data = {"time": list(times), "value": list(values)}
        data[which][k] = x
        return _mp_fit(data["time"], data["value"])

    with mpmath.workdps(40):
        for which, f, x in [("value", example.fit_moving_value, values[k]),
                            ("time", example.fit_moving_time, times[k])]:
            exact = [float(mpmath.diff(lambda u, i=i: moved(which, u)[i], x)) for i in range(3)]
            assert D(f, float(x)) == pytest.approx(exact, rel=1e-10, abs=1e-13)
        every = example.jacobian(lambda v: example.fit(example.TIMES, v), example.VALUES)
        design = mpmath.matrix([[1, t, t * t] for t in times])
        hat = mpmath.inverse(design.T * design) * design.T  # d c / d y, exactly
        assert every.shape == (3, len(times))
        assert every.ravel().tolist() == pytest.approx(
            [float(hat[i, j]) for i in range(3) for j in range(len(times))], rel=1e-10,
            abs=1e-13)


def test_the_property_tests_pass_under_pytest():
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                          str(FOLDER / "property_test.py")],
                         capture_output=True, text=True, timeout=60, cwd=FOLDER.parent)
    assert run.returncode == 0, run.stdout
    assert "2 passed" in run.stdout


def test_the_property_test_catches_a_wrong_derivative():
    # a copy of the example of its own, so the wrong rule reaches no other test
    spec = importlib.util.spec_from_file_location("_example_property_test_wrong",
                                                  FOLDER / "property_test.py")
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)

    @ad.rule(example.softplus)
    def off_by_a_little(primals, tangents):
        (x,), (t,) = primals, tangents
        return example.softplus(x), example.logistic(x) * t * 1.001

    with pytest.raises(AssertionError, match="numerical derivative"):
        example.test_softplus_derivative_agrees_with_a_numerical_one()
    with pytest.raises(AssertionError):
        example.test_softplus_derivative_is_the_logistic_function()


def test_the_cli_demo_prints_what_the_command_line_finds():
    example = load("cli_demo")
    lines = documented_output("cli_demo").splitlines()
    assert lines[1].endswith(f"= {D(example.f, 1.0)!r}")
    assert float(lines[2].split(" = ")[1]) == pytest.approx(D(D(example.f))(1.0), rel=1e-14)


def test_the_readme_numpy_example_prints_what_its_comments_say(tmp_path):
    """README.md's NumPy section: its Python block, run as a file, prints what the
    comments after its `print` calls say; its commands name files that exist."""
    readme = (FOLDER.parent / "README.md").read_text()
    section = readme[readme.index("\n## NumPy\n"):]
    commands = section.split("```bash\n")[1].split("```")[0]
    assert "pip install -q -e '.[numpy]'" in commands
    scripts = [line.split()[1] for line in commands.splitlines() if " examples/" in line]
    assert scripts and all((FOLDER.parent / script).is_file() for script in scripts)
    block = section.split("```python\n")[1].split("```")[0]
    said = [line.split("  # ")[1] for line in block.splitlines() if line.startswith("print(")]
    (tmp_path / "readme_numpy.py").write_text(block)
    run = subprocess.run([sys.executable, str(tmp_path / "readme_numpy.py")], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [line.split(":")[0] for line in said]
