"""A hunt that keeps going: random small programs, each a chain of steps that carry
a value through the heap (containers, unpacking, swaps, copies, objects, slots,
closures, globals, generators, nested derivatives) between arithmetic steps, are
differentiated at exact `Fraction` points. The reference is the chain's arithmetic
done on exact (value, derivative) pairs: the carrying steps are identities. `D`
must give that derivative exactly, or raise `NonDifferentiableError`; any other
number fails the hunt."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from ad import D, NonDifferentiableError
from tests.hunt_pieces import module_of

# Steps that carry `v` through the heap and back: each leaves `v` as it found it.
CARRIERS = {
    "list": ["v = [v, 0][0]"],
    "tuple unpacking": ["a, b = (v, 1)", "v = a"],
    "swap": ["a, b = 1, v", "a, b = b, a", "v = a"],
    "starred unpacking": ["first, *rest = [v, 2, 3]", "v = first"],
    "unpacking in unpacking": ["(a, (b, c)) = (1, (v, 2))", "v = b"],
    "dict": ["d = {'k': v}", "v = d['k']"],
    "dict.pop": ["d = {'k': v}", "v = d.pop('k')"],
    "list.pop": ["v = [v].pop()"],
    "list.insert": ["xs = [1, 2]", "xs.insert(1, v)", "v = xs[1]"],
    "list.remove": ["xs = [2, v]", "xs.remove(2)", "v = xs[0]"],
    "deque.pop": ["q = collections.deque([1, v])", "v = q.pop()"],
    "deque.popleft": ["q = collections.deque([v, 1])", "v = q.popleft()"],
    "attribute": ["o = Box(v)", "v = o.v"],
    "slots": ["o = Slot(v)", "v = o.v"],
    "dataclass": ["o = Pair(v, 1)", "v = o.a"],
    "property and __getitem__": ["o = Holder(v)", "v = o.v", "v = Holder(v)[0]"],
    "closure": ["get = lambda: v", "v = get()"],
    "global": ["G = v", "v = G"],
    "copy": ["v = copy.copy([v])[0]"],
    "deepcopy": ["v = copy.deepcopy({'a': [v]})['a'][0]"],
    "generator": ["v = next(gen(v))"],
    "sorted": ["v = sorted([v, v - 1])[1]"],
    "max": ["v = max(v - 1, v)"],
    "zip": ["for a, b in zip([v], [1]):", "    v = a"],
    "enumerate": ["for i, a in enumerate([v]):", "    v = a"],
    "slice": ["v = [0, v, 2][1:2][0]"],
    "reversed": ["v = list(reversed([v, 1]))[1]"],
    "comprehension": ["v = [w for w in [v]][0]"],
    "keyword argument": ["v = passthrough(v, scale=1)"],
    "match capture": ["match [v, 1]:", "    case [w, _]:", "        v = w"],
    "match class pattern": ["match Box(v):", "    case Box(v=w):", "        v = w"],
    "default value": ["g = lambda t=v: t", "v = g()"],
    "exec": ["namespace = {'v': v}", "exec('w = v * 1', namespace)", "v = namespace['w']"],
    "eval": ["v = eval('v', {'v': v})"],
    "collections.abc mixin": ["v = Bag(a=v).get('a')"],
    "reversed dict view": ["v = list(reversed({'a': v, 'b': 1}.values()))[1]"],
    "reversed dict view stepped": ["steps = reversed({'a': v, 'b': 1}.items())", "next(steps)",
                                   "v = next(steps)[1]"],
    "OrderedDict": ["o = collections.OrderedDict(a=v, b=1)", "o.move_to_end('a')",
                    "v = o.popitem()[1]"],
    "defaultdict": ["dd = collections.defaultdict(int)", "dd['k'] += v", "v = dd['k']"],
    "heapq": ["h = [10 ** 9]", "heapq.heappush(h, v - 9)", "v = heapq.heappop(h) + 9"],
    "list subclass": ["s = Stack([1, v])", "v = list(reversed(s))[0]"],
    "bound method": ["xs = []", "push = xs.append", "push(v)", "v = xs[0]"],
    "__getattr__": ["v = Lazy(w=v).w"],
    "list written ahead of its loop": ["xs = [0, 0]", "for i, w in enumerate(xs):",
                                       "    if i == 0:", "        xs[1] = v",
                                       "    else:", "        v = w"],
    "list written after iter()": ["xs = [0]", "it = iter(xs)", "xs[0] = v", "v = next(it)"],
    "deque written after iter()": ["q = collections.deque([0])", "it = iter(q)", "q[0] = v",
                                   "v = next(it)"],
    "dict written ahead of its loop": ["d = {'a': 0, 'b': 0}", "for k, w in d.items():",
                                       "    if k == 'a':", "        d['b'] = v",
                                       "    else:", "        v = w"],
    "iterator by name": ["xs = [0]", "it = xs.__iter__()", "xs[0] = v", "v = next(it)"],
    "argsort by __getitem__": ["xs = [v, v + 1]", "order = sorted(range(2), key=xs.__getitem__)",
                               "v = xs[order[0]]"],
    "list subclass computing its items": ["t = Twice([0])", "t[0] = v", "v = t.pop()"],
    "weak key dictionary": ["o = Box(0)", "table = weakref.WeakKeyDictionary()",
                            "table[o] = v", "v = table[o]"],
    "nested derivative": ["v = D(lambda y: y * v, Fraction(1))"],
    "nested starred call": ["v = D(lambda y: (lambda a, b: a * b)(*(y, v)), Fraction(1))"],
    "nested unpacking": ["v = D(lambda y: unpacked_product(y, v), Fraction(1))"],
}

# Steps that compute: (source, how the exact (value, derivative) pair changes).
ARITHMETIC = {
    "v = v * 3 + 1": lambda v, d, x: (v * 3 + 1, d * 3),
    "v = v * v": lambda v, d, x: (v * v, 2 * v * d),
    "v = v * x": lambda v, d, x: (v * x, d * x + v),
    "v = v / 2 - x": lambda v, d, x: (v / 2 - x, d / 2 - 1),
}

def program(steps: list) -> object:
    """The function the steps make, written to a module of its own (so `D` can read
    its source, as it reads the user's)."""
    body = ["    global G", "    v = x"] + ["    " + line for step in steps for line in _lines(step)]
    source = "from tests.hunt_pieces import *\n\n\ndef f(x):\n" + "\n".join(body) + \
        "\n    return v\n"
    return module_of(source).f


def _lines(step: str) -> list:
    return CARRIERS.get(step, [step])


def expected(steps: list, x: Fraction) -> Fraction:
    v, d = x, Fraction(1)
    for step in steps:
        if step in ARITHMETIC:
            v, d = ARITHMETIC[step](v, d, x)
    return d


steps_strategy = st.lists(st.sampled_from(sorted(CARRIERS) + sorted(ARITHMETIC)),
                          min_size=1, max_size=6)
points = st.fractions(min_value=Fraction(1, 2), max_value=3, max_denominator=7)


@settings(max_examples=500, deadline=None)
@given(steps_strategy, points)
def test_random_programs_are_right_or_refused(steps, x):
    f = program(steps)
    try:
        got = D(f, x)
    except NonDifferentiableError:
        return
    assert got == expected(steps, x), (steps, x)


@settings(max_examples=60, deadline=None)
@given(steps_strategy, points)
def test_random_programs_nested_twice_are_right_or_refused(steps, x):
    """The second derivative, by nesting `D`, against the chain's exact second
    derivative: every carrying step now runs under two differentiations at once."""
    f = program(steps)
    try:
        got = D(D(f), x)
    except NonDifferentiableError:
        return
    assert got == second(steps, x), (steps, x)


def second(steps: list, x: Fraction) -> Fraction:
    """The exact second derivative of the chain, on (value, first, second) triples."""
    v, d, dd = x, Fraction(1), Fraction(0)
    for step in steps:
        if step == "v = v * 3 + 1":
            v, d, dd = v * 3 + 1, d * 3, dd * 3
        elif step == "v = v * v":
            v, d, dd = v * v, 2 * v * d, 2 * d * d + 2 * v * dd
        elif step == "v = v * x":
            v, d, dd = v * x, d * x + v, dd * x + 2 * d
        elif step == "v = v / 2 - x":
            v, d, dd = v / 2 - x, d / 2 - 1, dd / 2
    return dd


def test_the_hunt_catches_a_wrong_derivative():
    """Not vacuous: a carrier that drops the derivative is caught."""
    f = program(["v = v * x", "v = float(str(v))"])  # text: documented to drop it
    assert D(f, Fraction(2)) != expected(["v = v * x"], Fraction(2))
