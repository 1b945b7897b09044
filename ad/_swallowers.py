"""Code that swallows exceptions: a refusal raised in it is raised on.

An event loop runs each callback through `Handle._run`, which hands any exception
to the loop's exception handler (by default, a log line) and goes on: a refusal
raised in a callback (`loop.call_soon(lambda: fut.set_result(struct.pack(...)))`)
would be logged, the future it was to fill would never be, and `D` would wait for
it forever. In a derivative, the handler given this derivative's refusal raises
it instead, out of the loop and so out of `D`.
"""

from __future__ import annotations

import asyncio.base_events
from typing import Any, Callable

from contexts import recurse

SWALLOWERS = dict.fromkeys([asyncio.base_events.BaseEventLoop.call_exception_handler])


def swallower(ctx: Any, f: Callable) -> Callable:
    """What runs for the loop's `call_exception_handler` in the differentiation `ctx`."""
    def call_exception_handler(loop: Any, context: dict) -> Any:
        refusal = ctx.refused
        if refusal is not None and context.get("exception") is refusal:
            raise refusal
        return recurse(ctx, f, loop, context)

    return call_exception_handler
