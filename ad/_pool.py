"""Differentiation contexts kept for reuse, a few per thread.

A fresh context per derivative resolves every callee and binds every transformed
function again: most of what a small `D` costs, and of each inner derivative of a
nested one. So a context goes back to its thread's pool when its derivative ends,
if it is idle (no generator or coroutine its code made can run again), and the
next derivative on the thread takes it with a fresh tag: what it resolved is
kept, and no value of an earlier run can pass for one of this run. A derivative
taken inside another takes another context (the enclosing one is in use).
"""

from __future__ import annotations

import threading
from typing import Callable

from contexts.layer import idle, kept
from tagging import enabletagging
from tagging.layer import retag

from ad._context import Differentiation

_KEPT = 8  # contexts a thread keeps: as many derivatives as it nests at once, about
_RESOLVED = 4096  # callees a kept context may keep resolved (functions made afresh add up)


class _Pool(threading.local):
    def __init__(self) -> None:
        self.free: list = []


_pool = _Pool()


def take(f: Callable) -> Differentiation:
    """A differentiation context with a fresh tag, to run `f` in."""
    free = _pool.free
    if not free:
        return enabletagging(Differentiation(), f)
    ctx = free.pop()
    retag(ctx)
    ctx.begin()
    return ctx


def give_back(ctx: Differentiation) -> None:
    """`ctx`, whose derivative has ended, kept for the next one if it is idle and
    what it keeps resolved stays bounded (else it goes, and a fresh one is made)."""
    ctx.end()
    free = _pool.free
    if len(free) < _KEPT and idle(ctx) and kept(ctx) < _RESOLVED:
        free.append(ctx)
