"""Play a recorded HTTP cassette back: the replayed server's requests are answered from the transcript.

A transcript recorded with `mcptape record --http-cassette` holds one `http` line per exchange
(`recorder/outbound/cassette.py`). On replay the same proxy front (`recorder/outbound/proxy.py`:
plain HTTP, and HTTPS terminated with a CA fresh for the replay) takes each request, and `Player` answers it:

* the request is matched against the recorded ones by a `Matcher`: by default method, URL and
  body, as vcrpy does (`--http-match` chooses other fields);
* the first recorded exchange with the same key that was not served yet is served (so two
  identical requests get the two recorded answers, in their recorded order);
* a request with no recorded answer left gets `502 Bad Gateway` and is listed in `unmatched`.

Nothing is forwarded: there is no code here, or in the proxy front, that opens a connection. The
line written for a served request is the new request with the recorded answer, so a replay that
makes the same requests writes the same lines.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from mcptape.errors import UsageError
from mcptape.recorder.outbound.exchange import FAILED, body_bytes, encode_content, outcome, request_line
from mcptape.replay.outcome import Issue
from mcptape.transcript.events import Event

if TYPE_CHECKING:  # the proxy (h11, and cryptography for its CA) is imported only to play a cassette
    from mcptape.recorder.outbound.httpmsg import Request, Responder
    from mcptape.recorder.outbound.proxy import CassetteProxy
    from mcptape.recorder.sinks import Sink

DEFAULT_MATCH = ("method", "url", "body")
FIELDS = ("method", "url", "scheme", "host", "port", "path", "query", "body", "headers")
HEADER = "header:"
NO_BODY = (204, 304)


class Matcher:
    """What makes a request the same as a recorded one: a list of fields, compared for equality.

    `method`, `url` (the whole URL as recorded, credentials redacted), `scheme`, `host`, `port`,
    `path`, `query` (its parameters, in any order), `body` (exact bytes), `headers` (every request
    header, in order) and `header:NAME` (the values of one header, any case of NAME).
    """

    def __init__(self, fields: Sequence[str] = DEFAULT_MATCH) -> None:
        self.fields = tuple(fields)

    @classmethod
    def parse(cls, spec: str | Sequence[str] | None) -> Matcher:
        """From `"method,url"` (or a list of fields); UsageError naming an unknown field."""
        if spec is None:
            return cls()
        items = spec.split(",") if isinstance(spec, str) else list(spec)
        fields = [f.strip() for f in items if f.strip()]
        if not fields:
            raise UsageError(
                "--http-match names no field", hint=f"use some of: {', '.join(FIELDS)}, header:NAME"
            )
        for name in fields:
            if name not in FIELDS and not (name.startswith(HEADER) and len(name) > len(HEADER)):
                raise UsageError(
                    f"--http-match: unknown field {name!r}",
                    hint=f"use some of: {', '.join(FIELDS)}, header:NAME",
                )
        return cls(fields)

    def __str__(self) -> str:
        return ",".join(self.fields)

    def key(self, line: Mapping[str, Any]) -> tuple[Any, ...]:
        """The matching key of an `http` line (recorded, or built from a new request)."""
        url = str(line.get("url", ""))
        parts = urlsplit(url)
        out: list[Any] = []
        for name in self.fields:
            if name == "method":
                out.append(line.get("method"))
            elif name == "url":
                out.append(url)
            elif name == "scheme":
                out.append(parts.scheme)
            elif name == "host":
                out.append(parts.hostname)
            elif name == "port":
                out.append(_port(parts.scheme, parts))
            elif name == "path":
                out.append(parts.path)
            elif name == "query":
                out.append(tuple(sorted(parse_qsl(parts.query, keep_blank_values=True))))
            elif name == "body":
                try:
                    out.append(body_bytes(line))
                except ValueError:
                    out.append(None)
            else:
                headers = [tuple(h) for h in line.get("headers") or () if isinstance(h, list | tuple)]
                if name == "headers":
                    out.append(tuple(headers))
                else:
                    wanted = name[len(HEADER) :].lower()
                    out.append(tuple(h[1] for h in headers if len(h) == 2 and str(h[0]).lower() == wanted))
        return tuple(out)


def _port(scheme: str, parts: Any) -> int | None:
    try:
        port = parts.port
    except ValueError:
        return None
    return port if port is not None else {"http": 80, "https": 443}.get(scheme)


def is_exchange(line: Any) -> bool:
    """A line the cassette recorded for a request (not a sink line, not a refused tunnel)."""
    return (
        isinstance(line, dict)
        and isinstance(line.get("url"), str)
        and isinstance(line.get("method"), str)
        and ("response" in line or "error" in line)
        and line.get("method") != "CONNECT"
    )


def exchanges(events: Iterable[Event]) -> list[dict[str, Any]]:
    """The recorded exchanges of a transcript's `http` lines, in order."""
    found: list[dict[str, Any]] = []
    pending = b""
    for event in events:
        if event.ch != "http":
            continue
        pending += event.data
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            try:
                line = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if is_exchange(line):
                found.append(line)
    return found


def has_cassette(header_extra: Mapping[str, Any]) -> bool:
    """The header says the recording ran with `--http-cassette`."""
    effects = header_extra.get("side_effects")
    return isinstance(effects, dict) and bool(effects.get("http_cassette"))


class Player:
    """The cassette backend: answers requests from recorded exchanges, never from the network."""

    def __init__(self, recorded: Iterable[Mapping[str, Any]], matcher: Matcher | None = None) -> None:
        self.matcher = matcher or Matcher()
        self.total = 0
        self._left: dict[tuple[Any, ...], deque[Mapping[str, Any]]] = {}
        for line in recorded:
            self._left.setdefault(self._key(line), deque()).append(line)
            self.total += 1
        self.served = 0
        self.unmatched: list[str] = []  # "GET https://host/path" of each request with no answer
        self._lock = threading.Lock()

    def _key(self, line: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(repr(v) if isinstance(v, list | dict) else v for v in self.matcher.key(line))

    def listener(self, sink: Sink) -> CassetteProxy:
        """The started proxy, answering from the cassette and recording on `sink`."""
        from mcptape.recorder.outbound.proxy import CassetteProxy

        return CassetteProxy(sink, self, request_line).start()

    def session(self) -> Player:
        return self

    def close(self) -> None:
        pass

    @property
    def left(self) -> int:
        """Recorded exchanges no request asked for (yet)."""
        with self._lock:
            return sum(len(q) for q in self._left.values())

    def exchange(self, request: Request, respond: Responder) -> dict[str, Any]:
        line = request_line(request)
        with self._lock:
            queue = self._left.get(self._key(line))
            recorded = queue.popleft() if queue else None
            if recorded is None:
                self.unmatched.append(f"{line['method']} {line['url']}")
            else:
                self.served += 1
        if recorded is None:
            message = f"no recorded response for {line['method']} {line['url']} (matching on {self.matcher})"
            respond.fail(502, message)
            return {"error": message, "reply": 502, "outcome": FAILED}
        return serve(recorded, request, respond)


def serve(recorded: Mapping[str, Any], request: Request, respond: Responder) -> dict[str, Any]:
    """Send the recorded answer; return the fields the recorded line had for it."""
    from mcptape.recorder.outbound.httpmsg import HOP_BY_HOP

    answer = {k: recorded[k] for k in ("response", "reply", "outcome", "error") if k in recorded}
    response = recorded.get("response")
    if not isinstance(response, dict):
        respond.fail(502, str(recorded.get("error", "the recorded request had no response")))
        return answer
    status = response.get("status")
    if not isinstance(status, int) or not 200 <= status <= 599:
        respond.fail(502, f"the recorded status {status!r} cannot be served")
        return answer
    try:
        body = body_bytes(response)
    except ValueError:
        respond.fail(502, "the recorded body is not readable")
        return answer
    coding = response.get("decoded")
    if isinstance(coding, str) and coding:
        body = encode_content(coding, body)
    recorded_headers = [h for h in response.get("headers") or () if isinstance(h, list) and len(h) == 2]
    headers = [(str(n), str(v)) for n, v in recorded_headers if str(n).lower() not in HOP_BY_HOP]
    if request.method == "HEAD" or status in NO_BODY:
        headers += [(str(n), str(v)) for n, v in recorded_headers if str(n).lower() == "content-length"][-1:]
        body = b""
    else:
        headers.append(("Content-Length", str(len(body))))
    respond.head(status, str(response.get("reason", "")), headers)
    respond.data(body)
    respond.end()
    answer.setdefault("reply", status)
    answer.setdefault("outcome", outcome(status))
    return answer


UNMATCHED_HTTP = "unmatched-http"  # the replay's issue kind (stable: `--json` prints it)


def cassette_player(
    header_extra: Mapping[str, Any], events: Iterable[Event], match: str | Sequence[str] | None = None
) -> Player | None:
    """The player for a transcript recorded with a cassette, or None (the replay keeps the sink).
    A bad `match` raises UsageError even when there is no cassette."""
    matcher = Matcher.parse(match)
    recorded = exchanges(events)
    if not recorded and not has_cassette(header_extra):
        return None
    return Player(recorded, matcher)


def unmatched_issues(player: Player) -> list[Issue]:
    """One warning per request the cassette had no answer for (the diff shows what changed)."""
    return [
        Issue(
            UNMATCHED_HTTP,
            f"{request}: no recorded response (matching on {player.matcher}); the cassette answered 502",
            error=False,
        )
        for request in player.unmatched
    ]
