"""A toy forward-mode AD built only on the tagging API (the seed talk's example)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.examples import load

D = load("nested_d").D


def test_derivative_of_sin_is_cos():
    assert D(math.sin, 1.0) == math.cos(1.0)


def test_product_rule():
    assert D(lambda x: math.sin(x) * math.cos(x), 1.0) == pytest.approx(
        math.cos(1.0) ** 2 - math.sin(1.0) ** 2)


def test_nested_derivatives_do_not_confuse_perturbations():
    assert D(lambda x: x * D(lambda y: x * y, 3), 5) == 10


def test_siskind_pearlmutter():
    assert D(lambda x: x * D(lambda y: x + y, 1), 1) == 1


@given(st.floats(-50, 50))
def test_polynomial_against_its_derivative(x):
    assert D(lambda t: t * t * t + 2 * t, x) == pytest.approx(3 * x * x + 2)


def test_derivative_through_a_list_and_an_object():
    class Box:
        def __init__(self, value):
            self.value = value

    def f(x):
        box = Box(x)
        items = [box.value, 2.0]
        items.append(box.value * items[1])
        return items[2] * items[0]

    assert D(f, 3.0) == pytest.approx(4 * 3.0)
