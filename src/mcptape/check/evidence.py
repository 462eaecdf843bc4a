"""The promise and the evidence, as values: a tool's hints, an action read from its line, a call's record.

`Hints` are a tool's annotations from the last listing before the call; `Action` is what an executor,
stub or HTTP line did (read, change state, reach outside; ran or failed); `Call` is the record of one
`tools/call` that the rules of `check/promises.py` keep. What counts as which is documented in that
module's docstring and in docs/check.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import orjson

from mcptape.check.model import HTTP, ExecCall, Ref, RequestId
from mcptape.check.pairing import Pending
from mcptape.tap import KINDS

READ, CREATE, UPDATE, DELETE, EXTERNAL = KINDS
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
QUERIES = frozenset({"-v", "-V", "--version", "version", "-h", "--help", "help"})
"""A stub run whose only argument is one of these asks for a version or help: it changes nothing."""
IGNORED_KEYS = frozenset({"request_id", "requestId", "kind", "outcome"})
"""Keys of a tap line that do not say which effect it had (compared across calls, idempotency)."""
KEPT = 4096  # call records kept (the oldest go first), and idempotent calls remembered by arguments
RECENT = 256  # calls without a record whose first action is remembered (see `Promises.action`)
GAVE_UP = 64  # cancelled calls that acted, held against the calls sent after them
SCAN = 64  # other calls in flight looked at for an identical one
TOOLS_CALL = "tools/call"
LOOPBACK_NAMES = ("localhost", "localhost.")


class Hints(NamedTuple):
    """The annotations a listing gave one tool (None: not given), and the answer that gave them."""

    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None
    where: Ref  # the tools/list answer


def hints_of(tool: dict[str, Any], where: Ref) -> Hints | None:
    """A listed tool's annotations; None when it gives none of the four hints (judged by nothing)."""
    annotations = tool.get("annotations")
    if type(annotations) is not dict:
        return None
    values = [
        annotations.get(key) for key in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    ]
    read_only, destructive, idempotent, open_world = (v if type(v) is bool else None for v in values)
    if read_only is None and destructive is None and idempotent is None and open_world is None:
        return None
    return Hints(read_only, destructive, idempotent, open_world, where)


class Action(NamedTuple):
    """What one executor line says its action was (`what(action)` names it, for a report)."""

    call: ExecCall
    changes: bool  # may change state
    outbound: bool  # reaches outside the tool's domain (a non-loopback host, a tap kind `external`)
    kind: str | None  # the tap's `kind`, when it is one of KINDS
    ran: bool  # not reported as failed

    @property
    def what(self) -> str:
        """How a report names the action (built only for a finding)."""
        value = self.call.value
        if self.call.frame.channel == HTTP:
            if value is None:
                return "an HTTP request line that is not a JSON object"
            return f"HTTP {value.get('method')} {value.get('url') or value.get('target')}"
        if value is None:
            return "an executor line that is not a JSON object"
        if value.get("source") == "stub":
            argv = value.get("argv")
            shown = " ".join(str(a) for a in argv[:6]) if type(argv) is list else "?"
            return f"a run of the stubbed command `{shown}`"
        kind = f"kind {self.kind}" if self.kind is not None else "no kind"
        return f"tap action {value.get('action')!r} ({kind})"


def _host(target: Any, connect: bool) -> str | None:
    if type(target) is not str:
        return None
    try:
        return urlsplit("//" + target if connect else target).hostname
    except ValueError:
        return None


def _loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def action_of(call: ExecCall) -> Action:
    """Read an executor line as an action (see the module's docstring)."""
    value = call.value
    if value is None:
        return Action(call, call.frame.channel != HTTP, False, None, True)
    ran = value.get("outcome") != "failed"
    if call.frame.channel == HTTP:
        method = value.get("method")
        verb = method.upper() if type(method) is str else ""
        host = _host(value.get("url") or value.get("target"), verb == "CONNECT")
        # an unreadable line said nothing of its method; a CONNECT hides the request it tunnels
        changes = bool(verb) and verb not in SAFE_METHODS and verb != "CONNECT"
        return Action(call, changes, not _loopback(host), None, ran)
    if value.get("source") == "stub":
        argv = value.get("argv")
        query = type(argv) is list and len(argv) == 2 and type(argv[1]) is str and argv[1] in QUERIES
        return Action(call, not query, False, None, ran)
    kind = value.get("kind")
    kind = kind if type(kind) is str and kind in KINDS else None
    return Action(call, kind != READ, kind == EXTERNAL, kind, ran)


def ran_effect(call: ExecCall) -> bool:
    """`action_of(call)` ran and may change state: the common tap line read without building it."""
    value = call.value
    if value is None or call.frame.channel == HTTP or value.get("source") == "stub":
        action = action_of(call)
        return action.ran and action.changes
    return value.get("kind") != READ and value.get("outcome") != "failed"


def same_line(call: ExecCall) -> bytes | None:
    """What makes two actions of one request the same one: a tap or stub line's bytes; an HTTP
    request's method, URL and body when the line keeps the body (the cassette). None: the line
    cannot be told apart from another (the sink keeps no body)."""
    value = call.value
    if call.frame.channel != HTTP:
        return call.frame.body
    if value is None or "body" not in value:
        return None
    return _dumps([value.get("method"), value.get("url") or value.get("target"), value.get("body")])


def effect_key(call: ExecCall) -> bytes:
    """What makes actions of two calls the same effect: the line without its request id, kind and
    outcome (keys sorted); an HTTP request's method, URL and body (or body size)."""
    value = call.value
    if value is None:
        return call.frame.body
    if call.frame.channel == HTTP:
        body = value.get("body") if "body" in value else value.get("body_size")
        return _dumps([value.get("method"), value.get("url") or value.get("target"), body])
    return _dumps({k: v for k, v in value.items() if k not in IGNORED_KEYS}, call.frame.body)


def _dumps(value: Any, fallback: bytes = b"") -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):  # nested deeper than orjson writes
        return fallback or repr(value).encode()


def call_key(params: Any) -> bytes | None:
    """A tools/call's name and arguments, canonical (None when they cannot be written)."""
    if type(params) is not dict:
        return None
    key = _dumps([params.get("name"), params.get("arguments", {})])
    return key or None


@dataclass(slots=True, eq=False)
class Call:
    """A tools/call that something is judged on: its annotations in force when it was sent, and
    what its actions showed so far."""

    rid: RequestId
    request: Pending
    hints: Hints | None = None
    unlisted: Ref | None = None  # the complete listing that did not list its tool
    previous: Call | None = None  # the last identical call (idempotent tool), answered before it
    cancelled: Ref | None = None  # the client's notifications/cancelled for it
    ran: dict[bytes, ExecCall] | None = None  # same_line -> the first action of that kind that ran
    effects: set[bytes] | None = None  # effect keys of its actions that ran (idempotent tools only)
    first: ExecCall | None = None  # its first action that ran and may change state
    flagged: set[str] | None = None  # rules already reported for it (one finding each)
    parsed: Any = None

    def params(self) -> dict[str, Any]:
        """The request's params (parsed again from its line when not given)."""
        if self.parsed is None:
            try:
                value = orjson.loads(self.request.raw)
            except orjson.JSONDecodeError:
                value = None
            found = value.get("params") if type(value) is dict else None
            self.parsed = found if type(found) is dict else {}
        params: dict[str, Any] = self.parsed
        return params

    @property
    def name(self) -> str:
        return str(self.params().get("name"))

    def describe(self) -> str:
        return f"tools/call {self.name} (request {self.rid!r}, in line {self.request.line})"
