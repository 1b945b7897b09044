"""Hooked operator sites: how an operator is written when a context hooks it.

`n < 2` becomes a call of a helper made for `<` and for which operands are
builtin constants (`__ovd0_op_lt_vk__(n, 2)`), so the helper can run the
operator natively on builtin operands without asking the context.
"""

from __future__ import annotations

import ast

from contexts._builders import call, name
from contexts._cells import engine_cell
from contexts._names import Hidden

# Operand types whose operators run natively where no context claims the operator.
NATIVE_OPERANDS = frozenset({int, float, complex, bool, str, bytes, type(None)})


def operator_site(function, args: list, where: ast.AST, hidden: Hidden) -> ast.Call:
    """A hooked operator site: a call of the helper made for its operator and for
    which operands are builtin constants (`n < 2` is `__ovd0_op_lt_vk__(n, 2)`)."""
    operands = "".join("k" if is_builtin_constant(a) else "v" for a in args)
    helper = name(engine_cell(hidden, f"op_{function.__name__}_{operands}"), where)
    return call(helper, args, where, native=hidden.level)


def is_builtin_constant(node: ast.expr) -> bool:
    """An operand that is a constant of a type whose operators may run natively."""
    return type(node) is ast.Constant and type(node.value) in NATIVE_OPERANDS
