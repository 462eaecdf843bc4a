"""Small recorded sessions written as real transcript files, and a served session over pipes, for
serve's tests without a real server."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcptape.serve.pool import Pool, load_pool
from mcptape.serve.session import Options, Served, Session
from mcptape.transcript.events import Event, Header
from mcptape.transcript.files import open_output
from mcptape.transcript.writer import TranscriptWriter, new_header, write_transcript

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def request(
    rid: Any, method: str, params: dict[str, Any] | None = None, *, meta: bool = False
) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None or meta:
        out["params"] = dict(params or {})
        if meta:
            out["params"]["_meta"] = dict(META)
    return out


def result(rid: Any, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        out["params"] = params
    return out


def call(rid: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    return request(rid, "tools/call", {"name": tool, "arguments": arguments}, meta=True)


def text(rid: Any, words: str) -> dict[str, Any]:
    return result(rid, {"content": [{"type": "text", "text": words}], "isError": False})


class Tape:
    """Events with increasing times: `.client(obj)` on `in`, `.server(obj)` on `out`, `.raw(ch, bytes)`."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.t = 0.0

    def raw(self, ch: str, data: bytes, *, dt: float = 0.01) -> Tape:
        self.t += dt
        try:
            event = Event(round(self.t, 6), ch, text=data.decode(), index=len(self.events))
        except UnicodeDecodeError:
            event = Event(round(self.t, 6), ch, raw=data, index=len(self.events))
        self.events.append(event)
        return self

    def client(self, value: Any, *, dt: float = 0.01) -> Tape:
        return self.raw("in", orjson.dumps(value) + b"\n", dt=dt)

    def server(self, value: Any, *, dt: float = 0.01) -> Tape:
        return self.raw("out", orjson.dumps(value) + b"\n", dt=dt)

    def end(self, *, code: int = 0, server_first: bool = False) -> Tape:
        """The end of the session: the client closes stdin, then the server exits (or the other way)."""
        ends: list[tuple[str, dict[str, Any]]] = [
            ("eof", {"of": "in"}),
            ("exit", {"code": code, "signal": None}),
        ]
        for ch, fields in reversed(ends) if server_first else ends:
            self.t += 0.01
            self.events.append(Event(round(self.t, 6), ch, fields=fields, index=len(self.events)))
        return self

    def write(self, path: Path) -> Path:
        header = Header(1, "2026-12-01T00:00:00Z", ["server"], "/", {"name": "mcptape", "version": "test"})
        write_transcript(path, header, self.events)
        return path


def time_tape() -> Tape:
    """A stateless session: discover, tools/list, two calls (the second two in flight at once)."""
    tape = Tape()
    tape.client(request(1, "server/discover", meta=True)).server(
        result(1, {"supportedVersions": ["2026-07-28"]})
    )
    tape.client(request(2, "tools/list", meta=True)).server(result(2, {"tools": [{"name": "now"}]}))
    tape.client(call(3, "now", zone="UTC")).server(text(3, "12:00 UTC"))
    tape.client(call(4, "now", zone="Europe/Paris")).client(call(5, "now", zone="Asia/Tokyo"))
    tape.server(text(4, "13:00 CET")).server(text(5, "21:00 JST"))
    return tape.end()


@dataclass
class Run:
    """A served session driven over pipes: what serve wrote, and what it reported."""

    out: bytes = b""
    served: Served | None = None
    log: list[str] = field(default_factory=list)

    def lines(self) -> list[bytes]:
        return self.out.splitlines(keepends=True)

    def messages(self) -> list[Any]:
        return [orjson.loads(line) for line in self.lines()]


@contextmanager
def serving(
    pool: Pool | Path, options: Options | None = None, *, record: Path | None = None
) -> Iterator[tuple[Any, Run]]:
    """Serve `pool` in a thread over two pipes; yields (client, run): `client.send(obj or bytes)`,
    `client.read_until(n_lines)`, `client.close()`. The run is complete after the block. `record`
    names a new transcript of the served session."""
    if isinstance(pool, Path):
        pool = load_pool([pool])
    to_serve_r, to_serve_w = os.pipe()
    from_serve_r, from_serve_w = os.pipe()
    run = Run()
    writer = None
    if record is not None:
        writer = TranscriptWriter(open_output(record))
        writer.header(new_header(["mcptape", "serve"], "/"))
    session = Session(
        pool,
        options or Options(),
        log=run.log.append,
        writer=writer,
        stdin_fd=to_serve_r,
        stdout_fd=from_serve_w,
    )
    thread = threading.Thread(target=lambda: setattr(run, "served", session.run()), daemon=True)
    thread.start()
    client = _Client(to_serve_w, from_serve_r, run)
    try:
        yield client, run
    finally:
        client.close()
        thread.join(20)
        if session.result.closed_t is None:  # serve did not close its stdout itself
            os.close(from_serve_w)
        client.drain()
        os.close(to_serve_r)
        os.close(from_serve_r)
        if writer is not None:
            writer.close()


class _Client:
    def __init__(self, fd_out: int, fd_in: int, run: Run) -> None:
        self.fd_out, self.fd_in, self.run = fd_out, fd_in, run
        os.set_blocking(fd_in, False)

    def send(self, value: Any) -> None:
        os.write(self.fd_out, value if isinstance(value, bytes) else orjson.dumps(value) + b"\n")

    def read_until(self, lines: int, timeout: float = 5.0) -> list[bytes]:
        """Wait until serve has written `lines` complete lines in all (or the timeout)."""
        deadline = time.monotonic() + timeout
        while self.run.out.count(b"\n") < lines and time.monotonic() < deadline:
            self._read()
            time.sleep(0.005)
        return self.run.lines()

    def _read(self) -> bool:
        try:
            data = os.read(self.fd_in, 65536)
        except BlockingIOError:
            return True
        self.run.out += data
        return bool(data)

    def close(self) -> None:
        if self.fd_out >= 0:
            os.close(self.fd_out)
            self.fd_out = -1

    def drain(self) -> None:
        """Everything serve wrote, up to its end of the pipe (closed by then)."""
        while True:
            try:
                data = os.read(self.fd_in, 65536)
            except BlockingIOError:
                return
            if not data:
                return
            self.run.out += data
