"""Turn what a user types in the search box into the raw bytes to look for.

Backslash escapes let a user search for the bytes a server really wrote, including the ones the
viewer shows escaped: `\x1b[31m`, `\n`, `\r`, `\t`, `\\`, `\u00e9`. Anything else is UTF-8 text.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[nrt0\\])")
_SIMPLE = {"n": b"\n", "r": b"\r", "t": b"\t", "0": b"\x00", "\\": b"\\"}


def parse_query(text: str) -> bytes:
    """The bytes a search query stands for (`\\xNN` is one raw byte, even a non-UTF-8 one)."""
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(text):
        out += text[pos : match.start()].encode("utf-8")
        code = match.group(1)
        if code[0] == "x":
            out.append(int(code[1:], 16))
        elif code[0] == "u":
            out += chr(int(code[1:], 16)).encode("utf-8")
        else:
            out += _SIMPLE[code]
        pos = match.end()
    out += text[pos:].encode("utf-8")
    return bytes(out)
