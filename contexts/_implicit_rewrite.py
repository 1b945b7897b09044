"""Sites of implicit calls: iteration, property access, `with`.

Mixed into the call pass when a context watches protocols. `for x in s`
becomes `for x in __ovd0_iter__(s)` (also comprehensions, splats and
unpacking; `yield from s` has its own helper, `yfrom`; a quiet body's loops
`quiet_iter`, whose `iter` call hooks do not see), so a primitive on
`Silo.__iter__` is honoured however a `Silo` is iterated; `o.x` becomes
`__ovd0_attr__(o, "x")` and `o.x = v` a call of `__ovd0_setattr__`, so a
property's getter and setter are calls in the context; `with m:` becomes
`with __ovd0_with__(m):`, so `__enter__` and `__exit__` are (and `async with`'s
`__aenter__` and `__aexit__`, `async for`'s `__aiter__` and `__anext__`). The helpers
(`_implicit_runtime`) run natively what runs no Python code. A generator
expression is handed to `made`, so the runtime knows which generators its
code made (a context is reused only when none can run again).
"""

from __future__ import annotations

import ast
import sys

from contexts._builders import assign, call, constant, name, placed
from contexts._cells import engine_cell
from contexts._names import PREFIX, Hidden, mangled
from contexts._visit import BodyTransformer


class ImplicitMixin(BodyTransformer):
    """Mixed into the call pass (one walk for both), active when `self.iterating`.

    `self.properties` adds attribute access (not with a layer: a layer's pass
    makes attribute access calls of its own); `self.truths` truth tests.
    """

    hidden: Hidden
    level: int
    iterating: bool
    properties: bool
    truths: bool
    quiet: bool  # a quiet module's body, in a hooked context
    class_name: str | None  # private attribute names are mangled with it
    stores: int = 0
    operands: int = 0
    walrus_allowed: bool = True  # not in a comprehension's iterable

    def helper(self, what: str, args: list, where: ast.AST) -> ast.expr:
        # Native for this context; an outer context runs the helper in its own.
        return call(name(engine_cell(self.hidden, what), where), args, where, native=self.level)

    def wrap(self, node: ast.expr) -> ast.expr:
        return self.helper("quiet_iter" if self.quiet else "iter", [node], node)

    def visit_With(self, node: ast.With) -> ast.AST:
        return self.managed(node, "with")

    def visit_AsyncWith(self, node: ast.AsyncWith) -> ast.AST:
        return self.managed(node, "async_with")

    def managed(self, node: ast.With | ast.AsyncWith, helper: str) -> ast.AST:
        """Each context manager of the statement given to `helper` (`_Managed`)."""
        node = self.generic_visit(node)
        if self.iterating:
            for item in node.items:
                item.context_expr = self.helper(helper, [item.context_expr], item.context_expr)
        return node

    def visit_AsyncFor(self, node: ast.AsyncFor) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            node.iter = self.helper("async_iter", [node.iter], node.iter)
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

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.AST:
        """`(... for ...)` becomes `__ovd0_made__(...)`: the runtime keeps track of
        the generators its code makes (`_runtime.idle`)."""
        node = self.generic_visit(node)
        if self.iterating:
            return self.helper("made", [node], node)
        return node

    def visit_YieldFrom(self, node: ast.YieldFrom) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating:
            node.value = self.helper("yfrom", [node.value], node.value)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        allowed, self.walrus_allowed = self.walrus_allowed, False
        node.iter = self.visit(node.iter)
        self.walrus_allowed = allowed
        node.target = self.visit(node.target)
        node.ifs = [self.truth(test) for test in node.ifs]
        if self.iterating:
            node.iter = self.helper("async_iter", [node.iter], node.iter) if node.is_async \
                else self.wrap(node.iter)
        return node

    # Truth tests: `if x:` becomes `if __ovd0_truth__(x):`, so a Python `__bool__`
    # (or `__len__`) is a call in the context, however the test is written.

    def truth(self, test: ast.expr, gives_bool: bool = False) -> ast.expr:
        """`test` visited, and tested in the context unless it surely gives a bool.

        Where only its truth counts, `a and b` tests each operand once, as CPython
        does (its value, which `visit_BoolOp` keeps, would be tested again).
        """
        if not self.truths or gives_bool or _gives_bool(test):
            return self.visit(test)
        if isinstance(test, ast.BoolOp):
            test.values = [self.truth(value) for value in test.values]
            return test
        test = self.visit(test)
        if self.tests_in_helper(test):
            return test
        if not self.walrus_allowed:
            return self.helper("truth", [test], test)
        # `(t := x) is True or t is not False and truth(t)`: a bool costs no call.
        if isinstance(test, ast.NamedExpr):
            temp = test.target.id
        else:
            temp = self.operand(test)
            bound = ast.NamedExpr(target=name(temp, test, store=True), value=test)
            test = placed(bound, test)
        held = name(temp, test)
        is_true = placed(ast.Compare(left=test, ops=[ast.Is()],
                                     comparators=[constant(True, test)]), test)
        not_false = placed(ast.Compare(left=held, ops=[ast.IsNot()],
                                       comparators=[constant(False, test)]), test)
        tested = self.helper("truth", [name(temp, test)], test)
        return _joined(ast.Or(), [is_true, _joined(ast.And(), [not_false, tested], test)], test)

    def tests_in_helper(self, test: ast.expr) -> bool:
        """Make a hooked operator site test its own result (`op_lt_vk` -> `opt_lt_vk`).

        Its helper then returns the result's truth, tested as above: the common
        `if a < b:` costs no test at the site.
        """
        operator_helper = f"{PREFIX}{self.level}_op_"
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
                test.func.id.startswith(operator_helper):
            site = test.func.id[len(operator_helper):-2]
            test.func.id = engine_cell(self.hidden, f"opt_{site}")
            return True
        return False

    def operand(self, where: ast.AST) -> str:
        """A fresh hidden name to hold a tested value."""
        self.operands += 1
        return self.hidden(f"b{self.operands}")

    def visit_If(self, node: ast.If | ast.While) -> ast.AST:
        node.test = self.truth(node.test)
        node.body, node.orelse = self.statements(node.body), self.statements(node.orelse)
        return node

    visit_While = visit_If

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        node.test = self.truth(node.test)
        node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
        return node

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        node.test = self.truth(node.test)
        if node.msg is not None:
            node.msg = self.visit(node.msg)
        return node

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        node.pattern = self.visit(node.pattern)
        if node.guard is not None:
            node.guard = self.truth(node.guard)
        node.body = self.statements(node.body)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        """`a or b` is `t if truthy(a, t) else b`, where `truthy` tests `a`, holding its
        value in `t` (`and`: `falsy`); each operand, however nested, is tested as often
        and in the order CPython tests it (`_flattened`), and the chosen value is
        returned."""
        tested = node.values[:-1]
        if not self.truths or not self.walrus_allowed or all(map(_gives_bool, tested)):
            # (no name can hold an operand in a comprehension's iterable)
            return self.generic_visit(node)
        temp = self.operand(node)
        binding = self.truthy if isinstance(node.op, ast.Or) else self.falsy
        chosen = _joined(ast.Or(), [binding(v, temp) for v in tested], node)
        last = self.visit(node.values[-1])
        return placed(ast.IfExp(test=chosen, body=name(temp, node), orelse=last), node)

    def truthy(self, node: ast.expr, temp: str) -> ast.expr:
        """A test that `node` is truthy, holding its value in `temp` when it is."""
        if _flattened(node) and isinstance(node.op, ast.Or):
            return _joined(ast.Or(), [self.truthy(v, temp) for v in node.values], node)
        if _flattened(node):  # truthy when all are; its value is the last's
            *first, last = node.values
            values = [self.truth(v) for v in first] + [self.truthy(last, temp)]
            return _joined(ast.And(), values, node)
        bound = ast.NamedExpr(target=name(temp, node, store=True), value=node)
        return self.truth(placed(bound, node), _gives_bool(node))

    def falsy(self, node: ast.expr, temp: str) -> ast.expr:
        """A test that `node` is falsy, holding its value in `temp` when it is."""
        if _flattened(node) and isinstance(node.op, ast.And):
            return _joined(ast.Or(), [self.falsy(v, temp) for v in node.values], node)
        if _flattened(node):  # falsy when all are; its value is the last's
            *first, last = node.values
            values = [_negated(self.truth(v)) for v in first] + [self.falsy(last, temp)]
            return _joined(ast.And(), values, node)
        return _negated(self.truthy(node, temp))

    def visit_Starred(self, node: ast.Starred) -> ast.AST:
        node = self.generic_visit(node)
        if self.iterating and isinstance(node.ctx, ast.Load):
            node.value = self.wrap(node.value)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if self.iterating and len(node.targets) > 1 and any(
                isinstance(t, (ast.Tuple, ast.List)) or
                (self.properties and isinstance(t, ast.Attribute)) for t in node.targets):
            return self.chained(node)
        node = self.generic_visit(node)
        if self.iterating and isinstance(node.targets[0], (ast.Tuple, ast.List)):
            node.value = self.wrap(node.value)
        return self.stored(node)

    def visit_Delete(self, node: ast.Delete) -> ast.AST:
        """`del o.x`: a property's deleter, a descriptor's `__delete__` or a Python
        `__delattr__` called in the context; a statement of several targets deletes
        each in turn, as CPython does."""
        node = self.generic_visit(node)
        if not self.properties or not any(isinstance(t, ast.Attribute) for t in node.targets):
            return node
        return [ast.copy_location(ast.Expr(value=self.helper(
            "delattr", [t.value, constant(mangled(t.attr, self.class_name), t)], t)), node)
            if isinstance(t, ast.Attribute) else
            ast.copy_location(ast.Delete(targets=[t]), node) for t in node.targets]

    def chained(self, node: ast.Assign) -> list:
        """`a, b = x = v`: `v` once, then each target in turn, as CPython stores them:
        an unpacking target iterates the value, any other gets the value itself."""
        value = self.visit(node.value)
        self.stores += 1
        temp = self.hidden(f"s{self.stores}")
        out = [assign(temp, value, node)]
        for target in node.targets:
            single = ast.copy_location(
                ast.Assign(targets=[self.visit(target)], value=name(temp, node)), node)
            if isinstance(target, (ast.Tuple, ast.List)):
                single.value = self.wrap(single.value)
            stored = self.stored(single)
            out.extend(stored if isinstance(stored, list) else [stored])
        return out

    def stored(self, node: ast.Assign) -> ast.AST:
        """A one-target assignment whose parts are visited (a property's setter called
        in the context)."""
        target = node.targets[0]
        if self.properties and len(node.targets) == 1 and isinstance(target, ast.Attribute):
            # `o.x = v`: v first, then o, as Python evaluates them.
            self.stores += 1
            temp = self.hidden(f"s{self.stores}")
            attribute = constant(mangled(target.attr, self.class_name), target)
            store = self.helper("setattr", [target.value, attribute, name(temp, node)], node)
            return [assign(temp, node.value, node),
                    ast.copy_location(ast.Expr(value=store), node)]
        return node


def _flattened(node: ast.expr) -> bool:
    """Whether an `and`/`or` nested in another one's value tests each of its operands
    only once, as CPython 3.11 does by threading its jumps. From 3.12 on
    (`x = (a and b) or c`) the inner one's value is tested again by the outer one:
    it is an operand like any other."""
    return isinstance(node, ast.BoolOp) and sys.version_info < (3, 12)


def _gives_bool(test: ast.expr) -> bool:
    """Whether a test gives a bool whatever it runs on (as the engine's own tests do),
    so that testing it runs no Python code."""
    if isinstance(test, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot)) for op in test.ops)
    if isinstance(test, ast.BoolOp):
        return all(map(_gives_bool, test.values))
    return isinstance(test, ast.Constant) and type(test.value) is bool


def _negated(test: ast.expr) -> ast.expr:
    """`not test`, written so that no later lowering makes it a call of `operator.not_`."""
    negated = ast.IfExp(test=test, body=constant(False, test), orelse=constant(True, test))
    return placed(negated, test)


def _joined(op: ast.boolop, values: list, where: ast.AST) -> ast.expr:
    return values[0] if len(values) == 1 else placed(ast.BoolOp(op=op, values=values), where)
