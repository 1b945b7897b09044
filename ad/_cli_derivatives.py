"""What `python -m ad` computes: f and its derivatives at a point, one order at a time.

A function of one variable gets nested `D` (f, f', f'', ...); a function of
several gets its value, `gradient` and `hessian`. Each step runs the user's
code, so an exception there becomes a `Failure` with the user's traceback, and
a step that takes over a second says on stderr what it is computing.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from ad._api import D, gradient, hessian
from ad._check import check
from ad._cli_failures import USAGE_ERROR, USER_ERROR, Failure, raised_in_user_code
from ad._cli_points import Point
from ad._cli_target import Target

PROGRESS_AFTER = 1.0  # seconds
SEVERAL_VARIABLES = ("", "gradient ", "hessian ")  # what each order is called


def derivatives(target: Target, point: Point, order: int) -> Iterator[tuple[str, Any]]:
    """(label, value) for f and each derivative up to `order` at `point`, in order:
    `f(1.0)`, `f'(1.0)`, ... or `f(1.0, 2.0)`, `gradient f(1.0, 2.0)`, `hessian ...`."""
    f, name = target.function, target.name
    check_arity(target, point)
    if len(point.values) == 1:
        for n, derivative in enumerate(nested_derivatives(f, order)):
            label = f"{name}{marks(n)}({point.text})"
            with progress(f"{label} (order {n} of {order})"), user_code(label):
                value = derivative(point.values[0])
            yield label, value
        return
    if order >= len(SEVERAL_VARIABLES):
        raise Failure(f"--order {order} at a point of several variables: the command line "
                      "gives the value (--order 0), the gradient (1) and the Hessian (2)",
                      USAGE_ERROR)
    spread = functools.wraps(f)(lambda xs: f(*xs))  # gradient and hessian pass one list
    steps = [functools.partial(f, *point.values),
             functools.partial(gradient, spread, list(point.values)),
             functools.partial(hessian, spread, list(point.values))]
    for n in range(order + 1):
        label = f"{SEVERAL_VARIABLES[n]}{name}({point.text})"
        with progress(f"{label} (order {n} of {order})"), user_code(label):
            value = steps[n]()
        yield label, value


def nested_derivatives(f: Callable, order: int) -> Iterator[Callable]:
    """f, D(f), D(D(f)), ... up to `order`."""
    for _ in range(order + 1):
        yield f
        f = D(f)


def curves(target: Target, xs: list[float], order: int) -> dict[str, list[float]]:
    """{"f": [f(x) for x in xs], "f'": [...], ...}: what `--plot` draws."""
    check_arity(target, Point(repr(xs[0]), (xs[0],)))
    drawn = {}
    for n, derivative in enumerate(nested_derivatives(target.function, order)):
        name = f"{target.name}{marks(n)}"
        with progress(f"{name} at {len(xs)} points from {xs[0]!r} to {xs[-1]!r} "
                      f"(order {n} of {order})"):
            drawn[name] = [_real(derivative, x, f"{name}({x!r})") for x in xs]
    return drawn


def _real(f: Callable, x: float, label: str) -> float:
    with user_code(label):
        y = f(x)
    if isinstance(y, complex) or not hasattr(y, "__float__"):
        raise Failure(f"--plot draws real numbers, but {label} = {y!r}", USAGE_ERROR)
    return float(y)


def checked(target: Target, point: Point) -> Any:
    """f'(x) if a numerical derivative agrees with it (`ad.check`), else a `Failure`."""
    label = f"{target.name}'({point.text})"
    with progress(f"check of {label}"):
        try:
            return check(target.function, point.values[0])
        except AssertionError as disagreement:  # f(x) ran before: this is check's verdict
            raise Failure(str(disagreement), USER_ERROR) from None
        except Exception as error:
            raise raised_in_user_code(error, f"check of {label}") from None


@contextmanager
def user_code(label: str) -> Iterator[None]:
    """Runs the user's code: an exception there is a `Failure` with the user's traceback."""
    try:
        yield
    except Exception as error:
        raise raised_in_user_code(error, label) from None


def check_arity(target: Target, point: Point) -> None:
    """A clear line, rather than Python's "missing 1 required positional argument",
    when the point has fewer or more numbers than the function takes arguments."""
    try:
        signature = inspect.signature(target.function)
    except (TypeError, ValueError):  # a C function without a signature: its call says
        return
    try:
        signature.bind(*point.values)
    except TypeError:
        names = [parameter.name for parameter in signature.parameters.values()
                 if parameter.kind in (parameter.POSITIONAL_ONLY,
                                       parameter.POSITIONAL_OR_KEYWORD)]
        count = len(point.values)
        raise Failure(f"{target.name} takes {len(names)} argument{'s' * (len(names) != 1)} "
                      f"({', '.join(names)}), but the point {point.text} has {count} "
                      f"number{'s' * (count != 1)}: give one number per argument, separated "
                      f"by commas (--at {','.join(['1.0'] * len(names))})",
                      USAGE_ERROR) from None


@contextmanager
def progress(what: str) -> Iterator[None]:
    """Says on stderr what is being computed, once the work has taken a second."""
    timer = threading.Timer(PROGRESS_AFTER, lambda: print(
        f"ad: computing {what}...", file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def marks(n: int) -> str:
    """' for f', '' for f'', and so on; f^(4) from the fourth derivative on."""
    return "'" * n if n <= 3 else f"^({n})"
