"""What a person looks for in a message, in one short line for the list.

A tool call is its tool and arguments, `forecast(city="Lyon", days=3)`; its answer is what the
tool said (`sunny`, `error: not authorised`, `[image image/png]`); a list answer is what it lists
(`2 tools: forecast, alerts`); an error is its code and message; anything else is its params or
result as compact JSON. Not the `{"jsonrpc":"2.0","id":…` every line starts with.

Every piece taken from a message goes through `mcptape.textsafe` (the one definition of unsafe
text): strings by `escape_text`, JSON by `escape_json`. Strings are cut before they are escaped,
so a huge value costs its first characters, not its size.
"""

from __future__ import annotations

from typing import Any

from mcptape.check.model import Kind, Message
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape_json, escape_text

LIMIT = 240  # characters of a line: more than any list shows
TEXT = 160  # characters of one string value
LISTED = 8  # names listed from a tools/resources/prompts list
META_PREFIX = "io.modelcontextprotocol/"  # where the 2026-07-28 revision puts client/server info
LISTS = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}

Value = Any


def essence(message: Message, method: str | None = None) -> str | None:
    """The line for `message` (`method`: the request's, for a response); None for a line that is
    not a well-formed message (its raw bytes say more)."""
    value = message.value
    if not isinstance(value, dict) or message.kind in (Kind.INVALID, Kind.NON_PROTOCOL, Kind.BATCH):
        return None
    if message.kind is Kind.ERROR_RESPONSE:
        line = _error(value.get("error"))
    elif message.kind is Kind.RESPONSE:
        line = _result(value.get("result"), method)
    else:
        line = _params(message.method or "", value.get("params"))
    return _cut(line)


# -- requests and notifications -------------------------------------------------------------------
def _params(method: str, params: Value) -> str:
    if not isinstance(params, dict):
        return "" if params is None else _json(params)
    if method == "tools/call" or method == "prompts/get":
        return _call(params.get("name"), params.get("arguments"))
    if method == "resources/read" or method.startswith("resources/"):
        uri = params.get("uri")
        if isinstance(uri, str):
            return _text(uri)
    if method == "initialize" or method == "server/discover":
        return _peer(_said(params, "clientInfo"), _said(params, "protocolVersion"))
    if method == "notifications/message":
        level = params.get("level")
        return f"{_text(level) if isinstance(level, str) else '?'}: {_scalar(params.get('data'))}"
    if method == "notifications/progress":
        done, total, note = params.get("progress"), params.get("total"), params.get("message")
        line = _scalar(done) + ("" if total is None else f"/{_scalar(total)}")
        return line + (f" {_text(note)}" if isinstance(note, str) else "")
    return _json(_without_meta(params)) if _without_meta(params) else ""


def _call(name: Value, arguments: Value) -> str:
    """`name(key=value, ...)`: a call as a person writes it (values as JSON)."""
    shown = _text(name) if isinstance(name, str) else _json(name)
    if isinstance(arguments, dict):
        inner = ", ".join(f"{_text(str(key))}={_json(item)}" for key, item in _first(arguments.items()))
        if len(arguments) > LISTED:
            inner += ", …"
    elif arguments is None:
        inner = ""
    else:
        inner = _json(arguments)
    return f"{shown}({inner})"


def _peer(info: Value, version: Value) -> str:
    """`name version · protocol` of an initialize request's client or result's server."""
    parts = []
    if isinstance(info, dict):
        named = (info.get("name"), info.get("version"))
        parts.append(" ".join(_text(v) for v in named if isinstance(v, str) and v))
    if isinstance(version, str):
        parts.append(f"protocol {_text(version)}")
    return " · ".join(p for p in parts if p)


# -- responses ---------------------------------------------------------------------------------------
def _result(result: Value, method: str | None) -> str:
    if not isinstance(result, dict):
        return _json(result)
    if method == "tools/call" or (method is None and "content" in result):
        return _tool_result(result)
    for listing, key in (
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
    ):
        if method == listing and isinstance(result.get(key), list):
            return _listing(key, result[key])
    if method == "resources/templates/list" and isinstance(result.get("resourceTemplates"), list):
        return _listing("resourceTemplates", result["resourceTemplates"])
    if method == "initialize" or method == "server/discover":
        versions = result.get("supportedVersions")
        version = _said(result, "protocolVersion")
        if version is None and isinstance(versions, list):
            version = ", ".join(v for v in versions if isinstance(v, str))
        return _peer(_said(result, "serverInfo"), version)
    if method == "resources/read" and isinstance(result.get("contents"), list):
        return " | ".join(_content(item) for item in _first(result["contents"]))
    if method == "prompts/get" and isinstance(result.get("messages"), list):
        return " | ".join(
            _content(m.get("content")) for m in _first(result["messages"]) if isinstance(m, dict)
        )
    rest = _without_meta(result)
    return _json(rest) if rest else "{}"


def _tool_result(result: dict[str, Value]) -> str:
    content = result.get("content")
    if isinstance(content, list) and content:
        line = " | ".join(_content(item) for item in _first(content))
    elif "structuredContent" in result:
        line = _json(result["structuredContent"])
    else:
        line = _json(_without_meta(result)) if _without_meta(result) else "(no content)"
    return f"error: {line}" if result.get("isError") is True else line


def _content(item: Value) -> str:
    """One content block: its text, or what it is (`[image image/png]`, `[resource file:///x]`)."""
    if not isinstance(item, dict):
        return _json(item)
    kind = item.get("type")
    text = item.get("text")
    if isinstance(text, str):
        return _text(text)
    uri = item.get("uri")
    resource = item.get("resource")
    if isinstance(resource, dict):
        uri = resource.get("uri", uri)
        if isinstance(resource.get("text"), str):
            return _text(resource["text"])
    what = _text(kind) if isinstance(kind, str) else "content"
    detail = uri if isinstance(uri, str) else item.get("mimeType")
    return f"[{what} {_text(detail)}]" if isinstance(detail, str) else f"[{what}]"


def _listing(key: str, items: list[Value]) -> str:
    names = [item.get("name", item.get("uri")) for item in items if isinstance(item, dict)]
    shown = ", ".join(_text(n) for n in _first(names) if isinstance(n, str))
    more = ", …" if len(names) > LISTED else ""
    noun = {"resourceTemplates": "templates"}.get(key, key)
    return f"{len(items)} {noun[:-1] if len(items) == 1 else noun}: {shown}{more}"


def _error(error: Value) -> str:
    if not isinstance(error, dict):
        return f"error: {_json(error)}"
    code, message = error.get("code"), error.get("message")
    line = f"error {_scalar(code)}" if code is not None else "error"
    return f"{line}: {_text(message)}" if isinstance(message, str) else line


# -- pieces --------------------------------------------------------------------------------------------
def _first(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if len(out) == LISTED:
            break
        out.append(item)
    return out


def _said(value: dict[str, Value], key: str) -> Value:
    """A member of `value`, or (the stateless revision) of its `_meta` under the protocol's prefix."""
    if key in value:
        return value[key]
    meta = value.get("_meta")
    return meta.get(META_PREFIX + key) if isinstance(meta, dict) else None


def _without_meta(value: dict[str, Value]) -> dict[str, Value]:
    return {k: v for k, v in value.items() if k != "_meta"} if "_meta" in value else value


def _text(text: str) -> str:
    """A string value, escaped, cut to TEXT characters."""
    return escape_text(text[:TEXT]) + ("…" if len(text) > TEXT else "")


def _scalar(value: Value) -> str:
    return _text(value) if isinstance(value, str) else _json(value)


def _json(value: Value) -> str:
    """Compact JSON, safe for a terminal (a long value is cut)."""
    if isinstance(value, str) and len(value) > TEXT:
        value = value[:TEXT] + "…"
    text = dumps(value, default=repr)
    return escape_json(text[: LIMIT * 2])


def _cut(line: str) -> str:
    return line if len(line) <= LIMIT else line[: LIMIT - 1] + "…"
