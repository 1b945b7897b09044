"""Println slicing by a pass: thread the callback through the code itself.

The pass rewrites every body the run meets, as in Cassette's `sliceprintln`:

1. at the start, `_callback_ = getattr(contextslot(), "metadata")`, with
   `getattr` marked `nooverdub` so the context does not see that call;
2. each call that is a whole statement, `x = f(args)` or `f(args)`, becomes
   `x, _callback_ = f(_callback_, args)`;
3. each `return x` becomes `return (x, _callback_)`.

The context's `overdub` receives the callback as the first argument of every
call: a Python callee runs (`recurse`) in a copy of the context holding that
callback, so it starts from it and returns `(result, callback)`; a foreign
one runs as is. The `print` primitive prints nothing and returns a callback
extended with that print. As in the seed's flat IR, only calls that are whole
statements are threaded, so the functions sliced here keep calls at that level.
"""

import ast

from contexts import (Context, canrecurse, contextslot, fallback, insert_statements,
                      nooverdub, primitive, recurse, similarcontext)

CALLBACK = "_callback_"


def _callback(store=False):
    return ast.Name(id=CALLBACK, ctx=ast.Store() if store else ast.Load())


def _statement_call(stmt):
    """The call that `stmt` is (`f(...)` or `x = f(...)`), or None."""
    if isinstance(stmt, ast.Expr) or (isinstance(stmt, ast.Assign)
                                      and len(stmt.targets) == 1):
        if isinstance(stmt.value, ast.Call):
            return stmt.value
    return None


def _threaded(stmt, i):
    """`x, _callback_ = f(_callback_, args)` for the call statement `stmt`."""
    call = _statement_call(stmt)
    result = stmt.targets[0] if isinstance(stmt, ast.Assign) else ast.Name("_", ast.Store())
    target = ast.Tuple(elts=[result, _callback(store=True)], ctx=ast.Store())
    value = ast.Call(func=call.func, args=[_callback(), *call.args], keywords=call.keywords)
    return [ast.Assign(targets=[target], value=value)]


def _returning_callback(stmt, i):
    """`return (x, _callback_)` for `return x`."""
    value = stmt.value or ast.Constant(None)
    return [ast.Return(value=ast.Tuple(elts=[value, _callback()], ctx=ast.Load()))]


def slice_print(ctx_type, f, tree):
    """The pass: thread `_callback_` through the calls and returns of `tree`."""
    body = tree.body
    if not isinstance(body[-1], ast.Return):
        body.append(ast.Return(value=None))
    insert_statements(body, lambda stmt, i: 1 if _statement_call(stmt) else None, _threaded)
    insert_statements(body, lambda stmt, i: 1 if isinstance(stmt, ast.Return) else None,
                      _returning_callback)
    getmetadata = ast.Call(func=nooverdub(ast.Name("getattr", ast.Load())),
                           args=[contextslot(), ast.Constant("metadata")], keywords=[])
    first = body[0]
    insert_statements(body, lambda stmt, i: 2 if stmt is first else None,
                      lambda stmt, i: [ast.Assign(targets=[_callback(store=True)],
                                                  value=getmetadata), stmt])
    return tree


class SliceCtx(Context):
    def overdub(self, f, callback, *args, **kwargs):
        if canrecurse(self, f):
            return recurse(similarcontext(self, metadata=callback), f, *args, **kwargs)
        return fallback(self, f, *args, **kwargs), callback

    @primitive(print)
    def sliced_print(self, callback, *args, **kwargs):
        def extended():
            callback()
            print(*args, **kwargs)

        return None, extended


def add(a, b):
    print(f"I'm about to add {a} + {b}")
    c = a + b
    print(f"c = {c}")
    return c


def sliced(f, *args):
    """`(result, callback)`: run `f(*args)` with its prints sliced out into `callback`.

    The top-level call is not a call made inside the context, so nothing
    hands it a callback: `recurse` runs its body, which starts from the
    context's metadata (as `@overdub(ctx, add(a, b))` does in the seed).
    """
    ctx = SliceCtx(metadata=lambda: None, passes=[slice_print])
    return recurse(ctx, f, *args)


def main():
    result, callback = sliced(add, 0.25, 0.5)
    print("result:", result)
    callback()


if __name__ == "__main__":
    main()

# Output:
# result: 0.75
# I'm about to add 0.25 + 0.5
# c = 0.75
