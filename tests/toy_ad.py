"""Forward-mode AD written only with the tagging API, as in the seed talk."""

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

    def tagged(self, *args):
        return any(istagged(a, self) for a in args)

    @primitive(math.sin)
    def sin(self, x):
        if not self.tagged(x):
            return math.sin(x)
        vx, dx = self.parts(x)
        return tag(math.sin(vx), self, math.cos(vx) * dx)

    @primitive(math.cos)
    def cos(self, x):
        if not self.tagged(x):
            return math.cos(x)
        vx, dx = self.parts(x)
        return tag(math.cos(vx), self, -math.sin(vx) * dx)

    @primitive(operator.add)
    def add(self, x, y):
        if not self.tagged(x, y):
            return x + y
        (vx, dx), (vy, dy) = self.parts(x), self.parts(y)
        return tag(vx + vy, self, dx + dy)

    @primitive(operator.mul)
    def mul(self, x, y):
        if not self.tagged(x, y):
            return x * y
        (vx, dx), (vy, dy) = self.parts(x), self.parts(y)
        return tag(vx * vy, self, vy * dx + vx * dy)


def tangent(x, ctx):
    return metadata(x, ctx) if hasmetadata(x, ctx) else 0


def D(f, x):
    ctx = enabletagging(DiffCtx(), f)
    return tangent(overdub(ctx, f, tag(x, ctx, 1.0)), ctx)
