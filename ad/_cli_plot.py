"""`--plot A:B`: f and its derivatives drawn into a PNG of a stated size.

matplotlib is an optional dependency (the `[plot]` extra), so it is imported
when a plot is asked for, and its absence is a one-line message saying how to
install it. The figure is drawn with the Agg canvas, without pyplot: no
window, no global state, the same picture with or without a display.
"""

from __future__ import annotations

from typing import Sequence

from ad._cli_failures import USAGE_ERROR, Failure

DPI = 100


def draw(curves: dict[str, Sequence[float]], xs: Sequence[float], title: str,
         out: str, size: tuple[int, int]) -> None:
    """One curve per label over `xs`, into the PNG `out` of `size` pixels."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise Failure("--plot needs matplotlib: pip install 'cassette-py[plot]'",
                      USAGE_ERROR) from None
    width, height = size
    figure = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    axes = figure.add_subplot()
    for label, ys in curves.items():
        axes.plot(xs, ys, label=label)
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_title(title)
    axes.set_xlabel("x")
    axes.legend()
    axes.grid(True, alpha=0.3)
    try:
        FigureCanvasAgg(figure).print_png(out)
    except OSError as error:
        raise Failure(f"cannot write {out}: {error.strerror or error}; give --out a path in "
                      "a folder you can write to", USAGE_ERROR) from None
