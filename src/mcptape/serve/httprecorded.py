"""What an HTTP recording says of its exchanges, for serve --listen: how each request was answered
(JSON or SSE), whether the server opened a GET stream and what it sent there, whether it assigned
session ids.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import EXCHANGE, HTTP_IN, HTTP_OUT, header, media_type


def recorded_forms(paths: list[Path]) -> dict[tuple[Path, int], str]:
    """For each recorded request line of an HTTP transcript (its file, its first `in` event), the
    media type its exchange was answered with (`text/event-stream`, `application/json`)."""
    forms: dict[tuple[Path, int], str] = {}
    for path in paths:
        carried: dict[int, list[int]] = {}  # exchange -> its `in` events
        answered: dict[int, str] = {}
        heads: dict[int, bytes] = {}
        for event in open_transcript(path).events():
            x = (event.fields or {}).get(EXCHANGE)
            if type(x) is not int:
                continue
            if event.ch == "in":
                carried.setdefault(x, []).append(event.index)
            elif event.ch == HTTP_OUT and x not in answered:
                heads[x] = heads.get(x, b"") + event.data
                head, sep, _ = heads[x].partition(b"\r\n\r\n")
                if sep:
                    answered[x] = media_type(head_field(head, "content-type"))
                    del heads[x]
        for x, indexes in carried.items():
            for index in indexes:
                forms[(path, index)] = answered.get(x, "")
    return forms


def get_streams(paths: list[Path]) -> tuple[bool, set[str]]:
    """Whether the recorded server opened a GET stream (a GET answered 200), and the methods of the
    messages it sent on one."""
    opened = False
    methods: set[str] = set()
    for path in paths:
        gets: set[int] = set()
        seen: set[int] = set()
        for event in open_transcript(path).events():
            x = (event.fields or {}).get(EXCHANGE)
            if type(x) is not int:
                continue
            if event.ch == HTTP_IN and x not in seen:
                seen.add(x)
                if event.data.startswith(b"GET "):
                    gets.add(x)
            elif event.ch == HTTP_OUT and x in gets and event.data.startswith(b"HTTP/1.1 200 "):
                opened = True
            elif event.ch == "out" and x in gets:
                try:
                    value = orjson.loads(event.data)
                except orjson.JSONDecodeError:
                    continue
                if type(value) is dict and isinstance(value.get("method"), str):
                    methods.add(value["method"])
    return opened, methods


def head_field(head: bytes, name: str) -> str | None:
    fields = []
    for line in head.split(b"\r\n")[1:]:
        key, colon, value = line.partition(b":")
        if colon:
            fields.append((key.strip().decode("latin-1"), value.strip().decode("latin-1")))
    return header(fields, name)


def assigned_session(path: Path) -> bool:
    """Did the recorded server assign an Mcp-Session-Id (the handshake revisions over HTTP)?"""
    return any(
        event.ch == HTTP_OUT and b"\nmcp-session-id:" in event.data.lower()
        for event in open_transcript(path).events()
    )
