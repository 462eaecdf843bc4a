"""The case table: what the probe sends, and what must hold.

Each case is a small value. `start` cases check that a clean start (handshake, tools/list, one
valid call) keeps stdout protocol-only under a production-like variation. `input` cases send one
hard input after a valid handshake; the bytes carry a marker unique to the run and the case, and
every id the bad frame carries is known, so an executor call can be traced back to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcptape.textsafe import escape_text

START, INPUT, TOOL = "start", "input", "tool"  # TOOL: a hard input sent to one tool of many
PROBE_META = "mcptape/probe"  # the `_meta` key that carries the marker in a well-formed frame
DEFAULT_OVERSIZE = 2 << 20  # bytes: the oversized line


@dataclass(frozen=True)
class Call:
    """The valid request the cases use: `tools/call` of `tool` with `arguments` (or `tools/list`)."""

    tool: str | None
    arguments: dict[str, Any] = field(default_factory=dict)

    def request(self, rid: Any, *, meta: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        """The JSON-RPC request object, with `extra` arguments added to the valid ones."""
        if self.tool is None:
            params: dict[str, Any] = {}
            method = "tools/list"
        else:
            params = {"name": self.tool, "arguments": {**self.arguments, **extra}}
            method = "tools/call"
        if meta:
            params["_meta"] = dict(meta)
        return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}

    def line(self, rid: Any, **extra: Any) -> bytes:
        return orjson.dumps(self.request(rid, **extra)) + b"\n"


@dataclass(frozen=True)
class Bad:
    """The bytes of a hard input, and the ids it carries (True for the boolean id)."""

    data: bytes
    ids: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Case:
    """One probe case: its id, what it checks, how it runs.

    `build(call, marker, oversize)` gives the hard input of an `input` case. `eof` closes stdin right
    after it (no valid request follows). `lenient`: the frame is well-formed JSON-RPC, so a server
    that answers it with a result (and no executor call is seen) is a warning, not a failure.
    `uses_call`: the hard input is built from the valid call, so when the valid call itself is
    refused, a refusal of the hard input proves nothing (the case is inconclusive).
    """

    id: str
    group: str
    title: str
    env: Mapping[str, str] = field(default_factory=dict)
    empty_cwd: bool = False
    idle: bool = False
    discover: bool = False
    build: Callable[[Call, str, int], Bad] | None = None
    eof: bool = False
    lenient: bool = False
    uses_call: bool = True
    corpus: bool = False  # a --corpus frame: its bytes are the user's, screened before sending


def _debug_line(call: Call, marker: str, oversize: int) -> Bad:
    return Bad(f"[debug] {marker} connecting to backend\n".encode())


def _banner(call: Call, marker: str, oversize: int) -> Bad:
    return Bad(call.line(marker)[:-1] + f" Server ready ({marker})\n".encode(), (marker,))


def _truncated(call: Call, marker: str, oversize: int) -> Bad:
    whole = call.line(marker)
    return Bad(whole[: max(len(whole) // 2, whole.index(marker.encode()) + len(marker) + 1)], (marker,))


def _concatenated(call: Call, marker: str, oversize: int) -> Bad:
    first, second = f"{marker}-1", f"{marker}-2"
    return Bad(call.line(first)[:-1] + call.line(second), (first, second))


def _string_params(call: Call, marker: str, oversize: int) -> Bad:
    request = call.request(marker)
    request["params"] = orjson.dumps(request["params"]).decode()  # double-encoded params
    return Bad(orjson.dumps(request) + b"\n", (marker,))


def _boolean_id(call: Call, marker: str, oversize: int) -> Bad:
    return Bad(orjson.dumps(call.request(True, meta={PROBE_META: marker})) + b"\n", (True,))


def _batch(call: Call, marker: str, oversize: int) -> Bad:
    first, second = f"{marker}-1", f"{marker}-2"
    return Bad(orjson.dumps([call.request(first), call.request(second)]) + b"\n", (first, second))


def _invalid_utf8(call: Call, marker: str, oversize: int) -> Bad:
    request = orjson.dumps(call.request(marker, meta={PROBE_META: "@@BAD@@"}))
    return Bad(request.replace(b"@@BAD@@", marker.encode() + b" \xff\xfe\xc3") + b"\n", (marker,))


def _oversized(call: Call, marker: str, oversize: int) -> Bad:
    head = orjson.dumps(call.request(marker, meta={PROBE_META: marker, "padding": ""}))
    pad = max(0, oversize - len(head) - 1)
    return Bad(head.replace(b'"padding":""', b'"padding":"' + b"x" * pad + b'"') + b"\n", (marker,))


VERBOSE_ENV = {
    "DEBUG": "*",
    "NODE_DEBUG": "http,net,tls,stream,child_process,module,fs,timer",
    "RUST_LOG": "debug",
    "LOG_LEVEL": "debug",
    "VERBOSE": "1",
}

CASES: tuple[Case, ...] = (
    Case("start", START, "clean start: handshake, tools/list, {request}"),
    Case(
        "start-warnings",
        START,
        "clean start ({request}) with PYTHONWARNINGS=always and PYTHONDEVMODE=1",
        env={"PYTHONWARNINGS": "always", "PYTHONDEVMODE": "1"},
    ),
    Case(
        "start-verbose-env",
        START,
        "clean start ({request}) with DEBUG=*, NODE_DEBUG, RUST_LOG, LOG_LEVEL, VERBOSE set",
        env=VERBOSE_ENV,
    ),
    Case(
        "start-empty-cwd",
        START,
        "clean start ({request}) in an empty working directory, empty XDG_CONFIG_HOME",
        empty_cwd=True,
    ),
    Case(
        "start-idle", START, "clean start ({request}) after an idle wait before the first request", idle=True
    ),
    Case(
        "start-discover",
        START,
        "stateless start: server/discover (2026-07-28), then tools/list and {request}",
        discover=True,
    ),
    Case("debug-line", INPUT, "a debug line, then a valid {request}", build=_debug_line, uses_call=False),
    Case(
        "banner-after-request",
        INPUT,
        "a valid {request} followed by a banner on the same line",
        build=_banner,
    ),
    Case(
        "truncated-eof", INPUT, "a truncated {request}, then EOF", build=_truncated, eof=True, uses_call=False
    ),
    Case("concatenated", INPUT, "two {request} concatenated on one line", build=_concatenated),
    Case("string-params", INPUT, "{request} with params as a (JSON-encoded) string", build=_string_params),
    Case("boolean-id", INPUT, "{request} whose id is true", build=_boolean_id),
    Case("batch", INPUT, "a JSON-RPC batch of two {request}", build=_batch),
    Case("invalid-utf8", INPUT, "{request} with bytes that are not UTF-8 (in _meta)", build=_invalid_utf8),
    Case("oversized-line", INPUT, "a {request} on one oversized line", build=_oversized, lenient=True),
)

BY_ID = {case.id: case for case in CASES}


def title_for(case: Case, call: Call | None) -> str:
    """The case's title with the request it actually used: `tools/call <tool>` or `tools/list`
    (a server with no tool the probe may call gets its hard inputs on `tools/list`); `call` None:
    not known yet."""
    if "{request}" not in case.title:
        return case.title
    if call is None:
        request = "a valid request"  # not known (yet): the clean start picks it
    else:
        request = f"tools/call {escape_text(call.tool)[:60]}" if call.tool is not None else "tools/list"
    return case.title.replace("{request}", request)


MARKER_PLACEHOLDER = b"MCPTAPE_MARKER"  # in a --corpus frame: replaced by the case's marker


def corpus_case(name: str, data: bytes) -> Case:
    """A case for one frame of a `--corpus` folder: its bytes are sent as they are (a frame without
    a final newline is followed by EOF); `MCPTAPE_MARKER` in them becomes the case's marker, so an
    executor line or an id can be traced to it."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
    eof = not data.endswith(b"\n")

    def build(call: Call, marker: str, oversize: int) -> Bad:
        return Bad(data.replace(MARKER_PLACEHOLDER, marker.encode()), (marker,))

    return Case(
        f"corpus-{safe}", INPUT, f"corpus frame {name}", build=build, eof=eof, uses_call=False, corpus=True
    )


def sendable(value: Any) -> bool:
    """Can the probe write this value into a request (orjson: at most 254 levels deep, no lone
    surrogate; a recorded or listed value may be neither)?"""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True
