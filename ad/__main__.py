"""`python -m ad TARGET --at X...`: derivatives from the shell (see `--help`).

Reads the command line, loads the user's function (`_cli_target`), computes
(`_cli_derivatives`) and prints lines, JSON (`_cli_json`) or a PNG
(`_cli_plot`). Every failure is one line on stderr and an exit status
(`_cli_failures`), listed at the end of `--help`.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn, Sequence

from ad._cli_derivatives import checked, curves, derivatives
from ad._cli_failures import INTERRUPTED, OK, USAGE_ERROR, Failure
from ad._cli_json import dumps
from ad._cli_plot import draw
from ad._cli_points import (NUMBERS, Point, attach_values, evenly_spaced, parse_interval,
                            parse_point, parse_range, parse_size)
from ad._cli_target import Target, load_target

PLOT_SAMPLES = 200

EPILOG = f"""\
points: --at takes numbers ({NUMBERS}); several values
  are several points. A point of a function of several variables is its
  arguments separated by commas (--at 1.0,2.0): --order 1 gives the gradient,
  --order 2 the Hessian. --range A:B:N is N evenly spaced points from A to B,
  both included.

--json prints one JSON document: {{"function": F, "order": N, "points": [{{"at": X,
  "derivatives": [f(X), f'(X), ...], "check": "agrees"}}]}} ("check" with --check
  only; of several variables, "derivatives" is [value, gradient, Hessian]).
  Numbers JSON cannot hold: a complex number is {{"real": a, "imag": b}}; inf,
  -inf and nan are the strings "inf", "-inf", "nan"; a Fraction is the string
  "p/q"; any other value is its repr, a string.

--plot A:B draws f and its derivatives up to --order at {PLOT_SAMPLES} points over
  [A, B] into a PNG of --size pixels (default 800x600) named by --out (default
  FUNC.png). It needs matplotlib: pip install 'cassette-py[plot]'.

A step that takes over a second says on stderr what it is computing.

exit status:
  0    success
  1    your function (or your file, while loading) raised, or --check disagrees
  2    bad command line: no such file, module or function, a point that is not a
       number, --order below 0, the wrong number of arguments, matplotlib missing
  130  interrupted (Ctrl-C)
"""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line and status 2, rather than argparse's usage block."""
        raise Failure(f"{message} (see python -m ad --help)", USAGE_ERROR)


def parser() -> Parser:
    cli = Parser(prog="python -m ad", allow_abbrev=False, epilog=EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 description="Print a function's value and derivatives at points, as "
                             "text or JSON, or plot them.")
    cli.add_argument("target", metavar="TARGET",
                     help="FILE.py:FUNC, the function FUNC of a Python file, or "
                          "package.module:FUNC, of a module importable from here")
    where = cli.add_mutually_exclusive_group(required=True)
    where.add_argument("--at", nargs="+", action="extend", metavar="X",
                       help="the points (see below)")
    where.add_argument("--range", metavar="A:B:N", help="N points from A to B")
    where.add_argument("--plot", metavar="A:B", help="plot over [A, B] into a PNG")
    cli.add_argument("--order", type=int, default=1, metavar="N",
                     help="derivatives up to order N (default 1)")
    cli.add_argument("--check", action="store_true",
                     help="compare the first derivative with a numerical derivative")
    cli.add_argument("--json", action="store_true", help="print one JSON document")
    cli.add_argument("--out", metavar="FILE", help="the PNG of --plot (default FUNC.png)")
    cli.add_argument("--size", default="800x600", metavar="WxH",
                     help="the PNG's size in pixels (default 800x600)")
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        run(parser().parse_args(attach_values(words, ["--at"], ["--range", "--plot"])))
    except Failure as failure:
        print(f"{failure.details}error: {failure}", file=sys.stderr)
        return failure.status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # `| head`: the reader has all it wants; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    return OK


def run(args: argparse.Namespace) -> None:
    """Reads every number first, so that a typo fails before the user's file runs."""
    if args.order < 0:
        raise Failure(f"--order must be 0 or more, got {args.order}", USAGE_ERROR)
    if args.plot and (args.json or args.check):
        raise Failure("--plot writes a PNG; --json and --check go with --at or --range",
                      USAGE_ERROR)
    if args.out and not args.plot:
        raise Failure("--out names the PNG of --plot; add --plot A:B", USAGE_ERROR)
    if args.plot:
        (start, stop), size = parse_interval(args.plot), parse_size(args.size)
    else:
        points = [parse_point(text) for text in args.at] if args.at else \
            parse_range(args.range)
    target = load_target(args.target)
    try:
        if args.plot:
            xs = evenly_spaced(start, stop, PLOT_SAMPLES)
            out = args.out or f"{target.name}.png"
            draw(curves(target, xs, args.order), xs,
                 f"{target.spoken_name} and its derivatives", out, size)
            print(f"wrote {out} ({size[0]}x{size[1]} px)")
        else:
            report(target, points, args.order, args.check, args.json)
    except Failure as failure:
        raise Failure(target.speak(str(failure)), failure.status,
                      target.speak(failure.details)) from None


def report(target: Target, points: list[Point], order: int, with_check: bool,
           as_json: bool) -> None:
    """Lines as they are computed, or one JSON document at the end."""
    if with_check and any(len(point.values) != 1 for point in points):
        raise Failure("--check compares derivatives of functions of one variable; give "
                      "points of one number", USAGE_ERROR)
    results = []
    for point in points:
        values = []
        for label, value in derivatives(target, point, order):
            if not as_json:
                print(f"{label} = {value}", flush=True)
            values.append(value)
        result = {"at": point.values[0] if len(point.values) == 1 else point.values,
                  "derivatives": values}
        if with_check:
            agreed = checked(target, point)
            if not as_json:
                print(f"check: {target.name}'({point.text}) = {agreed!r} agrees with a "
                      "numerical derivative", flush=True)
            result["check"] = "agrees"
        results.append(result)
    if as_json:
        print(dumps({"function": target.spoken_name, "order": order, "points": results}))


if __name__ == "__main__":
    sys.exit(main())
