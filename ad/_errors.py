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


def describe(f: Any) -> str:
    """`math.fsum`, `struct.pack`, `Point.norm`: how a user names `f`."""
    module = getattr(f, "__module__", None) or ""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    module = {"_operator": "operator", "builtins": "", "_struct": "struct"}.get(module, module)
    return f"{module}.{name}" if module else name


def call_site() -> str:
    """`file.py:12 in f`: the innermost frame of the user's code (past the standard
    library's, such as `threading`'s, when the user's own code called it)."""
    frame = sys._getframe(1)
    found = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_LIBRARY) and not filename.startswith("<contexts"):
            here = f"{filename}:{frame.f_lineno} in {frame.f_code.co_name}"
            if not _in_standard_library(filename):
                return here
            found = found or here
        frame = frame.f_back
    return found or "an unknown place"


def _in_standard_library(filename: str) -> bool:
    return filename.startswith(_STANDARD_LIBRARY) and not filename.startswith(_INSTALLED)


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
