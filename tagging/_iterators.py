"""`itertools`' C iterators in a tagging context: elements keep their metadata.

`islice`, `chain`, `compress`, `zip_longest`, `pairwise`, `cycle`, `product`,
`tee`, `combinations`, `combinations_with_replacement` and `permutations` are C
types that iterate their sources natively (`repeat` and `count` hold theirs): a generator
transformed for the context yields plain values (their metadata waits in the
store for a consumer in the context) and a container gives its raw elements,
so what came out had lost its metadata. Here, when a source may give metadata
(a generator, a container whose elements the store knows, an object with a
Python `__iter__`, or a value tagged for the context), the tool is a Python
twin run in the context, which iterates its sources there and yields (or
builds) what it took from them; it raises the C type's own argument errors
first, and calls `iter` and consumes the sources when and as the C code does.
Otherwise the C type runs, natively. Hooks see what the C type calls back (the
sources' Python `__iter__` and `__next__`), not the twin's workings (a quiet module).
"""

from __future__ import annotations

import itertools
import operator
import sys
import types
import weakref

from contexts import recurse
from contexts.layer import iterator_of, nativecalls, quietmodule, seen, zip_
from tagging import _heap as heap
from tagging import _routes as routes
from tagging._tagged import Tagged, rawest

_GENERATOR = types.GeneratorType
quietmodule(__name__)
nativecalls(__name__, "heap", "_any_flows", "_ZIPS")


def _flows(tag, value) -> bool:
    """Whether `value`, iterated (or held) natively, could drop metadata of `tag`."""
    if type(value) is Tagged and value.tag is tag:
        return True
    raw = rawest(value)
    kind = type(raw)
    return kind is _GENERATOR or routes.python_iteration(kind) or \
        routes.python_stepping(kind) or heap.iterates_with_metadata(tag, raw)


def _any_flows(tag, args, kwargs, nested) -> bool:
    for value in (*args, *kwargs.values()):
        if _flows(tag, value):
            return True
        if nested and isinstance(value, heap.SEQUENCES):  # sources in a container
            if any(_flows(tag, inner) for inner in value):
                return True
    return False


def _tool(native, twin, iterated=None, nested=False):
    """The primitive for `native`: `twin(*args, **kwargs)` run in the context when a
    source may give metadata (`iterated(args)`: the positions of the sources, all
    by default; `nested`: the sources are the items of the argument), else `native`
    itself."""
    typed = isinstance(native, type)

    def primitive(ctx, *args, **kwargs):
        if typed:
            args = args[1:]  # the class, which is `native`
        tag = ctx.tag
        plain = [heap.own(a, tag) for a in args]
        plain_kwargs = {k: heap.own(v, tag) for k, v in kwargs.items()}
        positions = range(len(args)) if iterated is None else iterated(args)
        if not _any_flows(tag, args, kwargs, nested):
            return native(*plain, **plain_kwargs)
        probe = list(plain)
        for position in positions:
            probe[position] = ()
        native(*probe, **plain_kwargs)  # the C type's own argument errors, nothing iterated
        return recurse(ctx, twin, *args, **kwargs)

    primitive.__name__ = f"tagged_{native.__name__}"
    return primitive


def _first(args):
    return range(min(1, len(args)))


def _nothing_iterated(args):
    return range(0)


def _first_two(args):
    return range(min(2, len(args)))


# The twins: each is what the C type does, written in Python --------------------------

def islice_(iterable, *args):
    if len(args) == 1:
        start, stop, step = None, args[0], None
    else:
        start, stop, step = (*args, None)[:3]
    start = 0 if start is None else operator.index(start)
    stop = None if stop is None else operator.index(stop)
    step = 1 if step is None else operator.index(step)
    return _islice(iter(iterable), start, stop, step)


def _islice(iterator, upcoming, stop, step):
    count = 0
    while True:
        while count < upcoming:  # skipped items are consumed only when asked for the next
            try:
                next(iterator)
            except StopIteration:
                return
            count += 1
        if stop is not None and count >= stop:
            return
        try:
            item = next(iterator)
        except StopIteration:
            return
        count += 1
        upcoming += step
        if stop is not None and upcoming > stop:
            upcoming = stop
        yield item


def chain_(*iterables):
    return _chain(iter(iterables))


def chain_from_iterable(iterable):
    return _chain(iter(iterable))


def _chain(sources):
    for source in sources:  # each source's `iter` when it is reached
        for item in source:
            yield item


def compress_(data, selectors):
    return _compress(iterator_of(data), iter(selectors))


def _compress(data, selectors):
    for datum in data:
        try:
            selector = next(selectors)
        except StopIteration:
            return
        if selector:
            yield datum


def zip_longest_(*iterables, fillvalue=None):
    return _zip_longest([iter(i) for i in iterables], fillvalue)


def _zip_longest(iterators, fillvalue):
    active = len(iterators)
    if not active:
        return
    while True:
        items = []
        for index, iterator in enumerate(iterators):
            if iterator is None:
                items.append(fillvalue)
                continue
            try:
                item = next(iterator)
            except StopIteration:
                active -= 1
                if not active:
                    return
                iterators[index] = None
                item = fillvalue
            items.append(item)
        yield tuple(items)


def pairwise_(iterable):
    return _pairwise(iter(iterable))


def _pairwise(iterator):
    try:
        old = next(iterator)
    except StopIteration:
        return
    while True:
        try:
            new = next(iterator)
        except StopIteration:
            return
        yield old, new
        old = new


def cycle_(iterable):
    return _cycle(iterator_of(iterable))


def _cycle(iterator):
    saved = []
    for item in iterator:
        saved.append(item)
        yield item
    if not saved:
        return
    while True:
        for item in saved:
            yield item


def product_(*iterables, repeat=1):
    pools = [tuple(i) for i in iterables] * operator.index(repeat)
    return _product(pools)


def _product(pools):
    for pool in pools:
        if not pool:
            return
    indices = [0] * len(pools)
    while True:
        yield tuple([pool[index] for pool, index in zip(pools, indices)])
        position = len(pools) - 1
        while position >= 0:
            indices[position] += 1
            if indices[position] < len(pools[position]):
                break
            indices[position] = 0
            position -= 1
        else:
            return


def combinations_(iterable, r):
    pool = tuple(iterable)
    return _combinations(pool, operator.index(r), False)


def combinations_with_replacement_(iterable, r):
    pool = tuple(iterable)
    return _combinations(pool, operator.index(r), True)


def _combinations(pool, r, replacing):
    """Index tuples in lexicographic order; with `replacing`, non-decreasing ones."""
    n = len(pool)
    if (n == 0 and r > 0) if replacing else r > n:
        return
    indices = [0] * r if replacing else list(range(r))
    yield tuple([pool[i] for i in indices])
    while True:
        for i in reversed(range(r)):
            if indices[i] != (n - 1 if replacing else i + n - r):
                break
        else:
            return
        if replacing:
            indices[i:] = [indices[i] + 1] * (r - i)
        else:
            indices[i] += 1
            for j in range(i + 1, r):
                indices[j] = indices[j - 1] + 1
        yield tuple([pool[i] for i in indices])


def permutations_(iterable, r=None):
    pool = tuple(iterable)
    n = len(pool)
    return _permutations(pool, n, n if r is None else operator.index(r))


def _permutations(pool, n, r):
    if r > n:
        return
    indices = list(range(n))
    cycles = list(range(n, n - r, -1))
    yield tuple([pool[i] for i in indices[:r]])
    while n:
        for i in reversed(range(r)):
            cycles[i] -= 1
            if cycles[i] == 0:
                indices[i:] = indices[i + 1:] + indices[i:i + 1]
                cycles[i] = n - i
            else:
                j = cycles[i]
                indices[i], indices[-j] = indices[-j], indices[i]
                yield tuple([pool[i] for i in indices[:r]])
                break
        else:
            return


def repeat_(obj, times=None):
    return _repeat(obj, None if times is None else operator.index(times))


def _repeat(obj, times):
    while times is None or times > 0:
        yield obj
        if times is not None:
            times -= 1


def count_(start=0, step=1):
    return _count(start, step)


def _count(value, step):
    while True:
        yield value
        value += step


def tee_(iterable, n=2):
    iterator = iter(iterable)
    n = operator.index(n)
    if n == 0:
        return ()
    copier = getattr(iterator, "__copy__", None)
    if copier is None:
        iterator = _Tee(_TeeSource(iterator), _TeeLink())
        copier = iterator.__copy__
    copies = [iterator]
    for _ in range(1, n):
        copies.append(copier() if type(iterator) is _Tee else seen(copier()))
    return tuple(copies)


class _TeeSource:
    """What the iterators of one `tee` share: the source."""

    def __init__(self, iterator):
        self.iterator = iterator


class _TeeLink:
    """One item of a `tee`'s source, taken once, and the link after it."""

    def __init__(self):
        self.filled = False
        self.value = None
        self.after = None


class _Tee:
    """One iterator of a `tee`: where it is in the shared chain of links."""

    def __init__(self, source, link):
        self._source = source
        self._link = link

    def __iter__(self):
        return self

    def __next__(self):
        link = self._link
        if not link.filled:
            link.value = next(self._source.iterator)
            link.after = _TeeLink()
            link.filled = True
        self._link = link.after
        return link.value

    def __copy__(self):
        return _Tee(self._source, self._link)


def zip_primitive(ctx, cls, *iterables, **kwargs):
    """`zip`: of exact lists and tuples, read by index (natively, and so as lazily
    as C), each tuple's slots given the metadata of the items it took, or natively
    when they are tuples without any (a list may be given a value with metadata
    after the zip is made and before it is read); anything else (a generator, a Python `__iter__`,
    `strict=`) by the engine's model, which iterates in the context. RK4 on lists
    and the like zip lists in every step: the model costs a dozen calls an item.
    A loop that unpacks each tuple (`for v, d in zip(y, k)`) reads the lists
    themselves instead (`zip_unpacked`)."""
    if kwargs or not all(type(i) is list or type(i) is tuple for i in iterables):
        return recurse(ctx, zip_, cls, *iterables, **kwargs)
    tag = ctx.tag
    if not any(type(i) is list or heap.has_slots(tag, i) for i in iterables):
        return cls(*iterables)  # tuples without metadata: none can come later
    step = [0]  # the next index, shared with `zip_unpacked`
    zipped = _zipped(tag, iterables, step)
    _ZIPS.setdefault(zipped, (iterables, step))  # (a fresh key: a store)
    return zipped


# The generators `zip_primitive` made -> (the sequences, their step), for a
# loop that unpacks them (`zip_unpacked`)
_ZIPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_EXHAUSTED = sys.maxsize  # a step past every end: C's zip stays exhausted


def _rows(sequences, step):
    """The index of each row of a zip of `sequences`, from the position `step` holds,
    which the zip's own generator and a loop unpacking it share (`zip_unpacked`), so
    that `next()` on either moves both, and running out leaves both exhausted."""
    while True:
        index = step[0]
        if any(index >= len(sequence) for sequence in sequences):
            step[0] = _EXHAUSTED
            return
        step[0] = index + 1
        yield index


def _zipped(tag, sequences, step):
    for index in _rows(sequences, step):
        zipped = tuple([sequence[index] for sequence in sequences])
        for position, sequence in enumerate(sequences):
            heap.copy_slot(tag, sequence, index, zipped, position)
        yield zipped


def zip_unpacked(tag, iterator, shape):
    """For a loop unpacking each item of `iterator` into a flat target of `shape`
    (no nested or starred name): when `iterator` is a zip of sequences
    `zip_primitive` made, the lists the loop unpacks, each item read from the
    sequences with `tag`'s metadata of its slot, without the tuples; else None.
    (The loop's own unpacking of each list says when it has too many names or too
    few, as it says of a tuple.)"""
    found = _ZIPS.get(iterator) if type(iterator) is _GENERATOR else None
    if found is None or any(inner is not None for inner in shape):
        return None
    return _unpacked(tag, *found)


def _unpacked(tag, sequences, step):
    for index in _rows(sequences, step):
        yield [heap.retag_item(tag, rawest(sequence), index, sequence[index])
               for sequence in sequences]


BUILTINS: dict = {
    zip: zip_primitive,
    itertools.islice: _tool(itertools.islice, islice_, _first),
    itertools.chain: _tool(itertools.chain, chain_),
    itertools.chain.from_iterable: _tool(itertools.chain.from_iterable,
                                         chain_from_iterable, nested=True),
    itertools.compress: _tool(itertools.compress, compress_, _first_two),
    itertools.zip_longest: _tool(itertools.zip_longest, zip_longest_),
    itertools.pairwise: _tool(itertools.pairwise, pairwise_),
    itertools.cycle: _tool(itertools.cycle, cycle_),
    itertools.product: _tool(itertools.product, product_),
    itertools.tee: _tool(itertools.tee, tee_, _first),
    itertools.combinations: _tool(itertools.combinations, combinations_, _first),
    itertools.combinations_with_replacement: _tool(
        itertools.combinations_with_replacement, combinations_with_replacement_, _first),
    itertools.permutations: _tool(itertools.permutations, permutations_, _first),
    itertools.repeat: _tool(itertools.repeat, repeat_, _nothing_iterated),
    itertools.count: _tool(itertools.count, count_, _nothing_iterated),
}
