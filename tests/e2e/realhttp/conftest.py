"""The notes server's HTTP recordings the serve --listen sweeps read (tests/replay/http/recordings.py:
recorded once per run, shared with the replay and serve tests)."""

from tests.replay.http.recordings import auto_tape, legacy_tape  # noqa: F401 (fixtures)
