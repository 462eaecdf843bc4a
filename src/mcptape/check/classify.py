"""Classification: what one line of `in` or `out` is, judged by direction and protocol version.

Gates in order: the line is complete -> UTF-8 -> exactly one JSON value (no BOM, no CR, no
concatenated values, no trailing noise) -> a JSON-RPC 2.0 message -> of a shape allowed in this
direction and protocol version (batches only in 2025-03-26; server->client requests only before
2026-07-28; `tools/call` params an object with a string `name`). Never raises on any bytes.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.model import IN, Frame, Kind, Message
from mcptape.check.protocol import (
    CLIENT_REQUESTS,
    SERVER_REQUESTS,
    batches_allowed,
    server_requests_allowed,
)

_MISSING: Any = object()
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

Shape = tuple[Kind, str | None, int | str | None, str | None]
# Enum members as module constants: `Kind.X` is a class attribute lookup (~70 ns in 3.11), paid
# on every line in the shortcuts below.
_REQUEST, _NOTIFICATION, _RESPONSE, _ERROR_RESPONSE, _INVALID = (
    Kind.REQUEST,
    Kind.NOTIFICATION,
    Kind.RESPONSE,
    Kind.ERROR_RESPONSE,
    Kind.INVALID,
)


def parse(body: bytes | str) -> tuple[bool, Any, str | None]:
    """`(True, value, None)` when `body` is exactly one JSON value, else `(False, None, why)`."""
    try:
        value = _loads(body)
    except _JSONDecodeError:
        return explain(body)
    if b"\r" in body if isinstance(body, bytes) else "\r" in body:
        return False, None, "carriage return in the line (a line ends with \\n alone)"
    return True, value, None


def explain(body: bytes | str) -> tuple[bool, Any, str | None]:
    """Why `body` is not one JSON value (or its value, when only orjson's limits refused it)."""
    data = body.encode("utf-8", "surrogateescape") if isinstance(body, str) else body
    if not data.strip(b" \t\r"):
        return False, None, "empty line" if not data else "blank line (whitespace only)"
    if data.startswith(b"\xef\xbb\xbf"):
        return False, None, "starts with a UTF-8 byte order mark (BOM)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return False, None, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    stripped = text.lstrip(" \t\r")
    try:
        value, end = decoder.raw_decode(stripped)
    except (ValueError, RecursionError) as exc:
        return False, None, _not_json(stripped, exc)
    rest = stripped[end:].lstrip(" \t\r")
    if not rest:
        if "\r" in text:
            return False, None, "carriage return in the line (a line ends with \\n alone)"
        return True, value, None
    try:
        decoder.raw_decode(rest)
    except (ValueError, RecursionError):
        return False, None, f"trailing bytes after a JSON value: {_preview(rest)}"
    return False, None, "two JSON values on one line (concatenated without a newline)"


def lenient(body: bytes) -> Any:
    """What a lenient reader makes of a line the gates refused for its bytes alone, or None.

    Many servers read a line with a decoder that replaces bytes that are not UTF-8 (Node's
    `TextDecoder`, Python's `errors="replace"`), skip a byte order mark, and let a JSON parser take
    a carriage return as the whitespace it is. A request on such a line is still the client's
    fault (`non-protocol-input`), but the server that answers it answers a request the client did
    send: its answer is paired, not an unknown id (server-everything answers an `echo` whose text
    holds a 0xff byte). Only a JSON object or array counts; noise, two values on a line or
    trailing bytes stay unreadable."""
    text = body.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = _loads(text)
    except _JSONDecodeError:
        return None
    return value if type(value) is dict or type(value) is list else None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _not_json(text: str, exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if text[:1] in ("{", "[", '"') and isinstance(exc, json.JSONDecodeError) and exc.pos >= len(text):
        return "truncated JSON value (the line ends inside it)"
    if text[:1] in ("{", "[") and isinstance(exc, json.JSONDecodeError) and exc.pos > 0:
        return f"not JSON (column {exc.pos + 1}): {_preview(text)}"
    return f"not JSON: {_preview(text)}"


def _preview(text: str, limit: int = 40) -> str:
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def _show(value: Any) -> str:
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # past orjson's 254 levels, a big integer, a lone surrogate
        try:
            text = repr(value)
        except RecursionError:  # a value 1000 levels deep (orjson reads 1024)
            text = f"a deeply nested {type_name(value)}"
    return text if len(text) <= 40 else text[:37] + "..."


_TYPE_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean"}


def type_name(value: Any) -> str:
    return "null" if value is None else _TYPE_NAMES.get(type(value), type(value).__name__)


def shape(value: Any, channel: str, version: str | None) -> Shape:
    """Kind, method, id and problem of one parsed JSON value that is not a batch."""
    if type(value) is not dict:
        return _INVALID, None, None, f"a JSON {type_name(value)}, not a JSON-RPC message object"
    if value.get("jsonrpc") == "2.0":
        # The most common lines (a good response, client request or notification) in a few lookups;
        # anything else (or anything doubtful) is judged by the full path below.
        rid = value.get("id", _MISSING)
        if type(rid) is int or type(rid) is str:
            if "method" not in value:
                if "error" not in value and type(value.get("result")) is dict:
                    return _RESPONSE, None, rid, None
            elif channel == IN and "result" not in value and "error" not in value:
                method = value["method"]
                params = value.get("params")
                if type(method) is str and type(params) is dict and method not in SERVER_REQUESTS:
                    if method != "tools/call":
                        return _REQUEST, method, rid, None
                    arguments = params.get("arguments", params)  # absent arguments are fine
                    if type(params.get("name")) is str and type(arguments) is dict:
                        return _REQUEST, method, rid, None
        elif rid is _MISSING and "result" not in value and "error" not in value:
            method = value.get("method")
            if type(method) is str and type(value.get("params", value)) is dict:  # absent params are fine
                return _NOTIFICATION, method, None, None
    return shape_full(value, channel, version)


def _integral(rid: Any) -> int | None:
    """An id written as a number with a zero fractional part (`1.0`, `1e2`), which is an integer:
    the schema's `RequestId` is `"type": ["string", "integer"]` in JSON Schema 2020-12, where
    "integer" matches "any number with a zero fractional part" (a Python client's `json.dumps(1.0)`;
    server-everything answers it with id 1). Read as that integer, so it pairs with its answer."""
    return int(rid) if type(rid) is float and rid.is_integer() else None


def shape_full(value: dict[str, Any], channel: str, version: str | None) -> Shape:
    """`shape` without its shortcuts: every gate, in order (the reference for the fast path)."""
    method = value.get("method", _MISSING)
    rid = value.get("id", _MISSING)
    good_id = rid if (type(rid) is int or type(rid) is str) else _integral(rid)
    name = method if type(method) is str else None
    jsonrpc = value.get("jsonrpc", _MISSING)
    if jsonrpc != "2.0" or type(jsonrpc) is not str:
        why = 'no "jsonrpc" member' if jsonrpc is _MISSING else f'"jsonrpc" is {_show(jsonrpc)}, not "2.0"'
        return _INVALID, name, good_id, why
    if method is not _MISSING:
        return _request(value, name, rid, good_id, channel, version)
    has_result = "result" in value
    has_error = "error" in value
    if has_result and has_error:
        return _INVALID, None, good_id, "a response with both result and error"
    if not has_result and not has_error:
        return _INVALID, None, good_id, "neither a request (method) nor a response (result or error)"
    if rid is _MISSING and has_result:  # an error may have no id: read as its null id (docs/check.md)
        return _INVALID, None, None, "a response without an id"
    if has_result:
        if good_id is None:
            return _INVALID, None, None, f"a response id must be a string or an integer, not {_show(rid)}"
        if type(value["result"]) is not dict:
            return (
                _INVALID,
                None,
                good_id,
                f"an MCP result is an object, not a {type_name(value['result'])}",
            )
        return _RESPONSE, None, good_id, None
    if good_id is None and rid is not None and rid is not _MISSING:
        return (
            _INVALID,
            None,
            None,
            f"an error response id must be a string, an integer or null, not {_show(rid)}",
        )
    error = value["error"]
    if type(error) is not dict or type(error.get("code")) is not int or type(error.get("message")) is not str:
        return (
            _INVALID,
            None,
            good_id,
            "error must be an object with an integer code and a string message",
        )
    return _ERROR_RESPONSE, None, good_id, None


def _request(
    value: dict[str, Any],
    name: str | None,
    rid: Any,
    good_id: int | str | None,
    channel: str,
    version: str | None,
) -> Shape:
    if name is None:
        return _INVALID, None, good_id, f"method must be a string, not {_show(value['method'])}"
    if "result" in value or "error" in value:
        return _INVALID, name, good_id, "a message with both a method and a result or error"
    params = value.get("params", _MISSING)
    if params is not _MISSING and type(params) is not dict:
        return _INVALID, name, good_id, f"params of {name} must be an object, not a {type_name(params)}"
    if rid is _MISSING:
        return _NOTIFICATION, name, None, None
    if good_id is None:
        return _INVALID, name, None, f"a request id must be a string or an integer, not {_show(rid)}"
    if channel == IN:
        if name in SERVER_REQUESTS:
            return _INVALID, name, good_id, f"{name} is a server->client request, sent by the client"
        if name == "tools/call":
            problem = _tools_call_params(params)
            if problem is not None:
                return _INVALID, name, good_id, problem
    else:
        if not server_requests_allowed(version):
            return (
                _INVALID,
                name,
                good_id,
                f"a server->client request ({name}) in protocol version {version}",
            )
        if name in CLIENT_REQUESTS:
            return _INVALID, name, good_id, f"{name} is a client->server request, sent by the server"
    return _REQUEST, name, good_id, None


def _tools_call_params(params: Any) -> str | None:
    if params is _MISSING:
        return "tools/call without params"
    if type(params.get("name")) is not str:
        return "tools/call params need a string name"
    arguments = params.get("arguments", _MISSING)
    if arguments is not _MISSING and type(arguments) is not dict:
        return f"tools/call arguments must be an object, not a {type_name(arguments)}"
    return None


def rule_of(kind: Kind, channel: str, problem: str | None) -> str | None:
    """The frame-level rule a line of this kind and problem raises (None for a good line)."""
    if kind is Kind.NON_PROTOCOL:
        return rules.NON_PROTOCOL_INPUT if channel == IN else rules.NON_PROTOCOL_OUTPUT
    if kind is Kind.INVALID:
        return rules.INVALID_MESSAGE
    if kind is Kind.BATCH and problem is not None:
        return rules.BATCH_NOT_ALLOWED
    return None


def classify_value(frame: Frame, value: Any, version: str | None) -> Message:
    """Classify an already parsed line (the part after the byte-level gates)."""
    channel = frame.channel
    if type(value) is list:
        return _batch(frame, value, version)
    kind, method, rid, problem = shape(value, channel, version)
    return Message(frame, kind, method, rid, value, problem, rule_of(kind, channel, problem))


def _batch(frame: Frame, value: list[Any], version: str | None) -> Message:
    channel = frame.channel
    items = []
    first_problem: str | None = None
    for i, item in enumerate(value):
        judged: Shape = (
            (Kind.INVALID, None, None, "a batch inside a batch")
            if type(item) is list
            else shape(item, channel, version)
        )
        kind, method, rid, problem = judged
        if problem is not None and first_problem is None:
            first_problem = f"batch item {i + 1}: {problem}"
        items.append(Message(frame, kind, method, rid, item, problem, rule_of(kind, channel, problem)))
    if not value:
        return Message(frame, Kind.INVALID, value=value, problem="an empty batch", rule=rules.INVALID_MESSAGE)
    if not batches_allowed(version):
        where = f"protocol version {version}" if version else "a session with no negotiated version"
        problem = f"a JSON-RPC batch of {len(value)} in {where} (only 2025-03-26 allows batches)"
        return Message(
            frame, Kind.BATCH, value=value, problem=problem, rule=rules.BATCH_NOT_ALLOWED, items=tuple(items)
        )
    rule = rules.INVALID_MESSAGE if first_problem is not None else None
    return Message(frame, Kind.BATCH, value=value, problem=first_problem, rule=rule, items=tuple(items))


def classify(frame: Frame, version: str | None = None) -> Message:
    """Classify one frame of `in` (client->server) or any other channel as `out` (server->client)."""
    channel = frame.channel
    if not frame.complete:
        ok, value, problem = parse(frame.raw)
        what = "a message" if ok else (problem or "not JSON")
        return Message(
            frame,
            Kind.NON_PROTOCOL,
            value=value if ok else None,
            problem=f"the stream ended without a newline after this line ({what})",
            rule=rules.INCOMPLETE_FRAME,
        )
    ok, value, problem = parse(frame.body)
    if not ok:
        return Message(
            frame, Kind.NON_PROTOCOL, problem=problem, rule=rule_of(Kind.NON_PROTOCOL, channel, problem)
        )
    return classify_value(frame, value, version)


def classify_line(raw: bytes, channel: str = "out", version: str | None = None) -> Message:
    """Classify one line given as bytes (with or without its newline), e.g. for the TUI."""
    complete = raw.endswith(b"\n")
    return classify(Frame(channel, 0, 0, raw, 0.0, complete), version)
