"""Which code objects are the engine's, so a frame can tell it runs in a context.

A value that only ever lives in transformed frames (a layer's wrapper, say) may
need to know whether the code touching it is the engine's or plain code it
escaped to: `is_engine_code(frame.f_code)` answers, for transformed bodies in
one dictionary lookup, then for the files of the engine and its layers.
"""

from __future__ import annotations

import types
import weakref

from contexts._tracebacks import ENGINE_PLACES

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


def is_engine_code(code: types.CodeType) -> bool:
    """Whether `code` is a transformed body or the engine's (or a layer's) own code."""
    return is_generated(code) or code.co_filename.startswith(tuple(ENGINE_PLACES))
