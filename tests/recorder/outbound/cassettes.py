"""In-process cassette proxies for the tests: recording (`recording`) or playing (`playing`), with
the lines they write collected in a list."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import orjson

from mcptape.recorder.outbound.cassette import Upstream
from mcptape.recorder.outbound.proxy import CassetteProxy
from mcptape.replay.cassette import Matcher, Player


class Lines:
    """A `Sink` keeping each `http` line as a dict."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.lines: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic() - self.t0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        assert ch == "http" and data.endswith(b"\n") and data.count(b"\n") == 1
        with self._lock:
            self.lines.append(orjson.loads(data))


@contextmanager
def recording(extra_cas: Sequence[str] = ()) -> Iterator[tuple[CassetteProxy, Lines]]:
    """A recording proxy (real upstream connections), stopped at the end of the block."""
    lines = Lines()
    proxy = Upstream(extra_cas).listener(lines)
    try:
        yield proxy, lines
    finally:
        proxy.stop()


@contextmanager
def playing(
    recorded: Sequence[Mapping[str, Any]], match: str | None = None
) -> Iterator[tuple[CassetteProxy, Lines, Player]]:
    """A proxy answering from `recorded`, stopped at the end of the block."""
    lines = Lines()
    player = Player(recorded, Matcher.parse(match))
    proxy = player.listener(lines)
    try:
        yield proxy, lines, player
    finally:
        proxy.stop()


def client(proxy: CassetteProxy) -> httpx.Client:
    """An httpx client sent through `proxy`, trusting its session CA as the server would."""
    return httpx.Client(proxy=proxy.url, verify=ssl.create_default_context(cafile=str(proxy.ca.bundle)))
