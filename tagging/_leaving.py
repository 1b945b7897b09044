"""Values that leave transformed code by routes the store cannot follow.

A default argument value is kept by CPython in the function's `__defaults__`
(or `__kwdefaults__`) and handed to the callee when a call binds its
parameters, with no code of the context in between. So a default carrying
metadata stays tagged in the function while the run lasts (a call in the run
gets it with its metadata), and is made plain when the run ends
(`plain_defaults`): the function may outlive the run, and the heap must then
hold plain values.

A generator's return value travels inside a `StopIteration` that C code raises
and catches, or straight to the `yield from` that delegated. A consumer in the
context (`yield from`, `await`, `next`, `send`, `throw`) takes its metadata
(`_channels`); C code that drives the generator itself (`gen.close()`, a `for`
loop, `list(gen)`) would get the plain value, and C may hand it on. A class
is made by C code (`_classes`) that calls hooks written in Python natively
(`__init_subclass__`, `__set_name__`), and a class body may bind a value by a
route the tagging pass does not store through (`:=`). Text run by `eval` or
`exec` given no namespace runs natively on the caller's frame, whose variables
hold tagged values (and the store the metadata of its cells, globals and
containers).
Rather than drop its metadata silently, tagging hands such a value to the
context as a foreign call of `dropped` (through its `fallback`): a context that
may not lose metadata (`ad`) refuses it there; any other gets the plain value
back, as from any C function. (A generator that returns after the run ended
returns its value plain, as it yields.)

A coroutine's return value goes to the `await` that drives it, to `coro.send` or
`coro.throw` stepping it by hand (a task written in Python does), or to the C
asyncio task that drives it, which keeps it in a C field of its own for `await
task` and `task.result()`. Each gets it plain, its metadata kept in the store for
that consumer, as a generator's (`_channels`); so does a C future given a result
by `set_result`. A coroutine that C code steps otherwise hands it on as it is, to
the `await` C resumes. A coroutine made in the run and resumed after it ended (its
task scheduled inside, run by the loop later) returns its value plain: the task
outlives the run.
"""

from __future__ import annotations

import gc
import types
from typing import Any

GENERATOR_RETURN = "a generator's return value"
CLASS_BODY = "a value a class body binds by `:=` or as a decorator's result"
CLASS_HOOK = ("a class attribute or class keyword that a class-creation hook written "
              "in Python (`__init_subclass__`, `__set_name__`) would read natively")
MRO_ENTRIES = "a base whose `__mro_entries__`, written in Python, C calls natively"
PATTERN_READ = ("the subject of a class pattern whose attribute CPython reads natively "
                "through Python code (a property, a descriptor, `__getattr__`)")
FRAME_TEXT = "a variable read by eval or exec given no namespace"

# How to write each route so that the metadata is kept.
WAYS_OUT = {
    GENERATOR_RETURN: "yield the value, or take the return value where your code "
                      "drives the generator: `result = yield from gen`, or the "
                      "StopIteration that `next(gen)` or `gen.send(...)` raises",
    CLASS_BODY: "bind it with `name = value` in the class body",
    CLASS_HOOK: "set the attribute once the class is made (`Made.a = value`), where the "
                "hook does not run, and pass the hook no keyword carrying it",
    PATTERN_READ: "capture the subject (`case Point() as p`) and read the attribute in "
                  "the case's body (`p.a`), where the read is a call in the context",
    MRO_ENTRIES: "call `types.resolve_bases(bases)` yourself and name the classes it "
                 "gives as the bases",
    FRAME_TEXT: "pass the text a namespace dict, eval(text, {'x': x}) or exec(text, "
                "namespace): text given a namespace runs in the context",
}


def dropped(value: Any, route: str) -> Any:
    """The foreign call standing for `value` leaving by `route` (it returns the value)."""
    return value


def plain_defaults(held: list, plain: Any) -> None:
    """Make plain (`plain(value)`) the tagged defaults `held` of the functions made
    in a run. The tuple or dict holding them is found by the collector's referrers
    (a run that made none pays nothing), then each function that uses it."""
    wanted = {id(value) for value in held}
    for holder in gc.get_referrers(*held):
        if type(holder) is tuple and any(id(item) in wanted for item in holder):
            values = tuple(plain(item) for item in holder)
            for function in _functions_using(holder, "__defaults__"):
                function.__defaults__ = values
        elif type(holder) is dict and any(id(item) in wanted for item in holder.values()):
            mapping = {key: plain(item) for key, item in holder.items()}
            for function in _functions_using(holder, "__kwdefaults__"):
                function.__kwdefaults__ = mapping
    held.clear()


def _functions_using(holder: Any, field: str) -> list:
    return [f for f in gc.get_referrers(holder)
            if type(f) is types.FunctionType and getattr(f, field) is holder]
