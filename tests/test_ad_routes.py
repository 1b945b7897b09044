"""Every route into Python code is a route of the context, or its value is refused:
default argument values (tagged while the derivative runs, plain after it),
generator return values (kept for `yield from`, `await` and a `StopIteration`
caught from `next`, `send` or `throw`; refused where C code takes them), class
bodies, text run by `exec`/`eval`, and methods of frozen standard-library modules
(`collections.abc`). Before, each of these gave a derivative of 0 with no error,
and then a refusal."""

import asyncio
import functools
import types
from fractions import Fraction

import pytest

from ad import D, NonDifferentiableError
from contexts import Context, overdub
from tagging import enabletagging, tag, untag
from tests.hunt_pieces import Bag  # `get`, `setdefault`, `pop`: collections.abc's, frozen


def default_value(x):
    g = lambda t=x: t * t  # noqa: E731
    return g()


def keyword_default(x):
    def g(*, t=x):
        return t * 3
    return g()


def delegated_return(x):
    def inner():
        yield 1
        return x * x * 3

    def outer():
        result = yield from inner()
        yield result

    return list(outer())[1]


def stop_value(x):
    """`StopIteration.value` and `args[0]` of a `next` that ended the generator."""
    def g():
        yield 1
        return x * x * 3

    gen = g()
    next(gen)
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value + stop.args[0]


def send_ends(x):
    """A coroutine that returns its total when sent None."""
    def totals():
        total = 0
        while True:
            term = yield
            if term is None:
                return total
            total += term * term

    gen = totals()
    next(gen)
    gen.send(x)
    gen.send(3)
    try:
        gen.send(None)
    except StopIteration as stop:
        return stop.value


def two_levels(x):
    """Returned through two `yield from`, then caught from `next`."""
    def innermost():
        yield
        return x ** 3

    def middle():
        cube = yield from innermost()
        return cube * 2

    def outer():
        doubled = yield from middle()
        return doubled + x

    gen = outer()
    next(gen)
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value


def resumed_while_delegated(x):
    """A `yield from` awaits each generator while `next` resumes it directly: one
    returns to the `yield from`, the other to a `next`."""
    def inner():
        yield 1
        yield 2
        return x * x * 3

    def outer(gen):
        result = yield from gen
        yield result

    first, second = inner(), inner()
    through_first, through_second = outer(first), outer(second)
    next(through_first)
    next(through_second)
    next(first)
    returned = next(through_first)
    next(second)
    try:
        next(second)
    except StopIteration as stop:
        return returned + stop.value


@types.coroutine
def _cubed(x):
    yield
    return x ** 3


async def _awaits(x):
    return (await _cubed(x)) * 2


def awaited_return(x):
    """A generator-based coroutine's return value, through `await`."""
    coroutine = _awaits(x)
    coroutine.send(None)
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value


# (f, its first derivative, its second derivative)
RETURNED = [(delegated_return, lambda x: 6 * x, lambda x: 6),
            (stop_value, lambda x: 12 * x, lambda x: 12),
            (send_ends, lambda x: 2 * x, lambda x: 2),
            (two_levels, lambda x: 6 * x * x + 1, lambda x: 12 * x),
            (resumed_while_delegated, lambda x: 12 * x, lambda x: 12),
            (awaited_return, lambda x: 6 * x * x, lambda x: 12 * x)]


@pytest.mark.parametrize("x", [2.0, Fraction(2, 3)], ids=["float", "Fraction"])
@pytest.mark.parametrize("f, first, second", RETURNED, ids=[f.__name__ for f, *_ in RETURNED])
def test_a_generator_return_value_keeps_its_derivative(f, first, second, x):
    assert D(f, x) == first(x) and type(D(f, x)) is type(x)
    assert D(D(f), x) == second(x)


def test_a_generator_return_value_keeps_both_nested_derivatives():
    """Each level's tangent of what the generator returns: d/dx d/dy of x**3 * y**2."""
    def f(x):
        def g(y):
            def inner():
                yield
                return x ** 3 * y ** 2

            def outer():
                result = yield from inner()
                yield result

            return list(outer())[1]
        return D(g, 2.0)

    assert D(f, 3.0) == 3 * 9.0 * 2 * 2.0


def _closing():
    try:
        yield 1
    except GeneratorExit:
        return _closing.scale * 6


def closed(x):
    _closing.scale = x
    gen = _closing()
    next(gen)
    return gen.close()


def closed_while_delegated(x):
    """A `yield from` awaits the generator, but C code ends it: the value goes there."""
    def outer(gen):
        result = yield from gen
        yield result

    _closing.scale = x
    gen = _closing()
    delegating = outer(gen)
    next(delegating)
    return gen.close()


@pytest.mark.parametrize("f", [closed, closed_while_delegated])
def test_a_return_value_read_by_c_code_is_refused(f):
    """`gen.close()` is C: from Python 3.13 it hands back what the generator returns,
    plain, and nothing of the context sees it return."""
    with pytest.raises(NonDifferentiableError, match="a generator's return value") as raised:
        D(f, 2.0)
    assert "test_ad_routes.py" in str(raised.value)  # the user's line
    assert "yield the value" in str(raised.value)


def test_a_generator_resumed_after_its_derivative_returns_a_plain_value():
    """Made in `D`, resumed outside it: the value is plain, as what it yields is."""
    kept = []

    def f(x):
        def inner():
            yield x * 2
            return x * 3

        def outer():
            result = yield from inner()
            return result * 2

        kept.extend([inner(), outer()])
        return next(kept[0]) + next(kept[1])

    assert D(f, 2.0) == 4.0
    for gen, value in zip(kept, [6.0, 12.0]):
        with pytest.raises(StopIteration) as stop:
            next(gen)
        assert type(stop.value.value) is float and stop.value.value == value
        assert stop.value.args == (value,) and type(stop.value.args[0]) is float


async def tripled_later(x):
    await asyncio.sleep(0)
    return x * 3


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_task_finished_after_its_derivative_holds_a_plain_result(depth):
    """A coroutine made and scheduled inside `f`, run by the loop after `D` returned:
    its task keeps what it returns in a C field, read by `task.result()` and `await`
    later, so it returns it plain, as a generator resumed outside does."""
    loop = asyncio.new_event_loop()
    tasks = []

    def f(x):
        tasks.append(loop.create_task(tripled_later(x * x)))
        return x * 2

    derivative = f
    for _ in range(depth):
        derivative = D(derivative)
    try:
        assert derivative(1.5) == (2.0 if depth == 1 else 0.0)
        loop.run_until_complete(asyncio.gather(*tasks))
        for task in tasks:
            assert type(task.result()) is float and task.result() == 6.75
            assert task.result() + 1 == 7.75  # a number, not a value tagged by a context
            assert loop.run_until_complete(_awaited(task)) == 6.75
    finally:
        loop.close()


async def _awaited(task):
    return await task


def test_a_task_finished_inside_its_derivative_and_kept_holds_a_plain_result():
    """Run to its end inside `f`, the task keeps the result `f` read with its
    derivative; read after `D` returned, it is a plain float."""
    kept = []

    def f(x):
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(tripled_later(x * x))
            kept.append(task)
            return loop.run_until_complete(task)
        finally:
            loop.close()

    assert D(f, 1.5) == 9.0
    assert type(kept[0].result()) is float


# Each reads, inside `f`, the result of a task (of `tripled_later(x * x)`) that
# runs to its end there, and keeps the task (or future) in `kept`.

def _read_by_result(x, kept):
    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(tripled_later(x * x))
        kept.append(task)
        loop.run_until_complete(asyncio.wait([task]))  # reads no result
        return task.result()
    finally:
        loop.close()


def _in_a_loop(main):
    def consume(x, kept):
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(main(x, kept))
        finally:
            loop.close()
    return consume


def _started(x, kept):
    task = asyncio.get_running_loop().create_task(tripled_later(x * x))
    kept.append(task)
    return task


async def _read_by_await(x, kept):
    return await _started(x, kept)


async def _passing_on(task):
    return await task


async def _read_by_a_coroutine(x, kept):
    return await _passing_on(_started(x, kept))


@types.coroutine
def _delegating(task):
    return (yield from task)


async def _read_by_yield_from(x, kept):
    return await _delegating(_started(x, kept))


def _read_by_asyncio_run(x, kept):
    return asyncio.run(_read_by_await(x, kept))


async def _read_by_gather(x, kept):
    first, second = await asyncio.gather(_started(x, kept), _started(x, kept))
    return (first + second) / 2


async def _read_by_wait_for(x, kept):
    return await asyncio.wait_for(_started(x, kept), 60)


async def _read_by_done_callback(x, kept):
    task = _started(x, kept)
    read = []
    task.add_done_callback(lambda fut: read.append(fut.result()))
    await asyncio.wait([task])
    await asyncio.sleep(0)
    return read[0]


class _Awaitable:
    """Awaited, it awaits its task: the context calls its `__await__` (CPython
    would call it natively), and C hands the task's result over."""

    def __init__(self, task):
        self.task = task

    def __await__(self):
        return self.task.__await__()


async def _read_by_an_awaitable(x, kept):
    return await _Awaitable(_started(x, kept))


async def _read_from_a_set_future(x, kept):
    future = asyncio.get_running_loop().create_future()
    future.set_result(x * x * 3)
    kept.append(future)
    return await future


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("consume", [
    _read_by_result, _in_a_loop(_read_by_await), _in_a_loop(_read_by_a_coroutine),
    _in_a_loop(_read_by_yield_from),
    _read_by_asyncio_run, _in_a_loop(_read_by_gather), _in_a_loop(_read_by_wait_for),
    _in_a_loop(_read_by_done_callback), _in_a_loop(_read_by_an_awaitable),
    _in_a_loop(_read_from_a_set_future)],
    ids=["result", "await", "coroutine", "yield_from", "asyncio_run", "gather", "wait_for",
         "done_callback", "awaitable", "set_result"])
def test_a_task_result_read_inside_its_derivative_keeps_it_and_stays_plain(consume, depth):
    """Every consumer of a task's result in `f` gets the derivative (of 3 x², at
    each depth); the task, kept, holds a plain float once `D` returned."""
    kept = []
    derivative = functools.partial(consume, kept=kept)
    for _ in range(depth):
        derivative = D(derivative)
    assert derivative(1.5) == {1: 9.0, 2: 6.0}[depth]
    assert kept
    for task in kept:
        assert type(task.result()) is float and task.result() == 6.75


def test_the_ways_out_keep_the_derivative():
    """What the refusals suggest: pass the value, or yield it."""
    def passed(x):
        g = lambda t: t * t  # noqa: E731
        return g(x)

    def yielded(x):
        def inner():
            yield x * 6
        return next(inner())

    assert D(passed, 2.0) == 4.0 and D(yielded, 2.0) == 6.0


def test_constant_defaults_and_returns_run_as_plain():
    def f(x):
        scale = lambda t, k=3: t * k  # noqa: E731

        def total():
            yield 1
            return 10

        def outer():
            result = yield from total()
            yield result

        return scale(x) + list(outer())[1]

    assert D(f, 2.0) == 3.0


def test_a_container_default_keeps_its_elements_derivatives():
    """A list holds its elements plain, their tangents in the store: it needs no route."""
    def f(x):
        g = lambda t=[x]: t[0] * t[0]  # noqa: E731
        return g()

    assert D(f, 2.0) == 4.0


class Labels(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str


def test_a_tagging_context_gets_the_plain_default():
    """Outside `ad`, the route is a foreign call: the value goes plain, as before."""
    ctx = enabletagging(Labels(), default_value)
    assert untag(overdub(ctx, default_value, tag(2.0, ctx, "input")), ctx) == 4.0


def test_frozen_standard_library_methods_run_in_the_context():
    def f(x):
        bag = Bag(a=x * 7)
        return bag.get("a") + bag.setdefault("b", x) + bag.pop("a")

    assert D(f, 2.0) == 15.0


def test_exec_and_eval_with_a_namespace_differentiate():
    def f(x):
        namespace = {"x": x}
        exec("y = x * 4", namespace)
        return namespace["y"] + eval("x * 5", {"x": x})

    assert D(f, 2.0) == 9.0


def test_a_keyword_argument_named_f_or_output_reaches_the_callee():
    """The hooks' own parameters (`f`, `output`) take no keywords of the user's."""
    def f(x):
        return float("{f}{output}".format(f=1, output=2)) * x

    assert D(f, 2.0) == 12.0


LATER = None  # a global a class body reads


def class_body_reading_a_closure(x):
    class Made:
        v = x * 3
    return Made.v


def class_body_reading_a_global(x):
    global LATER
    LATER = x

    class Made:
        v = LATER * 3
    return Made.v


@pytest.mark.parametrize("f", [class_body_reading_a_closure, class_body_reading_a_global])
def test_a_class_body_reading_a_derivative_keeps_it(f):
    """A class body runs in the context (more in `test_ad_class_bodies`)."""
    assert D(f, 2.0) == 3.0 and D(f, 2) == 3


def test_a_class_made_in_a_derivative_from_constants_runs():
    def f(x):
        y = 2.0

        class Made:
            v = y * 3

            def scaled(self, t):
                return self.v * t * x
        return Made().scaled(x)

    assert D(f, 2.0) == 24.0


def test_a_dataclass_made_inside_f_differentiates():
    """Its `__init__` is made by `exec`, with no source; the model of a dataclass's
    `__init__` runs instead, its class found though it has no global name."""
    import dataclasses

    def f(x):
        @dataclasses.dataclass
        class Point:
            a: float
            b: float = 1.0

            def scaled(self):
                return self.a * self.b * x

        return Point(x, 3.0).scaled()

    assert D(f, 2.0) == 12.0


def test_a_comprehensions_first_iterable_reads_the_enclosing_name():
    """`[y * 2 for y in (y, 1)]`: the first iterable runs in the enclosing scope, so
    its `y` is the closure's, with its derivative (the comprehension's own `y` is
    another variable)."""
    def f(x):
        y = x * x

        def inner():
            return sum([y * 2 for y in (y, 1)])
        return inner()

    assert D(f, 1.5) == 6.0 and D(f, Fraction(3, 2)) == 6
    assert D(D(f), 1.5) == 4.0


class _Doubled:
    """A Python `__await__` that reads the heap: CPython calls it natively, where it
    read `self.v` plain (derivative 0, no error); the context calls it."""

    def __init__(self, v):
        self.v = v

    def __await__(self):
        yield
        return self.v * 2


async def _doubled_twice(x):
    first = await _Doubled(x * x)
    return first + await _Doubled(first)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_python_await_method_runs_in_the_context(depth):
    derivative = lambda x: asyncio.run(_doubled_twice(x))  # noqa: E731  6 x**2
    for _ in range(depth):
        derivative = D(derivative)
    assert derivative(1.5) == [12 * 1.5, 12.0, 0.0][depth - 1]


class _Counting:
    """`async for` and `async with` over Python methods reading the heap: CPython
    called them natively, where `self.v` was read plain (derivative 0, no error)."""

    def __init__(self, v):
        self.v, self.n = v, 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.n >= 2:
            raise StopAsyncIteration
        self.n += 1
        return self.v * self.n

    async def __aenter__(self):
        return self.v * 3

    async def __aexit__(self, *exc):
        return False


async def _counted(x):
    total = 0.0
    async for v in _Counting(x * x):  # 3 x**2
        total += v
    async with _Counting(x * x) as entered:  # 3 x**2
        total += entered
    return total + sum([v async for v in _Counting(x)])  # 3 x


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_async_for_and_async_with_over_python_methods_keep_the_derivative(depth):
    derivative = lambda x: asyncio.run(_counted(x))  # noqa: E731  6 x**2 + 3 x
    for _ in range(depth):
        derivative = D(derivative)
    assert derivative(1.5) == [12 * 1.5 + 3, 12.0, 0.0][depth - 1]


async def _tripled_now(x):
    return x * 3


async def _tripled_twice(x):
    return await _tripled_now(x * x) + await _tripled_now(x)  # 3 x**2 + 3 x


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_coroutine_stepped_by_hand_keeps_its_return_in_the_stop_and_leaves_it_plain(depth):
    """`coro.send(None)` by hand: the `StopIteration` C raises keeps the return value,
    its derivative in the store as a generator's; kept past `D`, it holds the plain
    value (it held a value tagged by the finished derivative)."""
    kept = []

    def f(x):
        coroutine = _tripled_twice(x)
        try:
            coroutine.send(None)
        except StopIteration as stop:
            kept.append(stop)
            return stop.value + stop.args[0] - stop.value

    derivative = f
    for _ in range(depth):
        derivative = D(derivative)
    assert derivative(1.5) == [6 * 1.5 + 3, 6.0, 0.0][depth - 1]
    assert all(type(stop.value) is float and type(stop.args[0]) is float for stop in kept)
