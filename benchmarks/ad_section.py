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

Real code (issue 20): RK4, a perceptron, Black-Scholes' delta (the fixed cost
of one `D` call) and a Rosenbrock Hessian, under `D` against the tagged dual;
the k-th derivative by nesting, k = 1..4, with each level's multiplier; and
`python -m ad --order 6` in a fresh interpreter.

First call: `D` on a fresh copy of W1, written to a new module file and
imported, transform included. Figures are reported, never asserted.
"""

from __future__ import annotations

import copy
import gc
import importlib.util
import inspect
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import mpmath

import ad_workloads as aw
from ad import D, hessian

RTOL = 1e-9
TARGETS = {"W1": ("d_dual", 1.5), "W2": ("d_dual", 1.5), "W3": ("d_tagged", 3.0),
           "W4": ("d_dual", 4.0)}
FIRST_CALL_TARGET_MS = 20.0
COLD_X = 0.7
REPOSITORY = Path(__file__).resolve().parent.parent
REAL_TARGETS = {"RK4": ("d_tagged", 3.0), "perceptron": ("d_tagged", 3.0),
                "Black-Scholes": ("d_minus_tagged", 20.0),
                "Rosenbrock": ("d_tagged", 3.0)}
NESTING_TARGET = 1.5     # D's multiplier per level, over the tagged dual's
NESTING_ORDERS = range(1, 5)
NESTING_X = 0.7
HEAVY_ROUNDS = 7         # rounds for the real and nesting tables: D takes up to seconds
CLI_ORDER, CLI_TARGET_S = 6, 1.0
CLI_COMMAND = [sys.executable, "-m", "ad", "examples/cli_demo.py:f", "--at", "1.0"]


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
        out["tagged"] = lambda: aw.tagged_nth(w, x, 2)
        out["D"] = lambda: D(D(w), x)
        out["mpmath"] = lambda: float(mpmath.diff(lambda t: w(t, mpmath), x, 2))
    for name, make in OPTIONAL.items():
        out[name] = make(w, x, order)
    return out


def real_workloads() -> dict[str, tuple]:
    """label -> (workload, point, `D` or `hessian`): the real code of issue 20."""
    return {
        "RK4: 50 steps, list state over zip, d/d rate": (aw.rk4, 0.8, D),
        "perceptron: 4-8-1, tanh, 8 samples, d/d weight scale": (aw.perceptron, 0.9, D),
        "Black-Scholes delta: one small D call": (aw.black_scholes, 105.0, D),
        "Rosenbrock Hessian, n = 8 (ad.hessian)":
            (aw.rosenbrock, [0.5 + 0.1 * i for i in range(8)], hessian),
    }


def real_variants(label: str) -> dict[str, Callable[[], Any]]:
    """plain, the tagged dual and D (or `ad.hessian` and the tagged dual's nested Hessian)."""
    w, x, by = real_workloads()[label]
    tagged = aw.tagged_hessian if by is hessian else aw.tagged_derivative
    return {"plain": lambda: w(x), "tagged": lambda: tagged(w, x), "D": lambda: by(w, x)}


def nesting_variants() -> dict[str, Callable[[], Any]]:
    """The k-th derivative of `aw.smooth` by nesting, k in NESTING_ORDERS: `D{k}` nests
    `D` (`D(D(smooth))(x)` for k = 2), `tagged{k}` nests the tagged dual; and `plain`."""
    out: dict[str, Callable[[], Any]] = {"plain": lambda: aw.smooth(NESTING_X)}
    for k in NESTING_ORDERS:
        g = aw.smooth
        for _ in range(k - 1):
            g = D(g)
        out[f"tagged{k}"] = lambda k=k: aw.tagged_nth(aw.smooth, NESTING_X, k)
        out[f"D{k}"] = lambda g=g: D(g, NESTING_X)
    return out


def _close(a: Any, b: Any) -> bool:
    """Floats equal to RTOL, item by item through lists."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=RTOL)


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
        if not _close(value, reference):
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
            _report(row, label, problems)
        return [table]

    @run.section
    def ad_real(settings) -> list:
        table = Table(
            "ad_real", "ad: real code, D against the tagged dual (min-of-N time per call, µs)",
            [("plain_us", "plain (µs)", "{:.1f}"),
             ("tagged_us", "tagged dual", "{:.1f}"),
             ("D_us", "D", "{:.1f}"),
             ("d_tagged", "D / tagged dual", "{:.2f}x"),
             ("d_minus_tagged", "D − tagged dual (µs)", "{:.1f}"),
             ("d_plain", "D / plain", "{:.0f}x"),
             ("met", "target met", "{}")],
            notes=("Issue 20's workloads, each written once (`ad_workloads.py`) and run on "
                   "plain floats, under `D` (a fresh `D(f, x)` per call) and on the tagged "
                   "dual (`TDual`, the nesting dual of W3, with its own `sin`, `exp`, `log`, "
                   "`sqrt`, `tanh`, `erf`). The Hessian row is `ad.hessian` against the "
                   "tagged dual's Hessian done the same way: the jacobian of the gradient, "
                   "n outer passes each nesting n inner ones (the dual seeds one item per "
                   "pass and leaves the others plain; `ad` tags all n). Targets: D at most "
                   "3x the tagged dual on RK4, the perceptron and the Hessian; on "
                   "Black-Scholes, a small function called once per `D`, D at most 20 µs "
                   "above the tagged dual (the fixed cost of a `D` call). "
                   f"{HEAVY_ROUNDS} rounds, as D takes up to seconds per call. Every "
                   "variant's result is checked against D's (relative 1e-9) before timing."))
        timed_settings = _fewer_rounds(settings)
        for label in real_workloads():
            timed = real_variants(label)
            problems, dropped = check(label, timed)
            for name in dropped:
                timed.pop(name, None)
            timing = compare(timed, timed_settings)
            row = table.add(label, numbers={k: v["number"] for k, v in timing.items()})
            for name, t in timing.items():
                row[f"{name}_us"] = t["min"] * 1e6
                row[f"{name}_median_us"] = t["median"] * 1e6
            if "D" in timing and "tagged" in timing:
                row["d_tagged"] = timing["D"]["min"] / timing["tagged"]["min"]
                row["d_minus_tagged"] = (timing["D"]["min"] - timing["tagged"]["min"]) * 1e6
                if real_workloads()[label][2] is D:  # a Hessian is no multiple of one call
                    row["d_plain"] = timing["D"]["min"] / timing["plain"]["min"]
            key, limit = next(v for k, v in REAL_TARGETS.items() if label.startswith(k))
            table.targets[(label, key)] = limit
            row["met"] = "yes" if row.get(key) is not None and row[key] <= limit else "no"
            _report(row, label, problems)
        return [table]

    @run.section
    def ad_nesting(settings) -> list:
        table = Table(
            "ad_nesting",
            "ad: k-th derivative by nesting, D against the tagged dual (min-of-N, µs)",
            [("tagged_us", "tagged dual", "{:.1f}"),
             ("D_us", "D", "{:.1f}"),
             ("d_tagged", "D / tagged dual", "{:.1f}x"),
             ("tagged_level", "tagged dual: × per level", "{:.2f}x"),
             ("D_level", "D: × per level", "{:.2f}x"),
             ("level_ratio", "D's × / tagged's ×", "{:.2f}x"),
             ("met", "target met", "{}")],
            notes=("The k-th derivative of `smooth` (5 terms of `sin(i x) exp(-0.1 i x) / "
                   f"i`) at {NESTING_X}, by nesting: `D(D(...D(smooth)))` and the tagged "
                   "dual nested k times, each level with its own tag. All eight variants "
                   f"(and plain) are timed interleaved in the same {HEAVY_ROUNDS} rounds. "
                   "*× per level*: time(k) / time(k − 1) of the same column; the last row "
                   "is the geometric mean of the three levels, (time(4) / time(1))^(1/3), "
                   "steadier than one level's figure on a busy machine. Target: each "
                   "level multiplies D's time by at most 1.5x the factor it multiplies the "
                   "tagged dual's. Each D(k) is checked against the tagged dual's (relative "
                   "1e-9) before timing."))
        timed = nesting_variants()
        problems = []
        for k in NESTING_ORDERS:
            pair = {"D": timed[f"D{k}"], "tagged": timed[f"tagged{k}"]}
            found, dropped = check(f"k = {k}", pair)
            problems += [f"k = {k}: {p}" for p in found]
            for name in dropped:
                timed.pop(f"{name}{k}", None)
        timing = compare(timed, _fewer_rounds(settings))
        plain = timing["plain"]["min"]
        for k in NESTING_ORDERS:
            label = f"k = {k}"
            row = table.add(label, plain_us=plain * 1e6)
            for name in ("tagged", "D"):
                t = timing.get(f"{name}{k}")
                before = timing.get(f"{name}{k - 1}")
                if t is None:
                    continue
                row[f"{name}_us"] = t["min"] * 1e6
                row[f"{name}_median_us"] = t["median"] * 1e6
                if before is not None:
                    row[f"{name}_level"] = t["min"] / before["min"]
            if "D_us" in row and "tagged_us" in row:
                row["d_tagged"] = row["D_us"] / row["tagged_us"]
            if "D_level" in row and "tagged_level" in row:
                row["level_ratio"] = row["D_level"] / row["tagged_level"]
            if k > 1:
                table.targets[(label, "level_ratio")] = NESTING_TARGET
                met = row.get("level_ratio") is not None and row["level_ratio"] <= NESTING_TARGET
                row["met"] = "yes" if met else "no"
        first, last = NESTING_ORDERS[0], NESTING_ORDERS[-1]
        row = table.add(f"per level, k = {first} → {last} (geometric mean)")
        for name in ("tagged", "D"):
            if f"{name}{first}" in timing and f"{name}{last}" in timing:
                row[f"{name}_level"] = (timing[f"{name}{last}"]["min"] / timing[
                    f"{name}{first}"]["min"]) ** (1 / (last - first))
        if "D_level" in row and "tagged_level" in row:
            row["level_ratio"] = row["D_level"] / row["tagged_level"]
        _report(table.rows[0], "nesting", problems)
        return [table]

    @run.section
    def ad_cli(settings) -> list:
        timeout = 5 if settings.quick else 30
        table = Table(
            "ad_cli", "ad: `python -m ad` on the README's demo (wall time, s)",
            [("seconds", "wall time (s)", "{:.2f}"),
             ("status", "status", "{}")],
            notes=("One run of `python -m ad examples/cli_demo.py:f --at 1.0 --order N` in "
                   "a fresh interpreter: start-up, imports and N nested `D`s. Order 0 is the "
                   "floor (start-up and `import ad`, no derivative). Target (issue 20): order "
                   f"{CLI_ORDER} in under {CLI_TARGET_S:g} s. A run is stopped after "
                   f"{timeout} s."))
        for order in (0, CLI_ORDER):
            label = f"--order {order}" + (" (start-up and imports)" if order == 0 else "")
            started = time.perf_counter()
            try:
                done = subprocess.run(CLI_COMMAND + ["--order", str(order)], timeout=timeout,
                                      cwd=REPOSITORY, capture_output=True, text=True)
            except subprocess.TimeoutExpired:
                table.add(label, status=f"stopped after {timeout} s")
            else:
                seconds = time.perf_counter() - started
                status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
                table.add(label, seconds=seconds, status=status)
            if order == CLI_ORDER:
                table.targets[(label, "seconds")] = CLI_TARGET_S
        print("  ad command line: done", file=sys.stderr)
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


def _fewer_rounds(settings: Any) -> Any:
    """The settings with at most HEAVY_ROUNDS rounds (D's nested runs take seconds)."""
    fewer = copy.copy(settings)
    fewer.reps = min(settings.reps, HEAVY_ROUNDS)
    return fewer


def _report(row: dict, label: str, problems: list[str]) -> None:
    """Keep a row's problems in its results and print them; then say the row is done."""
    if problems:
        row["problems"] = problems
        for problem in problems:
            print(f"  warning: {label}: {problem}", file=sys.stderr)
    print(f"  {label}: done", file=sys.stderr)


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
