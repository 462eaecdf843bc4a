"""What a replay reports of its own run, whatever the transport: the issues it ran into, the minted
values it carried over, how far it got and how the server ended (`Run`). Both drivers fill a `Run`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcptape.diff.minted import Use
from mcptape.recorder.session import ExitStatus

if TYPE_CHECKING:
    from mcptape.replay.guard import HeldCall

# Issue kinds (stable: `--json` prints them)
STEP_TIMEOUT = "step-timeout"
SERVER_EXITED = "server-exited"
UNANSWERABLE_REQUEST = "unanswerable-request"
EXECUTED_ACTIONS = "executed-actions"
UNMATCHED_SECRET = "unmatched-secret"
MISSING_SERVER_REQUEST = "missing-server-request"
UNMINTED_VALUE = "unminted-value"
HELD_CALLS = "held-calls"  # tools/call frames not sent: they may change data (replay.guard)


@dataclass(frozen=True)
class Issue:
    """Something the replay itself ran into. `error` issues fail the replay; warnings do not."""

    kind: str
    message: str
    error: bool = True


@dataclass(frozen=True)
class Substitution:
    """A value the recorded server minted, replaced in the client's bytes by the new server's: the
    recorded `use` (where the client sent it, where the server minted it) and the `new` value."""

    use: Use
    new: str
    reencoded: bool = False  # the line was written again (the value was escaped in the recording)


@dataclass
class Run:
    """How the replay went: the new transcript, how far it got, how the server ended."""

    path: Path
    sent: int = 0
    total: int = 0
    completed: bool = False
    status: ExitStatus | None = None
    issues: list[Issue] = field(default_factory=list)
    answered: int = 0  # server->client requests answered from the recording
    substitutions: list[Substitution] = field(default_factory=list)  # minted values carried over
    seconds: float = 0.0
    write_error: OSError | None = None  # the new transcript could not be written (a full disk)
    held: list[HeldCall] = field(default_factory=list)  # client frames not sent (replay.guard)
    ran_writers: list[str] = field(default_factory=list)  # --allow-mutating: tools that may write, called
