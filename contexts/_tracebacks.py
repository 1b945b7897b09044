"""Tracebacks without the engine's frames.

An exception leaving `overdub` has passed through the engine's machinery: the
entry points, call helpers, models of builtins, the runtime. Those frames are
unlinked from its traceback (and from those of the exceptions it chains), as
importlib removes its own frames from import errors, so the traceback reads as
the plain call's: the user's frames, the last one where the user's code raised.
A traceback with no frame outside the engine is left whole (the engine's own
error), and `python -v` keeps them all, for debugging the engine.
"""

from __future__ import annotations

import os
import sys
import weakref
from types import CodeType, TracebackType

# Where engine code lives: this package's files and its generated helpers.
ENGINE_PLACES: list = [os.path.dirname(os.path.abspath(__file__)) + os.sep, "<contexts "]
# Helpers with a hook's body pasted in: their lines that are the hook's own.
PASTED: "weakref.WeakKeyDictionary[CodeType, frozenset]" = weakref.WeakKeyDictionary()


def hide_frames_from(directory: str) -> None:
    """Count the files under `directory` as engine code (a layer's own package)."""
    ENGINE_PLACES.append(os.path.join(os.path.abspath(directory), ""))


def strip_engine_frames(error: BaseException) -> None:
    """Unlink the engine's frames from the tracebacks of `error` and its chain."""
    if sys.flags.verbose:
        return
    places = tuple(ENGINE_PLACES)
    seen: set = set()
    pending = [error]
    while pending:
        error = pending.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        error.__traceback__ = _without(error.__traceback__, places)
        pending += [error.__cause__, error.__context__]


def _without(tb: TracebackType | None, places: tuple) -> TracebackType | None:
    """`tb` with the engine's entries unlinked, or unchanged if nothing else is left."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    kept = [entry for entry in entries if not _is_engine(entry, places)]
    if not kept:
        return entries[0] if entries else None
    for entry, following in zip(kept, [*kept[1:], None]):
        entry.tb_next = following
    return kept[0]


def _is_engine(entry: TracebackType, places: tuple) -> bool:
    code = entry.tb_frame.f_code
    hook_lines = PASTED.get(code)
    if hook_lines is not None:
        return entry.tb_lineno not in hook_lines
    return code.co_filename.startswith(places)
