"""Forward-mode AD from the tagging API alone, nested without perturbation confusion.

`D(f, x)` tags `x` with tangent 1 in a fresh tagging context and runs `f`;
the context's primitives for `sin`, `cos`, `+` and `*` compute tangents. Each
`D` gets its own tag, so in `D(x -> x * D(y -> x * y, 3), 5)` the inner
derivative (which is `x`) keeps the outer perturbation: the answer is 10.
"""

import math
import operator

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, hasmetadata, istagged, metadata, tag, untag


class DiffCtx(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return (int, float) if value_type in (int, float) else NoMetaData

    def parts(self, x):
        return untag(x, self), tangent(x, self)

    @primitive(math.sin)
    def sin(self, x):
        if not istagged(x, self):  # pass-through: an enclosing context sees `sin`
            return math.sin(x)
        vx, dx = self.parts(x)
        return tag(math.sin(vx), self, math.cos(vx) * dx)

    @primitive(math.cos)
    def cos(self, x):
        if not istagged(x, self):
            return math.cos(x)
        vx, dx = self.parts(x)
        return tag(math.cos(vx), self, -math.sin(vx) * dx)

    @primitive(operator.add)
    def add(self, x, y):
        if not (istagged(x, self) or istagged(y, self)):
            return x + y
        (vx, dx), (vy, dy) = self.parts(x), self.parts(y)
        return tag(vx + vy, self, dx + dy)

    @primitive(operator.mul)
    def mul(self, x, y):
        if not (istagged(x, self) or istagged(y, self)):
            return x * y
        (vx, dx), (vy, dy) = self.parts(x), self.parts(y)
        return tag(vx * vy, self, vy * dx + vx * dy)


def tangent(x, ctx):
    return metadata(x, ctx) if hasmetadata(x, ctx) else 0


def D(f, x):
    ctx = enabletagging(DiffCtx(), f)
    return tangent(overdub(ctx, f, tag(x, ctx, 1.0)), ctx)


def main():
    print(D(math.sin, 1.0), math.cos(1.0))
    print(D(lambda x: math.sin(x) * math.cos(x), 1.0))
    print(D(lambda x: x * D(lambda y: x * y, 3), 5))
    print(D(lambda x: x * D(lambda y: x + y, 1), 1))


if __name__ == "__main__":
    main()

# Output:
# 0.5403023058681398 0.5403023058681398
# -0.4161468365471423
# 10.0
# 1.0
