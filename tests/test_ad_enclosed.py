"""An inner derivative that does not depend on its own variable changes nothing for
the derivative enclosing it.

A derivative taken inside another runs its rules, its foreign calls and its own
bookkeeping natively under the enclosing one, which sees only what it must: the
arithmetic on its values and the calls it would make itself (`enclosed`). Where
the inner derivative has nothing of its own to follow, every such shortcut is
taken, so the enclosing derivative must come out exactly as at depth one: the
first-order real-code suite and every C entry point of `docs/callbacks.md`, run
inside a `jvp` whose own variable is unused.
"""

import pytest

from ad import D, NonDifferentiableError, jvp
from tests.test_ad_callbacks import REFUSED, ROWS
from tests.test_ad_realcode import CASES


def inside_an_unused_derivative(f):
    """`f`, run inside a derivative by a variable it does not use."""
    return lambda x: jvp(lambda unused: f(x), (0.5,), (1.0,))[0]


def _scalar_cases():
    for case in CASES:
        if case.fails or case.grad or case.jac or case.order != 1:
            continue
        yield pytest.param(case, id=case.id, marks=case.marks)


@pytest.mark.parametrize("case", list(_scalar_cases()))
def test_real_code_inside_an_unused_derivative_is_as_at_depth_one(case):
    if case.needs:
        pytest.importorskip(case.needs)
    assert D(inside_an_unused_derivative(case.f), case.x) == D(case.f, case.x)


@pytest.mark.parametrize("name", ROWS)
def test_a_c_entry_point_inside_an_unused_derivative_is_as_at_depth_one(name):
    row = ROWS[name]
    with row.around():
        if row.expected is REFUSED:
            with pytest.raises(NonDifferentiableError):
                D(inside_an_unused_derivative(row.f), row.point)
        else:
            assert D(inside_an_unused_derivative(row.f), row.point) == D(row.f, row.point)
