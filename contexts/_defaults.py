"""The default `overdub` and `fallback` of a context.

`Context.overdub` runs a primitive if one is registered, else the transformed
body, else `fallback`; `Context.fallback` calls the function, through the
context's layer if it carries one. Written with markers, so a context running
another sees only the calls the defaults make for the user.
"""

from __future__ import annotations

from typing import Any, Callable

from contexts._marks import nativecalls, nooverdub
from contexts._precompile import precompile
from contexts._runtime import runtime_of

nativecalls(__name__, "runtime_of")


def run_default(ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
    """The default `overdub`: a primitive, else the transformed body, else `fallback`."""
    runtime = runtime_of(ctx)
    if runtime.empty:
        return f(*args, **kwargs)
    return nooverdub(runtime.dispatch)(f)(*args, **kwargs)


def call_foreign(ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
    """The default `fallback`: call `f`, through the context's layer if it has one."""
    if ctx.tag is not None:
        return ctx.tag.call_foreign(ctx, f, args, kwargs)  # its call of `f` is seen
    return f(*args, **kwargs)


# Run directly, these pay no call for their native markers; an outer
# context still reads the marked source.
precompile([run_default, call_foreign])
