"""The diff's values: the aligned `Pair`s of two sessions' messages, each side's `ExitInfo`, and the
`Diff` that holds them with what else differed (stdout, findings, exit, stderr) and what the ignore
rules hid. `sessions.py` computes them; the renderers and the replay read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcptape.check.model import Analysis, ExecCall, Finding, Frame, Message
from mcptape.diff.compare import Change, Hidden
from mcptape.diff.ignore import Rule
from mcptape.diff.loose import Group
from mcptape.diff.minted import Carried
from mcptape.diff.side import RESPONSE, Key


@dataclass
class Pair:
    """One aligned pair: the old and the new version of a message (either may be missing).

    `kind` is response / notification / server-request / executor; `scope` the method (for a
    response: the method of the request it answers) or `exec`/`http`; `key` what aligned them:
    ("id", id, n) for a response, (method, n) for a notification or server request,
    ("executor", channel, request id, n) for an executor call; a notification of a stream has the
    stream last: (method, n, stream). `request` is the client request a response answers (from the
    old session when it has one). `target` is what a rule's `METHOD[TARGET]` names: the tool or prompt
    name or resource uri of that request, or a notification's stream.
    """

    kind: str
    scope: str
    key: Key
    old: Message | ExecCall | None = None
    new: Message | ExecCall | None = None
    request: Message | None = None
    changes: list[Change] = field(default_factory=list)
    hidden: list[Hidden] = field(default_factory=list)
    carried: list[Carried] = field(default_factory=list)  # minted values, compared by presence
    unobserved: str | None = None  # why it was not compared: one session did not watch its channel
    target: str | None = None
    unsolicited: bool = False  # a notification no request caused: paired by content (sessions.py)
    allowed: Rule | None = None  # the `count=` rule that lets it come and go (then it is not a difference)
    held: str | None = None  # why the replay did not send the request that caused it (replay.guard)

    @property
    def differs(self) -> bool:
        if self.unobserved is not None or self.allowed is not None or self.held is not None:
            return False
        return self.old is None or self.new is None or bool(self.changes)

    @property
    def request_id(self) -> Any:
        return self.key[1] if self.kind == RESPONSE else None


@dataclass(frozen=True)
class ExitInfo:
    exited: bool
    code: int | None
    signal: int | None

    def __str__(self) -> str:
        if not self.exited:
            return "no exit recorded"
        if self.signal is not None:
            return f"killed by signal {self.signal}"
        return f"exit code {self.code}"


@dataclass
class Diff:
    """Everything that differs between two sessions, and what the ignore rules hid."""

    pairs: list[Pair] = field(default_factory=list)
    stdout_added: list[Frame] = field(default_factory=list)
    stdout_removed: list[Frame] = field(default_factory=list)
    stdout_not_compared: tuple[int, int] = (0, 0)  # (old, new) non-protocol lines past STDOUT_KEPT
    findings_added: list[Finding] = field(default_factory=list)
    findings_removed: list[Finding] = field(default_factory=list)
    exit_old: ExitInfo = ExitInfo(False, None, None)
    exit_new: ExitInfo = ExitInfo(False, None, None)
    stderr_compared: bool = False
    stderr_added: list[bytes] = field(default_factory=list)
    stderr_removed: list[bytes] = field(default_factory=list)
    # Not compared: new stderr lines that differ from a recorded one only in their digits (a log
    # line's time, a pid, a duration); counted, not listed among the lines that differ.
    stderr_numbers_only: int = 0
    rules: list[Rule] = field(default_factory=list)
    old_analysis: Analysis | None = None
    new_analysis: Analysis | None = None
    notes: list[str] = field(default_factory=list)  # lines of the transcripts that could not be read
    unused_reported: bool = True  # False: a run over many transcripts tells the unused rules once
    # unsolicited notifications per (method, stream): (old count, new count), for `count=` rules
    unsolicited: dict[Group, tuple[int, int]] = field(default_factory=dict)

    @property
    def differing(self) -> list[Pair]:
        return [p for p in self.pairs if p.differs]

    @property
    def carried(self) -> list[tuple[Pair, Carried]]:
        """Minted values that differ, compared by presence and place (not by value)."""
        return [(p, c) for p in self.pairs for c in p.carried]

    @property
    def unobserved(self) -> list[Pair]:
        """Executor calls not compared: one session did not watch their channel."""
        return [p for p in self.pairs if p.unobserved is not None]

    @property
    def exit_differs(self) -> bool:
        return (self.exit_old.code, self.exit_old.signal) != (self.exit_new.code, self.exit_new.signal)

    @property
    def hidden(self) -> list[tuple[Pair, Hidden]]:
        return [(p, h) for p in self.pairs for h in p.hidden]

    @property
    def unused_rules(self) -> list[Rule]:
        """User rules that hid nothing (a typo in a rule should not go unnoticed)."""
        used = {h.rule for _, h in self.hidden}
        return [r for r in self.rules if r not in used and r.origin != "built-in"]

    @property
    def same(self) -> bool:
        return not (
            self.differing
            or self.stdout_added
            or self.stdout_removed
            or self.stdout_not_compared[0] != self.stdout_not_compared[1]
            or self.findings_added
            or self.findings_removed
            or self.exit_differs
            or (self.stderr_compared and (self.stderr_added or self.stderr_removed))
        )
