"""The state one context instance needs while code runs in it.

`Runtime` resolves callees (the default `overdub`: a primitive, else the
transformed body, else the foreign call), binds transformed code to this
context's cells (their values are `_cells`') and caches both. The hot path
is `dispatch(f)`: one dict lookup; everything else happens once per callee in
`_miss`. Callees whose identity is their equality (functions, builtins,
classes) are cached; bound methods and callable objects are resolved afresh,
so nothing pins `self`. A function whose `__code__` is replaced in a run is
forgotten (`_code_swaps`), so that it is resolved again.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref
from typing import Any, Callable

from contexts import _code_swaps, _conversions, _models, _protocols
from contexts._canonical import NOSELF, split
from contexts._cells import ENGINE_CELLS, closure
from contexts._hooked_cells import hooked_helpers
from contexts._compile import bind
from contexts._marks import ENCLOSED, SLOW, enclosed, shortcut
from contexts._model_support import bad_init_result
from contexts._profile import Profile, profile_of
from contexts._operators import OPERATOR_FUNCTIONS
from contexts._pipeline import Mode, transform
from contexts._source import NoSource, warn_unseen
from contexts._trampolines import trampoline_for

_CACHEABLE = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
              types.WrapperDescriptorType, type, functools.partial)

# The modes in use, so that equal modes are one object (a few per context type).
_modes: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_ABSENT = object()
_PINNED = 256  # bound builtin methods (and so their objects) a context caches at most


class Runtime:
    """Caches and cells of one context instance (rebuilt when its type changes)."""

    def __init__(self, ctx: Any, profile: Profile) -> None:
        self.ctx = ctx
        self.layer = ctx.tag  # the layer the context carries (`contexts.layer`), or None
        self.profile = profile
        self.passes = ctx.passes
        self.mode = _mode_of(ctx, profile)
        self.empty = profile.empty and not self.mode.passes  # runs code natively
        self.resolved = _Resolved(self._miss)
        self.method_bindings: dict = {}  # (type, builtin method name) -> `_binding`
        self.bound_methods: list = []  # the bound builtin methods `resolved` holds
        # Weakly keyed: a closure made afresh on every call is not kept alive here.
        self.functions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.closures: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.reasons: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.dispatch = _make_dispatch(self.resolved, self._miss)
        # What its code made that may run again later: generators, coroutines.
        self.made: weakref.WeakSet = weakref.WeakSet()
        self.make = _maker(self.made)
        self.values: dict = {}  # the cells' values built so far, by stem
        self.parts: dict = {}  # what several cells' values are made of (`part`)
        self.cells: dict = {}  # hidden name -> the cell its bound code reads
        self.layered: dict = {}  # stem -> declaration, of the cells built from the layer
        self.refilled: list = []  # (cell, stem) of those bound: refilled by `relayer`
        _code_swaps.watch(self)

    # Resolution -----------------------------------------------------------

    def _miss(self, f: Callable) -> Callable:
        kind = type(f)
        if kind is types.FunctionType and f.__closure__:
            # closures are often made afresh: kept weakly, not pinned in `resolved`
            # (nor at all when what runs holds the closure itself: a foreign call)
            target = self.closures.get(f)
            if target is None:
                target = self.resolve(f, primitives=True)
                if not _holds(target, f):
                    self.closures[f] = target
            return target
        if kind is types.BuiltinFunctionType and _bound_to_an_object(f):
            return self._bound_builtin(f)
        target = self.resolve(f, primitives=True)
        if isinstance(f, _CACHEABLE) and _identity_hashed(f) or self._claimed_as_itself(f):
            self.resolved[f] = target
        return target

    def _claimed_as_itself(self, f: Callable) -> bool:
        """Whether `f`, a callable object of another type (a numpy ufunc), is a key of
        the primitive tables: resolved once, as a function is, since the table pins it
        already and a change to the table makes the profile stale (a new runtime)."""
        if type(f).__hash__ is not object.__hash__:
            return False
        try:
            return bool(self.profile.primitives.get(f))
        except TypeError:
            return False

    def forget(self, f: types.FunctionType) -> None:
        """Resolve `f` afresh when next called (its `__code__` was replaced, in a run
        or between two)."""
        self.resolved.pop(f, None)
        self.closures.pop(f, None)
        self.functions.pop(f, None)

    def _bound_builtin(self, f: Callable) -> Callable:
        """`xs.append` and the like: resolved once per (type, name), bound each time.

        Contexts without a layer also cache the bound method itself, but at most
        `_PINNED` at a time: it holds its object, so a long-lived context pins a
        bounded number of objects. Contexts with a layer pin none (their objects
        may be temporaries whose elements' metadata a layer would then keep).
        """
        owner = f.__self__
        slot = (type(owner), f.__name__)
        binding = self.method_bindings.get(slot)
        if binding is None:
            binding = self.method_bindings[slot] = self._binding(f, split(f)[0], True)
        target = binding(f, owner)
        if self.layer is not None:
            return target
        if len(self.bound_methods) >= _PINNED:
            for method in self.bound_methods:
                self.resolved.pop(method, None)
            self.bound_methods.clear()
        self.resolved[f] = target
        self.bound_methods.append(f)
        return target

    def resolve(self, f: Callable, primitives: bool) -> Callable:
        """What running `f` in this context means (the default `overdub`)."""
        key, bound = split(f)
        return self._binding(f, key, primitives)(f, bound)

    def _binding(self, f: Callable, key: Any, primitives: bool) -> Callable:
        """`(f, bound) -> what runs`: how the canonical `key` runs, bound to `bound`."""
        if type(key) is types.FunctionType and ENCLOSED in key.__dict__ and \
                not (self.mode.hooked or self.mode.passes):
            # an inner context's function that says how it runs in this one
            native = key.__dict__[ENCLOSED](self.dispatch)
            return lambda f, bound: native
        if type(key) is types.FunctionType and SLOW in key.__dict__:
            # an inner context's fast path: run the general code it stands for
            stands_for = key.__dict__[SLOW]
            return lambda f, bound: self.resolve(stands_for, primitives)
        if primitives:
            method = self.primitive_for(f, key)
            if method is not None:
                if self.keyed_by_itself(f, key):  # a callable object with a primitive
                    return lambda f, bound: method
                return _partially(method)
        if self.layer is not None:
            builtin = self.layer.builtin(self.ctx, key, f)
            if builtin is not None:
                return _partially(builtin)
        if not self.mode.protocols:
            trampoline = trampoline_for(key, self.dispatch)
            if trampoline is not None:
                return _partially(trampoline)
        body = self.body(key)
        if body is not None:
            if type(body) is not types.FunctionType:  # a model with leading arguments
                return _partially(body)  # a partial, which an enclosing context can run
            return lambda f, bound: body if bound is NOSELF else types.MethodType(body, bound)
        return self._foreign_binding

    def _foreign_binding(self, f: Callable, bound: Any) -> Callable:
        if bound is NOSELF and _protocols.has_protocol(f):
            perform = self.transformed(_protocols.perform)
            return _protocols.dispatcher(f, self.foreign(f), perform)
        if bound is NOSELF and _conversions.has_conversion(f):
            convert = self.transformed(_conversions.convert)
            return _conversions.converter(f, self.foreign(f), convert)
        return self.foreign(f)

    def primitive_for(self, f: Callable, key: Any) -> Callable | None:
        table = self.profile.primitives
        if not table:
            return None
        try:
            name = table.get(f) or table.get(key)
        except TypeError:
            return None
        if not name:
            return None
        method = getattr(self.ctx, name)
        if not getattr(method, "__primitive_told__", False):
            return method
        return method(f if self.keyed_by_itself(f, key) else key)

    def keyed_by_itself(self, f: Callable, key: Any) -> bool:
        """Whether a callable object (a numpy ufunc, not a method) has a primitive of
        its own: it is told itself, and called with the arguments alone."""
        if f is key or type(f) is not type(key) and isinstance(f, _BOUND):
            return False
        try:
            return bool(self.profile.primitives.get(f))
        except TypeError:
            return False

    def body(self, key: Any) -> Callable | None:
        """The transformed body (or model) of a canonical callee, if the engine has one."""
        if type(key) is types.FunctionType:
            transformed = self.transformed(key)
            if transformed is not None:
                return transformed
        model = _models.model_for(key, self.mode)
        if model is None:
            return None
        function, leading = model
        transformed = self.transformed(function)
        if transformed is None:
            return None
        general = functools.partial(transformed, *leading) if leading else transformed
        if function is _models.construct and isinstance(key, type) and not self.mode.hooked:
            return _constructor(key, general, self.dispatch)
        return general

    def transformed(self, f: types.FunctionType) -> Callable | None:
        entry = self.functions.get(f)
        if entry is not None:
            return entry[1]
        try:
            result = transform(f, self.mode)
        except NoSource as why:
            self.reasons[f] = str(why)
            if self.ctx.warn_unseen_code:
                warn_unseen(f, str(why))
            found = None
        else:
            found = bind(result.code, f, closure(self, result, f))
            if result.code.co_flags & _SUSPENDING:
                found = _made_by(found, self.make)
        self.functions[f] = (f.__code__, found)  # the code it was made from
        return found

    def foreign(self, f: Callable) -> Callable:
        if "fallback" in self.profile.hooks:
            inside = getattr(self.ctx, "fallback_inside", None)
            if inside is None:
                return functools.partial(self.ctx.fallback, f)
            return _fallback_for(self.ctx.fallback, f, inside)
        if self.layer is not None:  # the default `fallback`: the layer's `call_foreign`
            return self.layer.foreign_runner(self.ctx, f)
        return f

    # Cells ------------------------------------------------------------------

    def cell(self, identifier: str) -> types.CellType:
        found = self.cells.get(identifier)
        if found is None:
            stem = _cell_name(identifier)
            found = self.cells[identifier] = types.CellType(self.value(stem))
            if stem in self.layered:
                self.refilled.append((found, stem))
        return found

    def value(self, stem: str) -> Any:
        """The value of the hidden cell `stem`, built from its declaration the first
        time (the layer's table first, then the engine's)."""
        found = self.values.get(stem, _ABSENT)
        if found is _ABSENT:
            found = self._build(stem, self.declaration(stem))
        return found

    def _build(self, stem: str, declared: Any) -> Any:
        found = self.values[stem] = declared.build(self, stem) if declared.family \
            else declared.build(self)
        if declared.per_layer:
            self.layered[stem] = declared
        return found

    def declaration(self, stem: str) -> Any:
        declared = self.layer.cells.find(stem) if self.layer is not None else None
        if declared is None:
            declared = ENGINE_CELLS.find(stem)
        if declared is None:
            raise KeyError(f"no hidden cell {stem!r} is declared")
        return declared

    def part(self, key: str, make: Callable) -> Any:
        """What `make()` returns, made once per runtime: a piece several cells share."""
        found = self.parts.get(key, _ABSENT)
        if found is _ABSENT:
            found = self.parts[key] = make()
        return found

    def hooked_helpers(self) -> tuple:
        """The call helpers of a hooked context, and the maker of its operator helpers."""
        return self.part("hooked helpers", lambda: hooked_helpers(self))

    def relayer(self) -> None:
        """Take the context's new layer (of the same type as the old): the cells built
        from it are built again, so the code bound to them runs with the new layer
        (the others are built when code naming them is bound). What was resolved
        is kept: a layer's builtins and foreign runners, and the context's
        primitives, read the layer from the context when they run. Functions whose
        code was replaced since they were bound are bound anew."""
        self.layer = self.ctx.tag
        values, layered = self.values, self.layered
        self.layered = {}
        for stem in layered:
            del values[stem]
        for stem, declared in layered.items():
            if stem not in values:  # (not built already, as a part of another)
                self._build(stem, declared)
        for cell, stem in self.refilled:
            cell.cell_contents = values[stem]
        # Read from a copy of the weak table's own dict: copying allocates no object
        # the collector tracks, so no callback drops a key meanwhile (the table's
        # guarded iteration costs five times as much).
        for reference, (code, _bound) in self.functions.data.copy().items():
            f = reference()
            if f is not None and f.__code__ is not code:
                self.forget(f)


def runtime_of(ctx: Any) -> Runtime:
    """The context's runtime, rebuilt if its class (or a base) changed what it
    intercepts, or the context's passes changed, since it was made; given its
    new layer if the context was given another of the same type (`relayer`)."""
    runtime = ctx._runtime
    layer = ctx.tag
    if runtime is None or runtime.profile.stale or runtime.passes is not ctx.passes or \
            type(runtime.layer) is not type(layer):
        runtime = Runtime(ctx, profile_of(type(ctx), None if layer is None else type(layer)))
        ctx._runtime = runtime
    elif runtime.layer is not layer:
        runtime.relayer()
    return runtime


def idle(ctx: Any) -> bool:
    """Whether no code that ran in `ctx` can run again: no generator or coroutine
    made by its transformed code is suspended, or not yet started. A context
    reused for another run, with another layer, must be idle: such a frame
    would go on with the new layer's cells, holding the old layer's values. (A
    frame kept by a traceback has ended: it runs nothing.) Known only where the
    engine marks where generator expressions are made, as it does when the
    context watches protocols (every context with a layer does)."""
    runtime = ctx._runtime
    if runtime is None:
        return True
    if not runtime.mode.protocols:
        return False
    made = runtime.made
    if not made:  # (the weak set's length; listing it costs a guarded iteration)
        return True
    return not any(_suspended_frame(one) is not None for one in list(made))


def kept(ctx: Any) -> int:
    """How many callees `ctx` keeps resolved: what reusing it holds on to (a
    partial or a class made afresh for each run is one more each time)."""
    runtime = ctx._runtime
    return 0 if runtime is None else len(runtime.resolved) + len(runtime.closures)


def _suspended_frame(made: Any) -> Any:
    """The frame of a generator, coroutine or async generator; None once it ended."""
    return getattr(made, _FRAMES.get(type(made), "gi_frame"), None)


_FRAMES = {types.CoroutineType: "cr_frame", types.AsyncGeneratorType: "ag_frame"}
_SUSPENDING = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | \
    inspect.CO_ITERABLE_COROUTINE


def _cell_name(identifier: str) -> str:
    """`gload` for the cell `__ovd0_gload__` of transformed code."""
    return identifier[identifier.index("_", 5) + 1:-2]


def _fallback_for(fallback: Callable, f: Callable, inside: Callable) -> Callable:
    """The context's `fallback` for the foreign callee `f`, which a context
    enclosing it (without hooks or passes) runs as the context's
    `fallback_inside(f, dispatch)` says, natively (see `enclosed`)."""
    def run(*args, **kwargs):
        return fallback(f, *args, **kwargs)

    return enclosed(run, lambda dispatch: inside(f, dispatch))


def _maker(made: weakref.WeakSet) -> Callable:
    """The cell `made`: a generator or coroutine the context's code just made, kept
    track of (see `idle`). An enclosing context runs it natively: it is the
    engine's bookkeeping, not the program's."""
    def make(suspendable: Any) -> Any:
        made.add(suspendable)
        return suspendable

    return enclosed(make, lambda dispatch: make)


def _made_by(function: Callable, made: Callable) -> Callable:
    """A generator or coroutine function whose generators (coroutines) the
    runtime keeps track of, weakly, with `made` (see `idle`)."""
    def making(*args, **kwargs):
        return made(function(*args, **kwargs))

    return making


def _mode_of(ctx: Any, profile: Profile) -> Mode:
    if profile.intercepts_operators:
        operators = None
    else:
        operators = frozenset(f for f in profile.primitives if f in OPERATOR_FUNCTIONS)
    passes = tuple(ctx.passes)
    if passes:
        operators = None  # a pass sees every operator as a call
    mode = Mode(hooked=profile.hooked, operators=operators,
                protocols=profile.intercepts_protocols, layer=profile.layer,
                truths=profile.intercepts_truth, passes=passes, context_type=type(ctx) if passes else None)
    return _modes.setdefault(mode, mode)  # one object per mode: cache keys match by identity


class _Resolved(dict):
    """Callee -> what runs for it; `table[f]` resolves (and maybe caches) a new `f`."""

    __slots__ = ("miss",)

    def __init__(self, miss: Callable) -> None:
        super().__init__()
        self.miss = miss

    def __missing__(self, f: Callable) -> Callable:
        return self.miss(f)


def _make_dispatch(resolved: _Resolved, miss: Callable) -> Callable:
    def dispatch(f):
        try:
            return resolved[f]
        except TypeError:  # unhashable: resolved afresh every time
            return miss(f)

    return dispatch


def _constructor(cls: type, general: Callable, dispatch: Callable) -> Callable:
    """`cls(...)` where no hook must see `__init__`: a Python `__init__` run on what
    `object.__new__` made, in one frame; any other class by the model (`general`,
    which an outer context running this one runs instead)."""

    def construct(*args, **kwargs):
        init = cls.__init__
        if cls.__new__ is not object.__new__ or type(init) is not types.FunctionType:
            return general(*args, **kwargs)
        obj = object.__new__(cls)
        result = dispatch(init)(obj, *args, **kwargs)
        if result is not None:  # its type as the context sees it (a layer's wrapper unwrapped)
            raise bad_init_result(dispatch(type)(result))
        return obj

    return shortcut(construct, general)


def _holds(target: Any, f: Callable) -> bool:
    """Whether `target` is `f`, or a partial or closure over it (which would keep a
    weakly keyed `f` alive)."""
    if target is f:
        return True
    if type(target) is functools.partial:
        return any(a is f for a in target.args)
    for cell in getattr(target, "__closure__", None) or ():
        try:
            if cell.cell_contents is f:
                return True
        except ValueError:  # an empty cell
            continue
    return False


_BOUND = (types.MethodType, types.BuiltinFunctionType, types.MethodWrapperType)


def _partially(target: Callable) -> Callable:
    """The binding of a primitive, builtin primitive or trampoline: `self` goes first."""
    return lambda f, bound: target if bound is NOSELF else functools.partial(target, bound)


def _bound_to_an_object(f: Any) -> bool:
    owner = f.__self__
    return owner is not None and not isinstance(owner, (types.ModuleType, type))


def _identity_hashed(f: Any) -> bool:
    return not isinstance(f, type) or type(f).__hash__ is type.__hash__
