"""Each fast path of the export writers has a twin: the plain version it replaced gives the same
bytes, on clean and on damaged sessions (OTLP JSON written a span at a time, a span's id, the HTML
list's raw and indented text)."""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.check.model import Message
from mcptape.export.html import RAW_SHOWN, _shown
from mcptape.export.otlp import document, json_bytes
from mcptape.export.session import Session, load
from mcptape.export.spans import _id, span_id, trace
from mcptape.export.text import message_text, safe
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape_json
from tests.conftest import ROOT
from tests.export.helpers import line, tool_session, write_transcript

ECHO = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def damaged(path: Path) -> Path:
    """The tool session with lines a fast path must not take: controls, a bidi override, bytes that
    are not UTF-8, a line longer than the page shows, a torn last line."""
    records = [
        *tool_session(),
        line(
            0.41,
            "out",
            '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\\u0007\u202eb"}}\n',
        ),
        {
            "t": 0.42,
            "ch": "out",
            "b64": "eyJqc29ucnBjIjoiMi4wIiwibWV0aG9kIjoieCIsInBhcmFtcyI6eyJhIjoi/yJ9fQo=",
        },
        line(
            0.43,
            "out",
            orjson.dumps({"jsonrpc": "2.0", "method": "big", "params": {"x": "y" * 20000}}).decode() + "\n",
        ),
        line(0.44, "out", '{"jsonrpc":"2.0","method":"torn"'),
    ]
    return write_transcript(path, records)


def sessions(tmp_path: Path) -> list[Session]:
    return [
        load(ECHO),
        load(write_transcript(tmp_path / "t.jsonl", tool_session())),
        load(damaged(tmp_path / "d.jsonl")),
    ]


def test_otlp_json_written_a_span_at_a_time_is_the_document_as_one_tree(tmp_path: Path) -> None:
    """One session, several, none: the same bytes as orjson's dump of `document`."""
    traces = [trace(s) for s in sessions(tmp_path)]
    for chosen in (traces, traces[:1], []):
        assert json_bytes(chosen) == orjson.dumps(document(chosen)) + b"\n"


def test_a_span_id_is_the_generic_id_of_its_kind_and_event() -> None:
    """`span_id` is `_id(trace_id.hex(), kind, event, size=8)` for calls and actions."""
    trace_id = bytes(range(16))
    for kind in ("call", "action"):
        for event in (-1, 0, 7, 123456789):
            assert span_id(trace_id, kind, event) == _id(trace_id.hex(), kind, event, size=8)


def _plain_pretty(message: Message) -> str:
    """The indented text as the page made it before `_shown` (one decode, one judgement each)."""
    body = message.frame.body
    if message.value is None or message.frame.complete is False or len(body) > RAW_SHOWN:
        return ""
    pretty = dumps(message.value, indent=True)
    return pretty if body.isascii() and safe(body.decode("ascii")) else escape_json(pretty)


def test_the_html_list_shows_each_line_as_the_plain_rules_do(tmp_path: Path) -> None:
    """`_shown` gives `message_text`'s raw text and the plain indented text for every message,
    including the damaged ones."""
    every = [m for s in sessions(tmp_path) for m in s.messages]
    assert any(m.value is None for m in every) and any(not m.frame.body.isascii() for m in every)
    for message in every:
        raw = message_text(message.frame.body, RAW_SHOWN, is_json=message.value is not None)
        assert _shown(message) == (raw, _plain_pretty(message)), message.frame
