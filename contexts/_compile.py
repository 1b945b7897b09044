"""Compiling a function body in its original lexical context, and binding it.

The body is compiled inside a pruned copy of its module: the top-level imports
(they change code generation), then the chain of enclosing classes and
functions, so closures, `__class__`, name mangling and `nonlocal` come out as
they were. The engine's hidden names are parameters of an outer factory, hence
free variables of the body, filled from closure cells when binding.
"""

from __future__ import annotations

import ast
import inspect
import pickle
import types
from typing import Iterable

from contexts._generated import register
from contexts._source import Located, NoSource, reparse, same_code, take

FACTORY = "__ovd_factory__"
_LATE_FLAGS = 0x100 | 0x200  # CO_ITERABLE_COROUTINE and friends set after compiling
# Flags that say where code was compiled, not what its body does: the body is
# compiled inside the factory (so always nested), the original maybe not.
_PLACE_FLAGS = inspect.CO_NESTED


def function_node(located: Located) -> ast.AST:
    """A fresh, mutable `FunctionDef` for the located function (lambdas become one).

    The first caller may get the located node's contents (see `take`): parsing
    them again would be a tenth of a first transform. Later callers parse the
    function's lines again.
    """
    node = located.node
    if isinstance(node, ast.Lambda):
        copy = _copy(node)
        body = ast.Return(value=copy.body)
        ast.copy_location(body, copy.body)
        tree = ast.FunctionDef(name="<lambda>", args=copy.args, body=[body],
                               decorator_list=[], returns=None, type_comment=None)
        return ast.copy_location(tree, node)
    taken = take(located)
    if taken is not None:
        return taken
    if located.lines:
        return reparse(located.span, located.lines)
    return _copy(node)


def _copy(node: ast.AST) -> ast.AST:
    """A deep copy of a subtree (pickling is the fastest way; markers come along)."""
    return pickle.loads(pickle.dumps(node, protocol=pickle.HIGHEST_PROTOCOL))


def compile_in_context(located: Located, tree: ast.AST, hidden: Iterable[str],
                       freevars: Iterable[str]) -> types.CodeType:
    """Compile `tree` (a function or lambda node) where `located` says it was defined."""
    hidden = sorted(hidden)
    inner: ast.stmt = tree if not isinstance(tree, ast.Lambda) else ast.Expr(value=tree)
    ast.copy_location(inner, tree)
    dummies = [name for name in freevars if name != "__class__" and name not in hidden]
    inner = _wrap_chain(located.chain, inner, dummies)
    factory = _factory(hidden, located.chain, tree, inner)
    module = ast.Module(body=[*located.imports, factory], type_ignores=[])
    try:  # every node the engine makes has a location; a pass may forget one
        code = compile(module, located.filename, "exec", dont_inherit=True)
    except (TypeError, ValueError):
        code = compile(ast.fix_missing_locations(module), located.filename, "exec",
                       dont_inherit=True)
    found = _find(code, tree)
    if found is None:
        raise NoSource(f"compiled {located.filename!r} but lost the function")
    return found


_LAMBDA_SCOPE = "__ovd_scope__"  # the stand-in of an enclosing lambda


def _wrap_chain(chain: tuple, inner: ast.stmt, dummies: list) -> ast.stmt:
    """Rebuild the enclosing scopes around `inner`, innermost first."""
    innermost_function = True
    for scope in reversed(chain):
        if isinstance(scope, ast.ClassDef):
            wrapped = ast.ClassDef(name=scope.name, bases=[], keywords=[], body=[inner],
                                   decorator_list=[])
        else:
            body = [inner]
            if innermost_function:
                body = [_dummy(name, scope) for name in dummies] + body
                innermost_function = False
            name = getattr(scope, "name", _LAMBDA_SCOPE)
            wrapped = ast.FunctionDef(name=name, args=_no_args(), body=body,
                                      decorator_list=[], returns=None, type_comment=None)
        inner = ast.copy_location(wrapped, scope)
    if innermost_function and dummies:
        raise NoSource(f"free variables {dummies} have no enclosing function")
    return inner


def _dummy(name: str, where: ast.AST) -> ast.stmt:
    target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), where)
    value = ast.copy_location(ast.Constant(value=None), where)
    return ast.copy_location(ast.Assign(targets=[target], value=value), where)


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _factory(hidden: list, chain: tuple, tree: ast.AST, inner: ast.stmt) -> ast.stmt:
    """The outer function whose parameters become the hidden free variables."""
    outermost = chain[0] if chain else tree
    body: list = []
    name = getattr(outermost, "name", None)
    if name and name.isidentifier():
        body.append(ast.copy_location(ast.Global(names=[name]), outermost))  # plain qualnames
    body.append(inner)
    args = _no_args()
    args.args = [ast.copy_location(ast.arg(arg=name), outermost) for name in hidden]
    factory = ast.FunctionDef(name=FACTORY, args=args, body=body, decorator_list=[],
                              returns=None, type_comment=None)
    return ast.copy_location(factory, outermost)


def _find(code: types.CodeType, tree: ast.AST) -> types.CodeType | None:
    """The code object compiled from `tree`: in the first scope of a pre-order walk
    that holds one of its name and line, the last such. Its default values and
    decorators are compiled before it, in that scope, and may be code of the same
    name and line (`lambda x, g=lambda t: t: g(x)`)."""
    name = "<lambda>" if isinstance(tree, ast.Lambda) else tree.name
    decorators = getattr(tree, "decorator_list", None)
    line = decorators[0].lineno if decorators else tree.lineno
    inner = [const for const in code.co_consts if isinstance(const, types.CodeType)]
    matches = [c for c in inner if c.co_name == name and c.co_firstlineno == line]
    if matches:
        return matches[-1]
    for const in inner:
        found = _find(const, tree)
        if found is not None:
            return found
    return None


def check_current(f: types.FunctionType, located: Located) -> None:
    """Prove the located source is what `f` was compiled from, or refuse it."""
    original = f.__code__
    code = compile_in_context(located, located.node, (), original.co_freevars)
    if not same_code(code, original):
        raise NoSource(
            f"the source of {original.co_qualname} in {located.filename!r} no longer "
            "matches its code (edited since import?); it runs natively"
        )


def finish_code(code: types.CodeType, original: types.CodeType) -> types.CodeType:
    """Give generated code the original's names, late flags and place flags."""
    flags = code.co_flags & ~_PLACE_FLAGS | original.co_flags & (_LATE_FLAGS | _PLACE_FLAGS)
    finished = _unprefixed(code).replace(
        co_name=original.co_name, co_qualname=original.co_qualname, co_flags=flags)
    register(finished)
    return finished


def _unprefixed(code: types.CodeType) -> types.CodeType:
    """Nested code without the factory in its qualified name (a lambda has no `global`),
    and with `<lambda>` for the stand-in of an enclosing lambda, so a function made
    inside has the qualname the source index knows it by."""
    consts = tuple(_unprefixed(c) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    qualname = code.co_qualname.removeprefix(f"{FACTORY}.<locals>.")
    return code.replace(co_consts=consts,
                        co_qualname=qualname.replace(_LAMBDA_SCOPE, "<lambda>"))


def bind(code: types.CodeType, f: types.FunctionType, closure: tuple) -> types.FunctionType:
    """A function running `code` with `f`'s globals and defaults, and `closure`."""
    new = types.FunctionType(code, f.__globals__, f.__name__, f.__defaults__, closure)
    new.__kwdefaults__ = f.__kwdefaults__
    new.__qualname__ = f.__qualname__
    new.__doc__ = f.__doc__
    new.__module__ = f.__module__
    if f.__dict__:
        new.__dict__.update(f.__dict__)
    if f.__annotations__:
        new.__annotations__ = f.__annotations__
    return new
