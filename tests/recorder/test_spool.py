"""The spool keeps each channel's records in order, whether a read went inline or through its queue."""

from __future__ import annotations

import threading
import time
from typing import Any

from mcptape.recorder.spool import Spool


class SlowTarget:
    """Records what reaches it; large writes are slow, so the queue builds up behind them."""

    def __init__(self) -> None:
        self.records: list[tuple[str, bytes | dict[str, Any]]] = []
        self.lock = threading.Lock()

    def now(self) -> float:
        return time.monotonic()

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        if len(data) >= 1024:
            time.sleep(0.0005)
        with self.lock:
            self.records.append((ch, bytes(data)))

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        with self.lock:
            self.records.append((ch, fields))


def test_each_channel_keeps_its_order_across_inline_and_queued_records() -> None:
    """Three pumps mixing small (inline) and large (queued) reads, then an `eof`: order kept per channel."""
    target = SlowTarget()
    spool = Spool(target, max_pending=64 << 10, inline_below=1024)

    def pump(ch: str) -> None:
        for i in range(300):
            size = 4096 if i % 7 == 0 else 10
            spool.chunk(0.0, ch, (b"%s %05d " % (ch.encode(), i)).ljust(size, b"."))
        spool.fields(0.0, "eof", of=ch)

    threads = [threading.Thread(target=pump, args=(ch,)) for ch in ("out", "err", "exec")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    spool.close()
    for ch in ("out", "err", "exec"):
        mine = [r for c, r in target.records if c == ch or r == {"of": ch}]
        assert mine[-1] == {"of": ch}, f"{ch}: eof was not the channel's last record"
        numbers = [int(r.split()[1].rstrip(b".")) for r in mine[:-1] if isinstance(r, bytes)]
        assert numbers == list(range(300)), f"{ch}: records out of order"
