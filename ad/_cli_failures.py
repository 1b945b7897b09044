"""How `python -m ad` fails: one line that says what went wrong, and a status.

A misuse of the command line is one line and nothing else. An exception
raised by the user's own code also keeps its traceback, cut down to the
user's frames: the frames of ad, tagging and contexts in between say nothing
to the user about their code.
"""

from __future__ import annotations

import traceback

from ad._errors import in_library

OK, USER_ERROR, USAGE_ERROR, INTERRUPTED = 0, 1, 2, 130


class Failure(Exception):
    """A one-line error, the exit status that goes with it, and what to print
    above the line (the user's traceback), if anything."""

    def __init__(self, message: str, status: int, details: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.details = details


def raised_in_user_code(error: BaseException, doing: str) -> Failure:
    """The failure for `error`, raised while `doing` ("f'(1.0)", "loading f.py"):
    the user's frames of its traceback, then `<doing> raised <error>`."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if not in_library(frame.filename) and not frame.filename.startswith("<frozen")]
    details = ""
    if frames:
        details = "".join(["Traceback (most recent call last):\n",
                           *traceback.format_list(frames),
                           *traceback.format_exception_only(type(error), error)])
    return Failure(f"{doing} raised {one_line(error)}", USER_ERROR, details)


def one_line(error: BaseException) -> str:
    """`ZeroDivisionError: division by zero`: the type and the first line of the message."""
    lines = str(error).strip().splitlines()
    if not lines:
        return type(error).__name__
    first = lines[0][:-1] + "." if len(lines) > 1 and lines[0].endswith(":") else lines[0]
    return f"{type(error).__name__}: {first}"
