"""The tagging pass: the remaining ways a value reaches the heap become calls.

Lowering already made attribute access and subscripts calls. This pass adds
module globals (`__ovd0_gload__(globals(), "G", G)`, and stores through
`gstore`), closure cells (`cload`/`cstore` keyed by the cell), container
displays and comprehensions (built by primitives that keep the heap plain),
f-string fields (untagged), defaults of nested functions (tagged while the
run lasts, see `_leaving`), class bodies (their names read and written in
the class namespace, the class made in the context, see `_classes`), and
what a generator yields or returns (plain, its
metadata left in the store for a consumer in the context: a `yield from` or
`await` takes back what the generator it delegated to returned) or is sent
(plain, the `yield` taking the metadata back from the store), see `_channels`.
Truth tests need no rewriting: a `Tagged` answers `bool` with its plain value. Where no hook needs
to see them, attribute and item loads and stores call the context's fast paths
(`_fast`) directly.
"""

from __future__ import annotations

import ast
import inspect
import operator
import types

from contexts.layer import (CALLER_NAMES, NATIVE, BodyTransformer, call, constant, hidden,
                            mangled, name, placed)
from tagging import _markers as markers
from tagging._cells import TAGGING_CELLS
from tagging._patterns import capture_paths

_BINDERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def tagging_pass(tree: ast.FunctionDef, level: int, code: types.CodeType,
                 hooked: bool) -> ast.FunctionDef:
    return _Tagging(tree, level, code, hooked).run(tree)


# Lowered heap operations -> (their fast path's cell, how many arguments it takes)
_FAST_PATHS = {getattr: ("aload", 2), setattr: ("astore", 3),
               operator.getitem: ("iload", 2), operator.setitem: ("istore", 3)}


class _Tagging(BodyTransformer):
    def __init__(self, tree: ast.FunctionDef, level: int, code: types.CodeType,
                 hooked: bool) -> None:
        self.level = level
        self.fast = not hooked  # hooks see heap operations as calls: no shortcut
        self.declared_global = _declared(tree, ast.Global)
        self.locals = (_bound_names(tree) | set(code.co_varnames)) - self.declared_global
        self.cellvars = set(code.co_cellvars) - {"__class__"}
        self.freevars = {n for n in code.co_freevars
                         if n != "__class__" and not n.startswith("__ovd")}
        self.shadowed: list = []  # names bound by the comprehensions being visited
        self.generator = bool(code.co_flags & inspect.CO_GENERATOR)
        self.coroutine = bool(code.co_flags & inspect.CO_COROUTINE)
        self.chains = 0  # temporaries holding the value of `a = b = v`
        self.scopes: list = []  # the class bodies being visited, innermost last

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        prologue = self.variadic_prologue(tree.args, tree)  # decided on the body as is
        tree = self.transform_body(tree)
        parameters = [a.arg for a in (*tree.args.posonlyargs, *tree.args.args,
                                      *tree.args.kwonlyargs, tree.args.vararg,
                                      tree.args.kwarg) if a is not None]
        prologue += [self.cell_store(p, name(p, tree), tree) for p in parameters
                     if p in self.cellvars]
        docstring = 1 if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(
            tree.body[0].value, ast.Constant) and isinstance(tree.body[0].value.value, str) \
            else 0
        tree.body[docstring:docstring] = prologue
        return tree

    def variadic_prologue(self, args: ast.arguments, where: ast.AST) -> list:
        """`*args` and `**kwargs` arrive as a tuple and a dict that hold tagged
        values: rebuild them plain (their items' metadata in the store) unless
        they never leave the frame (only spread into calls, indexed, iterated or
        handed to the engine's own native helpers, as its models do)."""
        escaping = _escaping(where, self.level, self.cellvars)
        rebuilt = []
        if args.vararg is not None and args.vararg.arg in escaping:
            starred = ast.copy_location(
                ast.Starred(value=name(args.vararg.arg, where), ctx=ast.Load()), where)
            rebuilt.append((args.vararg.arg, self.display(markers.display_tuple, [starred],
                                                          where)))
        if args.kwarg is not None and args.kwarg.arg in escaping:
            rebuilt.append((args.kwarg.arg, self.display(
                markers.display_dict, [constant(markers.DOUBLE_STAR, where),
                                       name(args.kwarg.arg, where)], where)))
        return [ast.copy_location(ast.Assign(targets=[name(identifier, where, store=True)],
                                             value=value), where)
                for identifier, value in rebuilt]

    def helper(self, what: str, args: list, where: ast.AST) -> ast.Call:
        return call(name(TAGGING_CELLS.hidden(self.level, what), where), args, where,
                    native=True)

    def is_shadowed(self, identifier: str) -> bool:
        return any(identifier in names for names in self.shadowed)

    # Names: globals and closure cells ---------------------------------------------

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if not isinstance(node.ctx, ast.Load) or node.id.startswith("__ovd") or \
                self.is_shadowed(node.id):
            return node
        if self.scopes and not self.shadowed:
            return self.class_load(self.scopes[-1], node)
        if node.id in self.cellvars or node.id in self.freevars:
            return self.helper("cload", [self.cell(node.id, node), node], node)
        if node.id not in self.locals:
            module = self.helper("globals", [], node)  # (a local may be named `globals`)
            return self.helper("gload", [module, constant(node.id, node), node], node)
        return node

    def cell(self, identifier: str, where: ast.AST) -> ast.expr:
        """The cell object holding `identifier`."""
        if identifier in self.freevars:
            return name(hidden(self.level, f"cellof_{identifier}"), where)
        getter = ast.Lambda(args=_no_arguments(), body=name(identifier, where))
        closure = ast.Attribute(value=ast.copy_location(getter, where), attr="__closure__",
                                ctx=ast.Load())
        first = ast.Subscript(value=ast.copy_location(closure, where),
                              slice=constant(0, where), ctx=ast.Load())
        return ast.copy_location(first, where)

    def cell_values(self, where: ast.AST) -> list:
        """The names of the variables held in cells, then each one's value as the frame
        reads it, or None while unbound: `locals()` gives only its plain value. (Not
        a dict display: under a nested derivative that would be a heap dict.)"""
        names = sorted(self.cellvars | self.freevars)
        values = []
        for n in names:
            bound = ast.Compare(left=constant(n, where), ops=[ast.In()],
                                comparators=[self.helper("locals", [], where)])
            values.append(ast.copy_location(ast.IfExp(
                test=ast.copy_location(bound, where), body=self.visit(name(n, where)),
                orelse=constant(None, where)), where))
        return [constant(tuple(names), where), *values]

    def cell_store(self, identifier: str, value: ast.expr, where: ast.AST) -> ast.stmt:
        stored = self.helper("cstore", [self.cell(identifier, where), value], where)
        return ast.copy_location(
            ast.Assign(targets=[name(identifier, where, store=True)], value=stored), where)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if len(node.targets) > 1:
            return self.chained(node)
        if _pairwise(node):
            return self.pairwise(node)
        node.value = self.visit(node.value)
        node.targets = [self.visit(t) for t in node.targets]
        return self.stored(node)

    def chained(self, node: ast.Assign) -> list:
        """`a, b = x = v`: `v` once, held, then stored into each target in turn, as
        CPython stores them, each as its own assignment (an unpacking target iterates
        the value, a global or a cell keeps its metadata, any other name gets the
        value itself)."""
        self.chains += 1
        temp = hidden(self.level, f"chain{self.chains}")
        out = [ast.copy_location(ast.Assign(targets=[name(temp, node, store=True)],
                                            value=self.visit(node.value)), node)]
        for target in node.targets:
            single = ast.copy_location(
                ast.Assign(targets=[self.visit(target)], value=name(temp, node)), node)
            stored = self.stored(single)
            out.extend(stored if isinstance(stored, list) else [stored])
        return out

    def pairwise(self, node: ast.Assign) -> list:
        """`a, b = x, y`: `x`, then `y`, held, then stored into `a` and `b` in turn, as
        CPython evaluates and stores them: no tuple is built to be unpacked (it would
        go through the primitives that keep a container's items' metadata)."""
        held = []
        out = []
        for value in node.value.elts:
            self.chains += 1
            temp = hidden(self.level, f"chain{self.chains}")
            held.append(temp)
            out.append(ast.copy_location(ast.Assign(targets=[name(temp, value, store=True)],
                                                    value=self.visit(value)), value))
        for target, temp in zip(node.targets[0].elts, held):
            single = ast.copy_location(
                ast.Assign(targets=[self.visit(target)], value=name(temp, target)), target)
            stored = self.stored(single)
            out.extend(stored if isinstance(stored, list) else [stored])
        return out

    def stored(self, node: ast.Assign) -> ast.AST:
        """A one-target assignment whose value and target are visited."""
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)):
            return self.unpacking(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return node
        target = node.targets[0].id
        if self.scopes and not target.startswith("__ovd"):
            node.value = self.class_store(self.scopes[-1], target, node.value, node)
            return node
        if target in self.cellvars or target in self.freevars:
            return self.cell_store(target, node.value, node)
        if target in self.declared_global:
            module = self.helper("globals", [], node)  # (a local may be named `globals`)
            node.value = self.helper("gstore", [module, constant(target, node), node.value],
                                     node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if getattr(node, NATIVE, False) is True:  # machinery: leave the callee alone
            node.args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            if self.fast and isinstance(node.func, ast.Call):  # `nooverdub(o.f)(...)`
                node.func = self.fast_path(node.func)
            return node
        if isinstance(node.func, ast.Name) and node.func.id in CALLER_NAMES:
            # `super()`, `locals()`, `eval(...)`: the call step knows them by name
            node.args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            if node.func.id in ("eval", "exec") and len(node.args) == 1 and \
                    not isinstance(node.args[0], ast.Starred) and not node.keywords:
                # text on this frame: with its globals and locals, as CPython (`frametext`)
                cells = [constant(None, node)] if self.scopes else self.cell_values(node)
                frame = [self.helper("globals", [], node), self.helper("locals", [], node),
                         *cells]  # (in a class body, `locals()` is its namespace: native)
                made = self.helper("frametext", [node.func, node.args[0], *frame], node)
                return ast.copy_location(ast.Call(func=made, args=[], keywords=[]), node)
            if node.func.id in ("locals", "vars") and not (node.args or node.keywords) and \
                    not self.scopes and (self.cellvars or self.freevars):
                # the frame's variables held in cells, as it reads them (`framelocals`)
                return self.helper("framelocals", [node, *self.cell_values(node)], node)
        else:
            node = self.generic_visit(node)
        for keyword in node.keywords:
            if keyword.arg is None:  # `f(**mapping)`: the callee gets the metadata
                keyword.value = call(name(TAGGING_CELLS.hidden(self.level, "kwargs"),
                                          keyword.value),
                                     [keyword.value], keyword.value, native=self.level)
        if not self.fast:
            return node
        if self.is_fast_load(node.func):  # `o.m(...)`: the method cell resolves `o.m`
            node.func.func = name(TAGGING_CELLS.hidden(self.level, "method"), node.func)
            setattr(node, NATIVE, self.level)
            return node
        return self.fast_path(node)

    def is_fast_load(self, node: ast.expr) -> bool:
        return (type(node) is ast.Call and type(node.func) is ast.Name
                and node.func.id == TAGGING_CELLS.hidden(self.level, "aload"))

    def fast_path(self, node: ast.Call) -> ast.expr:
        """A lowered heap operation as a call of its fast path (an outer context
        still sees that call, and runs the general primitive for it)."""
        found = _fast_path_of(node.func)
        if found is None:
            return node
        cell, arity = found
        if len(node.args) != arity or node.keywords or any(
                isinstance(a, ast.Starred) for a in node.args) or (
                cell[0] == "a" and not _is_str(node.args[1])):
            return node
        return call(name(TAGGING_CELLS.hidden(self.level, cell), node), node.args, node,
                    native=self.level)

    # Unpacking ---------------------------------------------------------------------

    def unpacking(self, node: ast.Assign) -> list:
        """`a, (b, c) = v`: every level of the target gets its items' metadata."""
        target = node.targets[0]
        node.value = self.display(markers.unpack, [node.value, _shape(target, node)], node)
        return [node, *self.starred_fixups(target), *self.rebound(target)]

    def starred_fixups(self, target: ast.expr) -> list:
        """`a, *rest = v` makes `rest` from tagged items: store them plainly."""
        fixups = []
        for element in ast.walk(target):
            if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
                rebuilt = self.display(markers.list_from, [name(element.value.id, element)],
                                       element)
                fixups.append(ast.copy_location(ast.Assign(
                    targets=[name(element.value.id, element, store=True)], value=rebuilt),
                    element))
        return fixups

    def visit_For(self, node: ast.For) -> ast.AST:
        node = self.generic_visit(node)
        if isinstance(node.target, (ast.Tuple, ast.List)):
            node.iter = self.display(markers.unpack_each,
                                     [node.iter, _shape(node.target, node)], node)
            node.body[:0] = self.starred_fixups(node.target)
        node.body[:0] = self.rebound(node.target)
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        node = self.generic_visit(node)
        for item in reversed(node.items):
            if item.optional_vars is not None:
                node.body[:0] = self.rebound(item.optional_vars)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        node = super().visit_AnnAssign(node)
        if self.scopes and node.value is not None and isinstance(node.target, ast.Name):
            node.value = self.class_store(self.scopes[-1], node.target.id, node.value, node)
        return node

    # Containers -------------------------------------------------------------------

    def display(self, function, args: list, where: ast.AST) -> ast.Call:
        if any(isinstance(a, ast.Starred) for a in args):
            # `[*x]` packs its items the way the display does, with its error message
            packed = placed(ast.Tuple(elts=args, ctx=ast.Load()), where)
            args = [placed(ast.Starred(value=packed, ctx=ast.Load()), where)]
        return call(constant(function, where), args, where)

    def visit_List(self, node: ast.List) -> ast.expr:
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or getattr(node, "ovd_temporary", False):
            return node
        return self.display(markers.display_list, node.elts, node)

    def visit_Tuple(self, node: ast.Tuple) -> ast.expr:
        node = self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return self.display(markers.display_tuple, node.elts, node)

    def visit_Set(self, node: ast.Set) -> ast.expr:
        node = self.generic_visit(node)
        return self.display(markers.display_set, node.elts, node)

    def visit_Dict(self, node: ast.Dict) -> ast.expr:
        node = self.generic_visit(node)
        flat: list = []
        for key, value in zip(node.keys, node.values):
            flat += [key if key is not None else constant(markers.DOUBLE_STAR, node),
                     value]
        return self.display(markers.display_dict, flat, node)

    def comprehension_scope(self, node: ast.AST) -> None:
        bound = set()
        for generator in node.generators:
            bound |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        node.generators[0].iter = self.visit(node.generators[0].iter)  # the enclosing scope's
        self.shadowed.append(bound)
        for index, generator in enumerate(node.generators):
            if index:
                generator.iter = self.visit(generator.iter)
            if isinstance(generator.target, (ast.Tuple, ast.List)) and not generator.is_async:
                generator.iter = self.display(markers.unpack_each, [
                    generator.iter, _shape(generator.target, generator.iter)], generator.iter)
            generator.ifs = [self.visit(test) for test in generator.ifs]
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                setattr(node, field, self.visit(getattr(node, field)))
        self.shadowed.pop()

    def visit_ListComp(self, node: ast.ListComp) -> ast.expr:
        self.comprehension_scope(node)
        return self.display(markers.list_from, [node], node)

    def visit_SetComp(self, node: ast.SetComp) -> ast.expr:
        self.comprehension_scope(node)
        temporary = ast.copy_location(ast.ListComp(elt=node.elt, generators=node.generators),
                                      node)
        starred = ast.copy_location(ast.Starred(value=temporary, ctx=ast.Load()), node)
        return self.display(markers.display_set, [starred], node)

    def visit_DictComp(self, node: ast.DictComp) -> ast.expr:
        self.comprehension_scope(node)
        pair = ast.copy_location(ast.List(elts=[node.key, node.value], ctx=ast.Load()), node)
        pair.ovd_temporary = True
        temporary = ast.copy_location(ast.ListComp(elt=pair, generators=node.generators),
                                      node)
        return self.display(markers.dict_from, [temporary], node)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.expr:
        self.comprehension_scope(node)
        node.elt = self.helper("yielded", [node.elt], node.elt)
        return node

    # Class bodies ------------------------------------------------------------------

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        """A class statement is given the metaclass `classmaker(M)` (`M` the one it
        names, or None), which makes the class in the context (`_classes`); its
        decorators are applied there too."""
        node = super().visit_ClassDef(node)
        node.decorator_list = self.decorators(node.decorator_list)
        given = [k for k in node.keywords if k.arg == "metaclass"]
        spread = [k for k in node.keywords if k.arg is None]
        rest = [k for k in node.keywords if k.arg != "metaclass" and k.arg is not None]
        if spread:  # `class C(**options)`: one mapping, its metaclass found when it runs
            pairs: list = []
            for keyword in node.keywords:
                pairs += [constant(markers.DOUBLE_STAR, keyword.value) if keyword.arg is None
                          else constant(keyword.arg, keyword.value), keyword.value]
            options = self.display(markers.display_dict, pairs, node)
            maker = self.helper("classmaker", [options, constant(True, node)], node)
            node.keywords = [placed(ast.keyword(arg=None, value=maker), node)]
            return node
        metaclass = given[0].value if given else constant(None, node)
        maker = self.helper("classmaker", [metaclass, constant(False, node)], node)
        node.keywords = [placed(ast.keyword(arg="metaclass", value=maker), node), *rest]
        return node

    def class_body(self, node: ast.ClassDef) -> list:
        outer, self.shadowed = self.shadowed, []
        self.scopes.append(_ClassScope(node))
        try:
            return super().class_body(node)
        finally:
            self.scopes.pop()
            self.shadowed = outer

    def class_load(self, scope: _ClassScope, node: ast.Name) -> ast.expr:
        """A name read by a class body: from the class namespace if it holds it, else
        from the module (`LOAD_NAME`) or, for a variable of the function around,
        its cell (`LOAD_CLASSDEREF`); `global` names from the module."""
        key = constant(mangled(node.id, scope.name), node)
        module = self.helper("globals", [], node)
        if node.id in scope.declared_global:
            return self.helper("gload", [module, key, node], node)
        if node.id not in scope.bound and (node.id in scope.declared_nonlocal or
                                           node.id in self.cellvars or
                                           node.id in self.freevars):
            container, slot = self.cell(node.id, node), constant(0, node)
        else:
            container, slot = module, key
        namespace = self.helper("locals", [], node)
        return self.helper("classname", [namespace, key, container, slot, node], node)

    def class_store(self, scope: _ClassScope, identifier: str, value: ast.expr,
                    where: ast.AST) -> ast.expr:
        """The value a class body stores in `identifier`, made plain, its metadata in
        the store for that slot of the class namespace (or the module, or a cell)."""
        key = constant(mangled(identifier, scope.name), where)
        if identifier in scope.declared_global:
            return self.helper("gstore", [self.helper("globals", [], where), key, value], where)
        if identifier in scope.declared_nonlocal:
            return self.helper("cstore", [self.cell(identifier, where), value], where)
        return self.helper("gstore", [self.helper("locals", [], where), key, value], where)

    def rebound(self, target: ast.expr) -> list:
        """In a class body: the names `target` bound (unpacking, a loop, `with`),
        stored again in the class namespace plain."""
        if not self.scopes:
            return []
        scope = self.scopes[-1]
        return [ast.copy_location(ast.Assign(
            targets=[name(n.id, n, store=True)],
            value=self.class_store(scope, n.id, self.class_load(scope, name(n.id, n)), n)), n)
            for n in ast.walk(target) if isinstance(n, ast.Name)]

    def visit_Match(self, node: ast.Match) -> ast.AST:
        """Patterns compare and test types natively: they match the plain subject,
        held as it was; a case's body starts by giving the names its pattern
        captured their metadata (`_patterns`)."""
        node = self.generic_visit(node)
        self.chains += 1
        held = hidden(self.level, f"subject{self.chains}")
        subject = ast.NamedExpr(target=name(held, node, store=True), value=node.subject)
        node.subject = self.helper("plain", [ast.copy_location(subject, node)], node.subject)
        for case in node.cases:
            recaptured = [
                self.stored(ast.copy_location(ast.Assign(
                    targets=[name(identifier, case.pattern, store=True)],
                    value=self.helper("captured", [self.visit(name(identifier, case.pattern)),
                                                   name(held, case.pattern),
                                                   constant(path, case.pattern)],
                                      case.pattern)), case.pattern))
                for identifier, path in capture_paths(case.pattern)]
            case.body[0:0] = recaptured
        return node

    # What a generator hands out ----------------------------------------------------

    def visit_Yield(self, node: ast.Yield) -> ast.expr:
        """`yield v` hands out v plain and evaluates to what was sent, with the
        metadata it was sent with."""
        node = self.yielding(node)
        return self.helper("received", [node], node) if self.generator else node

    def visit_YieldFrom(self, node: ast.YieldFrom) -> ast.expr:
        """`yield from s` delegates to what the `delegate` cell gives: a container
        whose elements have metadata through an iterator that hands them out as a
        `yield` does (its own iterator would hand out the bare elements). A call
        an outer context runs in its own, so it sees the elements read."""
        node = self.generic_visit(node)
        node.value = call(name(TAGGING_CELLS.hidden(self.level, "delegate"), node.value),
                          [node.value], node.value, native=self.level)
        return self.awaited(node)

    def visit_Await(self, node: ast.Await) -> ast.expr:
        """`await s` awaits what the `awaitable` cell gives: `s`, or, if its class's
        `__await__` is Python code (which CPython would call natively), what that
        returns, called in the context."""
        node = self.generic_visit(node)
        node.value = call(name(TAGGING_CELLS.hidden(self.level, "awaitable"), node.value),
                          [node.value], node.value, native=self.level)
        # (in a comprehension, the name held would bind in the enclosing function)
        return node if self.shadowed else self.awaited(node)

    def awaited(self, node: ast.YieldFrom | ast.Await) -> ast.expr:
        """`yield from s` (`await s`) as `returned(awaiting(held := s), (yield from
        held))`: what a generator `s` returns keeps its metadata (`_channels`)."""
        self.chains += 1
        held = hidden(self.level, f"delegated{self.chains}")
        source = ast.copy_location(
            ast.NamedExpr(target=name(held, node, store=True), value=node.value), node)
        node.value = name(held, node)
        return self.helper("returned", [self.helper("awaiting", [source], node), node], node)

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        if isinstance(node.value, ast.Yield):  # what the `yield` evaluates to is dropped
            node.value = self.yielding(node.value)
            return node
        return self.generic_visit(node)

    def yielding(self, node: ast.Yield) -> ast.Yield:
        node = self.generic_visit(node)
        if self.generator and node.value is not None:
            node.value = self.helper("yielded", [node.value], node.value)
        return node

    def visit_Return(self, node: ast.Return) -> ast.stmt:
        """A generator returns its value plain, its metadata kept for the consumer
        that awaits it (`_channels`); a coroutine, plain once the run has ended
        (`_leaving`)."""
        node = self.generic_visit(node)
        if self.generator and node.value is not None:
            node.value = self.helper("returning", [node.value], node.value)
        elif self.coroutine and node.value is not None:
            node.value = self.helper("settled", [node.value], node.value)
        return node

    # What leaves the frame untagged ------------------------------------------------

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        node = self.generic_visit(node)
        node.value = self.helper("plain", [node.value], node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node = super().visit_FunctionDef(node)
        node.decorator_list = self.decorators(node.decorator_list)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def decorators(self, decorators: list) -> list:
        """C applies a decorator natively: each is given as `decorator(d)`, which
        applies `d` in the context."""
        return [self.helper("decorator", [d], d) for d in decorators]

    def visit_defaults(self, args: ast.arguments) -> None:
        super().visit_defaults(args)
        args.defaults = [self.helper("default", [d], d) for d in args.defaults]
        args.kw_defaults = [d and self.helper("default", [d], d) for d in args.kw_defaults]


def _pairwise(node: ast.Assign) -> bool:
    """Whether `node` assigns a display to names, item by item (`a, b = x, y`)."""
    target, value = node.targets[0], node.value
    return isinstance(target, (ast.Tuple, ast.List)) and \
        isinstance(value, (ast.Tuple, ast.List)) and \
        len(target.elts) == len(value.elts) and \
        all(isinstance(t, ast.Name) for t in target.elts) and \
        not any(isinstance(v, ast.Starred) for v in value.elts)


def _shape(target: ast.expr, where: ast.AST) -> ast.Constant:
    """The nesting of an unpacking target: None for a leaf, a tuple for a sub-target,
    STARRED for the starred one."""
    return constant(_nesting(target), where)


def _nesting(target: ast.Tuple | ast.List) -> tuple:
    shapes, starred = [], False
    for element in target.elts:
        if isinstance(element, ast.Starred):
            starred = True
            shapes.append(markers.STARRED)
        elif starred or not isinstance(element, (ast.Tuple, ast.List)):
            shapes.append(None)  # a leaf; after a star, positions move
        else:
            shapes.append(_nesting(element))
    return tuple(shapes)


def _escaping(tree: ast.FunctionDef, level: int, cellvars: set) -> set:
    """The names whose value may leave the frame: every load except a `*name` or
    `**name`, the container of an item read (`getitem`), the iterable of a loop,
    an argument of a native (engine) call, and a value only tested for truth
    (`if args:`, `not (args or kwargs)`)."""
    variadic = {a.arg for a in (tree.args.vararg, tree.args.kwarg) if a is not None}
    escaping = variadic & cellvars
    iterate = TAGGING_CELLS.hidden(level, "iter")
    parents: dict = {}
    for node in _own_nodes(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node, parent in parents.items():
        if not (isinstance(node, ast.Name) and node.id in variadic and
                isinstance(node.ctx, ast.Load)):
            continue
        if isinstance(parent, ast.Starred) or (
                isinstance(parent, ast.keyword) and parent.arg is None):
            continue
        if isinstance(parent, ast.Call) and node in parent.args and (
                getattr(parent, NATIVE, False) is True or _named(parent.func, iterate) or
                (_reads_item(parent.func) and parent.args[0] is node)):
            continue
        if _truth_only(node, parents):
            continue
        escaping.add(node.id)
    return escaping


_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)


def _truth_only(node: ast.expr, parents: dict) -> bool:
    """Whether `node`'s value is only tested for truth: the operand of `not` (lowered
    to `operator.not_`) or the test of an `if`, `while` or assertion, alone or in an
    `and`/`or` whose value is itself only tested."""
    parent = parents.get(node)
    while isinstance(parent, ast.BoolOp):
        node, parent = parent, parents.get(parent)
    if isinstance(parent, _TESTED):
        return parent.test is node
    return (isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords
            and isinstance(parent.func, ast.Constant) and parent.func.value is operator.not_)


def _named(node: ast.expr, identifier: str) -> bool:
    return isinstance(node, ast.Name) and node.id == identifier


def _reads_item(func: ast.expr) -> bool:
    """`operator.getitem`, or `res(operator.getitem)`: the lowered form of `x[i]`."""
    if isinstance(func, ast.Call) and len(func.args) == 1:
        func = func.args[0]
    return isinstance(func, ast.Constant) and func.value is operator.getitem


def _fast_path_of(callee: ast.expr) -> tuple | None:
    if not isinstance(callee, ast.Constant):
        return None
    try:
        return _FAST_PATHS.get(callee.value)
    except TypeError:  # an unhashable object a pass put in a constant
        return None


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is str


def _no_arguments() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _declared(tree: ast.FunctionDef, kind: type) -> set:
    found: set = set()
    for node in _own_nodes(tree):
        if isinstance(node, kind):
            found.update(node.names)
    return found


def _own_nodes(tree: ast.AST, skipped: tuple = ()):
    """The nodes of a function (or class) body, not of nested functions or classes,
    nor inside the `skipped` kinds of node."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _BINDERS) or isinstance(node, (ast.Lambda, *skipped)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _bound_names(tree: ast.FunctionDef) -> set:
    return {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} | \
        _binding(_own_nodes(tree))


def _binding(nodes) -> set:
    """The names that `nodes` bind."""
    names: set = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, _BINDERS):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


class _ClassScope:
    """What the compiler decides about the names of one class body."""

    def __init__(self, node: ast.ClassDef) -> None:
        self.name = node.name
        self.declared_global = _declared(node, ast.Global)
        self.declared_nonlocal = _declared(node, ast.Nonlocal)
        self.bound = _class_bound(node) - self.declared_global - self.declared_nonlocal


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _class_bound(node: ast.ClassDef) -> set:
    """The names a class body binds, which it reads from its namespace first (not
    a comprehension's, which are its own)."""
    return _binding(_own_nodes(node, _COMPREHENSIONS))
