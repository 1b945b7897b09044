"""The contextual entry points: `overdub`, `recurse`, `fallback`, `canrecurse`, `lowered`.

These are ordinary Python functions, so a context that runs them (a context
entered while another runs) sees them and runs the inner context's hooks and
rules under its own; the engine's internals they call run natively (declared
below with `nativecalls`, or marked `nooverdub` where the callee is a value).
"""

from __future__ import annotations

import ast
import functools
import types
from typing import Any, Callable

from contexts import _running as running
from contexts._canonical import split
from contexts._context import Context
from contexts._marks import enclosed, nativecalls, nooverdub
from contexts._precompile import precompile
from contexts._names import is_literal
from contexts._pipeline import transformed_tree
from contexts._runtime import runtime_of
from contexts._source import NoSource
from contexts._tracebacks import strip_engine_frames

nativecalls(__name__, "_check", "strip_engine_frames", "_recursed", "running")


def overdub(ctx: Context, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """Run `f(*args, **kwargs)` in `ctx`: every call made inside passes through it."""
    _check(ctx, f, "overdub")
    running.enter(ctx)
    try:
        return ctx.overdub(f, *args, **kwargs)
    except BaseException as error:
        strip_engine_frames(error)  # the traceback names the user's lines
        raise
    finally:
        running.leave()
        if ctx.tag is not None:
            nooverdub(ctx.tag.finish_run)(ctx)


def _overdub_enclosed(outer: Callable) -> Callable:
    """`overdub` as a context without hooks or passes enclosing `ctx` runs it (see
    `enclosed`): the checks and the run's bookkeeping natively, and the one call
    it must see, of what `ctx` runs first for `f` (`_first_call`), as `outer`
    resolves that. Run transformed instead, the entry and exit of every inner run
    (its argument displays, its method lookups) would cost the enclosing context
    hundreds of operations, and more at each level of nesting. And so on for a
    context enclosing that one."""
    def overdub_enclosed(ctx: Context, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
        _check(ctx, f, "overdub")
        running.enter(ctx)
        try:
            return outer(_first_call(ctx, f))(*args, **kwargs)
        except BaseException as error:
            strip_engine_frames(error)
            raise
        finally:
            running.leave()
            if ctx.tag is not None:
                ctx.tag.finish_run(ctx)

    return enclosed(overdub_enclosed,
                    lambda further: _overdub_enclosed(lambda g: further(outer(g))))


def _first_call(ctx: Context, f: Callable) -> Callable:
    """What `overdub(ctx, f, ...)` calls first: the context's own `overdub` hook
    given `f`, else what its default runs for `f` (`run_default`)."""
    if type(ctx).overdub is not Context.overdub:
        return functools.partial(ctx.overdub, f)
    runtime = runtime_of(ctx)
    return f if runtime.empty else runtime.dispatch(f)


enclosed(overdub, _overdub_enclosed)


def recurse(ctx: Context, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """Run the transformed body of `f` in `ctx`, whatever `ctx.overdub` would do."""
    _check(ctx, f, "recurse")
    return _recursed(ctx, f)(*args, **kwargs)


def fallback(ctx: Context, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """Run `f` as a call the context does not look into (`ctx.fallback`)."""
    _check(ctx, f, "fallback")
    return ctx.fallback(f, *args, **kwargs)


def canrecurse(ctx: Context, f: Callable, /, *args: Any, **kwargs: Any) -> bool:
    """Whether the engine can run the body of `f` in `ctx` (see `canrecurse.why`)."""
    _check(ctx, f, "canrecurse")
    return runtime_of(ctx).body(split(f)[0]) is not None


def _why(ctx: Context, f: Callable) -> str | None:
    """Why `canrecurse(ctx, f)` is False, or None when it is True."""
    if canrecurse(ctx, f):
        return None
    key = split(f)[0]
    runtime = runtime_of(ctx)
    if type(key) is types.FunctionType:
        return runtime.reasons.get(key, "no source and no model")
    return (f"{getattr(key, '__qualname__', key)!s} is implemented in C and has no "
            "Python model; it runs as a foreign call (fallback)")


canrecurse.why = _why


def _recursed(ctx: Context, f: Callable) -> Callable:
    runtime = runtime_of(ctx)
    if runtime.empty:
        return f
    return runtime.resolve(f, primitives=False)


def _check(ctx: Any, f: Any, caller: str) -> None:
    if not isinstance(ctx, Context):
        raise TypeError(f"{caller}() needs a Context first, got {type(ctx).__name__} "
                        f"{ctx!r}; make one with a Context subclass or context('Name')")
    if not callable(f):
        raise TypeError(f"{caller}() needs a callable to run, got {type(f).__name__} "
                        f"{f!r}")


def lowered(ctx: Context, f: Callable) -> str:
    """The source of `f` as the engine runs it in `ctx` (`@code_lowered overdub`)."""
    _check(ctx, f, "lowered")
    key = split(f)[0]
    if type(key) is not types.FunctionType:
        raise TypeError(f"lowered() needs a Python function; {key!r} has no Python body "
                        f"({_why(ctx, f)})")
    try:
        tree, cells = transformed_tree(key, runtime_of(ctx).mode)
    except NoSource as why:
        raise TypeError(f"lowered(): {why}") from None
    return ast.unparse(_Readable(cells).visit(tree))


class _Readable(ast.NodeTransformer):
    """Show objects held in constants or cells by their dotted names."""

    def __init__(self, cells: dict) -> None:
        self.cells = cells

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return node if is_literal(node.value) else self.named(node.value, node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        cell = self.cells.get(node.id)
        return node if cell is None else self.named(cell.cell_contents, node)

    @staticmethod
    def named(value: Any, where: ast.AST) -> ast.Name:
        module = getattr(value, "__module__", None) or getattr(
            type(value), "__module__", "")
        label = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        text = f"{module}.{label}" if module and label else repr(value)
        if module == "_operator":
            text = f"operator.{label}"
        elif module == "builtins" and label:
            text = label
        return ast.copy_location(ast.Name(id=text, ctx=ast.Load()), where)


# Run directly, these pay no call for their native markers; an outer
# context still reads the marked source.
precompile([overdub, recurse, fallback])
