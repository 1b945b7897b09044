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
import operator
import threading
import types
import weakref

from contexts._cells import MAX_ARITY
from contexts._inline import InlineHook
from contexts._builders import NATIVE
from contexts._operators import INPLACE_SYMBOLS, SYMBOLS, UNARY_SYMBOLS
from contexts._source import Located, register_generated
from contexts._tracebacks import PASTED

_lock = threading.Lock()
_factories: dict = {}
# factories with pasted hooks, per the first hook pasted (they go with its class)
_pasted: "weakref.WeakKeyDictionary[InlineHook, dict]" = weakref.WeakKeyDictionary()

_PARAMETERS = ("pre, post, res, ovd, table, miss, native, hook_self, builtin_type,"
               " builtin_TypeError")


def helper_factory(prehook: bool, posthook: bool, overdub: bool,
                   pasted_pre: InlineHook | None = None,
                   pasted_post: InlineHook | None = None):
    """`factory(pre, post, res, ovd, table, miss, native, ctx, type, TypeError)`.

    (Builtins are passed in: with hooks pasted, the helpers' globals are the hooks'.)

    It returns the helpers `call0` ... `callN` and `callx`. A hook given as
    `pasted_*` has its body pasted into the fixed-arity helpers instead of
    being called.
    """
    forms = [(f"call{n}", [f"a{i}" for i in range(n)]) for n in range(MAX_ARITY + 1)]
    forms = [(helper, params, _calling(params, overdub), "out") for helper, params in forms]
    forms.append(("callx", None, _calling(None, overdub), "out"))
    key = ("calls", prehook, posthook, overdub)
    label = f"pre={prehook} post={posthook} overdub={overdub}"
    return _factory(key, label, prehook, posthook, forms, pasted_pre, pasted_post)


def operator_helper_factory(prehook: bool, posthook: bool, overdub: bool, function,
                            operands: str, tested: bool, native: bool, fast: bool,
                            pasted_pre: InlineHook | None = None,
                            pasted_post: InlineHook | None = None):
    """`factory(..., builtin_TypeError, f, truth)` returning `(helper,)` for one site shape.

    The helper runs `function` (the factory's `f`) on `len(operands)` operands,
    those marked "k" in `operands` being builtin constants at the site. With
    `native`, an operation whose operands are all builtins runs natively after
    the hooks. The `fast` helper writes the operator out; the other calls `f`,
    so that an outer context running it sees that call. A `tested` helper
    returns its result's truth, tested in the context as truth tests are.
    """
    params = [f"a{i}" for i in range(len(operands))]
    passed = ", ".join(params)
    checks = [f"builtin_type({p}) in native" for p, kind in zip(params, operands)
              if kind == "v"]
    test = " and ".join(checks) if native and not overdub else None
    written = _written(function, params) if fast else None
    if overdub:
        body = [f"out = ovd(f, {passed})"]
    elif written is None or test is None:
        callee = "res(f)" if test is None else f"f if {test} else res(f)" if test else "f"
        body = [f"g = {callee}", f"out = g({passed})"]
    elif test:
        body = [f"if {test}:", *(f"    {line}" for line in written),
                "else:", f"    out = res(f)({passed})"]
    else:  # builtin constants only
        body = written
    helper = f"{'opt' if tested else 'op'}_{function.__name__}_{operands}"
    result = "out is True or (out is not False and truth(out))" if tested else "out"
    key = ("operator", prehook, posthook, overdub, function, operands, tested, native, fast)
    label = f"{helper} pre={prehook} post={posthook} overdub={overdub} native={native}"
    return _factory(key, label + (" fast" if fast else ""), prehook, posthook,
                    [(helper, params, body, result)], pasted_pre, pasted_post,
                    extra=", f, truth", nested=not fast)


def _written(function, params: list) -> list | None:
    """Lines that set `out` to the operator's result on builtin operands, if it has a form."""
    if len(params) == 1 and function in UNARY_SYMBOLS:
        return [f"out = {UNARY_SYMBOLS[function]}a0"]
    if len(params) != 2:
        return None
    if function in SYMBOLS:
        return [f"out = a0 {SYMBOLS[function]} a1"]
    if function in INPLACE_SYMBOLS:  # `out` is the result; the operand stays as it was
        return ["out = a0", f"out {INPLACE_SYMBOLS[function]} a1"]
    if function is operator.contains:
        return ["out = a1 in a0"]
    if function is operator.getitem:
        return ["out = a0[a1]"]
    return None


def _calling(params: list | None, overdub: bool) -> list:
    """The lines that set `out`: find the callee (machinery), then call it."""
    passed = "*args, **kwargs" if params is None else ", ".join(params)
    if overdub:
        return [f"out = ovd({_with_f(passed)})"]
    return ["try:", "    g = table[f]", "except builtin_TypeError:", "    g = miss(f)",
            f"out = g({passed})"]


def _with_f(passed: str) -> str:
    return f"f, {passed}" if passed else "f"


def _factory(key: tuple, label: str, prehook: bool, posthook: bool, forms: list,
             pasted_pre: InlineHook | None, pasted_post: InlineHook | None,
             extra: str = "", nested: bool = True):
    """The cached factory of `forms`; `nested`: an outer context may run its helpers
    (a fast helper never is: it is a `shortcut` of a general one)."""
    first = pasted_pre or pasted_post
    with _lock:
        cache = _factories if first is None else _pasted.setdefault(first, {})
        factory = cache.get((key, pasted_post))
        if factory is None:
            text = _source(prehook, posthook, forms, extra)
            factory = cache[key, pasted_post] = _build(text, label, pasted_pre, pasted_post,
                                                       nested)
    return factory


def _source(prehook: bool, posthook: bool, forms: list, extra: str) -> str:
    """The factory's text; `extra` are more parameters (`f` there binds the callee)."""
    lines = [f"def helpers({_PARAMETERS}{extra}):"]
    for helper, params, body, result in forms:
        if params is None:
            signature, passed = "f, args, kwargs, /", "*args, **kwargs"
        else:
            passed = ", ".join(params)
            signature = ", ".join([*([] if extra else ["f"]), *params, "/"])
        with_f = _with_f(passed)
        lines.append(f"    def {helper}({signature}):")
        if prehook:
            lines.append(f"        pre({with_f})")
        lines += [f"        {line}" for line in body]
        if posthook:
            lines.append(f"        post(out, {with_f})")
        lines.append(f"        return {result}")
    lines.append(f"    return {', '.join(helper for helper, *_ in forms)},")
    return "\n".join(lines) + "\n"


def _returning_directly(body: list) -> list:
    """A helper's body in which an `out = X` just before `return out` is `return X`:
    a store and a load less per call, where no posthook needs `out`."""
    *rest, last = body
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)
            and last.value.id == "out"):
        return body
    return _ending_with_return(rest, last)


def _ending_with_return(body: list, returned: ast.Return) -> list:
    *rest, last = body
    if isinstance(last, ast.Assign) and isinstance(last.targets[0], ast.Name) and \
            last.targets[0].id == "out":
        return [*rest, ast.copy_location(ast.Return(value=last.value), last)]
    if isinstance(last, ast.If) and last.orelse:
        last.body = _ending_with_return(last.body, returned)
        last.orelse = _ending_with_return(last.orelse, returned)
        return body
    return [*body, copy.copy(returned)]


def _build(text: str, label: str, pasted_pre: InlineHook | None,
           pasted_post: InlineHook | None, nested: bool):
    first = pasted_pre or pasted_post
    if first is None:
        filename = f"<contexts helpers {label}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    else:  # pasted statements keep the hook's file and lines
        filename = first.filename
    module = ast.parse(text, filename)
    outer = module.body[0]
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            node.body = _returning_directly(node.body)
            for stmt in node.body:  # finding the callee is machinery an outer context skips
                if isinstance(stmt, ast.Try) or (
                        isinstance(stmt, ast.Assign) and stmt.targets[0].id == "g"):
                    setattr(stmt, NATIVE, True)
    if first is not None:
        return _with_pasted_hooks(module, pasted_pre, pasted_post)
    namespace: dict = {}
    exec(compile(module, filename, "exec"), namespace)
    factory = namespace["helpers"]
    if not nested:
        return factory
    codes = {c.co_name: c for c in factory.__code__.co_consts if isinstance(c, types.CodeType)}
    for node in outer.body:
        if isinstance(node, ast.FunctionDef):
            located = Located(node=node, chain=(outer,), imports=(), filename=filename)
            register_generated(codes[node.name], located)
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
