"""Which code objects the engine made, so a frame can tell it runs in a context.

A value that only ever lives in transformed frames (a tagged value, say) may
need to know whether the code touching it is the engine's or plain code it
escaped to; `is_generated(frame.f_code)` answers in one dictionary lookup.
"""

from __future__ import annotations

import types
import weakref

_generated: dict[int, weakref.ref] = {}  # id(code) -> a weak reference to it


def register(code: types.CodeType) -> None:
    """Remember `code` and the code nested in it (comprehensions, lambdas, defs)."""
    key = id(code)
    _generated[key] = weakref.ref(code, lambda _, key=key: _generated.pop(key, None))
    for const in code.co_consts:
        if type(const) is types.CodeType:
            register(const)


def is_generated(code: types.CodeType) -> bool:
    """Whether `code` is a body the engine transformed or precompiled."""
    found = _generated.get(id(code))
    return found is not None and found() is code
