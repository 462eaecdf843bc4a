"""A case's transcript as the probe reads it (`judge`): what the check core classified (`Seen`,
`read`), the part of it that is one case's (`window`), and the server's answers to a bad frame
(`answers`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check.analyze import analyze_file
from mcptape.check.model import IN, OUT, Analysis, ExecCall, Message
from mcptape.probe.driver import same_id
from mcptape.probe.observed import Observed


@dataclass
class Seen:
    """The transcript, as the check core classified it: every `in` message (what the probe sent),
    and the `out` values that carry an id (answers). A server's notifications and noise are not
    kept: no verdict depends on them, and a server that floods stdout would fill memory."""

    messages: list[Message] = field(default_factory=list)
    calls: list[ExecCall] = field(default_factory=list)

    def keep(self, message: Message) -> None:
        value = message.value
        if message.channel == IN or isinstance(value, list) or (isinstance(value, dict) and "id" in value):
            self.messages.append(message)

    def first_in(self, test: Any) -> float | None:
        times = [m.frame.t for m in self.messages if m.channel == IN and test(m)]
        return min(times) if times else None


Read = tuple[Seen, Analysis]  # a transcript as the check core read it: what `Seen` kept, the analysis


def read(path: Path) -> Read:
    """The check core's analysis of a transcript, once for every case it holds (`judge(..., read=)`)."""
    seen = Seen()
    _, analysis = analyze_file(str(path), on_message=seen.keep, on_exec=seen.calls.append)
    return seen, analysis


def window(observed: Observed, seen: Seen) -> tuple[float, float]:
    """The part of the transcript that is this case's (in transcript seconds): all of it, or, for
    hard inputs sharing a process, from the handshake or the case's own frame to the next case's."""
    start = 0.0
    if not observed.from_start:
        marker = observed.marker.encode()
        start = seen.first_in(lambda m: marker in m.frame.raw) or 0.0
    end = float("inf")
    if observed.until is not None:
        until = observed.until.encode()
        end = seen.first_in(lambda m: until in m.frame.raw) or end
    return start, end


def message_id(value: Any) -> Any:
    return value.get("id", NO_ID) if isinstance(value, dict) else NO_ID


NO_ID = object()


def answers(seen: Seen, t_bad: float | None, ids: tuple[Any, ...], end: float) -> tuple[list[str], int]:
    """The server's answers to the bad frame: error codes (rejects) and the number of results."""
    rejected: list[str] = []
    accepted = 0
    if t_bad is None:
        return rejected, accepted
    for message in seen.messages:
        if message.channel != OUT or message.frame.t < t_bad or message.frame.t >= end:
            continue
        values = message.value if isinstance(message.value, list) else [message.value]
        for value in values:
            if not isinstance(value, dict):
                continue
            rid = message_id(value)
            ours = any(same_id(rid, i) for i in ids)
            error = value.get("error")
            result = value.get("result")
            if ours and isinstance(result, dict) and result.get("isError") is not True:
                accepted += 1
            elif ours or (rid is None and error is not None):
                code = error.get("code") if isinstance(error, dict) else None
                rejected.append(f"error {code}" if code is not None else "isError result")
    return rejected, accepted
