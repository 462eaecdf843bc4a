"""A surface from a session's messages: the answers to `initialize` (or `server/discover`) and to
every page of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`.

The messages are the check core's (`check.analyze.messages` for a transcript, `check.classify`
for a live listing): nothing here frames or classifies a line. A request is paired with the
answer carrying its id. A listing starts with a request without a cursor and goes on with each
request whose cursor is the `nextCursor` the previous page gave; the surface keeps, per kind, the
last listing whose pages all arrived (an unfinished one only when there is no other, with a note).

Anything odd in an answer (a result that is not an object, a `tools` that is not an array, an item
without a string name, a name listed twice) is skipped with a note, never an exception.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcptape.check.model import Kind as MessageKind
from mcptape.check.model import Message, RequestId
from mcptape.check.protocol import META_VERSION_KEY
from mcptape.errors import MCPTapeError
from mcptape.surface.model import KIND_OF_METHOD, KINDS, TOOLS, Definition, Kind, Surface
from mcptape.textsafe import escape_controls

SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
HANDSHAKES = ("initialize", "server/discover")
MAX_NOTES = 20


@dataclass
class Listing:
    """One listing of a kind: its pages so far, and the cursor the next page must carry."""

    kind: Kind
    items: dict[str, Definition] = field(default_factory=dict)
    pages: int = 0
    next_cursor: Any = None  # the last page's nextCursor (None: the listing is complete)
    event: int = -1  # the event of its last page

    @property
    def complete(self) -> bool:
        return self.next_cursor is None and self.pages > 0


@dataclass
class Extractor:
    """Feed it messages in time order (`feed`), then take its `surface()` (or `listings`)."""

    surface: Surface = field(default_factory=Surface)
    asked: dict[RequestId, tuple[str, Any]] = field(default_factory=dict)  # id -> (method, cursor)
    current: dict[str, Listing] = field(default_factory=dict)  # the listing in progress per kind
    listings: list[Listing] = field(default_factory=list)  # every complete listing, in order

    def feed(self, message: Message) -> None:
        if message.kind is MessageKind.BATCH:
            for item in message.items:
                self.feed(item)
            return
        value = message.value
        if type(value) is not dict:
            return
        if message.channel == "in" and message.kind is MessageKind.REQUEST:
            method = message.method
            if message.id is not None and (method in KIND_OF_METHOD or method in HANDSHAKES):
                params = value.get("params")
                cursor = params.get("cursor") if type(params) is dict else None
                self.asked[message.id] = (str(method), cursor)
        elif message.channel == "out" and message.kind is MessageKind.RESPONSE and message.id is not None:
            asked = self.asked.pop(message.id, None)
            if asked is not None:
                self._answer(asked[0], asked[1], value.get("result"), message.frame.event)

    def _answer(self, method: str, cursor: Any, result: Any, event: int) -> None:
        if type(result) is not dict:
            self.note(f"the answer to {method} (event {event}) is not an object: skipped")
            return
        if method in HANDSHAKES:
            self._handshake(method, result)
            return
        kind = KIND_OF_METHOD[method]
        listing = self.current.get(kind.member)
        if cursor is None or listing is None or listing.next_cursor != cursor:
            if cursor is not None:
                self.note(f"{method} (event {event}) asks for a page nobody announced: read as a new listing")
            listing = self.current[kind.member] = Listing(kind)
        listing.pages += 1
        listing.event = event
        self._items(listing, result.get(kind.member), event)
        next_cursor = result.get("nextCursor")
        listing.next_cursor = next_cursor if type(next_cursor) is str else None
        if listing.complete:
            self.listings.append(listing)
            del self.current[kind.member]

    def _handshake(self, method: str, result: dict[str, Any]) -> None:
        s = self.surface
        s.capabilities = result.get("capabilities")
        s.instructions = result.get("instructions")
        if method == "initialize":
            s.server_info = result.get("serverInfo")
            version = result.get("protocolVersion")
            s.protocol_version = version if type(version) is str else None
        else:
            meta = result.get("_meta")
            s.server_info = meta.get(SERVER_INFO_META) if type(meta) is dict else None
            versions = result.get("supportedVersions")
            if type(versions) is list and versions and all(type(v) is str for v in versions):
                s.protocol_version = max(versions)
            if type(meta) is dict and type(meta.get(META_VERSION_KEY)) is str:
                s.protocol_version = meta[META_VERSION_KEY]

    def _items(self, listing: Listing, items: Any, event: int) -> None:
        kind = listing.kind
        if type(items) is not list:
            self.note(f"{kind.method} (event {event}): {kind.member} is not an array: no {kind.noun} read")
            return
        for position, item in enumerate(items):
            name = item.get(kind.key) if type(item) is dict else None
            if type(name) is not str:
                self.note(
                    f"{kind.method} (event {event}): item {position} is not an object with a string "
                    f"{kind.key}: skipped"
                )
                continue
            if name in listing.items:
                shown = escape_controls(name)
                self.note(
                    f"{kind.method} (event {event}): {kind.noun} {shown!r} listed twice: the first kept"
                )
                continue
            listing.items[name] = Definition.of(kind, name, item, event)

    def note(self, text: str) -> None:
        notes = self.surface.notes
        if len(notes) < MAX_NOTES:
            notes.append(text)
        elif len(notes) == MAX_NOTES:
            notes.append("more notes not shown")

    def finish(self) -> Surface:
        """The surface: per kind, the last complete listing (else the unfinished one, noted)."""
        s = self.surface
        for kind in KINDS:
            complete = [listing for listing in self.listings if listing.kind is kind]
            chosen = complete[-1] if complete else self.current.get(kind.member)
            if chosen is None:
                continue
            if not chosen.complete:
                self.note(
                    f"{kind.method}: the listing stops after page {chosen.pages} (its nextCursor was never "
                    f"asked for): the {kind.member} of that page and before only"
                )
            s.definitions[kind.member] = chosen.items
            s.listed.add(kind.member)
        return s


def surface_of(messages: Iterable[Message]) -> Surface:
    """The surface a session's messages declare (see the module's docstring)."""
    extractor = Extractor()
    for message in messages:
        extractor.feed(message)
    return extractor.finish()


class NoListing(MCPTapeError):
    """A transcript whose client never received a tools/list answer."""


def read_transcript(path: str | os.PathLike[str]) -> Surface:
    """The surface a recorded session declares (TranscriptError for an unreadable file, NoListing,
    exit 2, when no tools/list was answered in it)."""
    from mcptape.check.analyze import messages
    from mcptape.transcript.reader import open_transcript

    transcript = open_transcript(path)
    surface = surface_of(messages(transcript.events()))
    surface.source = {"transcript": escape_controls(str(path))}
    if TOOLS.member not in surface.listed:
        raise NoListing(
            f"{escape_controls(str(path))} holds no answer to tools/list",
            hint="record a session that lists the tools, or lock the server: mcptape tools lock -- CMD",
        )
    return surface
