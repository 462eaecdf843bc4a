"""Which executor channels a session watched: a session recorded without the HTTP sink (or a
cassette) never saw its server's HTTP calls, so the calls another session made cannot be compared
with it. The diff lists them as not compared instead of "only in the new session"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcptape.check.model import HTTP

NOT_OBSERVED = frozenset[str]()  # every channel watched
HTTP_LISTENERS = ("http_sink", "http_cassette")  # the header's side_effects members that watch HTTP


def unobserved_channels(extra: Mapping[str, Any]) -> frozenset[str]:
    """The executor channels a session did not watch, from its header's extra members: HTTP when it
    was recorded without an HTTP sink or cassette. A replay always watches (its header says
    `replay`); a session that has `http` lines watched HTTP whatever its header says (the diff
    checks that)."""
    if "replay" in extra:
        return NOT_OBSERVED
    effects = extra.get("side_effects")
    if isinstance(effects, dict) and any(effects.get(name) for name in HTTP_LISTENERS):
        return NOT_OBSERVED
    return frozenset({HTTP})


def why_unobserved(
    scope: str, old_missing: bool, new_missing: bool, blind: tuple[frozenset[str], frozenset[str]]
) -> str | None:
    """Why an executor call found in one session only is not compared (None: it is compared)."""
    if old_missing and scope in blind[0]:
        return "the recording did not watch this channel"
    if new_missing and scope in blind[1]:
        return "the new session did not watch this channel"
    return None
