"""The transform pipeline: the steps, in order, and the cache in front of them.

    1. locate   the function's original syntax (or its registered generated tree),
                its module's native calls marked (`nativecalls`), each store to
                a `__code__` followed by a native `forget` (`_code_swaps`)
    2. check    that the source is what the function was compiled from
    3. lower    operators into calls of `operator` functions
    4. passes   the user's passes, in order
    5. layer    the passes of the layer the context carries, if any (after
                resolving the `nooverdub` and `contextslot` markers)
    6. calls    every call site through the context (markers resolved), and the
                implicit ones (iteration, properties, `with`) when protocols
                are watched
    7. hoist    objects held in `ast.Constant` nodes into closure cells, and
                collect the hidden names (a walk that hooked contexts without
                passes skip: their steps make every name and cell through a
                shared `Hidden`, and lowering writes the hooked operator sites)
    8. compile  in the original lexical context, and register the tree

The result depends only on the code object and the `Mode` (what the context
type intercepts), so it is cached per code object, weakly, and shared by
every context of the same mode.
"""

from __future__ import annotations

import ast
import functools
import threading
import types
import weakref
from typing import Any, Callable

import attrs

from contexts._calls import mark_native_calls, resolve_markers, rewrite_calls
from contexts._code_swaps import forget_replaced_code, replaces_code
from contexts._compile import check_current, compile_in_context, finish_code, function_node
from contexts._lower import lower
from contexts._marks import is_quiet, native_callees
from contexts._names import PREFIX, Hidden, is_literal, level_of
from contexts._source import (Located, PerCode, NoSource, _registry, locate,
                              register_generated)
from contexts._visit import LEAVES


@attrs.frozen
class Mode:
    """What generated code must intercept; the cache key besides the code object."""

    hooked: bool
    operators: frozenset | None  # None: all of them
    protocols: bool
    layer: type | None  # the type of the context's layer (`contexts.layer`)
    truths: bool = False  # truth tests call a Python `__bool__`/`__len__` in the context
    passes: tuple = ()
    context_type: type | None = None  # only when there are passes

    @property
    def properties(self) -> bool:
        """Whether property access is a call in the context (a layer makes attribute
        access calls of its own)."""
        return self.protocols and self.layer is None


@attrs.frozen(eq=False)  # one per (code, mode): known by identity
class Transform:
    code: types.CodeType
    constants: dict  # hidden name -> cell holding a hoisted object


class PassError(Exception):
    """A user pass failed or returned something that is not a valid function body."""


_lock = threading.RLock()
_cache = PerCode()  # code -> {mode: Transform or NoSource}
# The source each code object was verified against: later transforms (other
# modes) use it, not whatever the file holds by then.
_verified = PerCode()


def transform(f: types.FunctionType, mode: Mode) -> Transform:
    """The transformed code of `f` for `mode`; raises NoSource."""
    per_code = _cache.get(f.__code__)
    found = per_code.get(mode) if per_code is not None else None
    if found is None:
        with _lock:
            per_code = _cache.get(f.__code__)
            if per_code is None:
                per_code = _cache[f.__code__] = {}
            found = per_code.get(mode)
            if found is None:
                try:
                    found = _run(f, mode)
                except NoSource as error:
                    found = error.with_traceback(None)  # no frames kept by the cache
                    found.__context__ = found.__cause__ = None
                per_code[mode] = found
    if isinstance(found, NoSource):
        # A fresh exception each time: raising the cached one would attach (and
        # keep) the frames of this call, and their locals, to the cache.
        raise NoSource(*found.args) from None
    return found


def transformed_tree(f: types.FunctionType, mode: Mode) -> tuple[ast.FunctionDef, dict]:
    """The tree that `transform` compiles, before hoisting, and the cells it already
    holds objects in, by name (for `lowered`)."""
    located = located_current(f)
    tree, hidden = _steps(f.__code__, f, located, mode, hoist=False)
    return tree, hidden.cells


def located_current(f: types.FunctionType) -> Located:
    """Where `f` was defined, checked against the source once per code object."""
    located = _verified.get(f.__code__)
    if located is None:
        located = locate(f)
        if not _is_generated(located, f):
            check_current(f, located)
            _verified[f.__code__] = located
    return located


def _is_generated(located: Located, f: types.FunctionType) -> bool:
    return _registry.get(f.__code__) is located


def _steps(code: types.CodeType, f: Any, located: Located, mode: Mode,
           hoist: bool = True) -> tuple[ast.FunctionDef, Hidden]:
    """The transformed tree of `code` (of function `f`, which user passes are given)
    and its hidden names and cells (with `hoist`, all of them)."""
    tree = function_node(located)
    generated = _registry.get(code) is located
    if not generated:  # a generated tree has its markers resolved already
        tree = mark_native_calls(tree, native_callees(code))
    hidden = Hidden(level_of(tree) if generated else 0)
    if replaces_code(code):
        tree = forget_replaced_code(tree, hidden)
    class_name = next((s.name for s in reversed(located.chain)
                       if isinstance(s, ast.ClassDef)), None)
    quiet = is_quiet(code)  # hooks see only its `seen` calls: no hooked sites by default
    # With nothing between lowering and the (hooked) call pass, and no hidden names
    # in the source, the engine's own steps make every hidden name and cell.
    layered = mode.layer is not None
    direct = mode.hooked and not mode.passes and not layered and not generated and not quiet
    if mode.operators != frozenset() or layered:
        tree = lower(tree, hidden, mode.operators, attributes=layered,
                     class_name=class_name, direct=direct, formats=layered)
    for user_pass in mode.passes:
        tree = _apply_pass(user_pass, mode.context_type, f, tree)
    if layered:  # a layer's passes see the markers resolved
        tree = resolve_markers(tree, hidden)
        for layer_pass in mode.layer.passes:
            tree = layer_pass(tree, hidden.level, code, mode.hooked)
    tree = rewrite_calls(tree, hidden, mode.hooked, iterating=mode.protocols,
                         properties=mode.properties, truths=mode.truths, class_name=class_name,
                         quiet=quiet)
    if hoist and not direct:
        _hoist(tree, hidden)
    return tree, hidden


def _run(f: types.FunctionType, mode: Mode) -> Transform:
    located = located_current(f)
    tree, hidden = _steps(f.__code__, f, located, mode)
    original = f.__code__
    try:
        code = compile_in_context(located, tree, hidden.names, original.co_freevars)
    except (SyntaxError, ValueError, TypeError) as error:
        names = ", ".join(getattr(p, "__name__", repr(p)) for p in mode.passes)
        raise PassError(
            f"the transformed body of {original.co_qualname} does not compile: {error}"
            + (f" (passes: {names})" if names else "")) from error
    code = finish_code(code, original)
    register_generated(code, functools.partial(
        _rebuild, weakref.ref(original), weakref.ref(f), mode, located, hidden.names))
    return Transform(code=code, constants=hidden.cells)


def _rebuild(code_ref: weakref.ref, f_ref: weakref.ref, mode: Mode, located: Located,
             names: set) -> Located:
    """The tree `_run` compiled, made again (the steps and passes are deterministic).

    Only weak references are kept: the transform cache already ties the
    generated code to the original, and the tree is not worth keeping either alive.
    """
    code, f = code_ref(), f_ref()
    if code is None or (f is None and mode.passes):
        raise NoSource("the function this code was generated from is gone")
    tree, hidden = _steps(code, f, located, mode)
    if hidden.names != names:
        raise NoSource(
            f"the passes gave {code.co_qualname} another tree the second time; an outer "
            "context needs them to be deterministic, so this code runs natively in it")
    return attrs.evolve(located, node=tree, lines=(), owned=False)  # every reader copies it


def _apply_pass(user_pass: Callable, context_type: type, f: Any, tree: ast.AST) -> ast.AST:
    label = getattr(user_pass, "__qualname__", repr(user_pass))
    try:
        result = user_pass(context_type, f, tree)
    except Exception as error:
        raise PassError(f"pass {label} failed on {f.__qualname__}: {error!r}") from error
    if not isinstance(result, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise PassError(
            f"pass {label} returned {type(result).__name__} for {f.__qualname__}; "
            "a pass must return the FunctionDef it was given (or a replacement)")
    ast.fix_missing_locations(result)
    return result


def _hoist(tree: ast.AST, hidden: Hidden) -> None:
    """Find the hidden names in `tree` and put the objects its constants hold in cells.

    For trees that passes, a layer or an inner context made: their
    hidden names and constants were not all made through `hidden`.
    """
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in node._fields:
            value = getattr(node, field, None)
            single = type(value) is not list
            for index, item in enumerate((value,) if single else value):
                kind = type(item)
                if kind is ast.Name:
                    if item.id.startswith(PREFIX):
                        hidden.names.add(item.id)
                elif kind is ast.Constant:
                    if is_literal(item.value):
                        continue
                    new = hidden.holding(item.value, item)
                    if single:
                        setattr(node, field, new)
                    else:
                        value[index] = new
                elif _has_inside.get(kind) or (
                        kind not in _has_inside and _learn_inside(kind)):
                    stack.append(item)


_has_inside: dict = {}  # node type -> whether the hoisting walk goes inside


def _learn_inside(kind: type) -> bool:
    inside = _has_inside[kind] = issubclass(kind, ast.AST) and not issubclass(kind, LEAVES)
    return inside
