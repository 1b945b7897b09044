"""Posthook trace: a posthook prints every call with its output, once it returned.

Cassette's `posthook(::PrintCtx, output, f, args...) = println(output, " = ", f, args)`.
"""

from contexts import Context, overdub


class PostPrintCtx(Context):
    """Print each call after it returned, with its output."""

    def posthook(self, output, f, *args, **kwargs):
        print(output, "=", f.__name__, args)


def div(x, y):
    return float(x) / float(y)


def main():
    print(overdub(PostPrintCtx(), div, 1, 2))


if __name__ == "__main__":
    main()

# Output:
# 1.0 = float (1,)
# 2.0 = float (2,)
# 0.5 = truediv (1.0, 2.0)
# 0.5
