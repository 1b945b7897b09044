"""Which C calls may run when they are given a value carrying a derivative.

C code sees a value carrying a derivative as the plain number: what it keeps (an
`array`'s element, a database row, a C object's field) keeps no derivative, and a
number it hands back has none. Looking at the result after the call is too late
for the first: the plain value is already stored, and a refusal the user's
`except` catches would leave it there. So `Differentiation.fallback` asks
`runs_then_checked` before the call, from the function, the object it is bound
to and the kinds of its arguments:

* calls whose result cannot carry a number: text (a number's `__repr__`, text
  formatting, json's C encoder), a truth value (`__contains__`, `hasattr`);
* calls that keep what they are given as it is, by reference, so its slots keep
  their derivatives: `super(cls, obj)`'s proxy, a `MappingProxyType` of a mapping
  (tagging reads it as the mapping), an exception group's constructor (the
  exceptions, and a message, text), a weak reference (calling it gives the
  object back). Exceptions that keep their arguments in
  `args` alone are built by tagging, which follows them there; the others, such
  as `StopIteration`, copy an argument into a C field of their own, and are
  refused (`builds_an_exception`);
* an operator that makes a new value out of a number and an object whose class
  has no Python method for it (`x * Opaque()`): C keeps nothing, and it answers
  with Python's own `TypeError` or a result that is checked;
* calls whose result's elements keep their derivatives, because the shadow store
  follows them: an operator building a container out of containers (`[x] + [y]`,
  `(x,) * 3`, `d1 | d2`) and the methods of a dict that read or move entries
  (its slots are by key).

They run, and their result is checked as before (text, a truth value, an
exception, a view, a container whose elements keep their derivatives). Any other
C call given a value carrying a derivative is refused before it runs. The table
is what the test suite's own code needs: every call that ran and was let through
in it is one of these lines.
"""

from __future__ import annotations

import json.encoder
import operator
import types
import weakref
from collections import deque
from typing import Any, Callable

from tagging.layer import builds_containers, rawest

# Methods of C types that answer with text or a truth value, whatever their receiver.
_TEXT_OR_TRUTH_METHODS = frozenset({"__repr__", "__str__", "__format__", "__contains__"})
_C_METHODS = (types.BuiltinMethodType, types.MethodWrapperType, types.WrapperDescriptorType,
              types.MethodDescriptorType)

# Functions and callable types whose result is a truth value or text (the json
# encoder's C accelerator hands back pieces of text).
_TEXT_OR_TRUTH_FUNCTIONS = frozenset({hasattr})
_TEXT_MAKERS = tuple(kind for kind in (json.encoder.c_make_encoder,) if kind is not None)

# Calls that keep what they are given by reference: a `super` proxy of an object, a
# read-only proxy of a mapping, an exception group of exceptions, a weak reference
# (calling it gives the very object back, whose slots keep their derivatives).
_KEEPING_AS_IT_IS = frozenset({super, types.MappingProxyType, BaseExceptionGroup,
                               BaseExceptionGroup.__new__, BaseExceptionGroup.__init__,
                               weakref.ref})

# In-place operators that, on text, make new text (`s %= x`, `s *= n`).
_TEXT_OPERATORS = frozenset({operator.imod, operator.imul})

# Operators that make a new value (`"%.3f" % x` too); not the in-place ones, which
# may write into a C object's storage.
_NEW_VALUE_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.matmul, operator.lshift, operator.rshift,
    operator.and_, operator.or_, operator.xor, operator.neg, operator.pos, operator.abs,
    operator.invert})

# A dict's methods that read entries or move them (`OrderedDict.move_to_end`): the
# store keeps a dict's slots by key, so the entries keep their derivatives.
_DICT_METHODS = frozenset({"keys", "values", "items", "move_to_end", "__contains__"})

# What an operator that builds a container may be given so that the store follows
# its elements: builtin containers, and counts (`[x] * 3`). Not a generator or any
# other iterable, whose elements C would take natively.
_BUILDING_BLOCKS = (list, tuple, deque, dict, set, frozenset, int)


def runs_then_checked(f: Callable, receiver: Any, args: tuple) -> bool:
    """Whether the C call `f(*args)` (a method bound to `receiver`, or None), given a
    value carrying a derivative, may run, its result to be checked after."""
    name = getattr(f, "__name__", None)
    if type(f) in _C_METHODS and name in _TEXT_OR_TRUTH_METHODS:
        return True
    if _among(f, _TEXT_OR_TRUTH_FUNCTIONS) or isinstance(f, _TEXT_MAKERS) or \
            keeps_as_it_is(f):
        return True
    owner = type(receiver) if receiver is not None else getattr(f, "__objclass__", None)
    if isinstance(owner, type) and (issubclass(owner, str) or
                                    issubclass(owner, dict) and name in _DICT_METHODS):
        return True  # text's methods give text, or positions and counts in it
    if _among(f, _TEXT_OPERATORS) and any(type(rawest(a)) is str for a in args) or \
            _among(f, _NEW_VALUE_OPERATORS):
        return True
    return builds_containers(f) and all(
        isinstance(rawest(a), _BUILDING_BLOCKS) for a in args)


def _among(f: Callable, functions: frozenset) -> bool:
    try:
        return f in functions
    except TypeError:  # an unhashable callable
        return False


def keeps_as_it_is(f: Callable) -> bool:
    """Whether `f` keeps what it is given by reference, its result holding it (a
    `super` proxy, an exception group) or None (an exception group's `__init__`)."""
    return _among(f, _KEEPING_AS_IT_IS)


def builds_an_exception(f: Callable) -> bool:
    """Whether `f` is an exception class or its `__new__` or `__init__`."""
    if isinstance(f, type):
        return issubclass(f, BaseException)
    owner = getattr(f, "__self__", None) if getattr(f, "__name__", None) == "__new__" else \
        getattr(f, "__objclass__", None) if getattr(f, "__name__", None) == "__init__" else None
    return isinstance(owner, type) and issubclass(owner, BaseException)
