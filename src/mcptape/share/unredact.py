"""Putting verified secrets back into a redacted transcript's lines (for replay's `--secret`).

    from mcptape.share.unredact import load_unredactor
    un = load_unredactor("shared.jsonl", ["GITHUB_TOKEN=ghp_...", "password=hunter2"])
    un.line(raw_line)   # placeholders whose digest the value matches are replaced
    un.unmatched        # NAMEs whose value matched no placeholder: worth a warning

A value is substituted only where it hashes to the placeholder (see `placeholder.py`); values of
environment variables named in the transcript's `found` labels (`env:NAME`) are taken from the
environment when set.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from mcptape.errors import UsageError
from mcptape.share.placeholder import Unredactor
from mcptape.transcript import open_transcript
from mcptape.transcript.events import WIRE_CHANNELS, Event


def parse_secret(arg: str) -> tuple[str, str]:
    """`NAME=VALUE` -> (NAME, VALUE); a usage error (exit 2) otherwise."""
    name, eq, value = arg.partition("=")
    if not eq or not name or not value:  # the message never repeats the argument: it may be a secret
        raise UsageError("--secret expects NAME=VALUE", hint="e.g. --secret GITHUB_TOKEN=ghp_...")
    return name, value


def redaction_info(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The transcript's `redacted` header field, with `found` completed from `record --redact`'s
    closing note; None when the transcript was not redacted."""
    transcript = open_transcript(path)
    info = transcript.header.extra.get("redacted")
    if not isinstance(info, dict):
        return None
    merged = dict(info)
    if "found" not in merged:
        found: dict[str, Any] = {}
        for event in transcript.events():
            extra = event.get("redacted") if event.ch == "note" else None
            if isinstance(extra, dict) and isinstance(extra.get("found"), dict):
                found.update(extra["found"])
        merged["found"] = found
    return merged


def hiding(events: Iterable[Event], unredactor: Unredactor) -> Iterator[Event]:
    """A replay's new session with every verified `--secret` value put back behind its placeholder
    (`Unredactor.hide`): the diff then compares it with the redacted recording both ways. Over
    HTTP, the messages an exchange carried (`in`/`out` lines with their number `x`) are hidden;
    the exchange's raw bytes are not: the diff compares messages, not bodies, and a body of
    another length than its `Content-Length` says would be a transport fault of its own."""
    if not unredactor.by_digest:
        yield from events
        return
    for event in events:
        if (event.text is not None or event.raw is not None) and event.ch not in WIRE_CHANNELS:
            data = event.data
            hidden = unredactor.hide(data)
            if hidden is not data:
                event = Event(event.t, event.ch, raw=hidden, fields=event.fields, index=event.index)
        yield event


def load_unredactor(
    path: str | os.PathLike[str],
    secrets: Iterable[str],
    environ: Mapping[str, str] | None = None,
) -> Unredactor:
    """An `Unredactor` for the transcript at `path` and `--secret NAME=VALUE` arguments.

    Raises UsageError for a malformed argument, for secrets given for a transcript that was not
    redacted, or when the key is unknown (redacted with `$MCPTAPE_REDACT_KEY`, now unset).
    """
    pairs = [parse_secret(arg) for arg in secrets]
    info = redaction_info(path)
    if info is None:
        if pairs:
            raise UsageError(f"{path} is not a redacted transcript: --secret has nothing to replace")
        return Unredactor(b"")
    try:
        return Unredactor.build(info, pairs, environ)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
