"""Shared by the engine tests: recorders of what the hooks see, and small user types."""

from __future__ import annotations

from contexts import Context


class Trace(Context):
    """Records `(f, args)` for every call its prehook sees; `metadata` is the list."""

    def __init__(self) -> None:
        super().__init__(metadata=[])

    def prehook(self, f, *args, **kwargs):
        self.metadata.append((f, args))

    @property
    def callees(self) -> list:
        return [f for f, _ in self.metadata]

    def saw(self, f) -> bool:
        """Whether the prehook saw a call of `f` (by identity, or as a bound method)."""
        return any(_same(g, f) for g in self.callees)

    def args_of(self, f) -> list:
        """The argument tuples of every seen call of `f`."""
        return [args for g, args in self.metadata if _same(g, f)]


class Events(Context):
    """Records ("pre", name, args) and ("post", name, output) in order."""

    def __init__(self) -> None:
        super().__init__(metadata=[])

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(("pre", name_of(f), args))

    def posthook(self, output, f, *args, **kwargs):
        self.metadata.append(("post", name_of(f), output))


def _same(g, f) -> bool:
    return g is f or getattr(g, "__func__", None) is f


def name_of(f) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


class Answer:
    """A user truth: testing it runs `__bool__`, Python code a context sees."""

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        return self.value
