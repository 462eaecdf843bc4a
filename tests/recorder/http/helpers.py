"""Helpers for the Streamable HTTP tests: free ports, `mcptape record --http-upstream` as a real
process, a byte-capturing TCP relay (to see what crossed a socket), and transcript readers."""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tests.conftest import PYTHON, SERVERS, console_script

SDK_SERVER = SERVERS / "sdk_http.py"
# The recorder's own line: a server it starts may say "listening on" too (`mcptape serve` does), and
# its line can reach the recorder's stderr first; a client sent there would bypass the recorder.
LISTENING = re.compile(r"^mcptape: listening on (http://\S+)", re.MULTILINE)


# Ports a test chooses for a process it starts next come from below the kernel's ephemeral range
# (32768-60999 by default): a port from there can be taken, between the choice and the bind, by
# any socket a parallel test binds to port 0 or connects out from. Here only another explicit
# choice can take it, one chance in a few thousand.
_CHOSEN = (20000, 32000)


def free_port() -> int:
    """A port free now, for a process started next to listen on (outside the ephemeral range)."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(*_CHOSEN)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port in {_CHOSEN}")


@contextmanager
def refused_port() -> Iterator[int]:
    """A port where nothing listens for as long as the block runs: a socket bound to it and never
    listening holds it, so a connection is refused and no other test's server can take it (a port
    from `free_port` can be a parallel test's listener by the time it is dialled)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        yield port


def wait_accepting(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing accepted connections on port {port}")


def sdk_server(port: int, *extra: str) -> list[str]:
    return [PYTHON, str(SDK_SERVER), str(port), *extra]


@dataclass
class Recorder:
    """A running `mcptape record --http-upstream`: `url` is where the client connects."""

    proc: subprocess.Popen[bytes]
    url: str
    output: Path
    stderr_path: Path

    def stop(self, signum: int = signal.SIGINT, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signum)
        return self.proc.wait(timeout)

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@contextmanager
def recording(
    upstream: str, output: Path, command: list[str] | None = None, *extra: str, startup: float = 60.0
) -> Iterator[Recorder]:
    """`mcptape record --http-upstream upstream -o output [-- command]`, stopped (SIGINT) at the end."""
    args = [console_script(), "record", "--http-upstream", upstream, "-o", str(output), *extra]
    if command:
        args += ["--", *command]
    stderr_path = output.with_suffix(".stderr")
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + startup
    url = None
    while time.monotonic() < deadline and url is None:
        found = LISTENING.search(stderr_path.read_text(errors="replace"))
        if found:
            url = found.group(1)
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.05)
    if url is None:
        proc.kill()
        proc.wait()
        raise AssertionError(f"mcptape never listened: {stderr_path.read_text(errors='replace')}")
    recorder = Recorder(proc, url, output, stderr_path)
    try:
        yield recorder
    finally:
        if proc.poll() is None:
            recorder.stop()


def records(path: Path) -> list[dict[str, Any]]:
    """Every record after the header."""
    lines = path.read_bytes().splitlines()
    return [orjson.loads(line) for line in lines[1:] if line.strip()]


def data_of(record: dict[str, Any]) -> bytes:
    import base64

    if "data" in record:
        text: str = record["data"]
        return text.encode("utf-8")
    return base64.b64decode(record["b64"])


def exchanges(path: Path, channel: str) -> dict[int, bytes]:
    """The bytes of each exchange on `http-in` or `http-out`, by exchange number."""
    out: dict[int, bytes] = {}
    for record in records(path):
        if record["ch"] == channel:
            out[record["x"]] = out.get(record["x"], b"") + data_of(record)
    return out


@dataclass
class Capture:
    """What one TCP connection carried, each way."""

    up: bytearray = field(default_factory=bytearray)  # client -> server
    down: bytearray = field(default_factory=bytearray)  # server -> client


class Relay:
    """A TCP relay on a free loopback port to `target_port`, keeping every byte of every connection."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.captures: list[Capture] = []
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port: int = self._listener.getsockname()[1]
        self._threads: list[threading.Thread] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            capture = Capture()
            self.captures.append(capture)
            for src, dst, into in ((client, upstream, capture.up), (upstream, client, capture.down)):
                thread = threading.Thread(target=self._copy, args=(src, dst, into), daemon=True)
                thread.start()
                self._threads.append(thread)

    @staticmethod
    def _copy(src: socket.socket, dst: socket.socket, into: bytearray) -> None:
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            into += data
            try:
                dst.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._listener.close()
        for thread in self._threads:
            thread.join(5)


def split_into(stream: bytes, parts: dict[int, bytes]) -> list[int]:
    """The exchanges whose bytes, one after the other in number order, make `stream` exactly."""
    used: list[int] = []
    rest = stream
    for x in sorted(parts):
        if rest and parts[x] and rest.startswith(parts[x]):
            used.append(x)
            rest = rest[len(parts[x]) :]
    assert rest == b"", f"bytes on the socket the transcript does not have: {rest[:200]!r}"
    return used


def terminate(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM) if _own_group(proc) else proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _own_group(proc: subprocess.Popen[bytes]) -> bool:
    try:
        return os.getpgid(proc.pid) == proc.pid
    except OSError:
        return False
