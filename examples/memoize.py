"""Memoisation: a primitive for `fib` caches its results, a posthook counts calls.

`@primitive(fib)` makes every call of `fib` inside the context go to
`memo_fib`, which runs the real body (`recurse`) only the first time it meets
an argument. The recursive calls inside that body come back to `memo_fib`, so
`fib(30)` runs 31 bodies instead of 2,692,537.
"""

from dataclasses import dataclass, field

from contexts import Context, overdub, primitive, recurse


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@dataclass
class Memo:
    table: dict = field(default_factory=dict)  # n -> fib(n)
    calls: int = 0  # calls of fib seen by the posthook


class MemoCtx(Context):
    @primitive(fib)
    def memo_fib(self, n):
        table = self.metadata.table
        if n not in table:
            table[n] = recurse(self, fib, n)
        return table[n]

    def posthook(self, output, f, *args, **kwargs):
        if f is fib:
            self.metadata.calls += 1


def memo_fib(n):
    """`(fib(n), memo)`, computed in a `MemoCtx`."""
    memo = Memo()
    return overdub(MemoCtx(metadata=memo), fib, n), memo


def main():
    value, memo = memo_fib(30)
    print(value)
    print(len(memo.table), "bodies run")
    print(memo.calls, "calls of fib seen")
    print(sorted(memo.table.items())[:8])


if __name__ == "__main__":
    main()

# Output:
# 832040
# 31 bodies run
# 58 calls of fib seen
# [(0, 0), (1, 1), (2, 1), (3, 2), (4, 3), (5, 5), (6, 8), (7, 13)]
