"""Swapping `math` for `mpmath`: primitives run a float program in high precision.

Inside `MPMathCtx` each call of `math.sqrt`, `math.exp`, `math.log`,
`math.sin` or `math.cos` goes to the `mpmath` function of the same name, so
the code computes with `mpmath.mpf` numbers at `mpmath.mp.dps` digits, while
the same code outside the context stays in floats. (`exp(x) - 1` still
cancels ten of the thirty digits for `x = 1e-10`; floats keep six of sixteen.)
"""

import math

import mpmath

from contexts import Context, overdub, primitive


class MPMathCtx(Context):
    @primitive(math.sqrt)
    def sqrt(self, x):
        return mpmath.sqrt(x)

    @primitive(math.exp)
    def exp(self, x):
        return mpmath.exp(x)

    @primitive(math.log)
    def log(self, x, *base):
        return mpmath.log(x, *base)

    @primitive(math.sin)
    def sin(self, x):
        return mpmath.sin(x)

    @primitive(math.cos)
    def cos(self, x):
        return mpmath.cos(x)


def golden_ratio():
    return (1 + math.sqrt(5)) / 2


def expm1_naive(x):
    return math.exp(x) - 1


def angle_sum(x, y):
    return math.sin(x) * math.cos(y) + math.cos(x) * math.sin(y)


def in_mpmath(f, *args, digits=30):
    """Run `f(*args)` with `math` replaced by `mpmath` at `digits` significant digits."""
    with mpmath.workdps(digits):
        return overdub(MPMathCtx(), f, *args)


def main():
    for f, args in [(golden_ratio, ()), (expm1_naive, (1e-10,)), (angle_sum, (1, 2))]:
        value = in_mpmath(f, *args)
        print(f"{f.__name__}: {f(*args)!r} -> {type(value).__name__} "
              f"{mpmath.nstr(value, 30)}")
    print("sin(3):", mpmath.nstr(in_mpmath(math.sin, 3), 30))


if __name__ == "__main__":
    main()

# Output:
# golden_ratio: 1.618033988749895 -> mpf 1.61803398874989484820458683437
# expm1_naive: 1.000000082740371e-10 -> mpf 1.0000000000500000364330560142e-10
# angle_sum: 0.1411200080598673 -> mpf 0.141120008059867222100744802808
# sin(3): 0.141120008059867222100744802808
