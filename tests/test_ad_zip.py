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


# A loop unpacking each tuple of a zip of lists reads the lists themselves
# (`zip_unpacked`); it shares the zip's place with the zip's own steps.

def resumed_after_next(x):
    """One tuple taken by `next`, the rest by an unpacking loop, and the zip stays
    exhausted after it, though a list grows (C's iterators do)."""
    xs, ys = [x, 2 * x, 3 * x], [x, x, x]
    zipped = zip(xs, ys)
    a, b = next(zipped)
    total = a * b * 10
    for a, b in zipped:
        total = total + a * b
    xs.append(x)
    ys.append(x)
    return total if next(zipped, None) is None else 0.0  # 10x^2 + 2x^2 + 3x^2


def stored_after_zipping(x):
    """Lists given a value with a derivative after they are zipped, before the zip
    is read: C's zip reads them then."""
    a, b = [1.0, 2.0], [1.0, 1.0]
    pairs, same = zip(a, b), zip(a, a)
    a[0] = x
    a[1] = 3 * x
    return sum(p * q for p, q in pairs) + [p * q for p, q in same][1]  # 4x + 9x^2


def exhausted_by_next_then_unpacked(x):
    """Run to its end by `next`, a zip gives an unpacking loop nothing, though its
    lists grow."""
    xs, ys = [x], [x]
    zipped = zip(xs, ys)
    a, b = next(zipped)
    if next(zipped, None) is not None:
        return 0.0
    xs.append(x)
    ys.append(x)
    return a * b + sum(a * b * 100 for a, b in zipped)  # x^2


def unpacked_into_the_wrong_number_of_names(x):
    return [a * b for a, b in zip([x], [x], [x])]


def nested_names(x):
    return [a * b * c for a, (b, c) in zip([x], [(x, 2 * x)])][0]  # 2x^3


def cubed_through_zips(x):
    return [a * b * c for a, b, c in zip([x], [x * x], [x, 0.0])][0]  # x^4


def zip_of_an_enclosing_derivative(x):
    """A zip made by the outer derivative, unpacked by a loop of the inner one."""
    zipped = zip([x, 2 * x], [x, x])
    return D(lambda y: sum(a * b * y for a, b in zipped), 1.0)  # 3x^2


def test_a_zip_stepped_by_next_then_unpacked_by_a_loop():
    assert D(resumed_after_next, 1.5) == 30 * 1.5


def test_a_list_stored_into_after_it_is_zipped():
    assert D(stored_after_zipping, 1.5) == 4 + 18 * 1.5


def test_a_zip_exhausted_by_next_stays_exhausted_for_a_loop():
    assert D(exhausted_by_next_then_unpacked, 1.5) == 2 * 1.5


def test_an_unpacking_loop_over_zip_takes_the_names_it_has():
    with pytest.raises(ValueError, match="too many values to unpack"):
        D(unpacked_into_the_wrong_number_of_names, 1.5)


def test_an_unpacking_loop_over_zip_with_nested_names():
    assert D(nested_names, 1.5) == 6 * 1.5 ** 2


def test_unpacking_loops_over_zips_at_three_depths():
    assert D(cubed_through_zips, 1.5) == 4 * 1.5 ** 3
    assert D(D(cubed_through_zips), 1.5) == 12 * 1.5 ** 2
    assert D(D(D(cubed_through_zips)), 1.5) == 24 * 1.5


def test_a_zip_of_the_enclosing_derivative_unpacked_in_the_inner_one():
    assert D(zip_of_an_enclosing_derivative, 1.5) == 6 * 1.5
    assert D(D(zip_of_an_enclosing_derivative), 1.5) == 6.0
