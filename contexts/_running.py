"""The contexts running on each thread, outermost first.

An `overdub` entered while another runs is run under it, so on one thread the
running contexts form a chain. Code run by C on a context's behalf (a callback
it was handed) is called natively, from no context's frame; to run there as
the rest of the code does, it must be run by each context of the chain, the
outer ones running the inner ones' code (`_model_support.bound_to`).
"""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


def enter(ctx: Any) -> None:
    chain = getattr(_local, "chain", None)
    if chain is None:
        chain = _local.chain = []
    chain.append(ctx)


def leave() -> None:
    _local.chain.pop()


def enclosing(ctx: Any) -> list:
    """`ctx` and the contexts running it, innermost first (`[ctx]` if it is not running)."""
    chain = getattr(_local, "chain", None) or []
    for position in range(len(chain) - 1, -1, -1):
        if chain[position] is ctx:
            return chain[position::-1]
    return [ctx]


def is_running(ctx: Any) -> bool:
    """Whether an `overdub` of `ctx` is running on this thread (code it made, such as
    a generator, may run again after it ended)."""
    return any(running is ctx for running in getattr(_local, "chain", None) or ())
