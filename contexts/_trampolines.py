"""Trampolines: the cheap way to see callbacks when no hook or layer needs more.

A context that only has primitives (or passes) needs a builtin's callbacks to
run in the context, but not each call to be observed one by one. Then
`sorted(xs, key=k)` runs the C `sorted` with `k` resolved once (to its
transformed body, its primitive, or itself): Cassette's `overdubbed_iterate`
pattern, at native speed. Contexts with hooks, a layer or protocol primitives use
the Python models instead, which make every callback call a call in the
context.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Callable

# builtin -> (positions of callback arguments, names of callback keywords)
_CALLBACKS: dict = {
    map: ((0,), ()), filter: ((0,), ()), sorted: ((), ("key",)),
    list.sort: ((), ("key",)), min: ((), ("key",)), max: ((), ("key",)),
    functools.reduce: ((0,), ()), itertools.starmap: ((0,), ()),
    itertools.takewhile: ((0,), ()), itertools.dropwhile: ((0,), ()),
    itertools.filterfalse: ((0,), ()), itertools.groupby: ((1,), ("key",)),
    itertools.accumulate: ((1,), ("func",)),
}


def trampoline_for(key: Any, dispatch: Callable) -> Callable | None:
    """`key` with its callback arguments resolved by `dispatch`, or None."""
    try:
        found = _CALLBACKS.get(key)
    except TypeError:
        return None
    if found is None:
        return None
    positions, keywords = found

    def trampoline(*args, **kwargs):
        if positions:
            args = tuple(dispatch(a) if i in positions and a is not None else a
                         for i, a in enumerate(args))
        for keyword in keywords:
            if kwargs.get(keyword) is not None:
                kwargs[keyword] = dispatch(kwargs[keyword])
        return key(*args, **kwargs)

    return trampoline
