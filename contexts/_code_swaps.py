"""A function given new code in a run is resolved again.

Each context resolves a function once and runs what it found from then on
(`_runtime`): the lookup on every call is one dict subscript, with no room to
compare the function's `__code__`. Code that replaces a function's code would
then have the old code run again; networkx's lazy decorators compile the real
wrapper on the first call, put its code in place and call themselves, so the
old code compiles and calls again, forever. A store `f.__code__ = code` in a
transformed body is therefore followed by a native call that makes every live
context forget `f`. Not seen: a replacement through `setattr` with a computed
name, or made outside every context between two runs of one context.
"""

from __future__ import annotations

import ast
import types
import weakref
from typing import Any

from contexts._builders import NATIVE, call, name
from contexts._names import Hidden
from contexts._visit import BodyTransformer

_runtimes: weakref.WeakSet = weakref.WeakSet()


def watch(runtime: Any) -> None:
    """Tell `runtime` (it has `forget(f)`) of every function whose code is replaced."""
    _runtimes.add(runtime)


def forget(f: Any) -> None:
    """`f.__code__` was just replaced: every context resolves `f` afresh."""
    if type(f) is types.FunctionType:
        for runtime in list(_runtimes):
            runtime.forget(f)


def replaces_code(code: types.CodeType) -> bool:
    """Whether a body may store to some `__code__` (the cheap test, before a walk)."""
    return "__code__" in code.co_names


def forget_replaced_code(tree: ast.FunctionDef, hidden: Hidden) -> ast.FunctionDef:
    """Follow each `owner.__code__ = code` in the body with `forget(owner)`."""
    return _CodeStores(hidden).transform_body(tree)


class _CodeStores(BodyTransformer):
    def __init__(self, hidden: Hidden) -> None:
        self.hidden = hidden
        self.owners = 0

    def visit_Assign(self, node: ast.Assign) -> Any:
        node = self.generic_visit(node)
        forgets = []
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "__code__":
                forgets.append(self._forget(self._owner(target), node))
        return [node, *forgets] if forgets else node

    def _owner(self, target: ast.Attribute) -> ast.expr:
        """What `target` stores into, read again after the store: a name as it is,
        anything else kept in a hidden name as the store evaluates it."""
        if isinstance(target.value, ast.Name):
            return name(target.value.id, target)
        self.owners += 1
        kept = self.hidden(f"codeowner{self.owners}")
        target.value = ast.copy_location(
            ast.NamedExpr(name(kept, target, store=True), target.value), target.value)
        return name(kept, target)

    def _forget(self, owner: ast.expr, where: ast.AST) -> ast.stmt:
        forgetting = call(self.hidden.holding(forget, where), [owner], where, native=True)
        statement = ast.copy_location(ast.Expr(forgetting), where)
        setattr(statement, NATIVE, True)  # engine machinery: later steps leave it alone
        return statement
