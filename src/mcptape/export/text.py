"""How the formats show a transcript's bytes: never raw, always one safe line (see `textsafe`)."""

from __future__ import annotations

from mcptape.textsafe import escape, escape_json


def message_text(data: bytes, limit: int, *, is_json: bool) -> str:
    """A message's bytes as safe text. A line that is one JSON value stays that JSON text (each
    unsafe character as its `\\uXXXX` escape, which JSON reads as the same character: the value is
    unchanged and a reader sees no control, bidi or invisible character); anything else, or more
    than `limit` bytes, through `textsafe.escape` (`\\xNN` for each unsafe or non-UTF-8 byte)."""
    if is_json and len(data) <= limit:
        if printable_ascii(data):
            return data.decode("ascii")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return escape(data, limit)
        return text if safe(text) else escape_json(text)
    return escape(data, limit)


def safe(text: str) -> bool:
    """True for text with nothing to escape for JSON (printable ASCII: the common case, checked
    without a regular expression)."""
    return text.isascii() and text.isprintable()


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def printable_ascii(data: bytes) -> bool:
    """`safe(data.decode())` for bytes: True when every byte is printable ASCII (space to `~`),
    checked a byte at a time in C (`str.isprintable` looks each character up in Unicode's tables,
    the largest cost of writing a large session's lines)."""
    return not data.translate(None, _PRINTABLE_ASCII)
