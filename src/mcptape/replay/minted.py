"""The new session's values in a replayed HTTP request's body (pure): where the new server minted
them (`Sources`, the new session aligned as the diff aligns it), a minted value put in place of the
recorded one (`substitute`), and the new server's id in an answer to its request (`with_id`)."""

from __future__ import annotations

from typing import Any

import orjson

from mcptape.check.model import Message, RequestId
from mcptape.diff.minted import Use, get
from mcptape.diff.sessions import Side

Key = tuple[Any, ...]


class Sources(Side):
    """The new session aligned as the diff aligns it, keeping the messages at the keys where the
    recorded server minted a value its client sent back."""

    def __init__(self, wanted: set[Key]) -> None:
        super().__init__()
        self.wanted = wanted
        self.values: dict[Key, Any] = {}

    def add(self, key: Key, kind: str, scope: str, item: Any) -> None:
        if key in self.wanted and isinstance(item, Message) and key not in self.values:
            self.values[key] = item.value


def substitute(body: bytes, use: Use, new: str) -> tuple[bytes, bool]:
    """`body` with the recorded value made `new`: the JSON string's bytes where they stand, else the
    body written again with the value at its path."""
    old = orjson.dumps(use.value)
    if old in body:
        return body.replace(old, orjson.dumps(new)), False
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body, False
    target = get(value, use.path[:-1]) if use.path else None
    last = use.path[-1] if use.path else None
    in_object = isinstance(target, dict) and isinstance(last, str) and last in target
    in_array = isinstance(target, list) and isinstance(last, int) and 0 <= last < len(target)
    if not (in_object or in_array):
        return body, False
    target[last] = new  # type: ignore[index]
    return orjson.dumps(value), True


def with_id(body: bytes, old: RequestId, new: RequestId) -> bytes:
    """An answer's body with the new server's request id (members in their recorded order)."""
    if old == new:
        return body
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if type(value) is dict and value.get("id") == old:
        return orjson.dumps({k: (new if k == "id" else v) for k, v in value.items()})
    return body
