"""Small transcripts the viewer tests open, written with the project's own writer."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event, Header
from mcptape.transcript.writer import write_transcript

HEADER = Header(
    version=1,
    started="2026-01-01T00:00:00.000000Z",
    command=["python", "-m", "weather_server"],
    cwd="/srv",
    recorder={"name": "mcptape", "version": "test"},
)


def req(t: float, rid: int, method: str, params: str = "{}") -> Event:
    return Event(t, "in", text=f'{{"jsonrpc":"2.0","id":{rid},"method":"{method}","params":{params}}}\n')


def ok(t: float, rid: int, result: str = "{}") -> Event:
    return Event(t, "out", text=f'{{"jsonrpc":"2.0","id":{rid},"result":{result}}}\n')


def error(t: float, rid: int, message: str) -> Event:
    return Event(
        t, "out", text=f'{{"jsonrpc":"2.0","id":{rid},"error":{{"code":-32602,"message":"{message}"}}}}\n'
    )


INIT_PARAMS = '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}'
INIT_RESULT = (
    '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
    '"serverInfo":{"name":"weather","version":"1.0"}}'
)


def handshake(t: float = 0.0) -> list[Event]:
    return [
        req(t, 0, "initialize", INIT_PARAMS),
        ok(t + 0.004, 0, INIT_RESULT),
        Event(t + 0.005, "in", text='{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
    ]


def write(path: Path, events: list[Event]) -> Path:
    write_transcript(path, HEADER, events)
    return path


def banner_session(path: Path) -> Path:
    """A server that prints a start-up banner on stdout after a clean handshake."""
    events = handshake()
    events += [
        req(0.010, 1, "tools/list"),
        Event(0.011, "out", text="Weather server v2.1 listening (debug=on)\n"),
        ok(0.012, 1, '{"tools":[{"name":"forecast","inputSchema":{"type":"object"}}]}'),
        Event(0.013, "err", text="INFO cache warmed\n"),
        req(0.020, 2, "tools/call", '{"name":"forecast","arguments":{"city":"Lyon"}}'),
        ok(0.031, 2, '{"content":[{"type":"text","text":"sunny"}]}'),
        Event(0.040, "eof", fields={"of": "in"}),
        Event(0.041, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def exec_after_reject_session(path: Path) -> Path:
    """A server that logs to stdout once, then deploys before checking authorisation and answers an error."""
    events = handshake()
    events += [
        Event(0.006, "out", text="deploy-server: plugins loaded\n"),
        req(0.010, 1, "tools/call", '{"name":"deploy","arguments":{"target":"preview"}}'),
        Event(0.011, "exec", text='{"action":"deploy-preview","request_id":1,"target":"preview"}\n'),
        ok(0.012, 1, '{"content":[{"type":"text","text":"deployed"}]}'),
        req(0.020, 2, "tools/call", '{"name":"deploy","arguments":{"target":"prod"}}'),
        Event(0.021, "exec", text='{"action":"deploy-prod","request_id":2,"target":"prod"}\n'),
        error(0.022, 2, "not authorised"),
        Event(0.030, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def hostile_session(path: Path) -> Path:
    """A server whose stdout and stderr carry ESC, OSC and BEL bytes (and a non-UTF-8 byte)."""
    events = handshake()
    events += [
        Event(0.010, "out", text="\x1b[31mALERT\x1b[0m \x1b]0;pwned\x07 ring\x07\n"),
        Event(0.011, "err", text="\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x1b[2J\x07\n"),
        Event(0.012, "out", raw=b"\x9b31m C1 CSI and \xff\n"),
        Event(0.020, "exit", fields={"code": 1, "signal": None}),
    ]
    return write(path, events)


def forecast_session(path: Path, *, sky: str, extra_log: bool = False, version: str = "1.0") -> Path:
    """A clean weather session; `sky` is the forecast the tool answers (to make two builds differ)."""
    result = INIT_RESULT.replace('"version":"1.0"', f'"version":"{version}"')
    events = [
        req(0.0, 0, "initialize", INIT_PARAMS),
        ok(0.004, 0, result),
        Event(0.005, "in", text='{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
        req(0.010, 1, "tools/list"),
        ok(0.012, 1, '{"tools":[{"name":"forecast","inputSchema":{"type":"object"}}]}'),
        req(0.020, 2, "tools/call", '{"name":"forecast","arguments":{"city":"Lyon"}}'),
    ]
    if extra_log:
        events.append(Event(0.025, "out", text="cache miss for Lyon\n"))
    events += [
        ok(0.031, 2, f'{{"content":[{{"type":"text","text":"{sky}"}}]}}'),
        req(0.040, 3, "ping"),
        ok(0.041, 3),
        Event(0.050, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)
