"""Sessions where teams already look: OTLP traces, HAR, one self-contained HTML report.

One table of formats (mitmproxy's `addons/export.py` is the model): a format is one row, a name
mapped to a pure writer (`list[Session] -> bytes`), the suffix of its file and what it accepts.
`session.load(path)` turns a transcript into the `Session` the writers read, through the check
core; nothing here frames lines or classifies messages itself. The command layer
(`commands/export.py`) reads the table for `--format`, its help and its errors, writes the file
or sends the traces (`send.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from mcptape.export.session import Session


class Format(NamedTuple):
    """One output format: its writer, the suffix of its file, what it accepts, one line of help."""

    write: Callable[[list[Session]], bytes]
    suffix: str
    accepts: str
    summary: str


def _otlp(sessions: list[Session]) -> bytes:
    from mcptape.export.otlp import json_bytes
    from mcptape.export.spans import trace

    return json_bytes([trace(s) for s in sessions])


def _har(sessions: list[Session]) -> bytes:
    from mcptape.export.har import har_bytes

    return har_bytes(sessions)


def _html(sessions: list[Session]) -> bytes:
    from mcptape.export.html import html_bytes

    return html_bytes(sessions)


FORMATS: dict[str, Format] = {
    "otlp": Format(
        _otlp, ".otlp.json", "stdio and HTTP", "OpenTelemetry traces (OTLP JSON; --endpoint sends protobuf)"
    ),
    "har": Format(
        _har, ".har", "stdio (pseudo URLs) and HTTP", "HTTP Archive 1.2, for devtools and HAR viewers"
    ),
    "html": Format(_html, ".html", "stdio and HTTP", "one self-contained HTML report (no script)"),
}

__all__ = ["FORMATS", "Format", "Session"]
