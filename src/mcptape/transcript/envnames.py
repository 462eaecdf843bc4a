"""The server's environment as a transcript header records it: every variable's *name*, and the
value only for the few variables that say how text, numbers and times are shown (`LANG`,
`LANGUAGE`, `LC_*`, `TZ`). No other value is ever written: a secret is a value, and a name
alone says nothing of it.

    "env": {"names": ["HOME", "LANG", "PATH", "TZ"], "values": {"LANG": "C.UTF-8", "TZ": "UTC"}}

`mcptape record` writes it (its server's environment before mcptape adds its own variables);
`mcptape replay` starts the new server with the recorded names (`replay.environment`). A header
without `env` (recorded before this member existed) stays readable: its replay inherits the
replayer's environment, as it always did.

Imported on the record path: no typing, no dataclasses at run time.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

HEADER_KEY = "env"
VALUE_NAMES = frozenset({"LANG", "LANGUAGE", "TZ"})  # and every LC_* (see `value_kept`)
MAX_VALUE = 200  # a longer LANG or TZ is not one: its value is not kept


def value_kept(name: str) -> bool:
    """True for the variables whose value a header records: LANG, LANGUAGE, LC_*, TZ."""
    return name in VALUE_NAMES or (name.startswith("LC_") and len(name) > 3)


def describe(env: Mapping[str, str]) -> dict[str, Any]:
    """The header member for a server started with `env`: sorted names, the allowed values."""
    values = {n: v for n, v in env.items() if value_kept(n) and len(v) <= MAX_VALUE}
    return {"names": sorted(env), "values": dict(sorted(values.items()))}


class RecordedEnv:
    """A header's `env`, checked: `names` (sorted, unique) and the recorded `values`."""

    __slots__ = ("names", "values")

    def __init__(self, names: tuple[str, ...], values: dict[str, str]) -> None:
        self.names = names
        self.values = values


def recorded_env(extra: Mapping[str, Any]) -> RecordedEnv | None:
    """The recorded environment of a header's extra members (None: the header records none).
    Raises ValueError saying what is wrong with a member that is not one `describe` writes."""
    member = extra.get(HEADER_KEY)
    if member is None:
        return None
    if type(member) is not dict:
        raise ValueError('"env" is not an object')
    names, values = member.get("names"), member.get("values", {})
    if type(names) is not list or not all(type(n) is str and n and "=" not in n for n in names):
        raise ValueError('"env"."names" is not an array of variable names')
    if type(values) is not dict or not all(type(v) is str for v in values.values()):
        raise ValueError('"env"."values" is not an object of strings')
    unknown = [n for n in values if n not in names or not value_kept(n)]
    if unknown:
        raise ValueError(f'"env"."values" holds {unknown[0]!r}, which is not a recorded LANG, LC_* or TZ')
    return RecordedEnv(tuple(sorted(set(names))), dict(values))
