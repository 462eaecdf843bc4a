"""Recorded sessions shared by serve's real-process tests (each recorded once per test run), and the
HTTP recordings `serve --listen` serves (tests/replay/http/recordings.py)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import console_script, once_per_run
from tests.replay.http.recordings import auto_tape, legacy_tape, tape  # noqa: F401 (fixtures)
from tests.serve.helpers import PYTHON, SDK_CLIENT, client, record, time_server


@dataclass(frozen=True)
class Recorded:
    """A session recorded through `mcptape record`: the transcript and what the client printed."""

    path: Path
    stdout: bytes
    at: float  # time.time() when the recording ended


@pytest.fixture(scope="session")
def time_recording(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """The SDK client against mcp-server-time (2026-07-28): tools/list, a call, then two at once;
    recorded once per test run for every xdist worker (read it, never modify it)."""

    def make(folder: Path) -> None:
        proc = client("--together", *record(folder / "time.jsonl", time_server()))
        assert proc.returncode == 0, proc.stderr.decode()
        (folder / "stdout").write_bytes(proc.stdout)
        (folder / "at").write_text(repr(time.time()))

    folder = once_per_run(tmp_path_factory, "serve-time", make)
    return Recorded(
        folder / "time.jsonl", (folder / "stdout").read_bytes(), float((folder / "at").read_text())
    )


@dataclass(frozen=True)
class ProbeRun:
    """One `mcptape probe --client` run: its folder (the working directory), exit code and output."""

    cwd: Path
    returncode: int
    stdout: bytes
    stderr: bytes


@pytest.fixture(scope="session")
def sdk_client_probe(tmp_path_factory: pytest.TempPathFactory, time_recording: Recorded) -> ProbeRun:
    """Every client-probe case against the SDK client, run once for the whole test run (its tests
    assert different things about the same run): `probe --client --from time.jsonl -o probe
    --junit c.xml --sarif c.sarif --step-timeout 3 -j 2 -- python sdk_client.py --together`, run in
    the returned folder (so the outputs' paths are relative, as a user's would be)."""

    def run(folder: Path) -> None:
        proc = subprocess.run(
            [
                console_script(), "probe", "--client", "--from", str(time_recording.path), "-o", "probe",
                "--junit", "c.xml", "--sarif", "c.sarif", "--step-timeout", "3", "-j", "2", "--",
                PYTHON, str(SDK_CLIENT), "--together",
            ],
            cwd=folder, capture_output=True, timeout=180,
        )  # fmt: skip
        (folder / "stdout").write_bytes(proc.stdout)
        (folder / "stderr").write_bytes(proc.stderr)
        (folder / "returncode").write_text(str(proc.returncode))

    folder = once_per_run(tmp_path_factory, "sdk-client-probe", run)
    returncode = int((folder / "returncode").read_text())
    return ProbeRun(folder, returncode, (folder / "stdout").read_bytes(), (folder / "stderr").read_bytes())
