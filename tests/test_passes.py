"""The pass API: `insert_statements`, `replace_match`, `nooverdub`, `contextslot`, and
how the engine runs user passes (lowered input, errors that name the pass, caching)."""

from __future__ import annotations

import ast
import operator
import textwrap
import types
from collections import Counter

import pytest

from contexts import (Context, canrecurse, contextslot, fallback, insert_statements,
                      lowered, nooverdub, overdub, recurse, replace_match, similarcontext)


def parse_body(text: str) -> list:
    return ast.parse(textwrap.dedent(text)).body


def source(body) -> str:
    return ast.unparse(ast.Module(body=body, type_ignores=[]))


def is_constant(value):
    return lambda node: isinstance(node, ast.Constant) and node.value == value


class Trace(Context):
    """Record the callee of every call made inside."""

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(f)


# insert_statements ------------------------------------------------------------------


def test_insert_statements_replaces_the_counted_statements_in_place():
    body = parse_body("s0 = 0\ns1 = 1\ns2 = 2\ns3 = 3\ns4 = 4\ns5 = 5\n")
    counts = {id(body[1]): 2, id(body[4]): 3}
    positions = []

    def newstmts(stmt, i):
        positions.append(i)
        label = stmt.targets[0].id
        return parse_body("\n".join(f"{label}_{k} = {k}" for k in range(counts[id(stmt)])))

    result = insert_statements(body, lambda stmt, i: counts.get(id(stmt)), newstmts)
    assert result is body
    assert source(body).split("\n") == ["s0 = 0", "s1_0 = 0", "s1_1 = 1", "s2 = 2", "s3 = 3",
                                        "s4_0 = 0", "s4_1 = 1", "s4_2 = 2", "s5 = 5"]
    assert positions == [1, 5]  # where each replacement lands in the rewritten block


def test_insert_statements_gives_new_statements_the_replaced_location():
    body = parse_body("a = 1\n\n\nb = 2\n")
    insert_statements(body, lambda stmt, i: 2 if i == 1 else None,
                      lambda stmt, i: [ast.Pass(), ast.Pass()])
    assert [type(s).__name__ for s in body] == ["Assign", "Pass", "Pass"]
    assert body[1].lineno == body[2].lineno == 4


def test_insert_statements_can_delete_a_statement():
    body = parse_body("a = 1\nb = 2\nc = 3\n")
    doomed = body[1]
    insert_statements(body, lambda stmt, i: 0 if stmt is doomed else None,
                      lambda stmt, i: [])
    assert source(body) == "a = 1\nc = 3"


def test_insert_statements_rejects_a_count_mismatch():
    body = parse_body("a = 1\nb = 2\n")
    with pytest.raises(ValueError, match=r"said 2 statements but newstmts gave 1"):
        insert_statements(body, lambda stmt, i: 2, lambda stmt, i: [stmt])


def test_insert_statements_walks_nested_blocks_but_not_nested_bodies():
    body = parse_body("""
        if x:
            a = 1
        else:
            b = 2
        for i in y:
            c = 3
        try:
            d = 4
        except E:
            e = 5
        finally:
            g = 6
        def inner():
            h = 7
        """)
    seen = []

    def count(stmt, i):
        if isinstance(stmt, ast.Assign):
            seen.append(stmt.targets[0].id)
            return 2
        return None

    insert_statements(body, count, lambda stmt, i: [stmt, ast.Pass()])
    assert sorted(seen) == ["a", "b", "c", "d", "e", "g"]  # each once
    assert body[0].body[1].__class__ is ast.Pass and body[0].orelse[1].__class__ is ast.Pass
    assert len(body[-1].body) == 1  # the nested function's body is left alone


# replace_match ----------------------------------------------------------------------


def test_replace_match_replaces_every_matching_subnode():
    tree = ast.parse("x = 1 + f(1, [1, 2])")
    result = replace_match(lambda node: ast.Constant(10), is_constant(1), tree)
    assert result is tree
    assert ast.unparse(tree) == "x = 10 + f(10, [10, 2])"


def test_replace_match_does_not_search_inside_a_replacement():
    tree = ast.parse("x + x * y", mode="eval")

    def wrap(node):
        return ast.Call(func=ast.Name("wrap", ast.Load()), args=[node], keywords=[])

    replace_match(wrap, lambda node: isinstance(node, ast.Name) and node.id == "x", tree)
    assert ast.unparse(tree) == "wrap(x) + wrap(x) * y"


def test_replace_match_returns_the_replacement_when_the_root_matches():
    node = ast.Constant(1)
    new = replace_match(lambda n: ast.Constant(2), is_constant(1), node)
    assert isinstance(new, ast.Constant) and new.value == 2


def test_replace_match_works_over_statement_lists():
    body = parse_body("a = 1\nb = 2\n")
    assert replace_match(lambda n: ast.Constant(3), is_constant(2), body) is body
    assert source(body) == "a = 1\nb = 3"


# nooverdub --------------------------------------------------------------------------


def helper(x):
    return abs(x) + 1


def calls_helper_natively(x):
    return nooverdub(helper)(x) * 2


def calls_helper(x):
    return helper(x) * 2


def test_nooverdub_is_the_identity_at_run_time():
    assert nooverdub(helper) is helper
    assert calls_helper_natively(-3) == 8


def test_nooverdub_builds_the_marker_for_an_ast_node():
    marker = nooverdub(ast.Name("f", ast.Load()))
    assert ast.unparse(marker) == "nooverdub(f)"


def test_nooverdub_in_source_leaves_the_call_unhooked():
    seen = []
    assert overdub(Trace(metadata=seen), calls_helper_natively, -3) == 8
    assert helper not in seen and abs not in seen  # nor the calls inside helper
    assert operator.mul in seen

    seen = []
    assert overdub(Trace(metadata=seen), calls_helper, -3) == 8
    assert helper in seen and abs in seen


def native_helper_pass(ctx_type, f, tree):
    def is_helper_call(node):
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "helper")

    def mark(node):
        node.func = nooverdub(node.func)
        return node

    return replace_match(mark, is_helper_call, tree)


def test_nooverdub_written_by_a_pass_leaves_the_call_unhooked():
    seen = []
    ctx = Trace(metadata=seen, passes=[native_helper_pass])
    assert overdub(ctx, calls_helper, -3) == 8
    assert helper not in seen and abs not in seen
    assert operator.mul in seen


# contextslot ------------------------------------------------------------------------


def whoami():
    return None


def asks_whoami():
    return whoami()


def return_the_context(ctx_type, f, tree):
    if f is whoami:
        tree.body[-1].value = contextslot()
    return tree


def test_contextslot_builds_an_expression():
    node = contextslot()
    assert isinstance(node, ast.expr)
    assert ast.unparse(node) == "contextslot()"


@pytest.mark.parametrize("kind", [Context, Trace])
def test_contextslot_is_the_running_context(kind):
    ctx = kind(metadata=[], passes=[return_the_context])
    assert overdub(ctx, whoami) is ctx
    assert overdub(ctx, asks_whoami) is ctx
    assert whoami() is None  # the function itself is unchanged


class Nesting(Context):
    """Run each Python callee in a copy of the context whose metadata is a subtrace."""

    def overdub(self, f, *args, **kwargs):
        subtrace = []
        self.metadata.append((f, subtrace))
        if canrecurse(self, f):
            return recurse(similarcontext(self, metadata=subtrace), f, *args, **kwargs)
        return fallback(self, f, *args, **kwargs)


def test_contextslot_in_a_callee_is_the_context_it_runs_in():
    trace = []
    ctx = Nesting(metadata=trace, passes=[return_the_context])
    inner = overdub(ctx, asks_whoami)
    assert inner is not ctx and type(inner) is Nesting
    [(_, subtrace)] = trace
    assert inner.metadata == [] and subtrace == [(whoami, inner.metadata)]


# What a pass receives ---------------------------------------------------------------


def polynomial(x, y):
    return x * x + 3 * y


def lambda_holder():
    return lambda x: x + 1


def test_a_pass_sees_operators_as_calls_of_operator_functions():
    callees = []

    def record(ctx_type, f, tree):
        callees.extend(node.func.value for node in ast.walk(tree)
                       if isinstance(node, ast.Call) and isinstance(node.func, ast.Constant))
        return tree

    assert overdub(Context(passes=[record]), polynomial, 2, 5) == 19
    assert Counter(callees) == Counter({operator.mul: 2, operator.add: 1})


def test_a_pass_can_replace_an_operator():
    def add_to_sub(ctx_type, f, tree):
        return replace_match(lambda node: ast.Constant(operator.sub),
                             is_constant(operator.add), tree)

    assert overdub(Context(passes=[add_to_sub]), polynomial, 2, 5) == 4 - 15
    assert polynomial(2, 5) == 19


def test_passes_reassigned_after_first_use_take_effect():
    ctx = Context(passes=[_swap_add_for(operator.sub)])
    assert overdub(ctx, polynomial, 2, 5) == 4 - 15
    ctx.passes = (_swap_add_for(operator.mul),)
    assert overdub(ctx, polynomial, 2, 5) == 4 * 15
    ctx.passes = ()
    assert overdub(ctx, polynomial, 2, 5) == 19


def _swap_add_for(function):
    def swap(ctx_type, f, tree):
        return replace_match(lambda node: ast.Constant(function),
                             is_constant(operator.add), tree)
    return swap


def test_passes_given_in_the_class_body_are_the_default_of_its_instances():
    class Subtracting(Context):
        passes = [_swap_add_for(operator.sub)]

    class Inheriting(Subtracting):
        pass

    assert overdub(Subtracting(), polynomial, 2, 5) == 4 - 15
    assert overdub(Inheriting(), polynomial, 2, 5) == 4 - 15
    assert overdub(Subtracting(passes=()), polynomial, 2, 5) == 19  # given beats default
    assert Context().passes == ()

    Inheriting.passes = [_swap_add_for(operator.mul)]  # set later: new instances get it
    assert overdub(Inheriting(), polynomial, 2, 5) == 4 * 15
    assert overdub(Subtracting(), polynomial, 2, 5) == 4 - 15


def test_a_pass_gets_the_context_type_and_each_function_met():
    met = []

    def record(ctx_type, f, tree):
        met.append((ctx_type, f, type(tree), tree.name))
        return tree

    ctx = Trace(metadata=[], passes=[record])
    assert overdub(ctx, calls_helper, 4) == 10
    ours = [entry for entry in met if entry[1].__module__ == __name__]
    assert ours == [(Trace, calls_helper, ast.FunctionDef, "calls_helper"),
                    (Trace, helper, ast.FunctionDef, "helper")]
    assert all(isinstance(f, types.FunctionType) for _, f, _, _ in met)  # abs is C code


def test_a_lambda_is_presented_as_a_function_def():
    met = []

    def record(ctx_type, f, tree):
        if f.__name__ != "<lambda>":
            return tree  # the engine's own Python helpers may be met too
        [body] = tree.body
        met.append((type(tree), tree.name, [a.arg for a in tree.args.args], type(body),
                    body.value.func.value))
        return tree

    assert overdub(Context(passes=[record]), lambda_holder(), 1) == 2
    assert met == [(ast.FunctionDef, "<lambda>", ["x"], ast.Return, operator.add)]


def test_passes_run_in_order():
    def one_to_two(ctx_type, f, tree):
        return replace_match(lambda node: ast.Constant(2), is_constant(1), tree)

    def two_to_three(ctx_type, f, tree):
        return replace_match(lambda node: ast.Constant(3), is_constant(2), tree)

    def plus_one(x):
        return x + 1

    assert overdub(Context(passes=[one_to_two, two_to_three]), plus_one, 10) == 13
    assert overdub(Context(passes=[two_to_three, one_to_two]), plus_one, 10) == 12


def test_lowered_shows_the_pass_output():
    def three_to_two(ctx_type, f, tree):
        return replace_match(lambda node: ast.Constant(2), is_constant(3), tree)

    text = lowered(Context(passes=[three_to_two]), polynomial)
    assert "2" in text and "3" not in text
    assert "3 * y" in lowered(Context(), polynomial)


# Errors -----------------------------------------------------------------------------


def victim(x):
    return x + 1


def calls_victim(x):
    return victim(x) * 2


def returns_a_list(ctx_type, f, tree):
    return tree.body


def raises_inside(ctx_type, f, tree):
    if f is victim:
        raise RuntimeError("boom")
    return tree


def breaks_outside_a_loop(ctx_type, f, tree):
    tree.body.insert(0, ast.Break())
    return tree


def test_a_pass_returning_something_else_is_an_error_naming_pass_and_function():
    with pytest.raises(Exception) as info:
        overdub(Trace(metadata=[], passes=[returns_a_list]), victim, 1)
    message = str(info.value)
    assert "returns_a_list" in message and "victim" in message
    assert "list" in message and "FunctionDef" in message


def test_a_pass_that_raises_is_an_error_naming_pass_and_function():
    with pytest.raises(Exception) as info:
        overdub(Trace(metadata=[], passes=[raises_inside]), calls_victim, 1)
    message = str(info.value)
    assert "raises_inside" in message and "victim" in message and "boom" in message
    assert isinstance(info.value.__cause__, RuntimeError)


def test_a_pass_making_code_that_does_not_compile_is_an_error_naming_the_pass():
    with pytest.raises(Exception) as info:
        overdub(Context(passes=[breaks_outside_a_loop]), victim, 1)
    message = str(info.value)
    assert "breaks_outside_a_loop" in message and "victim" in message
    assert isinstance(info.value.__cause__, SyntaxError)


# Caching ----------------------------------------------------------------------------


def square(x):
    return x * x


def sum_of_squares(n):
    total = 0
    for i in range(n):
        total += square(i)
    return total


class OtherTrace(Trace):
    pass


def test_a_pass_runs_once_per_function_not_per_call():
    runs = Counter()

    def counting(ctx_type, f, tree):
        if f.__module__ == __name__:
            runs[ctx_type, f.__name__] += 1
        return tree

    passes = [counting]
    assert overdub(Trace(metadata=[], passes=passes), sum_of_squares, 5) == 30
    assert overdub(Trace(metadata=[], passes=passes), sum_of_squares, 7) == 91
    ctx = Trace(metadata=[], passes=passes)
    for n in range(3):
        overdub(ctx, sum_of_squares, n)
    assert runs == Counter({(Trace, "sum_of_squares"): 1, (Trace, "square"): 1})

    # the pass is given the context type, so another type has its own result
    assert overdub(OtherTrace(metadata=[], passes=passes), sum_of_squares, 5) == 30
    assert runs[OtherTrace, "sum_of_squares"] == 1 and runs[OtherTrace, "square"] == 1
    assert runs[Trace, "sum_of_squares"] == 1
