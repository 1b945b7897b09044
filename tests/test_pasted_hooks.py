"""Hooks pasted into the call helpers: a hook body runs in place, as if called.

A simple hook's body is pasted into the helpers that hooked call sites call
(`contexts/_inline.py`). Whether pasted or called, a hook must see the same
calls with the same arguments, keep its module's globals, raise with the
traceback of a call, and take a redefinition into account.
"""

from __future__ import annotations

import functools
import math
import sys
import traceback

import pytest

from contexts import Context, overdub

HERE = __file__
LINES = open(HERE).read().splitlines()
SCALE = 10  # a module global the hooks read


def line_of(marker: str) -> int:
    found = [i + 1 for i, text in enumerate(LINES) if text.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


def subject(x, *, y=2):
    values = [math.sqrt(x), abs(-x)]
    total = sum([v * y for v in values])
    return total if total > 1 else -total


def called_not_pasted(hook):
    """The same hook, decorated: the engine calls decorated hooks as they are."""
    @functools.wraps(hook)
    def wrapper(*args, **kwargs):
        return hook(*args, **kwargs)
    return wrapper


def ran_pasted() -> bool:
    """Whether the hook calling this runs pasted (its frame is not its own code)."""
    frame = sys._getframe(1)
    return frame.f_code.co_name == "prehook" and "hook_self" in frame.f_code.co_freevars


class ArgsAndKwargs(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append((f, args, kwargs))


class LocalsNamedLikeTheHelpers(Context):
    def prehook(self, fn, *rest):
        g, out, a0, table = len(rest), fn, rest, SCALE  # helper names, as the hook's locals
        for position, value in enumerate(rest):
            try:
                g += position * value
            except TypeError:
                pass
        self.metadata.append((out, a0, table, g if isinstance(g, int) else "float"))


class Posthook(Context):
    def posthook(self, output, f, *args, **kwargs):
        """Record every output."""
        if output is not None:
            self.metadata.append((f, output, args))
        return None


class Both(Context):
    def prehook(self, f, *args):
        self.metadata.append(("pre", f))

    def posthook(self, output, f, *args):
        self.metadata.append(("post", f, output))


@pytest.mark.parametrize("kind", [ArgsAndKwargs, LocalsNamedLikeTheHelpers, Posthook, Both])
def test_a_pasted_hook_sees_what_a_called_one_sees(kind):
    called = type(f"Called{kind.__name__}", (kind,), {
        name: called_not_pasted(kind.__dict__[name])
        for name in ("prehook", "posthook") if name in kind.__dict__})
    pasted_ctx, called_ctx = kind(metadata=[]), called(metadata=[])
    assert overdub(pasted_ctx, subject, 9.0, y=3) == overdub(called_ctx, subject, 9.0, y=3)
    assert pasted_ctx.metadata == called_ctx.metadata
    assert len(pasted_ctx.metadata) > 5


class Pasted(Context):
    def prehook(self, f, *args):
        self.metadata.append(ran_pasted())


def test_a_simple_hook_runs_pasted_and_a_decorated_one_is_called():
    pasted = Pasted(metadata=[])
    overdub(pasted, subject, 4.0)
    assert pasted.metadata and all(pasted.metadata)

    class Called(Pasted):
        prehook = called_not_pasted(Pasted.prehook)

    called = Called(metadata=[])
    overdub(called, subject, 4.0)
    assert called.metadata and not any(called.metadata)


class ReadsAGlobal(Context):
    def prehook(self, f, *args):
        self.metadata.append(SCALE)


def test_a_pasted_hook_reads_its_module_globals_as_they_are_now(monkeypatch):
    ctx = ReadsAGlobal(metadata=[])
    overdub(ctx, subject, 4.0)
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 11)
    ctx.metadata.clear()
    overdub(ctx, subject, 4.0)
    assert set(ctx.metadata) == {11}


def test_a_hook_redefined_after_first_use_is_pasted_anew():
    class Redefined(Context):
        def prehook(self, f, *args):
            self.metadata.append("first")

    ctx = Redefined(metadata=[])
    overdub(ctx, subject, 4.0)

    def prehook(self, f, *args):
        self.metadata.append("second")

    Redefined.prehook = prehook
    ctx.metadata.clear()
    overdub(ctx, subject, 4.0)
    assert ctx.metadata and set(ctx.metadata) == {"second"}


class Failing(Exception):
    pass


class RaisesOnSqrt(Context):
    def prehook(self, f, *args):
        if f is math.sqrt:
            raise Failing(f"refused {args}")  # hook-raises


def test_a_pasted_hook_raising_shows_the_traceback_of_a_call():
    with pytest.raises(Failing, match=r"refused \(4.0,\)") as caught:
        overdub(RaisesOnSqrt(), subject, 4.0)
    last = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert (last.filename, last.name, last.lineno) == (HERE, "prehook", line_of("hook-raises"))
    assert last.line == 'raise Failing(f"refused {args}")  # hook-raises'


def fails_inside(x):
    return 1 / (x - x)  # callee-raises


def test_an_error_in_a_callee_shows_no_pasted_helper_frame():
    with pytest.raises(ZeroDivisionError) as caught:
        overdub(Pasted(metadata=[]), fails_inside, 3)
    frames = [(frame.filename, frame.name)
              for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert frames[-1] == (HERE, "fails_inside")
    assert (HERE, "prehook") not in frames


class SkipsSomeCalls(Context):
    def prehook(self, f, *args):
        if f is abs:
            return  # an early return: the hook is called, not pasted
        self.metadata.append(f)


def test_a_hook_that_cannot_be_pasted_still_runs():
    ctx = SkipsSomeCalls(metadata=[])
    assert overdub(ctx, subject, 4.0) == subject(4.0)
    assert math.sqrt in ctx.metadata and abs not in ctx.metadata


class Private(Context):
    def prehook(self, f, *args):
        self.__seen = f  # mangled to _Private__seen, as in a call
        self.metadata.append(self._Private__seen)


class DeclaresAGlobal(Context):
    def prehook(self, f, *args):
        global SCALE
        SCALE += 0
        self.metadata.append(f)


exec_namespace: dict = {"Context": Context}
exec("class FromExec(Context):\n"
     "    def prehook(self, f, *args):\n"
     "        self.metadata.append(f)\n", exec_namespace)


@pytest.mark.parametrize("kind", [Private, DeclaresAGlobal, exec_namespace["FromExec"]])
def test_hooks_that_are_called_see_every_call_too(kind):
    ctx = kind(metadata=[])
    assert overdub(ctx, subject, 4.0) == subject(4.0)
    assert math.sqrt in ctx.metadata and abs in ctx.metadata


def test_a_hook_set_on_the_instance_bound_to_another_context_keeps_its_self():
    class Overriding(Context):
        def prehook(self, f, *args):
            self.metadata.append(f)

    ctx, other = Overriding(metadata=[]), Overriding(metadata=[])
    ctx.prehook = other.prehook  # an instance of a plain subclass has a __dict__
    overdub(ctx, subject, 4.0)
    assert ctx.metadata == [] and math.sqrt in other.metadata
