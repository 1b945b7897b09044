"""Cell linking: the values a context's transformed code finds in its cells.

Transformed code names its machinery by hidden names, free variables bound
from cells when the code is bound to a context (`closure`). Here is the
engine's table of them (`ENGINE_CELLS`, see `_cell_table`): the dispatch
table, the call helpers with the hooks (pasted in where they allow it), the
helpers of implicit calls and of hooked operator sites, each built for a
runtime when code naming it is first bound there.
"""

from __future__ import annotations

import inspect
import types
import weakref
from typing import Any, Callable

from contexts import _implicit_runtime as implicit
from contexts import _models
from contexts._cell_table import Cell, Cells

MAX_ARITY = 4  # call sites with more positional arguments (or any keyword) use `callx`
HELPER_NAMES = [f"call{n}" for n in range(MAX_ARITY + 1)] + ["callx"]


def _caller(runtime: Any, arity: int | None) -> Callable:
    """What calls `f` with `arity` arguments (None: `(f, args, kwargs)`) for an
    implicit call: the hooked helper where hooks run, else `dispatch(f)(...)`."""
    if runtime.mode.hooked:
        return runtime.value("callx" if arity is None else f"call{arity}")
    dispatch = runtime.dispatch
    return {1: lambda f, a, /: dispatch(f)(a),
            2: lambda f, a, b, /: dispatch(f)(a, b),
            3: lambda f, a, b, c, /: dispatch(f)(a, b, c),
            None: lambda f, args, kwargs, /: dispatch(f)(*args, **kwargs)}[arity]


def engine_cell(hidden: Any, stem: str) -> str:
    """The hidden name (made by `hidden`, a pass's `Hidden`) of the engine's cell
    `stem`, which must be declared in `ENGINE_CELLS`: what the engine's passes write."""
    return hidden(ENGINE_CELLS.declared(stem))


def _driven_by(runtime: Any, model: Callable) -> Callable:
    """`model(iterator)` run as the context runs it (a generator's drive, delegation)."""
    dispatch = runtime.dispatch
    return lambda iterator: dispatch(model)(iterator)


def _call_helper(index: int) -> Callable:
    """The build of the call helper `HELPER_NAMES[index]` (`_hooked_cells`)."""
    return lambda runtime: runtime.hooked_helpers()[0][index]


# The engine's hidden cells: what `_calls`, `_implicit_rewrite` and `_operator_sites`
# write, and what fills them. (A layer's table comes first: it may declare `iter`.)
ENGINE_CELLS = Cells(
    Cell("res", lambda runtime: runtime.dispatch, "every call site: what runs for a callee"),
    Cell("table", lambda runtime: runtime.resolved, "a call site's lookup, inlined"),
    Cell("ctx", lambda runtime: runtime.ctx, "contextslot()"),
    Cell("visible", lambda runtime: _visible, "locals(), vars(), dir()"),
    Cell("made", lambda runtime: runtime.make, "generator expressions made (idle)"),
    *[Cell(helper, _call_helper(index), "prehook, posthook, overdub: a hooked call site")
      for index, helper in enumerate(HELPER_NAMES)],
    Cell("op_", lambda runtime, stem: runtime.hooked_helpers()[1](stem),
         "prehook, posthook, overdub: a hooked operator site"),
    Cell("opt_", lambda runtime, stem: runtime.hooked_helpers()[1](stem),
         "prehook, posthook, overdub: a hooked operator site, its truth tested"),
    Cell("iter", lambda runtime: implicit.make_iterate(
        _caller(runtime, 1), _driven_by(runtime, _models.drive)), "protocols: iteration"),
    Cell("quiet_iter", lambda runtime: implicit.make_iterate(  # a model's loops: unhooked
        lambda f, a, /: runtime.dispatch(f)(a), _driven_by(runtime, _models.drive)),
        "protocols: a model's iteration"),
    Cell("yfrom", lambda runtime: implicit.make_yield_from(
        _caller(runtime, 1), _driven_by(runtime, _models.delegate)), "protocols: yield from"),
    Cell("attr", lambda runtime: implicit.make_attribute(_caller(runtime, 1)),
         "protocols: a property's getter"),
    Cell("setattr", lambda runtime: implicit.make_setattribute(
        _caller(runtime, 2), _caller(runtime, 3)), "protocols: a property's setter"),
    Cell("delattr", lambda runtime: implicit.make_delattribute(
        _caller(runtime, 1), _caller(runtime, 2)), "protocols: a property's deleter"),
    Cell("with", lambda runtime: implicit.make_with(_caller(runtime, None)),
         "protocols: __enter__ and __exit__"),
    Cell("async_with", lambda runtime: implicit.make_async_with(_caller(runtime, None)),
         "protocols: __aenter__ and __aexit__"),
    Cell("async_iter", lambda runtime: implicit.make_async_iterate(_caller(runtime, None)),
         "protocols: __aiter__ and __anext__"),
    Cell("framed", lambda runtime: _framed(_caller(runtime, None)),
         "a call of an attribute named `stack`: inspect.stack's frame"),
    Cell("truth", lambda runtime: implicit.make_truth(_caller(runtime, 1)),
         "truth tests: a Python __bool__ or __len__"),
)


_OWN, _CONSTANT, _CELL_OF, _RUNTIME = range(4)
# a transform (`_pipeline`) -> where each free variable of its code comes from
_recipes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def closure(runtime: Any, transform: Any, f: types.FunctionType) -> tuple:
    """The cells the code `transform` made of `f` is bound with in `runtime`: `f`'s
    own, the hoisted constants', a cell holding one of `f`'s cells (`cellof_x`, for
    a layer's pass), and the runtime's. Where each comes from is worked out once
    per transform."""
    recipe = _recipes.get(transform)
    if recipe is None:
        recipe = _recipes[transform] = _recipe(transform.code, f.__code__,
                                               transform.constants)
    own = f.__closure__
    cells = []
    for kind, where in recipe:
        if kind is _OWN:
            cells.append(own[where])
        elif kind is _CONSTANT:
            cells.append(where)
        elif kind is _RUNTIME:
            cells.append(runtime.cell(where))
        else:  # _CELL_OF
            cells.append(types.CellType(own[where]))
    return tuple(cells)


def _recipe(code: types.CodeType, original: types.CodeType, constants: dict) -> tuple:
    own = original.co_freevars
    recipe = []
    for name in code.co_freevars:
        if name in own:
            recipe.append((_OWN, own.index(name)))
        elif name in constants:
            recipe.append((_CONSTANT, constants[name]))
        elif "_cellof_" in name:
            recipe.append((_CELL_OF, own.index(name[name.index("_cellof_") + 8:-2])))
        else:
            recipe.append((_RUNTIME, name))
    return tuple(recipe)


def _framed(callx: Callable) -> Callable:
    """What a call `x.stack(...)` calls: `inspect.stack` itself, which needs its caller's
    frame, natively; anything else (`np.stack`) as any call runs in the context."""
    def framed(f: Callable) -> Callable:
        if f is inspect.stack:
            return f
        return lambda *args, **kwargs: callx(f, args, kwargs)

    return framed


def _visible(names: Any) -> Any:
    """`locals()`, `vars()`, `dir()` without the engine's hidden names."""
    if isinstance(names, dict):
        return {k: v for k, v in names.items() if not k.startswith("__ovd")}
    return [k for k in names if not k.startswith("__ovd")]
