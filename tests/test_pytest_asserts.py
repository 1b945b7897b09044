"""Functions in a pytest test module, whose asserts pytest rewrote, are still transformed."""

from contexts import Context, canrecurse, overdub


class Trace(Context):
    def prehook(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", f))


def checked_double(x):
    assert x >= 0, "negative"
    return abs(x) * 2


def test_a_function_with_a_rewritten_assert_is_transformed():
    ctx = Trace(metadata=[])
    assert canrecurse(ctx, checked_double), canrecurse.why(ctx, checked_double)
    assert overdub(ctx, checked_double, 3) == 6
    assert "abs" in ctx.metadata and "mul" in ctx.metadata


def test_the_rewritten_assert_still_fails_as_it_should():
    ctx = Trace(metadata=[])
    try:
        overdub(ctx, checked_double, -1)
    except AssertionError as error:
        assert "negative" in str(error)
    else:
        raise AssertionError("the assert did not fire")
