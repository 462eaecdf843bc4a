"""Make transcript bytes safe to show in a terminal.

A server's bytes must never drive the user's terminal: no ESC sequences, no OSC strings, no bell,
no carriage return that overwrites a line, no bidirectional override that reorders it. Every byte
the CLI or the viewer shows from a transcript goes through `escape` first.
"""

from __future__ import annotations

import re

_NAMED = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x5C: "\\\\"}
# C0 controls, DEL, C1 controls, the Unicode format characters that reorder or hide text, and lone
# surrogates (a file name that is not UTF-8, as argv and os.listdir give it: no stream can print it).
_FORMAT = "\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
_UNSAFE = f"\x00-\x1f\x7f-\x9f{_FORMAT}\ud800-\udfff"
_UNSAFE_CHAR = re.compile(f"[{_UNSAFE}\\\\]")


def _escape_char(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    named = _NAMED.get(code)
    if named is not None:
        return named
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # the byte surrogateescape could not decode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """Escape the characters of `text` that a terminal would act on, and backslashes."""
    return _UNSAFE_CHAR.sub(_escape_char, text)


_UNSAFE_CONTROL = re.compile(f"[{_UNSAFE}]")


def escape_controls(text: str) -> str:
    """`escape_text` without doubling backslashes: for mcptape's own one-line messages, which may
    quote a file name or an argument the user typed (a backslash there is just a backslash)."""
    return text if text.isprintable() else _UNSAFE_CONTROL.sub(_escape_char, text)


# What a serialized JSON document may still carry raw inside its strings (JSON encoders escape only
# C0 controls, and only inside strings; a newline outside them is an indented document's own).
_UNSAFE_IN_JSON = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{_FORMAT}]")


def escape_json(document: str) -> str:
    """Make serialized JSON safe for a terminal and keep it the same JSON value.

    Each character a terminal would act on (DEL, C1 controls, bidirectional and invisible format
    characters) becomes a `\\uXXXX` escape, which JSON reads back as the same character; the rest,
    backslashes included, is left as the encoder wrote it, so the text stays readable JSON.
    """
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def escape(data: bytes, limit: int | None = None) -> str:
    """Show `data` as one printable line: valid UTF-8 kept, everything unsafe as `\\xNN`.

    Bytes that are not valid UTF-8 are shown as `\\xNN` too (never replaced by U+FFFD), so the
    escaped text tells the reader exactly which bytes were there. With `limit`, at most that many
    bytes are shown, followed by `...(+N bytes)`.
    """
    suffix = ""
    if limit is not None and len(data) > limit:
        suffix = f"...(+{len(data) - limit} bytes)"
        data = data[:limit]
    out: list[str] = []
    text = data.decode("utf-8", errors="surrogateescape")
    for part in _split_surrogates(text):
        if isinstance(part, bytes):
            out.append("".join(f"\\x{b:02x}" for b in part))
        else:
            out.append(escape_text(part))
    return "".join(out) + suffix


def _split_surrogates(text: str) -> list[str | bytes]:
    """Split text decoded with surrogateescape into clean text and the raw bytes it could not decode."""
    parts: list[str | bytes] = []
    start = 0
    for m in re.finditer("[\udc80-\udcff]+", text):
        if m.start() > start:
            parts.append(text[start : m.start()])
        parts.append(bytes(ord(c) - 0xDC00 for c in m.group()))
        start = m.end()
    if start < len(text):
        parts.append(text[start:])
    return parts


def hexdump(data: bytes, width: int = 16) -> str:
    """Classic offset / hex / ASCII dump (only printable ASCII shown in the right column)."""
    lines = []
    for off in range(0, len(data), width):
        row = data[off : off + width]
        hexpart = " ".join(f"{b:02x}" for b in row)
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        lines.append(f"{off:08x}  {hexpart:<{width * 3 - 1}}  {text}")
    return "\n".join(lines)
