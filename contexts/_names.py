"""Reserved names: the hidden names generated code refers to its machinery by.

Generated code refers to its machinery through hidden names that start with
`__ovd`; they live in closure cells, never in globals or builtins. Hidden names
carry a level, so code generated for an inner context can be transformed again
for an outer one without the two sets of names colliding.
"""

from __future__ import annotations

import ast
import re
import types
from typing import Any

from contexts._builders import name

# Callees that need the caller's frame, recognised by name (`_calls`, `_exec`).
FRAME_NAMES = {"locals", "vars", "dir", "globals", "eval", "exec", "breakpoint"}
# Callees recognised by name; a pass must leave their names as written.
CALLER_NAMES = FRAME_NAMES | {"super"}

PREFIX = "__ovd"
_HIDDEN = re.compile(r"__ovd(\d+)_")


def hidden(level: int, what: str) -> str:
    """The hidden name for `what` at nesting `level` (`__ovd0_res__`)."""
    return f"{PREFIX}{level}_{what}__"


_LITERALS = (int, float, complex, str, bytes, bool, type(None), type(...))


def is_literal(value: Any) -> bool:
    """Whether an `ast.Constant` may hold `value` in compiled code."""
    return type(value) in _LITERALS or (
        type(value) in (tuple, frozenset) and all(map(is_literal, value)))


class Hidden:
    """Makes the hidden names of one transform, at its level, and records them.

    The compile step makes every recorded name a free variable of the body
    (a temporary the body assigns stays its local), so no walk of the
    transformed tree has to find them. Objects that no `ast.Constant` may
    hold are put in cells, each under a name of its own.
    """

    def __init__(self, level: int) -> None:
        self.level = level
        self.names: set = set()
        self.cells: dict = {}  # hidden name -> cell holding an object
        self._by_identity: dict = {}  # id(object) -> the name of its cell

    def __call__(self, what: str) -> str:
        identifier = hidden(self.level, what)
        self.names.add(identifier)
        return identifier

    def holding(self, value: Any, where: ast.AST) -> ast.Name:
        """A name for `value`, which a cell holds."""
        identifier = self._by_identity.get(id(value))
        if identifier is None:
            identifier = self._by_identity[id(value)] = self(f"c{len(self.cells)}")
            self.cells[identifier] = types.CellType(value)
        return name(identifier, where)


def level_of(tree: ast.AST) -> int:
    """One more than the deepest level of hidden names already in `tree`."""
    deepest = -1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            match = _HIDDEN.match(node.id)
            if match:
                deepest = max(deepest, int(match.group(1)))
    return deepest + 1


def mangled(attribute: str, class_name: str | None) -> str:
    """`attribute` as the compiler stores it inside `class_name` (`__x` is private)."""
    if class_name and attribute.startswith("__") and not attribute.endswith("__"):
        stripped = class_name.lstrip("_")
        if stripped:
            return f"_{stripped}{attribute}"
    return attribute
