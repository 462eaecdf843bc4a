"""Build small transcripts for the analysis tests: JSON-RPC lines and event lists."""

from __future__ import annotations

from typing import Any

import orjson

from mcptape.check.analyze import analyze
from mcptape.check.model import Analysis, Finding
from mcptape.transcript import Event

Item = tuple[str, Any] | tuple[str, Any, float]


def line(obj: Any) -> bytes:
    """One JSON value as a protocol line."""
    return orjson.dumps(obj) + b"\n"


def request(rid: Any, method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return line(msg)


def notification(method: str, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return line(msg)


def result(rid: Any, value: Any = None) -> bytes:
    return line({"jsonrpc": "2.0", "id": rid, "result": {} if value is None else value})


def error(rid: Any, code: int = -32600, message: str = "rejected") -> bytes:
    return line({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


# The features a handshake's server declares (not `logging`: the log rules' tables say when).
SERVES: dict[str, Any] = {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}


def initialize(version: str, rid: int = 0) -> list[Item]:
    """A handshake negotiating `version`."""
    return [
        (
            "in",
            request(rid, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {}}),
        ),
        ("out", result(rid, {"protocolVersion": version, "capabilities": SERVES, "serverInfo": {}})),
        ("in", notification("notifications/initialized")),
    ]


def tools_list(rid: int, tools: list[dict[str, Any]]) -> list[Item]:
    return [("in", request(rid, "tools/list")), ("out", result(rid, {"tools": tools}))]


def events(*items: Item) -> list[Event]:
    """Events from (channel, bytes | fields[, t]) items; t advances 1 ms per item unless given."""
    out: list[Event] = []
    t = 0.0
    for index, item in enumerate(items):
        t = item[2] if len(item) > 2 else round(t + 0.001, 6)
        ch, data = item[0], item[1]
        if isinstance(data, dict):
            out.append(Event(t, ch, fields=data, index=index))
        else:
            raw = data.encode() if isinstance(data, str) else data
            out.append(Event(t, ch, raw=raw, index=index))
    return out


EXIT: Item = ("exit", {"code": 0})
"""The server's end, as `mcptape record` writes it last."""


def run(*items: Item, complete: bool = True) -> Analysis:
    """The analysis of a session made of `items`. `complete`: it ends with the server's exit record
    (added when `items` have none), as a recording does; without one, the capture is incomplete."""
    if complete and not any(item[0] == "exit" for item in items):
        items = (*items, EXIT)
    return analyze(events(*items))


def found(*items: Item) -> list[str]:
    """The rule ids found, in order."""
    return [f.rule for f in run(*items).findings]


def findings(*items: Item) -> list[Finding]:
    return run(*items).findings
