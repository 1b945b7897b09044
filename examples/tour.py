"""A tour of the examples (ad, then contexts, then tagging): each in turn, under a heading.

    .venv/bin/python examples/tour.py

Each example is also a script of its own, with its expected output written
at its bottom. The property-based test needs hypothesis and the least-squares fit
numpy, both from the test extra (the README's second command installs them).
"""

import accumulate
import ad_seeds
import count_calls
import crazy_module
import least_squares
import literal_translation
import math_to_mpmath
import memoize
import nested_d
import nested_trace
import newton
import posthook_trace
import print_trace
import projectile
import property_test
import slice_dispatch
import slice_pass
import weird_identity

EXAMPLES = [ad_seeds, projectile, newton, least_squares, property_test, print_trace, posthook_trace, count_calls, accumulate, nested_trace, memoize,
            slice_dispatch, slice_pass, literal_translation, math_to_mpmath, weird_identity,
            crazy_module, nested_d]


def main():
    for number, example in enumerate(EXAMPLES, 1):
        if number > 1:
            print()
        title = example.__doc__.splitlines()[0]
        print(f"== {number}. {title}")
        example.main()


if __name__ == "__main__":
    main()
