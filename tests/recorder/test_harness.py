"""The harness drives a real server under recording, for replay and probe."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from mcptape.harness import Harness
from mcptape.transcript import open_transcript
from tests.conftest import SERVERS

pytestmark = pytest.mark.slow

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def line(obj: object) -> bytes:
    return orjson.dumps(obj) + b"\n"


def test_harness_sends_reads_frames_and_records_everything(tmp_path: Path) -> None:
    """Bytes sent reach the server, its answers come back as frames, and all of it is recorded."""
    path = tmp_path / "h.jsonl"
    server = [sys.executable, str(SERVERS / "fast" / "echo_tool.py")]  # the SDK's answers, on lite
    with Harness(server, path) as h:
        h.send(line(INIT))
        first = h.next_frame(timeout=20)
        assert first is not None and orjson.loads(first.raw)["id"] == 1
        h.send(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        h.send(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
                }
            )
        )
        second = h.next_frame(timeout=20)
        assert second is not None and orjson.loads(second.raw)["result"]["structuredContent"] == {"result": 3}
    assert h.status is not None and h.status.code == 0
    events = list(open_transcript(path).events())
    sent = b"".join(e.data for e in events if e.ch == "in")
    got = b"".join(e.data for e in events if e.ch == "out")
    assert sent.count(b"\n") == 3 and got == first.raw + second.raw
    assert [e.ch for e in events][-1] == "exit"


def test_next_frame_times_out_then_reports_eof(tmp_path: Path) -> None:
    """No answer within the timeout gives None; after the server exits, None at once."""
    with Harness([sys.executable, "-c", "import sys; sys.stdin.read()"], tmp_path / "q.jsonl") as h:
        assert h.next_frame(timeout=0.2) is None
        h.close_stdin()
        assert h.wait_exit(10)
        assert h.next_frame(timeout=5) is None
        assert h.eof.wait(5)


FLOOD = r"""
import os, sys
line = b"x" * 999 + b"\n"
for _ in range(20000):  # 20 MB: more than the queue, the pipes and the pumps hold together
    sys.stdout.buffer.write(line)
sys.stdout.flush()
open(sys.argv[1], "w").close()
sys.stdin.read()
sys.stdout.buffer.write(b"bye\n")
"""


def test_a_flood_nobody_reads_is_held_back_then_drained_and_recorded(tmp_path: Path) -> None:
    """Unread stdout frames queue up to QUEUED_FRAMES, the server then waits on its stdout, and
    after stop() it finishes writing: every byte is recorded, none is kept in memory."""
    import time

    from mcptape.harness import QUEUED_FRAMES

    done = tmp_path / "wrote-everything"
    path = tmp_path / "flood.jsonl"
    h = Harness([sys.executable, "-c", FLOOD, str(done)], path)
    h.start()
    deadline = time.monotonic() + 20
    while h.frames.qsize() < QUEUED_FRAMES and time.monotonic() < deadline:
        time.sleep(0.05)
    assert h.frames.qsize() == QUEUED_FRAMES
    time.sleep(0.3)
    assert not done.exists(), "the server should be waiting on its stdout"
    status = h.stop()
    assert done.exists()
    assert status is not None and status.code == 0
    out = b"".join(e.data for e in open_transcript(path).events() if e.ch == "out")
    assert out == (b"x" * 999 + b"\n") * 20000 + b"bye\n"
    assert h.frames.qsize() <= 1


DRIVER = r"""
import sys, time
from mcptape.harness import Harness
deaf = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)"
server = [sys.executable, "-c", deaf, sys.argv[1]]
h = Harness(server, sys.argv[2], shutdown_timeout=0.3)
h.start()
print("started", flush=True)
time.sleep(600)
"""


def test_a_driver_killed_by_sigkill_leaves_no_server_running(tmp_path: Path) -> None:
    """A replay or probe process that dies without cleaning up (SIGKILL) takes its server with it."""
    import subprocess
    import time

    from tests.recorder.processes import eventually, group, running

    pidfile = tmp_path / "server.pid"
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(pidfile), str(tmp_path / "d.jsonl")], stdout=subprocess.PIPE
    )
    try:
        assert driver.stdout is not None and driver.stdout.readline() == b"started\n"
        eventually(lambda: pidfile.exists() and pidfile.read_text() != "")
        server = int(pidfile.read_text())
        time.sleep(0.5)
        assert running(server)
        driver.kill()
        driver.wait()
        eventually(lambda: not running(server))
        eventually(lambda: group(server) == [])
    finally:
        driver.kill()
        driver.wait()


def test_sending_more_than_the_pipes_hold_before_reading_does_not_wait_for_ever(tmp_path: Path) -> None:
    """A driver inside send() cannot read: the frame bound gives way then (12 MB through `cat` in
    one send, then every frame read back), as a replay of a pipelined session needs."""
    import threading

    line = b"x" * 1023 + b"\n"
    n = 12 * 1024
    with Harness(["cat"], tmp_path / "t.jsonl", http_sink=False, shutdown_timeout=0.5) as h:
        sender = threading.Thread(target=h.send, args=(line * n,), daemon=True)
        sender.start()
        sender.join(20)
        assert not sender.is_alive(), "send() is stuck: the server waits on its stdout, we on its stdin"
        got = 0
        while got < n and h.next_frame(timeout=5) is not None:
            got += 1
        assert got == n
