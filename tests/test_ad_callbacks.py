"""ad through C code that calls back into Python, and through threads and processes.

`docs/callbacks.md` lists every builtin and standard-library C entry point that
calls Python code; each of its lines names a row of `ROWS` here, and each row is
a derivative that is right (the Python part runs in the context) or refused with
`NonDifferentiableError` (a value carrying a derivative would leave the thread).
"""

import asyncio
import bisect
import collections
import concurrent.futures
import contextlib
import contextvars
import copy
import dataclasses
import functools
import gc
import heapq
import json
import math
import multiprocessing
import multiprocessing.pool
import operator
import os
import pathlib
import pickle
import queue
import re
import sqlite3
import subprocess
import sys
import threading
import weakref
from typing import Any, Callable, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ad import D, NonDifferentiableError
from contexts import Context, overdub

REFUSED = "refused"


class Row(NamedTuple):
    f: Callable
    point: Any
    expected: Any  # the derivative, or REFUSED
    around: Callable = contextlib.nullcontext  # what runs around the derivative


# Conversion dunders -------------------------------------------------------------------

def user_number(x, log=None):
    """An object whose conversion dunders compute with `x` through a closure (so no
    argument of the builtin carries the derivative), each noting `2 * x` in `log`."""

    def note():
        if log is not None:
            log.append(x * 2)

    class Number:
        def __float__(self):
            note()
            return 3 * x

        def __int__(self):
            note()
            return 3

        def __index__(self):
            note()
            return 1

        def __format__(self, spec):
            note()
            return format(3.0, spec)

        def __floor__(self):
            note()
            return 3

        def __complex__(self):
            return complex(3 * x)

        def __abs__(self):
            return 3 * x

        def __round__(self, digits=None):
            return 3 * x

        def __mul__(self, other):
            return 3 * x * other

        def __rmul__(self, other):
            return other * 3 * x

        def __len__(self):
            note()
            return 1

        def __lt__(self, other):
            note()
            return id(self) < id(other)

        def __hash__(self):
            note()
            return 1

        def __repr__(self):
            note()
            return "Number()"

        def __str__(self):
            note()
            return "a number"

    return Number()


def logged(use):
    """`f(x)`: the sum of what a user dunder noted while `use(obj)` ran (derivative 2)."""

    def f(x):
        log = []
        use(user_number(x, log))
        return sum(log)

    return f


def int_at_an_int_point(n):
    class Number:
        def __int__(self):
            return 3 * n

    return int(Number())


# Factories and callbacks ----------------------------------------------------------------

def defaultdict_factory(x):
    return collections.defaultdict(lambda: x * 2)["k"]


def defaultdict_augmented(x):
    counts = collections.defaultdict(lambda: x * 2)
    counts["k"] += x
    return counts["k"]


def missing_dunder(x):
    class Table(dict):
        def __missing__(self, key):
            return x * 2

    return Table()["k"]


def cmp_to_key_calls(x):
    log = []

    def compare(a, b):
        log.append(x * 2)
        return (a > b) - (a < b)

    sorted([2.0, 1.0], key=functools.cmp_to_key(compare))
    return log[0]


def cmp_to_key_sorts(x):
    return sorted([x * 3, x * 2], key=functools.cmp_to_key(lambda a, b: (a > b) - (a < b)))[0]


def re_sub_callback(x):
    log = []
    re.sub("a", lambda match: log.append(x * 2) or "b", "a")
    re.compile("a").subn(lambda match: log.append(x * 2) or "b", "a")
    return sum(log)


def json_object_hook(x):
    return json.loads('{"a": 1}', object_hook=lambda d: x * 2)


def json_parse_float(x):
    return json.loads('[1.5]', parse_float=lambda text: float(text) * x)[0]


def methodcaller_method(x):
    class A:
        def scaled(self, by):
            return x * by

    return operator.methodcaller("scaled", 2)(A())


def attrgetter_property(x):
    class A:
        @property
        def doubled(self):
            return x * 2

    return operator.attrgetter("doubled")(A())


def itemgetter_items(x):
    return sum(operator.itemgetter(0, 1)([x * 2, 1.0]))


def operator_call(x):
    return operator.call(lambda: x * 2)


def cached_closure(x):
    @functools.cache
    def doubled():
        return x * 2

    return doubled() + doubled() - doubled()


@functools.lru_cache
def fibonacci(n):
    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)


def cached_recursion(x):
    return fibonacci(80) * x  # linear under D: a memo per derivative


def weakref_callback(x):
    log = []

    class Thing:
        pass

    thing = Thing()
    reference = weakref.ref(thing, lambda ref: log.append(x * 2))
    del thing
    gc.collect()  # (under a nested derivative a frame may hold it until then)
    assert reference() is None
    return log[0]


def weakref_finalize(x):
    log = []

    class Thing:
        pass

    thing = Thing()
    weakref.finalize(thing, lambda: log.append(x * 2))
    del thing
    gc.collect()  # (under a nested derivative a frame may hold it until then)
    return log[0]


def exit_stack_callback(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: log.append(x * 2))
    return log[0]


def context_run(x):
    return contextvars.copy_context().run(lambda: x * 2)


def asyncio_call_soon(x):
    log = []

    async def main():
        asyncio.get_running_loop().call_soon(lambda: log.append(x * 2))
        await asyncio.sleep(0)

    asyncio.run(main())
    return log[0]


def asyncio_coroutine(x):
    async def doubled():
        await asyncio.sleep(0)
        return x * 2

    return asyncio.run(doubled())


class _Awaitable:
    """`__await__`, `__aiter__`/`__anext__`, `__aenter__`/`__aexit__` in Python, each
    reading `self.v`: CPython's bytecode calls them natively."""

    def __init__(self, v):
        self.v, self.steps = v, 0

    def __await__(self):
        yield
        return self.v * 2

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.steps:
            raise StopAsyncIteration
        self.steps += 1
        return self.v * 2

    async def __aenter__(self):
        return self.v * 2

    async def __aexit__(self, *exc):
        return False


def await_dunder(x):
    async def main():
        return await _Awaitable(x)

    return asyncio.run(main())


def async_for_dunders(x):
    async def main():
        return sum([v async for v in _Awaitable(x)])

    return asyncio.run(main())


def async_with_dunders(x):
    async def main():
        async with _Awaitable(x) as entered:
            return entered

    return asyncio.run(main())


def coroutine_sent_by_hand(x):
    async def doubled():
        return x * 2

    try:
        doubled().send(None)
    except StopIteration as stop:
        return stop.value


def asyncio_future(x):
    async def main():
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        loop.call_soon(lambda: future.set_result(x * 2))
        return await future

    return asyncio.run(main())


def sqlite_function(x):
    log = []
    connection = sqlite3.connect(":memory:")
    connection.create_function("note", 0, lambda: log.append(x * 2) or 1)
    connection.execute("select note()").fetchall()
    connection.close()
    return log[0]


def heapq_lt(x):
    return logged(lambda obj: heapq.heappush([user_number(0.0)], obj))(x)


def heapify_lt(x):
    return logged(lambda obj: heapq.heapify([obj, user_number(0.0)]))(x)


def bisect_lt(x):
    return logged(lambda obj: bisect.bisect([user_number(0.0)], obj))(x)


def insort_lt(x):
    return logged(lambda obj: bisect.insort([user_number(0.0)], obj))(x)


def bisect_key(x):
    log = []
    bisect.bisect([1.0, 2.0], 1.5, key=lambda v: log.append(x * 2) or v)  # key called twice
    return sum(log)


def fstring_format(x):
    return logged(lambda obj: f"{obj}")(x)


def fstring_conversions(x):
    return logged(lambda obj: f"{obj!r:>4}{obj!s}{obj!a:{''}}")(x)


def subscript_index(x):
    return logged(lambda obj: [1.0, 2.0][obj])(x)


def slice_index(x):
    return logged(lambda obj: [1.0, 2.0][obj:])(x)


def truth_tested(obj):
    if obj:  # (no `__bool__`: its `__len__` answers)
        return 1
    return 0


def contains_dunder(x):
    class Bag:
        def __init__(self):
            self.log = []

        def __contains__(self, item):
            self.log.append(x * 2)
            return True

    bag = Bag()
    1 in bag
    return bag.log[0]


def class_getitem(x):
    class Generic:
        def __class_getitem__(cls, item):
            return item * 2

    return Generic[x]


def attribute_deleted(x):
    class Removable:
        log = []

        @property
        def value(self):
            return 0

        @value.deleter
        def value(self):
            self.log.append(x * 2)

    del Removable().value
    return Removable.log[0]


def class_pattern_property(x):
    class Point:
        __match_args__ = ("a",)

        def __init__(self, v):
            self.v = v

        @property
        def a(self):
            return self.v * 2

    match Point(x):
        case Point(a):
            return a


def mro_entries(x):
    class Entry:
        def __init__(self, v):
            self.v = v

        def __mro_entries__(self, bases):
            return (object,)

    class Made(Entry(x)):
        pass
    return 0.0


def init_subclass_keyword(x):
    class Base:
        def __init_subclass__(cls, w=0):
            cls.w = w

    class Made(Base, w=x):
        pass
    return Made.w


def subscript_reads_the_slot(x):
    return [1.0, x * 2][user_number(0.0)]  # (its `__index__` gives 1)


def subscript_stores_into_the_slot(x):
    xs = [0.0, 0.0]
    xs[user_number(0.0)] = x * 2
    return xs[1]


# Copies and pickles -----------------------------------------------------------------

class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


@dataclasses.dataclass(slots=True)
class SlottedData:
    a: float


class SelfCopying:
    def __init__(self, v):
        self.v = v

    def __copy__(self):
        return SelfCopying(self.v * 3)

    def __deepcopy__(self, memo):
        return SelfCopying(self.v * 2)


class Reducing:
    def __init__(self, v):
        self.v = v

    def __reduce_ex__(self, protocol):
        return Reducing, (self.v * 2,)


def nested(x, depth=12):
    value = [x * 2]
    for _ in range(depth):
        value = [value]
    return value


def innermost(value):
    while isinstance(value, list):
        value = value[0]
    return value


# Threads, processes, queues -----------------------------------------------------------

def thread_target(x):
    out = []
    thread = threading.Thread(target=lambda: out.append(x * x))
    thread.start()
    thread.join()
    return out[0]


def thread_subclass(x):
    out = []

    class Worker(threading.Thread):
        def run(self):
            out.append(x * x)

    worker = Worker()
    worker.start()
    worker.join()
    return out[0]


def executor_submit(x):
    with concurrent.futures.ThreadPoolExecutor() as pool:
        return pool.submit(lambda: x * x).result()


RUNNING_POOL = concurrent.futures.ThreadPoolExecutor(1)


def running_executor_map(x):
    return list(RUNNING_POOL.map(lambda v: v * x, [2.0]))[0]


def run_in_executor(x):
    async def main():
        return await asyncio.get_running_loop().run_in_executor(None, lambda: x * x)

    return asyncio.run(main())


def asyncio_to_thread(x):
    return asyncio.run(asyncio.to_thread(lambda: x * x))


POOLS = []  # the thread pool `a_running_pool` started before the derivative


@contextlib.contextmanager
def a_running_pool():
    with multiprocessing.pool.ThreadPool(1) as pool:
        POOLS.append(pool)
        try:
            yield
        finally:
            POOLS.clear()


def pool_made_outside(x):
    return POOLS[0].apply(lambda: x * x)


def process_start(x):
    process = multiprocessing.Process(target=abs, args=(x,))
    process.start()
    process.join()
    return x


def os_fork(x):
    os.fork()
    return x


def multiprocessing_queue(x):
    channel = multiprocessing.Queue()
    channel.put(x * 2)
    return channel.get()


def simple_queue(x):
    channel = queue.SimpleQueue()
    channel.put(x * 2)
    return channel.get()


QUEUES = (queue.Queue(), queue.Queue())  # requests and answers of a serving thread


def queue_to_a_running_thread(x):
    requests, answers = QUEUES
    requests.put(x)
    return answers.get()


@contextlib.contextmanager
def serving():
    """A thread, started before the derivative, that squares what it is sent."""
    requests, answers = QUEUES

    def serve():
        answers.put(requests.get() ** 2)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        yield
    finally:
        requests.put(0.0)  # (if the put was refused, the thread still ends)
        thread.join()
        while not answers.empty():
            answers.get()


# The table --------------------------------------------------------------------------------

ROWS = {
    # conversion dunders (contexts._conversions)
    "float-dunder": Row(lambda x: float(user_number(x)), 1.5, 3.0),
    "float-dunder-effects": Row(logged(float), 1.5, 2.0),
    # builtins with a rule, given a user object (ad._context._DUNDERS)
    "complex-dunder": Row(lambda x: complex(user_number(x)).real, 1.5, 3.0),
    "abs-dunder": Row(lambda x: abs(user_number(x)), 1.5, 3.0),
    "round-dunder": Row(lambda x: round(user_number(x)), 1.5, 3.0),
    "int-dunder-effects": Row(logged(int), 1.5, 2.0),
    "int-dunder-int-point": Row(int_at_an_int_point, 2, 0),
    "index-dunder": Row(logged(operator.index), 1.5, 2.0),
    "format-dunder": Row(logged(format), 1.5, 2.0),
    "math-float-dunder": Row(lambda x: math.sin(user_number(x)), 1.5, 3 * math.cos(4.5)),
    "math-floor-dunder": Row(logged(math.floor), 1.5, 2.0),
    "fsum-float-dunder": Row(lambda x: math.fsum([user_number(x), x]), 1.5, 4.0),
    "prod-mul-dunder": Row(lambda x: math.prod([user_number(x), 2.0]) + math.prod(
        [2.0, user_number(x)]), 1.5, 12.0),
    "dist-float-dunder": Row(lambda x: math.dist([user_number(x), 0.0], [0.0, 0.0]), 1.5, 3.0),
    "hypot-float-dunder": Row(lambda x: math.hypot(0.0, 0.0, 0.0, user_number(x)), 1.5, 3.0),
    "lt-dunder": Row(logged(lambda obj: obj < user_number(0.0)), 1.5, 2.0),
    "getattr-dunder": Row(lambda x: getattr(
        type("Lazy", (), {"__getattr__": lambda self, name: x * 2})(), "anything"), 1.5, 2.0),
    # factories and callbacks
    "defaultdict-factory": Row(defaultdict_factory, 1.5, 2.0),
    "defaultdict-augmented": Row(defaultdict_augmented, 1.5, 3.0),
    "missing-dunder": Row(missing_dunder, 1.5, 2.0),
    "cmp-to-key-calls": Row(cmp_to_key_calls, 1.5, 2.0),
    "cmp-to-key-sorts": Row(cmp_to_key_sorts, 1.5, 2.0),
    "re-sub-callback": Row(re_sub_callback, 1.5, 4.0),
    "json-object-hook": Row(json_object_hook, 1.5, 2.0),
    "json-parse-float": Row(json_parse_float, 1.5, 1.5),
    "methodcaller": Row(methodcaller_method, 1.5, 2.0),
    "attrgetter": Row(attrgetter_property, 1.5, 2.0),
    "itemgetter": Row(itemgetter_items, 1.5, 2.0),
    "operator-call": Row(operator_call, 1.5, 2.0),
    "functools-cache-closure": Row(cached_closure, 1.5, 2.0),
    "functools-cache-recursion": Row(cached_recursion, 1.5, float(fibonacci(80))),
    "weakref-callback": Row(weakref_callback, 1.5, 2.0),
    "weakref-finalize": Row(weakref_finalize, 1.5, 2.0),
    "contextlib-callback": Row(exit_stack_callback, 1.5, 2.0),
    "contextvars-run": Row(context_run, 1.5, 2.0),
    "asyncio-call-soon": Row(asyncio_call_soon, 1.5, 2.0),
    "asyncio-coroutine": Row(asyncio_coroutine, 1.5, 2.0),
    "asyncio-future": Row(asyncio_future, 1.5, 2.0),
    # bytecode calling Python dunders natively
    "await-dunder": Row(await_dunder, 1.5, 2.0),
    "async-for-dunders": Row(async_for_dunders, 1.5, 2.0),
    "async-with-dunders": Row(async_with_dunders, 1.5, 2.0),
    "coroutine-send": Row(coroutine_sent_by_hand, 1.5, 2.0),
    "sqlite-function": Row(sqlite_function, 1.5, 2.0),
    # C code comparing, formatting, indexing, measuring user objects
    "heapq-lt-dunder": Row(heapq_lt, 1.5, 2.0),
    "heapq-heapify-lt-dunder": Row(heapify_lt, 1.5, 2.0),
    "bisect-lt-dunder": Row(bisect_lt, 1.5, 2.0),
    "bisect-insort-lt-dunder": Row(insort_lt, 1.5, 2.0),
    "bisect-key": Row(bisect_key, 1.5, 4.0),
    "fstring-format-dunder": Row(fstring_format, 1.5, 2.0),
    "fstring-conversions": Row(fstring_conversions, 1.5, 6.0),
    "subscript-index-dunder": Row(subscript_index, 1.5, 2.0),
    "subscript-reads-the-slot": Row(subscript_reads_the_slot, 1.5, 2.0),
    "subscript-stores-into-the-slot": Row(subscript_stores_into_the_slot, 1.5, 2.0),
    "range-index-dunder": Row(logged(range), 1.5, 2.0),
    "slice-index-dunder": Row(slice_index, 1.5, 2.0),
    "truth-test-len-dunder": Row(logged(truth_tested), 1.5, 2.0),
    "bool-len-dunder": Row(logged(bool), 1.5, 2.0),
    "not-len-dunder": Row(logged(operator.not_), 1.5, 2.0),
    "contains-dunder": Row(contains_dunder, 1.5, 2.0),
    "class-getitem-dunder": Row(class_getitem, 1.5, 2.0),
    "del-attribute-deleter": Row(attribute_deleted, 1.5, 2.0),
    "class-pattern-property": Row(class_pattern_property, 1.5, REFUSED),
    "mro-entries-dunder": Row(mro_entries, 1.5, REFUSED),
    "init-subclass-keyword": Row(init_subclass_keyword, 1.5, REFUSED),
    "len-dunder": Row(logged(len), 1.5, 2.0),
    "hash-dunder": Row(logged(hash), 1.5, 2.0),
    "repr-dunder": Row(logged(repr), 1.5, 2.0),
    "str-dunder": Row(logged(str), 1.5, 2.0),
    "ascii-dunder": Row(logged(ascii), 1.5, 2.0),
    # copies and pickles
    "deepcopy-slots": Row(lambda x: copy.deepcopy(Slotted(x * 2)).a, 1.5, 2.0),
    "copy-slots": Row(lambda x: copy.copy(Slotted(x * 2)).a, 1.5, 2.0),
    "deepcopy-slotted-dataclass": Row(lambda x: copy.deepcopy(SlottedData(x * 2)).a, 1.5, 2.0),
    "copy-slotted-dataclass": Row(lambda x: copy.copy(SlottedData(x * 2)).a, 1.5, 2.0),
    "copy-dunders": Row(lambda x: copy.copy(SelfCopying(x)).v + copy.deepcopy(
        SelfCopying(x)).v, 1.5, 5.0),
    "reduce-ex-dunder": Row(lambda x: copy.deepcopy(Reducing(x)).v, 1.5, 2.0),
    "deepcopy-deeply-nested": Row(lambda x: innermost(copy.deepcopy(nested(x))), 1.5, 2.0),
    "pickle-deeply-nested": Row(lambda x: innermost(pickle.loads(pickle.dumps(nested(x)))),
                                1.5, REFUSED),
    "pickle-slots": Row(lambda x: pickle.loads(pickle.dumps(Slotted(x * 2))).a, 1.5, REFUSED),
    # threads, processes, queues (ad._crossings)
    "thread-target": Row(thread_target, 1.5, REFUSED),
    "thread-subclass": Row(thread_subclass, 1.5, REFUSED),
    "thread-start-new-thread": Row(lambda x: __import__("_thread").start_new_thread(
        abs, (1,)) and x, 1.5, REFUSED),
    "executor-submit": Row(executor_submit, 1.5, REFUSED),
    "running-executor-map": Row(running_executor_map, 1.5, REFUSED),
    "asyncio-run-in-executor": Row(run_in_executor, 1.5, REFUSED),
    "asyncio-to-thread": Row(asyncio_to_thread, 1.5, REFUSED),
    "multiprocessing-process": Row(process_start, 1.5, REFUSED),
    "pool-made-outside": Row(pool_made_outside, 1.5, REFUSED, a_running_pool),
    "os-fork": Row(os_fork, 1.5, REFUSED),
    "multiprocessing-queue": Row(multiprocessing_queue, 1.5, REFUSED),
    "simple-queue": Row(simple_queue, 1.5, REFUSED),
    "queue-to-a-running-thread": Row(queue_to_a_running_thread, 1.5, REFUSED, serving),
}


def check(row: Row) -> None:
    with row.around():
        checked(row)


def checked(row: Row) -> None:
    if row.expected is REFUSED:
        with pytest.raises(NonDifferentiableError) as refusal:
            D(row.f, row.point)
        message = str(refusal.value)
        assert __file__ in message  # the user's line
        for internal in ("Tagged", "_thread.", "_crossings", "contexts.", "tagging."):
            assert internal not in message
    else:
        got = D(row.f, row.point)
        assert got == pytest.approx(row.expected, rel=1e-12)
        assert type(got) is type(row.expected)


@pytest.mark.parametrize("name", ROWS)
def test_a_c_entry_point_runs_its_python_in_the_context_or_is_refused(name):
    check(ROWS[name])


# Rows whose function is not linear in x (the nested law below needs linear ones).
NONLINEAR = {"math-float-dunder", "int-dunder-int-point"}


@pytest.mark.parametrize("name", [name for name, row in ROWS.items()
                                  if row.expected is not REFUSED and name not in NONLINEAR])
def test_under_a_second_derivative(name):
    """D(D(f(x²/2))) = f'(x²/2) for a linear f: each level's tangent goes through."""
    row = ROWS[name]
    with row.around():
        got = D(D(lambda x: row.f(x * x / 2)), row.point)
    assert got == pytest.approx(row.expected, rel=1e-12)


@pytest.mark.parametrize("name", [name for name, row in ROWS.items() if row.expected is REFUSED])
def test_refused_under_a_second_derivative(name):
    row = ROWS[name]
    with row.around(), pytest.raises(NonDifferentiableError):
        D(D(row.f), row.point)


def test_the_doc_lists_every_row_and_only_them():
    doc = (pathlib.Path(__file__).parent.parent / "docs" / "callbacks.md").read_text()
    named = set(re.findall(r"`row:([a-z0-9-]+)`", doc))
    assert named == set(ROWS)
    for name in ROWS:
        line = next(line for line in doc.splitlines() if f"`row:{name}`" in line)
        assert "not yet" not in line
        assert ("refused" in line) == (ROWS[name].expected is REFUSED)
    assert "http" not in doc  # the doc points only inside the repository


def test_a_queue_within_the_thread_keeps_its_derivative():
    def f(x):
        channel = queue.Queue()
        channel.put(x * 2)
        return channel.get()

    if threading.active_count() == 1:
        assert D(f, 1.5) == 2.0
    else:  # another thread could take the item: refused
        with pytest.raises(NonDifferentiableError):
            D(f, 1.5)


def test_a_thread_started_outside_a_derivative_is_not_refused():
    results = []
    thread = threading.Thread(target=lambda: results.append(D(lambda x: x * x, 3.0)))
    thread.start()
    thread.join()
    assert results == [6.0]



# A weak reference to a type that never dies --------------------------------------------

def test_a_weak_reference_to_a_static_type_keeps_its_callback():
    """`float` is never freed, so its callback is never called: the reference keeps it as
    given, holding none of the engine's objects (see the next test)."""
    made = []

    def callback(ref):
        pass

    def f(x):
        made.append(weakref.ref(float, callback))
        return x * 3

    assert D(f, 0.7) == 3
    assert made[0].__callback__ is callback


def test_a_weak_reference_calling_back_at_interpreter_exit_runs_its_callback_natively(
        monkeypatch):
    """An object kept to the end dies while the modules are torn down, the engine's
    among them (their globals None): its callback then runs as given, not through the
    engine, which could only raise there ("Exception ignored ... 'NoneType' object has
    no attribute 'FunctionType'" at the end of a test run)."""
    import contexts._runtime

    kept, called, finalizing = [], [], []
    monkeypatch.setattr(sys, "is_finalizing", lambda: bool(finalizing))

    class Key:
        pass

    def f(x):
        key = Key()
        kept.append((key, weakref.ref(key, called.append)))
        return x * 3

    assert D(f, 0.7) == 3
    key, ref = kept[0]
    finalizing.append(True)
    monkeypatch.setattr(contexts._runtime, "types", None)  # as module teardown leaves it
    ref.__callback__(ref)
    assert called == [ref]


SINGLEDISPATCH_THEN_EXIT = """
import functools
import gc

from ad import D


@functools.singledispatch
def scale(value):
    return value * 2


@scale.register(float)
def _(value):
    return value * 3


assert D(scale, 0.7) == 3


def gc_callback(phase, info):
    pass


gc_callback.kept = scale  # what a gc callback reaches outlives the last collection
gc.callbacks.append(gc_callback)
"""


def test_the_process_exits_cleanly_after_dispatching_on_float(tmp_path):
    """`singledispatch` caches `float` in a `WeakKeyDictionary`: a weak reference to
    `float` with a callback, made in the context. CPython 3.12.1 crashed (SIGSEGV) at
    exit when that reference outlived the last collection (here, as with hypothesis's
    `gc.callbacks` entry under pytest, reached from a gc callback) and its callback
    held the engine's transformed `call_back`."""
    script = tmp_path / "singledispatch_then_exit.py"
    script.write_text(SINGLEDISPATCH_THEN_EXIT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


# Laws against the plain call ------------------------------------------------------------

class Measured:
    """Compares by `v` with numbers and with its kind; equal to anything."""

    def __init__(self, v=0.0):
        self.v = v

    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return self.v < (other.v if isinstance(other, Measured) else other)

    def __gt__(self, other):
        return self.v > (other.v if isinstance(other, Measured) else other)

    __hash__ = object.__hash__


def comparisons(x, y):
    return [x == Measured(), Measured() == x, x != Measured(), Measured(y) < x,
            x < Measured(y), x > Measured(y), Measured(x) < Measured(y), [x] == [Measured()]]


@settings(max_examples=40, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_comparing_a_number_with_a_user_object_is_the_plain_comparison(x, y):
    seen = []
    assert D(lambda v: seen.append(comparisons(v, y)) or v * 2, x) == 2.0
    assert seen == [comparisons(x, y)]


FLOAT_FUNCTIONS = [math.sin, math.exp, math.sqrt, math.log, math.atan, math.tanh, float]


@settings(max_examples=60, deadline=None)
@given(st.floats(0.1, 3.0), st.sampled_from(FLOAT_FUNCTIONS), st.floats(0.0, 4.0))
def test_a_conversion_dunder_is_the_call_it_stands_for(x, g, scale):
    def through_dunder(v):
        class Number:
            def __float__(self):
                return scale * v + 1.0

        return g(Number())

    assert D(through_dunder, x) == pytest.approx(D(lambda v: g(scale * v + 1.0), x),
                                                 rel=1e-12, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(st.floats(-3.0, 3.0), st.integers(-5, 5), st.text("ab", max_size=3))
def test_a_factory_runs_in_the_context(x, c, key):
    def f(v):
        table = collections.defaultdict(lambda: v * c)
        return table[key] + table[key]

    assert D(f, x) == 2 * c


def fstrings(x, obj):
    width, places = 8, 3
    return [f"{x:.2f}", f"{x!r}", f"{x=}", f"{x:{width}.{places}f}|", f"{obj}", f"{obj:>4}",
            f"{obj!s}", f"{obj!r}", f"{obj!a}", f"a{{b}}{obj=}", f"{'s':{width}}",
            f"{obj:{width}{places}}"]


def test_an_fstring_gives_the_text_it_gives_natively():
    """Each field is lowered to a `format` call: conversions, nested specs and `=`
    give what CPython's own formatting gives."""
    seen = []
    D(lambda x: seen.append(fstrings(x, user_number(x))) or x, 1.5)
    assert seen == [fstrings(1.5, user_number(1.5))]


# What hooks see ---------------------------------------------------------------------

def test_hooks_see_the_dunders_and_callbacks_c_would_call():
    seen = []

    class Watch(Context):
        def prehook(self, f, *args, **kwargs):
            seen.append(getattr(f, "__qualname__", ""))

    def f():
        class Number:
            def __float__(self):
                return 2.0

        def upper(match):
            return match.group().upper()

        return float(Number()), re.sub("a", upper, "ab"), math.sqrt(Number())

    assert overdub(Watch(), f) == f() == (2.0, "Ab", math.sqrt(2.0))
    assert [name for name in seen if name.endswith(("Number.__float__", "f.<locals>.upper"))] \
        == [seen[0][:-len("Number")] + "Number.__float__", seen[0][:-len("Number")] + "upper",
            seen[0][:-len("Number")] + "Number.__float__"]


EXIT_FUNCTIONS_INSIDE_A_DERIVATIVE = """
import atexit

from ad import D, NonDifferentiableError

ran = []


def f(x):
    atexit.register(lambda: print("at exit:", x * 2, ran))
    atexit._run_exitfuncs()
    return ran[-1] if ran else x


for derivative in (D(f), D(D(f))):
    try:
        derivative(1.5)
    except NonDifferentiableError as refusal:
        assert "atexit._run_exitfuncs" in str(refusal) and __file__ in str(refusal), refusal
    else:
        raise AssertionError("not refused")
    assert not ran
atexit.register(ran.append, "later")  # runs first at exit: last registered
"""


def test_exit_functions_run_inside_a_derivative_are_refused(tmp_path):
    """`atexit._run_exitfuncs()` runs the exit functions natively (from C), where a
    derivative they reach through a closure would be dropped: refused before any runs,
    at depth one and two. In a process of its own, so the suite's exit functions stay
    registered; at its exit they all run, plainly."""
    script = tmp_path / "exit_functions.py"
    script.write_text(EXIT_FUNCTIONS_INSIDE_A_DERIVATIVE)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["at exit: 3.0 ['later']"] * 2  # one f per derivative
