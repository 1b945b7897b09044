"""The derivative rules, one table per module of the functions they cover."""

from ad._rules import (builtins, cmath, math, methods, mpmath, operator,  # noqa: F401 (fill RULES)
                       statistics)
from ad._rules._table import RULES, Constant, Jvp, Model, Refused, User, rule_of, set_rule
from ad._rules.builtins import ATTRIBUTES, METHODS, method

__all__ = ["RULES", "ATTRIBUTES", "METHODS", "method", "Constant", "Jvp", "Model",
           "Refused", "User", "rule_of", "set_rule"]
