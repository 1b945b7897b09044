"""The traversal every engine step shares: a function body, not nested functions.

Bodies of nested `def` and `lambda` are left as written (they are transformed
when called inside a context); what runs in the enclosing scope, decorators and
default values, is visited. A class body runs once, when its `class` statement
does, so it is part of the body that runs it: its statements are visited, with
`class_name` the class's (private names inside it are mangled with it) and
`in_class_body` set. A visit of a statement may return a list of statements to
put in its place.
"""

from __future__ import annotations

import ast

from contexts._builders import NATIVE, placed


# Node types with no node inside: every walk of a tree skips them.
LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


class BodyTransformer(ast.NodeTransformer):
    """The shared traversal; visitor methods are looked up once per node type.

    A node type with nothing to visit (names, constants, operator tokens, and
    field values that are not nodes) has no visitor: it is skipped without a call.
    """

    _visitors: dict = {}
    class_name: str | None = None  # the innermost class around what is visited
    in_class_body = False  # visiting a class body's statements (not a function's)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._visitors = {}

    def visit(self, node: ast.AST):
        visitor = self._visitor(type(node))
        return node if visitor is None else visitor(self, node)

    @classmethod
    def _visitor(cls, kind: type):
        try:
            return cls._visitors[kind]
        except KeyError:
            visitor = cls._visitors[kind] = cls._visitor_for(kind)
            return visitor

    @classmethod
    def _visitor_for(cls, kind: type):
        if not issubclass(kind, ast.AST) or issubclass(kind, LEAVES):
            return None
        method = getattr(cls, "visit_" + kind.__name__, None)
        if method is None and kind is ast.Name or method is BodyTransformer.visit_Constant:
            return None  # nothing inside, and this transformer keeps them as they are
        return method or cls.generic_visit

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
        visitors = self._visitors
        for field in node._fields:
            value = getattr(node, field, None)
            kind = type(value)
            if kind is list:
                if value and isinstance(value[0], ast.stmt):
                    setattr(node, field, self.statements(value))
                    continue
                for index, item in enumerate(value):
                    kind = type(item)
                    visitor = visitors[kind] if kind in visitors else self._visitor(kind)
                    if visitor is not None:
                        new = visitor(self, item)
                        if new is not item:
                            value[index] = new
            else:
                visitor = visitors[kind] if kind in visitors else self._visitor(kind)
                if visitor is not None:
                    new = visitor(self, value)
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

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        """A class body keeps its annotations in `__annotations__` (as text, under
        `from __future__ import annotations`): there they are left as written."""
        if not self.in_class_body:
            return self.generic_visit(node)
        node.target = self.visit(node.target)
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        outer = self.class_name, self.in_class_body
        self.class_name, self.in_class_body = node.name, True
        try:
            node.body = self.class_body(node)
        finally:
            self.class_name, self.in_class_body = outer
        return node

    def class_body(self, node: ast.ClassDef) -> list:
        """The statements of `node`'s body, visited."""
        return self.statements(node.body) or [placed(ast.Pass(), node)]
