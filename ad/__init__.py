"""Forward-mode automatic differentiation of ordinary Python, built on `tagging`.

`D(f, x)` runs `f` unchanged in a fresh differentiation context: the heap and
all outside code see plain numbers, tangents ride beside them, nested
derivatives never confuse their perturbations, and a derivative that would be
lost raises `NonDifferentiableError` instead of turning silently into zero.
"""

from ad._api import D, gradient, hessian, jacobian, jvp
from ad._check import check
from ad._errors import NonDifferentiableError
from ad._user_rules import rule, rules, unrule

__all__ = ["D", "jvp", "gradient", "jacobian", "hessian", "rule", "rules", "unrule",
           "check", "NonDifferentiableError"]
