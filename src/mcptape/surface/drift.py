"""In-session drift: a later listing of a session that differs from an earlier one.

A server may change its tools during a session (dynamic registration is legal, announced by
`notifications/tools/list_changed`, and likewise for prompts and resources). Each complete listing
is compared with the previous listing of its kind, and the difference is judged as issue 28 asks
`check` to: `info` for compatible changes the notification announced, `warning` for suspicious ones
(a description rewritten mid-session: the rug pull inside one conversation), `error` when breaking,
or when anything changed without the notification. The verdict sits at the later answer's event.

Pure: the check core's messages in, `Drift` values out (the command layer makes findings or a
report of them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcptape.check.model import Frame, Message
from mcptape.check.model import Kind as MessageKind
from mcptape.surface.compare import compare
from mcptape.surface.extract import Extractor, Listing
from mcptape.surface.model import KINDS, Change, Severity, Surface

ERROR, WARNING, INFO = "error", "warning", "info"
ANNOUNCEMENTS = {f"notifications/{kind.member}/list_changed": kind.member for kind in KINDS[:3]}


@dataclass(frozen=True)
class Drift:
    """A listing that differs from the previous one of its kind in the same session."""

    kind: str  # "tools", "prompts", "resources", "resourceTemplates"
    event: int  # the later listing's (last) answer
    previous: int  # the earlier listing's
    announced: bool  # a list_changed notification of its kind came between them
    changes: tuple[Change, ...]
    severity: str  # error / warning / info
    frame: Frame | None = None  # the later listing's (last) answer, where a finding points

    @property
    def summary(self) -> str:
        counts = {s: sum(1 for c in self.changes if c.severity is s) for s in Severity}
        said = ", ".join(f"{n} {s.value}" for s, n in counts.items() if n)
        how = "after" if self.announced else "without"
        return (
            f"{self.kind} changed mid-session {how} notifications/{_notice(self.kind)}/list_changed: {said}"
        )


def _notice(member: str) -> str:
    return "resources" if member == "resourceTemplates" else member


def session_drift(messages: Iterable[Message]) -> list[Drift]:
    """Every listing that differs from the previous one of its kind, in session order."""
    watch = DriftWatch()
    for message in messages:
        watch.feed(message)
    return watch.finish()


class DriftWatch:
    """`session_drift` fed one message at a time (as `check`'s analysis hands them over): only the
    listings and the list_changed notifications are kept, and the frame of each listing's answer
    (where a finding about it points)."""

    __slots__ = ("announced", "extractor", "frames")

    def __init__(self) -> None:
        self.extractor = Extractor()
        self.announced: list[tuple[int, str]] = []  # (event, kind member) of each list_changed
        self.frames: dict[int, Frame] = {}  # event -> frame of an answer to a listing request

    def feed(self, message: Message) -> None:
        kind = message.kind
        if kind is MessageKind.NOTIFICATION:
            if message.channel == "out" and message.method in ANNOUNCEMENTS:
                self.announced.append((message.frame.event, ANNOUNCEMENTS[str(message.method)]))
            return
        if kind is MessageKind.RESPONSE:
            if message.channel != "out" or message.id not in self.extractor.asked:
                return  # not the answer to a listing (or a handshake)
            self.frames[message.frame.event] = message.frame
        elif kind is MessageKind.BATCH:
            for item in message.items:
                self.feed(item)
            return
        self.extractor.feed(message)

    def finish(self) -> list[Drift]:
        """Every listing that differs from the previous one of its kind, in session order."""
        found: list[Drift] = []
        last: dict[str, Listing] = {}
        for listing in self.extractor.listings:
            member = listing.kind.member
            previous = last.get(member)
            last[member] = listing
            if previous is None:
                continue
            changes = compare(_alone(previous), _alone(listing)).changes
            if not changes:
                continue
            notice = _notice(member)
            said = any(
                previous.event < event <= listing.event and kind == notice for event, kind in self.announced
            )
            found.append(
                Drift(
                    member,
                    listing.event,
                    previous.event,
                    said,
                    tuple(changes),
                    _severity(changes, said),
                    self.frames.get(listing.event),
                )
            )
        return found


def _alone(listing: Listing) -> Surface:
    surface = Surface()
    surface.definitions[listing.kind.member] = listing.items
    surface.listed.add(listing.kind.member)
    return surface


def _severity(changes: list[Change], announced: bool) -> str:
    if not announced or any(c.severity is Severity.BREAKING for c in changes):
        return ERROR
    if any(c.severity is Severity.SUSPICIOUS for c in changes):
        return WARNING
    return INFO
