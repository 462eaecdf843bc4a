"""A pytest fixture for client tests: a recorded session as the server, and a failed test when the
client asked something the recording cannot answer.

    def test_my_client(mcptape_serve):
        server = mcptape_serve("tests/transcripts/time.jsonl")
        result = run_my_client(server.command)      # put server.command in the client's config
        assert result.ok

`mcptape_serve(path, **options)` returns a `ServedTranscript` whose `command` is the command line
of `mcptape serve` for that transcript (a list; `server.shell` is the same as one string). When the
test body has run, every served session's report is read, and the test fails when a request got no
recorded answer, when the client sent a line that is not protocol, or when the server was never
started (`require_started=False` allows that). Registered as the `mcptape-serve` pytest11 entry
point; `-p mcptape.serve.pytest_plugin` loads it by hand.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

REPORT_WAIT = 5.0  # seconds the check waits for a server still ending to write its report


@dataclass
class ServedTranscript:
    """One `mcptape serve` command line for a test, and where its report goes."""

    transcript: Path
    command: list[str]
    report_path: Path
    output: Path | None = None
    require_started: bool = True
    allow_unmatched: bool = False

    @property
    def shell(self) -> str:
        return shlex.join(self.command)

    def report(self, wait: float = 0.0) -> dict[str, Any] | None:
        """serve's JSON report: None when serve never started; `"running": true` while its session
        lasts (waited for, up to `wait` seconds)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                value: dict[str, Any] = orjson.loads(self.report_path.read_bytes())
            except (OSError, orjson.JSONDecodeError):
                value = {"running": True} if self.report_path.exists() else {}
            if not value or not value.get("running") or time.monotonic() >= deadline:
                return value or None
            time.sleep(0.05)

    def problems(self) -> list[str]:
        """Why the test must fail because of this server (empty when it must not)."""
        report = self.report(REPORT_WAIT)
        if report is None:
            if not self.require_started:
                return []
            return [f"{self.transcript}: the served transcript was never started"]
        if report.get("running"):
            return [f"{self.transcript}: the served session had not ended {REPORT_WAIT:g}s after the test"]
        out: list[str] = []
        if not self.allow_unmatched:
            for request in report.get("requests", []):
                if request.get("status") == "unmatched":
                    out.append(_unmatched(self.transcript, request))
        for line in report.get("garbage", []):
            out.append(
                f"{self.transcript}: the client sent a line that is not protocol ({line.get('problem')})"
            )
        return out


@dataclass
class _Servers:
    items: list[ServedTranscript] = field(default_factory=list)


_SERVERS = pytest.StashKey[_Servers]()


def _unmatched(transcript: Path, request: dict[str, Any]) -> str:
    text = f"{transcript}: no recorded answer for {request.get('method')} (client id {request.get('id')!r})"
    differences = request.get("differences") or []
    if differences:
        first = differences[0]
        recorded, sent = (
            orjson.dumps(first.get("recorded")).decode(),
            orjson.dumps(first.get("sent")).decode(),
        )
        text += f"; nearest recorded request differs at {first.get('path')}: {recorded} -> {sent}"
    return text


@pytest.fixture
def mcptape_serve(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., ServedTranscript]:
    """A factory: `mcptape_serve(path, match=..., ignore=..., exact=..., inject=..., output=...,
    allow_unmatched=False, require_started=True, config=True)`: a served transcript's command line."""
    servers = request.node.stash.setdefault(_SERVERS, _Servers())

    def make(
        path: str | Path,
        *,
        match: str = "params",
        ignore: Sequence[str] = (),
        exact: bool = False,
        inject: Sequence[str] = (),
        output: str | Path | None = None,
        allow_unmatched: bool = False,
        require_started: bool = True,
        config: bool = True,
    ) -> ServedTranscript:
        transcript = Path(path).absolute()
        report = tmp_path / f"mcptape-serve-{len(servers.items) + 1}.json"
        command = [sys.executable, "-m", "mcptape", "serve", str(transcript), "--report", str(report)]
        command += ["--match", match] + ([] if config else ["--no-config"])
        command += [arg for rule in ignore for arg in ("--ignore", rule)]
        command += ["--exact"] if exact else []
        command += [arg for case in inject for arg in ("--inject", case)]
        if output is not None:
            command += ["-o", str(Path(output).absolute()), "--overwrite"]
        served = ServedTranscript(
            transcript,
            command,
            report,
            Path(output) if output is not None else None,
            require_started=require_started,
            allow_unmatched=allow_unmatched,
        )
        servers.items.append(served)
        return served

    return make


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """After the test body: fail it for what its served transcripts could not answer."""
    outcome = yield
    servers = item.stash.get(_SERVERS, None)
    if servers is None or not servers.items or outcome.excinfo is not None:
        return
    problems = [problem for served in servers.items for problem in served.problems()]
    if problems:
        outcome.force_exception(AssertionError("mcptape serve:\n  " + "\n  ".join(problems)))
