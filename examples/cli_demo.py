"""A function for the command line: `python -m ad examples/cli_demo.py:f --at 1.0 --order 2`.

f(x) = x^2 sin(x) + e^(x/2), so f'(x) = 2x sin(x) + x^2 cos(x) + e^(x/2)/2 and
f''(x) = (2 - x^2) sin(x) + 4x cos(x) + e^(x/2)/4. Running this file prints them
from these formulas, for comparison with what `python -m ad` finds by itself.
"""

import math


def f(x):
    return x * x * math.sin(x) + math.exp(x / 2)


def main():
    x = 1.0
    print(f"f(1.0) = {f(x)}")
    print(f"by hand: f'(1.0) = {2 * x * math.sin(x) + x * x * math.cos(x) + math.exp(x / 2) / 2}")
    print(f"by hand: f''(1.0) = {(2 - x * x) * math.sin(x) + 4 * x * math.cos(x) + math.exp(x / 2) / 4}")


if __name__ == "__main__":
    main()

# Output:
# f(1.0) = 2.490192255508025
# by hand: f'(1.0) = 3.047604910833997
# by hand: f''(1.0) = 3.414860525955488
