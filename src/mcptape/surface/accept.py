"""Reviewed changes (`tools diff --accept FILE`): a change a person has read does not fail the gate.

The file is JSON: the `--json` output of `tools diff` itself (its `changes`, pruned to the ones
reviewed), or `{"accepted": [...]}`, or a bare array. Each entry names a change by `kind` (default
`tool`), `tool` (the definition's name or URI; `name` works too) and `path` (the JSON pointer of the
change in the definition, `""` for the whole definition); with `after` (the sha256 of the new
definition, as `--json` gives it) it accepts that exact new definition only, so a later rewrite of
the same description is not accepted by an old review.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from mcptape.errors import MCPTapeError
from mcptape.surface.lockfile import read_bytes
from mcptape.surface.model import Change
from mcptape.textsafe import escape_controls


class AcceptError(MCPTapeError):
    """An --accept file mcptape cannot read."""


class Accepted(NamedTuple):
    kind: str
    name: str
    path: str
    after: str | None


def read_accepted(path: str | os.PathLike[str]) -> list[Accepted]:
    """The reviewed changes of an --accept file (AcceptError, exit 2, for a file that is not one)."""
    name = escape_controls(str(path))
    try:
        document = orjson.loads(read_bytes(Path(path)))
    except orjson.JSONDecodeError as exc:
        raise AcceptError(f"--accept {name} is not JSON: {exc}") from None
    entries: Any = document
    if type(document) is dict:
        entries = document.get("accepted", document.get("changes"))
    if type(entries) is not list:
        raise AcceptError(
            f"--accept {name} holds no list of changes",
            hint='give the --json output of tools diff, or {"accepted": [{"tool": ..., "path": ...}]}',
        )
    found: list[Accepted] = []
    for position, entry in enumerate(entries):
        tool = entry.get("tool", entry.get("name")) if type(entry) is dict else None
        where = entry.get("path", "") if type(entry) is dict else None
        kind = entry.get("kind", "tool") if type(entry) is dict else None
        after = entry.get("after") if type(entry) is dict else None
        if type(tool) is not str or type(where) is not str or type(kind) is not str:
            raise AcceptError(f"--accept {name}: entry {position} has no string tool and path")
        found.append(Accepted(kind, tool, where, after if type(after) is str else None))
    return found


def is_accepted(change: Change, accepted: Iterable[Accepted]) -> bool:
    """Does a reviewed entry name this change (and, when it says, this new definition)?"""
    return any(
        a.kind == change.kind
        and a.name == change.name
        and a.path == change.path
        and (a.after is None or a.after == change.after)
        for a in accepted
    )
