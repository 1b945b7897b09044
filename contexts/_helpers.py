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

from contexts._calls import MAX_ARITY
from contexts._names import NATIVE
from contexts._source import Located, register_generated

_lock = threading.Lock()
_factories: dict = {}


def helper_factory(prehook: bool, posthook: bool, overdub: bool, claimed: bool):
    """`factory(pre, post, res, ovd, table, miss, native, claimed) -> helpers`, once per kind.

    The helpers are `call0` ... `callN`, `callx` and, for operator sites, `op1`
    and `op2`, which run an operator on builtin operands natively (after the
    hooks) unless the context claims that operator.
    """
    key = (prehook, posthook, overdub, claimed)
    factory = _factories.get(key)
    if factory is None:
        with _lock:
            factory = _factories.get(key) or _build(*key)
            _factories[key] = factory
    return factory


HELPER_NAMES = [f"call{n}" for n in range(MAX_ARITY + 1)] + ["callx", "op1", "op2"]


def _source(prehook: bool, posthook: bool, overdub: bool, claimed: bool) -> str:
    lines = ["def helpers(pre, post, res, ovd, table, miss, native, claimed):"]
    forms = [(f"call{n}", [f"a{i}" for i in range(n)]) for n in range(MAX_ARITY + 1)]
    forms += [("callx", None), ("op1", ["a0"]), ("op2", ["a0", "a1"])]
    for helper, params in forms:
        if params is None:
            signature, passed = "f, args, kwargs, /", "*args, **kwargs"
        else:
            signature, passed = ", ".join(["f", *params, "/"]), ", ".join(params)
        with_f = f"f, {passed}" if passed else "f"
        lines.append(f"    def {helper}({signature}):")
        if prehook:
            lines.append(f"        pre({with_f})")
        *find, run = _run(helper, params, passed, with_f, overdub, claimed)
        lines += [f"        {line}" for line in find]
        if posthook:
            lines += [f"        out = {run}", f"        post(out, {with_f})",
                      "        return out"]
        else:
            lines.append(f"        return {run}")
    lines.append(f"    return {', '.join(HELPER_NAMES)}")
    return "\n".join(lines) + "\n"


def _run(helper: str, params, passed: str, with_f: str, overdub: bool,
         claimed: bool) -> list:
    """Statements that find the callee (machinery), then the call expression (last)."""
    if overdub:
        return [f"ovd({with_f})"]
    if helper.startswith("op"):
        test = " and ".join(f"type({p}) in native" for p in params)
        if claimed:
            test += " and f not in claimed"
        return [f"g = f if {test} else res(f)", f"g({passed})"]
    return ["try:", "    g = table[f]", "except TypeError:", "    g = miss(f)", f"g({passed})"]


def _build(prehook: bool, posthook: bool, overdub: bool, claimed: bool):
    filename = (f"<contexts helpers pre={prehook} post={posthook} overdub={overdub} "
                f"claimed={claimed}>")
    text = _source(prehook, posthook, overdub, claimed)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = ast.parse(text, filename)
    namespace: dict = {}
    exec(compile(module, filename, "exec"), namespace)
    factory = namespace["helpers"]
    outer = module.body[0]
    nested = {c.co_name: c for c in factory.__code__.co_consts if isinstance(c, types.CodeType)}
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            for stmt in node.body:  # finding the callee is machinery an outer context skips
                if isinstance(stmt, (ast.Try, ast.If)) or (
                        isinstance(stmt, ast.Assign) and stmt.targets[0].id == "g"):
                    setattr(stmt, NATIVE, True)
            located = Located(node=node, chain=(outer,), imports=(), filename=filename)
            register_generated(nested[node.name], located)
    return factory
