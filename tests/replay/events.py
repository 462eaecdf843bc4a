"""Build small sessions as transcript events, for the pure tests of the plan and the diff."""

from __future__ import annotations

from typing import Any

import orjson

from mcptape.transcript.events import Event


class Session:
    """Append events with increasing times: `.send(obj)` on `in`, `.answer(obj)` on `out`, ..."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.t = 0.0

    def _add(self, ch: str, *, text: str | None = None, raw: bytes | None = None, **fields: Any) -> Session:
        self.t += 0.01
        self.events.append(
            Event(round(self.t, 6), ch, text=text, raw=raw, fields=fields or None, index=len(self.events))
        )
        return self

    def line(self, ch: str, value: Any) -> Session:
        data = value if isinstance(value, bytes) else orjson.dumps(value) + b"\n"
        try:
            return self._add(ch, text=data.decode())
        except UnicodeDecodeError:
            return self._add(ch, raw=data)

    def send(self, value: Any) -> Session:
        return self.line("in", value)

    def answer(self, value: Any) -> Session:
        return self.line("out", value)

    def execute(self, value: Any) -> Session:
        return self.line("exec", value)

    def end(self, code: int = 0) -> Session:
        self._add("eof", of="in")
        return self._add("exit", code=code, signal=None)


def request(rid: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def result(rid: Any, **value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def notification(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


INIT = request(
    1, "initialize", protocolVersion="2025-06-18", capabilities={}, clientInfo={"name": "t", "version": "0"}
)
INIT_OK = result(
    1, protocolVersion="2025-06-18", capabilities={"tools": {}}, serverInfo={"name": "s", "version": "1"}
)


def text_result(rid: Any, text: str) -> dict[str, Any]:
    return result(rid, content=[{"type": "text", "text": text}], isError=False)
