"""Println slicing by dispatch: take the `print` calls out of a run, for later.

A primitive for `print` does not print: it extends a callback held in the
context's metadata, so that calling the callback afterwards replays, in
order, everything the run would have printed.
"""

from dataclasses import dataclass
from typing import Callable

from contexts import Context, overdub, primitive


@dataclass
class Callback:
    f: Callable


class SliceCtx(Context):
    @primitive(print)
    def sliced_print(self, *args, **kwargs):
        previous = self.metadata.f

        def callback():
            previous()
            print(*args, **kwargs)

        self.metadata.f = callback


def add(a, b):
    print(f"I'm about to add {a} + {b}")
    c = a + b
    print(f"c = {c}")
    return c


def main():
    ctx = SliceCtx(metadata=Callback(lambda: None))
    c = overdub(ctx, add, 0.25, 0.5)
    print("result:", c)
    ctx.metadata.f()


if __name__ == "__main__":
    main()

# Output:
# result: 0.75
# I'm about to add 0.25 + 0.5
# c = 0.75
