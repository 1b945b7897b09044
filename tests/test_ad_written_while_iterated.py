"""A container written while it is iterated: the iteration reads each slot as the
code between its steps left it, derivative included.

A list, a deque, or a dict's values or items may carry no derivative when a loop,
`iter`, `reversed`, `map` or an itertools tool begins iterating it, and be given one
ahead of the iteration. C's iterator would read the plain value it holds (the
derivative lives beside the heap), so each is iterated by a step that reads the
slot's derivative when it gets there. Each case is checked at depths 1 to 3, at a
float and at a `Fraction` point, against its closed form: every case returns
`1 + x**3` (or `x**3` where the written slot is read alone)."""

import itertools
from collections import OrderedDict, deque
from fractions import Fraction

import pytest

from ad import D


def for_loop(x):
    a = [1.0, 2.0]
    total = 0.0
    for v in a:
        a[1] = x * x * x
        total = total + v
    return total


def iter_then_sum(x):
    a = [1.0, 2.0]
    it = iter(a)
    a[1] = x * x * x
    return sum(it)


def next_after_the_write(x):
    a = [1.0, 2.0]
    it = iter(a)
    next(it)
    a[1] = x * x * x
    return 1.0 + next(it)


def deque_loop(x):
    a = deque([1.0, 2.0])
    total = 0.0
    for v in a:
        a[1] = x * x * x
        total = total + v
    return total


def dict_values(x):
    d = {"a": 1.0, "b": 2.0}
    total = 0.0
    for v in d.values():
        d["b"] = x * x * x
        total = total + v
    return total


def dict_items(x):
    d = {"a": 1.0, "b": 2.0}
    total = 0.0
    for _, v in d.items():
        d["b"] = x * x * x
        total = total + v
    return total


def ordered_dict_values(x):
    d = OrderedDict(a=1.0, b=2.0)
    total = 0.0
    for v in d.values():
        d["b"] = x * x * x
        total = total + v
    return total


def reversed_list(x):
    a = [2.0, 1.0]
    total = 0.0
    for v in reversed(a):
        a[0] = x * x * x
        total = total + v
    return total


def reversed_dict_values(x):
    d = {"a": 2.0, "b": 1.0}
    total = 0.0
    for v in reversed(d.values()):
        d["a"] = x * x * x
        total = total + v
    return total


def enumerated(x):
    a = [1.0, 2.0]
    total = 0.0
    for _, v in enumerate(a):
        a[1] = x * x * x
        total = total + v
    return total


def appended_while_looping(x):
    a = [1.0]
    total = 0.0
    for v in a:
        if len(a) < 2:
            a.append(x * x * x)
        total = total + v
    return total


def inserted_while_looping(x):
    a = [1.0, 2.0]
    total = 0.0
    for v in a:
        if len(a) < 3:
            a.insert(1, x * x * x)  # the loop then reads it, and 2.0 after it
        total = total + v
    return total - 2.0


def slice_written_while_looping(x):
    a = [1.0, 2.0]
    total = 0.0
    for v in a:
        a[1:] = [x * x * x]
        total = total + v
    return total


def mapped_before_the_write(x):
    a = [1.0, 2.0]
    doubled = map(lambda v: v * 2.0, a)
    a[1] = x * x * x
    return sum(doubled) / 2.0


def chained_before_the_write(x):
    a = [1.0, 2.0]
    chained = itertools.chain(a, [])
    a[1] = x * x * x
    return sum(chained)


def sliced_iterator_before_the_write(x):
    a = [1.0, 2.0, 5.0]
    first_two = itertools.islice(a, 2)
    a[1] = x * x * x
    return sum(first_two)


def delegated_before_the_write(x):
    a = [1.0, 2.0]

    def each():
        yield from a

    it = each()
    first = next(it)
    a[1] = x * x * x
    return first + next(it)


def written_by_a_call_in_the_loop(x):
    a = [1.0, 2.0]

    def put(value):
        a[1] = value

    total = 0.0
    for v in a:
        put(x * x * x)
        total = total + v
    return total


def list_subclass(x):
    class Row(list):
        pass

    a = Row([1.0, 2.0])
    total = 0.0
    for v in a:
        a[1] = x * x * x
        total = total + v
    return total


def comprehension(x):
    a = [1.0, 2.0]

    def put(v):
        a[1] = x * x * x
        return True

    return sum([v for v in a if put(v)])


CASES = [for_loop, iter_then_sum, next_after_the_write, deque_loop, dict_values, dict_items,
         ordered_dict_values, reversed_list, reversed_dict_values, enumerated,
         appended_while_looping, inserted_while_looping, slice_written_while_looping,
         mapped_before_the_write, chained_before_the_write, sliced_iterator_before_the_write,
         delegated_before_the_write, written_by_a_call_in_the_loop, list_subclass,
         comprehension]


def derivatives(x):
    """1 + x**3 and its first three derivatives."""
    return [1 + x ** 3, 3 * x ** 2, 6 * x, 6]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, Fraction(3, 2)], ids=["float", "Fraction"])
def test_the_written_slot_is_read_with_its_derivative(f, x):
    value, first, second, third = derivatives(x)
    assert f(x) == value
    assert D(f, x) == first
    assert D(D(f), x) == second
    assert D(D(D(f)), x) == third


def test_a_copy_iterated_while_the_list_is_written_keeps_the_copys_values():
    """The loop iterates a copy: the write reaches the list, not the copy, so the
    derivative is 0 (the copy is not mistaken for the list)."""
    def f(x):
        a = [1.0, 2.0]
        total = 0.0
        for v in list(a):
            a[1] = x * x * x
            total = total + v
        return total

    assert D(f, 1.5) == 0.0 and D(D(f), 1.5) == 0.0


def test_a_write_at_the_inner_level_only_is_read_by_the_inner_loop():
    """Nested: the list is made and written inside the inner derivative, with a value
    that carries both levels' derivatives; each level reads its own."""
    def f(x):
        def g(y):
            a = [1.0, 2.0]
            total = 0.0
            for v in a:
                a[1] = x * y * y
                total = total + v
            return total
        return D(g, x)  # 2 x**2

    assert D(f, 1.5) == 6.0  # 4 x
    assert D(D(f), 1.5) == 4.0


def iterator_by_name(x):
    a = [1.0, 2.0]
    it = a.__iter__()
    a[1] = x * x * x
    return sum(it)


def reversed_by_name(x):
    a = [2.0, 1.0]
    it = a.__reversed__()
    a[0] = x * x * x
    return sum(it)


def values_iterator_by_name(x):
    d = {"a": 1.0, "b": 2.0}
    it = d.values().__iter__()
    d["b"] = x * x * x
    return sum(it)


def argsort_by_getitem(x):
    """`key=a.__getitem__`, the argsort idiom: the key reads the slots' derivatives."""
    a = [x * x * x, 5.0, 1.0]
    order = sorted(range(3), key=a.__getitem__)  # [2, 0, 1] at 1.5 (3.375 < 5)
    return a[order[0]] + a[order[1]]


def written_by_name(x):
    a = [1.0, 2.0]
    total = 0.0
    for v in a:
        a.__setitem__(1, x * x * x)
        total = total + v
    return total


@pytest.mark.parametrize("f", [iterator_by_name, reversed_by_name, values_iterator_by_name,
                               argsort_by_getitem, written_by_name],
                         ids=lambda f: f.__name__)
def test_a_containers_dunders_called_by_name_do_what_their_operation_does(f):
    """`a.__iter__()` of a list with no derivative yet was C's iterator, which read
    the plain value written later (derivative 0); `a.__getitem__(i)` of one with a
    derivative was refused."""
    x = 1.5
    value, first, second, _ = derivatives(x)
    assert f(x) == value
    assert D(f, x) == first
    assert D(D(f), x) == second


def test_a_subclass_whose_getitem_computes_keeps_its_slots_right():
    """The store reads a slot from the list's own storage, never through a subclass's
    `__getitem__` (its author's code, here doubling): it recorded the doubled value as
    the slot's, and a read of the slot then found another object and dropped the
    derivative (`row.pop()` gave 0). The override's own `list.__getitem__(self, i)`
    of a slot carrying a derivative is refused, never read plain."""
    from ad import NonDifferentiableError

    class Doubling(list):
        def __getitem__(self, index):
            return list.__getitem__(self, index) * 2

    def popped(x):
        row = Doubling([1.0])
        row[0] = x * x * x
        return row.pop()

    def read(x):
        row = Doubling()
        row.append(x * x * x)
        return row[0]

    assert D(popped, 1.5) == 3 * 1.5 ** 2 and D(D(popped), 1.5) == 6 * 1.5
    with pytest.raises(NonDifferentiableError, match="list.__getitem__"):
        D(read, 1.5)


def test_an_iterator_of_a_list_with_derivatives_given_to_c_is_refused():
    """`collections.Counter(iter(a))` counts in C: of plain text it runs (see
    `statistics.multimode`), of values carrying derivatives it is refused, never
    counted plain."""
    from collections import Counter

    from ad import NonDifferentiableError

    assert D(lambda x: x * len(Counter(iter(["a", "b", "a"]))), 1.5) == 2
    with pytest.raises(NonDifferentiableError, match="_count_elements"):
        D(lambda x: len(Counter(iter([x, 2.0]))), 1.5)


def test_an_array_written_ahead_of_its_loop_keeps_the_write():
    np = pytest.importorskip("numpy")

    def looped(x):
        z = np.array([1.0, 2.0])
        total = 0.0
        for v in z:
            z[1] = x * x * x
            total = total + v
        return total

    def iterated(x):
        z = np.array([1.0, 2.0])
        it = iter(z)
        z[1] = x * x * x
        return sum(it)

    for f in (looped, iterated):
        value, first, second, _ = derivatives(1.5)
        assert f(1.5) == value
        assert D(f, 1.5) == first
        assert D(D(f), 1.5) == second


def test_numpys_own_readers_of_an_array_are_right_or_refused():
    """`np.ndenumerate` read `a.flat` in C: its items were plain, given a tangent
    before the loop or ahead of it (derivative 0, no error); it is read item by item
    now. `a.flat` and `np.nditer` have no rule: refused, also when the write comes
    after the loop began."""
    np = pytest.importorskip("numpy")
    from ad import NonDifferentiableError

    def enumerated(x):
        z = np.array([1.0, x * x * x])
        total = 0.0
        for _, v in np.ndenumerate(z):
            total = total + v
        return total

    def enumerated_ahead(x):
        z = np.array([1.0, 2.0])
        total = 0.0
        for _, v in np.ndenumerate(z):
            z[1] = x * x * x
            total = total + v
        return total

    def flat_ahead(x):
        z = np.array([1.0, 2.0])
        total = 0.0
        for v in z.flat:
            z[1] = x * x * x
            total = total + v
        return total

    def nditer_ahead(x):
        z = np.array([1.0, 2.0])
        total = 0.0
        for v in np.nditer(z):
            z[1] = x * x * x
            total = total + float(v)
        return total

    value, first, second, _ = derivatives(1.5)
    for f in (enumerated, enumerated_ahead):
        assert f(1.5) == value and D(f, 1.5) == first and D(D(f), 1.5) == second
    for f, named in ((flat_ahead, "flatiter"), (nditer_ahead, "nditer")):
        assert f(1.5) == value
        with pytest.raises(NonDifferentiableError, match=named):
            D(f, 1.5)
