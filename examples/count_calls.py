"""Call counting: count the calls whose arguments are all of one type.

Cassette's `Count{T}` example: the context's metadata says which type to
count and holds the count, which the prehook increments.
"""

from dataclasses import dataclass

from contexts import Context, overdub


@dataclass
class Count:
    """How many calls had one or more arguments, all instances of `kind`."""

    kind: type
    count: int = 0


class CountCtx(Context):
    def prehook(self, f, *args, **kwargs):
        if args and all(isinstance(arg, self.metadata.kind) for arg in args):
            self.metadata.count += 1


def div(x, y):
    return float(x) / float(y)


def hypot(x, y):
    return (x * x + y * y) ** 0.5


def count_calls(kind, f, *args):
    """`(result, count)`: run `f(*args)`, counting the calls with all-`kind` arguments."""
    ctx = CountCtx(metadata=Count(kind))
    result = overdub(ctx, f, *args)
    return result, ctx.metadata.count


def main():
    print(count_calls(float, div, 1, 2))  # only truediv(1.0, 2.0)
    print(count_calls(int, div, 1, 2))  # float(1) and float(2)
    print(count_calls(float, hypot, 3.0, 4.0))  # mul, mul, add, pow


if __name__ == "__main__":
    main()

# Output:
# (0.5, 1)
# (0.5, 2)
# (5.0, 4)
