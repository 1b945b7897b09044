"""Newton's method for a minimum, with nested derivatives: x -= f'(x) / f''(x).

`D(f)` is the derivative function and `D(D(f))` the second derivative, both
computed by `ad` from the code of `f`; nothing is derived by hand. For
f(x) = e^x + e^(-2x) the minimiser is known in closed form, ln(2)/3, to compare
with. Newton converges quadratically: the number of correct digits doubles at
each step.
"""

import math

from ad import D


def f(x):
    return math.exp(x) + math.exp(-2 * x)


def minimise(f, x, tolerance=1e-12, max_steps=50):
    """Newton's iterates towards a stationary point of `f`, starting from `x`."""
    df, d2f = D(f), D(D(f))
    iterates = [x]
    for _ in range(max_steps):
        step = df(x) / d2f(x)
        x -= step
        iterates.append(x)
        if abs(step) < tolerance:
            break
    if d2f(x) <= 0:
        raise ArithmeticError(f"Newton's method found a stationary point at {x} that is not a minimum")
    return iterates


def main():
    iterates = minimise(f, 2.0)
    for n, x in enumerate(iterates):
        print(f"x{n} = {x:.15f}   f'(x) = {D(f, x):+.3e}")
    print(f"minimiser {iterates[-1]:.15f}, ln(2)/3 = {math.log(2) / 3:.15f}")
    print(f"f'' there = {D(D(f))(iterates[-1]):.12f} > 0: a minimum")


if __name__ == "__main__":
    main()

# Output:
# x0 = 2.000000000000000   f'(x) = +7.352e+00
# x1 = 1.014726499687379   f'(x) = +2.496e+00
# x2 = 0.254795644183006   f'(x) = +8.872e-02
# x3 = 0.230774002721319   f'(x) = -1.040e-03
# x4 = 0.231049022347942   f'(x) = -1.430e-07
# x5 = 0.231049060186648   f'(x) = -2.665e-15
# x6 = 0.231049060186648   f'(x) = +0.000e+00
# minimiser 0.231049060186648, ln(2)/3 = 0.231049060186648
# f'' there = 3.779763149685 > 0: a minimum
