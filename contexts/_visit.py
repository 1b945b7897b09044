"""The traversal every engine step shares: a function body, not nested bodies.

Bodies of nested `def`, `lambda` and `class` are left as written (they are
transformed when called inside a context); what runs in the enclosing scope,
decorators, default values, class bases and keywords, is visited. A visit of a
statement may return a list of statements to put in its place.
"""

from __future__ import annotations

import ast

from contexts._names import NATIVE


_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _leaf(self: ast.NodeTransformer, node: ast.AST) -> ast.AST:
    return node


class BodyTransformer(ast.NodeTransformer):
    """The shared traversal; visitor methods are looked up once per node type."""

    _visitors: dict = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._visitors = {}

    def visit(self, node: ast.AST):
        kind = type(node)
        try:
            visitor = self._visitors[kind]
        except KeyError:
            visitor = self._visitors[kind] = self._visitor_for(kind)
        return visitor(self, node)

    @classmethod
    def _visitor_for(cls, kind: type):
        if issubclass(kind, _LEAVES):  # nothing inside to visit
            return _leaf
        return getattr(cls, "visit_" + kind.__name__, None) or cls.generic_visit

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return node

    def transform_body(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        tree.body = self.statements(tree.body)
        return tree

    def statements(self, body: list) -> list:
        out: list = []
        for stmt in body:
            if getattr(stmt, NATIVE, False) is True:  # engine machinery: left alone
                out.append(stmt)
                continue
            result = self.visit(stmt)
            out.extend(result if isinstance(result, list) else [result])
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    setattr(node, field, self.statements(value))
                else:
                    for index, item in enumerate(value):
                        if isinstance(item, ast.AST):
                            new = self.visit(item)
                            if new is not item:
                                value[index] = new
            elif isinstance(value, ast.AST):
                new = self.visit(value)
                if new is not value:
                    setattr(node, field, new)
        return node

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        self.visit_defaults(node.args)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.visit_defaults(node.args)
        return node

    def visit_defaults(self, args: ast.arguments) -> None:
        args.defaults = [self.visit(d) for d in args.defaults]
        args.kw_defaults = [d and self.visit(d) for d in args.kw_defaults]

    # Patterns hold literals and dotted names that the compiler resolves itself:
    # only their sub-patterns are visited.
    def visit_MatchValue(self, node: ast.MatchValue) -> ast.AST:
        return node

    def visit_MatchClass(self, node: ast.MatchClass) -> ast.AST:
        node.patterns = [self.visit(p) for p in node.patterns]
        node.kwd_patterns = [self.visit(p) for p in node.kwd_patterns]
        return node

    def visit_MatchMapping(self, node: ast.MatchMapping) -> ast.AST:
        node.patterns = [self.visit(p) for p in node.patterns]
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        return node
