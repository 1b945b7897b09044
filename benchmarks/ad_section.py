"""The `ad` sections of the benchmark run: derivatives with `D` against dual numbers.

`run.py` calls `register(run_module)` once its helpers exist; the sections then
run after the tagging sections. Workloads and the dual classes live in
`ad_workloads.py` (a real file: the engine needs their source).

Speed: each workload's derivative is taken, in one process and interleaved,
by `ad.D` (a fresh `D(f, x)` per call, as users call it), a minimal
`__slots__` dual class, a tagged nestable dual class (as in ForwardDiff),
`mpmath.diff`, and JAX, torch.func and autograd when they happen to be
importable (never required). Before timing, every variant's derivative is
checked against `D`'s (to 1e-9 relative); a variant that fails is reported and
left out, and a failing `D` is reported with the rest still timed.

First call: `D` on a fresh copy of W1, written to a new module file and
imported, transform included. Figures are reported, never asserted.
"""

from __future__ import annotations

import gc
import importlib.util
import inspect
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import mpmath

import ad_workloads as aw
from ad import D

RTOL = 1e-9
TARGETS = {"W1": ("d_dual", 1.5), "W2": ("d_dual", 1.5), "W3": ("d_tagged", 3.0),
           "W4": ("d_dual", 4.0)}
FIRST_CALL_TARGET_MS = 20.0
COLD_X = 0.7


# Optional libraries: used only if importable -----------------------------------------------

def _optional() -> dict[str, Callable[[Callable, float, int], Callable[[], Any]]]:
    """name -> make(w, x, order): a callable giving the order-th derivative of w at x."""
    found = {}
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)

        def jax_make(w, x, order):
            def first(t):
                return jax.jvp(lambda s: w(s, jnp), (t,), (jnp.ones_like(t),))[1]
            x0 = jnp.asarray(x, dtype=jnp.float64)
            if order == 1:
                return lambda: float(first(x0))
            return lambda: float(jax.jvp(first, (x0,), (jnp.ones_like(x0),))[1])

        found["jax"] = jax_make
    except Exception:  # noqa: BLE001  (absent or broken: no column)
        pass
    try:
        import torch
        import torch.func

        def torch_make(w, x, order):
            def first(t):
                return torch.func.jvp(lambda s: w(s, torch), (t,), (torch.ones_like(t),))[1]
            x0 = torch.tensor(x, dtype=torch.float64)
            if order == 1:
                return lambda: float(first(x0))
            return lambda: float(torch.func.jvp(first, (x0,), (torch.ones_like(x0),))[1])

        found["torch"] = torch_make
    except Exception:  # noqa: BLE001
        pass
    try:
        import autograd
        import autograd.numpy as anp

        def autograd_make(w, x, order):  # reverse mode: grad, nested for order 2
            g = autograd.grad(lambda s: w(s, anp))
            if order == 2:
                g = autograd.grad(g)
            return lambda: float(g(x))

        found["autograd"] = autograd_make
    except Exception:  # noqa: BLE001
        pass
    return found


OPTIONAL = _optional()


# Workloads and variants --------------------------------------------------------------------

def ad_workloads() -> dict[str, tuple]:
    """label -> (workload, point, order of the derivative)."""
    return {
        "W1: scalar loop (200 iters, sin, cos, **, /)": (aw.w1, 0.7, 1),
        "W2: Horner, degree 500": (aw.w2, 0.5, 1),
        "W3: second derivative of W1, nested": (aw.w1, 0.7, 2),
        "W4: object loop (attributes, global, list, sum)": (aw.w4, 0.7, 1),
    }


def variants(label: str) -> dict[str, Callable[[], Any]]:
    """The timed callables of one workload; every one but `plain` gives the derivative."""
    w, x, order = ad_workloads()[label]
    out: dict[str, Callable[[], Any]] = {"plain": lambda: w(x)}
    if order == 1:
        out["dual"] = lambda: aw.dual_derivative(w, x)
        out["tagged"] = lambda: aw.tagged_derivative(w, x)
        out["D"] = lambda: D(w, x)
        out["mpmath"] = lambda: float(mpmath.diff(lambda t: w(t, mpmath), x))
    else:  # the plain dual class cannot nest: no baseline from it
        out["tagged"] = lambda: aw.tagged_second(w, x)
        out["D"] = lambda: D(D(w), x)
        out["mpmath"] = lambda: float(mpmath.diff(lambda t: w(t, mpmath), x, 2))
    for name, make in OPTIONAL.items():
        out[name] = make(w, x, order)
    return out


def check(label: str, timed: dict[str, Callable]) -> tuple[list[str], list[str]]:
    """Drop the variants whose derivative differs from D's; (problems, dropped names).

    If D itself fails, the tagged dual is the reference and D is dropped."""
    problems, dropped = [], []
    results: dict[str, Any] = {}
    for name, fn in timed.items():
        if name == "plain":
            continue
        try:
            results[name] = fn()
        except Exception as error:  # noqa: BLE001  (reported, the run goes on)
            problems.append(f"{name} raised {type(error).__name__}: {error}")
            if name == "D":
                traceback.print_exc()
            dropped.append(name)
    reference = results.get("D", results.get("tagged"))
    for name, value in results.items():
        ok = (isinstance(value, float) and isinstance(reference, float)
              and math.isclose(value, reference, rel_tol=RTOL))
        if not ok:
            problems.append(f"{name} gave {value!r}, D gave {reference!r}")
            dropped.append(name)
    return problems, dropped


# Sections ----------------------------------------------------------------------------------

def register(run: ModuleType) -> None:
    """Add the ad sections to `run.SECTIONS` (after those already there)."""
    Table, compare = run.Table, run.compare

    @run.section
    def ad_speed(settings) -> list:
        optional = list(OPTIONAL)
        table = Table(
            "ad", "ad: derivatives, D against dual numbers (min-of-N time per call, µs)",
            [("plain_us", "plain (µs)", "{:.1f}"),
             ("dual_us", "dual class", "{:.1f}"),
             ("tagged_us", "tagged dual", "{:.1f}"),
             ("D_us", "D", "{:.1f}"),
             ("mpmath_us", "mpmath.diff", "{:.0f}")]
            + [(f"{name}_us", name, "{:.0f}") for name in optional]
            + [("d_dual", "D / dual class", "{:.2f}x"),
               ("d_tagged", "D / tagged dual", "{:.2f}x"),
               ("met", "target met", "{}")],
            notes=("Time per call of the derivative of each workload at one point, all "
                   "variants timed interleaved in the same rounds. *plain*: the workload "
                   "itself on a float (no derivative); *dual class*: a minimal `__slots__` "
                   "dual number (value, tangent) with its own `sin`/`cos`; *tagged dual*: a "
                   "dual number with a tag per derivative, nestable as in ForwardDiff; "
                   "*D*: a fresh `ad.D(f, x)` per call (W3: `D(D(w1), x)`), running the "
                   "same source on plain `math`; *mpmath.diff*: numerical differentiation "
                   "at raised precision (the workload on `mpmath` functions). JAX eager "
                   "`jax.jvp`, `torch.func.jvp` and autograd get a column when importable. "
                   "Targets: D at most 1.5x the dual class on W1 and W2, 4x on W4, and at "
                   "most 3x the tagged dual on W3. Every variant's derivative is checked "
                   "against D's (relative 1e-9) before timing."))
        for label, (w, x, order) in ad_workloads().items():
            timed = variants(label)
            problems, dropped = check(label, timed)
            for name in dropped:
                timed.pop(name, None)
            timing = compare(timed, settings)
            short = label.split(":")[0]
            row = table.add(label, numbers={k: v["number"] for k, v in timing.items()})
            for name, t in timing.items():
                row[f"{name}_us"] = t["min"] * 1e6
                row[f"{name}_median_us"] = t["median"] * 1e6
            if "D" in timing:
                for base, key in (("dual", "d_dual"), ("tagged", "d_tagged")):
                    if base in timing:
                        row[key] = timing["D"]["min"] / timing[base]["min"]
                        row[key + "_median"] = timing["D"]["median"] / timing[base]["median"]
            key, limit = TARGETS[short]
            table.targets[(label, key)] = limit
            row["met"] = "yes" if row.get(key) is not None and row[key] <= limit else "no"
            if problems:
                row["problems"] = problems
                for problem in problems:
                    print(f"  warning: {label}: {problem}", file=sys.stderr)
            print(f"  {label}: done", file=sys.stderr)
        return [table]

    @run.section
    def ad_first_call(settings) -> list:
        table = Table(
            "ad_cold", "ad: first D of a fresh copy of W1 (ms, median)",
            [("first_ms", "first D", "{:.2f}"),
             ("second_ms", "second D", "{:.3f}"),
             ("transform_ms", "first − second", "{:.2f}"),
             ("spread_ms", "first: min–max", "{}"),
             ("plain_ms", "plain call", "{:.3f}")],
            notes=("Each trial writes W1's source, renamed and with a unique constant, to "
                   "its own module file, imports it and times the first "
                   f"`D(f, {COLD_X})`: a fresh differentiation context, source reading and "
                   "parsing, the transform, compiling and one run. *first − second* "
                   "estimates the one-off cost. `D` is warmed up beforehand on another "
                   f"function. Median over {settings.cold_trials - 1} trials (one more "
                   "trial is a discarded warm-up)."))
        label = "D(w1 copy, x), transform included"
        table.targets[(label, "first_ms")] = FIRST_CALL_TARGET_MS
        D(aw.w2, 0.5)
        folder = Path(tempfile.mkdtemp(prefix="bench_ad_cold_"))
        first, second, plain, problems = [], [], [], []
        dont_write = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        try:
            for trial in range(settings.cold_trials):
                f = fresh_w1(folder, trial)
                gc.collect()
                clock = time.perf_counter
                try:
                    t0 = clock()
                    d1 = D(f, COLD_X)
                    t1 = clock()
                    D(f, COLD_X)
                    t2 = clock()
                except Exception as error:  # noqa: BLE001
                    traceback.print_exc()
                    problems.append(f"trial {trial}: D raised {type(error).__name__}: "
                                    f"{error}")
                    break
                f(COLD_X)
                t3 = clock()
                expected = aw.dual_derivative(f, COLD_X)
                if not math.isclose(d1, expected, rel_tol=RTOL):
                    problems.append(f"trial {trial}: D gave {d1!r}, the dual class "
                                    f"{expected!r}")
                if trial == 0:
                    continue  # warm-up trial
                first.append(t1 - t0)
                second.append(t2 - t1)
                plain.append(t3 - t2)
        finally:
            sys.dont_write_bytecode = dont_write
            shutil.rmtree(folder, ignore_errors=True)
        if first:
            def med(values: list) -> float:
                return statistics.median(values) * 1e3

            row = table.add(label, first_ms=med(first), second_ms=med(second),
                            transform_ms=med([a - b for a, b in zip(first, second)]),
                            spread_ms=f"{min(first) * 1e3:.2f}–{max(first) * 1e3:.2f}",
                            plain_ms=med(plain), trials=len(first))
        else:
            row = table.add(label)
        if problems:
            row["problems"] = problems
            for problem in problems:
                print(f"  warning: ad first call: {problem}", file=sys.stderr)
        print("  ad first-call trials: done", file=sys.stderr)
        return [table]


def fresh_w1(folder: Path, trial: int) -> Callable:
    """A new module file holding W1's source under a new name, with a unique constant."""
    name = f"w1_copy{trial}"
    module_name = f"bench_ad_cold_{trial}_{os.getpid()}"
    source = inspect.getsource(aw.w1)
    assert source.count("0.01") == 1, "W1's step constant must appear once"
    source = source.replace("def w1(", f"def {name}(").replace(
        "0.01", repr(0.01 + (trial + 1) * 1e-7))
    path = folder / f"{module_name}.py"
    path.write_text("import math\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)
