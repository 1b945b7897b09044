"""Literal translation: a pass turns float literals into exact fractions.

Cassette's `bit32pass` rewrites literals with `replace_match!`; this pass
replaces every float literal of a body by the `fractions.Fraction` it was
written as (`0.1` becomes `Fraction(1, 10)`), held in an `ast.Constant`. The
arithmetic that follows is then exact, in the function and in every Python
function it calls.
"""

import ast
from fractions import Fraction

from contexts import Context, overdub, replace_match


def is_float_literal(node):
    return isinstance(node, ast.Constant) and type(node.value) is float


def to_fraction(node):
    return ast.Constant(Fraction(repr(node.value)))


def exact_literals(ctx_type, f, tree):
    """The pass: every float literal of `tree` becomes an exact `Fraction`."""
    return replace_match(to_fraction, is_float_literal, tree)


def tenths(n):
    total = 0.0
    for _ in range(n):
        total += 0.1
    return total


def mean_of_tenths(n):
    return tenths(n) / n * 10.0


def exactly(f, *args):
    """Run `f(*args)` with its float literals (and its callees') made exact."""
    return overdub(Context(passes=[exact_literals]), f, *args)


def main():
    print(tenths(10), repr(exactly(tenths, 10)))
    print(tenths(10) == 1, exactly(tenths, 10) == 1)
    print(mean_of_tenths(3), repr(exactly(mean_of_tenths, 3)))


if __name__ == "__main__":
    main()

# Output:
# 0.9999999999999999 Fraction(1, 1)
# False True
# 1.0000000000000002 Fraction(1, 1)
