"""Contexts under threads, suspended generators and asyncio."""

from __future__ import annotations

import asyncio
import importlib
import operator
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from contexts import Context, overdub
from tests.engine_helpers import Trace, name_of

THREADS = 8

WORK = '''
def square(x):
    return x * x


def work(n):
    total = 0
    for i in range(n):
        total += square(i)
    return total
'''


class Counting(Context):
    def __init__(self) -> None:
        super().__init__(metadata={})

    def prehook(self, f, *args, **kwargs):
        name = name_of(f)
        self.metadata[name] = self.metadata.get(name, 0) + 1


def fresh_module(tmp_path, monkeypatch, text: str):
    """A module never transformed before: its code objects are new."""
    name = f"engine_fresh_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    return module


def test_threads_overdub_the_same_fresh_function_at_once(tmp_path, monkeypatch):
    module = fresh_module(tmp_path, monkeypatch, WORK)
    barrier = threading.Barrier(THREADS)

    def run(index):
        ctx = Counting()
        n = 50 + index
        barrier.wait()
        return n, overdub(ctx, module.work, n), ctx.metadata

    try:
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(run, range(THREADS)))
    finally:
        sys.modules.pop(module.__name__, None)
    for n, result, counts in results:
        assert result == module.work(n) == sum(i * i for i in range(n))
        assert counts == {"range": 1, "square": n, "mul": n, "iadd": n}


def test_threads_share_one_context_type_with_hooks_redefined_meanwhile():
    # contexts of one type on many threads, while another thread changes an
    # unrelated context class (which rebuilds every runtime)
    class Changing(Context):
        pass

    stop = threading.Event()

    def churn():
        while not stop.is_set():
            Changing.marker = object()

    def run(index):
        ctx = Counting()
        return overdub(ctx, cube_sum, 30 + index), ctx.metadata, 30 + index

    churner = threading.Thread(target=churn)
    churner.start()
    try:
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(run, range(THREADS * 2)))
    finally:
        stop.set()
        churner.join()
    for result, counts, n in results:
        assert result == cube_sum(n)
        assert counts["cube"] == n


def cube(x):
    return x * x * x


def cube_sum(n):
    return sum(cube(i) for i in range(n))


def helper(x):
    return x + 100


def numbers(n):
    for i in range(n):
        yield helper(i)


def make_numbers(n):
    return numbers(n)


def test_generator_keeps_its_context_when_resumed_later():
    t = Trace()
    gen = overdub(t, make_numbers, 3)
    assert t.args_of(helper) == []  # nothing ran yet
    assert next(gen) == 100  # resumed outside overdub
    assert t.args_of(helper) == [(0,)]
    assert list(gen) == [101, 102]
    assert t.args_of(helper) == [(0,), (1,), (2,)]


def test_generator_keeps_its_context_on_another_thread():
    t = Trace()
    gen = overdub(t, make_numbers, 4)
    assert next(gen) == 100
    with ThreadPoolExecutor(1) as pool:
        rest = pool.submit(list, gen).result()
    assert rest == [101, 102, 103]
    assert t.args_of(helper) == [(0,), (1,), (2,), (3,)]


def test_generators_of_two_contexts_interleaved():
    first, second = Trace(), Trace()
    a = overdub(first, make_numbers, 3)
    b = overdub(second, make_numbers, 3)
    assert [next(a), next(b), next(b), next(a)] == [100, 100, 101, 101]
    assert first.args_of(helper) == second.args_of(helper) == [(0,), (1,)]


async def fetch(x):
    await asyncio.sleep(0)
    return helper(x)


async def gather_two(x):
    a, b = await asyncio.gather(fetch(x), fetch(x + 1))
    return operator.sub(b, a)


def run_async(x):
    return asyncio.run(gather_two(x))


def test_coroutines_run_by_asyncio_inside_overdub_are_seen():
    t = Trace()
    assert overdub(t, run_async, 5) == 1
    assert sorted(t.args_of(helper)) == [(5,), (6,)]
    assert t.args_of(operator.sub) == [(106, 105)]


async def tagged_fetch(label, x):
    await asyncio.sleep(0)
    return label, helper(x)


def test_coroutines_of_two_contexts_interleaved_by_one_event_loop():
    first, second = Trace(), Trace()
    a = overdub(first, tagged_fetch, "a", 1)
    b = overdub(second, tagged_fetch, "b", 2)

    async def both():
        return await asyncio.gather(a, b)

    assert asyncio.run(both()) == [("a", 101), ("b", 102)]
    assert first.args_of(helper) == [(1,)]
    assert second.args_of(helper) == [(2,)]
