"""Ways a value could leave the thread of a derivative: refused while one is taken.

The shadow store of a derivative belongs to the thread that runs `f`: code run by
another thread or process (a `threading.Thread`, an executor, a `multiprocessing`
pool) would run outside the context, on plain values, and what it computes would
come back without its derivative. So starting one inside `D` is refused with
`NonDifferentiableError`, whatever it is given (what it runs may reach the tangent
through a closure); so is handing a value carrying a derivative to a queue that
another thread or process may read. Everything else in those modules (locks,
events, a queue used within the one thread) runs in the context as usual.

Exit functions leave the derivative the same way: `atexit` calls them from C,
natively, at interpreter exit (when no derivative runs, so nothing is lost), or
when `atexit._run_exitfuncs()` is called, which inside `D` is refused before any
of them runs.
"""

from __future__ import annotations

import _thread
import atexit
import concurrent.futures
import multiprocessing.process
import multiprocessing.queues
import os
import queue
import threading
from typing import Any, Callable

from contexts import recurse
from contexts.layer import enclosed
from tagging.layer import carries_metadata

from ad._errors import NonDifferentiableError, call_site, describe

_STARTS = [getattr(_thread, name) for name in ("start_new_thread", "start_joinable_thread")
           if hasattr(_thread, name)]
_STARTS += [concurrent.futures.ThreadPoolExecutor.submit,
            concurrent.futures.ProcessPoolExecutor.submit,
            multiprocessing.process.BaseProcess.start]
_STARTS += [getattr(os, name) for name in ("fork", "forkpty") if hasattr(os, name)]

# A C queue made to pass work between threads (a `multiprocessing.Pool`'s tasks
# go through one, whatever they reach through closures): refused whatever it is given.
_HAND_OFFS = [queue.SimpleQueue.put, queue.SimpleQueue.put_nowait]
# Queues another thread may read (a `queue.Queue` only when another thread runs),
# and queues that always hand their items to another process.
_THREAD_QUEUES = [queue.Queue.put]
_PROCESS_QUEUES = [multiprocessing.queues.Queue.put]

# C that runs the registered exit functions natively, whatever they reach.
_EXITS = [atexit._run_exitfuncs]

CROSSINGS = dict.fromkeys([*_STARTS, *_HAND_OFFS, *_THREAD_QUEUES, *_PROCESS_QUEUES,
                           *_EXITS])

_THREAD = ("it runs code in another thread or process, outside this derivative: what "
           "that code computes from a value carrying a derivative (an argument, a "
           "closure's variable) would come back without it. Take the derivative inside "
           "the function the thread runs, or run the step in this thread")
_HAND_OFF = ("it hands work to another thread or process (an executor's or a pool's "
             "queue), which runs outside this derivative: what it computes would come "
             "back without the derivative. Run the step in this thread")
_EXIT = ("it runs the registered exit functions natively, outside this derivative: what "
         "they compute from a value carrying a derivative (a closure's variable) would "
         "be computed without it. Call the exit step as a function of your own inside "
         "`f`, or leave the exit functions to interpreter exit")
_QUEUE = ("it hands a value carrying a derivative to a queue that another thread or "
          "process may read, where the derivative is lost. Pass the plain value (a "
          "derivative taken on the other side), or keep the step in this thread")


def crossing(ctx: Any, f: Callable) -> Callable:
    """What runs for `f`, a way out of the thread, in the differentiation `ctx`."""
    if f in _STARTS or f in _HAND_OFFS or f in _EXITS:
        why = _THREAD if f in _STARTS else _HAND_OFF if f in _HAND_OFFS else _EXIT

        def start(*args: Any, **kwargs: Any) -> Any:
            raise refused(f, why)

        return start
    shared = f in _THREAD_QUEUES

    def put(queue: Any, item: Any, *args: Any, **kwargs: Any) -> Any:
        if carries_metadata(item, ctx) and (not shared or threading.active_count() > 1):
            raise refused(f, _QUEUE)
        return recurse(ctx, f, queue, item, *args, **kwargs)

    def put_inside(general: Callable, put_there: Callable) -> Callable:
        """`put` as a derivative enclosing this one runs it: an item carrying nothing
        of this derivative is put by the enclosing one's own `put` (which refuses it
        if it carries that one's derivative), and so on outwards; any other by `put`,
        which the enclosing derivative runs."""
        def put_enclosed(queue: Any, item: Any, *args: Any, **kwargs: Any) -> Any:
            if carries_metadata(item, ctx):
                return general(queue, item, *args, **kwargs)
            return put_there(queue, item, *args, **kwargs)

        return enclosed(put_enclosed, lambda outer: put_inside(
            lambda *args, **kwargs: outer(general)(*args, **kwargs), outer(put_there)))

    def put_here(*args: Any, **kwargs: Any) -> Any:
        return put(*args, **kwargs)

    return enclosed(put_here, lambda dispatch: put_inside(
        lambda *args, **kwargs: dispatch(put)(*args, **kwargs), dispatch(f)))


# What the user called, for the functions `threading` and `os` call for them.
_SHOWN = {start: "threading.Thread.start" for start in _STARTS if start.__module__ == "_thread"}


def refused(f: Callable, why: str) -> NonDifferentiableError:
    return NonDifferentiableError(f"cannot differentiate through {_SHOWN.get(f) or describe(f)} "
                                  f"(called at {call_site()}): {why}")
