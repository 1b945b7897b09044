"""The one interface through which a layer extends contexts.

A layer is what a context carries in its `tag` field (the name Cassette gives
it; `None` when it carries none). `tagging.enabletagging` makes a context carry
one, and any package may define another by subclassing `Layer`. A layer wraps
values in the frames of transformed code, so for a context that carries one the
engine:

* makes every operator, attribute access and store a call, calls a Python
  `__bool__` or `__len__` of a truth test in the context (a `slotlike` one, the
  wrapper's, answers natively), and pins no object in its caches;
* runs the layer type's `passes` over each body, after the user's passes;
* fills the cells those passes name from the table of their declarations,
  `cells` (`Cells` of `Cell`: each built when code naming it is bound, a
  `per_layer` one again for each fresh layer); the passes write the names
  the table gives (`Cells.hidden`), so they cannot name an undeclared cell;
* asks `builtin(ctx, key, f)` what runs for a callee before the context's own
  `overdub` (a user `@primitive` on the same function still wins);
* makes the default `fallback` call `call_foreign(ctx, f, args, kwargs)`, and
  runs a foreign callee `f` through `foreign_runner(ctx, f)`, made once per
  callee, when the context keeps that default;
* calls `finish_run(ctx)` when an `overdub` of the context returns or raises.

`Layer` (defined beside `Context`) has a method for each of these, doing
nothing by default. The rest of this module is the engine's parts a layer may
build on: its view of types (`class_attribute`, the attribute routes, the
type-checked caches), the models of builtins to `recurse` into, pass-building
helpers, whether a context is running on this thread (`is_running`), the
markers (`nativecalls`, `quietmodule` and `seen`, `shortcut`, `enclosed`,
`slotlike`) and their compiler. A layer uses these and the public API,
never a private module.
"""

from __future__ import annotations

from contexts._builders import NATIVE, call, constant, name, placed
from contexts._calls import CALLER_NAMES
from contexts._canonical import class_attribute
from contexts._cell_table import Cell, Cells
from contexts._context import Layer, NoMetaData
from contexts._frame_eval import made as eval_on_frame
from contexts._generated import is_engine_code
from contexts._implicit_runtime import (GETTERS, SETTERS, deleter_route, getter_route,
                                        setter_route)
from contexts._lookups import Lookups, current
from contexts._marks import dispatched, enclosed, nativecalls, quietmodule, seen, shortcut, slotlike
from contexts._model_support import native_order, scalars_only
from contexts._models import (drive, iter_, iterator_of, merge_order, next_, reversed_,
                              reversed_sequence, zip_)
from contexts._names import hidden, mangled
from contexts._precompile import precompile
from contexts._profile import class_version
from contexts._running import is_running
from contexts._runtime import idle, kept
from contexts._tracebacks import hide_frames_from
from contexts._visit import BodyTransformer

__all__ = [
    "Layer", "NoMetaData", "class_version", "is_engine_code", "slotlike", "Cell", "Cells",
    # types
    "class_attribute", "Lookups", "current", "getter_route", "setter_route", "deleter_route",
    "GETTERS", "SETTERS",
    # models of builtins, and the engine-side markers
    "drive", "iter_", "iterator_of", "next_", "reversed_", "reversed_sequence", "zip_",
    "merge_order",
    "native_order", "scalars_only", "quietmodule", "seen", "nativecalls", "shortcut",
    "enclosed", "dispatched",
    # contexts reused between runs, each run with a fresh layer; whether one runs
    "idle", "kept", "is_running",
    # `eval(text)` given no namespace as a call in the context (`_frame_eval`)
    "eval_on_frame",
    "precompile",
    "hide_frames_from",
    # building passes
    "BodyTransformer", "CALLER_NAMES", "NATIVE", "call", "constant", "hidden", "mangled",
    "name", "placed",
]
