"""A least-squares fit with NumPy, and how its parameters move with one data point.

A quadratic c0 + c1 t + c2 t^2 is fitted to twelve measurements by the normal
equations (A^T A) c = A^T y, in ordinary numpy: the design matrix A built with
`np.stack`, matrix products, `np.linalg.solve`. `D` differentiates the whole fit
with respect to one measurement: its value y_k (written into a copy of the data
by an item write) and its time t_k (which moves a row of A, so the matrix being
solved moves too). `jacobian` gives the sensitivity of the three parameters to
every value at once: each column is what one data point pulls. Each derivative is
checked against a central finite difference.
"""

import numpy as np

from ad import D, jacobian

TIMES = np.linspace(0.0, 2.0, 12)
VALUES = 1.0 + 0.5 * TIMES - 0.8 * TIMES ** 2 + 0.05 * np.sin(7.0 * TIMES)  # a wobble as noise
K = 5  # the data point whose influence we follow


def fit(times, values):
    """The least-squares quadratic through (times, values): [c0, c1, c2]."""
    design = np.stack([np.ones_like(times), times, times * times], axis=1)
    return np.linalg.solve(design.T @ design, design.T @ values)


def fit_moving_value(value):
    values = VALUES.copy()
    values[K] = value
    return fit(TIMES, values)


def fit_moving_time(time):
    times = TIMES.copy()
    times[K] = time
    return fit(times, VALUES)


def central_difference(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def checked(derivative, f, x):
    """`derivative`, after checking it against a central difference of `f` at `x`."""
    numerical = central_difference(f, x)
    if not np.allclose(derivative, numerical, rtol=1e-6, atol=1e-8):
        raise AssertionError(f"D gave {derivative}, a central difference {numerical}")
    return derivative


def shown(values):
    return "[" + ", ".join(f"{round(v, 4) + 0.0:+.4f}" for v in values) + "]"  # no -0.0000


def main():
    print(f"fit c0, c1, c2        = {shown(fit(TIMES, VALUES))}")
    by_value = checked(D(fit_moving_value, VALUES[K]), fit_moving_value, VALUES[K])
    print(f"d c / d y_{K}           = {shown(by_value)}")
    by_time = checked(D(fit_moving_time, TIMES[K]), fit_moving_time, TIMES[K])
    print(f"d c / d t_{K}           = {shown(by_time)}")
    print("both agree with central differences")
    every = jacobian(lambda values: fit(TIMES, values), VALUES)
    print(f"jacobian d c / d y    : shape {every.shape}, column {K} is d c / d y_{K}: "
          f"{bool(np.allclose(every[:, K], by_value, rtol=1e-12))}")
    # raising every value by 1 raises the fitted constant by 1 and leaves the rest
    print(f"rows summed over data = {shown(every.sum(axis=1))}")


if __name__ == "__main__":
    main()

# Output:
# fit c0, c1, c2        = [+1.0244, +0.4380, -0.7698]
# d c / d y_5           = [-0.0577, +0.5096, -0.2644]
# d c / d t_5           = [-0.0586, +0.4951, -0.2556]
# both agree with central differences
# jacobian d c / d y    : shape (3, 12), column 5 is d c / d y_5: True
# rows summed over data = [+1.0000, +0.0000, +0.0000]
