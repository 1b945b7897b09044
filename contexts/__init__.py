"""Contextual execution for Python, after Julia's Cassette.

`overdub(ctx, f, *args)` runs `f` so that every call made inside it, and
inside its Python callees, passes through the context `ctx`: its hooks, its
primitives and its passes over function bodies.
"""

from contexts._api import canrecurse, fallback, lowered, overdub, recurse
from contexts._context import Context, context, primitive, similarcontext
from contexts._marks import contextslot, nooverdub
from contexts._pass_helpers import insert_statements, replace_match
from contexts._source import SourceUnavailable

__all__ = [
    "Context", "context", "overdub", "recurse", "fallback", "canrecurse",
    "similarcontext", "primitive", "lowered", "nooverdub", "contextslot",
    "insert_statements", "replace_match", "SourceUnavailable",
]
