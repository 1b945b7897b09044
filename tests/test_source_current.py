"""The engine runs a function's body from its source only when the source is what the
function was compiled from: it compiles the located definition where it stood and
compares the code. Layouts that compile to the same code must pass the check (an
import inside `try`/`if`, a lambda whose default is a lambda on the same line); a file
edited after import must still fail it, so the edited text never runs."""

import importlib.util
import linecache
import math

import pytest

from ad import D, NonDifferentiableError

GUARDED_IMPORTS = """\
try:
    import math as m
except ImportError:
    m = None
    def under_try(x):
        return x
else:
    def under_try(x):
        return m.sin(x) * x

if m is not None:
    import math as n
    def under_if(x):
        return n.cos(x) * x
else:
    def under_if(x):
        return x
"""

SAME_LINE_LAMBDAS = "scaled = lambda x, k=lambda t: t * 3: k(x) * x\n"


def load(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_a_def_beside_an_import_inside_try_runs_in_the_context(tmp_path):
    module, _ = load(tmp_path, "guarded_try", GUARDED_IMPORTS)
    assert D(module.under_try, 0.7) == pytest.approx(math.cos(0.7) * 0.7 + math.sin(0.7),
                                                     rel=1e-15)


def test_a_def_beside_an_import_inside_if_runs_in_the_context(tmp_path):
    module, _ = load(tmp_path, "guarded_if", GUARDED_IMPORTS)
    assert D(module.under_if, 0.7) == pytest.approx(math.cos(0.7) - 0.7 * math.sin(0.7),
                                                    rel=1e-15)


def test_a_lambda_whose_default_is_a_lambda_on_the_same_line(tmp_path):
    module, _ = load(tmp_path, "same_line", SAME_LINE_LAMBDAS)
    assert D(module.scaled, 0.7) == pytest.approx(6 * 0.7, rel=1e-15)  # d(3 x**2)


def test_a_file_edited_after_import_is_still_refused(tmp_path):
    module, path = load(tmp_path, "edited", GUARDED_IMPORTS)
    path.write_text(GUARDED_IMPORTS.replace("m.sin(x) * x", "m.sin(x) * x * 2"))
    linecache.checkcache(str(path))
    with pytest.raises(NonDifferentiableError, match="no longer matches"):
        D(module.under_try, 0.7)
