"""The NumPy section of the benchmark run (issue 21): `ad` on array code against
the plain call, with autograd and JAX beside it when they happen to be importable
(never required; their columns show "-" otherwise).

`run.py` calls `register(run_module)`. Two rows, workloads in `numpy_workloads.py`:

* (a) `D` of a scalar parameter through a function of 10,000-element arrays (a
  damped oscillator's misfit to data): against one plain call.
* (b) `gradient` of `sum(tanh(W @ v))`, W 100x100, at a 100-vector: forward mode
  takes one `jvp` pass per input, so the floor is n + 1 = 101 plain calls (the
  value and one pass per direction), timed as such in the same rounds.

Every variant's derivative is checked against the hand-written one (relative
1e-9) before timing; a variant that fails is reported and left out.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, Callable

import numpy as np

import numpy_workloads as nw
from ad import D, gradient, jvp

RTOL = 1e-9
TARGET = 3.0  # ad's time over the floor, both rows


def _optional() -> dict[str, Callable[[str], Callable[[], Any]]]:
    """name -> make(row): a callable giving that row's derivative, for the optional
    libraries that import (JAX eager on the CPU, autograd)."""
    found = {}
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
        cpu = jax.devices("cpu")[0]

        def jax_make(row):
            if row == "a":
                x0 = jax.device_put(jnp.float64(nw.DAMPING), cpu)
                return lambda: float(jax.jvp(lambda s: nw.oscillator(s, jnp), (x0,),
                                             (jnp.ones_like(x0),))[1])
            v0 = jax.device_put(jnp.asarray(nw.POINT), cpu)
            grad = jax.grad(lambda v: nw.layer(v, jnp))
            return lambda: np.asarray(grad(v0))

        found["jax"] = jax_make
    except Exception:  # noqa: BLE001  (absent or broken: no figures)
        pass
    try:
        import autograd
        import autograd.numpy as anp

        def autograd_make(row):  # reverse mode: one backward pass whatever n is
            if row == "a":
                grad = autograd.grad(lambda s: nw.oscillator(s, anp))
                return lambda: float(grad(nw.DAMPING))
            grad = autograd.grad(lambda v: nw.layer(v, anp))
            return lambda: grad(nw.POINT)

        found["autograd"] = autograd_make
    except Exception:  # noqa: BLE001
        pass
    return found


OPTIONAL = _optional()

ROWS = {
    "a": "(a) D through 10,000-element arrays (damped oscillator misfit)",
    "b": "(b) gradient of sum(tanh(W @ v)), W 100x100, n = 100",
}


def variants(row: str) -> dict[str, Callable[[], Any]]:
    """The timed callables of a row: `plain` (one call), `floor` (what the derivative
    is measured against), `ad`, and one per optional library."""
    if row == "a":
        x = nw.DAMPING
        out = {"plain": lambda: nw.oscillator(x), "ad": lambda: D(nw.oscillator, x)}
        out["floor"] = out["plain"]
    else:
        v, calls = nw.POINT, range(nw.POINT.size + 1)

        def floor() -> None:
            for _ in calls:
                nw.layer(v)

        direction = np.ones_like(v)
        out = {"plain": lambda: nw.layer(v), "floor": floor,
               "ad": lambda: gradient(nw.layer, v),
               "jvp": lambda: jvp(nw.layer, (v,), (direction,))}
    for name, make in OPTIONAL.items():
        out[name] = make(row)
    return out


def expected(row: str) -> Any:
    return nw.oscillator_derivative(nw.DAMPING) if row == "a" else nw.layer_gradient(nw.POINT)


def check(row: str, timed: dict) -> tuple[list[str], list[str]]:
    """(problems, names of the variants to leave out): each derivative against the
    hand-written one."""
    problems, dropped = [], []
    want = expected(row)
    for name in ("ad", *OPTIONAL):
        try:
            got = timed[name]()
        except Exception as error:  # noqa: BLE001  (reported, the run goes on)
            problems.append(f"{name} raised {type(error).__name__}: {error}")
            dropped.append(name)
            continue
        if not np.allclose(got, want, rtol=RTOL, atol=0):
            problems.append(f"{name} gave {got!r}, the hand-written derivative {want!r}")
            dropped.append(name)
    return problems, dropped


def register(run: ModuleType) -> None:
    """Add the NumPy section to `run.SECTIONS` (after those already there)."""
    Table, compare = run.Table, run.compare

    @run.section
    def numpy_speed(settings) -> list:
        table = Table(
            "numpy", "ad on NumPy: the derivative against the plain call (min-of-N, µs)",
            [("plain_us", "plain (µs)", "{:.1f}"),
             ("floor_us", "floor (µs)", "{:.1f}"),
             ("ad_us", "ad (µs)", "{:.1f}"),
             ("ad_floor", "ad / floor", "{:.2f}x"),
             ("jvp_us", "one jvp pass (µs)", "{:.1f}"),
             ("autograd_us", "autograd (µs)", "{:.1f}"),
             ("jax_us", "JAX eager (µs)", "{:.1f}"),
             ("met", "target met", "{}")],
            notes=("*plain*: one call of the workload on numpy. *floor*: what the "
                   "derivative is measured against, timed in the same rounds: (a) one "
                   "plain call; (b) 101 plain calls, since forward mode takes one `jvp` "
                   "pass per input (n = 100) and the value. *ad*: (a) `D(f, x)`, (b) "
                   "`gradient(f, v)`, a fresh call each time. *one jvp pass*: (b) "
                   "`jvp(f, (v,), (u,))`, the unit of (b). *autograd* (`grad`, reverse "
                   "mode: one backward pass) and *JAX eager* (`jax.jvp` for (a), "
                   "`jax.grad` for (b), CPU, float64) run the same source with their "
                   "numpy when they are importable. Target: ad at most 3x the floor. "
                   "Every derivative is checked against the hand-written one (relative "
                   "1e-9) before timing."))
        for key, label in ROWS.items():
            timed = variants(key)
            problems, dropped = check(key, timed)
            for name in dropped:
                timed.pop(name, None)
            timing = compare(timed, settings)
            row = table.add(label, numbers={k: v["number"] for k, v in timing.items()})
            for name, t in timing.items():
                row[f"{name}_us"] = t["min"] * 1e6
                row[f"{name}_median_us"] = t["median"] * 1e6
            if "ad" in timing:
                row["ad_floor"] = timing["ad"]["min"] / timing["floor"]["min"]
                row["ad_floor_median"] = timing["ad"]["median"] / timing["floor"]["median"]
            table.targets[(label, "ad_floor")] = TARGET
            row["met"] = "yes" if row.get("ad_floor", TARGET + 1) <= TARGET else "no"
            if problems:
                row["problems"] = problems
                for problem in problems:
                    print(f"  warning: {label}: {problem}", file=sys.stderr)
            print(f"  {label}: done", file=sys.stderr)
        return [table]


def profiled(wanted: str, variant: str) -> tuple[str, Callable[[], Any]] | None:
    """(label, callable) for `--profile a:ad` or `b:jvp` (variants: ad, plain, floor,
    jvp for b, and the optional libraries), or None if `wanted` names no row here."""
    key = wanted.lower().strip("()")
    if key not in ROWS:
        return None
    return ROWS[key], variants(key)["ad" if variant == "count" else variant]
