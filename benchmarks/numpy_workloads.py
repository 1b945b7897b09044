"""Workloads of the NumPy benchmark (issue 21), in a real file: the engine reads
their source.

Each is written once, as a function of its point and a numpy-like namespace `m`
(default: numpy itself), so that `ad` runs it as users write it and autograd
(`autograd.numpy`) and JAX (`jax.numpy`) run the very same source. Each has its
derivative written out by hand (`*_derivative`), which the benchmark checks every
variant against before timing.
"""

from __future__ import annotations

import numpy as np

# (a) a damped oscillator sampled on a grid of 10,000 points, fitted to data
GRID = 10_000
TIMES = np.linspace(0.0, 10.0, GRID)
STEP = float(TIMES[1] - TIMES[0])
OMEGA = 3.0
DATA = np.exp(-0.25 * TIMES) * np.cos(OMEGA * TIMES) + 0.01 * np.sin(7.0 * TIMES)
DAMPING = 0.3


def oscillator(damping, m=np):
    """The misfit of `exp(-damping t) cos(omega t)` to the data, plus a penalty on its
    velocity (a finite difference of slices): ufuncs, broadcasting, slices, sums."""
    x = m.exp(-damping * TIMES) * m.cos(OMEGA * TIMES)
    velocity = (x[1:] - x[:-1]) / STEP
    r = x - DATA
    return m.sum(r * r) + 0.01 * STEP * m.sum(velocity * velocity)


def oscillator_derivative(damping):
    """d oscillator / d damping, by hand."""
    x = np.exp(-damping * TIMES) * np.cos(OMEGA * TIMES)
    dx = -TIMES * x
    velocity = (x[1:] - x[:-1]) / STEP
    dvelocity = (dx[1:] - dx[:-1]) / STEP
    return float(np.sum(2 * (x - DATA) * dx) + 0.01 * STEP * np.sum(2 * velocity * dvelocity))


# (b) one tanh layer: sum(tanh(W @ v)) with a 100x100 W, at a 100-vector v
SIZE = 100
WEIGHTS = np.sin(np.arange(SIZE * SIZE, dtype=float)).reshape(SIZE, SIZE) / 10
POINT = np.cos(np.arange(SIZE, dtype=float))


def layer(v, m=np):
    return m.sum(m.tanh(WEIGHTS @ v))


def layer_gradient(v):
    """The gradient of `layer`, by hand: W^T (1 - tanh(W v)^2)."""
    return WEIGHTS.T @ (1 - np.tanh(WEIGHTS @ v) ** 2)
