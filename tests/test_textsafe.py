"""`textsafe`: what a terminal would act on is shown escaped, and nothing else changes."""

from __future__ import annotations

import json

import orjson

from mcptape.textsafe import escape, escape_json


def test_escape_shows_control_and_invalid_bytes_as_escapes() -> None:
    """ESC, BEL, a C1 CSI, a bidi override and invalid UTF-8 all become visible escapes."""
    shown = escape("\x1b]0;t\x07 \x9b \u202e ok".encode() + b"\xff\n")
    assert shown == "\\x1b]0;t\\x07 \\x9b \\u202e ok\\xff\\n"


def test_escape_json_keeps_the_value_and_leaves_no_terminal_controls() -> None:
    """Serialized JSON with DEL, C1 and bidi characters decodes to the same value after escape_json."""
    value = {"text": "a\u202eb\x9b\x7f\u2028c\n\\ \x1b", "é": ["\ufeff"]}
    document = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    safe = escape_json(document)
    assert json.loads(safe) == value
    assert not any(c in safe for c in "\u202e\x9b\x7f\u2028\ufeff\x1b")
    assert '"a\\u202eb\\u009b\\u007f\\u2028c\\n\\\\ \\u001b"' in safe and '"é"' in safe
