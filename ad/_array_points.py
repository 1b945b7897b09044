"""The API's ndarrays: points seeded with their tangents, results read, directions.

`jvp`, `gradient`, `jacobian` and `hessian` take float ndarrays as points: a point
is given its tangent buffer in the derivative's table (`seed`), and an array the
function returns is read back as a copy of its window (`tangent_out`).
"""

from __future__ import annotations

from typing import Any, Callable

from contexts.layer import nativecalls

from ad import _array_table as table

nativecalls(__name__, "table")  # `tangent_out` runs in the context; the table natively


def is_point(x: Any) -> bool:
    """Whether `x` is an ndarray a derivative may be taken at (float or complex)."""
    numpy = table.numpy_module()
    return numpy is not None and type(x) is numpy.ndarray and table.carries(x.dtype)


def seed(ctx: Any, x: Any, tangent: Any, copy: Callable) -> Any:
    """The point `x`, an ndarray, given `tangent` (of its shape) in `ctx`'s table.
    The buffer is `copy(tangent, x)`: made by the context enclosing this
    derivative if there is one (`ad._api`), so that a tangent carrying that
    context's own tangent keeps it (the buffer is then the owner it keys)."""
    numpy = table.numpy_module()
    if numpy.shape(tangent) != x.shape:
        raise ValueError(f"the tangent of an array of shape {x.shape} must have that shape; "
                         f"got {numpy.shape(tangent)}")
    if table.window(ctx, x) is not None:
        raise ValueError("two points share memory (the same array, or views of one); "
                         "pass copies: np.array(x)")
    buffer = copy(tangent, x)
    if table.owner(x) is x:
        table.register(ctx, x, buffer)
    else:  # a view: its owner's buffer, zero but for its window
        table.ensure(ctx, x)[...] = buffer
    return x


def copied(tangent: Any, like: Any) -> Any:
    """A fresh array of `tangent`'s values laid out as `like` (a point's buffer)."""
    buffer = table.numpy_module().empty_like(like)
    buffer[...] = tangent
    return buffer


def tangent_out(ctx: Any, array: Any) -> Any:
    """The tangent of an array the differentiated function returned: a copy of its
    window, or zeros of its shape."""
    numpy = table.numpy_module()
    window = table.window(ctx, array)
    if window is None:
        kind = array.dtype if table.carries(array.dtype) else numpy.float64
        return numpy.zeros(array.shape, kind)
    return numpy.array(window)


def fresh(x: Any) -> Any:
    """A copy of the point `x`, laid out as it is (run in the context, so that an
    enclosing derivative's tangent of `x` is the copy's too)."""
    return table.numpy_module().copy(x, order="K")


def restore(x: Any, before: Any) -> None:
    """Give the point `x` back its contents `before` (a pass may have written into
    it; a read-only one it cannot have)."""
    if x.flags.writeable:
        x[...] = before


def unit(x: Any, index: int) -> Any:
    """The direction of `x`'s element `index` (in C order): zeros, and a one there."""
    direction = table.numpy_module().zeros_like(x)
    direction.flat[index] = 1  # (in place whatever the layout, unlike a reshape)
    return direction


def shaped(partials: list, x: Any) -> Any:
    """A gradient's partials as an array of the point's shape."""
    return table.numpy_module().array(partials).reshape(x.shape)


def columns_shaped(columns: list, value: Any, x: Any) -> Any:
    """A Jacobian's columns (one per element of `x`) as an array of shape
    `value.shape + x.shape`."""
    numpy = table.numpy_module()
    stacked = numpy.stack([numpy.asarray(column) for column in columns], axis=-1)
    return stacked.reshape(numpy.shape(value) + x.shape)


def is_array(x: Any) -> bool:
    numpy = table.numpy_module()
    return numpy is not None and isinstance(x, numpy.ndarray)
