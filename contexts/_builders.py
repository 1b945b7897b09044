"""Small AST builders shared by the pipeline steps, and the mark of a native call.

They give node fields by position: keywords cost a third more, and a transform
builds a few hundred nodes.
"""

from __future__ import annotations

import ast
from typing import Any

# Attribute of an `ast.Call` the engine must leave alone: True at every level, or
# the one level whose own machinery the call is (an outer context still sees it).
NATIVE = "ovd_native"

_LOAD, _STORE, _DELETE = ast.Load(), ast.Store(), ast.Del()


def placed(node: ast.AST, where: ast.AST) -> ast.AST:
    """`node`, given the location of `where` (cheaper than `ast.copy_location`,
    and complete where a pass made `where` without its end)."""
    lineno = node.lineno = where.lineno
    column = node.col_offset = where.col_offset
    end_lineno = getattr(where, "end_lineno", None)
    end_column = getattr(where, "end_col_offset", None)
    node.end_lineno = lineno if end_lineno is None else end_lineno
    node.end_col_offset = column if end_column is None else end_column
    return node


def name(identifier: str, where: ast.AST | None = None, store: bool = False,
         delete: bool = False) -> ast.Name:
    node = ast.Name(identifier, _STORE if store else _DELETE if delete else _LOAD)
    return node if where is None else placed(node, where)


def constant(value: Any, where: ast.AST) -> ast.Constant:
    """An AST constant holding any object (hoisted into a cell before compiling)."""
    return placed(ast.Constant(value), where)


def call(func: ast.expr, args: list, where: ast.AST, keywords: list | None = None,
         native: bool | int = False) -> ast.Call:
    node = placed(ast.Call(func, args, keywords or []), where)
    if native is not False:
        setattr(node, NATIVE, native)
    return node


def is_native(node: ast.AST, level: int) -> bool:
    """Whether the call pass at `level` must leave this call alone."""
    native = getattr(node, NATIVE, False)
    return native is True or (native is not False and native == level)


def assign(target: str, value: ast.expr, where: ast.AST) -> ast.Assign:
    return placed(ast.Assign([name(target, where, store=True)], value), where)
