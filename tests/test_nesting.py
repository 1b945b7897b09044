"""A context entered while another runs is run under it, as in Cassette."""

from __future__ import annotations

import ast
import operator

import pytest

from contexts import Context, _api, _defaults, _source, overdub, primitive, recurse
from tests.engine_helpers import Events, Trace, name_of


def helper(x):
    return x + 100


def f(x):
    return helper(x) * 2


def failing(x):
    return helper(x) // 0


def seen_names(trace: Trace) -> list:
    return [name_of(g) for g in trace.callees]


def calls_named(trace: Trace, name: str) -> list:
    """Arguments of the calls of functions named `name` (the outer context sees the
    inner context's transformed copies of functions, which keep their names)."""
    return [args for g, args in trace.metadata if name_of(g) == name]


class Names(Context):
    """Records the names of the calls its prehook sees."""

    def __init__(self) -> None:
        super().__init__(metadata=[])

    def prehook(self, g, *args, **kwargs):
        self.metadata.append(name_of(g))


class Counting(Context):
    def __init__(self) -> None:
        super().__init__(metadata={})

    def posthook(self, output, g, *args, **kwargs):
        name = name_of(g)
        self.metadata[name] = self.metadata.get(name, 0) + 1


class Logged(Context):
    """Runs every foreign call itself, logging it."""

    def __init__(self) -> None:
        super().__init__(metadata=[])

    def fallback(self, g, *args, **kwargs):
        self.metadata.append(name_of(g))
        return g(*args, **kwargs)


class Negating(Context):
    @primitive(helper)
    def negated_helper(self, x):
        return operator.neg(x)


def test_empty_in_empty():
    assert overdub(Context(), overdub, Context(), f, 1) == f(1) == 202


@pytest.mark.parametrize("module, name", [(_api, "overdub"), (_api, "recurse"),
                                          (_api, "fallback"), (_defaults, "run_default"),
                                          (_defaults, "call_foreign")])
def test_entry_points_run_without_their_markers(module, name):
    """Run directly, the API's entry points and the default hooks call no
    `nooverdub` marker (compiled away at import); an outer context still reads
    their marked source."""
    function = getattr(module, name)
    assert "nooverdub" not in function.__code__.co_names
    assert _source.locate(function).filename == module.__file__  # the marked source


def test_inner_context_behaves_as_when_run_alone():
    alone = Names()
    overdub(alone, f, 1)
    nested = Names()
    assert overdub(Trace(), overdub, nested, f, 1) == 202
    assert nested.metadata == alone.metadata == ["helper", "add", "mul"]


def test_outer_sees_the_inner_prehook_being_called():
    outer, inner = Trace(), Names()
    assert overdub(outer, overdub, inner, f, 1) == 202
    prehook_calls = outer.args_of(Names.prehook)
    assert [args[0] for args in prehook_calls] == [helper, operator.add, operator.mul]
    assert [args[1:] for args in prehook_calls] == [(1,), (1, 100), (101, 2)]
    assert calls_named(outer, "helper") == [(1,)]  # and the calls the inner context ran
    assert "list.append" in seen_names(outer)  # made inside the inner prehook's body


def test_outer_sees_the_inner_fallback_calls():
    outer, inner = Trace(), Logged()
    assert overdub(outer, overdub, inner, f, 1) == 202
    assert inner.metadata == ["add", "mul"]
    fallback_calls = outer.args_of(Logged.fallback)
    assert [args[0] for args in fallback_calls] == [operator.add, operator.mul]
    # the foreign calls the inner fallback made, with their arguments
    assert (101, 2) in outer.args_of(operator.mul)


def test_outer_sees_inside_an_inner_primitive():
    outer = Trace()
    assert overdub(outer, overdub, Negating(), f, 1) == -2
    assert outer.saw(Negating.negated_helper)
    assert outer.args_of(operator.neg) == [(1,)]
    assert not outer.saw(helper)


def test_inner_posthooks_run_under_the_outer_prehook():
    outer, inner = Events(), Counting()
    assert overdub(outer, overdub, inner, f, 2) == 204
    assert inner.metadata == {"helper": 1, "add": 1, "mul": 1}
    posthook_runs = [e for e in outer.metadata if e[0] == "pre" and e[1] == "Counting.posthook"]
    assert [e[2][1] for e in posthook_runs] == [operator.add, helper, operator.mul]
    assert [e[2][0] for e in posthook_runs] == [102, 102, 204]  # the outputs


def test_three_levels():
    outer, middle, inner = Trace(), Names(), Counting()
    assert overdub(outer, overdub, middle, overdub, inner, f, 3) == 206
    assert inner.metadata == {"helper": 1, "add": 1, "mul": 1}
    assert middle.metadata.count("Counting.posthook") == 3  # the middle sees the inner's hook
    # the outer sees the middle's hook called on the inner's hook
    assert [args[1] for args in outer.args_of(Names.prehook)
            if args[0] == Counting.posthook.__get__(inner)] == [103, 103, 206]
    assert seen_names(outer).count("Counting.posthook") == 3  # and the inner's hook run


class HelperInHook(Context):
    def prehook(self, g, *args, **kwargs):
        self.metadata.append(helper(5))


def test_inner_hook_code_runs_in_the_outer_context():
    alone = HelperInHook(metadata=[])
    overdub(alone, f, 1)
    assert alone.metadata == [105, 105, 105]
    inner = HelperInHook(metadata=[])
    assert overdub(Negating(), overdub, inner, f, 1) == 202
    assert inner.metadata == [-5, -5, -5]  # the outer's primitive replaced the hook's call


def test_outer_primitive_does_not_replace_calls_the_inner_context_runs():
    # as in Cassette, the outer sees the inner context running `helper`, not a call of it
    outer, inner = Trace(), Names()
    assert overdub(outer, overdub, Negating(), overdub, inner, f, 3) == 206
    assert inner.metadata == ["helper", "add", "mul"]


def test_same_context_type_nested():
    outer, inner = Names(), Names()
    assert overdub(outer, overdub, inner, f, 1) == 202
    assert inner.metadata == ["helper", "add", "mul"]
    assert outer.metadata.count("Names.prehook") == 3


def test_recurse_nested():
    outer, inner = Trace(), Names()
    assert overdub(outer, recurse, inner, f, 1) == 202
    assert inner.metadata == ["helper", "add", "mul"]
    assert len(outer.args_of(Names.prehook)) == 3


def test_exceptions_cross_both_contexts_unchanged():
    inner = Names()
    with pytest.raises(ZeroDivisionError):
        overdub(Trace(), overdub, inner, failing, 1)
    assert inner.metadata == ["helper", "add", "floordiv"]


class Vec:
    def __init__(self, *xs):
        self.xs = xs

    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])


def add_vectors(a, b):
    return (a + b).xs


def test_protocol_methods_nested():
    outer, inner = Trace(), Names()
    assert overdub(outer, overdub, inner, add_vectors, Vec(1, 2), Vec(3, 4)) == (4, 6)
    assert "Vec.__add__" in inner.metadata
    assert "Vec.__add__" in seen_names(outer)
    assert "Vec.__init__" in seen_names(outer)


def test_an_outer_context_rebuilds_the_inner_tree_it_meets():
    """Transformed trees are not kept: the outer context gets them made again."""
    def seen_by_outer(inner_passes):
        outer, inner = Trace(), Context(passes=inner_passes)
        assert overdub(inner, f, 1) == 202  # the inner transform, made first and alone
        assert overdub(outer, overdub, inner, f, 1) == 202
        return seen_names(outer)

    assert "helper" in seen_by_outer((lambda ctx_type, g, tree: tree,))

    runs = iter(range(1, 100))

    def different_each_time(ctx_type, g, tree):  # a new number of object constants
        extra = [ast.Expr(value=ast.Constant(object())) for _ in range(next(runs))]
        tree.body[:0] = [ast.copy_location(stmt, tree.body[0]) for stmt in extra]
        return tree

    # the outer context cannot rebuild that tree, so it runs the inner's code natively
    assert "helper" not in seen_by_outer((different_each_time,))
