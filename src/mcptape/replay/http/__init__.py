"""The HTTP wing of replay: an HTTP transcript's recorded requests sent to a new build over
Streamable HTTP through the recording reverse proxy (`run.HttpReplay`), paced from what the recorded
client had seen (`plan`, `driver`), the requests rebuilt and the responses read without I/O (`wire`)."""

from __future__ import annotations

from mcptape.replay.http.run import HttpReplay
from mcptape.replay.transport import Job


def driver_for(job: Job) -> HttpReplay:
    """The HTTP driver of `job` (checks the URL and reads the plan before anything starts)."""
    return HttpReplay(job)
