"""A refusal raised where the running code swallows exceptions still ends `D`.

An event loop hands an exception raised in a callback to its exception handler
and goes on; a future the callback was to fill stays empty, and the loop would
wait for it forever. Each case runs in a fresh interpreter, so a regression shows
as a timeout, not as a suite that never ends.
"""

import subprocess
import sys
import textwrap

import pytest

CASES = {
    "call_soon": """
        loop.call_soon(lambda: fut.set_result(len(struct.pack('d', x))))
    """,
    "a future's done callback": """
        other = loop.create_future()
        other.add_done_callback(lambda _: fut.set_result(len(struct.pack('d', x))))
        other.set_result(None)
    """,
    "call_later": """
        loop.call_later(0.01, lambda: fut.set_result(len(struct.pack('d', x))))
    """,
}

PROGRAM = """
import asyncio, struct
from ad import D, NonDifferentiableError

def f(x):
    async def main():
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
{body}
        return await fut
    return asyncio.run(main()) * x

try:
    D(f, 1.5)
except NonDifferentiableError as refusal:
    print("refused:", str(refusal).split(" (called")[0])
"""


@pytest.mark.parametrize("name", CASES)
def test_a_refusal_in_an_event_loop_callback_ends_the_derivative(name, tmp_path):
    body = textwrap.indent(textwrap.dedent(CASES[name]).strip(), " " * 8)
    script = tmp_path / "program.py"
    script.write_text(PROGRAM.format(body=body))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "refused: cannot differentiate through struct.pack", \
        done.stderr[-2000:]
