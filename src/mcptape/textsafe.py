"""Make transcript bytes safe to show in a terminal.

A server's bytes must never drive the user's terminal or mislead its reader: no ESC sequences, no
OSC strings, no bell, no carriage return that overwrites a line, no bidirectional control that
reorders it, no invisible format character (zero-width, tag characters) that hides text. Every byte
the CLI, the viewer, `--json` output or report.md shows from a transcript goes through this module,
and all its functions share one definition of unsafe text (`UNSAFE_RANGES`).
"""

from __future__ import annotations

import re

_NAMED = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x5C: "\\\\"}

# The one definition of unsafe text. A character is unsafe when its Unicode category is
#   Cc  control: C0 (NUL..US), DEL, C1 (0x80..0x9f): ESC sequences, bell, carriage return;
#   Cf  format: every bidi control (ALM U+061C, LRM/RLM, LRE..RLO U+202A-202E, LRI..PDI U+2066-2069),
#       zero-width characters, the soft hyphen, BOM, interlinear annotations, the invisible tag
#       characters U+E0001 and U+E0020-E007F, and the rest of the category (Unicode 15.1);
#   Zl, Zp  the line and paragraph separators U+2028, U+2029;
#   Cs  a lone surrogate (a file name that is not UTF-8, as argv and os.listdir give it).
# `tests/commands/test_unsafe_text.py` checks this table against `unicodedata` of the running Python.
CF_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
UNSAFE_RANGES = f"\x00-\x1f\x7f-\x9f{CF_RANGES}\ud800-\udfff"
_UNSAFE_CHAR = re.compile(f"[{UNSAFE_RANGES}\\\\]")
_UNSAFE_CONTROL = re.compile(f"[{UNSAFE_RANGES}]")
# What a serialized JSON document may still carry raw inside its strings (JSON encoders escape only
# C0 controls, and only inside strings; a newline outside them is an indented document's own).
_UNSAFE_IN_JSON = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{CF_RANGES}\ud800-\udfff]")


def is_unsafe(char: str) -> bool:
    """Would a terminal (or a person reading it) be misled by this character shown raw?"""
    return _UNSAFE_CONTROL.fullmatch(char) is not None


def has_unsafe(text: str, allowed: str = "") -> bool:
    """Does `text` hold an unsafe character (other than those in `allowed`, e.g. "\\n\\t")?"""
    if allowed:
        text = text.translate(dict.fromkeys(map(ord, allowed)))
    return _UNSAFE_CONTROL.search(text) is not None


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
    if code > 0xFFFF:  # a tag character: \U and eight digits, as Python writes it
        return f"\\U{code:08x}"
    return f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """Escape the characters of `text` that a terminal would act on, and backslashes."""
    return _UNSAFE_CHAR.sub(_escape_char, text)


def escape_controls(text: str) -> str:
    """`escape_text` without doubling backslashes: for mcptape's own one-line messages, which may
    quote a file name or an argument the user typed (a backslash there is just a backslash)."""
    return text if text.isprintable() else _UNSAFE_CONTROL.sub(_escape_char, text)


def _json_escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells a character beyond the BMP as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def escape_json(document: str) -> str:
    """Make serialized JSON safe for a terminal and keep it the same JSON value.

    Each unsafe character (see `UNSAFE_RANGES`: DEL, C1 controls, every format character, line and
    paragraph separators) becomes a `\\uXXXX` escape (a surrogate pair beyond U+FFFF), which JSON
    reads back as the same character; the rest, backslashes included, is left as the encoder wrote
    it, so the text stays readable JSON.
    """
    return _UNSAFE_IN_JSON.sub(_json_escape_char, document)


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
