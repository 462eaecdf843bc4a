"""Schema violations a server's validator may read losslessly: a number written as a string.

A model often quotes a number (`"max_count": "5"` where the inputSchema says `integer`). The
official Python SDK validates tool arguments with pydantic in lax mode, which reads `"5"` as `5`
(and TypeScript servers often use `z.coerce.number()`), so the tool runs with the value the model
meant. The specification asks servers to "Validate all tool inputs" (server/tools, Security
Considerations); it does not ask them to refuse a value their validation converts without loss. So
a call whose every violation is such a string, and whose arguments fit the schema once those
strings are read as numbers (`"50"` against `maximum: 10` does not), answered as a success, is not
the server's fault: `read_numbers` gives those arguments, or None.

Only numbers are read this way: a string that spells an integer where `integer` is declared, or a
decimal number where `number` is. Booleans are not (`z.coerce.boolean()` reads `"false"` as true),
nor is anything else.
"""

from __future__ import annotations

import copy
import re
from typing import Any

_INTEGER = re.compile(r"[-+]?[0-9]+")
_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_BRANCHES = ("anyOf", "oneOf")


def read_numbers(arguments: Any, errors: list[Any]) -> Any | None:
    """`arguments` with every string a violation in `errors` (a jsonschema validator's) is about
    read as the number it spells; None when some violation is not such a string."""
    if not errors or not all(_lax(error) for error in errors):
        return None
    read = copy.deepcopy(arguments)
    for error in errors:
        path = list(error.absolute_path)
        if not path:
            return None
        parent = read
        for step in path[:-1]:
            parent = parent[step]
        text = parent[path[-1]]
        parent[path[-1]] = int(text) if _INTEGER.fullmatch(text) else float(text)
    return read


def _lax(error: Any) -> bool:
    if error.validator == "type":
        return _spells(error.instance, error.validator_value)
    if error.validator in _BRANCHES:  # Optional[int]: anyOf [{type: integer}, {type: null}]
        branches: dict[Any, list[Any]] = {}
        for sub in error.context or ():
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        return any(all(_lax(sub) for sub in subs) for subs in branches.values())
    return False


_LONGEST = 64  # characters: a quoted number a model writes; a longer one is not read (int() limits)


def _spells(instance: Any, declared: Any) -> bool:
    if type(instance) is not str or len(instance) > _LONGEST:
        return False
    types = [declared] if isinstance(declared, str) else declared
    if not isinstance(types, list):
        return False
    if "integer" in types and _INTEGER.fullmatch(instance):
        return True
    return "number" in types and _NUMBER.fullmatch(instance) is not None
