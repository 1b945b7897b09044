"""Nested tracing: an `overdub` override builds a call tree with `similarcontext`.

Each call is recorded as `((f, *args), subtrace)`; the callee then runs in a
copy of the context whose metadata is that subtrace, so the calls it makes
land one level down. Calls the engine cannot look into (C functions such as
`operator.mul`) run through `fallback` and get an empty subtrace.
"""

import operator

from contexts import Context, canrecurse, fallback, overdub, recurse, similarcontext


class TraceCtx(Context):
    def overdub(self, f, *args, **kwargs):
        subtrace = []
        self.metadata.append(((f, *args), subtrace))
        if canrecurse(self, f):
            return recurse(similarcontext(self, metadata=subtrace), f, *args, **kwargs)
        return fallback(self, f, *args, **kwargs)


def f(x, y, z):
    return x * y + y * z


def g(x):
    return f(x, x + 1, 2.0)


def trace(function, *args):
    """`(result, trace)` of running `function(*args)` in a `TraceCtx`."""
    calls = []
    result = overdub(TraceCtx(metadata=calls), function, *args)
    return result, calls


def show(calls, depth=0):
    """Print a trace as an indented tree of calls."""
    for (function, *args), subtrace in calls:
        listed = ", ".join(map(repr, args))
        print("  " * depth + f"{function.__name__}({listed})")
        show(subtrace, depth + 1)


def main():
    x, y, z = 0.5, 2.0, 4.0
    result, calls = trace(f, x, y, z)
    print(result == f(x, y, z))
    print(calls == [((f, x, y, z), [((operator.mul, x, y), []),
                                    ((operator.mul, y, z), []),
                                    ((operator.add, x * y, y * z), [])])])
    show(calls)
    show(trace(g, 3.0)[1])


if __name__ == "__main__":
    main()

# Output:
# True
# True
# f(0.5, 2.0, 4.0)
#   mul(0.5, 2.0)
#   mul(2.0, 4.0)
#   add(1.0, 8.0)
# g(3.0)
#   add(3.0, 1)
#   f(3.0, 4.0, 2.0)
#     mul(3.0, 4.0)
#     mul(4.0, 2.0)
#     add(12.0, 8.0)
