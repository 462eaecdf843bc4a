"""What the probe saw while it drove one case (the live facts the transcript alone does not say)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from mcptape.probe.cases import Bad, Call, Case
from mcptape.recorder.session import ExitStatus

PING_ID = "probe-ping"
AFTER_ID = "probe-after"
PING_STEP = "ping"  # the names of the steps after the bad frame, as `Observed.gone` records them
AFTER_STEP = "the valid request after it"
CALL_ID = 3  # the valid call of a start case (1 = initialize or server/discover, 2 = tools/list)


class Verdict(StrEnum):
    PASS = "pass"
    WARN = "warning"
    FAIL = "FAIL"
    NA = "n/a"
    # The valid request itself was refused, so a refusal of the hard input proves nothing.
    INCONCLUSIVE = "inconclusive"
    ACCEPTED = "accepted"  # a deviation the team's baseline accepts (--baseline; `was` keeps it)


@dataclass
class Observed:
    """The live record of one case: what was sent, what went unanswered, how the server ended."""

    case: Case
    path: Path
    marker: str
    command: list[str]
    bad: Bad | None = None
    call: Call | None = None
    version: str | None = None
    stateless: bool = False
    tools: list[dict[str, Any]] | None = None
    hung: str | None = None  # what went unanswered within the timeout
    gone: str | None = None  # the server ended the session before answering this
    refused: str | None = None  # a handshake step answered with an error
    call_error: str | None = None  # the valid call of a start case was answered with an error
    call_id: Any = CALL_ID  # the id of the valid call the start case counted (the last one tried)
    tried: list[str] = field(default_factory=list)  # valid calls tried and refused before it
    call_seconds: float = 0.0  # how long the valid call of a start case took to be answered
    discover: str | None = None  # server/discover not supported (how it said so)
    lingered: float | None = None  # seconds waited after stdin closed, when the server stayed up
    status: ExitStatus | None = None
    seconds: float = 0.0
    steps: list[str] = field(default_factory=list)
    # Hard inputs that share a server process are each judged in a window of its transcript: from
    # the handshake (the process's first case) or its own frame, to the next case's frame.
    ping_id: Any = PING_ID
    after_id: Any = AFTER_ID
    from_start: bool = True  # the window opens at the start of the transcript (the handshake)
    until: str | None = None  # the next case's marker in the same transcript: the window's end
