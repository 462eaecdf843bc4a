"""The recorded sessions as something to serve (pure): each client message and what it caused.

Every recorded client line that can cause server output is a *trigger* (`Entry`): a request
(matched later to the new client's requests), a notification, or an answer to one of the server's
own requests (legacy elicitation, sampling, roots). Each server line belongs to one trigger, the
one that caused it, and is played when the new client sends that trigger's counterpart:

* a response to request X belongs to X, or to the last answer the client gave to a server request
  after X was sent (a legacy `elicitation/create` mid-call: the call's result came after the
  client's answer, and is played after the new client's answer);
* any other server line (a notification, a server request, and with `--exact` a line that is not
  protocol) belongs to the last client line before it;
* a server line before any client line is played at start (with `--exact`: a start-up banner);
* the recorded server's exit before the client closed its stdin belongs to the last client line
  before it (`--exact` ends the session there).

MRTR rounds (an `input_required` result, then the client's retry with `requestState`) are two
requests each with their own result: they need nothing more. Framing, classification and time order
are the check core's (`messages`); a transcript is read once, through the one reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check.analyze import messages, reading_notes
from mcptape.check.model import IN, OUT, Kind, Message, RequestId
from mcptape.errors import TranscriptError
from mcptape.transcript.events import EOF_, EXIT, Event
from mcptape.transcript.reader import claims_header, line_of, open_transcript

REQUEST, NOTIFICATION, ANSWER = "request", "notification", "answer"


@dataclass(eq=False)
class Output:
    """One recorded server line to play: the classified line, and the recorded client request it
    answers (its id is then rewritten to the new client's), or the recorded server's exit."""

    message: Message | None
    answers: Entry | None = None
    exit_code: int | None = None  # set with `message` None: the recorded server ended here

    @property
    def is_exit(self) -> bool:
        return self.message is None

    @property
    def protocol(self) -> bool:
        """One complete JSON value on a line: played without `--exact` (noise is not)."""
        return self.message is not None and self.message.kind is not Kind.NON_PROTOCOL


@dataclass(eq=False)
class Entry:
    """A recorded client line that caused server output: what it was, where, and what it caused."""

    kind: str  # REQUEST, NOTIFICATION or ANSWER
    message: Message
    source: Path
    order: int  # position in the pool (file order, then time order)
    outputs: list[Output] = field(default_factory=list)
    response_t: float | None = None  # when the recorded server answered it (a request)
    uses: int = 0

    @property
    def method(self) -> str:
        return self.message.method or ""

    @property
    def id(self) -> RequestId | None:
        return self.message.id

    @property
    def params(self) -> Any:
        value = self.message.value
        return value.get("params") if type(value) is dict else None

    @property
    def line(self) -> int:
        """The transcript line of the request (1-based file line)."""
        return line_of(self.message.frame.event)

    def where(self) -> str:
        return f"{self.source.name} line {self.line}"


@dataclass
class Pool:
    """Every recorded session of a file or folder, ready to serve."""

    files: list[Path] = field(default_factory=list)
    requests: list[Entry] = field(default_factory=list)
    notifications: list[Entry] = field(default_factory=list)
    answers: dict[tuple[Path, RequestId], Entry] = field(default_factory=dict)  # by server request id
    start: list[Output] = field(default_factory=list)  # played before the client says anything
    responses: int = 0  # recorded responses to client requests
    noise: int = 0  # recorded stdout lines that are not protocol (played with --exact only)
    notes: list[str] = field(default_factory=list)
    overlap: tuple[Entry, Entry] | None = None  # the first two requests in flight at once

    def by_method(self, method: str) -> list[Entry]:
        return [e for e in self.requests if e.method == method]

    def sent_after(self, entry: Entry) -> int:
        """How many requests the recorded client sent after it had `entry`'s answer."""
        if entry.response_t is None:
            return 0
        t = entry.response_t
        return sum(1 for e in self.requests if e.source == entry.source and e.message.frame.t > t)


def transcripts_in(path: Path) -> list[Path]:
    """The file itself, or every transcript under a folder (subfolders too, sorted)."""
    if not path.exists():
        raise TranscriptError(f"{path} does not exist", hint="check the path")
    if not path.is_dir():
        return [path]
    found = sorted(p for p in path.rglob("*.jsonl") if p.is_file() and claims_header(p))
    if not found:
        raise TranscriptError(
            f"{path} holds no mcptape transcript (*.jsonl)",
            hint="record one with: mcptape record -o FILE -- CMD",
        )
    return found


def load_pool(paths: Sequence[Path]) -> Pool:
    """Read every transcript into one pool; TranscriptError when one cannot be read or none has a
    response to serve."""
    pool = Pool()
    for path in paths:
        for file in transcripts_in(path):
            _add_file(pool, file)
    if pool.responses == 0:
        where = str(paths[0]) if len(paths) == 1 else f"{len(pool.files)} transcripts"
        raise TranscriptError(
            f"{where} has no recorded response to serve (the server never answered a request)",
            hint="record a session in which the server answers: mcptape record -o FILE -- CMD",
        )
    return pool


def _add_file(pool: Pool, path: Path) -> None:
    transcript = open_transcript(path)
    ends: dict[str, float] = {}
    found = list(messages(_watch(transcript.events(), ends)))
    pool.notes.extend(f"{path.name}: {note}" for note in reading_notes(transcript))
    pool.files.append(path)
    first_file = len(pool.files) == 1
    _Builder(pool, path, first_file).build(found, ends)


def _watch(events: Iterable[Event], ends: dict[str, float]) -> Iterator[Event]:
    """The events, noting when the client closed the server's stdin and when the server exited."""
    for event in events:
        if event.ch == EOF_ and event.get("of") == IN:
            ends.setdefault("in", event.t)
        elif event.ch == EXIT:
            ends.setdefault("exit", event.t)
            code = event.get("code")
            ends["code"] = float(code) if type(code) is int else 1.0
        yield event


class _Builder:
    """Assigns each server line of one transcript to the client line that caused it."""

    def __init__(self, pool: Pool, path: Path, first_file: bool) -> None:
        self.pool = pool
        self.path = path
        self.first_file = first_file
        self.last: Entry | None = None  # the last client line that can cause output
        self.pending: dict[RequestId, Entry] = {}  # client requests not yet answered
        self.after: dict[RequestId, Entry] = {}  # request -> the last answer trigger since it was sent
        self.server_requests: set[RequestId] = set()
        self.pairs: list[tuple[Entry, Entry]] = []  # requests sent while another was in flight

    def build(self, found: list[Message], ends: dict[str, float]) -> None:
        exit_t = ends.get("exit")
        closed_t = ends.get("in")
        server_ended = exit_t is not None and (closed_t is None or exit_t < closed_t)
        for msg in found:
            if server_ended and exit_t is not None and msg.frame.t > exit_t:
                self._exit(int(ends.get("code", 0)))
                server_ended = False
            if msg.channel == IN:
                self._client(msg)
            elif msg.channel == OUT:
                self._server(msg)
        if server_ended:
            self._exit(int(ends.get("code", 0)))
        if self.pool.overlap is None:
            answered = [
                (a, b) for a, b in self.pairs if a.response_t is not None and b.response_t is not None
            ]
            self.pool.overlap = answered[0] if answered else None

    def _entry(self, kind: str, msg: Message) -> Entry:
        pool = self.pool
        entry = Entry(kind, msg, self.path, len(pool.requests) + len(pool.notifications) + len(pool.answers))
        self.last = entry
        return entry

    def _client(self, msg: Message) -> None:
        if msg.kind is Kind.REQUEST and msg.id is not None:
            entry = self._entry(REQUEST, msg)
            self.pool.requests.append(entry)
            self._note_overlap(entry)
            self.pending[msg.id] = entry
            self.after.pop(msg.id, None)
        elif msg.kind is Kind.NOTIFICATION and msg.method is not None:
            entry = self._entry(NOTIFICATION, msg)
            self.pool.notifications.append(entry)
            cancelled = _cancelled_id(msg)
            if cancelled is not None and cancelled in self.pending:
                # The answer of a cancelled request (`-32800 Request cancelled`, or the result a server
                # finished anyway) waits for the new client's own cancel, as it did in the recording.
                self.after[cancelled] = entry
        elif _is_answer(msg) and msg.id in self.server_requests:
            assert msg.id is not None
            self.server_requests.discard(msg.id)
            entry = self._entry(ANSWER, msg)
            self.pool.answers[(self.path, msg.id)] = entry
            for rid in self.pending:
                self.after[rid] = entry

    def _note_overlap(self, entry: Entry) -> None:
        """Two requests in flight at once (`entry` sent before an earlier one was answered)."""
        if self.pending and len(self.pairs) < 16:
            self.pairs.append((next(iter(self.pending.values())), entry))

    def _server(self, msg: Message) -> None:
        pool = self.pool
        if msg.kind is Kind.NON_PROTOCOL:
            pool.noise += 1
        if _is_answer(msg) and msg.id in self.pending:
            assert msg.id is not None
            request = self.pending.pop(msg.id)
            request.response_t = msg.frame.t
            owner = self.after.pop(msg.id, request)
            owner.outputs.append(Output(msg, answers=request))
            pool.responses += 1
            return
        if msg.method is not None and msg.id is not None and msg.kind in (Kind.REQUEST, Kind.INVALID):
            self.server_requests.add(msg.id)
        self._own(Output(msg))

    def _exit(self, code: int) -> None:
        self._own(Output(None, exit_code=code))

    def _own(self, output: Output) -> None:
        if self.last is not None:
            self.last.outputs.append(output)
        elif self.first_file:
            self.pool.start.append(output)


def _is_answer(msg: Message) -> bool:
    """A response-shaped line (result or error, maybe invalid) that names an id."""
    if msg.kind is Kind.RESPONSE or msg.kind is Kind.ERROR_RESPONSE:
        return msg.id is not None
    return msg.kind is Kind.INVALID and msg.method is None and type(msg.value) is dict and msg.id is not None


def _cancelled_id(msg: Message) -> Any:
    """The request id a `notifications/cancelled` names (None for any other message)."""
    if msg.method != "notifications/cancelled" or type(msg.value) is not dict:
        return None
    params = msg.value.get("params")
    rid = params.get("requestId") if type(params) is dict else None
    return rid if type(rid) is str or type(rid) is int else None  # an id a request can have
