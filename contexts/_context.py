"""Context types: what a context is, the layer it may carry, and `primitive`.

A context type is a subclass of `Context`. What it intercepts is summarised in
its profile (`_profile`); the metaclass tells the profiles when the class
changes, so redefining a hook after first use takes effect on the next run.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, ClassVar

import attrs

from contexts._cell_table import Cells
from contexts._defaults import call_foreign, run_default
from contexts._profile import changed, default_hook


_DATA = frozenset({int, float, bool, str, type(None)})  # class attributes hooks keep


class ContextType(type):
    """Metaclass of contexts: a change to a context class reaches its profiles.

    `passes = [...]` in a class body (or set on the class later) is the default
    `passes` of the class's new instances: left as a plain class attribute it
    would be hidden by the instance's own field.
    """

    def __init__(cls, name: str, bases: tuple, namespace: dict) -> None:
        super().__init__(name, bases, namespace)
        if isinstance(namespace.get("passes"), (list, tuple)) and \
                "passes" not in namespace.get("__annotations__", {}):  # not an attrs field
            type.__delattr__(cls, "passes")
            cls.__default_passes__ = tuple(namespace["passes"])

    def __setattr__(cls, name: str, value: Any) -> None:
        if name == "passes" and isinstance(value, (list, tuple)):
            name, value = "__default_passes__", tuple(value)
        old = cls.__dict__.get(name)
        super().__setattr__(name, value)
        if type(value) not in _DATA or type(old) not in _DATA:  # a counter: nothing to do
            changed(cls, name, old, value)

    def __delattr__(cls, name: str) -> None:
        old = cls.__dict__.get(name)
        super().__delattr__(name)
        changed(cls, name, old, None)


@attrs.define(eq=False)
class Context(metaclass=ContextType):
    """An execution context: subclass it and override the hooks you need.

    `metadata` is trace-local data, `passes` a sequence of transforms over
    function bodies, `tag` the layer the context carries, or None (see
    `contexts.layer`).
    """

    metadata: Any = None
    passes: tuple = attrs.field(
        default=attrs.Factory(lambda self: type(self).__default_passes__, takes_self=True),
        converter=tuple)
    tag: Any = None
    _runtime: Any = attrs.field(default=None, init=False, repr=False)
    __default_passes__ = ()
    # Set on a subclass to be warned (`contexts.SourceUnavailable`, once per function)
    # when a function runs natively because the engine cannot have its source.
    warn_unseen_code: ClassVar[bool] = False

    @default_hook
    def prehook(self, f: Callable, /, *args: Any, **kwargs: Any) -> None:
        """Called before every call made inside an overdubbed function."""

    @default_hook
    def posthook(self, output: Any, f: Callable, /, *args: Any, **kwargs: Any) -> None:
        """Called after every call made inside an overdubbed function."""

    @default_hook
    def overdub(self, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
        """Run one call: a primitive if registered, else `recurse`, else `fallback`."""
        return run_default(self, f, args, kwargs)

    @default_hook
    def fallback(self, f: Callable, /, *args: Any, **kwargs: Any) -> Any:
        """Run a call the context does not look into (through its layer, if any)."""
        return call_foreign(self, f, args, kwargs)

    @classmethod
    def metadatatype(cls, value_type: type) -> type:
        """The type of metadata a value of `value_type` may carry (none by default)."""
        return NoMetaData


class Layer:
    """What a context carrying this layer (in its `tag` field) adds to its runs.

    One instance per context copy: it may hold per-context state (a store of
    what its wrappers carry, say). The defaults add nothing; override what the layer needs.
    """

    # `(tree, level, code, hooked) -> tree` over each lowered body, after the
    # user's passes: `level` names the hidden names of this transform (`hidden`),
    # `code` is the original code object, `hooked` whether call sites run hooks.
    passes: ClassVar[tuple] = ()

    # The hidden cells its passes name (`contexts.layer.Cells` of `Cell`s): each
    # built, from `runtime.ctx` (the context), `runtime.dispatch(f)` (what runs for
    # `f` in it), `runtime.primitive_for(f, f)` (the user's primitive for `f`, or
    # None) and `runtime.value(stem)` (another cell's value), when code naming it
    # is bound; a `per_layer` one again for each fresh layer of the context.
    cells: ClassVar[Cells] = Cells()

    def builtin(self, ctx: Any, key: Any, f: Callable) -> Callable | None:
        """What runs for callee `f` (canonical `key`) before `ctx`'s own overdub, or None."""
        return None

    def call_foreign(self, ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
        """A call the context does not look into (the default `fallback`)."""
        return f(*args, **kwargs)

    def foreign_runner(self, ctx: Any, f: Callable) -> Callable:
        """What runs for the foreign callee `f` when `ctx` keeps the default `fallback`:
        `call_foreign` for `f`, made once per callee (a layer may make it faster)."""
        return lambda *args, **kwargs: self.call_foreign(ctx, f, args, kwargs)

    def finish_run(self, ctx: Any) -> None:
        """An `overdub` of `ctx` has returned or raised."""


@attrs.frozen
class NoMetaData:
    """The absence of metadata (what `metadata` returns for an untagged value)."""


def context(name: str) -> type:
    """Make a new context type named `name` (the analogue of `@context Name`)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError(f"context() takes a name such as 'TraceCtx', got {name!r}")
    return ContextType(name, (Context,), {"__module__": _caller_module()})


def _caller_module() -> str:
    return sys._getframe(2).f_globals.get("__name__", __name__)


def similarcontext(ctx: Context, **changes: Any) -> Context:
    """A copy of `ctx` with the given fields (`metadata`, `passes`, `tag`) replaced."""
    if not isinstance(ctx, Context):
        raise TypeError(f"similarcontext() needs a Context, got {type(ctx).__name__}")
    unknown = set(changes) - {"metadata", "passes", "tag"}
    if unknown:
        raise TypeError(
            f"similarcontext() got unknown fields {sorted(unknown)}; "
            "a context has the fields metadata, passes and tag"
        )
    layer = changes.get("tag")
    if layer is not None and not isinstance(layer, Layer):
        raise TypeError("similarcontext(): the tag field holds a layer (an instance of "
                        f"contexts.layer.Layer) or None, got {layer!r}")
    copy = attrs.evolve(ctx, **{k: v for k, v in changes.items() if k != "tag"})
    copy.tag = changes.get("tag", ctx.tag)
    return copy


def primitive(*functions: Any, told: bool = False) -> Callable:
    """Mark a context method as the implementation of `functions` in that context.

    `@primitive(f)` on `def rule(self, *args)` is the analogue of overloading
    `overdub(ctx::Ctx, ::typeof(f), args...)` in Cassette. With `told=True` the
    method serves many functions: `def rule(self, f)` is told which function is
    called and returns what runs for it in this context (it is asked once per
    function per context, so it can specialise). A single dict given instead of
    functions is a table: its keys are the functions, read whenever the context
    type is summarised, so a layer can add to it (and assign the method to the
    class again, which makes the change take effect).
    """
    if not functions:
        raise TypeError("primitive() needs the function(s) the method stands for")
    table = functions[0] if len(functions) == 1 and isinstance(functions[0], dict) else None

    def mark(method: Callable) -> Callable:
        if not callable(method):
            raise TypeError(f"@primitive must decorate a method, got {method!r}")
        previous = getattr(method, "__primitive_of__", ())
        method.__primitive_of__ = previous + ((table,) if table is not None else functions)
        method.__primitive_told__ = told
        return method

    return mark
