"""Titles and values on one terminal-safe line: what the replay and diff reports name things by.

Every byte that comes from a transcript is shown through `textsafe`.
"""

from __future__ import annotations

from typing import Any

from mcptape.check.model import ExecCall, Message
from mcptape.diff.compare import MISSING
from mcptape.diff.sessions import EXECUTOR, NOTIFICATION, RESPONSE, Pair
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape_json, escape_text

VALUE_LIMIT = 200


def show_value(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A JSON value on one terminal-safe line (`(absent)` for a path missing on one side)."""
    if value is MISSING:
        return "(absent)"
    # any depth (jsonsafe); a JSON literal already escapes quotes, backslashes and C0 controls
    text = dumps(value, sort_keys=True, default=repr)
    if len(text) > limit:
        text = text[:limit] + f"...(+{len(text) - limit} chars)"
    return escape_json(text)


def line_of(item: Message | ExecCall | None) -> str:
    """`out line 3`: where a message is, in its channel."""
    if item is None:
        return ""
    frame = item.frame
    return f"{frame.channel} line {frame.line}"


def key_title(kind: str, scope: str, key: tuple[Any, ...]) -> str:
    """What an aligned key names: `response to tools/call (id 3)`, `notification ... #2`, ..."""
    scope = escape_text(scope)
    if kind == RESPONSE:
        return f"response to {scope} (id {escape_text(repr(key[1]))})"
    if kind == NOTIFICATION:
        return f"notification {scope} #{key[2]}"
    if kind == EXECUTOR:
        rid = key[2]
        who = f"request {escape_text(repr(rid))}" if rid is not None else "no request"
        return f"{scope} call #{key[3]} for {who}"
    return f"server request {scope} #{key[2]}"


def source_title(scope: str, key: tuple[Any, ...]) -> str:
    """The title of the message a minted value came from (its key says its kind)."""
    kind = RESPONSE if key and key[0] == "id" else str(key[0])
    return key_title(kind, scope, key)


def pair_title(pair: Pair) -> str:
    """`response to tools/call (id 3) [old out line 3, new out line 3]`, ..."""
    title = key_title(pair.kind, pair.scope, pair.key)
    where = [
        w
        for w in (
            line_of(pair.old) and f"old {line_of(pair.old)}",
            line_of(pair.new) and f"new {line_of(pair.new)}",
        )
        if w
    ]
    return f"{title} [{', '.join(where)}]" if where else title


def value_of(item: Message | ExecCall | None) -> Any:
    """The JSON value of a message or executor line (its text when the line is not JSON)."""
    if item is None:
        return MISSING
    if isinstance(item, ExecCall) and item.value is None:
        return item.frame.body.decode("utf-8", "replace")
    return item.value
