"""The user's function, from `FILE.py:FUNC` or `package.module:FUNC`.

A file is loaded as a module of its own, registered in `sys.modules` while it
runs (dataclasses and pickle look their class's module up there) under a
private name, so that a user's `json.py` or `ad.py` cannot replace a module
the library uses. Messages must not show that private name: `Target.speak`
puts back the names the user wrote.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

from ad._cli_failures import USAGE_ERROR, Failure, raised_in_user_code

_FILE_MODULE_PREFIX = "_ad_cli_"


@dataclass(frozen=True)
class Target:
    """The function, its name as the user wrote it (`kink2`, `mypkg.mod:kink2`),
    and the module name Python knows it by (to be replaced in messages)."""

    function: Callable
    name: str
    spoken_name: str
    module_name: str

    def speak(self, text: str) -> str:
        """`text` with the function and its module named as the user named them."""
        text = text.replace(f"{self.module_name}.{self.name}", self.spoken_name)
        if self.module_name.startswith(_FILE_MODULE_PREFIX):
            text = text.replace(f"{self.module_name}.", "")
        return text


def load_target(text: str) -> Target:
    """FUNC (or FUNC.attribute) from FILE.py or from an importable module."""
    where, colon, name = text.rpartition(":")
    if not colon or not where or not name:
        raise Failure(f"expected FILE.py:FUNC or package.module:FUNC, got {text!r}",
                      USAGE_ERROR)
    if where.endswith(".py") or "/" in where or "\\" in where:
        module, spoken_name = _load_file(where), name
    else:
        module, spoken_name = _import_module(where), f"{where}:{name}"
    function = _attribute(module, where, name)
    if not callable(function):
        raise Failure(f"{where}:{name} is not a function but {type(function).__name__} "
                      f"{function!r}; name a function", USAGE_ERROR)
    return Target(function, name, spoken_name, module.__name__)


def _load_file(filename: str) -> ModuleType:
    path = Path(filename).resolve()
    if not path.is_file():
        raise Failure(f"no such file: {filename} (from {Path.cwd()}); give the path of a "
                      "Python file, or an importable module as package.module:FUNC",
                      USAGE_ERROR)
    module_name = _FILE_MODULE_PREFIX + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise Failure(f"cannot load {filename} as Python; give a .py file", USAGE_ERROR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))  # its own imports of neighbouring files
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise raised_in_user_code(error, f"loading {path.name}") from None
    return module


def _import_module(dotted: str) -> ModuleType:
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError as error:
        if error.name is None or not f"{dotted}.".startswith(f"{error.name}."):
            raise raised_in_user_code(error, f"importing {dotted}") from None
        raise Failure(f"no module named {dotted!r} here or on sys.path; run from the "
                      "folder that holds it, or give a file as path/to/file.py:FUNC",
                      USAGE_ERROR) from None
    except Exception as error:
        raise raised_in_user_code(error, f"importing {dotted}") from None


def _attribute(module: ModuleType, where: str, name: str) -> object:
    """`module.name`, where `name` may be dotted (`Class.method`)."""
    found: object = module
    for part in name.split("."):
        if not hasattr(found, part):
            functions = ", ".join(sorted(
                key for key, value in vars(module).items()
                if callable(value) and not key.startswith("_")
                and getattr(value, "__module__", None) == module.__name__))
            raise Failure(f"{where} defines no {name!r}; its functions: {functions or 'none'}",
                          USAGE_ERROR)
        found = getattr(found, part)
    return found
