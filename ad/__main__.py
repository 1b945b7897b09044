"""`python -m ad FILE.py:FUNC --at X [--order N] [--check]`: derivatives from the shell.

Prints f(X) and its derivatives up to order N (nested `D`), one per line;
`--check` compares the first derivative with a numerical one (`ad.check`).
Exit status: 0 on success, 1 when the user's code raises or the check fails,
2 for bad input (missing file or function, X not a number). Errors are one
line on stderr, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

from ad import D, check

USAGE_ERROR, USER_ERROR = 2, 1


class Failure(Exception):
    """A one-line error and the exit status that goes with it."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ad", description="Print a function's value and derivatives.",
        epilog="A negative X other than an int or a float needs '=': --at=-1/3")
    parser.add_argument("target", metavar="FILE.py:FUNC",
                        help="the function FUNC defined in the Python file FILE.py")
    parser.add_argument("--at", required=True, metavar="X",
                        help="the point: an int, a float, a complex (1+2j) or a fraction (1/3)")
    parser.add_argument("--order", type=int, default=1, metavar="N",
                        help="print derivatives up to order N (default 1)")
    parser.add_argument("--check", action="store_true",
                        help="compare the first derivative with a numerical derivative")
    args = parser.parse_args(argv)
    if args.order < 0:
        parser.error("--order must be 0 or more")
    try:
        run(args.target, args.at, args.order, args.check)
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        return failure.status
    return 0


def run(target: str, at: str, order: int, with_check: bool) -> None:
    f, name = load_function(target)
    x, at = parse_point(at), at.strip()
    derivative = f
    for n in range(order + 1):
        label = f"{name}{marks(n)}({at})"
        print(f"{label} = {call(derivative, x, label)}", flush=True)
        derivative = D(derivative)
    if with_check:
        try:
            agreed = check(f, x)
        except AssertionError as disagreement:  # f(x) ran above: this is check's verdict
            raise Failure(str(disagreement), USER_ERROR) from None
        except Exception as error:
            raise Failure(f"check of {name}'({at}) raised {one_line(error)}",
                          USER_ERROR) from None
        print(f"check: {name}'({at}) = {agreed} agrees with a numerical derivative")


def load_function(target: str) -> tuple[Callable, str]:
    """FUNC from FILE.py, loaded as a module so that its source can be read."""
    filename, colon, name = target.rpartition(":")
    if not colon or not filename or not name:
        raise Failure(f"expected FILE.py:FUNC, got {target!r}", USAGE_ERROR)
    path = Path(filename).resolve()
    if not path.is_file():
        raise Failure(f"no such file: {filename}", USAGE_ERROR)
    module = load_module(path)
    if not hasattr(module, name):
        raise Failure(f"{filename} defines no {name!r}", USAGE_ERROR)
    f = getattr(module, name)
    if not callable(f):
        raise Failure(f"{filename}:{name} is not a function but {type(f).__name__} {f!r}",
                      USAGE_ERROR)
    return f, name


def load_module(path: Path) -> ModuleType:
    module_name = "_ad_cli_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise Failure(f"cannot load {path} as Python", USAGE_ERROR)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))  # its own imports of neighbouring files
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise Failure(f"loading {path.name} raised {one_line(error)}", USER_ERROR) from None
    return module


def parse_point(text: str) -> Any:
    """An int if it looks like one, else a float, a complex, or a fraction p/q."""
    text = text.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    for kind in (float, complex, Fraction):
        try:
            return kind(text)
        except (ValueError, ZeroDivisionError):
            pass
    raise Failure(f"--at needs a number (1, 0.5, 1+2j, 1/3), got {text!r}", USAGE_ERROR)


def call(g: Callable, x: Any, label: str) -> Any:
    """g(x); an exception in the user's code becomes a one-line `Failure`."""
    try:
        return g(x)
    except Exception as error:
        raise Failure(f"{label} raised {one_line(error)}", USER_ERROR) from None


def marks(n: int) -> str:
    """' for f', '' for f'', and so on; f^(4) from the fourth derivative on."""
    return "'" * n if n <= 3 else f"^({n})"


def one_line(error: BaseException) -> str:
    """`ZeroDivisionError: division by zero`: the type and the first line of the message."""
    lines = str(error).strip().splitlines()
    if not lines:
        return type(error).__name__
    first = lines[0][:-1] + "." if len(lines) > 1 and lines[0].endswith(":") else lines[0]
    return f"{type(error).__name__}: {first}"


if __name__ == "__main__":
    sys.exit(main())
