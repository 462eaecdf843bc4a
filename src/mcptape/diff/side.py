"""One session as the diff sees it (`Side`), collected from the check core's callbacks: the client's
requests by id, every server message under the key that aligns it with the other session's, the
executor calls, stdout's non-protocol lines, the first bytes of stderr, the minted values, and the
notifications no request caused (`unsolicited`, per stream: compared by content, `diff.loose`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from mcptape.check.analyze import Analyzer
from mcptape.check.model import ERR, IN, OUT, Analysis, ExecCall, Frame, Kind, Message
from mcptape.diff.loose import Group
from mcptape.diff.minted import Minted
from mcptape.transcript.events import Event

RESPONSE, NOTIFICATION, SERVER_REQUEST, EXECUTOR = "response", "notification", "server-request", "executor"
STDERR_KEPT = 4 << 20  # bytes of stderr kept per side for --stderr
STDERR_NOTED = 64 << 10  # ... without it: the first lines, for the note that names what differs
STDOUT_KEPT = 10_000  # non-protocol stdout lines kept per side (a flooding server must not fill memory)

Key = tuple[Any, ...]


class Side:
    """What one session says, collected from the check core's callbacks."""

    def __init__(self) -> None:
        self.requests: dict[Any, int] = {}  # client request id -> requests seen with it
        self.request_msgs: dict[Key, Message] = {}
        self.items: dict[Key, tuple[str, str, Message | ExecCall]] = {}  # key -> (kind, scope, message)
        self.order: list[Key] = []
        self.per_method: Counter[tuple[str, str, Any]] = Counter()
        self.per_exec: Counter[tuple[str, Any]] = Counter()
        self.stdout: list[Frame] = []
        self.stdout_dropped = 0  # non-protocol lines past STDOUT_KEPT: counted, not compared
        self.stderr = bytearray()
        self.analysis = Analysis()
        self.minted = Minted()
        self.channels: set[str] = set()  # executor channels with at least one call
        self.progress_tokens: set[Any] = set()  # the client's `_meta.progressToken`s: what it asked for
        self.unsolicited: dict[Group, list[Key]] = {}  # notifications no request caused, per stream

    def add(self, key: Key, kind: str, scope: str, item: Message | ExecCall) -> None:
        if key not in self.items:
            self.order.append(key)
        self.items[key] = (kind, scope, item)
        if type(item) is Message:
            self.minted.server(key, scope, item)

    def on_message(self, msg: Message) -> None:
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            self._one(one)
        if msg.channel == OUT and msg.rule is not None:
            if len(self.stdout) < STDOUT_KEPT:
                self.stdout.append(msg.frame)
            else:
                self.stdout_dropped += 1

    def _one(self, msg: Message) -> None:
        kind = msg.kind
        if msg.channel == IN:
            if kind is Kind.REQUEST and msg.id is not None:
                n = self.requests.get(msg.id, 0) + 1
                self.requests[msg.id] = n
                self.request_msgs[("id", msg.id, n)] = msg
                token = _progress_token(msg.value)
                if token is not None:
                    self.progress_tokens.add(token)
            self.minted.client(msg)
            return
        if (
            kind is Kind.RESPONSE
            or kind is Kind.ERROR_RESPONSE
            or (
                kind is Kind.INVALID and msg.method is None and type(msg.value) is dict and msg.id is not None
            )
        ):
            rid = msg.id
            n = self.requests.get(rid, 0)
            key: Key = ("id", rid, n)
            request = self.request_msgs.get(key)
            scope = request.method if request is not None and request.method else "?"
            self.add(key, RESPONSE, scope, msg)
        elif msg.method is not None and kind in (Kind.NOTIFICATION, Kind.REQUEST, Kind.INVALID):
            what = NOTIFICATION if kind is Kind.NOTIFICATION or msg.id is None else SERVER_REQUEST
            stream = _stream(msg.value) if what == NOTIFICATION else None
            self.per_method[(what, msg.method, stream)] += 1
            n = self.per_method[(what, msg.method, stream)]
            key = (what, msg.method, n) if stream is None else (what, msg.method, n, stream)
            self.add(key, what, msg.method, msg)
            if what == NOTIFICATION and not self._caused(msg.value):
                self.unsolicited.setdefault((msg.method, stream), []).append(key)

    def _caused(self, value: Any) -> bool:
        """Did a request of this session cause the notification? Progress for a token the client
        sent ("Progress notifications MUST only reference tokens that: Were provided in an active
        request", 2026-07-28 basic/patterns/progress), or a cancellation naming a request."""
        params = value.get("params") if type(value) is dict else None
        if type(params) is not dict:
            return False
        token = params.get("progressToken")
        if token is not None and token in self.progress_tokens:
            return True
        return value.get("method") == "notifications/cancelled" and "requestId" in params

    def on_exec(self, call: ExecCall) -> None:
        ch = call.frame.channel
        self.channels.add(ch)
        self.per_exec[(ch, call.attributed_to)] += 1
        self.add(
            (EXECUTOR, ch, call.attributed_to, self.per_exec[(ch, call.attributed_to)]), EXECUTOR, ch, call
        )

    def feed(self, events: Iterable[Event], *, keep_stderr: bool) -> None:
        analyzer = Analyzer(on_message=self.on_message, on_exec=self.on_exec)
        for event in events:
            if event.ch == ERR and len(self.stderr) < (STDERR_KEPT if keep_stderr else STDERR_NOTED):
                self.stderr += event.data
            analyzer.feed(event)
        self.analysis = analyzer.finish()


def collect(events: Iterable[Event], *, keep_stderr: bool = False) -> Side:
    """Read one session's events through the check core."""
    side = Side()
    side.feed(events, keep_stderr=keep_stderr)
    return side


def _progress_token(value: Any) -> Any:
    """A request's `params._meta.progressToken` (None when it has none)."""
    params = value.get("params") if type(value) is dict else None
    meta = params.get("_meta") if type(params) is dict else None
    token = meta.get("progressToken") if type(meta) is dict else None
    return token if type(token) is str or type(token) is int else None


def _stream(value: Any) -> str | int | None:
    """The stream a notification belongs to: its `logger`, `progressToken` or resource `uri`."""
    params = value.get("params") if type(value) is dict else None
    if type(params) is not dict:
        return None
    for name in ("logger", "progressToken", "uri"):
        stream = params.get(name)
        if type(stream) is str or type(stream) is int:
            return stream
    return None
