"""A stubbed command is recorded before the server can answer the request that ran it: the stub
waits for the recorder to take its line before it exits, so the `exec` line always comes (in time
and in the file) between the request and its response, where the check core and the diff attribute
it to that request. (It used to be timed when the recorder's thread got to it: sometimes after the
answer, an exec line "for no request" that made replays of the same build differ.)"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from mcptape.recorder.outbound.sideeffects import side_effects
from mcptape.recorder.outbound.stubs import ACK_WAIT, Stubs
from tests.recorder.outbound.helpers import ListSink, call_tools, events, server

pytestmark = pytest.mark.slow

SSH = server("fx_ssh_server")
CALLS = 30


async def test_every_stub_line_comes_between_its_request_and_its_response(tmp_path: Path) -> None:
    """30 tool calls, each running the stubbed ssh once: each exec line while its one call is in flight."""
    out = tmp_path / "t.jsonl"
    calls = [("remote", {"host": f"h{n}", "command": "uptime"}) for n in range(CALLS)]
    texts = await call_tools(out, SSH, calls, flags=["--stub", "ssh"])
    assert all(text.startswith("exit 255") for text in texts)
    in_flight: dict[object, float] = {}
    placed = []
    for event in events(out):
        if event.ch in ("in", "out"):
            msg = json.loads(event.data)
            if event.ch == "in" and msg.get("method") == "tools/call":
                in_flight[msg["id"]] = event.t
            elif event.ch == "out" and msg.get("id") in in_flight:
                del in_flight[msg["id"]]
        elif event.ch == "exec":
            host = json.loads(event.data)["argv"][3]
            placed.append((host, len(in_flight)))
    assert placed == [(f"h{n}", 1) for n in range(CALLS)]


class SlowSink(ListSink):
    """A sink that takes its time with each line, as a recorder's thread under load does."""

    def __init__(self) -> None:
        super().__init__()
        self.taken_at: list[float] = []

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        time.sleep(0.3)
        super().chunk(t, ch, data)
        self.taken_at.append(time.monotonic())


def test_the_stub_exits_only_after_the_recorder_took_its_line(tmp_path: Path) -> None:
    """A recorder slow to take the line: the stubbed command still ends after its line was recorded."""
    got = SlowSink()
    with side_effects(got, stubs=["ssh"]) as fx:
        env = fx.child_env({"PATH": os.environ["PATH"]})
        run = subprocess.run(["ssh", "host"], env=env, capture_output=True, text=True, timeout=30)
        ended = time.monotonic()
    assert run.returncode == 255 and "(recorded)" in run.stderr
    [taken] = got.taken_at
    assert taken <= ended


def test_a_recorder_that_never_takes_the_line_delays_the_stub_a_bounded_time(tmp_path: Path) -> None:
    """A recorder stuck in its sink costs the stubbed command at most a few seconds, never a hang."""
    stuck = threading.Event()

    class StuckSink(ListSink):
        def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
            stuck.wait(30)

    stubs = Stubs(StuckSink(), ["ssh"]).start()
    try:
        env = {**os.environ, **stubs.env(os.environ)}
        started = time.monotonic()
        run = subprocess.run(["ssh", "host"], env=env, capture_output=True, text=True, timeout=30)
        assert run.returncode == 255
        assert time.monotonic() - started < ACK_WAIT + 2
    finally:
        stuck.set()
        stubs.stop()
