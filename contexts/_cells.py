"""Cell linking: the values a context's transformed code finds in its cells.

Transformed code names its machinery by hidden names, free variables bound
from cells when the code is bound to a context (`closure`). Here are their
values for one runtime: the dispatch table, the call helpers with the hooks
(pasted in where they allow it), the helpers of implicit calls, the helpers
of hooked operator sites (made on first use), and the cells of its layer.
"""

from __future__ import annotations

import inspect
import operator
import types
import weakref
from typing import Any, Callable

from contexts import _implicit_runtime as implicit
from contexts import _models
from contexts._canonical import NOSELF, split
from contexts._helpers import HELPER_NAMES, helper_factory, operator_helper_factory
from contexts._inline import inline_hook
from contexts._marks import nativecalls, nooverdub, shortcut
from contexts._operator_sites import NATIVE_OPERANDS
from contexts._operators import OPERATOR_FUNCTIONS
from contexts._tracebacks import PASTED

nativecalls(__name__, "split")


def cell_values(runtime: Any) -> tuple[dict, Callable]:
    """The values of a runtime's cells by name, and the maker of operator helpers."""
    pre = runtime.ctx.prehook if "prehook" in runtime.profile.hooks else None
    post = runtime.ctx.posthook if "posthook" in runtime.profile.hooks else None
    ovd = runtime.ctx.overdub if "overdub" in runtime.profile.hooks else None
    if ovd is not None and (runtime.profile.primitives or runtime.layer is not None):
        ovd = _primitives_first(runtime, ovd)
    values = {"res": runtime.dispatch, "table": runtime.resolved, "ctx": runtime.ctx,
              "visible": _visible, "made": runtime.make}
    operator_helpers = None
    if runtime.mode.hooked:
        helpers, operator_helpers = _helpers(runtime, pre, post, ovd, values)
        values.update(zip(HELPER_NAMES, helpers))
    dispatch = runtime.dispatch
    call1 = values.get("call1") or (lambda f, a, /: dispatch(f)(a))
    call2 = values.get("call2") or (lambda f, a, b, /: dispatch(f)(a, b))
    call3 = values.get("call3") or (lambda f, a, b, c, /: dispatch(f)(a, b, c))
    callx = values.get("callx") or (lambda f, args, kwargs, /: dispatch(f)(*args, **kwargs))
    values["iter"] = implicit.make_iterate(
        call1, lambda iterator: dispatch(_models.drive)(iterator))
    values["quiet_iter"] = implicit.make_iterate(  # a model's loops: `iter` unhooked
        lambda f, a, /: dispatch(f)(a), lambda iterator: dispatch(_models.drive)(iterator))
    values["yfrom"] = implicit.make_yield_from(
        call1, lambda iterator: dispatch(_models.delegate)(iterator))
    values["framed"] = _framed(callx)
    values["attr"] = implicit.make_attribute(call1)
    values["setattr"] = implicit.make_setattribute(call2, call3)
    values["with"] = implicit.make_with(callx)
    values["truth"] = implicit.make_truth(call1)
    if runtime.layer is not None:
        values.update(runtime.layer.cells(runtime))
    return values, operator_helpers


def _helpers(runtime: Any, pre: Callable | None, post: Callable | None,
             ovd: Callable | None, values: dict) -> tuple:
    """The call helpers, with the hooks' bodies pasted in where they allow it, and
    the maker of the operator sites' helpers.

    Helpers with pasted hooks are `shortcut`s of the plain ones: an
    outer context runs those, and sees the hook calls.
    """
    claimed = _claimed_operators(runtime)
    flags = (pre is not None, post is not None, ovd is not None)
    arguments = (pre, post, runtime.dispatch, ovd, runtime.resolved, runtime._miss,
                 NATIVE_OPERANDS if claimed is not None else frozenset(),
                 runtime.ctx, type, TypeError)
    pasted_pre = pre and inline_hook(pre, runtime.ctx, ("f",))
    pasted_post = post and inline_hook(post, runtime.ctx, ("out", "f"))
    if pasted_pre and pasted_post and pasted_pre.globals is not pasted_post.globals:
        pasted_post = None  # the helpers can only have one module's globals
    operator_helpers = _OperatorHelpers(flags, arguments, claimed,
                                        (pasted_pre, pasted_post), values)
    helpers = helper_factory(*flags)(*arguments)
    if not (pasted_pre or pasted_post):
        return helpers, operator_helpers
    fast = helper_factory(*flags, pasted_pre, pasted_post)(*arguments)
    for slow, helper in zip(helpers, fast):
        shortcut(helper, slow)
    helpers = tuple(helper if helper.__code__ in PASTED else slow
                    for slow, helper in zip(helpers, fast))
    return helpers, operator_helpers


def _claimed_operators(runtime: Any) -> frozenset | None:
    """Operators that must not run natively on builtin operands (None: none may)."""
    if "fallback" in runtime.profile.hooks:
        return None
    return frozenset(f for f in runtime.profile.primitives if f in OPERATOR_FUNCTIONS)


def _primitives_first(runtime: Any, overdub: Callable) -> Callable:
    """The overridden `overdub`, except for the callees that have a primitive.

    A primitive is the more specific method, as Cassette's
    `overdub(ctx::Ctx, ::typeof(f), args...)` is beside `overdub(ctx::Ctx, f, args...)`;
    so are the built-in primitives of the context's layer.
    """
    def primitives_first(f, /, *args, **kwargs):
        key, bound = split(f)
        method = nooverdub(runtime.primitive_for)(f, key)
        layer = runtime.layer
        if method is None and layer is not None:
            method = nooverdub(layer.builtin)(runtime.ctx, key, f)
        if method is None:
            return overdub(f, *args, **kwargs)
        if bound is not NOSELF:
            return method(bound, *args, **kwargs)
        return method(*args, **kwargs)

    return primitives_first


class _OperatorHelpers:
    """Makes the helper of one hooked operator site shape (`op_lt_vk`), on first use.

    The helper knows its operator, and which operands are builtin constants
    at the site, so it tests only the others before running the operator
    natively. It is a `shortcut` of the general helper, for outer contexts.
    """

    def __init__(self, flags: tuple, arguments: tuple, claimed: frozenset | None,
                 pasted: tuple, values: dict) -> None:
        self.flags = flags
        self.arguments = arguments
        self.claimed = claimed
        self.pasted = pasted
        self.values = values  # the cell values, the truth test among them

    def __call__(self, what: str) -> Callable:
        kind, _, rest = what.partition("_")
        stem, operands = rest.rsplit("_", 1)
        function = getattr(operator, stem, None)
        if kind not in ("op", "opt") or function not in OPERATOR_FUNCTIONS:
            raise KeyError(what)
        native = self.claimed is not None and function not in self.claimed
        shape = (*self.flags, function, operands, kind == "opt", native)
        arguments = (*self.arguments, function, self.values["truth"])
        slow, = operator_helper_factory(*shape, False)(*arguments)
        fast, = operator_helper_factory(*shape, True, *self.pasted)(*arguments)
        shortcut(fast, slow)
        return fast


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
