"""Workloads and the hand-written dual numbers for the `ad` benchmarks.

They live in a real file because the engine reads a function's source to
transform it. Each workload is written once, as a function of the point `x`
and a "math-like" namespace `m` (default: the `math` module). `ad.D` runs it
as users write it, with plain `math`; the dual classes run the very same
source with `m` set to their own namespace (`DUAL_MATH`, `TAGGED_MATH`), whose
functions take dual numbers; an optional library runs it with its own
namespace (`jax.numpy`, `torch`, `autograd.numpy`, `mpmath`). W2, W4 and
`rosenbrock` never call `m`; they take it anyway, so every workload is called
alike. `rosenbrock` takes a list (for `ad.hessian`); the others a number.

The first-call measure needs a fresh copy of W1 in a new module file; it takes
W1's own source (`inspect.getsource`) and renames it, so there is still one
textual copy of each workload.
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace


# The workloads ---------------------------------------------------------------------------

def w1(x, m=math):
    """A 200-iteration scalar loop with sin, cos, ** and /."""
    acc = 0.0
    for i in range(200):
        y = x + i * 0.01
        acc = acc + m.sin(y) * m.cos(x - y) / (1.0 + y ** 2)
    return acc


COEFFS = [(-1) ** k / (k + 1.0) for k in range(501)]  # fixed coefficients of degree 500


def w2(x, m=math):
    """Horner evaluation of a degree-500 polynomial."""
    p = 0.0
    for c in COEFFS:
        p = p * x + c
    return p


W4_GLOBAL = 0.0


class Particle:
    def __init__(self, pos):
        self.pos = pos
        self.vel = 0.0
        self.energy = 0.0


def w4(x, m=math):
    """Objects with float attributes, a module global, list appends, `sum` at the end."""
    global W4_GLOBAL
    p = Particle(x)
    items = []
    for i in range(200):
        p.vel = p.vel - 0.01 * p.pos
        p.pos = p.pos + 0.01 * p.vel
        p.energy = 0.5 * p.vel * p.vel + 0.5 * p.pos * p.pos
        W4_GLOBAL = W4_GLOBAL + 0.001 * p.energy
        items.append(p.energy)
    result = sum(items) + W4_GLOBAL
    W4_GLOBAL = 0.0  # every run starts from a plain 0.0
    return result


def _chain_rates(t, y, rate, m):
    """dy/dt of a chain A -> B -> C with decay rates `rate` and `rate / 2`, A forced by sin(t)."""
    a, b, c = y
    return [-rate * a + 0.1 * m.sin(t), rate * a - 0.5 * rate * b, 0.5 * rate * b - 0.2 * c]


def rk4(rate, m=math):
    """50 classical RK4 steps of `_chain_rates`, the state a list updated over `zip`."""
    h, t, y = 0.02, 0.0, [1.0, 0.0, 0.0]
    for _ in range(50):
        k1 = _chain_rates(t, y, rate, m)
        k2 = _chain_rates(t + h / 2, [v + h / 2 * d for v, d in zip(y, k1)], rate, m)
        k3 = _chain_rates(t + h / 2, [v + h / 2 * d for v, d in zip(y, k2)], rate, m)
        k4 = _chain_rates(t + h, [v + h * d for v, d in zip(y, k3)], rate, m)
        y = [v + h / 6 * (d1 + 2 * d2 + 2 * d3 + d4)
             for v, d1, d2, d3, d4 in zip(y, k1, k2, k3, k4)]
        t = t + h
    return y[2]


PERCEPTRON_HIDDEN = [[math.sin(1.7 * i + 0.3 * j) for j in range(4)] for i in range(8)]
PERCEPTRON_OUT = [math.cos(0.9 * i + 0.2) for i in range(8)]
PERCEPTRON_DATA = [([math.sin(n + j) for j in range(4)], math.cos(n)) for n in range(8)]


def perceptron(scale, m=math):
    """Mean squared error of a 4-8-1 perceptron (tanh hidden layer) over 8 samples,
    every hidden weight multiplied by `scale`."""
    loss = 0.0
    for inputs, target in PERCEPTRON_DATA:
        hidden = [m.tanh(sum(scale * w * v for w, v in zip(row, inputs)))
                  for row in PERCEPTRON_HIDDEN]
        out = sum(w * h for w, h in zip(PERCEPTRON_OUT, hidden))
        loss = loss + (out - target) ** 2
    return loss / len(PERCEPTRON_DATA)


def _normal_cdf(z, m):
    return 0.5 * (1.0 + m.erf(z / m.sqrt(2.0)))


def black_scholes(spot, m=math):
    """A European call's Black-Scholes price; its derivative by `spot` is the delta."""
    strike, rate, vol, years = 100.0, 0.05, 0.2, 1.0
    d1 = (m.log(spot / strike) + (rate + 0.5 * vol ** 2) * years) / (vol * m.sqrt(years))
    d2 = d1 - vol * m.sqrt(years)
    return spot * _normal_cdf(d1, m) - strike * m.exp(-rate * years) * _normal_cdf(d2, m)


def rosenbrock(v, m=math):
    """The n-dimensional Rosenbrock function of the list `v`."""
    return sum(100.0 * (v[i + 1] - v[i] ** 2) ** 2 + (1.0 - v[i]) ** 2
               for i in range(len(v) - 1))


def smooth(x, m=math):
    """A smooth scalar function (5 terms of sin and exp), for derivatives of order 1 to 4."""
    acc = 0.0
    for i in range(1, 6):
        acc = acc + m.sin(i * x) * m.exp(-0.1 * i * x) / i
    return acc


# A minimal dual number -----------------------------------------------------------------

class Dual:
    """value + tangent·ε, ε² = 0: operator overloading by hand, no tags (cannot nest)."""

    __slots__ = ("value", "tangent")

    def __init__(self, value, tangent):
        self.value, self.tangent = value, tangent

    def __add__(self, other):
        if type(other) is Dual:
            return Dual(self.value + other.value, self.tangent + other.tangent)
        return Dual(self.value + other, self.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is Dual:
            return Dual(self.value - other.value, self.tangent - other.tangent)
        return Dual(self.value - other, self.tangent)

    def __rsub__(self, other):
        return Dual(other - self.value, -self.tangent)

    def __mul__(self, other):
        if type(other) is Dual:
            return Dual(self.value * other.value,
                        self.tangent * other.value + self.value * other.tangent)
        return Dual(self.value * other, self.tangent * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is Dual:
            q = self.value / other.value
            return Dual(q, (self.tangent - q * other.tangent) / other.value)
        return Dual(self.value / other, self.tangent / other)

    def __rtruediv__(self, other):
        q = other / self.value
        return Dual(q, -q * self.tangent / self.value)

    def __pow__(self, n):  # a constant exponent
        return Dual(self.value ** n, n * self.value ** (n - 1) * self.tangent)

    def __neg__(self):
        return Dual(-self.value, -self.tangent)


def dual_sin(x):
    if type(x) is Dual:
        return Dual(math.sin(x.value), math.cos(x.value) * x.tangent)
    return math.sin(x)


def dual_cos(x):
    if type(x) is Dual:
        return Dual(math.cos(x.value), -math.sin(x.value) * x.tangent)
    return math.cos(x)


DUAL_MATH = SimpleNamespace(sin=dual_sin, cos=dual_cos)


def dual_derivative(f, x):
    """f'(x) with `Dual`, called as `D` is: seed, run, read the tangent."""
    y = f(Dual(x, 1.0), DUAL_MATH)
    return y.tangent if type(y) is Dual else 0.0


# A tagged, nestable dual number (as in ForwardDiff) ---------------------------------------

_TAGS = itertools.count(1)


class TDual:
    """A dual number of one derivative, told apart by its tag.

    Every derivative draws a larger tag; value and tangent may be `TDual`s of
    smaller tags (the derivatives it is nested in). Between two different tags
    the larger is outermost: the other operand is a constant to it.
    """

    __slots__ = ("tag", "value", "tangent")

    def __init__(self, tag, value, tangent):
        self.tag, self.value, self.tangent = tag, value, tangent

    def __add__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value + other.value, self.tangent + other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self + other.value, other.tangent)
        return TDual(self.tag, self.value + other, self.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value - other.value, self.tangent - other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self - other.value, -other.tangent)
        return TDual(self.tag, self.value - other, self.tangent)

    def __rsub__(self, other):  # `other` is never a TDual here
        return TDual(self.tag, other - self.value, -self.tangent)

    def __mul__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                return TDual(self.tag, self.value * other.value,
                             self.tangent * other.value + self.value * other.tangent)
            if other.tag > self.tag:
                return TDual(other.tag, self * other.value, self * other.tangent)
        return TDual(self.tag, self.value * other, self.tangent * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is TDual:
            if other.tag == self.tag:
                q = self.value / other.value
                return TDual(self.tag, q, (self.tangent - q * other.tangent) / other.value)
            if other.tag > self.tag:
                q = self / other.value
                return TDual(other.tag, q, -q * other.tangent / other.value)
        return TDual(self.tag, self.value / other, self.tangent / other)

    def __rtruediv__(self, other):
        q = other / self.value
        return TDual(self.tag, q, -q * self.tangent / self.value)

    def __pow__(self, n):  # a constant exponent
        return TDual(self.tag, self.value ** n, n * self.value ** (n - 1) * self.tangent)

    def __neg__(self):
        return TDual(self.tag, -self.value, -self.tangent)


def tagged_sin(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_sin(x.value), tagged_cos(x.value) * x.tangent)
    return math.sin(x)


def tagged_cos(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_cos(x.value), -tagged_sin(x.value) * x.tangent)
    return math.cos(x)


def tagged_exp(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_exp(x.value), tagged_exp(x.value) * x.tangent)
    return math.exp(x)


def tagged_log(x):
    if type(x) is TDual:
        return TDual(x.tag, tagged_log(x.value), x.tangent / x.value)
    return math.log(x)


def tagged_sqrt(x):
    if type(x) is TDual:
        root = tagged_sqrt(x.value)
        return TDual(x.tag, root, 0.5 * x.tangent / root)
    return math.sqrt(x)


def tagged_tanh(x):
    if type(x) is TDual:
        t = tagged_tanh(x.value)
        return TDual(x.tag, t, (1.0 - t * t) * x.tangent)
    return math.tanh(x)


def tagged_erf(x):
    if type(x) is TDual:
        slope = 2.0 / math.sqrt(math.pi) * tagged_exp(-(x.value * x.value))
        return TDual(x.tag, tagged_erf(x.value), slope * x.tangent)
    return math.erf(x)


TAGGED_MATH = SimpleNamespace(sin=tagged_sin, cos=tagged_cos, exp=tagged_exp, log=tagged_log,
                              sqrt=tagged_sqrt, tanh=tagged_tanh, erf=tagged_erf)


def _tangent(y, tag):
    """The tangent of `y` for `tag` (0.0 for a constant), item by item in a list."""
    if type(y) is list:
        return [_tangent(item, tag) for item in y]
    return y.tangent if type(y) is TDual and y.tag == tag else 0.0


def tagged_derivative(f, x):
    """f'(x) with `TDual` and a fresh tag, called as `D` is; `x` may itself be a
    `TDual` of an enclosing derivative (nesting)."""
    tag = next(_TAGS)
    return _tangent(f(TDual(tag, x, 1.0), TAGGED_MATH), tag)


def tagged_nth(f, x, k):
    """The k-th derivative of f at x by nesting: each level a derivative with its own tag."""
    if k == 0:
        return f(x, TAGGED_MATH)
    return tagged_derivative(lambda y, m: tagged_nth(f, y, k - 1), x)


def tagged_partial(f, xs, index):
    """d f(xs) / d xs[index] for `f` taking a list: that item seeded, the others plain."""
    tag = next(_TAGS)
    ys = [TDual(tag, x, 1.0) if i == index else x for i, x in enumerate(xs)]
    return _tangent(f(ys, TAGGED_MATH), tag)


def tagged_gradient(f, xs):
    return [tagged_partial(f, xs, i) for i in range(len(xs))]


def tagged_hessian(f, xs):
    """As `ad.hessian`: the jacobian of the gradient, one outer pass per column, each
    running a nested gradient (n * n runs of `f`)."""
    columns = [tagged_partial(lambda ys, m: tagged_gradient(f, ys), xs, j)
               for j in range(len(xs))]
    return [list(row) for row in zip(*columns)]
