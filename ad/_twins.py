"""Python twins of the standard library's C accelerators.

`heapq`, `bisect` and `statistics` are Python modules that end with
`from _heapq import *` (and the like): the C versions replace the Python
definitions above them. A C function cannot carry a derivative, but its Python
twin can, run in the context like any other Python code. So when a value
carrying a derivative reaches such a C function, `ad` runs the twin instead:
the module's own source, loaded once more with the accelerator's import
failing, so its Python definitions stay. No module is replaced; only the
calls a derivative reaches take the twin, and the C functions that compare
elements (`comparing_twin`), whose comparisons may be a user's Python code.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import importlib.util
import types
from typing import Any, Callable

# the accelerator module -> the Python module whose definitions it replaces
_ACCELERATED = {"_heapq": "heapq", "_bisect": "bisect", "_statistics": "statistics"}


def python_twin(f: Callable) -> types.FunctionType | None:
    """The Python definition that the C function `f` replaced, if it has one."""
    accelerator = getattr(f, "__module__", None)
    if type(accelerator) is not str or accelerator not in _ACCELERATED:
        return None
    twin = getattr(_without(accelerator), getattr(f, "__name__", ""), None)
    return twin if type(twin) is types.FunctionType else None


def comparing_twin(f: Callable) -> types.FunctionType | None:
    """The twin of a C function that compares the elements it is given (`heapq`'s,
    `bisect`'s): C would call a user class's `__lt__`, or a `key`, natively, where
    what it computes and stores loses its derivative; the twin calls it in the
    context. Whether one will be called would take reading every element to know,
    so a derivative runs the twin whatever the function is given."""
    try:
        return python_twin(f) if f in _COMPARING else None
    except TypeError:  # an unhashable callable
        return None


def _c_functions(accelerator: str) -> list:
    try:
        module = importlib.import_module(accelerator)
    except ImportError:  # an interpreter without it uses the Python definitions
        return []
    return [f for f in vars(module).values() if type(f) is types.BuiltinFunctionType]


_COMPARING = frozenset(_c_functions("_heapq") + _c_functions("_bisect"))


@functools.cache
def _without(accelerator: str) -> types.ModuleType:
    """The Python module `accelerator` speeds up, loaded with that import failing."""
    spec = importlib.util.find_spec(_ACCELERATED[accelerator])
    module = importlib.util.module_from_spec(spec)

    def blocked(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == accelerator:
            raise ImportError(f"{accelerator} is not used by its Python twin")
        return builtins.__import__(name, *args, **kwargs)

    module.__builtins__ = {**builtins.__dict__, "__import__": blocked}
    spec.loader.exec_module(module)
    return module
