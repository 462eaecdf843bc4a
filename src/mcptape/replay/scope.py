"""Rules learned for one server apply to that server's recordings only.

`identity_of` reads who a recording's server is: the serverInfo name its handshake answer gave
(`initialize`, or the 2026-07-28 `server/discover`, through the tool surface's reader) and the
recorded command. `with_learned` adds the settings file's `learned` rules that match it
(`config.Learned.matches`) to the rules in force, for one transcript: a folder of recordings of
several servers gets each server's own rules.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from mcptape.replay.config import Identity

if TYPE_CHECKING:
    from mcptape.replay.settings import ReplaySettings
    from mcptape.transcript.reader import Transcript

HANDSHAKE_WITHIN = 64  # messages: the handshake answer comes first, or the session has none


def identity_of(transcript: Transcript) -> Identity:
    """The recording's server name (from its first messages; None when it gave none) and command."""
    from mcptape.check.analyze import messages
    from mcptape.surface.extract import Extractor

    extractor = Extractor()
    for n, message in enumerate(messages(transcript.events())):
        extractor.feed(message)
        info = extractor.surface.server_info
        if info is not None or n >= HANDSHAKE_WITHIN:
            break
    info = extractor.surface.server_info
    name = info.get("name") if isinstance(info, dict) else None
    return Identity(name if isinstance(name, str) and name else None, tuple(transcript.header.command))


def with_learned(settings: ReplaySettings, transcript: Transcript) -> ReplaySettings:
    """`settings` with the learned rules of the recording's server added (the same when none match,
    or the settings file has no `learned` table: then the recording is not read)."""
    config = settings.config
    if config is None or not config.learned:
        return settings
    rules = config.rules_for(identity_of(transcript))
    known = {rule.text for rule in settings.rules}
    added = tuple(rule for rule in rules if rule.text not in known)
    return dataclasses.replace(settings, rules=(*settings.rules, *added)) if added else settings
