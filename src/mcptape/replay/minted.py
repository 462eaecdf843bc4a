"""The one minted-value substitution of replay, whatever the transport (pure but for the `Run` it
fills): where the new server minted its values (`Sources`, the new session aligned as the diff
aligns it), the recorded value replaced by the new server's in the client's bytes (`Carrier.carry`,
`substitute`), and the new server's id in an answer to its request (`with_id`).

A value the recorded server minted and the client sent back is found by value and place
(`mcptape.diff.minted`); the driver hands `Carrier` each message the new server sent (`on_message`)
and each chunk the recorded client is about to send with the `Use`s it carries back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from mcptape.check.model import Message, RequestId
from mcptape.diff.ignore import render_path
from mcptape.diff.minted import Use, get, is_token
from mcptape.diff.sessions import Side
from mcptape.jsonsafe import dumps
from mcptape.replay.kinds import Key
from mcptape.replay.outcome import UNMINTED_VALUE, Issue, Run, Substitution
from mcptape.replay.titles import source_title


class Sources(Side):
    """The new session aligned as the diff aligns it, keeping the messages at the keys where the
    recorded server minted a value its client sent back."""

    def __init__(self, wanted: set[Key]) -> None:
        super().__init__()
        self.wanted = wanted
        self.values: dict[Key, Any] = {}

    def add(self, key: Key, kind: str, scope: str, item: Any) -> None:
        if key in self.wanted and isinstance(item, Message) and key not in self.values:
            self.values[key] = item.value


class Carrier:
    """Carries the new server's minted values into the recorded client's bytes, and says so in `run`
    (a `Substitution` each, an `unminted-value` warning once per place the new server left empty)."""

    def __init__(self, wanted: set[Key], run: Run) -> None:
        self.sources = Sources(wanted)
        self.run = run
        self.unminted: set[tuple[Key, Any]] = set()
        self.settled: set[Key] = set()  # places that will never come: their request was held back

    def settle(self, key: Key) -> None:
        """The message at `key` will never come (its request was held back, `replay.guard`)."""
        self.settled.add(key)

    def on_message(self, msg: Message) -> None:
        """A message of the new session, in the diff's order (the client's requests as they are sent)."""
        if self.sources.wanted:
            self.sources.on_message(msg)

    def have(self, uses: Iterable[Use]) -> bool:
        """The new server sent every message where these values were minted."""
        values, settled = self.sources.values, self.settled
        return all(use.source in values or use.source in settled for use in uses)

    def carry(self, data: bytes, uses: Iterable[Use]) -> tuple[bytes, dict[str, str]]:
        """`data` with each minted value replaced by the new server's from the same place, and the
        values swapped (old -> new). A value the new server did not mint there is left as recorded."""
        swapped: dict[str, str] = {}
        for use in uses:
            new = get(self.sources.values.get(use.source), use.source_path)
            if type(new) is not str or not is_token(new):
                self._unminted(use)
                continue
            if new == use.value:
                continue
            data, reencoded = substitute(data, use, new)
            swapped[use.value] = new
            self.run.substitutions.append(Substitution(use, new, reencoded))
        return data, swapped

    def _unminted(self, use: Use) -> None:
        if (use.source, use.source_path) in self.unminted:
            return
        self.unminted.add((use.source, use.source_path))
        where = f"{render_path(use.source_path)} of the {source_title(use.scope, use.source)}"
        why = "sent no such message" if use.source not in self.sources.values else "minted nothing there"
        if use.source in self.settled:
            why = "was not asked for it (the request was held back: it may change data)"
        message = (
            f"client line {use.line} sends back a value the recorded server minted at {where}; the new "
            f"server {why}, so the recorded value was sent"
        )
        self.run.issues.append(Issue(UNMINTED_VALUE, message, error=False))


def substitute(data: bytes, use: Use, new: str) -> tuple[bytes, bool]:
    """`data` (a JSON text, its line end kept) with the recorded value made `new`: the JSON string's
    bytes where they stand, else the text written again with the value at its path (True)."""
    body = data.rstrip(b"\r\n")
    end = data[len(body) :]
    old = _json(use.value)
    if old in body:
        return body.replace(old, _json(new)) + end, False
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return data, False
    target = get(value, use.path[:-1]) if use.path else None
    last = use.path[-1] if use.path else None
    in_object = isinstance(target, dict) and isinstance(last, str) and last in target
    in_array = isinstance(target, list) and isinstance(last, int) and 0 <= last < len(target)
    if not (in_object or in_array):
        return data, False
    target[last] = new  # type: ignore[index]
    return _json(value) + end, True


def with_id(body: bytes, old: RequestId, new: RequestId) -> bytes:
    """An answer's body with the new server's request id (members in their recorded order)."""
    if old == new:
        return body
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body
    if type(value) is dict and value.get("id") == old:
        return _json({k: (new if k == "id" else v) for k, v in value.items()})
    return body


def _json(value: Any) -> bytes:
    """`value` as JSON, a lone surrogate (`"\\ud800"`, which orjson refuses) written as its escape."""
    return dumps(value).encode("utf-8", "backslashreplace")  # a lone surrogate: its \\uXXXX escape
