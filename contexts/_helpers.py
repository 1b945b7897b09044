"""The call-site helpers of hooked contexts, generated as Python source.

A hooked call site `f(a, b)` becomes `call2(f, a, b)`: run the prehook, the
call (through `overdub` when the type overrides it, else the resolved callee),
then the posthook. The helpers are written as source text and registered with
their tree, so that an outer context can run them, and with them the inner
context's hooks, under its own hooks: Cassette's nesting model.
"""

from __future__ import annotations

import ast
import linecache
import threading
import types

from contexts._calls import MAX_ARITY, is_nooverdub
from contexts._names import NATIVE
from contexts._source import Located, register_generated

_lock = threading.Lock()
_factories: dict = {}


def helper_factory(prehook: bool, posthook: bool, overdub: bool):
    """`factory(pre, post, res, ovd) -> (call0, ..., callN, callx)`, made once per kind."""
    key = (prehook, posthook, overdub)
    factory = _factories.get(key)
    if factory is None:
        with _lock:
            factory = _factories.get(key) or _build(*key)
            _factories[key] = factory
    return factory


def _source(prehook: bool, posthook: bool, overdub: bool) -> str:
    lines = ["def helpers(pre, post, res, ovd):"]
    names = []
    forms = [(f"call{n}", [f"a{i}" for i in range(n)]) for n in range(MAX_ARITY + 1)]
    for helper, params in [*forms, ("callx", None)]:
        names.append(helper)
        if params is None:
            signature, passed = "f, args, kwargs, /", "*args, **kwargs"
        else:
            signature, passed = ", ".join(["f", *params, "/"]), ", ".join(params)
        with_f = f"f, {passed}" if passed else "f"
        run = f"ovd({with_f})" if overdub else f"nooverdub(res)(f)({passed})"
        lines.append(f"    def {helper}({signature}):")
        if prehook:
            lines.append(f"        pre({with_f})")
        if posthook:
            lines += [f"        out = {run}", f"        post(out, {with_f})",
                      "        return out"]
        else:
            lines.append(f"        return {run}")
    lines.append(f"    return {', '.join(names)}")
    return "\n".join(lines) + "\n"


def _build(prehook: bool, posthook: bool, overdub: bool):
    text = _source(prehook, posthook, overdub)
    filename = f"<contexts helpers pre={prehook} post={posthook} overdub={overdub}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = ast.parse(text, filename)
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and is_nooverdub(node.func):
            node.func = node.func.args[0]
            setattr(node, NATIVE, True)
    namespace: dict = {}
    exec(compile(module, filename, "exec"), namespace)
    factory = namespace["helpers"]
    outer = module.body[0]
    nested = {c.co_name: c for c in factory.__code__.co_consts if isinstance(c, types.CodeType)}
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            located = Located(node=node, chain=(outer,), imports=(), filename=filename)
            register_generated(nested[node.name], located)
    return factory
