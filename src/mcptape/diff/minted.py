"""Server-minted values (pure): opaque strings a server handed out and its client sent back.

The 2026-07-28 revision keeps state in values the server mints and the client echoes: the MRTR
`requestState`, handles returned by tools, `nextCursor`, task and subscription ids. A new process
mints new ones, so a replay that echoes the recorded ones is refused. They are found by value and
place, never by a list of member names:

* the client sent a string (anywhere in its message, except the JSON-RPC envelope) that the server
  had sent earlier in the session, at some place of some message;
* the client had not sent that string before the server did (the server was not echoing the
  client);
* the string looks like a token (`is_token`): no white space, at least 8 characters, and a digit
  or at least 20 characters (a UUID, a hex or base64 handle, a sealed state, a timestamp).

The place where the server first sent it is the *source*: the aligned key of that message (the
diff's key, see `mcptape.diff.sessions.Keys`) and the path inside it. The replay sends, instead of
the recorded value, the value the new server sent at the same place of its corresponding message;
the diff compares what stands at such places by presence, not by value (`carry`, `restore`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcptape.check.model import Message
from mcptape.diff.ignore import Path

Key = tuple[Any, ...]

MIN_LENGTH = 8  # shorter strings are words, counters, enum values, not tokens
LONG = 20  # a string this long without white space is a token even without a digit
MAX_TRACKED = 200_000  # server strings remembered per session (a flood must not fill memory)
ENVELOPE = frozenset({"jsonrpc", "id", "method"})
# A JSON string of 8 characters or more with no escape, quote, white space or control in it: the
# candidates, found in a line's bytes at C speed. Only a value the client sends back is walked for.
_CANDIDATE = re.compile(rb'"([^"\\\x00-\x20\x7f]{8,})(?=")')  # the closing quote may open the next
_DIGIT_BYTE = re.compile(rb"[0-9]")
_DIGIT = re.compile(r"[0-9]")


def is_token(text: str) -> bool:
    """Does `text` look like a value a server mints (opaque, no white space, long enough)?"""
    n = len(text)
    if n < MIN_LENGTH or n > (1 << 20):
        return False
    if not text.isprintable() or " " in text:  # isprintable() is False for every other white space
        return False
    return n >= LONG or _DIGIT.search(text) is not None


def alike(old: str, new: str) -> bool:
    """Two values that can be the same token minted twice: both tokens, of comparable length."""
    return is_token(old) and is_token(new) and len(new) * 2 >= len(old) and len(old) * 2 >= len(new)


def tokens(value: Any) -> Iterator[tuple[Path, str]]:
    """The token-like strings of a message, with their paths (the JSON-RPC envelope left out).
    Iterative: a message may be 1024 levels deep."""
    if type(value) is not dict:
        return
    stack: list[tuple[Path, Any]] = [((key,), value[key]) for key in reversed(value) if key not in ENVELOPE]
    while stack:
        path, item = stack.pop()
        kind = type(item)
        if kind is str:
            if is_token(item):
                yield path, item
        elif kind is dict:
            stack.extend(((*path, key), item[key]) for key in reversed(item))
        elif kind is list:
            stack.extend(((*path, i), item[i]) for i in reversed(range(len(item))))


def candidates(raw: bytes) -> set[str]:
    """The token-like strings a line's bytes hold (member names too: only values are kept later)."""
    found = set()
    for chunk in set(_CANDIDATE.findall(raw)):
        if len(chunk) < LONG and _DIGIT_BYTE.search(chunk) is None:
            continue
        text = chunk.decode("utf-8", "replace")
        if text.isascii() or is_token(text):  # the pattern already holds for ASCII
            found.add(text)
    return found


def path_of(value: Any, text: str) -> Path | None:
    """The path of the first place `text` stands as a value in a message (envelope left out)."""
    for path, found in tokens(value):
        if found == text:
            return path
    return None


def get(value: Any, path: Path) -> Any:
    """The value at `path`, or None when the path does not exist."""
    for step in path:
        if type(value) is dict and isinstance(step, str):
            if step not in value:
                return None
            value = value[step]
        elif type(value) is list and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            return None
    return value


@dataclass(frozen=True)
class Use:
    """A minted value the client sent: the value; where the server minted it (`source`, the aligned
    key of its message, `scope` that message's method, `source_path` the place inside); where the
    client sent it (its `line` on `in`, first transcript `event`, and `path`)."""

    value: str
    source: Key
    scope: str
    source_path: Path
    line: int
    event: int
    path: Path
    events: tuple[int, ...] = ()  # every transcript event of the client's line


BY_NAME = frozenset({"tools/call", "prompts/get"})  # requests that name what they call


class Minted:
    """Watches one session in time order and collects the minted values its client sent.

    The lines' bytes are searched for candidates; a message is walked for paths only when its
    client sends one of them back (the common session never walks anything)."""

    def __init__(self) -> None:
        self.minted: dict[str, tuple[Key, str, Message]] = {}  # token -> the message first sending it
        self.from_client: set[str] = set()  # tokens the client sent first (not the server's)
        self.uses: list[Use] = []

    def server(self, key: Key, scope: str, msg: Message) -> None:
        """A server message aligned at `key`: remember the first message to send each token."""
        minted, from_client = self.minted, self.from_client
        for text in candidates(msg.frame.raw):
            if text not in minted and text not in from_client and len(minted) < MAX_TRACKED:
                minted[text] = (key, scope, msg)

    def client(self, msg: Message) -> list[Use]:
        """A client message: the minted values it sends (recorded in `uses`, and returned)."""
        texts = candidates(msg.frame.raw)
        sent_back = {text for text in texts if text in self.minted}
        for text in texts - sent_back:
            if len(self.from_client) < MAX_TRACKED:
                self.from_client.add(text)
        if not sent_back:
            return []
        found: list[Use] = []
        frame = msg.frame
        for path, text in tokens(msg.value):
            if text not in sent_back or (path == ("params", "name") and msg.method in BY_NAME):
                continue  # the tool or prompt a client calls is the one it means, not a value to carry
            key, scope, source = self.minted[text]
            where = path_of(source.value, text)
            if where is not None:
                found.append(Use(text, key, scope, where, frame.line, frame.event, path, frame.events))
        self.uses.extend(found)
        return found


def places(*uses: Iterable[Use]) -> dict[Key, set[Path]]:
    """Where minted values stand: aligned message key -> paths inside it."""
    out: dict[Key, set[Path]] = {}
    for group in uses:
        for use in group:
            out.setdefault(use.source, set()).add(use.source_path)
    return out


@dataclass(frozen=True)
class Carried:
    """A minted value compared by presence and place: the aligned message, the path, both values."""

    key: Key
    path: Path
    old: str
    new: str


def carry(old: Any, new: Any, key: Key, paths: Iterable[Path]) -> list[Carried]:
    """The minted values that differ between two aligned messages, at the places given."""
    out: list[Carried] = []
    for path in sorted(paths, key=repr):
        a, b = get(old, path), get(new, path)
        if type(a) is str and type(b) is str and a != b and alike(a, b):
            out.append(Carried(key, path, a, b))
    return out


def restore(value: Any, mapping: Mapping[str, str]) -> Any:
    """`value` with each new minted value (a key of `mapping`) put back to the recorded one, as a
    whole string and inside longer strings (a tool's text that repeats a handle). A copy, only
    where something changed."""
    if not mapping or not _mentions(value, mapping):
        return value
    return _restore(value, mapping)


def _mentions(value: Any, mapping: Mapping[str, str]) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if any(new in item for new in mapping):
                return True
        elif kind is dict:
            stack.extend(item.values())
            stack.extend(item.keys())
        elif kind is list:
            stack.extend(item)
    return False


def _restore(value: Any, mapping: Mapping[str, str]) -> Any:
    def fix(text: str) -> str:
        whole = mapping.get(text)
        if whole is not None:
            return whole
        for new, old in mapping.items():
            if new in text:
                text = text.replace(new, old)
        return text

    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]  # (container, member or index) to rebuild
    while stack:
        container, at = stack.pop()
        item = container[at]
        kind = type(item)
        if kind is str:
            container[at] = fix(item)
        elif kind is dict:
            copy = {fix(k): v for k, v in item.items()}
            container[at] = copy
            stack.extend((copy, k) for k in copy)
        elif kind is list:
            items = list(item)
            container[at] = items
            stack.extend((items, i) for i in range(len(items)))
    return root[0]
