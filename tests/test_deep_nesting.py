"""Contexts nested three, four and five deep: every inner context's machinery runs
under every outer one (DESIGN, "Nesting"), so no outer layer is ever lost.

An outer context runs an inner context's transformed code by transforming the tree
registered for that code; at depth three it must rebuild a tree it made from a tree
an inner context made, so each registered tree must stay readable after the first
transform that reads it, and must be the one of that very code object (the tagging
primitives include several closures of one function: equal code, distinct objects).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from ad import D
from contexts import overdub
from tagging import enabletagging
from tests.deep_nesting_subjects import (Seen, checks_its_type, cube, fifth,
                                         fifth_through_containers, float_times,
                                         inner_derivative, nested, through_an_object,
                                         toy_d, toy_nested)

# d^n/dx^n x**5 at x = 2: 5 x**4 = 80, 20 x**3 = 160, 60 x**2 = 240, 120 x = 240, 120
FIFTH_AT_2 = {1: 80.0, 2: 160.0, 3: 240.0, 4: 240.0, 5: 120.0}


@pytest.mark.parametrize("depth", [3, 4, 5])
def test_toy_derivatives_through_float(depth):
    assert toy_nested(fifth, depth)(2.0) == FIFTH_AT_2[depth]


@pytest.mark.parametrize("depth", [3, 4, 5])
def test_toy_derivatives_through_containers(depth):
    assert toy_nested(fifth_through_containers, depth)(2.0) == FIFTH_AT_2[depth]


def test_toy_inner_primitive_arithmetic_three_deep():
    # context 3's `mul` runs in context 2, whose own `mul` must run in context 1
    assert toy_nested(cube, 3)(2.0) == 6.0


def test_generated_code_read_by_two_outer_modes():
    """The inner context's transformed `square` met first by a toy context, then by
    a hooked one: the second must still run it under its hooks, not natively."""
    assert toy_d(inner_derivative, 3.0) == 2.0
    outer = enabletagging(Seen(metadata=[]), inner_derivative)
    assert overdub(outer, inner_derivative, 3.0) == 6.0
    names = outer.metadata
    assert "square" in names
    assert "mul" in names[names.index("square"):]  # the inner `mul` primitive's call


# `ad` nested three and four deep


@pytest.mark.parametrize("depth", [3, 4])
def test_ad_float(depth):
    # x**2: 2x, 2, 0, 0
    assert nested(float_times, depth)(2.0) == 0.0


def test_ad_float_at_the_issue_s_example():
    assert D(D(float_times))(2.0) == 2.0
    assert D(D(D(float_times)))(2.0) == 0.0


@pytest.mark.parametrize("depth", [3, 4])
def test_ad_type_isinstance_and_exp(depth):
    assert nested(checks_its_type, depth)(1.0) == pytest.approx(math.e, rel=1e-12)


@pytest.mark.parametrize("depth, expected", [(3, 48.0), (4, 24.0)])
def test_ad_user_class(depth, expected):
    # x**4 at 2: 4 x**3, 12 x**2, 24 x = 48, 24
    assert nested(through_an_object, depth)(2.0) == expected


def test_ad_five_deep_in_a_fresh_process():
    """`D` itself calls `tuple(...)`; the tagging primitives for `list` and `tuple`
    are closures of one function, whose transformed codes are equal but distinct
    objects and must each keep their own registered tree. (A fresh interpreter: the
    failure depended on the order in which the caches were first filled.)"""
    script = ("from tests.deep_nesting_subjects import fifth, nested\n"
              "print(nested(fifth, 5)(2.0))\n")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["120.0"]
