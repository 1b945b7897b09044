"""The calls the tagging pass writes for displays, comprehensions and unpacking.

Each is a marker: every tagging context answers it with the primitive of the
same name in `_primitives` (which takes the context first). The markers are
distinct functions from those primitives, so when a tagging context runs under
another one, the outer context sees the inner one's primitive as a plain
function to run, not as a display of its own. Called natively, a marker does
what the code it stands for does.
"""

from __future__ import annotations

import itertools


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.__qualname__ = name  # so `lowered` shows it by name
        self.__module__ = __name__

    def __repr__(self) -> str:
        return self.__qualname__


DOUBLE_STAR = _Sentinel("DOUBLE_STAR")  # marks `**mapping` in a dict display
STARRED = _Sentinel("STARRED")  # marks `*rest` in the shape of an unpacking target


def items_to_unpack(value, shape) -> list:
    """As many items of `value` as unpacking into `shape` takes: all of them for a
    starred target, else one more than the target has (so that too many is seen
    without running an endless iterator to its end)."""
    if STARRED in shape:
        return list(value)
    return list(itertools.islice(value, len(shape) + 1))


def display_list(*items):
    return list(items)


def display_tuple(*items):
    return items


def display_set(*items):
    return set(items)


def display_dict(*flat):
    out: dict = {}
    for index in range(0, len(flat), 2):
        if flat[index] is DOUBLE_STAR:
            out.update(flat[index + 1])
        else:
            out[flat[index]] = flat[index + 1]
    return out


def list_from(temporary):
    return list(temporary)


def dict_from(temporary):
    return {key: value for key, value in temporary}


def unpack(value, shape):
    items = items_to_unpack(value, shape)
    for index, inner in enumerate(shape):
        if type(inner) is tuple and index < len(items):
            items[index] = unpack(items[index], inner)
    return items


def unpack_each(iterable, shape):
    for item in iterable:
        yield unpack(item, shape)
