"""The engine runs a function's body from its source only when the source is what the
function was compiled from: it compiles the located definition where it stood and
compares the code. Layouts that compile to the same code must pass the check (an
import inside `try`/`if`, a lambda whose default is a lambda on the same line); a file
edited after import must still fail it, so the edited text never runs."""

import importlib.util
import json
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


# Code compiled from a string: its text is read from linecache, or from the function
# that keeps it (networkx's argmap wrappers keep theirs as `_code`), and checked like a
# file's; a string module's loader knows nothing of (its globals are a module's) is
# never read from the module's file.

GENERATED = "def generated(x):\n    assert x > 0\n    return x * math.sin(x)\n"
GENERATED_DERIVATIVE = math.sin(0.7) + 0.7 * math.cos(0.7)


def made(name: str, namespace: dict, text: str = GENERATED, registered: bool = True):
    if registered:
        linecache.cache[name] = (len(text), None, text.splitlines(keepends=True), name)
    exec(compile(text, name, "exec"), namespace)
    return namespace["generated"]


def test_a_function_compiled_from_text_registered_with_linecache():
    f = made("<generated-1>", {"math": math})
    assert D(f, 0.7) == pytest.approx(GENERATED_DERIVATIVE, rel=1e-15)
    assert D(lambda x: D(f, x), 0.7) == pytest.approx(
        2 * math.cos(0.7) - 0.7 * math.sin(0.7), rel=1e-15)


def test_registered_text_in_a_test_modules_globals_is_not_taken_for_the_module():
    """pytest rewrote this module's asserts, not the generated text's."""
    f = made("<generated-2>", dict(globals()))
    assert D(f, 0.7) == pytest.approx(GENERATED_DERIVATIVE, rel=1e-15)


def test_a_function_compiled_from_text_nothing_kept_is_refused():
    f = made("<generated-3>", {"math": math}, registered=False)
    with pytest.raises(NonDifferentiableError,
                       match=r"'<generated-3>' cannot be read: no file .* linecache"):
        D(f, 0.7)


def test_a_string_compiled_with_a_modules_globals_is_not_read_from_its_file():
    """What networkx's argmap does: a name that is no file, the globals of a module
    (whose loader would give linecache the module's text)."""
    f = made("<class 'argmap'> compilation 1", dict(vars(json), math=math),
             registered=False)
    with pytest.raises(NonDifferentiableError, match="cannot be read") as refused:
        D(f, 0.7)
    assert "edited since import" not in str(refused.value)


def test_a_function_keeping_the_text_it_was_compiled_from():
    f = made("<class 'argmap'> compilation 2", dict(vars(json), math=math),
             registered=False)
    f._code = GENERATED
    assert D(f, 0.7) == pytest.approx(GENERATED_DERIVATIVE, rel=1e-15)
    assert D(lambda x: D(f, x), 0.7) == pytest.approx(
        2 * math.cos(0.7) - 0.7 * math.sin(0.7), rel=1e-15)


def test_kept_text_that_is_not_what_the_function_was_compiled_from_is_refused():
    f = made("<class 'argmap'> compilation 3", {"math": math}, registered=False)
    f._code = GENERATED.replace("x * math.sin(x)", "x * math.sin(x) * 2")
    with pytest.raises(NonDifferentiableError, match="no longer matches"):
        D(f, 0.7)
