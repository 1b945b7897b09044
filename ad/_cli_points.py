"""The numbers of the command line: points (`--at`), ranges (`--range`), intervals
(`--plot`) and sizes (`--size`), each parsed into Python numbers, or refused with
a line that shows the spellings accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from ad._cli_failures import USAGE_ERROR, Failure

NUMBERS = "1, -0.5, 1e-3, -inf, 1+2j, 1/3"


@dataclass(frozen=True)
class Point:
    """A point as the user wrote it (the label of its lines) and its numbers:
    one, or one per argument of a function of several variables."""

    text: str
    values: tuple


def parse_number(text: str) -> Any:
    """An int if it looks like one, else a float, a complex, or a fraction p/q;
    `None` if it is none of them."""
    text = text.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    for kind in (float, complex, Fraction):
        try:
            return kind(text)
        except (ValueError, ZeroDivisionError):
            pass
    return None


def parse_point(text: str) -> Point:
    """`1.5` (one variable) or `1.0,2.0` (one number per argument)."""
    parts = [part.strip() for part in text.split(",")]
    values = tuple(parse_number(part) for part in parts)
    if None in values:
        raise Failure(f"--at needs a number ({NUMBERS}; x,y for a function of several "
                      f"variables), got {text!r}", USAGE_ERROR)
    return Point(", ".join(parts), values)


def parse_range(text: str) -> list[Point]:
    """`a:b:n`: n evenly spaced floats from a to b, both included."""
    parts = text.split(":")
    if len(parts) == 3 and re.fullmatch(r"\s*\d+\s*", parts[2]) and int(parts[2]) >= 2:
        (start, stop) = _real_ends(parts[:2], "--range", text)
        return [Point(repr(x), (x,)) for x in evenly_spaced(start, stop, int(parts[2]))]
    raise Failure(f"--range needs A:B:N, N points from A to B with N of 2 or more "
                  f"(--range 0:1:5), got {text!r}", USAGE_ERROR)


def evenly_spaced(start: Fraction, stop: Fraction, count: int) -> list[float]:
    """`count` floats from start to stop, both included, each rounded once."""
    return [float(start + (stop - start) * Fraction(i, count - 1)) for i in range(count)]


def parse_interval(text: str) -> tuple[Fraction, Fraction]:
    """`a:b` with a < b, for `--plot`."""
    parts = text.split(":")
    if len(parts) == 2:
        start, stop = _real_ends(parts, "--plot", text)
        if start < stop:
            return start, stop
    raise Failure(f"--plot needs an interval A:B with A < B (--plot -1:2), got {text!r}",
                  USAGE_ERROR)


def parse_size(text: str) -> tuple[int, int]:
    """`800x600`: width and height in pixels."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if match and all(16 <= int(side) <= 10000 for side in match.groups()):
        return int(match[1]), int(match[2])
    raise Failure(f"--size needs WIDTHxHEIGHT in pixels, each from 16 to 10000 "
                  f"(--size 800x600), got {text!r}", USAGE_ERROR)


def _real_ends(texts: Sequence[str], option: str, text: str) -> tuple[Fraction, Fraction]:
    """The two ends of a range, exactly (so that the points between are rounded once)."""
    ends = [parse_number(end) for end in texts]
    if any(isinstance(end, complex) or end is None for end in ends) or \
            any(end != end or end in (float("inf"), float("-inf")) for end in ends):
        raise Failure(f"{option} needs two finite real numbers, got {text!r}", USAGE_ERROR)
    return Fraction(ends[0]), Fraction(ends[1])


def attach_values(argv: Sequence[str], many: Sequence[str], one: Sequence[str]) -> list[str]:
    """`--at -1e-3 2` as `--at=-1e-3 --at=2`, `--range -1:1:5` as `--range=-1:1:5`.

    argparse takes a word that starts with '-' for an option unless it is a plain
    negative int or decimal, so `-1e-3`, `-inf` and `-1+2j` would be refused with
    "expected one argument". Joined to its option with '=', a value is a value.
    An option of `many` takes the words after it up to the next option (a word
    starting with '-' that is not a point); an option of `one` takes one word.
    """
    words: list[str] = []
    taking, taken = None, 0  # the option whose values come next, how many it has
    for word in argv:
        if taking in one or taking in many and (not word.startswith("-") or _is_point(word)):
            words.append(f"{taking}={word}")
            taking, taken = (taking, taken + 1) if taking in many else (None, 0)
            continue
        if taking is not None and taken == 0:
            words.append(taking)  # an option without a value: argparse says so
        taking, taken = (word, 0) if word in (*many, *one) else (None, 0)
        if taking is None:
            words.append(word)
    if taking is not None and taken == 0:
        words.append(taking)
    return words


def _is_point(word: str) -> bool:
    return all(parse_number(part) is not None for part in word.split(","))
