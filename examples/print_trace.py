"""Print trace: a prehook prints every call made inside an overdubbed function.

Cassette's first example: `prehook(::PrintCtx, f, args...) = println(f, args)`.
Operators are seen as calls of `operator` functions (`x / y` is `truediv`).
"""

from contexts import Context, overdub


class PrintCtx(Context):
    """Print each call before it runs."""

    def prehook(self, f, *args, **kwargs):
        print(f.__name__, args)


def div(x, y):
    return float(x) / float(y)


def main():
    print(overdub(PrintCtx(), div, 1, 2))


if __name__ == "__main__":
    main()

# Output:
# float (1,)
# float (2,)
# truediv (1.0, 2.0)
# 0.5
