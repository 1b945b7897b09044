"""Class statements in a tagging context: the class is made in the context.

A class body runs once, when its `class` statement does, so the engine
transforms it with the function around it: its reads, calls and arithmetic are
the context's. Its names live in the class namespace, the mapping the
metaclass's `__prepare__` made, which becomes the class's attributes: the
tagging pass stores each there plain, its metadata in the store for that slot
of the namespace, and reads it back from there, or from the module or the
function's cell when the namespace lacks it, as `LOAD_NAME` and
`LOAD_CLASSDEREF` do.

C (`__build_class__`) calls the metaclass, natively. So the statement is given
a metaclass of tagging's, a `ClassStatement` made each time it runs, with the
one it names (`classmaker` in the pass): it works out the real metaclass and
the namespace in the context (`types.prepare_class`, as C does), and once the
body has run, calls the metaclass in the context. A metaclass written in
Python runs there; `type.__new__` (`class_new`) makes the class natively from
the plain namespace, then gives each class attribute the metadata of its slot
of the namespace (a class is its attributes' container in the store). A
context running this one sees the calls of `type.__new__` and `type.__init__`
and does the same for its own metadata. `__build_class__` then fills the
`__class__` cell of the methods, as for any metaclass.

Three routes stay out of reach, handed to the context as `dropped`
(`_leaving`), which `ad` refuses: a class-creation hook written in Python that
C calls from inside `type.__new__`, before the attributes have their metadata
(a base's `__init_subclass__`, an attribute's `__set_name__`), when what it is
given reaches values carrying metadata (an attribute, a descriptor's own
attributes, a keyword of the statement); a base's `__mro_entries__` written in
Python, which `__build_class__` calls natively before any of this, when its
object carries metadata; and a tagged value the body bound by a route the pass
does not store through (`:=`, a decorator's result).
"""

from __future__ import annotations

import dataclasses
import types

from contexts import recurse
from contexts.layer import class_attribute, nativecalls
from tagging import _heap as heap
from tagging._leaving import CLASS_BODY, CLASS_HOOK, MRO_ENTRIES, dropped
from tagging._reach import carries_metadata
from tagging._routes import python_method
from tagging._tagged import Tagged, wrap

nativecalls(__name__, "heap", "class_attribute", "carries_metadata", "_carried",
            "_entries_resolved", "_given_metadata", "_native_hook", "_read_by_hook",
            "_settled", "wrap")

_TYPE_PREPARE = vars(type)["__prepare__"]
_HIDDEN = "__ovd"  # the engine's temporaries, which a class body binds in its namespace
# Hooks known to read nothing of the class: a dataclass field's hands the call to
# its default's own `__set_name__`, checked in its turn.
_FORWARDING = {dataclasses.Field.__set_name__: lambda field: field.default}


def statement(ctx, given, spread: bool):
    """What a class statement run in `ctx` is given: its metaclass, made from the
    one it names (`given`); with `spread`, its keywords instead: `given`, the mapping
    of its `**options`, whose metaclass is made so and whose other keywords the
    metaclass is called with in the context (so they keep their metadata)."""
    if not spread:
        return ClassStatement(ctx, given, None)
    options = heap.own(given, ctx.tag)
    return {"metaclass": ClassStatement(ctx, dict.get(options, "metaclass"), options)}


class ClassStatement:
    """The metaclass `__build_class__` is given: the class statement's own,
    run in the context."""

    __slots__ = ("ctx", "given", "options", "metaclass")

    def __init__(self, ctx, given, options) -> None:
        self.ctx, self.given, self.options, self.metaclass = ctx, given, options, type

    def __prepare__(self, name, bases, **keywords):
        """The metaclass found as C finds it, and the namespace its `__prepare__`
        makes (a Python one run in the context)."""
        metaclass = self.given if self.given is not None else \
            type(bases[0]) if bases else type
        if isinstance(metaclass, type):
            metaclass = types._calculate_meta(metaclass, bases)
        self.metaclass = metaclass
        if isinstance(metaclass, type) and \
                class_attribute(metaclass, "__prepare__") is _TYPE_PREPARE:
            return {}  # (what `type.__prepare__` makes, whatever it is given)
        prepare = getattr(metaclass, "__prepare__", None)
        if prepare is None:
            return {}
        return recurse(self.ctx, _called, prepare, (name, bases), self.options, **keywords)

    def __call__(self, name, bases, namespace, **keywords):
        _settled(self.ctx, namespace)
        _entries_resolved(self.ctx, namespace)
        if self.metaclass is type:  # (a call of `type` would be one of its one-argument form)
            return recurse(self.ctx, _called, type.__new__, (type, name, bases, namespace),
                           self.options, **keywords)
        return recurse(self.ctx, _called, self.metaclass, (name, bases, namespace),
                       self.options, **keywords)


def _called(f, args, options, /, **keywords):
    """`f(*args, **keywords)`, run in the context, given also the keywords of
    `options` (a class statement's `**options`) but its metaclass: splatted in the
    context, they keep their metadata."""
    if options is None:
        return f(*args, **keywords)
    return f(*args, **keywords, **{k: v for k, v in options.items() if k != "metaclass"})


def class_new(ctx, metaclass, name, bases, namespace, **options):
    """`type.__new__`: the class made natively from the plain namespace, then its
    attributes given the metadata of their slots of the namespace."""
    tag = ctx.tag
    namespace, bases = heap.own(namespace, tag), heap.own(bases, tag)
    carried = _carried(tag, namespace)
    if _native_hook(bases, namespace) is not None:
        read = _read_by_hook(ctx, namespace, options)
        if read is not None:
            ctx.fallback(dropped, read, CLASS_HOOK)
    args, options = heap.own_arguments(tag, (metaclass, name, bases, namespace), options)
    made = type.__new__(*args, **options)  # (a call a context running this one sees)
    _given_metadata(tag, made, carried)
    return made


def type_call(ctx, kind, *args, **kwargs):
    """`type(...)`: of one value, its type (under this context's layer); of a name,
    bases and a namespace, a class made as a class statement's is (`type.__call__`)."""
    if len(args) == 1 and not kwargs:
        return type(heap.own(args[0], ctx.tag))  # (a call a context running this one sees)
    return recurse(ctx, _called, type.__call__, (kind, *args), None, **kwargs)


def class_init(ctx, made, *args, **kwargs):
    """`type.__init__`: it checks its arguments only (the namespace is plain)."""
    args, kwargs = heap.own_arguments(ctx.tag, (made, *args), kwargs)
    return type.__init__(*args, **kwargs)


def _settled(ctx, namespace) -> None:
    """The namespace a class body left, without the engine's temporaries; a value
    still tagged for `ctx` there is handed to it as dropped (plain if it returns)."""
    if not isinstance(namespace, dict):
        return
    tag = ctx.tag
    for key in [k for k in namespace if type(k) is str and k.startswith(_HIDDEN)]:
        del namespace[key]
    for key, value in list(dict.items(namespace)):
        if type(value) is Tagged and value.tag is tag:
            namespace[key] = ctx.fallback(dropped, value, CLASS_BODY)


def _carried(tag, namespace) -> list:
    """(key, raw, metadata) of the slots of `namespace` that still hold what was
    stored there with metadata."""
    slots = tag.store.slots(namespace) if isinstance(namespace, dict) else None
    if not slots:
        return []
    return [(key, raw, meta) for key, (raw, meta) in list(slots.items())
            if dict.get(namespace, key, _carried) is raw]


def _entries_resolved(ctx, namespace) -> None:
    """C replaced the statement's bases by what their `__mro_entries__` gave
    (keeping them as `__orig_bases__`), calling the method natively: one written
    in Python read its object's heap plain, so one carrying metadata is dropped."""
    original = namespace.get("__orig_bases__") if isinstance(namespace, dict) else None
    for base in original if type(original) is tuple else ():
        if python_method(type(base), "__mro_entries__") is not None and \
                carries_metadata(base, ctx):
            ctx.fallback(dropped, base, MRO_ENTRIES)


def _read_by_hook(ctx, namespace, options: dict):
    """A value carrying metadata that a class-creation hook would be given, or None:
    an attribute (`__set_name__` is a method of it, `__init_subclass__` reads the
    class) or a keyword of the statement (`__init_subclass__` is given them), at
    any depth (a descriptor whose own attribute carries it)."""
    tag = ctx.tag
    for value in (*options.values(), *dict.values(namespace)):
        if type(value) is Tagged and value.tag is tag or carries_metadata(value, ctx):
            return value
    carried = _carried(tag, namespace)
    return wrap(tag, carried[0][1], carried[0][2]) if carried else None


def _given_metadata(tag, made, carried: list) -> None:
    """Each attribute of the class `made` that holds what its slot of the namespace
    held gets that slot's metadata."""
    if not carried or not isinstance(made, type):
        return
    attributes = vars(made)
    for key, raw, meta in carried:
        if attributes.get(key, _carried) is raw:
            tag.store.record(made, key, raw, meta)


def _native_hook(bases: tuple, namespace: dict):
    """A hook written in Python that `type.__new__` would call natively: a base's
    `__init_subclass__`, an attribute's `__set_name__` (None if there is none)."""
    for base in bases:
        hook = class_attribute(base, "__init_subclass__") if isinstance(base, type) else None
        if _is_python(getattr(hook, "__func__", hook)):
            return hook
    for value in namespace.values():
        while True:
            hook = python_method(type(value), "__set_name__")
            forwarded = _FORWARDING.get(hook)
            if forwarded is None:
                break
            value = forwarded(value)
        if hook is not None:
            return hook
    return None


def _is_python(f) -> bool:
    return type(f) is types.FunctionType


BUILTINS: dict = {type: type_call, type.__new__: class_new, type.__init__: class_init}
