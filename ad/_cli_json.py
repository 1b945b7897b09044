"""`--json`: the results as one JSON document, with every number in a form JSON holds.

JSON has no complex numbers, fractions or infinities, and Python's `json`
would write the invalid tokens `Infinity` and `NaN`. So: a finite float or an
int is a JSON number; `inf`, `-inf` and `nan` are the strings "inf", "-inf",
"nan" (what `float()` reads back); a complex number is {"real": ..., "imag":
...}; a Fraction is the string "p/q" (what `--at` and `Fraction()` read);
lists and tuples are arrays, dicts objects; anything else (an mpmath number,
an object with numeric fields) is its `repr`, a string.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any


def dumps(document: Any) -> str:
    return json.dumps(jsonable(document), allow_nan=False)


def jsonable(value: Any) -> Any:
    """`value` with every number in the form described above."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, complex):
        return {"real": jsonable(value.real), "imag": jsonable(value.imag)}
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    return repr(value)
