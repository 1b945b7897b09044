"""The shadow store: metadata of heap slots, kept beside a heap that stays plain.

A slot is (container, key): a list index, a dict key, an object's `__dict__`
key, a slotted attribute, a class attribute, a closure cell. The store keeps
the raw object it saw written there with the metadata; a read re-attaches the
metadata only if the slot still holds that very object. The members of a set
and the keys of a dict have a table of their own (`members`): there the slot
is the member itself, found by equality as the container finds it, and its
metadata goes back only to the very object recorded. Floats, complex
numbers, big ints and fractions are stored as fresh copies, so a later write
of an equal shared constant by code the context did not see is not mistaken
for ours. The store keeps the containers it knows alive (their ids stay
theirs) and lives as long as the tag that owns it; when it has grown, it drops
the containers nothing else holds any more (no code can read them again), so
temporaries made in a loop do not pile up. What a generator frame last
yielded is kept beside, without keeping the frame, what is being sent to
one, while the send runs, and the generators whose return value a consumer
awaits. An asyncio future's result is a slot (`_channels.RESULT`).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

ABSENT = object()  # no metadata for this slot
_FIRST_SWEEP = 512  # slots added before the first sweep
_HELD_BY_THE_STORE_ONLY = 2  # sys.getrefcount: our entry and the call's argument


class Store:
    __slots__ = ("entries", "members", "yielded", "sent", "returns", "defaults", "limit",
                 "added")

    def __init__(self) -> None:
        self.entries: dict = {}  # id(container) -> (container, {slot: (raw, meta)})
        self.members: dict = {}  # id(set or dict) -> (it, {member: (member, meta)})
        # id(generator frame) -> (its code, raw value it last yielded, meta); the
        # frame is not kept alive (its locals hold tagged values), the code tells
        # a frame that reuses the address from it.
        self.yielded: dict = {}
        self.sent: dict = {}  # id(generator frame) -> (raw value sent to it, meta)
        # id(generator frame) -> the `_channels.Awaited` of the consumer awaiting
        # its return value
        self.returns: dict = {}
        self.defaults: list = []  # tagged defaults of functions made in the run
        self.limit = _FIRST_SWEEP  # slots added before the next sweep
        self.added = 0

    def __len__(self) -> int:
        return sum(len(slots) for table in (self.entries, self.members)
                   for _, slots in table.values())

    # Each method works on `entries` unless given `members` as the table.

    def slots(self, container: Any, table: dict | None = None) -> dict | None:
        entry = (self.entries if table is None else table).get(id(container))
        return entry[1] if entry is not None else None

    def record(self, container: Any, slot: Any, raw: Any, meta: Any,
               table: dict | None = None) -> None:
        table = self.entries if table is None else table
        entry = table.get(id(container))
        if entry is None:
            entry = table[id(container)] = (container, {})
        slots = entry[1]
        if slot not in slots:
            self.added += 1
            if self.added >= self.limit:
                self.sweep()
        slots[slot] = (raw, meta)

    def sweep(self) -> None:
        """Forget the containers only the store still holds (amortised: the next
        sweep waits until as many slots were added as are left). CPython reference
        counts tell (a container in both tables is held twice). A container let go
        may take others with it, at any step of the loop (a weakref's callback, a
        WeakKeyDictionary's `_remove`, forgets its entries): those are gone."""
        for table, other in ((self.entries, self.members), (self.members, self.entries)):
            for key in list(table):
                entry = table.get(key)
                if entry is not None and \
                        sys.getrefcount(entry[0]) <= _HELD_BY_THE_STORE_ONLY + (key in other):
                    table.pop(key, None)
        self.added = 0
        self.limit = max(_FIRST_SWEEP, len(self))

    def forget(self, container: Any, slot: Any, table: dict | None = None) -> None:
        table = self.entries if table is None else table
        entry = table.get(id(container))
        if entry is not None:
            entry[1].pop(slot, None)
            if not entry[1]:  # nothing left to remember: let the container go
                del table[id(container)]

    def lookup(self, container: Any, slot: Any, raw: Any, table: dict | None = None) -> Any:
        """The metadata recorded for the slot, if it still holds `raw`; else ABSENT."""
        entry = (self.entries if table is None else table).get(id(container))
        if entry is None:
            return ABSENT
        try:
            found = entry[1].get(slot)
        except TypeError:  # an unhashable key cannot name a slot
            return ABSENT
        if found is None or found[0] is not raw:
            return ABSENT
        return found[1]

    def replace(self, container: Any, slots: dict, table: dict | None = None) -> None:
        table = self.entries if table is None else table
        if slots:
            if id(container) not in table:
                if len(table) >= self.limit:
                    self.sweep()
                # counted, so the sweep at the run's end takes it if it was a temporary
                self.added += len(slots)
            table[id(container)] = (container, slots)
        else:
            table.pop(id(container), None)


def fresh(raw: Any) -> Any:
    """An equal object of the same type that no other code holds, where one can be made."""
    kind = type(raw)
    if kind is float:
        return raw * 1.0
    if kind is complex:
        return complex(raw.real, raw.imag)
    if kind is int and not -5 <= raw <= 256:
        return raw + 0
    if kind is Fraction:
        return Fraction(raw)
    return raw
