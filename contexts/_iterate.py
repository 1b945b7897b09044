"""Iteration through the context: loops, comprehensions, splats and unpacking.

`for x in s` becomes `for x in __ovd0_iter__(s)`; the helper returns builtin
containers unchanged and sends anything else through the context's `iter`,
so a primitive on `Silo.__iter__` is honoured however a `Silo` is iterated.
"""

from __future__ import annotations

import ast

from contexts._names import call, hidden, name
from contexts._visit import BodyTransformer


class IterationMixin(BodyTransformer):
    """Mixed into the call pass (one walk for both), active when `self.iterating`."""

    level: int
    iterating: bool

    def wrap(self, node: ast.expr) -> ast.expr:
        # Native for this context; an outer context runs the helper in its own.
        return call(name(hidden(self.level, "iter"), node), [node], node, native=self.level)

    def visit_For(self, node: ast.For) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            node.iter = self.wrap(node.iter)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating and not node.is_async:
            node.iter = self.wrap(node.iter)
        return node

    def visit_Starred(self, node: ast.Starred) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating and isinstance(node.ctx, ast.Load):
            node.value = self.wrap(node.value)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
            node.value = self.wrap(node.value)
        return node
