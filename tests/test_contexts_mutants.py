"""Tests written by planting bugs in `contexts` (issue 18, item 6), in the habit of
`tests/test_tagging_mutants.py`: each guards a behaviour that a deliberate bug in
the line named broke while every other test still passed.

Plants (each one alone; each made the test named fail, and passed every test of
`test_engine`, `test_implicit`, `test_pasted_hooks`, `test_type_changes`,
`test_layer_interface`, `test_layers`, `test_hooks_see`, `test_invisible`,
`test_passes`, `test_profiles`, `test_concurrency`, `test_exec_in_context`,
`test_seeds`, `test_operator_helpers` and `test_tagging`):

* `contexts/_profile.py` `_PROFILED`, `"__bases__"` dropped: a context class whose
  bases are reassigned kept its old profile, so the new base's prehook never ran
  (`test_reassigning_the_bases_of_a_context_class_takes_effect_at_the_next_overdub`).
* `contexts/_profile.py` `_TRUTH_METHODS = ("__bool__", "__len__")` as `("__bool__",)`:
  a context whose only primitive is a class's `__len__` (no hook, no `__bool__`
  primitive) was not asked by `if obj:`, which ran the class's `__len__` natively
  (`test_a_primitive_on_len_alone_is_honoured_by_truth_tests`; the existing test
  claims `__bool__` and `__len__` together, so it kept passing).
* `contexts/_cells.py` `_primitives_first`, the layer's built-in looked up before the
  user's primitive (the two lookups swapped): with `overdub` overridden, tagging's
  built-in `sorted` ran instead of the user's primitive on `sorted`
  (`test_a_user_primitive_wins_over_the_layers_built_in_when_overdub_is_overridden`).
* `contexts/_cells.py` `_helpers`, `pasted_post = None` (when the pasted pre- and
  posthook come from modules with different globals) as `pass`: the posthook, pasted
  into helpers whose globals are the prehook's module's, read that module's `WHO`
  (`test_pasted_hooks_from_two_modules_each_read_their_own_modules_globals`).

The functions run under `overdub` are module-level and assert nothing.
"""

from __future__ import annotations

from contexts import Context, overdub, primitive
from tagging import NoMetaData, enabletagging, tag

from tests.contexts_mutants_module import PreReadsItsModule

WHO = "test_contexts_mutants"  # the helper module has a global of the same name


def work(x):
    return abs(x) + max(x, 1)


# A context class's bases reassigned ---------------------------------------------------------


def test_reassigning_the_bases_of_a_context_class_takes_effect_at_the_next_overdub():
    class Quiet(Context):
        pass

    class Loud(Context):
        def prehook(self, f, *args, **kwargs):
            self.metadata.append(f)

    class Switched(Quiet):
        pass

    ctx = Switched(metadata=[])
    assert overdub(ctx, work, -2) == 3 and ctx.metadata == []
    Switched.__bases__ = (Loud,)
    ctx = Switched(metadata=[])
    assert overdub(ctx, work, -2) == 3
    assert abs in ctx.metadata and max in ctx.metadata
    Switched.__bases__ = (Quiet,)  # and back
    ctx = Switched(metadata=[])
    assert overdub(ctx, work, -2) == 3 and ctx.metadata == []


# A truth test, with a primitive on `__len__` only ----------------------------------------------


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class LengthOne(Context):
    """No hook and no `__bool__` primitive: only `Sized.__len__` is claimed."""

    @primitive(Sized.__len__)
    def length(self, sized):
        return 1


def truth_tests(s):
    out = []
    if s:
        out.append("if")
    while s:
        out.append("while")
        break
    out.append("ifexp" if s else "no")
    out.append(not s)
    out.append((s and "and") == "and")
    out.append(bool(s))
    return out


def test_a_primitive_on_len_alone_is_honoured_by_truth_tests():
    """CPython's truth test of an object without `__bool__` calls its `__len__`; the
    engine promises that a primitive on a `__bool__` or `__len__` makes truth tests
    reach the context (`Profile.intercepts_truth`)."""
    claimed = ["if", "while", "ifexp", False, True, True]
    assert truth_tests(Sized(1)) == claimed and truth_tests(Sized(0)) != claimed
    assert overdub(LengthOne(), truth_tests, Sized(0)) == claimed


# A user primitive against a layer's built-in, `overdub` overridden ----------------------------


class SortsItsOwnWay(Context):
    """A tagging context with its own `overdub`, claiming `sorted` (tagging has a
    built-in primitive for it)."""

    @classmethod
    def metadatatype(cls, value_type):
        return str if value_type is float else NoMetaData

    def overdub(self, f, *args, **kwargs):
        return super().overdub(f, *args, **kwargs)

    @primitive(sorted)
    def sort_backwards(self, items, **kwargs):
        self.metadata.append("claimed")
        return sorted(items, reverse=True)


def sort_them(x):
    return sorted([1.0, x, 3.0])


def test_a_user_primitive_wins_over_the_layers_built_in_when_overdub_is_overridden():
    ctx = enabletagging(SortsItsOwnWay(metadata=[]), sort_them)
    result = overdub(ctx, sort_them, tag(2.0, ctx, "m"))
    assert result == [3.0, 2.0, 1.0] and ctx.metadata == ["claimed"]


# Pasted hooks from two modules ----------------------------------------------------------------


class PostReadsItsModule(PreReadsItsModule):
    """Its prehook is the helper module's, its posthook this module's: both cheap,
    so both may be pasted; each must read its own module's `WHO`."""

    def posthook(self, output, f, *args, **kwargs):
        self.metadata.append(("post", WHO))


def test_pasted_hooks_from_two_modules_each_read_their_own_modules_globals():
    ctx = PostReadsItsModule(metadata=[])
    assert overdub(ctx, work, -2) == 3
    assert set(ctx.metadata) == {("pre", "contexts_mutants_module"),
                                 ("post", "test_contexts_mutants")}
    assert ctx.metadata.count(("pre", "contexts_mutants_module")) == \
        ctx.metadata.count(("post", "test_contexts_mutants")) >= 2
