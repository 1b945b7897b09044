"""Contexts reused between derivatives (`ad._pool`): a second `D` pays only for its
tag, and nothing of an earlier run reaches a later one.

A context goes back to its thread's pool only when no generator or coroutine its
code made can run again: such a frame holds values tagged by the earlier run, and
would go on with the new tag's cells.
"""

import functools
import struct
import threading
import types

import pytest

from ad import D, NonDifferentiableError, gradient
from ad import _pool


def _free():
    return list(_pool._pool.free)


def square(x):
    return x * x


def test_a_second_derivative_takes_the_first_ones_context_with_a_fresh_tag():
    D(square, 1.0)
    ctx = _free()[-1]
    first_tag = ctx.tag
    assert D(square, 3.0) == 6.0
    assert _free()[-1] is ctx
    assert ctx.tag is not first_tag


def test_a_nested_derivative_takes_a_context_of_its_own_and_gives_it_back():
    D(D(square), 1.0)
    before = _free()
    assert D(D(lambda x: x * square(x)), 2.0) == 12.0
    assert len(_free()) == len(before) >= 2
    assert len({id(ctx) for ctx in _free()}) == len(_free())


def _suspended_generator(a):
    b = a * 2
    yield b
    yield b * 3


def _genexpr_of(a):
    b = a * 2
    return (b * k for k in (1, 3))


@types.coroutine
def _pause(value):
    yield value


async def _suspended_coroutine(a):
    b = a * 2
    await _pause(None)
    await _pause(b * 3)


@pytest.mark.parametrize("make", [_suspended_generator, _genexpr_of],
                         ids=["generator", "generator expression"])
def test_a_generator_suspended_after_its_derivative_keeps_its_context_from_reuse(make):
    # The generator holds `b`, tagged by the first derivative, in its frame: were its
    # context reused, `b * 3` would run with the second derivative's tag.
    box = []

    def first(x):
        generator = make(x)
        box.append(generator)
        return next(generator)

    assert D(first, 3.0) == 2.0
    assert not any(box[0] in ctx._runtime.made for ctx in _free())
    # resumed in a sibling derivative: a constant there
    assert D(lambda z: next(box[0]) * z, 1.0) == 18.0


def test_a_coroutine_suspended_after_its_derivative_keeps_its_context_from_reuse():
    box = []

    def first(x):
        box.append(_suspended_coroutine(x))
        box[0].send(None)
        return x

    assert D(first, 3.0) == 1.0
    assert D(lambda z: box[0].send(None) * z, 1.0) == 18.0


def test_the_context_is_reused_again_once_the_generator_has_ended():
    box = []

    def first(x):
        box.append(_suspended_generator(x))
        return next(box[0])

    D(first, 3.0)
    assert list(box[0]) == [18.0]
    D(square, 1.0)
    ctx = _free()[-1]
    D(square, 1.0)
    assert _free()[-1] is ctx


def test_a_refusal_caught_in_one_derivative_does_not_reach_the_next():
    def caught(x):
        try:
            struct.pack("d", x)  # bytes carry no derivative: refused
        except NonDifferentiableError:
            pass
        return x

    with pytest.raises(NonDifferentiableError):
        D(caught, 1.0)
    assert D(square, 2.0) == 4.0


def test_a_memoised_call_of_one_derivative_is_not_reused_by_the_next():
    state = [0.0]

    @functools.lru_cache
    def scaled(k):
        return k * state[0]

    def f(x):
        state[0] = x
        return scaled(2)

    assert D(f, 1.0) == 2.0
    assert D(f, 5.0) == 2.0


def test_a_function_given_new_code_between_derivatives_runs_its_new_code():
    def f(x):
        return x * x

    assert D(f, 3.0) == 6.0
    f.__code__ = (lambda x: x * x * x).__code__
    assert D(f, 3.0) == 27.0


def test_threads_each_reuse_their_own_contexts():
    results, errors = {}, []

    def work(i):
        try:
            for _ in range(20):
                results[i] = (D(D(lambda x: x * x * x * i), 2.0),
                              gradient(lambda v: v[0] * v[1] * i, [2.0, 3.0]))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == {i: (12.0 * i, [3.0 * i, 2.0 * i]) for i in range(8)}


def test_what_a_kept_context_holds_stays_bounded():
    import functools
    from contexts.layer import kept

    def scaled(k, x):
        return k * x

    for k in range(_pool._RESOLVED + 50):  # a fresh partial each time: one more callee
        assert D(lambda x: functools.partial(scaled, 2.0)(x), 1.0) == 2.0
    assert all(kept(ctx) < _pool._RESOLVED for ctx in _free())
