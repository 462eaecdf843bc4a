"""A transport is a wing: the `Driver` protocol every transport implements, what a driver is given
(`Job`), and the table of transports (`TRANSPORTS`) the replay skeleton (`replay.skeleton`) looks a
transcript's transport up in.

    stdio   replay/stdio/   the server under the stdio recorder, the client's bytes on its stdin
    http    replay/http/    the server behind the recording reverse proxy, the client's requests over HTTP

A new transport is a folder `replay/<name>/` whose `__init__.py` has `driver_for(job) -> Driver`,
and one row here (and one line in `transport_of`, which tells it from the transcript's header).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mcptape.errors import UsageError
from mcptape.replay.outcome import Run
from mcptape.replay.settings import ReplaySettings
from mcptape.replay.where import Server
from mcptape.transcript.events import Header

if TYPE_CHECKING:
    from mcptape.recorder.outbound.sideeffects import HttpFactory
    from mcptape.transcript.reader import Transcript

STDIO, HTTP = "stdio", "http"
TRANSPORTS = {STDIO: "mcptape.replay.stdio", HTTP: "mcptape.replay.http"}  # name -> its wing


class TransportMismatch(UsageError):
    """What was asked does not fit the transport the transcript was recorded on."""


class Driver(Protocol):
    """Starts the new server, plays the recorded client to it, records the new session at
    `job.new_path`, and says how it went (raises `MCPTapeError` when the server cannot start)."""

    def replay(self) -> Run: ...


@dataclass(frozen=True)
class Job:
    """What a driver is given: one transcript to replay, the server to run, where the new session
    goes, the settings, and what the skeleton prepared for every transport."""

    path: Path  # the recording
    transcript: Transcript  # opened, its header read (`events()` reads it again each time)
    server: Server  # the command (empty: a server already running), its folder, its stubs
    new_path: Path
    settings: ReplaySettings
    transform: Callable[[bytes], bytes] | None = None  # the client's bytes before they are sent (--secret)
    http: HttpFactory | None = None  # the HTTP listener in the sink's place (a recorded cassette)


def transport_of(header: Header) -> str:
    """The transport a transcript was recorded on: `http` when its header names the HTTP upstream
    (`record --http-upstream`), else `stdio`."""
    return HTTP if isinstance(header.extra.get("http"), dict) else STDIO


def check_fits(path: Path, transport: str, settings: ReplaySettings) -> None:
    """One line when what is asked does not fit the transcript's transport."""
    if transport == STDIO and settings.http_upstream is not None:
        raise TransportMismatch(
            f"{path} is a stdio transcript: --http-upstream replays one recorded with record --http-upstream",
            hint="drop --http-upstream (the server is started on stdio)",
        )


def driver_for(transport: str, job: Job) -> Driver:
    """The driver of `transport` for `job` (its wing imported when it is used)."""
    wing = importlib.import_module(TRANSPORTS[transport])
    make: Callable[[Job], Driver] = wing.driver_for
    return make(job)
