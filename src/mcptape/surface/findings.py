"""The surface's verdicts as `check` findings: in-session drift, and the session against a lock.

`SessionSurface` is fed the check core's messages as the analysis hands them over (`feed`); then
`findings(lock)` gives, built with the check core's one constructor (`check.findings.finding`):

- `tools-drift` at the answer of each later listing that differs from the previous one of its kind
  (severity as `surface.drift` judges it: info, warning or error; the earlier answer is related);
- `tools-lock`, when a lock is given, for each breaking (error) or suspicious (warning) change from
  the lock to the session's surface, at the answer that carried the changed definition (for one the
  session no longer lists: the answer of its last listing of that kind).

Compatible changes against a lock are not findings (they never fail `tools diff` either). Party:
the server (it declared the surface).
"""

from __future__ import annotations

from collections.abc import Container

from mcptape.check import rules
from mcptape.check.findings import finding, frame_ref
from mcptape.check.model import OUT, SERVER, Finding, Frame, Message, RequestId, Severity
from mcptape.surface.compare import compare
from mcptape.surface.drift import ANNOUNCEMENTS, Drift, DriftWatch
from mcptape.surface.extract import HANDSHAKES
from mcptape.surface.model import GATING, KIND_OF_METHOD, KIND_OF_NOUN, Change, Surface
from mcptape.surface.model import Severity as ChangeSeverity

LEVEL = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}
SHOWN_CHANGES = 5  # a finding's message names this many changes, then counts the rest
# The methods whose messages DriftWatch reads: the listings and handshakes asked, the announcements.
WATCHED = frozenset({*KIND_OF_METHOD, *HANDSHAKES, *ANNOUNCEMENTS})


class SessionSurface:
    """What a session declares, watched message by message (see the module's docstring).

    A `check.model.Watch`: pass it as `analyze_file(..., watch=surface)` and the analysis hands it
    only the listing and handshake requests, their answers and the list_changed notifications (the
    messages `DriftWatch` reads), not every line."""

    __slots__ = ("watch",)

    methods = WATCHED

    def __init__(self) -> None:
        self.watch = DriftWatch()

    @property
    def answers(self) -> Container[RequestId]:
        """The ids of the listing and handshake requests still waiting for their answer."""
        return self.watch.extractor.asked

    def feed(self, message: Message) -> None:
        self.watch.feed(message)

    def findings(
        self, lock: Surface | None = None, lock_name: str = "the lock"
    ) -> tuple[list[Finding], list[str]]:
        """The drift findings, then the lock's (when given), and notes (what could not be compared)."""
        found = [drift_finding(d, self.watch.frames.get(d.previous)) for d in self.watch.finish()]
        notes: list[str] = []
        if lock is not None:
            surface = self.watch.extractor.finish()
            if not surface.listed:
                notes.append("--tools-lock: the session lists no tools, prompts or resources: not compared")
            else:
                diff = compare(lock, surface)
                notes.extend(f"--tools-lock: {note}" for note in diff.notes)
                found.extend(
                    lock_finding(c, self._where(c, surface), lock_name)
                    for c in diff.changes
                    if c.severity in GATING
                )
        return found, notes

    def _where(self, change: Change, surface: Surface) -> Frame | None:
        """The answer a change is about: the one carrying its new definition, else the last listing
        of its kind, else (the server's own fields) the first answer the session was given."""
        frames = self.watch.frames
        kind = KIND_OF_NOUN.get(change.kind)
        if kind is not None:
            now = surface.of_kind(kind).get(change.name)
            if now is not None and now.event in frames:
                return frames[now.event]
            listings = [x for x in self.watch.extractor.listings if x.kind is kind]
            if listings and listings[-1].event in frames:
                return frames[listings[-1].event]
        return frames[min(frames)] if frames else None


def _changes(changes: tuple[Change, ...] | list[Change]) -> str:
    said = [
        f"{c.kind} {c.name} {c.path}: {c.severity.value}: {c.detail}"
        + (f" (words: {c.words})" if c.words else "")
        for c in changes[:SHOWN_CHANGES]
    ]
    if len(changes) > SHOWN_CHANGES:
        said.append(f"{len(changes) - SHOWN_CHANGES} more")
    return "; ".join(said)


def drift_finding(drift: Drift, earlier: Frame | None) -> Finding:
    """A `tools-drift` finding at the later listing's answer."""
    frame = drift.frame
    since = f" (since {OUT} line {earlier.line})" if earlier is not None else ""
    return finding(
        rules.TOOLS_DRIFT,
        channel=frame.channel if frame is not None else OUT,
        line=frame.line if frame is not None else 0,
        offset=frame.offset if frame is not None else 0,
        raw=frame.body if frame is not None else b"",
        message=f"{drift.summary}{since}: {_changes(drift.changes)}",
        t=frame.t if frame is not None else None,
        event=drift.event,
        related=(frame_ref("earlier listing", earlier),) if earlier is not None else (),
        severity=LEVEL[drift.severity],
        party=SERVER,
    )


def lock_finding(change: Change, frame: Frame | None, lock_name: str) -> Finding:
    """A `tools-lock` finding: error for a breaking change from the lock, warning for a suspicious one."""
    breaking = change.severity is ChangeSeverity.BREAKING
    return finding(
        rules.TOOLS_LOCK,
        channel=frame.channel if frame is not None else OUT,
        line=frame.line if frame is not None else 0,
        offset=frame.offset if frame is not None else 0,
        raw=frame.body if frame is not None else b"",
        message=f"the session's surface against {lock_name}: {_changes([change])}",
        t=frame.t if frame is not None else None,
        event=frame.event if frame is not None else -1,
        severity=Severity.ERROR if breaking else Severity.WARNING,
        party=SERVER,
    )
