"""Sites of implicit calls: iteration, property access, `with`.

Mixed into the call pass when a context watches protocols. `for x in s`
becomes `for x in __ovd0_iter__(s)` (also comprehensions, splats and
unpacking; `yield from s` has its own helper, `yfrom`), so a primitive on
`Silo.__iter__` is honoured however a `Silo` is iterated; `o.x` becomes
`__ovd0_attr__(o, "x")` and `o.x = v` a call of `__ovd0_setattr__`, so a
property's getter and setter are calls in the context; `with m:` becomes
`with __ovd0_with__(m):`, so `__enter__` and `__exit__` are. The helpers
(`_implicit`) run natively what runs no Python code.
"""

from __future__ import annotations

import ast

from contexts._names import assign, at, call, constant, hidden, mangled, name
from contexts._visit import BodyTransformer


class ImplicitMixin(BodyTransformer):
    """Mixed into the call pass (one walk for both), active when `self.iterating`.

    `self.properties` adds attribute access (not when tagging: the tagging
    pass already makes attribute access calls).
    """

    level: int
    iterating: bool
    properties: bool
    class_name: str | None  # private attribute names are mangled with it
    stores: int = 0

    def helper(self, what: str, args: list, where: ast.AST) -> ast.expr:
        # Native for this context; an outer context runs the helper in its own.
        return call(name(hidden(self.level, what), where), args, where, native=self.level)

    def wrap(self, node: ast.expr) -> ast.expr:
        return self.helper("iter", [node], node)

    def visit_With(self, node: ast.With) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            for item in node.items:
                item.context_expr = self.helper("with", [item.context_expr], item.context_expr)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node = self.generic_visit(node)
        if self.properties and isinstance(node.ctx, ast.Load) and \
                not getattr(node, "ovd_callee", False):
            attribute = constant(mangled(node.attr, self.class_name), node)
            return self.helper("attr", [node.value, attribute], node)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            node.iter = self.wrap(node.iter)
        return node

    def visit_YieldFrom(self, node: ast.YieldFrom) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            node.value = self.helper("yfrom", [node.value], node.value)
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
        target = node.targets[0]
        if self.properties and len(node.targets) == 1 and isinstance(target, ast.Attribute):
            # `o.x = v`: v first, then o, as Python evaluates them.
            self.stores += 1
            temp = hidden(self.level, f"s{self.stores}")
            attribute = constant(mangled(target.attr, self.class_name), target)
            store = self.helper("setattr", [target.value, attribute, name(temp, node)], node)
            return [assign(temp, node.value, node),
                    ast.copy_location(ast.Expr(value=store), node)]
        return node
