"""Each fast path of the export writers has a twin: the plain version it replaced gives the same
bytes, on clean and on damaged sessions (OTLP JSON written a span at a time, each call's span
written straight from the call, a span's id, the HTML list's raw and indented text)."""

from __future__ import annotations

import base64
import dataclasses
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import markupsafe
import orjson
import pytest
from markupsafe import Markup

from mcptape.check.model import Message
from mcptape.export import har, html
from mcptape.export.html import (
    RAW_SHOWN,
    STYLE,
    STYLE_HASH,
    Rows,
    _context,
    _message,
    _shown,
    _template,
    html_bytes,
)
from mcptape.export.otlp import CallSpans, document, json_bytes, sessions_json, span_json
from mcptape.export.session import Call, Session, load
from mcptape.export.spans import _id, call_span, root_span, service_name, span_id, trace
from mcptape.export.text import message_text, printable_ascii, safe
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape_controls, escape_json
from mcptape.version import __version__
from tests.conftest import ROOT
from tests.export.helpers import call, line, request, tool_session, write_transcript

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


def varied(path: Path) -> Path:
    """Calls of every shape a span has: string ids (one with a control), a prompt, a resource,
    a tools/call without a name (answered with an error that is not JSON-RPC's), a request the
    server sent, a JSON-RPC error, an isError result, text beyond ASCII, requests never answered,
    lines longer than a span or a page shows, one of exactly the 4096 bytes a span keeps."""

    def out(t: float, rid: object, **body: object) -> dict[str, Any]:
        return line(t, "out", {"jsonrpc": "2.0", "id": rid, **body})

    records = [
        request(0.01, 1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}),
        out(0.02, 1, result={"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}),
        line(0.03, "in", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        line(
            0.04,
            "in",
            {"jsonrpc": "2.0", "id": "p\u0007", "method": "prompts/get", "params": {"name": "s\u202e"}},
        ),
        out(0.05, "p\u0007", result={"messages": [{"text": "h\u00e9llo \u2028 \u4e16"}]}),
        request(0.06, 2, "resources/read", {"uri": "file:///x\u0001y"}),
        out(0.07, 2, error={"code": -32002, "message": "no such \u202e resource"}),
        request(0.08, 3, "tools/call", {"arguments": {}}),
        out(0.09, 3, error={"code": "odd"}),
        request(0.10, 4, "tools/call", call("fail")),
        out(0.11, 4, result={"content": [], "isError": True}),
        line(0.12, "out", {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {}}),
        line(0.13, "in", {"jsonrpc": "2.0", "id": "s1", "result": {"role": "assistant"}}),
        request(0.14, 5, "tools/call", call("add", a=1)),
        request(0.15, 6, "resources/list", {}),
        out(0.16, 6, result={"resources": []}),
        request(0.17, 7, "tools/call", call("slow")),
        request(0.18, 8, "tools/call", call("big", text="x" * RAW_SHOWN)),
        out(0.19, 8, result={"content": [{"type": "text", "text": "y" * RAW_SHOWN}]}),
        request(0.20, 9, "tools/call", call("edge", text="z" * (4096 - 95))),
        out(0.21, 9, result={"content": [{"type": "text", "text": "\u00e9" * 3000}]}),
        {"t": 0.5, "ch": "exit", "code": 0, "signal": None},
    ]
    return write_transcript(path, records)


def http_session(path: Path) -> Path:
    """A Streamable HTTP session of the handshake revision: the server assigns a session id in its
    answer to initialize, the client sends it back with its call."""

    def exchange(
        x: int, t: float, body: dict[str, object], answer: dict[str, object], head: str
    ) -> list[dict[str, Any]]:
        sent = orjson.dumps(body)
        got = orjson.dumps(answer)
        request_bytes = (
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:9\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\n{head}content-length: {len(sent)}\r\n\r\n"
        ).encode() + sent
        assigned = "mcp-session-id: abc\r\n" if x == 1 else ""
        response_bytes = (
            f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{assigned}"
            f"content-length: {len(got)}\r\n\r\n"
        ).encode() + got
        return [
            {"t": t, "ch": "http-in", "x": x, "b64": base64.b64encode(request_bytes).decode()},
            {"t": t, "ch": "in", "x": x, "data": sent.decode() + "\n"},
            {"t": t + 0.001, "ch": "http-out", "x": x, "b64": base64.b64encode(response_bytes).decode()},
            {"t": t + 0.001, "ch": "out", "x": x, "data": got.decode() + "\n"},
        ]

    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    records = [
        *exchange(
            1,
            0.01,
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}}},
            "",
        ),
        *exchange(
            2,
            0.02,
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call("add", a=1)},
            {"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
            "mcp-protocol-version: 2025-11-25\r\nmcp-session-id: abc\r\n",
        ),
        {"t": 0.1, "ch": "exit", "code": 0, "signal": None},
    ]
    header_extra = {"http": {"listen": "http://127.0.0.1:9", "upstream": "http://127.0.0.1:10/mcp"}}
    return write_transcript(path, records, extra=header_extra)


def sessions(tmp_path: Path) -> list[Session]:
    return [
        load(ECHO),
        load(write_transcript(tmp_path / "t.jsonl", tool_session())),
        load(damaged(tmp_path / "d.jsonl")),
        load(varied(tmp_path / "v.jsonl")),
        load(http_session(tmp_path / "h.jsonl")),
    ]


def test_otlp_json_written_a_span_at_a_time_is_the_document_as_one_tree(tmp_path: Path) -> None:
    """One session, several, none: the same bytes as orjson's dump of `document`."""
    traces = [trace(s) for s in sessions(tmp_path)]
    for chosen in (traces, traces[:1], []):
        assert json_bytes(chosen) == orjson.dumps(document(chosen)) + b"\n"


def test_otlp_json_of_sessions_is_the_document_of_their_traces(tmp_path: Path) -> None:
    """`sessions_json` (each call's span written from the call) gives the bytes of the document of
    `trace`'s spans, for one session, several and none."""
    chosen = sessions(tmp_path)
    assert any(s.http and s.calls for s in chosen)
    for some in (chosen, chosen[1:2], chosen[2:], []):
        assert sessions_json(some) == orjson.dumps(document([trace(s) for s in some])) + b"\n"


def test_a_call_span_written_from_the_call_is_the_general_one(tmp_path: Path) -> None:
    """`CallSpans.json` of every call, its findings set aside so that none takes the general path
    (an unanswered request, a rejected one), is `span_json(call_span(...))` of it."""
    for session in sessions(tmp_path):
        root = root_span(session)
        spans = CallSpans(session, root.span.trace_id, root.span.span_id, root.common)
        for found in session.calls:
            bare = dataclasses.replace(found, findings=[])
            general = call_span(session, bare, root.span.trace_id, root.span.span_id, root.common)
            assert spans.json(bare) == orjson.dumps(span_json(general)), bare.request.frame


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


def test_the_html_rows_are_each_message_as_the_plain_row_shows_it(tmp_path: Path) -> None:
    """`Rows` (a line of printable ASCII made in its own loop) gives `_message`'s row of every
    message, with no request rejected and with every other message rejected."""
    every = [m for s in sessions(tmp_path) for m in s.messages]
    for rejected in (set(), {m.frame.event for m in every[::2]}):
        assert list(Rows(every, rejected)) == [_message(m, m.frame.event in rejected) for m in every]


def test_the_report_template_only_yields_what_it_escapes() -> None:
    """The compiled template uses `escape` only as `yield escape(...)` (so the lean escaper, which
    gives the escaped text as a plain string, writes the same page), and that escaper is in use."""
    source = (ROOT / "src" / "mcptape" / "export" / "report.html.j2").read_text(encoding="utf-8")
    code = jinja2.Environment(autoescape=True).compile(source, raw=True)
    assert len(re.findall(r"\bescape\(", code)) == len(re.findall(r"yield escape\(", code)) > 0
    template = _template()
    lean = template.root_render_func.__globals__["escape"]
    assert lean.__name__ == "lean"
    for value in ("a<b>&'\"", "", "\u202e<", 5, Markup("<b>")):
        assert lean(value) == str(markupsafe.escape(value))


def test_the_html_page_is_the_template_rendered_as_one_string(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`html_bytes` (the template's pieces joined and encoded a batch at a time, the lean escaper)
    is Jinja's own `render` of the same context with markupsafe's escape, in UTF-8."""
    monkeypatch.setattr(html, "PIECES", 7)  # many batches, one of them cut short
    chosen = sessions(tmp_path)
    for some in (chosen, chosen[2:3]):
        plain = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(
            (ROOT / "src" / "mcptape" / "export" / "report.html.j2").read_text(encoding="utf-8")
        )
        title = ", ".join(service_name(s) for s in some[:3]) + (" ..." if len(some) > 3 else "")
        page = plain.render(
            sessions=[_context(s) for s in some],
            title=escape_controls(title),
            version=__version__,
            style=Markup(STYLE),
            style_hash=STYLE_HASH,
        )
        assert html_bytes(some) == page.encode("utf-8")


def _plain_stdio_entry(session: Session, call: Call, server: str) -> dict[str, Any]:
    """A stdio call's HAR entry as `har.stdio_entry` made it before it read the call's fields
    itself (through `Call`'s properties, `stdio_url` quoting every id, `_entry`)."""
    body = call.request.frame.body
    rid = "" if call.request.id is None else "?id=" + quote(str(call.request.id), safe="")
    url = f"stdio://{server}/{quote(escape_controls(call.method), safe='/')}{rid}"
    query = (
        [] if call.request.id is None else [{"name": "id", "value": escape_controls(str(call.request.id))}]
    )
    request = {
        "method": "POST",
        "url": url,
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [
            {"name": "content-type", "value": "application/json"},
            {"name": "mcp-method", "value": escape_controls(call.method)},
        ],
        "queryString": query,
        "postData": {"mimeType": "application/json", **har._text(body)},
        "headersSize": -1,
        "bodySize": len(body),
    }
    answer = call.response.frame.body if call.response is not None else b""
    response = {
        "status": 200 if call.response is not None else 0,
        "statusText": "OK" if call.response is not None else "no answer",
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [{"name": "content-type", "value": "application/json"}] if call.response else [],
        "content": {"size": len(answer), "mimeType": "application/json", **har._text(answer)},
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": len(answer) if call.response is not None else -1,
    }
    end = call.end if call.end is not None else call.start
    timings = {"send": 0.0, "wait": har._ms(end - call.start), "receive": 0.0}
    extra: dict[str, Any] = {"event": call.request.frame.event, "sender": call.sender}
    if call.error is not None:
        extra["error"] = call.error
    return har._entry(session, call.start, request, response, timings, extra)


def test_a_stdio_har_entry_is_the_plain_one(tmp_path: Path) -> None:
    """`stdio_entry` of every call of the stdio sessions (ids of both types, no answer, errors,
    damaged lines) is the entry the plain version makes."""
    for session in sessions(tmp_path):
        server = quote(service_name(session), safe="")
        for found in session.calls:
            assert har.stdio_entry(session, found, server) == _plain_stdio_entry(session, found, server)


def test_har_written_an_entry_at_a_time_is_the_document_as_one_tree(tmp_path: Path) -> None:
    """`har_bytes` gives orjson's indented dump of `har()` (its unsafe characters as JSON escapes),
    for several sessions (stdio and HTTP), one, and none."""
    chosen = sessions(tmp_path)
    for some in (chosen, chosen[:1], chosen[-1:], []):
        tree = orjson.dumps(har.har(some), option=orjson.OPT_INDENT_2).decode()
        assert har.har_bytes(some) == escape_json(tree).encode() + b"\n"


def test_printable_ascii_is_safe_of_the_decoded_bytes(tmp_path: Path) -> None:
    """`printable_ascii(b)` is `safe(b.decode())` (False where b is not UTF-8) for every byte
    alone, runs of them, and every line of the test sessions."""
    samples = [bytes([n]) for n in range(256)] + [b"", b"a b~", b"a\x7fb", b"\xc3\xa9", b"x\ty"]
    samples += [m.frame.raw for s in sessions(tmp_path) for m in s.messages]
    samples += [m.frame.body for s in sessions(tmp_path) for m in s.messages]
    for data in samples:
        try:
            expected = safe(data.decode("utf-8"))
        except UnicodeDecodeError:
            expected = False
        assert printable_ascii(data) == expected, data
