"""The helpers of a hooked context's call and operator sites, for one runtime.

The call helpers (`call0` ... `callx`, see `_helpers`) with the context's hooks,
their bodies pasted in where they allow it, and the maker of the operator
sites' helpers (`op_lt_vk`), made once per runtime the first time code bound
there names one of them (their cells are declared in `_cells`).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from contexts._canonical import NOSELF, split
from contexts._helpers import helper_factory, operator_helper_factory
from contexts._inline import inline_hook
from contexts._marks import nativecalls, nooverdub, shortcut
from contexts._operator_sites import NATIVE_OPERANDS
from contexts._operators import OPERATOR_FUNCTIONS
from contexts._tracebacks import PASTED

nativecalls(__name__, "split")


def hooked_helpers(runtime: Any) -> tuple:
    """`(call helpers, in `HELPER_NAMES` order, maker of operator helpers)`."""
    return _helpers(runtime, *_hooks(runtime))


def _hooks(runtime: Any) -> tuple:
    """The context's `prehook`, `posthook` and `overdub` where its type overrides them
    (the overridden `overdub` after the primitives), None where it does not."""
    pre = runtime.ctx.prehook if "prehook" in runtime.profile.hooks else None
    post = runtime.ctx.posthook if "posthook" in runtime.profile.hooks else None
    ovd = runtime.ctx.overdub if "overdub" in runtime.profile.hooks else None
    if ovd is not None and (runtime.profile.primitives or runtime.layer is not None):
        ovd = _primitives_first(runtime, ovd)
    return pre, post, ovd


def _helpers(runtime: Any, pre: Callable | None, post: Callable | None,
             ovd: Callable | None) -> tuple:
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
                                        (pasted_pre, pasted_post), runtime)
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
                 pasted: tuple, runtime: Any) -> None:
        self.flags = flags
        self.arguments = arguments
        self.claimed = claimed
        self.pasted = pasted
        self.runtime = runtime  # whose truth test a tested site's helper calls

    def __call__(self, what: str) -> Callable:
        kind, _, rest = what.partition("_")
        stem, operands = rest.rsplit("_", 1)
        function = getattr(operator, stem, None)
        if kind not in ("op", "opt") or function not in OPERATOR_FUNCTIONS:
            raise KeyError(what)
        native = self.claimed is not None and function not in self.claimed
        shape = (*self.flags, function, operands, kind == "opt", native)
        arguments = (*self.arguments, function, self.runtime.value("truth"))
        slow, = operator_helper_factory(*shape, False)(*arguments)
        fast, = operator_helper_factory(*shape, True, *self.pasted)(*arguments)
        shortcut(fast, slow)
        return fast
