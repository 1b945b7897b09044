"""`NonDifferentiableError`, and where in the user's code a failing call was made."""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any, Callable

import contexts
import tagging

_LIBRARY = tuple(os.path.dirname(os.path.abspath(package.__file__)) + os.sep
                 for package in (contexts, tagging, sys.modules[__package__]))
_PATHS = sysconfig.get_paths()
_STANDARD_LIBRARY = os.path.abspath(_PATHS["stdlib"]) + os.sep
_INSTALLED = tuple(os.path.abspath(_PATHS[key]) + os.sep for key in ("purelib", "platlib"))


class NonDifferentiableError(TypeError):
    """A value carrying a derivative reached code that would drop it."""

    __module__ = "ad"  # tracebacks name it as users import it: ad.NonDifferentiableError


def describe(f: Any) -> str:
    """`math.fsum`, `struct.pack`, `Point.norm`: how a user names `f`."""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:  # a callable object (`D(f)`, a partial): named by its repr
        return repr(f)
    module = getattr(f, "__module__", None) or ""
    module = {"_operator": "operator", "builtins": "", "_struct": "struct",
              "_pickle": "pickle"}.get(module, module)
    return f"{module}.{name}" if module else name


def in_library(filename: str) -> bool:
    """Whether code from `filename` is ours (ad, tagging, contexts, the engine's
    generated code) rather than the user's."""
    return filename.startswith(_LIBRARY) or filename.startswith("<contexts")


def call_site() -> str:
    """`file.py:12 in f`: the innermost frame of the user's code, past the standard
    library's (`threading`'s) and numpy's own Python code (`np.asmatrix` refused
    inside numpy's `matrix.__new__`) when the user's own code called it."""
    frame = sys._getframe(1)
    found = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not in_library(filename):
            here = f"{filename}:{frame.f_lineno} in {frame.f_code.co_name}"
            if not (_in_standard_library(filename) or _in_numpy(filename)):
                return here
            found = found or here
        frame = frame.f_back
    return found or "an unknown place"


def _in_standard_library(filename: str) -> bool:
    return filename.startswith(_STANDARD_LIBRARY) and not filename.startswith(_INSTALLED)


def _in_numpy(filename: str) -> bool:
    """Whether `filename` is numpy's own Python code (numpy imported, never by us)."""
    numpy = sys.modules.get("numpy")
    home = getattr(numpy, "__file__", None)
    return home is not None and filename.startswith(os.path.dirname(home) + os.sep)


def refusal(f: Callable, why: str) -> NonDifferentiableError:
    """The error for a call that cannot be differentiated, and why."""
    return NonDifferentiableError(
        f"cannot differentiate through {describe(f)} (called at {call_site()}): {why}")


def no_rule(f: Callable, why: str = "") -> NonDifferentiableError:
    """The error for a call that would drop a derivative: register a rule. A numpy
    function is differentiated by ad's own numpy tables or not at all (numpy's code,
    Python or C, is never run in the context), so its way out is to write the step
    with numpy functions that have rules; `ad.rule` takes numbers, not arrays."""
    name = describe(f)
    if name.startswith("numpy.") and not why:
        return refusal(f, f"{name} has no derivative rule in ad's NumPy tables, and it "
                          "received a value carrying a derivative; write this step with "
                          "NumPy functions that have rules (the README's NumPy section "
                          "lists them)")
    reason = why or (f"{name} runs in C and has no derivative rule, and it received a "
                     "value carrying a derivative (itself or in a container), which it "
                     "would turn into a plain number or keep where the derivative is lost")
    return NonDifferentiableError(
        f"{refusal(f, reason)}. Register a forward rule:\n\n{_rule_template(name)}")


def no_source(f: Callable, why: str) -> NonDifferentiableError:
    """The error for a Python function whose body cannot be read.

    Code typed at the plain REPL or `python -c` (before 3.13), or made by `exec`,
    keeps no source. The way out is to define it where Python keeps the source: a
    file, or a notebook cell. A rule is offered only to a function that has a name
    to register it by: `@ad.rule(__main__.<lambda>)` is not Python.
    """
    name = describe(f)
    message = (f"{refusal(f, f'its body cannot be run in the context: {why}')}. Define it "
               "in a .py file or a notebook cell, where Python keeps its source")
    if "<" not in name:
        message += f"; or register a forward rule:\n\n{_rule_template(name)}"
    return NonDifferentiableError(message)


def lost(route: str, way_out: str) -> NonDifferentiableError:
    """The error for a value carrying a derivative that leaves by a route the
    derivative cannot follow (a default argument value, a generator's return)."""
    return NonDifferentiableError(
        f"{route} carries a derivative that it would lose (at {call_site()}); "
        f"{way_out}")


def _rule_template(name: str) -> str:
    return (f"    @ad.rule({name})\n"
            f"    def _(primals, tangents):\n"
            f"        return value, tangent\n")
