"""Posthook accumulation: the sum of every numeric output met in the trace.

Cassette's `AccumCtx`: `posthook(ctx, out::Number, f, args...)` adds `out`
to the metadata. Here the outputs of `div(1, 2)` are 1.0, 2.0 and 0.5.
"""

from dataclasses import dataclass
from numbers import Number

from contexts import Context, overdub


@dataclass
class Accum:
    x: Number = 0


class AccumCtx(Context):
    def posthook(self, output, f, *args, **kwargs):
        if isinstance(output, Number):
            self.metadata.x += output


def div(x, y):
    return float(x) / float(y)


def accumulate(f, *args):
    """`(result, total)`: run `f(*args)`, summing every numeric output inside it."""
    ctx = AccumCtx(metadata=Accum())
    result = overdub(ctx, f, *args)
    return result, ctx.metadata.x


def main():
    result, total = accumulate(div, 1, 2)
    print(result)
    print(total)


if __name__ == "__main__":
    main()

# Output:
# 0.5
# 3.5
