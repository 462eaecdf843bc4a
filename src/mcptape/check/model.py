"""The values the analysis produces: frames, classified messages, executor calls, findings.

All of them are plain immutable values (no I/O, no methods that compute much), so the CLI report,
the JSON output, replay's diff and the TUI can share them. Channels are the transcript's:
`in` is client->server (the server's stdin), `out` is server->client (its stdout).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field
from enum import StrEnum
from math import frexp
from typing import Any, NamedTuple, Protocol, TypedDict

IN, OUT, ERR, EXEC, HTTP = "in", "out", "err", "exec", "http"
PROTOCOL_CHANNELS = (OUT, IN)
EXECUTOR_CHANNELS = frozenset({EXEC, HTTP})
DIRECTION = {IN: "client->server", OUT: "server->client"}

RequestId = int | str


class Kind(StrEnum):
    """What one line of `in` or `out` is."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"
    ERROR_RESPONSE = "error-response"
    BATCH = "batch"
    INVALID = "invalid"  # one JSON value, but not a JSON-RPC message allowed here
    NON_PROTOCOL = "non-protocol"  # not exactly one UTF-8 JSON value on a newline-terminated line


class Severity(StrEnum):
    ERROR = "error"  # a MUST broken, or an action for input that was certainly rejected
    WARNING = "warning"  # likely wrong, or ambiguous
    INFO = "info"  # worth seeing, not a fault (a client mistake the server handled well)


SERVER, CLIENT, CAPTURE = "server", "client", "capture"  # a finding's party: who broke the rule
TRANSCRIPT = "transcript"  # the channel of a finding about the recording itself (incomplete-capture)


@dataclass(frozen=True, slots=True)
class Frame:
    """One line of a byte channel, rebuilt from the transcript's fragments.

    `raw` holds the exact bytes including the terminating newline when `complete`; a stream that
    ends without a newline gives a last frame with `complete=False`. `line` is 1-based, `offset`
    is the byte offset of the line's first byte in that channel's stream, `t` the time of the
    event that completed it, `events` the indexes of the transcript events it came from.
    """

    channel: str
    line: int
    offset: int
    raw: bytes
    t: float
    complete: bool = True
    events: tuple[int, ...] = ()

    @property
    def body(self) -> bytes:
        """The line without its terminating newline."""
        return self.raw[:-1] if self.complete and self.raw.endswith(b"\n") else self.raw

    @property
    def event(self) -> int:
        """Index of the first transcript event of this frame (-1 when unknown)."""
        return self.events[0] if self.events else -1


@dataclass(frozen=True, slots=True)
class Message:
    """A classified protocol line (`in` or `out`).

    `value` is the parsed JSON (None for a non-protocol line); `id` is set only when it is a
    valid JSON-RPC id (string or integer); `problem` says why a line is INVALID or NON_PROTOCOL
    (or why a BATCH is not allowed); `rule` is the id of the frame-level finding this line raises
    by itself (`non-protocol-output`, `non-protocol-input`, `incomplete-frame`, `invalid-message`,
    `batch-not-allowed`), None for a good line. A batch lists its members in `items`.
    """

    frame: Frame
    kind: Kind
    method: str | None = None
    id: RequestId | None = None
    value: Any = None
    problem: str | None = None
    rule: str | None = None
    items: tuple[Message, ...] = ()

    @property
    def channel(self) -> str:
        return self.frame.channel

    @property
    def direction(self) -> str:
        return DIRECTION.get(self.frame.channel, self.frame.channel)

    @property
    def ok(self) -> bool:
        """True for a line that is protocol and raises no frame-level finding."""
        return self.rule is None


@dataclass(frozen=True, slots=True)
class ExecCall:
    """One line of the `exec` or `http` channel: a side effect the server performed.

    `value` is the parsed JSON object (None when the line is not a JSON object: it still counts),
    `request_id` the id it names, `attributed_to` the id of the `in` request it was attributed to
    (by `request_id`, else by time), None when no request was in flight.
    """

    frame: Frame
    value: dict[str, Any] | None
    request_id: RequestId | None
    attributed_to: RequestId | None


@dataclass(frozen=True, slots=True)
class Ref:
    """A pointer to another line a finding names (`role` says why: "exec", "error-response", ...)."""

    role: str
    channel: str
    line: int
    offset: int
    raw: bytes
    event: int = -1


class At(NamedTuple):
    """A line's place: the channel it was read on, its 1-based line number and byte offset in that
    channel's stream, the line as read (newline included: `str` on the analysis' fast path, `bytes`
    off it), its time and the transcript event it came from. The session and every rule that may
    point at a line are handed one; the hot loop builds it with `tuple.__new__(At, ...)` (a
    NamedTuple's own constructor costs ~2x that) and the raw bytes only for a finding."""

    channel: str
    line: int
    offset: int
    raw: str | bytes
    t: float
    event: int

    @classmethod
    def of(cls, frame: Frame) -> At:
        """The place of a frame (the general path)."""
        return cls(frame.channel, frame.line, frame.offset, frame.raw, frame.t, frame.event)

    @property
    def body(self) -> bytes:
        """The line as bytes, without its newline (what a finding shows)."""
        raw = self.raw
        return (raw.encode() if isinstance(raw, str) else raw).rstrip(b"\n")

    def ref(self, role: str) -> Ref:
        """A pointer to this line, for a finding's `related` list."""
        return Ref(role, self.channel, self.line, self.offset, self.body, self.event)


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation: which rule, where (channel, 1-based line, byte offset, raw bytes), and why."""

    rule: str
    severity: Severity
    channel: str
    line: int
    offset: int
    raw: bytes
    message: str
    request_id: RequestId | None = None
    t: float | None = None
    event: int = -1
    related: tuple[Ref, ...] = ()
    party: str = ""  # SERVER, CLIENT (who broke the rule), or CAPTURE (the recording itself)


@dataclass(frozen=True, slots=True)
class FirstNonProtocol:
    """The first line of a direction that is not protocol, and the message before it."""

    frame: Frame
    problem: str
    previous: Frame | None


BUCKETS = 64


def bucket(seconds: float) -> int:
    """Histogram bucket of a latency: powers of two from 1 µs."""
    if seconds <= 1e-6:
        return 0
    return min(BUCKETS - 1, frexp(seconds * 1e6)[1])


def bucket_upper(index: int) -> float:
    """Upper bound, in seconds, of bucket `index`."""
    return float(2**index) * 1e-6


@dataclass
class Latency:
    """Request->response latency, summarised in constant memory (log-scale histogram)."""

    count: int = 0
    total: float = 0.0
    max: float = 0.0
    buckets: list[int] = field(default_factory=lambda: [0] * BUCKETS)

    def add(self, seconds: float) -> None:
        """One request->response pair (the session's hot path has this inlined)."""
        self.count += 1
        self.total += seconds
        if seconds > self.max:
            self.max = seconds
        self.buckets[bucket(seconds)] += 1

    def percentile(self, p: float) -> float:
        """Upper bound of the bucket holding the p-th percentile (0 <= p <= 100), in seconds."""
        if self.count == 0:
            return 0.0
        rank = max(1, round(self.count * p / 100))
        seen = 0
        for i, n in enumerate(self.buckets):
            seen += n
            if seen >= rank:
                return min(bucket_upper(i), self.max)
        return self.max


@dataclass
class Stderr:
    """Where the server's stderr is in the transcript, and its first bytes (bounded)."""

    first_event: int = -1
    lines: int = 0
    size: int = 0
    head: bytearray = field(default_factory=bytearray)
    truncated: bool = False


class Watch(Protocol):
    """A listener for a few messages only, where `on_message` would hear every line (and cost a
    Frame and a Message each): the analysis hands `feed` every request or notification whose method
    is in `methods`, every answer whose id is in `answers` (both read as the analysis goes, so
    `answers` may grow and shrink), and every message that leaves the fast path (batches, rejected
    or fragmented lines: the watch filters those itself). What `check` watches the tool surface with
    (surface.findings.SessionSurface), at no cost to the other lines."""

    @property
    def methods(self) -> Container[str]: ...

    @property
    def answers(self) -> Container[RequestId]: ...

    def feed(self, message: Message) -> None: ...


class Callbacks(TypedDict, total=False):
    """What an analysis tells its caller as it goes, each optional (see `Analyzer`): declared here
    once, passed as keywords (`Analyzer(on_message=...)`, `analyze_file(path, **callbacks)`) and
    kept as this one dict by the session (a `snapshot` swaps it for the copy's)."""

    on_message: Callable[[Message], None] | None
    on_exec: Callable[[ExecCall], None] | None
    on_finding: Callable[[Finding], None] | None
    on_pair: Callable[[int, int, float], None] | None
    """(request event index, response event index, latency in seconds)"""
    on_reject: Callable[[int, str], None] | None
    """(response event index, why): an answer rejected a client request"""
    watch: Watch | None
    """the few messages a `Watch` asks for (see `Watch`)"""


@dataclass
class Analysis:
    """Everything `analyze` found in one transcript."""

    findings: list[Finding] = field(default_factory=list)
    first_non_protocol: dict[str, FirstNonProtocol | None] = field(
        default_factory=lambda: {OUT: None, IN: None}
    )
    protocol_version: str | None = None
    stateless: bool = False
    messages: dict[str, int] = field(default_factory=lambda: {OUT: 0, IN: 0})
    requests: int = 0  # client requests (good ones)
    rejects: int = 0  # requests rejected (error, isError, outside the schema) + rejected input lines
    exec_calls: int = 0
    latency: Latency = field(default_factory=Latency)
    stderr: Stderr = field(default_factory=Stderr)
    exit_code: int | None = None
    exit_signal: int | None = None
    exited: bool = False
    findings_truncated: int = 0
    errors_truncated: int = 0  # how many of the findings not kept are errors
    notes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.findings and not self.findings_truncated

    @property
    def errors(self) -> int:
        """Findings of severity error, the ones not kept included."""
        return sum(1 for f in self.findings if f.severity is Severity.ERROR) + self.errors_truncated
