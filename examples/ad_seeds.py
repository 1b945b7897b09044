"""The seed examples with `ad`: derivatives of plain Python, nested without confusion.

`D(f, x)` is the derivative of `f` at `x`. Nested derivatives each get a tag of
their own, so `D(x -> x * D(y -> x + y, 1), 1)`, Siskind and Pearlmutter's test
of perturbation confusion, is 1 (the inner derivative is 1 whatever x is) and
not the 2 that a single shared perturbation would give.
"""

import math

from ad import D


def foo_bar_identity(x):
    return x


def main():
    print("D(sin, 1) =", D(math.sin, 1.0), "  cos(1) =", math.cos(1.0))
    print("D(sin(x) cos(x), 1) =", D(lambda x: math.sin(x) * math.cos(x), 1.0),
          "  cos(2) =", math.cos(2.0))
    print("D(x * D(y -> x * y, 3), 5) =", D(lambda x: x * D(lambda y: x * y, 3), 5))
    print("D(x * foo_bar_identity(x), 1) =", D(lambda x: x * foo_bar_identity(x), 1.0))
    print("D(x * D(y -> x + y, 1), 1) =", D(lambda x: x * D(lambda y: x + y, 1), 1))


if __name__ == "__main__":
    main()

# Output:
# D(sin, 1) = 0.5403023058681398   cos(1) = 0.5403023058681398
# D(sin(x) cos(x), 1) = -0.4161468365471423   cos(2) = -0.4161468365471424
# D(x * D(y -> x * y, 3), 5) = 10
# D(x * foo_bar_identity(x), 1) = 2.0
# D(x * D(y -> x + y, 1), 1) = 1
