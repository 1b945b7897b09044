"""Reserved names and small AST builders shared by the pipeline steps.

Generated code refers to its machinery through hidden names that start with
`__ovd`; they live in closure cells, never in globals or builtins. Hidden names
carry a level, so code generated for an inner context can be transformed again
for an outer one without the two sets of names colliding.
"""

from __future__ import annotations

import ast
import re
from typing import Any

PREFIX = "__ovd"
# Attribute of an `ast.Call` the engine must leave alone: True at every level, or
# the one level whose own machinery the call is (an outer context still sees it).
NATIVE = "ovd_native"
_HIDDEN = re.compile(r"__ovd(\d+)_")


def hidden(level: int, what: str) -> str:
    """The hidden name for `what` at nesting `level` (`__ovd0_res__`)."""
    return f"{PREFIX}{level}_{what}__"


def level_of(tree: ast.AST) -> int:
    """One more than the deepest level of hidden names already in `tree`."""
    deepest = -1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            match = _HIDDEN.match(node.id)
            if match:
                deepest = max(deepest, int(match.group(1)))
    return deepest + 1



_LOAD, _STORE, _DELETE = ast.Load(), ast.Store(), ast.Del()


def at(where: ast.AST) -> dict:
    """The location of `where`, to give a new node (cheaper than `ast.copy_location`)."""
    try:
        location = {"lineno": where.lineno, "col_offset": where.col_offset,
                    "end_lineno": where.end_lineno, "end_col_offset": where.end_col_offset}
    except AttributeError:  # a node a pass made without its end
        location = None
    if location is None or location["end_lineno"] is None or \
            location["end_col_offset"] is None:
        lineno, col = where.lineno, where.col_offset
        location = {"lineno": lineno, "col_offset": col,
                    "end_lineno": getattr(where, "end_lineno", None) or lineno,
                    "end_col_offset": getattr(where, "end_col_offset", None) or col}
    return location


def name(identifier: str, where: ast.AST | None = None, store: bool = False,
         delete: bool = False) -> ast.Name:
    context = _STORE if store else _DELETE if delete else _LOAD
    if where is None:
        return ast.Name(id=identifier, ctx=context)
    return ast.Name(id=identifier, ctx=context, **at(where))


def constant(value: Any, where: ast.AST) -> ast.Constant:
    """An AST constant holding any object (hoisted into a cell before compiling)."""
    return ast.Constant(value=value, **at(where))


def call(func: ast.expr, args: list, where: ast.AST, keywords: list | None = None,
         native: bool | int = False) -> ast.Call:
    node = ast.Call(func=func, args=args, keywords=keywords or [], **at(where))
    if native is not False:
        setattr(node, NATIVE, native)
    return node


def is_native(node: ast.AST, level: int) -> bool:
    """Whether the call pass at `level` must leave this call alone."""
    native = getattr(node, NATIVE, False)
    return native is True or (native is not False and native == level)


def assign(target: str, value: ast.expr, where: ast.AST) -> ast.Assign:
    return ast.Assign(targets=[name(target, where, store=True)], value=value, **at(where))


def mangled(attribute: str, class_name: str | None) -> str:
    """`attribute` as the compiler stores it inside `class_name` (`__x` is private)."""
    if class_name and attribute.startswith("__") and not attribute.endswith("__"):
        stripped = class_name.lstrip("_")
        if stripped:
            return f"_{stripped}{attribute}"
    return attribute
