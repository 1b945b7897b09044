"""Rules for NumPy, one line per function; loaded when numpy is first seen.

The form (`ad/_rules/_table.py`'s, as `ad._arrays.call` runs it):

* `defjvp(f, jvp_0, jvp_1, ...)`: `jvp_i(g, ans, *args, **kwargs)` is the term of
  argument i's tangent `g` (an ndarray of that argument's shape, or a scalar for a
  scalar argument); `ans` is the primal answer, `args`/`kwargs` the call's own
  plain arguments (`axis=`, `keepdims=` come by keyword). A term may have any
  shape that broadcasts to `ans`: the runner broadcasts, sums and casts; a term
  of None adds nothing.
* `defjvp_all(f, jvp)`: `jvp(gs, ans, *args, **kwargs)` for a function of any
  number of arrays (the joins), `gs` holding None where an argument has
  no tangent.
* `defconstant`: no tangent (`floor`, `sign`, comparisons, `argmax`, `zeros_like`).
* `defmodel(f, model)`: a Python function run in the context instead, when an
  argument carries a tangent (`np.array` of a list of numbers).

Jvps call only numpy functions that have rules themselves, so a derivative
enclosing this one differentiates the rule; they select with `np.where`, never
multiply by a mask (0 * inf is NaN).

Conventions: `abs` at 0 takes the `x >= 0` branch (derivative +1), as the scalar
rules do; `maximum`/`minimum` give the winner's tangent and half of each on a
tie; `x ** y` follows `pow_base`/`pow_exponent` (`ad/_rules/_support.py`) at 0;
where a derivative is infinite (`sqrt` at 0) it is an infinity of the tangent's
sign, and a zero tangent stays zero.
"""

import builtins
import operator as op

import numpy as np

from ad import _arrays
from ad._array_items import ArrayItems, BufferItems, FlatItems, NditerItems
from ad import _numbers
from ad._rules import numpy_linalg, numpy_reduce  # noqa: F401 (their lines load with these)
from ad._rules._array import deflinear, linear_in
from ad._rules._table import RULES, defconstant, defjvp, defjvp_all, defmodel, defrefused, defsame

_LN2, _LN10 = np.log(2.0), np.log(10.0)
_BEFORE = set(RULES)  # what is here before this module's own lines (`LINES`, at its end)


def _infinite(n):
    """The tangent of an infinite derivative: an infinity of `n`'s sign, 0 where n is 0."""
    return np.where(n == 0, n * 0, np.where(n > 0, np.inf, -np.inf))


def _over(n, d):
    """`n / d`, with `_infinite(n)` where `d` is 0 (the double-where: no warning, no NaN)."""
    nonzero = d != 0
    return np.where(nonzero, n / np.where(nonzero, d, 1), _infinite(n))


def _dabs(g, ans, x, **kw):
    if np.iscomplexobj(x):
        return _over(np.real(np.conj(x) * g), ans)
    return np.where(x >= 0, g, -g)


def _pow_base(g, ans, x, y, **kw):
    y = np.asarray(y)
    if np.iscomplexobj(x) or np.iscomplexobj(y):
        return np.where(y == 0, g * 0, g * y * np.power(x, y - 1))
    at_zero = (x == 0) & (y < 1)
    safe_x = np.where(at_zero, 1, x)
    return np.where(y == 0, g * 0, np.where(at_zero, _infinite(g * y),
                                           g * y * np.power(safe_x, y - 1)))


def _pow_exponent(g, ans, x, y, **kw):
    if np.iscomplexobj(x) or np.iscomplexobj(ans):
        return np.where(x == 0, g * 0, g * ans * np.log(np.where(x == 0, 1, x)))
    return np.where(x == 0, g * 0, g * ans * np.log(np.where(x == 0, 1, np.abs(x))))


def _winner(g, x, y, wins):
    """`g` where x wins, half of it on a tie, 0 where y wins (maximum, minimum)."""
    return np.where(wins, g, np.where(x == y, g / 2, g * 0))


def _named(helper, name):
    """`helper`, named as the user calls what it stands for (`numpy.stack`), so a
    refusal names that and not a helper of ours."""
    helper.__module__ = "numpy"
    helper.__qualname__ = helper.__name__ = name
    return helper


def _zeros_for(gs, arrays):
    return [np.zeros(np.shape(a)) if g is None else g for g, a in zip(gs, arrays)]


def _joiner(join):
    """`join(arrays, *args, **kw)` (concatenate, stack, ...) as a function of the
    arrays one by one, so that its rule sees each one's tangent."""
    def joined(args, kw, *arrays):
        return join(list(arrays), *args, **kw)

    joined = _named(joined, join.__name__)
    defjvp_all(joined, lambda gs, ans, args, kw, *arrays: join(
        _zeros_for(gs[2:], arrays), *args, **kw))
    defmodel(join, lambda arrays, *args, **kw: joined(args, kw, *arrays))
    return joined



def _copy_of(x, *args, **kw):
    """`np.array(x)` of an array or a number (a copy, or a 0-d array)."""
    return np.array(x, *args, **kw)


def _as_array(x, *args, **kw):
    return np.asarray(x, *args, **kw)


def _from_sequence(values, *args, **kw):
    """`np.array` of nested lists: each number made a 0-d array, then stacked, so
    every number's tangent takes its place."""
    if not values:
        return np.array(values, *args, **kw)
    rows = [_from_sequence(v) if isinstance(v, (list, tuple)) else _copy_of(v)
            for v in values]
    stacked = _stacked((), {}, *rows)
    return _copy_of(stacked, *args, **kw) if args or kw else stacked


def _array(x, *args, **kw):
    if isinstance(x, (list, tuple)):
        return _from_sequence(x, *args, **kw)
    return _copy_of(x, *args, **kw)


def _asarray(x, *args, **kw):
    if isinstance(x, (list, tuple)):
        return _from_sequence(x, *args, **kw)
    return _as_array(x, *args, **kw)


def _astype(x, dtype, *args, **kw):
    return x.astype(dtype, *args, **kw)


def _view(x, *args, **kw):
    """`a.view(...)`: a view, whose tangent is its window (refused if it reinterprets
    the bytes)."""
    return x.view(*args, **kw)


def _item(x, *index):
    """`a.item()`: the element as a Python number."""
    value = x[index] if len(index) > 1 else np.ravel(x)[index[0]] if index else x.reshape(())[()]
    return _PYTHON_TYPE[value.dtype.kind](value)


_PYTHON_TYPE = {"f": float, "c": complex, "i": int, "u": int, "b": bool}


def _set_dtype(x, dtype):
    """numpy 2.5's `a._set_dtype(d)` (its `as_strided` calls it): `a.dtype = d`, run in
    the context: keeping the dtype changes nothing; a view that reinterprets the
    bytes is refused where its derivative is read."""
    if np.dtype(dtype) != x.dtype:
        x.dtype = dtype


def _fill(x, value):
    """`a.fill(v)`: a write of `v` into every element, run in the context."""
    x[...] = value


def _tolist(x):
    if np.ndim(x) == 0:
        return _item(np.asarray(x))
    return [_tolist(row) for row in x]


def _clip_inside(g, ans, a, *bounds, **kw):
    """`clip`'s tangent in `a`: `g` where the answer is `a` itself. Told by the
    answer, not the bounds, so bounds given by keyword (`max=`, `a_max=`) or none,
    and a lower bound above the upper one (numpy then answers the upper), are right."""
    return np.where(np.equal(ans, a), g, g * 0)


def _clip_lower(g, ans, a, lo, hi=None, **kw):
    """The lower bound's tangent where it is the answer (the upper one, applied
    last, wins a tie between them)."""
    taken = np.logical_and(np.equal(ans, lo), np.not_equal(ans, a))
    if hi is not None:
        taken = np.logical_and(taken, np.not_equal(ans, hi))
    return np.where(taken, g, g * 0)


def _clip_upper(g, ans, a, lo, hi, **kw):
    return np.where(np.logical_and(np.equal(ans, hi), np.not_equal(ans, a)), g, g * 0)


def _sum(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None,
         where=True):
    """`sum` is linear; `initial` is a constant offset, which the tangent has not,
    given by keyword or by position (`np.sum(x, 1, None, None, False, 3.0)`)."""
    return np.sum(g, axis=axis, dtype=dtype, keepdims=keepdims, where=where)


# Arithmetic ufuncs and their operators
defjvp(np.add, lambda g, ans, x, y, **kw: g, lambda g, ans, x, y, **kw: g)
defjvp(np.subtract, lambda g, ans, x, y, **kw: g, lambda g, ans, x, y, **kw: -g)
defjvp(np.multiply, lambda g, ans, x, y, **kw: g * y, lambda g, ans, x, y, **kw: x * g)
defjvp(np.divide, lambda g, ans, x, y, **kw: g / y, lambda g, ans, x, y, **kw: -g * ans / y)
defjvp(np.negative, lambda g, ans, x, **kw: -g)
defjvp(np.positive, lambda g, ans, x, **kw: g)
defjvp(np.power, _pow_base, _pow_exponent)
defjvp(np.square, lambda g, ans, x, **kw: 2 * x * g)
defjvp(np.reciprocal, lambda g, ans, x, **kw: -g * ans * ans)
defjvp(np.sqrt, lambda g, ans, x, **kw: _over(g, 2 * ans))
defjvp(np.absolute, _dabs)
defjvp(np.fabs, _dabs)
defjvp(np.remainder, lambda g, ans, x, y, **kw: g, lambda g, ans, x, y, **kw: -g * np.floor_divide(x, y))
defjvp(np.exp, lambda g, ans, x, **kw: g * ans)
defjvp(np.expm1, lambda g, ans, x, **kw: g * (ans + 1))
defjvp(np.exp2, lambda g, ans, x, **kw: g * ans * _LN2)
defjvp(np.log, lambda g, ans, x, **kw: _over(g, x))
defjvp(np.log1p, lambda g, ans, x, **kw: _over(g, 1 + x))
defjvp(np.log2, lambda g, ans, x, **kw: _over(g, x * _LN2))
defjvp(np.log10, lambda g, ans, x, **kw: _over(g, x * _LN10))
defjvp(np.sin, lambda g, ans, x, **kw: g * np.cos(x))
defjvp(np.cos, lambda g, ans, x, **kw: -g * np.sin(x))
defjvp(np.tan, lambda g, ans, x, **kw: g * (1 + ans * ans))
defjvp(np.arcsin, lambda g, ans, x, **kw: _over(g, np.sqrt(1 - x * x)))
defjvp(np.arccos, lambda g, ans, x, **kw: -_over(g, np.sqrt(1 - x * x)))
defjvp(np.arctan, lambda g, ans, x, **kw: g / (1 + x * x))
defjvp(np.sinh, lambda g, ans, x, **kw: g * np.cosh(x))
defjvp(np.cosh, lambda g, ans, x, **kw: g * np.sinh(x))
defjvp(np.tanh, lambda g, ans, x, **kw: g * (1 - ans * ans))
defjvp(np.arcsinh, lambda g, ans, x, **kw: g / np.sqrt(x * x + 1))
defjvp(np.arccosh, lambda g, ans, x, **kw: _over(g, np.sqrt(x * x - 1)))
defjvp(np.arctanh, lambda g, ans, x, **kw: _over(g, 1 - x * x))
defjvp(np.arctan2, lambda g, ans, y, x, **kw: _over(g * x, x * x + y * y),
       lambda g, ans, y, x, **kw: _over(-g * y, x * x + y * y))
defjvp(np.hypot, lambda g, ans, x, y, **kw: _over(g * x, ans),
       lambda g, ans, x, y, **kw: _over(g * y, ans))
defjvp(np.maximum, lambda g, ans, x, y, **kw: _winner(g, x, y, x > y),
       lambda g, ans, x, y, **kw: _winner(g, y, x, y > x))
defjvp(np.minimum, lambda g, ans, x, y, **kw: _winner(g, x, y, x < y),
       lambda g, ans, x, y, **kw: _winner(g, y, x, y < x))
deflinear(np.real, np.imag, np.conjugate)
defsame(np.conj, np.conjugate)
defjvp(np.matmul, lambda g, ans, x, y, **kw: np.matmul(g, y), lambda g, ans, x, y, **kw: np.matmul(x, g))
defjvp(np.dot, lambda g, ans, x, y, **kw: np.dot(g, y), lambda g, ans, x, y, **kw: np.dot(x, g))
defconstant(np.sign, np.floor, np.ceil, np.rint, np.trunc, np.floor_divide, np.isnan,
            np.isinf, np.isfinite, np.greater, np.greater_equal, np.less, np.less_equal,
            np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_not,
            np.logical_xor, np.shape, np.ndim, np.size,
            np.zeros, np.ones, np.empty, np.eye, np.identity, np.arange, np.zeros_like,
            np.ones_like, np.empty_like, np.isclose, np.allclose, np.array_equal,
            np.nonzero, np.signbit, np.iscomplexobj, np.isrealobj,
            np.result_type, np.broadcast_shapes, np.any, np.all, np.round,
            np.may_share_memory, np.shares_memory)
defjvp(np.generic.item, lambda g, ans, x, *index: type(ans)(g))  # a numpy scalar's

def _ndenumerate(a):
    """`np.ndenumerate(a)`: each (index, item), the item read as `a[index]` when the
    loop gets to it (numpy's reads `a.flat` in C, where the items are plain)."""
    a = np.asarray(a)
    for index in np.ndindex(*a.shape):
        yield index, a[index]


# Shapes, copies and selections: linear
deflinear(np.reshape, np.ravel, np.transpose, np.swapaxes, np.squeeze, np.expand_dims,
          np.broadcast_to, np.moveaxis, np.flip, np.tril, np.triu, np.diagonal, np.mean,
          np.copy, np.diag, np.atleast_1d, np.atleast_2d, np.roll, np.repeat, np.tile,
          np.take_along_axis, np.take)
defjvp(np.sum, _sum)
defjvp(_named(_copy_of, "array"), linear_in(_copy_of, 0))
defjvp(_named(_as_array, "asarray"), linear_in(_as_array, 0))
defjvp(_named(_view, "ndarray.view"), linear_in(_view, 0))
defjvp(_named(_astype, "ndarray.astype"), lambda g, ans, x, dtype, *args, **kw: g.astype(ans.dtype))
defjvp(np.where, None, lambda g, ans, c, x, y: np.where(c, g, g * 0),
       lambda g, ans, c, x, y: np.where(c, g * 0, g))
defjvp(np.clip, _clip_inside, _clip_lower, _clip_upper)

# Readers of an array's items, step by step
defmodel(np.ndenumerate, _ndenumerate)
_arrays.READ_LATER.add(np.ndenumerate)

# Constructors from differentiated values
defmodel(np.array, _array)
defmodel(np.asarray, _asarray)
_stacked = _joiner(np.stack)
for _join in (np.concatenate, np.hstack, np.vstack):
    _joiner(_join)
defjvp(np.linspace, lambda g, ans, start, stop, *args, **kw: np.linspace(g, g * 0, *args, **kw),
       lambda g, ans, start, stop, *args, **kw: np.linspace(g * 0, g, *args, **kw))
defjvp(np.full, None, lambda g, ans, shape, fill, *args, **kw: g)
defjvp(np.full_like, None, lambda g, ans, a, fill, *args, **kw: g)
for _kind in (np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128,
              np.clongdouble):
    defjvp(_kind, lambda g, ans, x=0, **kw: type(ans)(g))
_numbers.add_number_types((np.float16, np.float32, np.float64, np.longdouble, np.complex64,
                           np.complex128, np.clongdouble, np.int8, np.int16, np.int32,
                           np.int64, np.uint8, np.uint16, np.uint32, np.uint64))

# Refused given a tangent: Python functions run element by element outside numpy's rules
defrefused(np.vectorize.__call__, np.frompyfunc, np.copyto, np.putmask, np.place,
           np.put, np.fill_diagonal)
_arrays.REFUSALS.update({
    np.vectorize.__call__: "np.vectorize calls a Python function on each element in C, "
                           "outside the derivative; write the function with numpy's array "
                           "functions, or loop in Python",
    np.frompyfunc: "np.frompyfunc calls a Python function on each element in C, outside the "
                   "derivative; loop in Python instead",
})

# Operators given an array take the rule of their ufunc
_arrays.OPERATORS.update({
    op.add: np.add, op.sub: np.subtract, op.mul: np.multiply, op.truediv: np.divide,
    op.neg: np.negative, op.pos: np.positive, op.pow: np.power, op.abs: np.absolute,
    builtins.abs: np.absolute, builtins.pow: np.power, op.mod: np.remainder,
    op.matmul: np.matmul,
    op.iadd: np.add, op.isub: np.subtract, op.imul: np.multiply, op.itruediv: np.divide,
    op.ipow: np.power, op.imod: np.remainder, op.imatmul: np.matmul})
defsame(op.matmul, np.matmul)
defsame(op.imatmul, np.matmul)


def _times_in_place(ga, gb, a, old, b):
    ga *= b
    if gb is not None:
        ga += old * gb


def _over_in_place(ga, gb, a, old, b):
    if gb is not None:
        ga -= a * gb
    ga /= b


_arrays.IN_PLACE.update({
    op.iadd: (np.add, None), op.isub: (np.subtract, None),
    op.imul: (np.multiply, _times_in_place), op.itruediv: (np.divide, _over_in_place),
    op.ipow: (np.power, _arrays.REFUSED_IN_PLACE), op.imod: (np.remainder, _arrays.REFUSED_IN_PLACE),
    op.ifloordiv: (np.floor_divide, _arrays.REFUSED_IN_PLACE),
    op.imatmul: (np.matmul, _arrays.REFUSED_IN_PLACE)})

# Methods of ndarrays: models over the functions above, run in the context
_arrays.METHOD_MODELS.update({
    "sum": lambda a, *args, **kw: np.sum(a, *args, **kw),
    "mean": lambda a, *args, **kw: np.mean(a, *args, **kw),
    "cumsum": lambda a, *args, **kw: np.cumsum(a, *args, **kw),
    "reshape": lambda a, *shape, **kw: np.reshape(a, shape[0] if len(shape) == 1 else shape, **kw),
    "ravel": lambda a, *args, **kw: np.ravel(a, *args, **kw),
    "flatten": lambda a, *args, **kw: np.copy(np.ravel(a, *args, **kw)),
    "copy": lambda a, order="C": np.copy(a, order=order),  # (np.copy's default is "K")
    "transpose": lambda a, *axes: np.transpose(a, axes[0] if len(axes) == 1 else axes or None),
    "swapaxes": lambda a, *args: np.swapaxes(a, *args),
    "squeeze": lambda a, *args, **kw: np.squeeze(a, *args, **kw),
    "diagonal": lambda a, *args, **kw: np.diagonal(a, *args, **kw),
    "trace": lambda a, *args, **kw: np.trace(a, *args, **kw),
    "dot": lambda a, b, *args, **kw: np.dot(a, b, *args, **kw),
    "conj": lambda a: np.conjugate(a),
    "conjugate": lambda a: np.conjugate(a),
    "clip": lambda a, min=None, max=None, **kw: np.clip(a, min, max, **kw),  # noqa: A002
    "take": lambda a, *args, **kw: np.take(a, *args, **kw),
    "repeat": lambda a, *args, **kw: np.repeat(a, *args, **kw),
    "argmax": lambda a, *args, **kw: np.argmax(a, *args, **kw),
    "argmin": lambda a, *args, **kw: np.argmin(a, *args, **kw),
    "argsort": lambda a, *args, **kw: np.argsort(a, *args, **kw),
    "astype": lambda a, *args, **kw: _astype(a, *args, **kw),
    "view": lambda a, *args, **kw: _view(a, *args, **kw),
    "any": lambda a, *args, **kw: np.any(a, *args, **kw),
    "all": lambda a, *args, **kw: np.all(a, *args, **kw),
    "round": lambda a, *args, **kw: np.round(a, *args, **kw),
    "max": lambda a, *args, **kw: np.max(a, *args, **kw),
    "min": lambda a, *args, **kw: np.min(a, *args, **kw),
    "prod": lambda a, *args, **kw: np.prod(a, *args, **kw),
    "cumprod": lambda a, *args, **kw: np.cumprod(a, *args, **kw),
    "var": lambda a, *args, **kw: np.var(a, *args, **kw),
    "std": lambda a, *args, **kw: np.std(a, *args, **kw),
    "fill": _fill, "_set_dtype": _set_dtype,
    "item": _item, "tolist": _tolist,
    "__copy__": lambda a: np.copy(a),
    "__deepcopy__": lambda a, memo=None: np.copy(a),
})

# Items of ndarrays and of `a.flat` (tagging's hook)
_arrays.ITEM_HANDLERS.update({np.ndarray: ArrayItems, np.flatiter: FlatItems,
                              np.nditer: NditerItems, memoryview: BufferItems})
LINES = frozenset(set(RULES) - _BEFORE)  # this module's own lines (its tests cover them)
