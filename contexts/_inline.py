"""Hook bodies pasted into the call helpers, so that a cheap hook costs no call.

Cassette is fast because Julia's compiler inlines the hooks into every call
site. Here the call helpers stand in for the sites: a hook whose body is plain
statements over its parameters, its locals and its module's globals is pasted
into them, parameters and locals renamed. That saves the hook's Python call,
with its `*args` tuple and `**kwargs` dict, on every hooked call.

Any other hook (a closure, a generator, a decorated or edited one, or one that
returns early, defines functions or classes, uses comprehensions, `super`,
frames or private names) is called as before. The pasted statements keep the
hook's file and lines, so a traceback through them reads as if the hook had
been called.
"""

from __future__ import annotations

import ast
import inspect
import threading
import types
import weakref

import attrs

from contexts._calls import CALLER_NAMES
from contexts._cells import MAX_ARITY
from contexts._compile import function_node
from contexts._pipeline import located_current
from contexts._source import NoSource

# What the helpers' own code calls its values; a hook may not use these names.
HELPER_NAMES = frozenset({"pre", "post", "res", "ovd", "table", "miss", "native",
                          "builtin_type", "builtin_TypeError", "hook_self", "f", "g", "out",
                          "args", "kwargs"}) | {f"a{i}" for i in range(MAX_ARITY + 1)}

_ALLOWED_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.If, ast.For,
                       ast.While, ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Assert,
                       ast.Try, ast.With, ast.Delete)
_REFUSED_EXPRESSIONS = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                        ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


@attrs.define(eq=False)
class InlineHook:
    """A hook's body, renamed for the helpers, and where it came from."""

    name: str  # the hook's name, which the helper's frame takes
    body: list  # statements; never mutated (the helpers paste copies)
    globals: dict  # the hook's module globals, where its free names resolve
    filename: str
    firstlineno: int
    lines: frozenset  # the body's lines: a helper frame elsewhere is machinery
    uses_args: bool  # the body reads `*args` (then the helper builds the tuple)
    uses_kwargs: bool


_lock = threading.Lock()
_cache: "weakref.WeakKeyDictionary[types.FunctionType, tuple]" = weakref.WeakKeyDictionary()


def inline_hook(method: object, ctx: object, leading: tuple) -> InlineHook | None:
    """The body of `method`, a hook bound to `ctx`, if it can be pasted into the helpers.

    `leading` names the helper variables that the hook's parameters after `self`
    stand for (`("f",)` for a prehook, `("out", "f")` for a posthook).
    """
    function = getattr(method, "__func__", None)
    if type(function) is not types.FunctionType or "__wrapped__" in function.__dict__ or \
            getattr(method, "__self__", None) is not ctx:
        return None
    code = function.__code__
    with _lock:
        cached = _cache.get(function)
    if cached is not None and cached[0] is code:
        return cached[1]
    try:
        inlined = _inline(function, leading)
    except NoSource:
        inlined = None
    with _lock:
        _cache[function] = (code, inlined)
    return inlined


def _inline(function: types.FunctionType, leading: tuple) -> InlineHook | None:
    code = function.__code__
    if code.co_freevars or code.co_flags & _NOT_PLAIN or code.co_kwonlyargcount or \
            function.__defaults__ or not code.co_flags & inspect.CO_VARARGS or \
            code.co_argcount != 1 + len(leading):
        return None
    located = located_current(function)
    tree = function_node(located)
    if not isinstance(tree, ast.FunctionDef) or tree.decorator_list:
        return None
    arguments = tree.args
    parameters = [a.arg for a in arguments.args]
    renames = {parameters[0]: "hook_self", **dict(zip(parameters[1:], leading)),
               arguments.vararg.arg: "hook_args"}
    if arguments.kwarg is not None:
        renames[arguments.kwarg.arg] = "hook_kwargs"
    body = _plain_body(tree.body)
    if body is None:
        return None
    assigned = _assigned_names(body)
    if assigned & {parameters[0], *parameters[1:]}:
        return None  # the helper's own `f`, `out` or `hook_self` would be rebound
    free = _loaded_names(body) - assigned - set(renames)
    if free & (HELPER_NAMES | CALLER_NAMES | {"__class__"}) or \
            any(_private(name) for name in _identifiers(body)):
        return None
    renames.update({name: f"hook_{name}" for name in assigned - set(renames)})
    _Rename(renames).visit(ast.Module(body=body, type_ignores=[]))
    lines = frozenset(line for stmt in body for node in ast.walk(stmt)
                      for line in [getattr(node, "lineno", None)] if line)
    if code.co_firstlineno in lines:
        return None  # a one-line hook: its helper's machinery would share the line
    loaded = _loaded_names(body)
    return InlineHook(name=code.co_name, body=body, globals=function.__globals__,
                      filename=located.filename, firstlineno=code.co_firstlineno,
                      lines=lines, uses_args="hook_args" in loaded,
                      uses_kwargs="hook_kwargs" in loaded)


def _plain_body(body: list) -> list | None:
    """The statements to paste (docstring and a final bare `return` left out), or None."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if body and isinstance(body[-1], ast.Return) and (
            body[-1].value is None or _is_none(body[-1].value)):
        body = body[:-1]
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.stmt) and not isinstance(node, _ALLOWED_STATEMENTS):
                return None
            if isinstance(node, _REFUSED_EXPRESSIONS):
                return None
    return body


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _assigned_names(body: list) -> set:
    names = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
    return names


def _loaded_names(body: list) -> set:
    return {node.id for stmt in body for node in ast.walk(stmt)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _identifiers(body: list) -> set:
    found = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                found.add(node.arg)
    return found


def _private(identifier: str) -> bool:
    """A name Python would mangle inside the hook's class."""
    return identifier.startswith("__") and not identifier.endswith("__")


class _Rename(ast.NodeTransformer):
    def __init__(self, renames: dict) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.renames.get(node.id, node.id)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.name:
            node.name = self.renames.get(node.name, node.name)
        return self.generic_visit(node)
