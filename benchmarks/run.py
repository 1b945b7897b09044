"""Speed of the library as ratios to plain Python, measured in one process.

    python benchmarks/run.py            # full run (about 60 s), writes results
    python benchmarks/run.py --quick    # fewer repetitions, for a smoke check
    python benchmarks/run.py --only numpy          # one section (printed, not written)
    python benchmarks/run.py --profile fib:count   # cProfile one workload/variant
    python benchmarks/run.py --profile w1:D        # ... also the ad workloads
    python benchmarks/run.py --profile black:D     # ... the real ones (rk4, perceptron,
                                                   #     black, rosenbrock)
    python benchmarks/run.py --profile smooth:D3   # ... and one nesting level (D1..D4,
                                                   #     tagged1..tagged4)
    python benchmarks/run.py --profile b:jvp       # ... and the NumPy rows: a, b (variants:
                                                   #     ad, jvp, plain, floor)

The run is a list of sections (`SECTIONS`); each is a function of the
`Settings` returning `Table`s, so later layers (tagging, AD) add a function and
register it with `@section`. Every table is printed, saved to
`benchmarks/results.json` and written into `benchmarks/README.md` between the
results markers. Timings are reported, never asserted.

Method: every variant of a workload is warmed up (which also triggers the
transform), then timed in batches of `number` calls sized to about
`batch_seconds`; the batches of all variants are interleaved, the order rotated
each round, for `reps` rounds. The figure for a variant is the minimum over
rounds of the time per call (min-of-N: the least disturbed run); the medians
are kept in results.json too. Ratios divide by plain Python's figure from the
same rounds. The garbage collector stays on, as in real use.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import importlib.util
import json
import os
import platform
import pstats
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import workloads  # noqa: E402  (a real file: the engine needs source)
from contexts import Context, overdub, primitive  # noqa: E402

RESULTS = HERE / "results.json"
README = HERE / "README.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"


# Settings, tables and the section registry --------------------------------------------

class Settings:
    def __init__(self, quick: bool) -> None:
        self.reps = 5 if quick else 21           # interleaved rounds per workload
        self.batch_seconds = 0.01 if quick else 0.03  # target length of one timed batch
        self.cold_trials = 5 if quick else 11    # fresh functions for first-call timing
        self.quick = quick


class Table:
    """One printed/saved table: rows of named cells, with targets on some cells.

    `columns` is a list of (key, header, format); a cell formats with
    `format.format(value)`. `targets` maps (row label, column key) to the
    largest value the design aims for.
    """

    def __init__(self, key: str, title: str, columns: list, notes: str = "") -> None:
        self.key, self.title, self.columns, self.notes = key, title, columns, notes
        self.rows: list[dict] = []
        self.targets: dict[tuple, float] = {}

    def add(self, label: str, **cells: Any) -> dict:
        row = {"label": label, **cells}
        self.rows.append(row)
        return row

    def cell(self, row: dict, key: str, fmt: str) -> str:
        value = row.get(key)
        if value is None:
            return "-"
        text = fmt.format(value)
        limit = self.targets.get((row["label"], key))
        if limit is not None:
            text += f" (target ≤ {limit:g}{'x' if fmt.endswith('x') else ''})"
        return text

    def grid(self) -> list[list[str]]:
        header = ["workload"] + [h for _, h, _ in self.columns]
        body = [[row["label"]] + [self.cell(row, k, f) for k, _, f in self.columns]
                for row in self.rows]
        return [header] + body

    def text(self) -> str:
        grid = self.grid()
        widths = [max(len(r[i]) for r in grid) for i in range(len(grid[0]))]
        lines = [f"== {self.title}"]
        for n, r in enumerate(grid):
            lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))))
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def markdown(self) -> str:
        grid = self.grid()
        out = [f"#### {self.title}", ""]
        if self.notes:
            out += [self.notes, ""]
        out.append("| " + " | ".join(grid[0]) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(grid[0]) - 1)) + "|")
        out += ["| " + " | ".join(r) + " |" for r in grid[1:]]
        return "\n".join(out)

    def target_report(self) -> list[dict]:
        rows = {row["label"]: row for row in self.rows}
        report = []
        for (label, key), limit in self.targets.items():
            value = rows.get(label, {}).get(key)
            header = next(h for k, h, _ in self.columns if k == key)
            report.append({"table": self.key, "workload": label, "column": header,
                           "value": value, "target": limit,
                           "met": value is not None and value <= limit})
        return report

    def as_json(self) -> dict:
        return {"title": self.title, "notes": self.notes, "rows": self.rows,
                "targets": self.target_report()}


SECTIONS: list[Callable[[Settings], list[Table]]] = []


def section(function: Callable[[Settings], list[Table]]) -> Callable:
    """Register a section: a function of the settings returning tables."""
    SECTIONS.append(function)
    return function


# Timing --------------------------------------------------------------------------------

def _per_call(fn: Callable[[], Any], number: int) -> float:
    clock = time.perf_counter
    start = clock()
    for _ in range(number):
        fn()
    return (clock() - start) / number


def _calibrate(fn: Callable[[], Any], batch_seconds: float) -> int:
    """How many calls make a batch of about `batch_seconds` (at least one)."""
    number, spent = 1, 0.0
    while True:
        spent = _per_call(fn, number) * number
        if spent >= batch_seconds / 4 or number >= 1 << 20:
            break
        number *= 4
    return max(1, round(number * batch_seconds / max(spent, 1e-9)))


def compare(variants: dict[str, Callable[[], Any]], settings: Settings) -> dict[str, dict]:
    """Time every variant, interleaved; per-call seconds as min and median over rounds."""
    for fn in variants.values():  # warm-up: transforms, caches, branch predictors
        fn()
        fn()
    numbers = {name: _calibrate(fn, settings.batch_seconds) for name, fn in variants.items()}
    samples: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for rnd in range(settings.reps):
        order = names[rnd % len(names):] + names[:rnd % len(names)]
        for name in order:
            samples[name].append(_per_call(variants[name], numbers[name]))
    return {name: {"min": min(s), "median": statistics.median(s), "number": numbers[name]}
            for name, s in samples.items()}


# Section: contexts -----------------------------------------------------------------------

class ResolveCtx(Context):
    """Transforms code (it has a primitive) but calls no hooks: the resolve-mode path."""

    @primitive(workloads.unrelated)
    def unrelated(self, x):
        return x


class CountCtx(Context):
    """Counts every call made inside: the cheapest hooked context."""

    def prehook(self, f, *args, **kwargs):
        self.metadata[0] += 1


def context_workloads() -> dict[str, tuple]:
    """label -> (function, args, kwargs)."""
    return {
        "scalar loop (200 iters, math)": (workloads.scalar_loop, (200,), {}),
        "fib(20)": (workloads.fib, (20,), {}),
        "statistics.mean (200 floats)": (statistics.mean, (workloads.floats(200),), {}),
        "textwrap.fill (paragraph)": (textwrap.fill, (workloads.PARAGRAPH,), {}),
        "json.dumps (nested, indent=2)": (json.dumps, (workloads.nested_document(),),
                                          {"indent": 2}),
        "Fraction sum (50)": (workloads.fraction_sum, (workloads.fractions(50),), {}),
    }


def context_variants(f: Callable, args: tuple, kwargs: dict) -> tuple[dict, CountCtx]:
    """The timed callables (plain and one per context), and the counting context."""
    empty, resolve, count = Context(), ResolveCtx(), CountCtx(metadata=[0])
    variants = {
        "plain": lambda: f(*args, **kwargs),
        "empty": lambda: overdub(empty, f, *args, **kwargs),
        "resolve": lambda: overdub(resolve, f, *args, **kwargs),
        "count": lambda: overdub(count, f, *args, **kwargs),
    }
    if f is workloads.fib:  # the same hook calls with no engine, to compare "count" with
        by_hand = CountCtx(metadata=[0]).prehook
        variants["by_hand"] = lambda: workloads.fib_calling_hooks(*args, by_hand)
    return variants, count


CONTEXT_TARGETS = {
    ("scalar loop (200 iters, math)", "empty"): 1.5,
    ("fib(20)", "empty"): 2.0,
    ("fib(20)", "count"): 10.0,
}


@section
def contexts_overhead(settings: Settings) -> list[Table]:
    table = Table(
        "contexts", "contexts: overdub vs plain calls (ratio of min-of-N time per call)",
        [("plain_us", "plain (µs)", "{:.1f}"),
         ("empty", "empty Context()", "{:.2f}x"),
         ("resolve", "resolve-mode", "{:.2f}x"),
         ("count", "counting prehook", "{:.2f}x"),
         ("by_hand", "the prehook called by hand", "{:.2f}x"),
         ("hooks", "hooked calls / run", "{:d}")],
        notes=("Each row runs one workload; columns are the time per call of "
               "`overdub(ctx, f, ...)` divided by the time of `f(...)`. "
               "*empty*: `Context()`, which intercepts nothing; *resolve-mode*: a context "
               "with one `@primitive` for a function the workload never calls (code is "
               "transformed, calls resolve through the context, no hooks run); "
               "*counting prehook*: `prehook` increments `metadata[0]`. "
               "*hooked calls / run*: how many calls the counting prehook saw per run. "
               "*the prehook called by hand*: `fib` written to call the same prehook "
               "itself before each of its calls and operators (`fib_calling_hooks`), no "
               "engine: what calling the hook costs. The engine pastes a simple hook's "
               "body into its call helpers instead of calling it, so it can beat this."))
    table.targets.update(CONTEXT_TARGETS)
    for label, (f, args, kwargs) in context_workloads().items():
        variants, count_ctx = context_variants(f, args, kwargs)
        expected = f(*args, **kwargs)
        mismatched = [name for name, fn in variants.items() if fn() != expected]
        before = count_ctx.metadata[0]
        variants["count"]()
        hooks = count_ctx.metadata[0] - before
        timing = compare(variants, settings)
        base = timing["plain"]
        row = table.add(label, plain_us=base["min"] * 1e6, hooks=hooks,
                        plain_median_us=base["median"] * 1e6,
                        numbers={k: v["number"] for k, v in timing.items()})
        for name in ("empty", "resolve", "count", "by_hand"):
            if name not in timing:
                continue
            row[name] = timing[name]["min"] / base["min"]
            row[name + "_median"] = timing[name]["median"] / base["median"]
        if mismatched:
            row["mismatched"] = mismatched
            print(f"  warning: {label}: {', '.join(mismatched)} gave a different result "
                  "from plain", file=sys.stderr)
        print(f"  {label}: done", file=sys.stderr)
    return [table]


@section
def contexts_first_call(settings: Settings) -> list[Table]:
    """Cold cost: first overdub of a freshly defined 50-line function."""
    table = Table(
        "contexts_cold", "contexts: first call of a fresh 50-line function (ms, median)",
        [("first_ms", "first overdub", "{:.2f}"),
         ("second_ms", "second overdub", "{:.3f}"),
         ("transform_ms", "first − second", "{:.2f}"),
         ("spread_ms", "first: min–max", "{}"),
         ("plain_ms", "plain call", "{:.3f}")],
        notes=("Each trial writes a new 50-line function (unique name and constants) to "
               "its own module file, imports it, and times the first "
               "`overdub(ctx, f, 0.3, 0.7)`: source reading and parsing, the transform, "
               "compiling, binding, and one run. *first − second* estimates the one-off "
               "cost. The context instance is warmed up beforehand, so its own set-up is "
               f"not counted. Median over {settings.cold_trials - 1} trials (one more "
               "trial is a discarded warm-up)."))
    table.targets[("counting prehook", "first_ms")] = 5.0
    contexts_by_label = {"counting prehook": CountCtx(metadata=[0]),
                         "resolve-mode": ResolveCtx()}
    for ctx in contexts_by_label.values():
        overdub(ctx, workloads.scalar_loop, 3)
    folder = Path(tempfile.mkdtemp(prefix="bench_cold_"))
    results: dict[str, dict[str, list]] = {
        label: {"first": [], "second": [], "plain": []} for label in contexts_by_label}
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        for trial in range(settings.cold_trials):
            for n, (label, ctx) in enumerate(contexts_by_label.items()):
                f = _fresh_function(folder, f"trial{trial}_{n}", seed=trial * 7 + n)
                gc.collect()
                clock = time.perf_counter
                t0 = clock()
                first = overdub(ctx, f, 0.3, 0.7)
                t1 = clock()
                overdub(ctx, f, 0.3, 0.7)
                t2 = clock()
                plain = f(0.3, 0.7)
                t3 = clock()
                if first != plain:
                    print(f"  warning: cold trial {trial} ({label}) differs from plain",
                          file=sys.stderr)
                if trial == 0:
                    continue  # warm-up trial
                results[label]["first"].append(t1 - t0)
                results[label]["second"].append(t2 - t1)
                results[label]["plain"].append(t3 - t2)
    finally:
        sys.dont_write_bytecode = dont_write
        shutil.rmtree(folder, ignore_errors=True)
    for label, r in results.items():
        med = {k: statistics.median(v) * 1e3 for k, v in r.items()}
        table.add(label, first_ms=med["first"], second_ms=med["second"],
                  transform_ms=statistics.median(
                      (a - b) * 1e3 for a, b in zip(r["first"], r["second"])),
                  spread_ms=f"{min(r['first']) * 1e3:.2f}–{max(r['first']) * 1e3:.2f}",
                  plain_ms=med["plain"], trials=len(r["first"]))
    print("  first-call trials: done", file=sys.stderr)
    return [table]


def _fresh_function(folder: Path, tag: str, seed: int) -> Callable:
    name = f"work_{tag}"
    module_name = f"bench_cold_{tag}_{os.getpid()}"
    path = folder / f"{module_name}.py"
    path.write_text(workloads.fifty_line_source(name, seed))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


# Section: tagging (benchmarks/tagging_section.py) ------------------------------------------

import tagging_section  # noqa: E402

tagging_section.register(sys.modules[__name__])


# Section: ad (benchmarks/ad_section.py) -----------------------------------------------------

import ad_section  # noqa: E402

ad_section.register(sys.modules[__name__])


# Section: ad on NumPy (benchmarks/numpy_section.py) -----------------------------------------

if importlib.util.find_spec("numpy") is not None:  # numpy is an optional extra
    import numpy_section  # noqa: E402

    numpy_section.register(sys.modules[__name__])
else:
    numpy_section = None


# Output ----------------------------------------------------------------------------------

def write_outputs(tables: list[Table], meta: dict) -> None:
    data = {"meta": meta, "tables": {t.key: t.as_json() for t in tables}}
    RESULTS.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    block = "\n\n".join(
        [f"Measured {meta['date']} on Python {meta['python']} ({meta['platform']}), "
         f"{meta['reps']} rounds, whole run {meta['seconds']:.0f} s."]
        + [t.markdown() for t in tables]) + "\n"
    text = README.read_text() if README.exists() else f"# Benchmarks\n\n{START}\n{END}\n"
    if START not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n## Results\n\n{START}\n{END}\n"
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    README.write_text(f"{head}{START}\n{block}{END}{tail}")


def profile(spec: str) -> None:
    """cProfile one workload under one variant, e.g. `fib:count`, `crazy:reused`, `w1:D`."""
    wanted, _, variant = spec.partition(":")
    variant = variant or "count"
    found = {label: w for label, w in context_workloads().items()
             if label.lower().startswith(wanted.lower())}
    tagged = {label: f for label, f in tagging_section.tagging_workloads().items()
              if label.lower().startswith(wanted.lower())}
    derived = [label for label in ad_section.ad_workloads()
               if label.lower().startswith(wanted.lower())]
    real = [label for label in ad_section.real_workloads()
            if label.lower().startswith(wanted.lower())]
    arrays = numpy_section and numpy_section.profiled(wanted, variant)
    if arrays is not None:  # e.g. a:ad, b:jvp
        (label, fn), variant = arrays, "ad" if variant == "count" else variant
    elif found:
        label, (f, args, kwargs) = next(iter(found.items()))
        fn = context_variants(f, args, kwargs)[0][variant]
    elif tagged:  # e.g. crazy:reused, object:fresh, object:no_tagging
        label, f = next(iter(tagged.items()))
        variant = "reused" if variant == "count" else variant
        fn = tagging_section.variants(f)[variant]
    elif derived:  # e.g. w1:D, w3:tagged, w4:dual
        label = derived[0]
        variant = "D" if variant == "count" else variant
        fn = ad_section.variants(label)[variant]
    elif real:  # e.g. black:D, rk4:tagged, rosenbrock:D
        label = real[0]
        variant = "D" if variant == "count" else variant
        fn = ad_section.real_variants(label)[variant]
    elif "smooth".startswith(wanted.lower()):  # nesting: smooth:D3, smooth:tagged2
        label = "smooth"
        variant = "D2" if variant == "count" else variant
        fn = ad_section.nesting_variants()[variant]
    else:
        have = [*context_workloads(), *tagging_section.tagging_workloads(),
                *ad_section.ad_workloads(), *ad_section.real_workloads(), "smooth",
                *(numpy_section.ROWS if numpy_section else ())]
        sys.exit(f"no workload starting with {wanted!r}; have: {have}")
    fn()
    runs = _calibrate(fn, 0.5)  # about half a second unprofiled: enough to see µs
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        fn()
    profiler.disable()
    print(f"cProfile: {label} under {variant}, {runs} runs")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke check)")
    parser.add_argument("--only", metavar="SECTION",
                        help="run only the sections whose name contains SECTION (e.g. "
                             "numpy); prints, writes nothing")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; do not write results.json or README.md")
    parser.add_argument("--profile", metavar="WORKLOAD:VARIANT",
                        help="cProfile a workload (e.g. fib:count, crazy:reused, w1:D) "
                             "and exit")
    options = parser.parse_args(argv)
    if options.profile:
        profile(options.profile)
        return
    settings = Settings(options.quick)
    started = time.perf_counter()
    tables: list[Table] = []
    chosen = [run for run in SECTIONS if options.only is None or options.only in run.__name__]
    if not chosen:
        sys.exit(f"no section named like {options.only!r}; have: "
                 f"{[run.__name__ for run in SECTIONS]}")
    for run_section in chosen:
        new = run_section(settings)
        for table in new:
            print(table.text(), flush=True)
            print()
        tables.extend(new)
    seconds = time.perf_counter() - started
    targets = [t for table in tables for t in table.target_report()]
    for t in targets:
        value = "-" if t["value"] is None else f"{t['value']:.2f}"
        print(f"target {t['workload']} / {t['column']}: {value} (≤ {t['target']:g}) "
              f"{'met' if t['met'] else 'NOT met'}")
    print(f"\nwhole run: {seconds:.1f} s")
    meta = {"date": datetime.date.today().isoformat(),
            "python": platform.python_version(), "platform": platform.platform(),
            "reps": settings.reps, "batch_seconds": settings.batch_seconds,
            "quick": settings.quick, "seconds": round(seconds, 1), "statistic": "min"}
    if not (options.no_write or options.only):
        write_outputs(tables, meta)
        print(f"wrote {RESULTS.relative_to(HERE.parent)} and "
              f"{README.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
