"""`zip` under `D`: lists and tuples are read by index natively (the tuples it makes
keep their items' derivatives), anything else goes through the engine's model;
either way it behaves as C's `zip`."""

import pytest

from ad import D


def growing(x):
    """A list appended to while it is zipped: C's zip reads it lazily, by index."""
    xs, total = [x, 2 * x], 0
    for a, b in zip(xs, [1.0, 1.0, 1.0, 1.0]):
        total = total + a * b
        if len(xs) < 4:
            xs.append(3 * a)
    return total  # x + 2x + 3x + 6x


def with_a_generator(x):
    return sum(a * b for a, b in zip([x, x * x], (t for t in (1.0, 2.0))))  # x + 2x^2


def of_tuples(x):
    return [a * b * c for a, b, c in zip((x,), (x, 0.0), [3.0])][0]  # 3x^2


def test_a_list_grown_while_zipped_is_read_as_c_reads_it():
    assert D(growing, 1.5) == 12.0


def test_zip_of_a_list_and_a_generator():
    assert D(with_a_generator, 1.5) == 1 + 4 * 1.5


def test_zip_of_tuples_stops_at_the_shortest():
    assert D(of_tuples, 1.5) == 6 * 1.5


def test_strict_zip_raises_as_c_does():
    with pytest.raises(ValueError, match="shorter"):
        D(lambda x: sum(a * b for a, b in zip([x, x], [1.0], strict=True)), 1.5)


def test_zip_under_a_second_derivative():
    assert D(D(growing), 1.5) == 0.0
    assert D(D(of_tuples), 1.5) == 6.0
