"""Markers a pass (or any code) can write into a function body.

`nooverdub(f)(args)` calls `f` natively, outside the context; at run time
`nooverdub(f)` is `f`. `contextslot()` is the running context. Given AST
nodes instead of values, both build the marker nodes, for pass authors.
"""

from __future__ import annotations

import ast
from typing import Any


def nooverdub(f: Any) -> Any:
    """Mark a callee to be called natively; with an `ast.expr`, build that marker."""
    if isinstance(f, ast.expr):
        marker = ast.Call(func=ast.Name(id="nooverdub", ctx=ast.Load()), args=[f], keywords=[])
        return ast.copy_location(marker, f)
    return f


def contextslot() -> ast.expr:
    """The running context, in a transformed body; an AST node for pass authors."""
    return ast.Call(func=ast.Name(id="contextslot", ctx=ast.Load()), args=[], keywords=[])
