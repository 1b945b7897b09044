"""A property-based test of your own function's derivative, with hypothesis and `check`.

`softplus` is written the way numerical code is: two branches, each stable
where the other would overflow. hypothesis picks points (the branch point 0
and extreme values among them), and at each one `check` compares `D` with a
numerical derivative, while a second test compares it with the formula that
softplus' derivative is known to have, the logistic function. Run it with
`pytest examples/property_test.py`, or as a script.
"""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ad import D, check


def softplus(x):
    """log(1 + e^x), without overflow for large x."""
    if x > 0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def logistic(x):
    return 1 / (1 + math.exp(-x))


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=-30, max_value=30))
def test_softplus_derivative_agrees_with_a_numerical_one(x):
    check(softplus, x)


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=-700, max_value=700))
def test_softplus_derivative_is_the_logistic_function(x):
    assert math.isclose(D(softplus, x), logistic(x), rel_tol=1e-12, abs_tol=1e-300)


def main():
    for test in (test_softplus_derivative_agrees_with_a_numerical_one,
                 test_softplus_derivative_is_the_logistic_function):
        test()  # hypothesis runs it at many points; a failure raises with the point
        print(f"{test.__name__}: passed")


if __name__ == "__main__":
    main()

# Output:
# test_softplus_derivative_agrees_with_a_numerical_one: passed
# test_softplus_derivative_is_the_logistic_function: passed
