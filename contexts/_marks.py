"""Markers a pass (or any code) can write into a function body.

`nooverdub(f)(args)` calls `f` natively, outside the context; at run time
`nooverdub(f)` is `f`. `natively_here(f)(args)` calls it natively in the context
running the code, and as a call of its own in a context running that one.
`contextslot()` is the running context. Given AST nodes instead of values, both
build the marker nodes, for pass authors.

Engine modules (a layer's primitives, the models) make many native calls of
their own helpers; such a module declares once, with `nativecalls(__name__,
"heap", ...)`, the global names whose calls (`heap.own(x)`, `rawest(x)`) run
natively, as if each were marked `nooverdub`. Importing `builtins` under a
declared name (`import builtins as native`) makes `native.len(x)` a native
call of a builtin where plain `len(x)` stays a call in the context.

The engine's models of builtins live in modules declared with
`quietmodule(__name__)`: hooks see the user's call of the builtin and what
the builtin calls back, not the model's own bookkeeping. In such a module a
call (or operator) runs in the context, as an unhooked call does (primitives,
a layer's, transformed bodies), and hooks see it only when marked `seen(...)`.

A fast path (a helper with a hook's body pasted in, a layer's heap shortcut)
is marked `shortcut(fast, general)`: a context running code that calls `fast`
runs `general`, the steps `fast` stands for, and so sees them.
"""

from __future__ import annotations

import ast
import sys
import types
from typing import Any


def nooverdub(f: Any) -> Any:
    """Mark a callee to be called natively; with an `ast.expr`, build that marker."""
    if isinstance(f, ast.expr):
        marker = ast.Call(func=ast.Name(id="nooverdub", ctx=ast.Load()), args=[f], keywords=[])
        return ast.copy_location(marker, f)
    return f


def natively_here(f: Any) -> Any:
    """Mark a callee to be called natively by the context running this code, and as
    its own call by a context running that context's code (an engine model's call
    of a C method on values that only the enclosing context knows more of); at
    run time `f`."""
    return f


_native_names: dict = {}


def nativecalls(name: str, *callees: str) -> None:
    """Declare that in module `name` a call of one of the global names `callees`,
    or of an attribute reached from one, runs natively (as `nooverdub` marks it)."""
    _native_names[sys.modules[name].__file__] = frozenset(callees)


def native_callees(code: types.CodeType) -> frozenset:
    """The names whose calls run natively in `code`'s module (see `nativecalls`)."""
    return _native_names.get(code.co_filename, frozenset())


def seen(call: Any) -> Any:
    """Mark, in a quiet module, the call or operator that `call` ends with as one
    hooks see (a callback, an operator on the user's values); at run time the value."""
    return call


_quiet_files: set = set()


def quietmodule(name: str) -> None:
    """Declare module `name` engine machinery that hooks see only where marked `seen`."""
    _quiet_files.add(sys.modules[name].__file__)


def is_quiet(code: types.CodeType) -> bool:
    """Whether `code` is a quiet module's (one of the engine's models)."""
    return code.co_filename in _quiet_files


SLOW = "__ovd_slow__"  # where `shortcut` records the general function


def shortcut(fast: Any, general: Any) -> Any:
    """Mark the function `fast` a shortcut of `general` (same results, fewer steps):
    a context running the code that calls `fast` runs `general` instead, so what
    it sees of the call is the general steps. Returns `fast`."""
    setattr(fast, SLOW, general)
    return fast


ENCLOSED = "__ovd_enclosed__"  # where `enclosed` records how an enclosing context runs a function


def enclosed(fast: Any, build: Any) -> Any:
    """Mark the function `fast` with `build(dispatch)`, the function an enclosing
    context without hooks or passes runs in its place, natively: `dispatch` is that
    context's resolution of a callee (what runs for it there), through which the
    built function makes the calls the enclosing context must see. A nested
    derivative's rule is one: its bookkeeping (which argument carries its own tag)
    is nothing to the enclosing one, which must see only the arithmetic; run
    transformed, the bookkeeping would cost dozens of calls per operation. A
    context with hooks or passes runs `fast` transformed, as any function.
    Returns `fast`."""
    setattr(fast, ENCLOSED, build)
    return fast


def dispatched(dispatch: Any, general: Any) -> Any:
    """`general` as the context whose resolution is `dispatch` runs it, resolved at
    each call (an enclosed function's rare case, so never resolved when unused)."""
    return lambda *args, **kwargs: dispatch(general)(*args, **kwargs)


def slotlike(f: Any) -> Any:
    """Mark a dunder written in Python to be run as a C slot would be: natively,
    unseen by hooks, by the operators a context runs (a wrapper type's dunders)."""
    f.__ovd_slotlike__ = True
    return f


def contextslot() -> ast.expr:
    """The running context, in a transformed body; an AST node for pass authors."""
    return ast.Call(func=ast.Name(id="contextslot", ctx=ast.Load()), args=[], keywords=[])
