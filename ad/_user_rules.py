"""`rule`, `unrule` and `rules`: the user's own derivative rules.

A user rule is a line of the rule table (`ad/_rules/_table.py`) like the built-in
ones, so it works at every nesting depth. Replacing a built-in rule for the whole
process is allowed but said out loud (a warning, unless `override=True`); `rules`
replaces for one block and `unrule` takes a rule back, restoring the built-in one
it stood in for. Every change is announced to the engine, which otherwise keeps
what it worked out from the table for a context type.
"""

from __future__ import annotations

import contextlib
import types
import warnings
from typing import Any, Callable, Iterable, Iterator, Mapping

from ad._api import check_callable
from ad._context import Differentiation
from ad._errors import describe
from ad._rules import User, rule_of, set_rule


def rule(f: Callable, *, override: bool = False) -> Callable:
    """Register a forward rule for `f`: `@rule(f)` on `def r(primals, tangents)`
    returning `(value, tangent)`. A constant argument's tangent is 0. For a method,
    `f` is the class's function (`Class.method`) and the object comes first.

    The rule holds for the whole process. Replacing one of `ad`'s built-in rules
    (`math.sin`'s, say) warns unless `override=True`; to replace one for a block
    only, use `with ad.rules({f: r}):`. `ad.unrule(f)` removes the rule again.
    """
    _check_function(f, "rule")

    def register(function: Callable) -> Callable:
        check_callable(function, "rule")
        current = rule_of(f)
        if current is not None and type(current) is not User and not override:
            name = describe(f)
            warnings.warn(
                f"@ad.rule({name}) replaces ad's built-in rule for {name} in the whole "
                f"process; pass override=True to say so, or use "
                f"`with ad.rules({{{name}: ...}}):` to replace it for one block",
                UserWarning, stacklevel=2)
        set_rule(f, _user(function, current))
        _table_changed()
        return function

    return register


def unrule(f: Callable) -> None:
    """Remove the rule registered for `f` with `rule`; a built-in rule it replaced
    is `f`'s rule again."""
    current = rule_of(f)
    if type(current) is not User:
        what = "only its built-in rule" if current is not None else "no rule"
        raise ValueError(f"unrule({describe(f)}): {describe(f)} has {what}, none "
                         "registered with ad.rule; there is nothing to remove")
    set_rule(f, current.replaces)
    _table_changed()


@contextlib.contextmanager
def rules(table: Mapping | Iterable[tuple[Callable, Callable]]) -> Iterator[None]:
    """`with rules({f: r, ...}):` gives each `f` the rule `r` inside the block (for
    the whole process while it runs); after it, also when it raises, each `f` has
    the rule it had before, built-in, user or none. A callable that cannot be a
    dict key (a `ctypes` function) goes in a list of pairs: `rules([(f, r)])`."""
    pairs = list(table.items() if isinstance(table, Mapping) else table)
    for f, function in pairs:
        _check_function(f, "rules")
        check_callable(function, "rules")
    before = [(f, rule_of(f)) for f, _ in pairs]
    for f, function in pairs:
        set_rule(f, _user(function, rule_of(f)))
    _table_changed()
    try:
        yield
    finally:
        for f, previous in before:
            set_rule(f, previous)
        _table_changed()


def _user(function: Callable, current: Any) -> User:
    """A user rule standing in for `current`, or for the built-in rule it stood in for."""
    replaces = current.replaces if type(current) is User else current
    return User(function, describe(function), replaces)


def _check_function(f: Any, caller: str) -> None:
    """A rule is for a function: the engine runs a method bound to any object as its
    one function, so a rule for one object's method could not be told apart."""
    check_callable(f, caller)
    owner = getattr(f, "__self__", None)
    if isinstance(f, types.MethodType) or (
            isinstance(f, types.BuiltinMethodType)
            and not isinstance(owner, (types.ModuleType, type, type(None)))):
        function = (f"{describe(f)}.__func__" if isinstance(owner, type)
                    else f"{type(owner).__qualname__}.{f.__name__}")
        raise TypeError(f"{caller}() needs a function, and {describe(f)} is a method bound "
                        f"to {owner!r}; register the rule for the function it binds, "
                        f"{function}, whose primals begin with the object")


def _table_changed() -> None:
    """Tell the engine the rule table changed: assigning the primitive again marks
    the profiles of `Differentiation` stale, so no context keeps the old rules."""
    Differentiation.rule_for = Differentiation.__dict__["rule_for"]

