"""The example scripts, imported as modules for the tests (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

FOLDER = Path(__file__).resolve().parent.parent / "examples"


def load(name: str) -> ModuleType:
    """`examples/<name>.py` as a module of its own (imported once)."""
    module_name = f"_example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
