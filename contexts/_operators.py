"""The operators: one table of what each is called in the AST, in `operator`, in
Python source and in the data model. Lowering, the written-out operator helpers
and the dispatch of user dunders all read it.
"""

from __future__ import annotations

import ast
import operator

# (AST operator, function, in-place function, symbol, method, reflected method)
_BINARY_ROWS = [
    (ast.Add, operator.add, operator.iadd, "+", "__add__", "__radd__"),
    (ast.Sub, operator.sub, operator.isub, "-", "__sub__", "__rsub__"),
    (ast.Mult, operator.mul, operator.imul, "*", "__mul__", "__rmul__"),
    (ast.MatMult, operator.matmul, operator.imatmul, "@", "__matmul__", "__rmatmul__"),
    (ast.Div, operator.truediv, operator.itruediv, "/", "__truediv__", "__rtruediv__"),
    (ast.FloorDiv, operator.floordiv, operator.ifloordiv, "//", "__floordiv__",
     "__rfloordiv__"),
    (ast.Mod, operator.mod, operator.imod, "%", "__mod__", "__rmod__"),
    (ast.Pow, operator.pow, operator.ipow, "**", "__pow__", "__rpow__"),
    (ast.LShift, operator.lshift, operator.ilshift, "<<", "__lshift__", "__rlshift__"),
    (ast.RShift, operator.rshift, operator.irshift, ">>", "__rshift__", "__rrshift__"),
    (ast.BitOr, operator.or_, operator.ior, "|", "__or__", "__ror__"),
    (ast.BitXor, operator.xor, operator.ixor, "^", "__xor__", "__rxor__"),
    (ast.BitAnd, operator.and_, operator.iand, "&", "__and__", "__rand__"),
]
# (AST operator, function, symbol, method, reflected method); `is` has no method
_COMPARE_ROWS = [
    (ast.Eq, operator.eq, "==", "__eq__", "__eq__"),
    (ast.NotEq, operator.ne, "!=", "__ne__", "__ne__"),
    (ast.Lt, operator.lt, "<", "__lt__", "__gt__"),
    (ast.LtE, operator.le, "<=", "__le__", "__ge__"),
    (ast.Gt, operator.gt, ">", "__gt__", "__lt__"),
    (ast.GtE, operator.ge, ">=", "__ge__", "__le__"),
    (ast.Is, operator.is_, "is", None, None),
    (ast.IsNot, operator.is_not, "is not", None, None),
]
# (AST operator, function, symbol written before the operand, method)
_UNARY_ROWS = [
    (ast.USub, operator.neg, "-", "__neg__"),
    (ast.UAdd, operator.pos, "+", "__pos__"),
    (ast.Invert, operator.invert, "~", "__invert__"),
    (ast.Not, operator.not_, "not ", None),
]

# AST operator -> function
BINARY = {node: function for node, function, *_ in _BINARY_ROWS}
INPLACE = {node: inplace for node, _, inplace, *_ in _BINARY_ROWS}
COMPARE = {node: function for node, function, *_ in _COMPARE_ROWS}
UNARY = {node: function for node, function, *_ in _UNARY_ROWS}

# function -> how it is written in source
SYMBOLS = {**{function: symbol for _, function, _, symbol, *_ in _BINARY_ROWS},
           **{function: symbol for _, function, symbol, *_ in _COMPARE_ROWS}}
INPLACE_SYMBOLS = {inplace: symbol + "=" for _, _, inplace, symbol, *_ in _BINARY_ROWS}
UNARY_SYMBOLS = {function: symbol for _, function, symbol, _ in _UNARY_ROWS}

# function -> the data model: (method, reflected method) and, in place, (method, binary)
BINARY_METHODS = {function: (method, reflected)
                  for _, function, _, _, method, reflected in _BINARY_ROWS}
INPLACE_METHODS = {inplace: ("__i" + method[2:], function)
                   for _, function, inplace, _, method, _ in _BINARY_ROWS}
COMPARE_METHODS = {function: (method, reflected)
                   for _, function, _, method, reflected in _COMPARE_ROWS if method}
# operators that call one method of their first operand and return what it returns
DIRECT_METHODS = {
    **{function: method for _, function, _, method in _UNARY_ROWS if method},
    operator.getitem: "__getitem__", operator.setitem: "__setitem__",
    operator.delitem: "__delitem__", operator.contains: "__contains__",
}

OPERATOR_FUNCTIONS = frozenset(
    [*BINARY.values(), *INPLACE.values(), *UNARY.values(), *COMPARE.values(),
     operator.contains, operator.getitem, operator.setitem, operator.delitem])
