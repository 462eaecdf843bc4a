"""What every command prints on stdout goes through here: one writer, one JSON text.

A stdout that cannot take the output (a full disk, a device that fails) is an `OutputError`: one
`Error: cannot write to stdout: ...` line on stderr and exit 2. A closed pipe (`mcptape check ... |
head`) is not an error of ours: `BrokenPipeError` goes on to click, and `mcptape.cli` exits 141
quietly, like a process killed by SIGPIPE.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from mcptape.errors import OutputError
from mcptape.textsafe import escape_controls, escape_json


def write(text: str) -> None:
    """Write `text` to stdout now (flushed: a report is complete when the command ends).

    The bytes go to the binary buffer until every one is taken: a large write blocked on a pipe
    whose reader leaves (`| head`) returns short, and the text layer drops what is left without
    an error; writing the rest meets EPIPE, so the command exits 141 as documented, not 1."""
    stream = sys.stdout
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text-only stream (an embedding application's)
            stream.write(text)
            stream.flush()
            return
        stream.flush()  # what went through the text layer before goes first
        data = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
        while data:
            taken = buffer.write(data)
            if not taken:  # a non-blocking stdout that takes nothing now: not ours to spin on
                raise OutputError("cannot write to stdout: it takes no more bytes")
            data = data[taken:]
        buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write to stdout: {exc.strerror or exc}") from None


def json_text(document: dict[str, Any], *, indent: bool = True) -> str:
    """`document` as JSON text safe for a terminal, without a newline: indented by two spaces (a
    report), or compact (one line of JSON Lines).

    JSON encoders leave C1 and bidi characters raw: they are escaped (`escape_json`), the values
    stay the same. A string that is not UTF-8 (a file name's lone surrogates, which orjson refuses)
    is given as the escaped text the text reports show, e.g. `a\\xff.jsonl`; a value nested
    deeper than orjson goes is written all the same (`jsonsafe.dumps`).
    """
    try:
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2 if indent else None).decode()
    except TypeError:  # orjson.JSONEncodeError
        from mcptape.jsonsafe import dumps

        text = dumps(_utf8(document), indent=indent)
    return escape_json(text)


def write_json(document: dict[str, Any], *, indent: bool = True) -> None:
    """Write `document` as one JSON text and a newline (see `json_text`)."""
    write(json_text(document, indent=indent) + "\n")


def _utf8(value: Any) -> Any:
    """A copy of `value` where each string holding a lone surrogate is its escaped text (at any
    depth: no recursion)."""
    root = [value]
    todo: list[tuple[Any, Any]] = [(root, 0)]
    while todo:
        holder, key = todo.pop()
        item = holder[key]
        if isinstance(item, str):
            if not item.isascii() and _has_surrogates(item):
                holder[key] = escape_controls(item)
        elif isinstance(item, dict):
            members = holder[key] = dict(item)
            todo.extend((members, name) for name in members)
        elif isinstance(item, list | tuple):
            elements = holder[key] = list(item)
            todo.extend((elements, i) for i in range(len(elements)))
    return root[0]


def _has_surrogates(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False
