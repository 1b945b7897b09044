"""Real code: entry points of the standard library, plain and in contexts.

Each entry point runs plainly and under an empty context, a counting prehook, a
posthook, an `overdub` override, a pair of nested contexts and a tagging
context with its number and string arguments tagged. The results (or the
exception's type and message) and the arguments after the call must be equal
(`test_invisible.observe`); what a tagging run returns holds no `Tagged`
anywhere; where an element of the result is obviously one of the inputs
(`heapq.nsmallest`, `sorted`, `statistics.median`, ...), it carries that input's
metadata.
"""

from __future__ import annotations

import ast
import base64
import bisect
import calendar
import collections
import colorsys
import copy
import csv
import dataclasses
import datetime
import difflib
import enum
import fnmatch
import fractions
import functools
import gc
import heapq
import html
import inspect
import io
import ipaddress
import itertools
import json
import operator
import posixpath
import pprint
import random
import re
import reprlib
import shlex
import statistics
import string
import textwrap
import tokenize
import urllib.parse
from decimal import Decimal

import pytest

from contexts import Context, overdub
from tagging import NoMetaData, enabletagging, metadata, tag
from tagging._tag import Tagged
from tests.test_invisible import Counting, Hooked, Recursing, _plain, observe


class Posthook(Context):
    def posthook(self, output, f, *args, **kwargs):
        self.metadata[0] += 1


class Tagging(Context):
    """Numbers and strings may carry a string as metadata."""

    @classmethod
    def metadatatype(cls, value_type):
        return str if issubclass(value_type, (int, float, str)) else NoMetaData


def _in(ctx):
    def runner(f, *args, **kwargs):
        return overdub(ctx, f, *args, **kwargs)
    return runner


def _run_inner(inner, f, args, kwargs):
    return overdub(inner, f, *args, **kwargs)


def _nested(f, *args, **kwargs):
    """A hooked context run inside a counting one."""
    return overdub(Counting(metadata=[0]), _run_inner, Hooked(), f, args, kwargs)


TAGGABLE = (int, float, str)
LAST_TAGGED: list = []  # (ctx, result) of the last tagging run


def _tagged(f, *args, **kwargs):
    """`f` in a tagging context, each number or string argument tagged `a<position>`."""
    ctx = enabletagging(Tagging(), f)
    args = [tag(a, ctx, f"a{i}") if type(a) in TAGGABLE and type(a) is not bool else a
            for i, a in enumerate(args)]
    result = overdub(ctx, f, *args, **kwargs)
    LAST_TAGGED[:] = [ctx, result]
    return result


RUNNERS = {
    "empty": lambda: _in(Context()),
    "counting": lambda: _in(Counting(metadata=[0])),
    "posthook": lambda: _in(Posthook(metadata=[0])),
    "overdub": lambda: _in(Recursing()),
    "nested": lambda: _nested,
    "tagging": lambda: _tagged,
}


# Entry points ----------------------------------------------------------------------

@dataclasses.dataclass
class Item:
    name: str
    price: float
    tags: list = dataclasses.field(default_factory=list)


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Perm(enum.Flag):
    R = 4
    W = 2
    X = 1


def sample(a, b=2, *args, c: int = 3, **kwargs) -> str:
    return "x"


@functools.lru_cache(maxsize=8)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def generated(n):
    for i in range(n):
        yield i * i


ENTRIES: list = []  # (id, function, args, kept): kept = [(index in result, argument index)]


def entry(*args, kept=()):
    def register(f):
        ENTRIES.append((f.__name__, f, args, list(kept)))
        return f
    return register


@entry("abcd efg", "bcde efh")
def difflib_ratio(a, b):
    matcher = difflib.SequenceMatcher(None, a, b)
    return [matcher.ratio(), matcher.quick_ratio(), matcher.get_matching_blocks()]


@entry("abxcd", "abcdy")
def difflib_opcodes(a, b):
    return difflib.SequenceMatcher(None, a, b).get_opcodes()


@entry("one two three", "one too three four")
def difflib_unified_diff(a, b):
    return list(difflib.unified_diff(a.split(), b.split(), "a", "b", lineterm=""))


@entry("one\ntwo\n", "one\ntoo\n")
def difflib_ndiff(a, b):
    return list(difflib.ndiff(a.splitlines(True), b.splitlines(True)))


@entry("appel")
def difflib_close_matches(word):
    return difflib.get_close_matches(word, ["ape", "apple", "peach", "puppy"])


@entry("The quick brown fox jumps over the lazy dog", 12)
def textwrap_wrap(text, width):
    return [textwrap.wrap(text, width), textwrap.fill(text, width + 3),
            textwrap.shorten(text, width + 8)]


@entry("  a\n    b\n  c\n")
def textwrap_dedent(text):
    return [textwrap.dedent(text), textwrap.indent(text, "> ")]


@entry(1.5, "s", 3)
def json_round_trip(x, s, n):
    data = {"x": x, "s": s, "l": [x, n, None, True], "n": {"k": s}}
    text = json.dumps(data, sort_keys=True)
    pretty = json.JSONEncoder(indent=2, sort_keys=True).encode(data)
    return [text, pretty, json.loads(text), json.loads(pretty)]


@entry(3.0, 1.0, 4.0, 1.0, 5.0, kept=[(0, 0)])
def statistics_summaries(*xs):
    return [statistics.median(xs), statistics.mean(xs), statistics.mode(xs),
            statistics.fmean(xs), statistics.median_low(xs)]


@entry(2, 4, 4, 4, 5, 5, 7, 9)
def statistics_spread(*xs):
    return [statistics.pstdev(xs), statistics.variance(xs), statistics.quantiles(xs, n=4),
            statistics.median_grouped(xs)]


@entry(3, 4, 7)
def fractions_arithmetic(a, b, c):
    x = fractions.Fraction(a, b)
    y = fractions.Fraction(c, b + 1)
    return [x + y, x * y, x / y, x ** 2, (x - y).limit_denominator(3), x < y, float(x),
            round(x, 1), fractions.Fraction("1.25") + x]


@entry("1.10", "2.205", 2)
def decimal_arithmetic(a, b, places):
    x, y = Decimal(a), Decimal(b)
    return [x + y, x * y, (x / y).quantize(Decimal(10) ** -places), str(x.sqrt())[:8],
            max(x, y), sum([x, y], Decimal(0))]


@entry(5.0, 1.0, 4.0, 2.0, 3.0, kept=[(0, 1), (1, 3)])
def heapq_nsmallest(*xs):
    return heapq.nsmallest(2, xs)


@entry(5.0, 1.0, 4.0, 2.0, 3.0, kept=[(0, 0), (1, 2)])
def heapq_nlargest(*xs):
    return heapq.nlargest(2, xs)


@entry(1.0, 4.0, 2.0, 3.0, kept=[(0, 0), (1, 2)])
def heapq_merge(a, b, c, d):
    return list(heapq.merge([a, b], [c, d]))


@entry([5, 1, 4], 3)
def heapq_in_place(items, x):
    heapq.heapify(items)
    heapq.heappush(items, x)
    return [heapq.heappop(items), heapq.heappushpop(items, 0), list(items)]


@entry(3.0, 1.0, 2.0, kept=[(0, 1), (1, 2), (2, 0)])
def sorted_values(a, b, c):
    return sorted([a, b, c])


@entry("abracadabra", 2)
def collections_counter(s, n):
    counts = collections.Counter(s)
    return [counts.most_common(n), sorted(counts.elements()), counts["a"],
            sorted((counts + collections.Counter("aab")).items())]


@entry(1.0, 2.0, "k")
def collections_containers(x, y, key):
    Pair = collections.namedtuple("Pair", "left right")
    pair = Pair(x, y)
    ordered = collections.OrderedDict([(key, x), ("z", y)])
    ordered.move_to_end(key)
    queue = collections.deque([x, y, 3.0], maxlen=3)
    queue.rotate(1)
    chained = collections.ChainMap({key: x}, {key: y, "o": 0})
    grouped = collections.defaultdict(list)
    for k, v in [(key, x), (key, y)]:
        grouped[k].append(v)
    return [pair._replace(left=y), pair._asdict(), list(ordered.items()), list(queue),
            chained[key], dict(chained), dict(grouped)]


@entry("pen", 2.5)
def dataclasses_uses(name, price):
    item = Item(name, price, ["a"])
    changed = dataclasses.replace(item, price=price * 2)
    return [dataclasses.asdict(item), dataclasses.astuple(changed), item == changed,
            repr(item), [f.name for f in dataclasses.fields(Item)]]


@entry("a,b,c\n1,2,3\n\"x,y\",z,\n")
def csv_round_trip(text):
    rows = list(csv.reader(io.StringIO(text)))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerows(rows)
    dicts = list(csv.DictReader(io.StringIO(text)))
    return [rows, out.getvalue(), dicts]


@entry("a1b22c333", "[0-9]+")
def re_uses(text, pattern):
    return [re.findall(pattern, text), re.sub(pattern, lambda m: str(len(m.group())), text),
            re.split(pattern, text), [m.span() for m in re.finditer(pattern, text)],
            re.fullmatch(r"(\w)(\d)", text[:2]).groups()]


@entry("world", 3)
def string_templates(name, n):
    return [string.Template("hello $name x$n").substitute(name=name, n=n),
            string.capwords("the " + name), string.Formatter().format("{0}-{1:>4}", name, n),
            "{:.2f}".format(n / 7)]


@entry("192.168.1.0/30", 5)
def ipaddress_uses(network, offset):
    net = ipaddress.ip_network(network)
    address = ipaddress.ip_address("10.0.0.1") + offset
    return [[str(h) for h in net.hosts()], str(address), address in net,
            str(ipaddress.ip_interface("10.1.2.3/24").network), net.num_addresses]


@entry(0.2, 0.4, 0.6)
def colorsys_round_trip(r, g, b):
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    return [colorsys.rgb_to_hsv(r, g, b), colorsys.hls_to_rgb(h, l, s),
            colorsys.rgb_to_yiq(r, g, b)]


@entry(2024, 2)
def calendar_uses(year, month):
    return [calendar.monthcalendar(year, month), calendar.isleap(year),
            calendar.monthrange(year, month), calendar.TextCalendar().formatmonth(year, month)]


@entry(6)
def itertools_over_generators(n):
    pairs = list(itertools.pairwise(generated(n)))
    left, right = itertools.tee(generated(n))
    return [list(itertools.islice(generated(n), 1, n, 2)), pairs,
            [(k, list(g)) for k, g in itertools.groupby(generated(n), key=lambda v: v % 2)],
            list(itertools.chain(generated(2), generated(3))), list(zip(left, right)),
            list(itertools.accumulate(generated(n))), list(itertools.compress(generated(n),
                                                                            [1, 0, 1]))]


@entry(2.0, 7.0, 3.0, kept=[(0, 1)])
def functools_uses(a, b, c):
    key = functools.cmp_to_key(lambda x, y: (x > y) - (x < y))
    return [functools.reduce(max, [a, b, c]), sorted([a, b, c], key=key), fib(12),
            functools.partial(pow, 2)(5)]


@entry([1, 3, 3, 7], 3)
def bisect_uses(items, x):
    found = [bisect.bisect_left(items, x), bisect.bisect_right(items, x),
             bisect.bisect(items, x, key=lambda v: v)]
    bisect.insort(items, x + 1)
    return found


@entry("k", 1.5, 12)
def pprint_nested(key, x, width):
    data = {key: [x, {"deep": list(range(5))}], "other": (x, key * 3)}
    return [pprint.pformat(data, width=width), pprint.pformat(data, compact=True),
            reprlib.repr(list(range(20)))]


@entry("hello, world")
def base64_round_trip(text):
    raw = text.encode()
    return [base64.b64encode(raw), base64.b32encode(raw), base64.urlsafe_b64decode(
        base64.urlsafe_b64encode(raw)), base64.b16encode(raw), base64.a85encode(raw)]


@entry("<a href='x'>Tom & \"Jerry\"</a>")
def html_round_trip(text):
    escaped = html.escape(text)
    return [escaped, html.unescape(escaped), html.unescape("&eacute;&#x41;&amp;")]


@entry("https://user@example.com:8080/a/b;p?q=1&r=two#frag", "a b&c")
def urllib_parse(url, text):
    parts = urllib.parse.urlparse(url)
    return [parts, parts.port, urllib.parse.parse_qs(parts.query),
            urllib.parse.urlencode({"k": text, "n": 3}), urllib.parse.quote(text),
            urllib.parse.urljoin(url, "../c"), urllib.parse.unquote("a%20b")]


@entry("ls -l 'a b' \"c d\" e\\ f")
def shlex_uses(command):
    words = shlex.split(command)
    return [words, shlex.join(words), shlex.quote("it's")]


@entry("*.py")
def fnmatch_uses(pattern):
    names = ["a.py", "b.txt", "c.PY", "dir/d.py"]
    return [fnmatch.filter(names, pattern), fnmatch.fnmatch("x.py", pattern),
            fnmatch.translate(pattern)]


@entry(2, "BLUE")
def enum_uses(value, name):
    return [Color(value).name, Color[name].value, [c.name for c in Color],
            (Perm.R | Perm.W).value, Perm.R in (Perm.R | Perm.X), str(Perm(6))]


@entry(2024, 2, 28, 3)
def datetime_uses(year, month, day, days):
    date = datetime.date(year, month, day)
    later = date + datetime.timedelta(days=days)
    moment = datetime.datetime(year, month, day, 13, 5)
    return [later.isoformat(), later.strftime("%a %d %b"), (later - date).days,
            datetime.date.fromisoformat("2024-03-01") == later, moment.isoformat(" "),
            moment.replace(hour=1).timestamp() > 0]


@entry(7, 10)
def random_with_a_seed(seed, n):
    rng = random.Random(seed)
    items = list(range(n))
    rng.shuffle(items)
    return [rng.random(), rng.randint(1, 100), rng.choice("abcdef"), rng.sample(range(50), 4),
            items, rng.uniform(1, 2), rng.choices([1, 2, 3], weights=[1, 2, 3], k=4)]


@entry(1.5, 2.5, 3.5, kept=[(0, 0)])
def random_choice_of_inputs(a, b, c):
    return [random.Random(3).choice([a, b, c])]


@entry("{'a': [1, 2.5, (3, 'x')], 'b': None, 'c': -4}")
def literal_eval(text):
    return ast.literal_eval(text)


@entry("x = (1 + 2) * y  # c\n")
def tokenize_source(source):
    return [(tokenize.tok_name[t.type], t.string)
            for t in tokenize.generate_tokens(io.StringIO(source).readline)]


@entry(0)
def inspect_signature(n):
    signature = inspect.signature(sample)
    return [str(signature), list(signature.parameters)[n],
            signature.bind(1, 2, 3, c=4, d=5).arguments]


@entry("/a/b/../c/./d.tar.gz")
def posixpath_uses(path):
    return [posixpath.normpath(path), posixpath.splitext(path), posixpath.split(path),
            posixpath.join("x", "y", path), posixpath.relpath(path, "/a")]


@entry(1.5, 2.5, kept=[(0, 0)])
def copy_deep(x, y):
    nested = [x, [y, {"k": (x, y)}]]
    copied = copy.deepcopy(nested)
    return [copied[0], copied, copied == nested]


ENTRY_IDS = [e[0] for e in ENTRIES]

# Known limitations: entry -> (runners where it differs, reason)
XFAILS: dict = {}


def test_there_are_enough_entry_points():
    assert len(ENTRIES) >= 40


def _cases():
    for ident, f, args, kept in ENTRIES:
        for name in RUNNERS:
            where, reason = XFAILS.get(ident, ((), None))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if name in where else []
            yield pytest.param(f, args, name, id=f"{ident}[{name}]", marks=marks)


@pytest.mark.parametrize("f, args, name", list(_cases()))
def test_stdlib_entry_point_is_invisible(f, args, name):
    expected = observe(_plain, f, args, {})
    LAST_TAGGED.clear()
    got = observe(RUNNERS[name](), f, args, {})
    assert got["outcome"] == expected["outcome"]
    assert got["arguments"] == expected["arguments"]
    assert got["printed"] == expected["printed"]
    if LAST_TAGGED:
        assert _tagged_inside(LAST_TAGGED[1]) == []
        LAST_TAGGED.clear()


def _tagged_result(f, args):
    _tagged(f, *copy.deepcopy(args))
    return LAST_TAGGED


def _tagged_inside(value) -> list:
    """Paths to every `Tagged` reachable from `value` (containers, instance dicts)."""
    found, seen, stack = [], set(), [((), value)]
    while stack:
        path, item = stack.pop()
        if type(item) is Tagged:
            found.append(path)
            continue
        if id(item) in seen or isinstance(item, (str, bytes, int, float, complex, type)):
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend((path + (k,), v) for k, v in item.items())
            stack.extend((path + ("key",), k) for k in item)
        elif isinstance(item, (list, tuple, set, frozenset, collections.deque)):
            stack.extend((path + (i,), v) for i, v in enumerate(item))
        if hasattr(item, "__dict__") and not isinstance(item, type):
            stack.extend((path + (k,), v) for k, v in vars(item).items())
    return found


KEPT = [(ident, f, args, kept) for ident, f, args, kept in ENTRIES if kept]


@pytest.mark.parametrize("f, args, kept", [p[1:] for p in KEPT], ids=[p[0] for p in KEPT])
def test_stdlib_results_keep_the_metadata_of_the_inputs_they_hold(f, args, kept):
    ctx, result = _tagged_result(f, args)
    for position, argument in kept:
        element = overdub(ctx, operator.getitem, result, position)
        assert metadata(element, ctx) == f"a{argument}", (position, argument)


def test_no_tagged_value_is_left_in_the_heap():
    """One heap scan for the module: no `Tagged` outlived the runs."""
    for _, f, args, _ in ENTRIES:
        _tagged_result(f, args)
    LAST_TAGGED.clear()
    gc.collect()
    assert [o for o in gc.get_objects() if type(o) is Tagged] == []
