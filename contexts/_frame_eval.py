"""`eval(text)` given no namespace, run in the context on the caller's variables.

Natively, CPython evaluates the text on the caller's globals and `locals()`:
a name the text's own scope reads is looked up there (`LOAD_NAME`), while names
in its nested scopes (a lambda's body, a generator expression past its first
iterable and, before 3.12, any comprehension) are global reads. Here the text
becomes a function whose globals are the caller's and whose parameters are the
caller's variables the text's own scope reads, renamed so that nested scopes
still read globals; it is called with the values as the caller's frame holds
them (with whatever a layer attached), so no variable goes through a dict.

Text that binds a name (`:=`) or calls a frame name (`locals()`, `eval`) keeps
the native path (`made` gives None), as does text that does not compile.
`exec` is not made so: the text's writes would have to reach the caller's
`locals()` dict, which holds what a layer attached only through its heap.
"""

from __future__ import annotations

import ast
import functools
import sys
import types
from typing import Any

from contexts._exec import compiled
from contexts._names import CALLER_NAMES

# Comprehensions that run in the text's own scope (PEP 709 inlines them in 3.12).
_INLINED = (ast.ListComp, ast.SetComp, ast.DictComp) if sys.version_info >= (3, 12) else ()
_SUFFIX = "_of_the_frame_"  # a variable's parameter: its name, so suffixed


def made(source: Any, namespace: Any, local: Any, cells: dict) -> tuple | None:
    """`(function, arguments)` whose call is `eval(source)` on a frame with globals
    `namespace` and `locals()` dict `local`, or None where the text runs natively.
    A variable held in a cell is passed as `cells` has it (as the frame reads it),
    not as the plain value `locals()` shows."""
    if not isinstance(source, str) or type(namespace) is not dict or type(local) is not dict:
        return None
    read = _read_names(source)
    if read is None:
        return None
    names = tuple(sorted(read & local.keys()))
    arguments = [cells[n] if n in cells else local[n] for n in names]
    return types.FunctionType(_code(source, names), namespace), arguments


@functools.lru_cache(maxsize=512)
def _read_names(source: str) -> frozenset | None:
    """The names the text's own scope reads, or None if the text runs natively."""
    try:
        compile(source, "<string>", "eval", dont_inherit=True)
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.NamedExpr) or isinstance(node, ast.Name) and \
                node.id.endswith(_SUFFIX) or isinstance(node, ast.Call) and \
                isinstance(node.func, ast.Name) and node.func.id in CALLER_NAMES:
            return None
    own = _OwnScope(frozenset())
    own.visit(tree)
    return frozenset(own.read)


@functools.lru_cache(maxsize=512)
def _code(source: str, names: tuple) -> types.CodeType:
    """The function's code for one text and the caller's variables it reads."""
    tree = _OwnScope(frozenset(names)).visit(ast.parse(source, mode="eval"))
    wrapper = ast.parse(f"def _eval_({', '.join(n + _SUFFIX for n in names)}):\n"
                        "    pass\n").body[0]
    wrapper.body = [ast.Return(value=tree.body)]
    return compiled(wrapper, "eval")


class _OwnScope(ast.NodeTransformer):
    """Notes the names the text's own scope reads (`read`) and renames those of them
    in `renamed` to their parameters; nested scopes are left as written."""

    def __init__(self, renamed: frozenset) -> None:
        self.renamed = renamed
        self.read: set = set()
        self.bound: list[set] = []  # an inlined comprehension's own targets

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if any(node.id in names for names in self.bound):
            return node
        self.read.add(node.id)
        if node.id in self.renamed:
            return ast.copy_location(ast.Name(id=node.id + _SUFFIX, ctx=node.ctx), node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d and self.visit(d) for d in node.args.kw_defaults]
        return node

    def visit_GeneratorExp(self, node: ast.AST) -> ast.AST:
        first = node.generators[0]
        first.iter = self.visit(first.iter)  # evaluated in the text's own scope
        if not isinstance(node, _INLINED):
            return node
        # inlined: the rest runs in the text's own scope too, apart from its targets
        evaluated, first.iter = first.iter, ast.Constant(value=None)
        self.bound.append({target.id for generator in node.generators
                           for target in ast.walk(generator.target)
                           if isinstance(target, ast.Name)})
        self.generic_visit(node)
        self.bound.pop()
        first.iter = evaluated
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp
