"""Code that makes the passes write every hidden cell they can (`test_cells`).

Each function uses constructs whose transformed form names a cell: calls of
each arity and with keywords, operators in tests, loops, properties, `with`,
generators and `yield from`, coroutines, globals and closures, `match`, class
bodies, decorators, `eval`, defaults, f-strings, splats, `locals()`, `inspect.stack()` and
`contextslot()`.
"""

import asyncio
import contextlib
import inspect

from contexts import contextslot

COUNTER = 0


class Box:
    def __init__(self, value):
        self._value = value

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, new):
        self._value = new


class Guard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def calls(a, b, c, d, e):
    def f(*args, **kwargs):
        return len(args) + len(kwargs)

    return f() + f(a) + f(a, b) + f(a, b, c) + f(a, b, c, d) + f(a, b, c, d, e) + f(k=a)


def operators(a, b):
    total = a + b
    if a < b:
        total = total - 1
    if total:
        total = -total
    return total


def protocols(xs):
    box = Box(xs[0])
    box.value = box.value + 1
    box.spare = 0
    del box.spare
    with Guard():
        seen = [x for x in xs]
    out = []
    for x in seen:
        out.append(x)
    squares = list(x * x for x in xs)
    return sorted(out, key=lambda v: -v), squares, box.value


def generator(xs):
    got = yield xs[0]
    inner = yield from helper_generator(xs)
    yield from xs
    return got, inner


def helper_generator(xs):
    yield xs[-1]
    return len(xs)


def drive_generator(xs):
    gen = generator(xs)
    values = [next(gen), gen.send(1.5)]
    values.extend(gen)
    return values


async def coroutine(x):
    await asyncio.sleep(0)
    async with contextlib.nullcontext(x) as held:
        x = held
    return x + sum([v async for v in _each(x)])


async def _each(x):
    yield x


def awaiting(x):
    return asyncio.run(coroutine(x))


def heap(x):
    global COUNTER
    COUNTER = COUNTER + 1
    data = {"x": x}
    data["y"] = data["x"]
    box = Box(x)
    box.extra = box.value
    items = [x, x]
    items[0] = items[1]
    first, *rest = items
    scale = x

    def scaled(v, factor=x):
        return v * scale * factor

    class Local:
        size = scale

    def unchanged(g):
        return g

    @unchanged
    def keywords(**named):
        return named

    keywords(**data)
    text = f"{x}"
    return scaled(first) + Local.size + len(text) + COUNTER + box.extra


def matching(subject):
    match subject:
        case [a, b]:
            return a + b
        case {"key": value}:
            return value
    return subject


def frame(x):
    shown = locals()
    here = eval("x")
    return len(shown) + here


def frame_with_a_cell(x):
    g = lambda: x  # noqa: E731 - `x` lives in a cell
    return len(locals()) + g()


def frames_asked(x):
    """A call of an attribute named `stack`: `inspect.stack` needs its caller's frame."""
    return len(inspect.stack()) + x


def slot(x):
    return contextslot(), x


def closure_store(x):
    total = x

    def add(v):
        nonlocal total
        total = total + v
        return total

    return add(x) + total
