"""Lowering: every operator becomes a call of its `operator` function.

As in Julia's lowered IR, `x * y` becomes `operator.mul(x, y)`, subscripts
become `getitem`/`setitem`/`delitem`, and augmented assignment becomes an
in-place operator call followed by a store, so a pass only has to handle
calls. Python's evaluation order is kept: the right-hand side of a subscript
store first, `a` before `b` in `a in b`, each operand of a chained comparison
once and lazily; `s += t` on strings keeps CPython's in-place fast path.
The callees are `ast.Constant` nodes holding the `operator` functions. For a
layer, an f-string's fields become `format` calls too.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from contexts._builders import NATIVE, assign, call, constant, name, placed
from contexts._names import Hidden, mangled
from contexts._operator_sites import operator_site
from contexts._operators import BINARY, COMPARE, INPLACE, UNARY
from contexts._visit import BodyTransformer

FRAME_ATTRIBUTES = {"_getframe", "currentframe", "stack"}  # callees that need the caller's frame
_CONVERSIONS = {ord("s"): str, ord("r"): repr, ord("a"): ascii}  # an f-string field's `!s`, ...


def lower(tree: ast.FunctionDef, hidden: Hidden, wanted: frozenset | None = None,
          attributes: bool = False, class_name: str | None = None,
          direct: bool = False, formats: bool = False) -> ast.FunctionDef:
    """Lower the operators of `tree`'s body (all of them, or those in `wanted`).

    With `attributes`, attribute loads, stores and deletions become calls of
    `getattr`, `setattr` and `delattr` too (a layer needs them). With `formats`,
    each field of an f-string becomes a `format` call (`visit_FormattedValue`).
    `direct`, when no pass runs before the (hooked) call pass: operators are
    written as the hooked sites that pass would make of them (`operator_site`),
    and objects go straight into cells.
    """
    lowering = _Lowering(hidden, wanted, attributes, class_name, direct, formats)
    return lowering.transform_body(tree)


class _Lowering(BodyTransformer):
    def __init__(self, hidden: Hidden, wanted: frozenset | None, attributes: bool,
                 class_name: str | None, direct: bool, formats: bool) -> None:
        self.hidden = hidden
        self.wanted = wanted
        self.attributes = attributes
        self.formats = formats
        self.class_name = class_name  # private names are mangled with it
        self.direct = direct
        self.temps = 0
        self.walrus_allowed = True

    def attribute_name(self, node: ast.Attribute) -> ast.Constant:
        return constant(mangled(node.attr, self.class_name), node)

    def lowers(self, function) -> bool:
        return self.wanted is None or function in self.wanted

    def temp(self) -> str:
        self.temps += 1
        return self.hidden(f"t{self.temps}")

    def held(self, value: Any, where: ast.AST) -> ast.expr:
        """An object in the tree: a constant a pass can read, or (direct) a cell."""
        return self.hidden.holding(value, where) if self.direct else constant(value, where)

    def op(self, function, args: list, where: ast.AST) -> ast.Call:
        if self.direct and len(args) <= 2:
            return operator_site(function, args, where, self.hidden)
        return call(self.held(function, where), args, where)

    # Statements -----------------------------------------------------------

    def visit_Assign(self, node: ast.Assign):
        node.value = self.visit(node.value)
        targets = node.targets
        if len(targets) == 1 and type(targets[0]) is ast.Name:  # the common `x = ...`
            return node
        if not any(self.lowers_store(n) for t in targets for n in ast.walk(t)):
            node.targets = [self.store_target(t) for t in node.targets]
            return node
        # Python evaluates the value, then stores into each target left to right.
        value = self.temp()
        out = [assign(value, node.value, node)]
        for target in node.targets:
            out.extend(self.store(target, name(value, node)))
        return out

    def lowers_store(self, target: ast.AST) -> bool:
        return (isinstance(target, ast.Subscript) and self.lowers(operator.setitem)) or (
            isinstance(target, ast.Attribute) and self.attributes)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None or not self.lowers_store(node.target):
            return super().visit_AnnAssign(node)
        value = self.temp()
        return [assign(value, self.visit(node.value), node),
                *self.store(node.target, name(value, node))]

    def store_target(self, target: ast.expr) -> ast.expr:
        """Visit the loads inside a store target, keeping the target itself."""
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            target.value = self.visit(target.value)
            if isinstance(target, ast.Subscript):
                target.slice = self.visit(target.slice)
        elif isinstance(target, (ast.Tuple, ast.List)):
            target.elts = [self.store_target(t) for t in target.elts]
        elif isinstance(target, ast.Starred):
            target.value = self.store_target(target.value)
        return target

    def store(self, target: ast.expr, value: ast.expr) -> list:
        """Statements storing `value` into `target` in Python's order."""
        if isinstance(target, ast.Subscript) and self.lowers(operator.setitem):
            setitem = self.op(operator.setitem, [self.visit(target.value),
                                                 self.visit(target.slice), value], target)
            return [ast.copy_location(ast.Expr(value=setitem), target)]
        if isinstance(target, ast.Attribute) and self.attributes:
            attribute = self.attribute_name(target)
            store = self.op(setattr, [self.visit(target.value), attribute, value], target)
            return [ast.copy_location(ast.Expr(value=store), target)]
        if isinstance(target, (ast.Tuple, ast.List)):
            temps, elements = [], []
            for element in target.elts:
                star = isinstance(element, ast.Starred)
                temp = name(self.temp(), element, store=True)
                temps.append((element.value if star else element, temp.id))
                element_target = ast.Starred(value=temp, ctx=ast.Store()) if star else temp
                elements.append(ast.copy_location(element_target, element))
            target.elts = elements
            out = [ast.copy_location(ast.Assign(targets=[target], value=value), target)]
            for original, temp in temps:
                out.extend(self.store(original, name(temp, original)))
            return out
        return [ast.copy_location(ast.Assign(targets=[self.store_target(target)],
                                             value=value), target)]

    def visit_AugAssign(self, node: ast.AugAssign):
        function = INPLACE[type(node.op)]
        if not self.lowers(function):
            node.target = self.store_target(node.target)
            node.value = self.visit(node.value)
            return node
        target = node.target
        if isinstance(target, ast.Name):
            return self.augmented_name(node, function)
        out: list = []
        holder = self.temp()
        out.append(assign(holder, self.visit(target.value), node))
        if isinstance(target, ast.Attribute):
            load = self.visit(ast.copy_location(ast.Attribute(
                value=name(holder, node), attr=target.attr, ctx=ast.Load()), target))
            result = self.op(function, [load, self.visit(node.value)], node)
            store = ast.Attribute(value=name(holder, node), attr=target.attr, ctx=ast.Store())
            out.extend(self.store(ast.copy_location(store, target), result))
            return out
        key = self.temp()
        out.append(assign(key, self.visit(target.slice), node))
        load = self.op(operator.getitem, [name(holder, node), name(key, node)], target)
        result = self.op(function, [load, self.visit(node.value)], node)
        setitem = self.op(operator.setitem, [name(holder, node), name(key, node), result],
                          node)
        out.append(ast.copy_location(ast.Expr(value=setitem), node))
        return out

    def augmented_name(self, node: ast.AugAssign, function) -> ast.stmt | list:
        """`x op= v` is `x = iop(x, v)`, `x` loaded first. For `str += str`,
        CPython's in-place concatenation is kept: it needs `x` to be the string's
        only holder, so the operands wait in temporaries and `x` gets it back."""
        target, value = node.target.id, self.visit(node.value)

        def lowered(left: ast.expr, right: ast.expr) -> ast.stmt:
            return assign(target, self.op(function, [left, right], node), node)

        if function is not operator.iadd or (
                type(value) is ast.Constant and type(value.value) is not str):
            return lowered(name(target, node), value)

        def is_str(identifier: str) -> ast.expr:
            kind = call(self.held(type, node), [name(identifier, node)], node, native=True)
            test = ast.Compare(left=kind, ops=[ast.Is()], comparators=[self.held(str, node)])
            return placed(test, node)

        left, right = self.temp(), self.temp()
        concatenate = [
            assign(target, name(left, node), node),
            placed(ast.Delete(targets=[name(left, node, delete=True)]), node),
            placed(ast.AugAssign(target=name(target, node, store=True), op=ast.Add(),
                                 value=name(right, node)), node)]
        test = placed(ast.BoolOp(op=ast.And(), values=[is_str(left), is_str(right)]), node)
        branch = placed(ast.If(test=test, body=concatenate,
                               orelse=[lowered(name(left, node), name(right, node))]), node)
        return [assign(left, name(target, node), node), assign(right, value, node), branch]

    def visit_Delete(self, node: ast.Delete):
        if not self.lowers(operator.delitem) and not self.attributes:
            return self.generic_visit(node)
        out: list = []
        plain: list = []

        def flush() -> None:
            if plain:
                out.append(ast.copy_location(ast.Delete(targets=list(plain)), node))
                plain.clear()

        for target in node.targets:
            if isinstance(target, ast.Subscript):
                flush()
                delitem = self.op(operator.delitem, [self.visit(target.value),
                                                     self.visit(target.slice)], target)
                out.append(ast.copy_location(ast.Expr(value=delitem), target))
            elif isinstance(target, ast.Attribute) and self.attributes:
                flush()
                delete = self.op(delattr, [self.visit(target.value),
                                           self.attribute_name(target)], target)
                out.append(ast.copy_location(ast.Expr(value=delete), target))
            else:
                plain.append(self.store_target(target))
        flush()
        return out

    # Expressions ----------------------------------------------------------

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        node = self.generic_visit(node)
        function = BINARY[type(node.op)]
        return self.op(function, [node.left, node.right], node) if self.lowers(
            function) else node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        node = self.generic_visit(node)
        function = UNARY[type(node.op)]
        return self.op(function, [node.operand], node) if self.lowers(function) else node

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if getattr(node, NATIVE, False) is True:  # a declared native callee (`nativecalls`)
            return node
        node = self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self.attributes and \
                node.attr not in FRAME_ATTRIBUTES:  # `sys._getframe()` stays recognisable
            return self.op(getattr, [node.value, self.attribute_name(node)], node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if getattr(node, NATIVE, False) is True:  # an inner context's resolution table
            return node
        node = self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self.lowers(operator.getitem):
            return self.op(operator.getitem, [node.value, node.slice], node)
        return node

    def visit_Slice(self, node: ast.Slice) -> ast.expr:
        node = self.generic_visit(node)
        if not self.lowers(operator.getitem):
            return node
        parts = [part or constant(None, node) for part in (node.lower, node.upper, node.step)]
        return call(self.held(slice, node), parts, node, native=True)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.FormattedValue:
        """`f"{v!r:>{w}}"` is `f"{format(repr(v), f'>{w}')}"`: C's formatting would call
        a user class's `__format__` (`__str__`, `__repr__`) where no context sees it.
        The field keeps the text `format` gives, which C's formatting passes through."""
        node = self.generic_visit(node)
        if not self.formats:
            return node
        value = node.value
        conversion = _CONVERSIONS.get(node.conversion)
        if conversion is not None:
            value = call(self.held(conversion, node), [value], node)
        spec = [] if node.format_spec is None else [node.format_spec]
        node.value = call(self.held(format, node), [value, *spec], node)
        node.conversion, node.format_spec = -1, None
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.comprehension:
        allowed, self.walrus_allowed = self.walrus_allowed, False
        node.iter = self.visit(node.iter)
        self.walrus_allowed = allowed
        node.target = self.store_target(node.target)
        node.ifs = [self.visit(_negations_inside(test)) for test in node.ifs]
        return node

    # Truth tests: `not (a and b)` is tested as `not a or not b` (see below).

    def visit_If(self, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> ast.AST:
        node.test = _negations_inside(node.test)
        return self.generic_visit(node)

    visit_While = visit_IfExp = visit_Assert = visit_If

    def visit_match_case(self, node: ast.match_case) -> ast.AST:
        if node.guard is not None:
            node.guard = _negations_inside(node.guard)
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        node = self.generic_visit(node)
        functions = [self.comparison(op) for op in node.ops]
        if not all(self.lowers(f) for f in functions):
            return node
        if len(node.ops) == 1:
            return self.compare(node.ops[0], node.left, node.comparators[0], node)
        if not self.walrus_allowed:
            return node
        # a < b < c  is  a < (t := b) and t < c, with b evaluated once.
        tests = []
        left = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            if i < len(node.ops) - 1:
                temp = self.temp()
                bound = ast.NamedExpr(target=name(temp, right, store=True), value=right)
                tests.append(self.compare(op, left, ast.copy_location(bound, right), node))
                left = name(temp, right)
            else:
                tests.append(self.compare(op, left, right, node))
        return ast.copy_location(ast.BoolOp(op=ast.And(), values=tests), node)

    def comparison(self, op: ast.cmpop):
        return operator.contains if isinstance(op, (ast.In, ast.NotIn)) else COMPARE[type(op)]

    def compare(self, op: ast.cmpop, left: ast.expr, right: ast.expr,
                where: ast.AST) -> ast.expr:
        if not isinstance(op, (ast.In, ast.NotIn)):
            return self.op(COMPARE[type(op)], [left, right], where)
        if not isinstance(left, (ast.Name, ast.Constant)):
            if not self.walrus_allowed:
                compare = ast.Compare(left=left, ops=[op], comparators=[right])
                return ast.copy_location(compare, where)
            # `a in b` evaluates a first: bind it, then evaluate b.
            temp = self.temp()
            bound = ast.NamedExpr(target=name(temp, left, store=True), value=left)
            pair = ast.Tuple(elts=[ast.copy_location(bound, left), right], ctx=ast.Load())
            ast.copy_location(pair, where)
            index = ast.Subscript(value=pair, slice=constant(1, where), ctx=ast.Load())
            right, left = ast.copy_location(index, where), name(temp, where)
        test = self.op(operator.contains, [right, left], where)
        return self.op(operator.not_, [test], where) if isinstance(op, ast.NotIn) else test


def _negations_inside(test: ast.expr) -> ast.expr:
    """A truth test with `not (a and b)` written `not a or not b` (`or`: `and`), and
    `not not (a and b)` written `a and b`.

    Only the truth of the test counts, so they are the same test; but `not`
    lowered to `operator.not_` would test the value `a and b` chose, testing an
    operand a second time, where CPython's jumps test each operand once.
    """
    core, negations = test, 0
    while isinstance(core, ast.UnaryOp) and isinstance(core.op, ast.Not):
        core, negations = core.operand, negations + 1
    if not isinstance(core, ast.BoolOp):
        return test
    if negations % 2 == 0:
        core.values = [_negations_inside(value) for value in core.values]
        return core
    flipped = ast.Or() if isinstance(core.op, ast.And) else ast.And()
    negated = [_negations_inside(placed(ast.UnaryOp(ast.Not(), value), value))
               for value in core.values]
    return placed(ast.BoolOp(flipped, negated), test)
