"""Context types: what a context is, and what its type intercepts.

A context type is a subclass of `Context`. Which hooks it overrides, which
functions it claims as primitives and which layer it carries decide what code
the engine generates for it; that summary is its `Profile`, recomputed whenever
any context class is changed (the metaclass notices), so redefining a hook after
first use takes effect on the next run.
"""

from __future__ import annotations

import functools
import threading
import types
from typing import Any, Callable, ClassVar

import attrs

_HOOKS = ("prehook", "posthook", "overdub", "fallback")


class ContextType(type):
    """Metaclass of contexts: any change to a context class invalidates profiles.

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
        super().__setattr__(name, value)
        _invalidate_profiles()

    def __delattr__(cls, name: str) -> None:
        super().__delattr__(name)
        _invalidate_profiles()


_profile_lock = threading.Lock()
_profiles: dict[type, "Profile"] = {}
_version = [0]


def _invalidate_profiles() -> None:
    with _profile_lock:
        _version[0] += 1
        _profiles.clear()


@attrs.define(eq=False)
class Context(metaclass=ContextType):
    """An execution context: subclass it and override the hooks you need.

    `metadata` is trace-local data, `passes` a sequence of transforms over
    function bodies, `tag` the layer the context carries, or None (see
    `contexts.layer`; `tagging.enabletagging` sets one).
    """

    metadata: Any = None
    passes: tuple = attrs.field(
        default=attrs.Factory(lambda self: type(self).__default_passes__, takes_self=True),
        converter=tuple)
    tag: Any = None
    _runtime: Any = attrs.field(default=None, init=False, repr=False)
    __default_passes__ = ()

    def prehook(self, f: Callable, *args: Any, **kwargs: Any) -> None:
        """Called before every call made inside an overdubbed function."""

    def posthook(self, output: Any, f: Callable, *args: Any, **kwargs: Any) -> None:
        """Called after every call made inside an overdubbed function."""

    def overdub(self, f: Callable, *args: Any, **kwargs: Any) -> Any:
        """Run one call: a primitive if registered, else `recurse`, else `fallback`."""
        from contexts._api import run_default

        return run_default(self, f, args, kwargs)

    def fallback(self, f: Callable, *args: Any, **kwargs: Any) -> Any:
        """Run a call the context does not look into (through its layer, if any)."""
        from contexts._api import call_foreign

        return call_foreign(self, f, args, kwargs)

    @classmethod
    def metadatatype(cls, value_type: type) -> type:
        """The type of metadata a value of `value_type` may carry (none by default)."""
        return NoMetaData


class Layer:
    """What a context carrying this layer (in its `tag` field) adds to its runs.

    One instance per context copy: it may hold per-context state (tagging's
    shadow store). The defaults add nothing; override what the layer needs.
    """

    # `(tree, level, code, hooked) -> tree` over each lowered body, after the
    # user's passes: `level` names the hidden names of this transform (`hidden`),
    # `code` is the original code object, `hooked` whether call sites run hooks.
    passes: ClassVar[tuple] = ()

    def cells(self, runtime: Any) -> dict:
        """The values of the cells the passes refer to, by hidden-name suffix.

        `runtime.ctx` is the context, `runtime.dispatch(f)` what runs for `f` in
        it, `runtime.primitive_for(f, f)` the user's primitive for `f`, or None.
        """
        return {}

    def builtin(self, ctx: Any, key: Any, f: Callable) -> Callable | None:
        """What runs for callee `f` (canonical `key`) before `ctx`'s own overdub, or None."""
        return None

    def call_foreign(self, ctx: Any, f: Callable, args: tuple, kwargs: dict) -> Any:
        """A call the context does not look into (the default `fallback`)."""
        return f(*args, **kwargs)

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
    import sys

    return sys._getframe(2).f_globals.get("__name__", __name__)


def similarcontext(ctx: Context, **changes: Any) -> Context:
    """A copy of `ctx` with the given fields (`metadata`, `passes`, `tag`) replaced."""
    if not isinstance(ctx, Context):
        raise TypeError(f"similarcontext() needs a Context, got {type(ctx).__name__}")
    unknown = set(changes) - {"metadata", "passes", "tag"}
    if unknown:
        raise TypeError(
            f"similarcontext() got unknown fields {sorted(unknown)}; "
            "a context has metadata, passes and tag"
        )
    layer = changes.get("tag")
    if layer is not None and not isinstance(layer, Layer):
        raise TypeError(f"similarcontext(): tag must be a layer (a contexts.layer.Layer, as "
                        f"tagging.enabletagging makes) or None, got {layer!r}")
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


@attrs.frozen
class Profile:
    """What a context type intercepts; decides the code generated for it (made once
    per context type, so what is derived from it is computed once too)."""

    hooks: frozenset  # the overridden hooks among prehook, posthook, overdub, fallback
    primitives: dict  # function -> name of the method that implements it
    layer: type | None  # the type of the layer the context carries

    @property
    def empty(self) -> bool:
        return not (self.hooks or self.primitives) and self.layer is None

    @property
    def hooked(self) -> bool:
        """Whether call sites must call hooks (so they need a helper frame)."""
        return bool(self.hooks & {"prehook", "posthook", "overdub"})

    @functools.cached_property
    def intercepts_operators(self) -> bool:
        """Whether operators must become calls (else they stay native).

        A primitive on a dunder (`Vec.__add__`) needs them: the operator's call
        is what reaches the dunder through the context.
        """
        return self.hooked or self.layer is not None or "fallback" in self.hooks or any(
            _is_operator_function(f) or getattr(f, "__name__", "").startswith("__")
            for f in self.primitives
        )

    @functools.cached_property
    def intercepts_protocols(self) -> bool:
        """Whether implicit protocol calls (iteration, dunders, properties) must be seen."""
        return self.hooked or self.layer is not None or any(
            _called_implicitly(f) for f in self.primitives)

    @functools.cached_property
    def intercepts_truth(self) -> bool:
        """Whether truth tests must reach the context: for hooks, or a primitive on a
        `__bool__` or `__len__`."""
        return self.hooked or any(
            getattr(f, "__name__", "") in _TRUTH_METHODS for f in self.primitives)


_TRUTH_METHODS = ("__bool__", "__len__")


def _called_implicitly(f: Callable) -> bool:
    """Whether Python may call `f` where the source shows no call: a dunder, or a
    method defined in a class body (a property's accessor is one)."""
    if getattr(f, "__name__", "").startswith("__"):
        return True
    owner = getattr(f, "__qualname__", "").rpartition(".")[0]
    return type(f) is types.FunctionType and owner != "" and not owner.endswith("<locals>")


def _is_operator_function(f: Callable) -> bool:
    import operator

    return getattr(operator, getattr(f, "__name__", ""), None) is f


def profile_of(ctx_type: type, layer: type | None) -> Profile:
    """The (cached) profile of a context type carrying a `layer`; cheap on the hot path."""
    key = (ctx_type, layer)
    found = _profiles.get(key)
    if found is not None:
        return found
    with _profile_lock:
        found = _compute_profile(ctx_type, layer)
        _profiles[key] = found
        return found


def _compute_profile(ctx_type: type, layer: type | None) -> Profile:
    hooks = frozenset(
        name for name in _HOOKS if getattr(ctx_type, name) is not getattr(Context, name)
    )
    primitives: dict = {}
    for klass in reversed(ctx_type.__mro__):
        for name, member in vars(klass).items():
            for entry in getattr(member, "__primitive_of__", ()):
                for f in (entry if isinstance(entry, dict) else (entry,)):
                    primitives[_canonical_key(f)] = name
    return Profile(hooks=hooks, primitives=primitives, layer=layer)


def _canonical_key(f: Callable) -> Any:
    from contexts._canonical import canonical

    return canonical(f)
