"""Compiling the markers of engine-side functions away, once, at import.

Engine code (models, a layer's primitives) is written with `nooverdub`
markers, or in a module declaring its `nativecalls`, so an outer context knows
what to leave alone; run directly, each marker would cost a call. `precompile`
gives each function code with the markers resolved, and registers its marked
tree, which is what an outer context then reads.
"""

from __future__ import annotations

from typing import Callable, Iterable

import attrs

from contexts._calls import mark_native_calls, resolve_markers
from contexts._compile import compile_in_context, finish_code, function_node
from contexts._marks import native_callees
from contexts._names import Hidden
from contexts._source import locate, register_generated


def precompile(functions: Iterable[Callable]) -> None:
    """Give each function code with its markers resolved (its marked tree registered)."""
    for f in functions:
        located = locate(f)
        tree = mark_native_calls(function_node(located), native_callees(f.__code__))
        tree = resolve_markers(tree, Hidden(0))
        code = compile_in_context(located, tree, (), f.__code__.co_freevars)
        code = finish_code(code, f.__code__)
        register_generated(code, attrs.evolve(located, node=tree, lines=(), owned=False))
        f.__code__ = code
