"""Code the engine cannot see runs natively, and a context may ask to be told:
`warn_unseen_code = True` gives a `contexts.SourceUnavailable` warning, once per
function. In a tagging context such a function is a foreign call: its tagged
arguments reach `fallback`, which gives it plain values."""

import warnings

import pytest

from contexts import Context, SourceUnavailable, overdub
from tagging import enabletagging, istagged, tag, untag

namespace: dict = {}
exec("def made_by_exec(x):\n    return x * 3\n", namespace)  # no file to read it from
made_by_exec = namespace["made_by_exec"]


def calls_it(x):
    return made_by_exec(x) + 1


def has_source(x):
    return x * 3


def calls_source(x):
    return has_source(x) + 1


class Warned(Context):
    warn_unseen_code = True

    def prehook(self, f, *args, **kwargs):
        pass


class Silent(Context):
    def prehook(self, f, *args, **kwargs):
        pass


def run_recording(ctx_types, f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for ctx_type in ctx_types:
            assert overdub(ctx_type(), f, 2) == f(2)
    return [w for w in caught if issubclass(w.category, SourceUnavailable)]


def test_a_function_without_source_is_warned_about_once():
    namespace.pop("warned", None)
    caught = run_recording([Warned, Warned, type("AlsoWarned", (Warned,), {})], calls_it)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "made_by_exec runs natively" in message and "source" in message
    assert caught[0].lineno == 1  # points at the function's definition


def test_no_warning_unless_the_context_asks():
    fresh = {}
    exec("def unseen(x):\n    return x\n", fresh)
    namespace["unseen"] = fresh["unseen"]
    assert run_recording([Silent], lambda x: fresh["unseen"](x)) == []


def test_no_warning_for_functions_with_source():
    assert run_recording([Warned], calls_source) == []


def test_the_warning_is_a_user_warning():
    assert issubclass(SourceUnavailable, UserWarning)


class Foreign(Context):
    @classmethod
    def metadatatype(cls, value_type):
        return str

    def fallback(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", f))
        return super().fallback(f, *args, **kwargs)


exec("def records(x, seen):\n    seen.append(type(x))\n    return x * 3\n", namespace)


def calls_records(x, seen):
    return namespace["records"](x, seen) + 1


def test_a_tagged_value_reaching_unseen_code_goes_through_fallback_untagged():
    ctx = enabletagging(Foreign(metadata=[]), calls_records)
    seen = []
    result = overdub(ctx, calls_records, tag(2.0, ctx, "m"), seen)
    assert "records" in ctx.metadata  # the context's fallback ran it
    assert seen == [float]  # and it was given the plain value
    assert untag(result, ctx) == 7.0 and not istagged(untag(result, ctx), ctx)


@pytest.mark.parametrize("ctx_type", [Warned, Silent])
def test_unseen_code_still_runs_correctly(ctx_type):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SourceUnavailable)
        assert overdub(ctx_type(), calls_it, 5) == calls_it(5) == 16
