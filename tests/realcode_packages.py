"""Subjects from pure-Python packages installed for the tests (the `realcode` extra):
pint, networkx, more-itertools, sortedcontainers, uncertainties, toolz. Each function
imports its package when called, so this module imports without them; the tests skip a
case whose package is missing."""

from __future__ import annotations

import functools
import math
import operator


def _registry():
    """pint's unit registry, built once when this module is imported, as a program
    keeps one. Built inside `f` (or by a `functools.cache`d function, whose body runs
    again in each derivative), its construction runs in the context: seconds."""
    try:
        import pint
    except ImportError:  # the pint cases are skipped
        return None
    return pint.UnitRegistry()


_UREG = _registry()


def pint_to_cm(x):
    ureg = _UREG
    return (x * ureg.meter).to(ureg.cm).magnitude


def pint_speed(x):
    ureg = _UREG
    return ((x * ureg.km) / (2.0 * ureg.hour)).to("m/s").magnitude


def pint_area(x):
    ureg = _UREG
    return ((x * ureg.meter) ** 2).to(ureg.cm ** 2).magnitude


def pint_offset_temperature(x):
    ureg = _UREG
    return ureg.Quantity(x, ureg.degC).to(ureg.degF).magnitude


def pint_quantity_math(x):
    ureg = _UREG
    q = ureg.Quantity(x, "m") * ureg.Quantity(3.0, "s") ** -1
    return (q * ureg.Quantity(x, "kg")).to("N*s").magnitude


def _graph(x):
    import networkx as nx
    g = nx.Graph()
    g.add_edge("a", "b", weight=x)
    g.add_edge("b", "c", weight=2 * x)
    g.add_edge("a", "c", weight=3.5)
    g.add_edge("c", "d", weight=x * x)
    g.add_edge("b", "d", weight=4.0)
    return g


def nx_dijkstra_length(x):
    import networkx as nx
    return nx.dijkstra_path_length(_graph(x), "a", "d")


def nx_bellman_ford_length(x):
    import networkx as nx
    return nx.bellman_ford_path_length(_graph(x), "a", "d")


def nx_mst_weight(x):
    import networkx as nx
    tree = nx.minimum_spanning_tree(_graph(x))
    return tree.size(weight="weight")


def nx_all_pairs(x):
    import networkx as nx
    lengths = dict(nx.all_pairs_dijkstra_path_length(_graph(x)))
    return lengths["a"]["d"] + lengths["b"]["c"]


def mit_dotproduct(x):
    import more_itertools as mit
    return mit.dotproduct([x, 2.0, x], [3.0, x, x])


def mit_polynomial_eval(x):
    import more_itertools as mit
    return mit.polynomial_eval([1.0, -4.0, -17.0, 60.0], x)


def mit_windowed_sums(x):
    import more_itertools as mit
    return max(sum(w) for w in mit.windowed([x, 2.0, x * x, 1.0], 2))


def mit_convolve(x):
    import more_itertools as mit
    return list(mit.convolve([x, 1.0, 2.0], [1.0, x]))[1]


def mit_chunked_means(x):
    import more_itertools as mit
    return sum(sum(c) / len(c) for c in mit.chunked([x, 2.0, 3 * x, x * x, 5.0], 2))


def sc_sortedlist(x):
    from sortedcontainers import SortedList
    s = SortedList([x, 3.0, 1.0, x * x])
    return s[1] * 10 + s[-1]


def sc_sortedkeylist(x):
    from sortedcontainers import SortedKeyList
    s = SortedKeyList([x, 3.0, 1.0, x * x], key=operator.neg)
    s.add(2 * x)
    return s[0] + 100 * s[1]


def sc_sorteddict(x):
    from sortedcontainers import SortedDict
    d = SortedDict({3.0: x, 1.0: 2.0, 2.0: x * x})
    return d.peekitem(-1)[1] * 7 + d.values()[1]


def unc_nominal(x):
    from uncertainties import ufloat, umath
    u = ufloat(x, 0.1)
    return (umath.sin(u) * 3 + u ** 2).nominal_value


def unc_std_dev(x):
    from uncertainties import ufloat
    u = ufloat(2.0, x)
    v = ufloat(1.5, 0.3)
    return (u * v).std_dev


def tz_pipe(x):
    import toolz
    return toolz.pipe(x, lambda t: t * t, math.sin, lambda t: t + x)


def tz_compose_reduce(x):
    import toolz
    f = toolz.compose(math.exp, functools.partial(operator.mul, 0.5))
    return toolz.reduce(operator.add, toolz.map(f, [x, 2 * x, 1.0]))


def tz_merge_with(x):
    import toolz
    merged = toolz.merge_with(sum, {"a": x, "b": 1.0}, {"a": x * x}, {"b": x})
    return merged["a"] * merged["b"]


def tz_accumulate(x):
    import toolz
    return list(toolz.accumulate(operator.mul, [x, 2.0, x, 0.5]))[-1]


def tz_curried(x):
    from toolz.curried import map, pipe, sliding_window
    return pipe([x, 1.0, x * x, 3.0], sliding_window(2), map(lambda w: w[0] * w[1]), sum)


def mit_partition(x):
    import more_itertools as mit
    small, large = mit.partition(lambda t: t > 1, [x, 2.0, x * x])
    return sum(small) * 10 + sum(large)


def mit_islice_extended(x):
    import more_itertools as mit
    return sum(mit.islice_extended([x, 2.0, x * x])[-2:])


def mit_roundrobin(x):
    import more_itertools as mit
    return list(mit.roundrobin([x, 1.0], [2.0, x * x]))[3]
