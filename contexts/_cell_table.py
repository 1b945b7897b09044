"""Declarations of hidden cells: what a pass may name, and how its value is built.

Transformed code refers to its machinery by hidden names (`__ovd0_gload__`),
free variables bound from cells when the code is bound to a context. Each
cell is declared once, in its owner's table (the engine's in `_cells`, a
layer's as its `cells`): its name, the function that builds its value for a
runtime, and what it serves. The passes take the names they write from the
same table (`Cells.hidden`, which refuses a name the table does not
declare), so the passes and the code that fills their cells cannot drift
apart; and a runtime builds a cell's value only when code bound to it is
bound, so a fresh context builds only what its code uses.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from contexts._names import hidden


@attrs.frozen
class Cell:
    """One hidden cell.

    `name` is the hidden name's stem (`gload` of `__ovd0_gload__`); a stem ending
    in `_` declares a family (`op_`: `op_lt_vk`, `op_add_kv`, ...), whose `build`
    is also given the member's stem. `build(runtime)` makes the value, once per
    runtime; `per_layer` cells hold something of the layer (its store, its tag),
    so a runtime given a fresh layer builds again those it had built. `serves`
    says what the cell is for: the hook, protocol or layer feature whose code
    calls it.
    """

    name: str
    build: Callable[..., Any]
    serves: str
    per_layer: bool = False
    family: bool = attrs.field(init=False)

    @family.default
    def _is_family(self) -> bool:
        return self.name.endswith("_")


class Cells:
    """A table of hidden cells, one per stem (or family of stems)."""

    def __init__(self, *cells: Cell) -> None:
        self.single = {cell.name: cell for cell in cells if not cell.family}
        self.families = tuple(cell for cell in cells if cell.family)
        if len(self.single) + len(self.families) != len(cells):
            raise ValueError("a hidden cell is declared twice")

    def __iter__(self):
        return iter((*self.single.values(), *self.families))

    def find(self, stem: str) -> Cell | None:
        """The declaration of the cell `stem`, or None."""
        found = self.single.get(stem)
        if found is not None:
            return found
        for family in self.families:
            if stem.startswith(family.name):
                return family
        return None

    def declared(self, stem: str) -> str:
        """`stem`, which a pass is about to write as a hidden cell's name, checked:
        a name the table does not declare is refused (KeyError)."""
        if self.find(stem) is None:
            raise KeyError(f"the hidden cell {stem!r} is not declared")
        return stem

    def hidden(self, level: int, stem: str) -> str:
        """The hidden name of the declared cell `stem` at `level`, for a pass to write."""
        return hidden(level, self.declared(stem))
