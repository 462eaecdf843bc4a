"""Redacting decoded JSON values: the header's fields, the fields of `note`/`eof`/`exit` records,
and records of a kind this version does not know (all their strings go). Iterative: a value is
walked with an explicit stack, at any depth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptape.share.placeholder import PLACEHOLDER
from mcptape.share.rules import TRIVIAL_VALUES
from mcptape.share.structure import schema_keys
from mcptape.transcript.events import Header

if TYPE_CHECKING:
    from mcptape.share.redact import Redactor

KNOWN_FIELD_KINDS = frozenset({"eof", "exit", "note"})


def redact_value(redactor: Redactor, obj: Any, key: str | None = None) -> Any:
    """A decoded JSON value (header fields, note fields), at any depth: under a secret key every
    string and number is replaced (inside arrays and objects too, except a JSON Schema object);
    elsewhere object keys decide, and every string is searched as free text."""
    root: list[Any] = [obj]
    # (holder, index in it, the secret key in force or None, the member name it sits under)
    todo: list[tuple[Any, Any, str | None, str | None]] = [(root, 0, None, key)]
    while todo:
        holder, slot, secret, name = todo.pop()
        item = holder[slot]
        if secret is None and name is not None and redactor.rules.is_secret_key(name):
            secret = name
        if isinstance(item, dict):
            copy = holder[slot] = dict(item)
            inner = None if secret is None or schema_keys(copy) else secret
            todo.extend((copy, k, inner, k if isinstance(k, str) else None) for k in copy)
        elif isinstance(item, list):
            elements = holder[slot] = list(item)
            todo.extend((elements, n, secret, None) for n in range(len(elements)))
        elif isinstance(item, str):
            if secret is not None and item.lower() not in TRIVIAL_VALUES and not PLACEHOLDER.fullmatch(item):
                redactor.learn(item, f"key:{secret}")
                holder[slot] = redactor.placeholder(item, f"key:{secret}")
            else:
                holder[slot] = redactor.text(item)
        elif secret is not None and isinstance(item, int | float) and not isinstance(item, bool):
            holder[slot] = redactor.placeholder(str(item), f"key:{secret}")
    return root[0]


def redact_opaque(redactor: Redactor, obj: Any) -> Any:
    """A value this version cannot interpret (a record kind it does not know): every string
    becomes a placeholder, at any depth; member names are searched as free text."""
    root: list[Any] = [obj]
    todo: list[tuple[Any, Any]] = [(root, 0)]
    while todo:
        holder, slot = todo.pop()
        item = holder[slot]
        if isinstance(item, dict):
            copy = holder[slot] = {redactor.text(k) if isinstance(k, str) else k: v for k, v in item.items()}
            todo.extend((copy, k) for k in copy)
        elif isinstance(item, list):
            elements = holder[slot] = list(item)
            todo.extend((elements, n) for n in range(len(elements)))
        elif isinstance(item, str) and item and not PLACEHOLDER.fullmatch(item):
            holder[slot] = redactor.placeholder(item, "unknown-record")
    return root[0]


def redact_fields(redactor: Redactor, ch: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields of a record that carries no bytes: a known kind (`eof`, `exit`, `note`) is
    redacted like any JSON value; a kind this version does not know has all its strings
    replaced (it may carry anything)."""
    redacted = redact_value(redactor, fields) if ch in KNOWN_FIELD_KINDS else redact_opaque(redactor, fields)
    assert isinstance(redacted, dict)
    return redacted


def redact_header(redactor: Redactor, header: Header) -> Header:
    """The header with every field redacted: argv (`--token VALUE`), cwd, the recorder's fields
    and every other field (the `redacted` field, which says how, is left for the caller)."""
    extra = {k: v for k, v in header.extra.items() if k != "redacted"}
    recorder = redact_value(redactor, dict(header.recorder))
    return Header(
        version=header.version,
        started=redactor.text(header.started),
        command=redactor.argv(header.command),
        cwd=redactor.text(header.cwd),
        recorder=recorder if isinstance(recorder, dict) else {},
        extra=redact_value(redactor, extra),
    )
