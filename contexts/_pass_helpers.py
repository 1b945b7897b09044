"""Helpers for pass authors, the Python analogues of Cassette's IR-munging utilities.

A pass receives the `ast.FunctionDef` of each body the run meets, already
lowered (operators are calls of `operator` functions, held in `ast.Constant`
callees), and returns the tree to use.
"""

from __future__ import annotations

import ast
from typing import Any, Callable


def insert_statements(body: list, stmtcount: Callable, newstmts: Callable) -> list:
    """Replace each statement for which `stmtcount(stmt, i)` is a number by `newstmts`.

    Walks `body` and the blocks nested in its compound statements (not nested
    function or class bodies); `i` is the position within the block. As in
    Cassette, `newstmts(stmt, i)` must return exactly `stmtcount(stmt, i)`
    statements. The lists are changed in place; `body` is returned.
    """
    position = 0
    while position < len(body):
        stmt = body[position]
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    insert_statements(block, stmtcount, newstmts)
            for part in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
                insert_statements(part.body, stmtcount, newstmts)
        count = stmtcount(stmt, position)
        if count is None:
            position += 1
            continue
        new = list(newstmts(stmt, position))
        if len(new) != count:
            raise ValueError(f"insert_statements: stmtcount said {count} statements but "
                             f"newstmts gave {len(new)} for line {getattr(stmt, 'lineno', '?')}")
        for node in new:
            ast.copy_location(node, stmt)
            ast.fix_missing_locations(node)
        body[position:position + 1] = new
        position += count
    return body


def replace_match(replace: Callable, ismatch: Callable, x: Any) -> Any:
    """`x` with every sub-node `y` for which `ismatch(y)` replaced by `replace(y)`.

    Nodes that do not match are searched in turn. Changes `x` in place and
    returns it (or the replacement, when `x` itself matches).
    """
    if ismatch(x):
        new = replace(x)
        if isinstance(new, ast.AST) and isinstance(x, ast.AST):
            ast.copy_location(new, x)
            ast.fix_missing_locations(new)
        return new
    if isinstance(x, list):
        x[:] = [replace_match(replace, ismatch, item) for item in x]
    elif isinstance(x, ast.AST):
        for field, value in ast.iter_fields(x):
            if isinstance(value, (list, ast.AST)):
                setattr(x, field, replace_match(replace, ismatch, value))
    return x
