"""Must show: the official SDK client over Streamable HTTP against an official SDK MCPServer, through
`mcptape record --http-upstream`. The client sees no difference, every byte that crossed a socket is
in the transcript (tied to its exchange), and the messages are on `in`/`out`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from mcptape.check.analyze import analyze_file
from tests.recorder.http.helpers import (
    Relay,
    data_of,
    exchanges,
    free_port,
    recording,
    records,
    sdk_server,
    split_into,
    terminate,
    wait_accepting,
)
from tests.recorder.http.sdk_client import (
    drive,
    one_session,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def sdk_upstream() -> Any:
    port = free_port()
    proc = subprocess.Popen(sdk_server(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_accepting(port)
        yield port
    finally:
        terminate(proc)


def test_the_sdk_client_sees_no_difference_and_every_byte_is_kept(tmp_path: Path, sdk_upstream: int) -> None:
    """Through the recorder the SDK client gets what it gets directly; the bytes mcptape received on
    each socket are the bytes it sent on the other, and the transcript holds all of them, exchange by
    exchange."""
    direct = drive(f"http://127.0.0.1:{sdk_upstream}/mcp")
    behind = Relay(sdk_upstream)  # sees what crossed mcptape's upstream sockets
    out = tmp_path / "sdk.jsonl"
    with recording(f"http://127.0.0.1:{behind.port}/mcp", out) as rec:
        front = Relay(int(rec.url.split(":")[2].split("/")[0]))  # sees what crossed the client's sockets
        port = front.port
        through = drive(f"http://127.0.0.1:{port}/mcp")
        assert rec.stop() == 0
    front.close()
    behind.close()
    assert through == direct

    client_side = sorted((bytes(c.up), bytes(c.down)) for c in front.captures if c.up or c.down)
    server_side = sorted((bytes(c.up), bytes(c.down)) for c in behind.captures if c.up or c.down)
    assert client_side == server_side, "mcptape changed bytes on their way"

    requests, responses = exchanges(out, "http-in"), exchanges(out, "http-out")
    assert requests.keys() == responses.keys()
    used_in = [x for up, _ in client_side for x in split_into(up, requests)]
    used_out = [x for _, down in client_side for x in split_into(down, responses)]
    assert sorted(used_in) == sorted(requests) == sorted(used_out)
    methods = {data.split(b" ", 1)[0] for data in requests.values()}
    assert methods == {b"POST", b"GET", b"DELETE"}
    _, analysis = analyze_file(str(out))
    assert [(f.rule, f.message) for f in analysis.findings if f.party != "capture"] == []
    assert analysis.protocol_version == "2025-11-25" and analysis.requests >= 10


def test_each_message_is_on_in_or_out_with_its_exchange(tmp_path: Path, sdk_upstream: int) -> None:
    """The JSON-RPC messages carried by bodies and SSE events are on `in`/`out`, one line each, tied by
    `x` to the exchange whose bytes carried them; a body's newlines are spaces on that line."""
    out = tmp_path / "sdk.jsonl"
    with recording(f"http://127.0.0.1:{sdk_upstream}/mcp", out) as rec:
        drive(rec.url)
    lines = records(out)
    raw_in, raw_out = exchanges(out, "http-in"), exchanges(out, "http-out")
    carried = [r for r in lines if r["ch"] in ("in", "out")]
    assert len(carried) >= 16
    for record in carried:
        line = data_of(record)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert isinstance(orjson.loads(line), dict)
        raw = (raw_in if record["ch"] == "in" else raw_out)[record["x"]]
        assert line[:-1] in raw  # the body, or an SSE event's data, of that very exchange
    echo = [r for r in carried if r["ch"] == "in" and b'"echo"' in data_of(r)]
    assert echo and all(b"\\n" in data_of(r) for r in echo)  # the newline is JSON-escaped text


def test_the_server_started_by_the_recorder_is_recorded_and_stopped(tmp_path: Path) -> None:
    """With `-- CMD`, the server starts first, the proxy opens once it accepts, its stdout is recorded on
    `stdout` (not the protocol), and SIGINT ends both with the server's exit recorded."""
    port = free_port()
    out = tmp_path / "cmd.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, sdk_server(port)) as rec:
        result = anyio.run(one_session, rec.url, "auto")
        assert result["add"] == {"result": 42}
        code = rec.stop()  # forwarded to uvicorn, which exits by re-raising SIGINT
    lines = records(out)
    header = orjson.loads(out.read_bytes().splitlines()[0])
    assert header["http"]["upstream"] == f"http://127.0.0.1:{port}/mcp"
    assert header["http"]["listen"] == rec.url
    assert header["command"] == sdk_server(port)
    stdout = b"".join(data_of(r) for r in lines if r["ch"] == "stdout")
    assert stdout == f"sdk_http: serving on 127.0.0.1:{port}\n".encode()
    end = lines[-1]
    assert end["ch"] == "exit" and code == (end["code"] if end["signal"] is None else 128 + end["signal"])
    assert "recording to" in rec.stderr and "listening on http://127.0.0.1:" in rec.stderr
    _, analysis = analyze_file(str(out))
    assert analysis.findings == [] and analysis.clean
    assert any("(1 line) on its stdout" in n and "harmless" in n for n in analysis.notes)
