"""Workload functions for the benchmarks.

They live in a real file because the engine reads a function's source to
transform it. Each workload is a plain function of its arguments; `run.py`
times it called directly and under `overdub` in several contexts.
"""

from __future__ import annotations

import math
import operator
import random
from fractions import Fraction


def scalar_loop(n: int) -> float:
    """A float loop of `math` calls: what numeric user code looks like."""
    acc = 0.0
    for i in range(n):
        x = i * 0.01
        acc += math.sin(x) * math.cos(x) + math.exp(-x) + math.sqrt(x + 1.0)
    return acc


def fib(n: int) -> int:
    """Naive recursion: every call is a Python call the context must route."""
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fib_calling_hooks(n: int, pre) -> int:
    """`fib` that calls `pre` itself before every call and operator, as hooks see them.

    What calling the prehook costs on `fib`, with no engine at all (3.5 calls
    per `fib` call on average); the engine pastes simple hooks instead.
    """
    pre(operator.lt, n, 2)
    if n < 2:
        return n
    pre(operator.sub, n, 1)
    a = n - 1
    pre(fib_calling_hooks, a, pre)
    a = fib_calling_hooks(a, pre)
    pre(operator.sub, n, 2)
    b = n - 2
    pre(fib_calling_hooks, b, pre)
    b = fib_calling_hooks(b, pre)
    pre(operator.add, a, b)
    return a + b


def fraction_sum(values: list) -> Fraction:
    """Fraction arithmetic: each `+` runs `Fraction.__add__` (Python code in the stdlib)."""
    total = Fraction(0)
    for value in values:
        total = total + value
    return total


def unrelated(x: object) -> object:
    """Never called by any workload; the resolve-mode context claims it as a primitive."""
    return x


# Inputs ----------------------------------------------------------------------

def floats(count: int, seed: int = 1) -> list:
    rng = random.Random(seed)
    return [rng.uniform(-100.0, 100.0) for _ in range(count)]


def fractions(count: int) -> list:
    return [Fraction(i, i + 1) for i in range(1, count + 1)]


PARAGRAPH = (
    "Cassette lets a user run any function so that every call inside it goes through a "
    "context. The context may watch the calls, change them, or carry metadata on values "
    "as they travel through the program, and none of the code being run needs to know. "
    "This paragraph is long enough that wrapping it takes a few dozen iterations of the "
    "loops inside textwrap, which are ordinary Python code the context sees into."
)


def nested_document() -> dict:
    """A nested dict of the size of a small configuration or API response."""
    return {
        "name": "benchmark",
        "version": [1, 2, 3],
        "enabled": True,
        "ratio": 0.75,
        "owner": {"id": 42, "tags": ["a", "b", "c"], "note": None},
        "items": [
            {"id": i, "label": f"item-{i}", "weights": [i * 0.5, i * 0.25],
             "meta": {"even": i % 2 == 0, "square": i * i}}
            for i in range(8)
        ],
    }


# Cold-start functions ----------------------------------------------------------

def fifty_line_source(name: str, seed: int) -> str:
    """The source of a fresh, self-contained 50-line function `name(x, y) -> float`.

    The statements mix arithmetic, `math` calls, branches, a loop, containers
    and builtins; the constants depend on `seed`, so every trial's code is new.
    """
    rng = random.Random(seed)

    def c() -> str:
        return repr(round(rng.uniform(0.1, 2.0), 3))

    blocks = [
        lambda i: [f"a{i} = math.sin(x * {c()}) + y * {c()}"],
        lambda i: [f"a{i} = math.sqrt(abs(acc) + {c()}) - math.cos(y)"],
        lambda i: [f"if a{i - 1} > {c()}:", f"    acc += a{i - 1} * {c()}",
                   "else:", f"    acc -= {c()}", f"a{i} = acc"],
        lambda i: [f"a{i} = 0.0", "for k in range(3):", f"    a{i} += k * {c()} + a{i - 1}"],
        lambda i: [f"t{i} = [a{i - 1}, acc, {c()}]", f"a{i} = max(t{i}) - min(t{i})"],
        lambda i: [f"d{i} = {{'k': a{i - 1}, 'n': len(str(acc))}}",
                   f"a{i} = d{i}['k'] * 0.5 + d{i}['n']"],
        lambda i: [f"a{i} = round(math.exp(-abs(a{i - 1})) * {c()}, 6)",
                   f"acc = acc + a{i}"],
    ]
    body = ["acc = 0.0", "a0 = x + y"]
    i = 1
    while True:
        lines = blocks[(i - 1) % len(blocks)](i)
        if len(body) + len(lines) > 48:
            break
        body.extend(lines)
        i += 1
    while len(body) < 48:
        body.append(f"acc += a{i - 1} * {c()}")
    body.append(f"return acc + a{i - 1}")
    text = ["import math", "", "", f"def {name}(x, y):"] + ["    " + line for line in body]
    return "\n".join(text) + "\n"
