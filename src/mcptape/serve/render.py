"""The bytes serve writes for a recorded line, and the short texts it shows about requests.

A recorded line is played as its recorded bytes whenever nothing in it changes; it is written anew
(compact JSON) only when the new client's id or a carried value differs. Every text shown on a
terminal goes through `textsafe`.
"""

from __future__ import annotations

from typing import Any

import orjson

from mcptape.check.model import Kind, Message, RequestId
from mcptape.jsonsafe import dumps as deep_dumps
from mcptape.serve.carry import Carry, apply
from mcptape.textsafe import escape_text

SHORT = 60


def same_id(a: Any, b: Any) -> bool:
    """JSON-RPC ids are equal only with the same type (`1` is not `"1"`, nor `1.0`)."""
    return type(a) is type(b) and a == b


def dumps(value: Any) -> bytes:
    """Compact JSON, any depth (orjson stops at 255 levels)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return deep_dumps(value).encode("utf-8", "backslashreplace")  # "\\ud800" stays that escape


def render(msg: Message, rid: RequestId | None, carry: Carry, *, exact: bool) -> tuple[bytes, Any]:
    """The line to write for a recorded server line, and its JSON value (None for noise): the new
    client's id put in a response, carried values put back, else the recorded bytes."""
    raw = msg.frame.raw
    value = msg.value
    if msg.kind is Kind.NON_PROTOCOL or type(value) is not dict:
        return raw, value
    changed = False
    if rid is not None and not same_id(rid, value.get("id")):
        value = {**value, "id": rid}
        changed = True
    value, carried = apply(value, carry)
    if not changed and not carried:
        return (raw if raw.endswith(b"\n") or exact else raw + b"\n"), value
    return dumps(value) + b"\n", value


def error_line(rid: RequestId | None, code: int, message: str) -> bytes:
    """A JSON-RPC error response (id null when the request had no usable id)."""
    return dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}) + b"\n"


def short(value: Any, limit: int = SHORT) -> str:
    """A JSON value as a short, terminal-safe text."""
    try:
        text = dumps(value).decode("utf-8")
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return escape_text(text)


def describe(method: str | None, params: Any) -> str:
    """`tools/call get_current_time {"timezone":"UTC"}`, `tools/list`: a request in one line."""
    head = escape_text(method or "?")
    if type(params) is dict:
        name = params.get("name")
        if method == "tools/call" and type(name) is str:
            return f"{head} {escape_text(name)} {short(params.get('arguments', {}))}"
        shown = {k: v for k, v in params.items() if k != "_meta"}
        if shown:
            return f"{head} {short(shown)}"
    return head
