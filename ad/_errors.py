"""`NonDifferentiableError`, and where in the user's code a failing call was made."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import contexts
import tagging

_LIBRARY = tuple(os.path.dirname(os.path.abspath(package.__file__)) + os.sep
                 for package in (contexts, tagging, sys.modules[__package__]))


class NonDifferentiableError(TypeError):
    """A value carrying a derivative reached code that would drop it."""

    __module__ = "ad"  # tracebacks name it as users import it: ad.NonDifferentiableError


def describe(f: Any) -> str:
    """`math.fsum`, `struct.pack`, `Point.norm`: how a user names `f`."""
    module = getattr(f, "__module__", None) or ""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    module = {"_operator": "operator", "builtins": "", "_struct": "struct"}.get(module, module)
    return f"{module}.{name}" if module else name


def in_library(filename: str) -> bool:
    """Whether code from `filename` is ours (ad, tagging, contexts, the engine's
    generated code) rather than the user's."""
    return filename.startswith(_LIBRARY) or filename.startswith("<contexts")


def call_site() -> str:
    """`file.py:12 in f`: the innermost frame of the user's code."""
    frame = sys._getframe(1)
    while frame is not None:
        if not in_library(frame.f_code.co_filename):
            return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
        frame = frame.f_back
    return "an unknown place"


def no_rule(f: Callable, why: str = "") -> NonDifferentiableError:
    """The error for a call that would drop a derivative."""
    name = describe(f)
    reason = why or (f"{name} runs in C and has no derivative rule, and it received a "
                     "value carrying a derivative (itself or in a container), which it "
                     "would turn into a plain number or keep where the derivative is lost")
    return NonDifferentiableError(
        f"cannot differentiate through {name} (called at {call_site()}): {reason}. "
        f"Register a forward rule:\n\n"
        f"    @ad.rule({name})\n"
        f"    def _(primals, tangents):\n"
        f"        return value, tangent\n")
