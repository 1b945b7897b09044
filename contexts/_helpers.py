"""The call-site helpers of hooked contexts, generated as Python source.

A hooked call site `f(a, b)` becomes `call2(f, a, b)`: run the prehook, the
call (through `overdub` when the type overrides it, else the resolved callee),
then the posthook. The helpers are written as source text and registered with
their tree, so that an outer context can run them, and with them the inner
context's hooks, under its own hooks: Cassette's nesting model.
"""

from __future__ import annotations

import ast
import copy
import linecache
import threading
import types
import weakref

from contexts._calls import MAX_ARITY
from contexts._inline import InlineHook
from contexts._names import NATIVE
from contexts._source import Located, register_generated
from contexts._tracebacks import PASTED

_lock = threading.Lock()
_factories: dict = {}
# factories with pasted hooks, per the first hook pasted (they go with its class)
_pasted: "weakref.WeakKeyDictionary[InlineHook, dict]" = weakref.WeakKeyDictionary()


def helper_factory(prehook: bool, posthook: bool, overdub: bool, claimed: bool,
                   pasted_pre: InlineHook | None = None,
                   pasted_post: InlineHook | None = None):
    """`factory(pre, post, res, ovd, table, miss, native, claimed, ctx, type, TypeError)`.

    (Builtins are passed in: with hooks pasted, the helpers' globals are the hooks'.)

    It returns the helpers `call0` ... `callN`, `callx` and, for operator sites, `op1`
    and `op2`, which run an operator on builtin operands natively (after the
    hooks) unless the context claims that operator. A hook given as `pasted_*`
    has its body pasted into the fixed-arity helpers instead of being called.
    """
    key = (prehook, posthook, overdub, claimed)
    first = pasted_pre or pasted_post
    with _lock:
        cache = _factories if first is None else _pasted.setdefault(first, {})
        factory = cache.get((key, pasted_post))
        if factory is None:
            factory = cache[key, pasted_post] = _build(*key, pasted_pre, pasted_post)
    return factory


HELPER_NAMES = [f"call{n}" for n in range(MAX_ARITY + 1)] + ["callx", "op1", "op2"]


def _source(prehook: bool, posthook: bool, overdub: bool, claimed: bool) -> str:
    lines = ["def helpers(pre, post, res, ovd, table, miss, native, claimed, hook_self,"
             " builtin_type, builtin_TypeError):"]
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
        test = " and ".join(f"builtin_type({p}) in native" for p in params)
        if claimed:
            test += " and f not in claimed"
        return [f"g = f if {test} else res(f)", f"g({passed})"]
    return ["try:", "    g = table[f]", "except builtin_TypeError:", "    g = miss(f)",
            f"g({passed})"]


def _build(prehook: bool, posthook: bool, overdub: bool, claimed: bool,
           pasted_pre: InlineHook | None, pasted_post: InlineHook | None):
    text = _source(prehook, posthook, overdub, claimed)
    first = pasted_pre or pasted_post
    if first is None:
        filename = (f"<contexts helpers pre={prehook} post={posthook} overdub={overdub} "
                    f"claimed={claimed}>")
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    else:  # pasted statements keep the hook's file and lines
        filename = first.filename
    module = ast.parse(text, filename)
    outer = module.body[0]
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            for stmt in node.body:  # finding the callee is machinery an outer context skips
                if isinstance(stmt, (ast.Try, ast.If)) or (
                        isinstance(stmt, ast.Assign) and stmt.targets[0].id == "g"):
                    setattr(stmt, NATIVE, True)
    if first is not None:
        return _with_pasted_hooks(module, pasted_pre, pasted_post)
    namespace: dict = {}
    exec(compile(module, filename, "exec"), namespace)
    factory = namespace["helpers"]
    nested = {c.co_name: c for c in factory.__code__.co_consts if isinstance(c, types.CodeType)}
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            located = Located(node=node, chain=(outer,), imports=(), filename=filename)
            register_generated(nested[node.name], located)
    return factory


def _with_pasted_hooks(module: ast.Module, pasted_pre: InlineHook | None,
                       pasted_post: InlineHook | None):
    """The factory whose fixed-arity helpers run the given hooks' bodies in place.

    Machinery lines take the hook's `def` line, outside its body: tracebacks
    drop the helper's frame there (`_tracebacks.PASTED`) and keep it on the
    hook's own lines, named after the hook.
    """
    first = pasted_pre or pasted_post
    for node in ast.walk(module):
        if hasattr(node, "lineno"):
            node.lineno = node.end_lineno = first.firstlineno
            node.col_offset, node.end_col_offset = 0, 0
    helpers = [node for node in module.body[0].body
               if isinstance(node, ast.FunctionDef) and node.name != "callx"]
    for helper in helpers:
        helper.body = [pasted for stmt in helper.body
                       for pasted in _paste(stmt, helper, pasted_pre, pasted_post)]
    code = compile(module, first.filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    name = "/".join(hook.name for hook in (pasted_pre, pasted_post) if hook)
    lines = frozenset().union(*(hook.lines for hook in (pasted_pre, pasted_post) if hook))
    consts = []
    for const in factory_code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name != "callx":
            const = const.replace(co_name=name, co_qualname=name)
            PASTED[const] = lines
        consts.append(const)
    factory_code = factory_code.replace(co_consts=tuple(consts))
    return types.FunctionType(factory_code, first.globals)


def _paste(stmt: ast.stmt, helper: ast.FunctionDef, pasted_pre: InlineHook | None,
           pasted_post: InlineHook | None) -> list:
    """`stmt`, or the hook body it calls (`pre(...)`, `post(out, ...)`) in its place."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    hook_name = call.func.id if isinstance(call, ast.Call) and \
        isinstance(call.func, ast.Name) else None
    pasted = {"pre": pasted_pre, "post": pasted_post}.get(hook_name)
    if pasted is None:
        return [stmt]
    arguments = [a.arg for a in helper.args.posonlyargs if a.arg.startswith("a")]
    prologue = []
    if pasted.uses_args:
        prologue.append(f"hook_args = ({''.join(a + ', ' for a in arguments)})")
    if pasted.uses_kwargs:
        prologue.append("hook_kwargs = {}")
    statements = ast.parse("\n".join(prologue)).body
    for node in statements:
        for part in ast.walk(node):
            if hasattr(part, "lineno"):
                ast.copy_location(part, stmt)
    return statements + [copy.deepcopy(s) for s in pasted.body]
