"""Find JSON string tokens in one line of text and read their contents, keeping raw positions.

This is not a JSON parser and not the framing analysis (that is `mcptape.check`): it only lets
redaction replace a secret *inside the raw bytes* of a line, so that every other byte stays
identical and a JSON line stays the same JSON line. It works on any text, JSON or not: on a
non-protocol line a stray quote simply yields fewer string tokens.
"""

from __future__ import annotations

import re

# A complete JSON string token (no newline in a line, so no DOTALL subtleties beyond escapes).
STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.S)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_CONTROL = re.compile(r"[\x00-\x1f]")


def string_spans(text: str) -> list[tuple[int, int]]:
    """`(start, end)` of every string token in `text`, quotes included, in order."""
    return [m.span() for m in STRING.finditer(text)]


class Decoded:
    """The contents of one string token: the decoded text and where each character came from.

    `starts[i]` is the raw offset (within the contents) of decoded character `i`, with one extra
    entry for the end; it is None when the contents have no escape (decoded == raw). `invalid` is
    True when the raw contents are not valid JSON (a bad escape or a raw control character).
    """

    __slots__ = ("invalid", "raw", "starts", "text")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.invalid = _CONTROL.search(raw) is not None
        if "\\" not in raw:
            self.text = raw
            self.starts: list[int] | None = None
            return
        out: list[str] = []  # pieces of text; a character decoded from an escape is a piece of its own
        starts: list[int] = []
        pos = 0
        pending_high: int | None = None  # index in `out` of a high surrogate from a \u escape
        for m in _ESCAPE.finditer(raw):
            s, e = m.span()
            starts.extend(range(pos, s))
            out.append(raw[pos:s])
            if s > pos:
                pending_high = None
            hexcode, simple, _other = m.groups()
            if hexcode is not None:
                code = int(hexcode, 16)
                if 0xDC00 <= code <= 0xDFFF and pending_high is not None:
                    high = ord(out[pending_high])
                    out[pending_high] = chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                    pending_high = None
                    pos = e
                    continue
                out.append(chr(code))
                starts.append(s)
                pending_high = len(out) - 1 if 0xD800 <= code <= 0xDBFF else None
            elif simple is not None:
                out.append(_SIMPLE[simple])
                starts.append(s)
                pending_high = None
            else:
                # Not a JSON escape: keep the characters as they are, and remember the line is invalid.
                self.invalid = True
                for k, c in enumerate(m.group()):
                    out.append(c)
                    starts.append(s + k)
                pending_high = None
            pos = e
        starts.extend(range(pos, len(raw)))
        out.append(raw[pos:])
        starts.append(len(raw))
        self.text = "".join(out)
        self.starts = starts

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw offsets covering decoded characters `start..end` (whole escapes included)."""
        if self.starts is None:
            return start, end
        return self.starts[start], self.starts[end]


_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)  # the rest of a string token, its closing quote too


def inside_at(text: str, at: int, inside: bool = False) -> bool:
    """Whether position `at` of `text` is inside a string token (its opening quote before `at`, its
    closing quote, if any, at or after it), `text` starting inside one when `inside`. Quotes pair
    as `STRING` pairs them; an opening quote that no quote closes runs to the end."""
    pos = 0
    while True:
        if inside:
            m = _REST.match(text, pos)
            if m is None or m.end() > at:
                return True
            pos, inside = m.end(), False
        else:
            pos = text.find('"', pos, at)
            if pos < 0:
                return False
            pos, inside = pos + 1, True


def json_text(text: str) -> bool:
    """Whether `text` is one JSON value, or an SSE `data:` line carrying one (`data: {...}`): its
    text between strings is then JSON structure (numbers, names), where a short secret is not."""
    import orjson

    if text.startswith("data:"):
        text = text[5:]
    try:
        orjson.loads(text)
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return False
    return True
