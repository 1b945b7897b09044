"""Never silently wrong through a store: C containers and C descriptors that convert
what they are given (an `array.array`, a `memoryview`, a `bytearray`, a ctypes field,
a NumPy array) keep no object to find the tangent by again, so storing a value that
carries one is refused, and a refusal that `f` catches still makes `D` raise."""

import array
import collections
import ctypes
import sqlite3
import struct

import pytest

from ad import D, NonDifferentiableError
from contexts import Context, overdub
from tagging import Tagged, enabletagging, tag, untag


class Cell(ctypes.Structure):
    _fields_ = [("v", ctypes.c_double)]


def into_array(x):
    z = array.array("d", [0.0, 0.0])
    z[0] = x
    return z[0] * 2


def through_a_memoryview(x):
    z = array.array("d", [0.0, 0.0])
    memoryview(z)[1] = x
    return z[1] * 2


def into_a_bytearray(n):
    b = bytearray(2)
    b[0] = n
    return b[0] * 3


def into_a_ctypes_field(x):
    cell = Cell()
    cell.v = x
    return cell.v * 2


@pytest.mark.parametrize("f, at, named", [
    (into_array, 1.5, "array.__setitem__"),
    (through_a_memoryview, 1.5, "memoryview.__setitem__"),
    (into_a_bytearray, 7, "bytearray.__setitem__"),
    (into_a_ctypes_field, 1.5, "setattr"),
])
def test_a_store_into_converting_c_storage_is_refused(f, at, named):
    with pytest.raises(NonDifferentiableError, match=named) as raised:
        D(f, at)
    assert "test_ad_stores.py" in str(raised.value)  # the user's line


def test_a_numpy_array_write_keeps_its_derivative_and_an_int_array_refuses_it():
    # (a float array keeps the tangent beside it since numpy support; an int array,
    # which truncates what it is given, still refuses it)
    np = pytest.importorskip("numpy")

    def f(x):
        z = np.zeros(2)
        z[0] = x
        return z[0] * 2

    def into_ints(x):
        z = np.zeros(2, dtype=int)
        z[0] = x
        return z[0] * 2

    assert D(f, 1.5) == 2.0
    with pytest.raises(NonDifferentiableError, match="int64") as raised:
        D(into_ints, 1.5)
    assert "test_ad_stores.py" in str(raised.value)  # the user's line


def stores_constants(x):
    z = array.array("d", [0.0, 0.0])
    z[0] = 3.0
    z[0:1] = array.array("d", [4.0])  # a slice store keeps the value's own type
    b = bytearray(3)
    b[0:2] = (n for n in (1, 2))  # an iterator, read once
    cell = Cell()
    cell.v = 5.0
    return (z[0] + b[1] + cell.v) * x


def test_constants_stored_into_c_storage_run_as_plain():
    assert D(stores_constants, 1.5) == stores_constants(1.0) == 11.0


def caught(x):
    z = array.array("d", [0.0])
    try:
        z[0] = x
    except TypeError:
        pass
    return z[0] * 2 + x


def test_a_refusal_caught_inside_f_still_raises_at_the_end():
    """Plain, `caught` is 3x; without the store's tangent it would pass for 1."""
    with pytest.raises(NonDifferentiableError, match="array.__setitem__"):
        D(caught, 1.5)


def caught_then_fails(x):
    z = array.array("d", [0.0])
    try:
        z[0] = x
    except TypeError:
        z = None  # what the refusal leads to: an error of its own, below
    return z[0] * x


def test_a_refusal_caught_inside_f_is_raised_when_f_then_fails():
    """The refusal, not the error it led to, says what went wrong."""
    with pytest.raises(NonDifferentiableError, match="array.__setitem__"):
        D(caught_then_fails, 1.5)


def test_a_refusal_caught_in_a_nested_derivative_raises_there():
    with pytest.raises(NonDifferentiableError, match="array.__setitem__"):
        D(lambda y: D(lambda x: caught(x * y), 1.0), 2.0)


class Labels(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str


def test_a_tagging_context_gives_c_storage_the_plain_value():
    """Outside `ad`, the store is a foreign call: C code gets the plain value, and no
    `Tagged` reaches the array."""
    def f(x):
        z = array.array("d", [0.0])
        z[0] = x
        return z

    ctx = enabletagging(Labels(), f)
    z = untag(overdub(ctx, f, tag(1.5, ctx, "input")), ctx)
    assert list(z) == [1.5] and type(z[0]) is float and not isinstance(z[0], Tagged)


def test_a_refused_store_stores_nothing():
    """The refusal comes before the C store runs: the array keeps what it held."""
    z = array.array("d", [7.0])
    cell = Cell(v=7.0)

    def f(x):
        try:
            z[0] = x
        except NonDifferentiableError:
            pass
        try:
            cell.v = x
        except NonDifferentiableError:
            pass
        return x

    with pytest.raises(NonDifferentiableError):
        D(f, 1.5)
    assert z[0] == 7.0 and cell.v == 7.0


def test_c_code_consuming_a_generator_of_derivatives_is_refused():
    """A generator made in the context leaves what it yields with a tangent in the store,
    for a consumer in the context; C code iterating it natively would take plain values
    (`array.array('d', gen)` gave 0)."""
    with pytest.raises(NonDifferentiableError, match="array"):
        D(lambda x: array.array("d", (x * i for i in range(3)))[1], 2.0)
    assert D(lambda x: sum(x * i for i in range(3)), 2.0) == 3.0  # a model: in the context


def a_table():
    connection = sqlite3.connect(":memory:")
    connection.execute("create table t (v real)")
    return connection


# C functions that keep what they are given: (the storage, the store of x into it,
# what the storage holds).
KEEPERS = {
    "array.append": (lambda: array.array("d"), lambda a, x: a.append(x), list),
    "array.extend": (lambda: array.array("d"), lambda a, x: a.extend([x]), list),
    "array.insert": (lambda: array.array("d"), lambda a, x: a.insert(0, x), list),
    "struct.pack_into": (lambda: bytearray(8), lambda b, x: struct.pack_into("d", b, 0, x),
                         bytes),
    "sqlite3 parameter": (a_table, lambda c, x: c.execute("insert into t values (?)", (x,)),
                          lambda c: c.execute("select v from t").fetchall()),
    "sqlite3 parameters": (a_table, lambda c, x: c.executemany("insert into t values (?)",
                                                               [(x,)]),
                           lambda c: c.execute("select v from t").fetchall()),
    "ctypes array": (lambda: (ctypes.c_double * 1)(), lambda c, x: c.__setitem__(0, x), list),
    "setattr on a C object": (Cell, lambda c, x: setattr(c, "v", x), lambda c: c.v),
}


@pytest.mark.parametrize("name", KEEPERS)
def test_a_c_function_that_keeps_its_argument_is_refused_before_it_runs(name):
    """Decided from the function before the call (`ad._foreign`): the storage holds
    what it held, even when `f` catches the refusal."""
    make, store, read = KEEPERS[name]
    storage = make()
    before = read(storage)

    def f(x):
        try:
            store(storage, x * 2)
        except NonDifferentiableError:
            pass
        return x

    with pytest.raises(NonDifferentiableError) as raised:
        D(f, 1.5)
    assert "test_ad_stores.py" in str(raised.value)  # the user's line
    assert read(storage) == before


def test_an_operator_draining_a_generator_of_derivatives_is_refused():
    """`xs += gen`: C would take the generator's values plain (this gave 0)."""
    def f(x):
        xs = [1.0]
        xs += (x * i for i in range(3))
        return xs[2]

    with pytest.raises(NonDifferentiableError, match="operator.iadd"):
        D(f, 1.5)


def test_c_calls_whose_result_carries_no_number_still_run():
    """What `ad._foreign` lets run: text, truth values, dict reads and moves, containers
    built of containers."""
    def f(x):
        text = "%.1f" % x + "{:.1f}".format(x) + (1.5).__repr__() + "ab" * 2
        table = collections.OrderedDict(a=x, b=2 * x)
        table.move_to_end("a")
        found = hasattr(x, "real") and "a" in table and list(table.values())[1]  # a: x
        return len(text) * found + ([x] + [3 * x] * 2)[2]

    assert D(f, 1.5) == len("1.51.51.5abab") + 3.0
