"""`exec(source, namespace)` and `eval(source, namespace)` run in the context.

Code given as text is Python like any other: its calls should reach the
context's hooks and primitives, and the values it reads keep what a layer
attached to them. Natively, CPython would run it unseen. Given a namespace
(so the text does not need the caller's frame), the text is wrapped in a
function whose globals are that namespace: every name the text uses is
declared `global`, so its assignments, imports and definitions land in the
namespace exactly as at module level, and an `eval`'d expression is the
function's return value. The wrapper's source is registered with `linecache`
under a name of its own, where the engine reads it as it reads a file, and
the function is then called in the context like any other.

What a function cannot express stays native (`wrap` gives None): a separate
`locals` mapping, a code object, `from m import *`, and text that does not
compile as given (so the error is CPython's own). Text run natively is still
compiled under a name of its own with its text registered (`registered`), so
the functions it defines have their source, and a context runs them when they
are called in it (`dataclasses` makes its methods so).
"""

from __future__ import annotations

import ast
import builtins
import functools
import itertools
import linecache
import symtable
import types
from typing import Any

_NUMBERS = itertools.count(1)


def wrap(source: Any, namespace: Any, local: Any, mode: str) -> types.FunctionType | None:
    """A function of no arguments that runs `source` in `namespace` (`mode` "exec"
    or "eval"), or None where the text must run natively."""
    if not isinstance(source, str) or type(namespace) is not dict or \
            (local is not None and local is not namespace):
        return None
    code = _wrapped_code(source, mode)
    if code is None:
        return None
    namespace.setdefault("__builtins__", builtins.__dict__)
    return types.FunctionType(code, namespace)


@functools.lru_cache(maxsize=512)
def registered(source: str, mode: str) -> types.CodeType | None:
    """`source` compiled under a name of its own whose text `linecache` holds, to
    run natively; None if it does not compile (CPython's own error is raised then)."""
    filename = f"<{mode} {next(_NUMBERS)}>"
    try:
        code = compile(source, filename, mode, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return code


@functools.lru_cache(maxsize=512)
def _wrapped_code(source: str, mode: str) -> types.CodeType | None:
    """The wrapper's code for one text, made once."""
    try:
        compile(source, "<string>", mode, dont_inherit=True)
        tree = ast.parse(source, mode=mode)
        names = symtable.symtable(source, "<string>", mode).get_identifiers()
    except (SyntaxError, ValueError):
        return None
    if mode == "eval":
        body = [ast.Return(value=tree.body)]
    elif any(isinstance(node, ast.ImportFrom) and node.names[0].name == "*"
             for node in ast.walk(tree)):
        return None
    else:
        body = [_AnnotationsDropped().visit(statement) for statement in tree.body] or \
            [ast.Pass()]
    wrapper = ast.parse(f"def _{mode}_():\n    pass\n").body[0]
    declared = sorted(names - {"__builtins__"})
    wrapper.body = ([ast.Global(names=declared)] if declared else []) + body
    return compiled(wrapper, mode)


def compiled(wrapper: ast.FunctionDef, mode: str) -> types.CodeType:
    """A wrapper's code, compiled under a name of its own whose text `linecache` holds."""
    text = ast.unparse(ast.fix_missing_locations(wrapper))
    filename = f"<{mode} {next(_NUMBERS)}>"
    lines = [line + "\n" for line in text.splitlines()]
    linecache.cache[filename] = (len(text), None, lines, filename)
    module = compile(text, filename, "exec", dont_inherit=True)
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


class _AnnotationsDropped(ast.NodeTransformer):
    """`x: int = 1` at the text's top level becomes `x = 1`: a name declared
    `global` may not be annotated (the annotation is not evaluated either way
    inside a function)."""

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.stmt:
        if node.value is None:
            return ast.copy_location(ast.Pass(), node)
        return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        return node  # (annotations inside functions are not at the top level)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef
