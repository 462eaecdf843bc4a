"""The recorder forwards every byte unchanged both ways, and the transcript joins back to them."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcptape.transcript import open_transcript
from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

SIZES = [0, 1, 2, 7, 200, 4096, 65536, 1 << 20]

# One chunk: random bytes (NUL, CR, invalid UTF-8 included) of a chosen size, maybe a newline.
chunk_spec = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(SIZES), st.booleans())
stream = st.lists(chunk_spec, max_size=5)


def make_chunks(specs: list[tuple[int, int, bool]]) -> list[bytes]:
    out = []
    for seed, size, newline in specs:
        data = random.Random(seed).randbytes(size)
        out.append(data + (b"\n" if newline else b""))
    return out


def channel_bytes(path: Path, ch: str) -> bytes:
    return b"".join(e.data for e in open_transcript(path).events() if e.ch == ch)


def run_through_recorder(tmp: Path, out: list[bytes], err: list[bytes], stdin: list[bytes]) -> None:
    plan = tmp / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "out": [base64.b64encode(c).decode() for c in out],
                "err": [base64.b64encode(c).decode() for c in err],
            }
        )
    )
    received = tmp / "received.bin"
    transcript = tmp / "t.jsonl"
    proc = subprocess.Popen(
        [
            console_script(),
            "record",
            "-q",
            "--overwrite",
            "-o",
            str(transcript),
            "--",
            sys.executable,
            str(SERVERS / "byte_echo.py"),
            str(plan),
            str(received),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    got: dict[str, bytes] = {}

    def drain(name: str, pipe: object) -> None:
        got[name] = pipe.read()  # type: ignore[attr-defined]

    readers = [
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
    for r in readers:
        r.start()
    assert proc.stdin is not None
    for chunk in stdin:
        proc.stdin.write(chunk)
        proc.stdin.flush()
    proc.stdin.close()
    for r in readers:
        r.join(60)
    assert proc.wait(60) == 0
    assert got["out"] == b"".join(out), "the client must receive exactly the child's stdout"
    assert got["err"] == b"".join(err), "the client must receive exactly the child's stderr"
    assert received.read_bytes() == b"".join(stdin), "the child must receive exactly the client's bytes"
    assert channel_bytes(transcript, "out") == b"".join(out)
    assert channel_bytes(transcript, "err") == b"".join(err)
    assert channel_bytes(transcript, "in") == b"".join(stdin)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(out=stream, err=stream, stdin=stream)
def test_random_byte_streams_pass_unchanged_and_are_recorded_exactly(
    tmp_path: Path,
    out: list[tuple[int, int, bool]],
    err: list[tuple[int, int, bool]],
    stdin: list[tuple[int, int, bool]],
) -> None:
    """Random bytes in random chunks on stdin, stdout and stderr: forwarded and recorded exactly."""
    run_through_recorder(tmp_path, make_chunks(out), make_chunks(err), make_chunks(stdin))


def test_edge_bytes_without_final_newline(tmp_path: Path) -> None:
    """NUL, CR, invalid UTF-8, a 1 MiB line and no final newline, on every channel."""
    edge = [b"\x00\r\n", b"\xff\xfe\xc3", b"\xa9 split utf-8\n", b"x" * (1 << 20), b"tail-no-newline"]
    run_through_recorder(tmp_path, edge, list(reversed(edge)), edge)
