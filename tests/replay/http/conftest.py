"""The HTTP recordings these tests replay (tests/replay/http/recordings.py)."""

from __future__ import annotations

from tests.replay.http.recordings import auto_tape, legacy_tape, tape  # noqa: F401 (fixtures)
