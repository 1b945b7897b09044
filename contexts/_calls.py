"""The engine's own pass: every call site goes through the running context.

Two shapes, chosen per context type:

* resolve-then-call, when no hook needs the call: `f(a, *b, k=c)` becomes
  `__ovd0_res__(f)(a, *b, k=c)`. The callee is resolved (to its transformed
  body, a primitive or itself) and called with the original argument syntax,
  so no frame is added between caller and callee. A callee held in a constant
  (an `operator` function lowering put there, a builtin) is hashable, so it
  is looked up in the resolution table directly, `__ovd0_table__[f](a, b)`,
  a subscript that costs no Python frame either;
* hooked, when `prehook`, `posthook` or `overdub` must see the call:
  `__ovd0_call2__(f, a, b)`, a fixed-arity helper (`callx` for star and
  keyword arguments) that runs the hooks around the call.

In a quiet module's body (the models of builtins, see `_marks`), a hooked
context's call sites are resolve-then-call too, except those marked `seen`.

Calls the engine must leave alone stay native: those marked with `nooverdub`,
and those whose callee needs the caller's own frame (`locals()`, `vars()`,
`dir()`, `globals()`, `eval`/`exec` without a namespace, `sys._getframe`,
`inspect.currentframe`). Zero-argument `super()` is made explicit,
`super(__class__, self)`, so it works from any frame; where CPython's `super()`
would not see the method's first argument (no positional parameter, or inside
a comprehension's own scope) it stays native and fails as it would.
"""

from __future__ import annotations

import ast
import sys

from contexts._builders import NATIVE, call, is_native, name, placed
from contexts._cells import MAX_ARITY, engine_cell
from contexts._names import CALLER_NAMES, FRAME_NAMES, Hidden
from contexts._implicit_rewrite import ImplicitMixin
from contexts._lower import FRAME_ATTRIBUTES
from contexts._operator_sites import operator_site
from contexts._operators import OPERATOR_FUNCTIONS
from contexts._visit import BodyTransformer

SEEN = "ovd_seen"  # attribute of an `ast.Call` that hooks see in a quiet body
_FRAMED = "ovd_framed"  # a call of an attribute named `stack`, its callee wrapped in `framed`
_FILTERED = {"locals", "vars", "dir"}  # hide the engine's names from the user


def rewrite_calls(tree: ast.FunctionDef, hidden: Hidden, hooked: bool, iterating: bool,
                  properties: bool, truths: bool, class_name: str | None,
                  quiet: bool) -> ast.FunctionDef:
    """Route every call site through the context (and implicit calls, see the mixin);
    `quiet`: hooks see only the calls marked `seen`."""
    calls = _Calls(tree, hidden, hooked, iterating, properties, truths, class_name, quiet)
    return calls.transform_body(tree)


def resolve_markers(tree: ast.FunctionDef, hidden: Hidden) -> ast.FunctionDef:
    """`contextslot()` becomes the context; `nooverdub(f)(...)` a native call of `f`;
    `seen(x)` is `x`, its call noted as one hooks see."""
    return _Markers(hidden).transform_body(tree)


def mark_native_calls(tree: ast.FunctionDef, names: frozenset) -> ast.FunctionDef:
    """Mark native (as `nooverdub` would) each call whose callee is one of `names` or
    an attribute reached from one (a module's `nativecalls`)."""
    return _NativeCalls(names).transform_body(tree) if names else tree


def is_nooverdub(node: ast.expr, marker: str = "nooverdub") -> bool:
    """`nooverdub(x)` in callee position (written by a user or a pass); or another
    marker of the same form (`natively_here`)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == marker and len(node.args) == 1 and not node.keywords)


def unwrap_seen(node: ast.Call) -> ast.expr | None:
    """`x` for `seen(x)`, its call (if it is one) marked `SEEN`; None for any other call."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "seen"
            and len(node.args) == 1 and not node.keywords):
        return None
    inner = node.args[0]
    if isinstance(inner, ast.Call):
        setattr(inner, SEEN, True)
    return inner


def is_contextslot(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "contextslot" and not node.args and not node.keywords)


def _is_hashable_constant(node: ast.expr) -> bool:
    """A callee held in a constant that can key the resolution table."""
    if not isinstance(node, ast.Constant):
        return False
    try:
        hash(node.value)
    except TypeError:
        return False
    return True


def _is_operator(node: ast.expr) -> bool:
    """Whether a callee is an `operator` function put there by lowering."""
    try:
        return isinstance(node, ast.Constant) and node.value in OPERATOR_FUNCTIONS
    except TypeError:  # an unhashable object a pass put in a constant
        return False


def _marker(transformer: BodyTransformer, node: ast.Call) -> ast.expr | None:
    """What a marker call becomes: the context for `contextslot()`, `x` (visited) for
    `seen(x)`; None for any other call, a `nooverdub(f)` callee unwrapped in place."""
    if is_contextslot(node):
        return name(engine_cell(transformer.hidden, "ctx"), node)
    inner = unwrap_seen(node)
    if inner is not None:
        return transformer.visit(inner)
    if is_nooverdub(node.func):
        node.func = node.func.args[0]
        setattr(node, NATIVE, True)
    elif is_nooverdub(node.func, "natively_here"):
        node.func = node.func.args[0]
        setattr(node, NATIVE, transformer.hidden.level)
    return None


class _Markers(BodyTransformer):
    def __init__(self, hidden: Hidden) -> None:
        self.hidden = hidden

    def visit_Call(self, node: ast.Call) -> ast.expr:
        resolved = _marker(self, node)
        return resolved if resolved is not None else self.generic_visit(node)


class _NativeCalls(BodyTransformer):
    def __init__(self, names: frozenset) -> None:
        self.names = names

    def visit_Call(self, node: ast.Call) -> ast.Call:
        node = self.generic_visit(node)
        path, root = [], node.func
        while type(root) is ast.Attribute:
            path.append(root)
            root = root.value
        if type(root) is ast.Name and root.id in self.names:
            for attribute in path:  # a module's attribute: loaded natively, not lowered
                setattr(attribute, NATIVE, True)
            setattr(node, NATIVE, True)
        return node


class _Calls(ImplicitMixin):
    def __init__(self, tree: ast.FunctionDef, hidden: Hidden, hooked: bool, iterating: bool,
                 properties: bool, truths: bool, class_name: str | None, quiet: bool) -> None:
        self.class_name = class_name
        self.hidden = hidden
        self.level = hidden.level
        self.hooked = hooked
        self.quiet = quiet and hooked
        self.iterating = iterating
        self.properties = properties
        self.truths = truths
        positional = [*tree.args.posonlyargs, *tree.args.args]
        self.first = positional[0].arg if positional else None
        self.body = tree.body
        self.scoped_supers: set | None = None  # found when a bare `super()` is met

    def visit_Call(self, node: ast.Call) -> ast.expr:
        resolved = _marker(self, node)  # markers, when no earlier step resolved them
        if resolved is not None:
            return resolved
        if isinstance(node.func, ast.Attribute):
            node.func.ovd_callee = True  # `o.m(...)`: a method, not a property, is called
        node = self.generic_visit(node)
        if is_native(node, self.level):
            return node
        func = node.func
        if isinstance(func, ast.Name) and func.id in FRAME_NAMES and _needs_frame(node) or (
                isinstance(func, ast.Attribute) and func.attr in FRAME_ATTRIBUTES) or \
                getattr(node, _FRAMED, False):
            return self.frame_sensitive(node)
        if _is_bare_super(node):
            if self.scoped_supers is None:
                self.scoped_supers = _supers_in_comprehension_scopes(self.body)
            if not self.first or self.in_class_body or id(node) in self.scoped_supers:
                setattr(node, NATIVE, True)
                return node
            node.args = [name("__class__", node), name(self.first, node)]
        if self.hooked and (not self.quiet or getattr(node, SEEN, False)):
            return self.hooked_call(node)
        return self.resolved_call(node)

    def frame_sensitive(self, node: ast.Call) -> ast.expr:
        setattr(node, NATIVE, True)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "stack" or \
                getattr(node, _FRAMED, False):
            # `inspect.stack()` needs the caller's frame; `np.stack(...)` is an
            # ordinary call: which one it is, is known when it runs (`_cells.framed`).
            # The call is left alone at this level only: a context running this code
            # wraps the callee in its own `framed` in turn, and so sees `np.stack`.
            setattr(node, NATIVE, self.level)
            setattr(node, _FRAMED, True)
            node.func = call(name(engine_cell(self.hidden, "framed"), node), [node.func],
                             node, native=True)
        if self.in_class_body:  # `locals()` is the class namespace itself, as written
            return node
        if isinstance(node.func, ast.Name) and node.func.id in _FILTERED and not node.args:
            return call(name(engine_cell(self.hidden, "visible"), node), [node], node,
                        native=True)
        return node

    def resolved_call(self, node: ast.Call) -> ast.Call:
        if _is_hashable_constant(node.func):
            lookup = placed(ast.Subscript(value=name(engine_cell(self.hidden, "table"), node),
                                          slice=node.func, ctx=ast.Load()), node)
            setattr(lookup, NATIVE, True)  # machinery: an outer context does not lower it
            node.func = lookup
            return node
        node.func = call(name(engine_cell(self.hidden, "res"), node), [node.func], node,
                         native=True)
        return node

    def hooked_call(self, node: ast.Call) -> ast.Call:
        simple = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        if simple and len(node.args) <= 2 and _is_operator(node.func):
            return operator_site(node.func.value, node.args, node, self.hidden)
        if simple and len(node.args) <= MAX_ARITY:
            helper = name(engine_cell(self.hidden, f"call{len(node.args)}"), node)
            return call(helper, [node.func, *node.args], node)
        args = ast.copy_location(ast.Tuple(elts=node.args, ctx=ast.Load()), node)
        kwargs = ast.Dict(keys=[k.arg for k in node.keywords],
                          values=[k.value for k in node.keywords])
        kwargs.keys = [k and ast.copy_location(ast.Constant(value=k), node)
                       for k in kwargs.keys]
        ast.copy_location(kwargs, node)
        return call(name(engine_cell(self.hidden, "callx"), node), [node.func, args, kwargs],
                    node)


def _needs_frame(node: ast.Call) -> bool:
    """Whether a call of a frame name needs the caller's frame: `eval` and `exec`
    given a namespace do not (their model runs the text in the context)."""
    if node.func.id not in ("eval", "exec"):
        return True
    return len(node.args) < 2 or any(isinstance(a, ast.Starred) for a in node.args)


def _is_bare_super(node: ast.Call) -> bool:
    return (isinstance(node.func, ast.Name) and node.func.id == "super"
            and not node.args and not node.keywords)


# Comprehensions with a scope (frame) of their own, where `super()` sees no `self`.
_SCOPED = (ast.GeneratorExp,) if sys.version_info >= (3, 12) else (
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _supers_in_comprehension_scopes(body: list) -> set:
    """Ids of the bare `super()` calls that run in a comprehension's own frame."""
    found: set = set()

    def walk(node: ast.AST, scoped: bool) -> None:
        if isinstance(node, _NESTED):
            return  # their bodies are transformed on their own
        if isinstance(node, ast.Call) and scoped and _is_bare_super(node):
            found.add(id(node))
        if isinstance(node, _SCOPED):
            first, *rest = node.generators
            walk(first.iter, scoped)  # evaluated in the enclosing scope
            inner = [first.target, *first.ifs, *rest]
            inner += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for child in inner:
                walk(child, True)
            return
        for child in ast.iter_child_nodes(node):
            walk(child, scoped)

    for stmt in body:
        walk(stmt, False)
    return found
