"""The one change the reverse proxy makes on its way to a remote upstream: each request's `Host` header
names the upstream (a virtual host, a CDN, TLS's SNI all want their own name), not mcptape's
listening address. A loopback upstream gets the bytes unchanged (its DNS-rebinding check accepts any
port of 127.0.0.1). The transcript keeps what the client sent.

Only heads are touched: an h11 reader finds where each request's head ends (a new reader per
request, so pipelined requests are found too); bodies and everything h11 cannot read pass as they
came. A head not complete yet is held back until it is (at most h11's head limit).
"""

from __future__ import annotations

import ipaddress

import h11

MAX_HEAD = 1 << 20


class HostRewriter:
    """`feed(data)` returns the bytes to send upstream now (with the Host line replaced)."""

    def __init__(self, authority: str) -> None:
        self.authority = authority.encode("latin-1")
        self._conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self._held = bytearray()  # bytes given to the reader and not sent yet (a head in progress)
        self._in_head = True
        self._broken = False  # h11 cannot read the client's bytes: they pass unchanged

    def feed(self, data: bytes) -> bytes:
        if self._broken:
            return data
        out = bytearray()
        self._held += data
        try:
            self._conn.receive_data(data)
            while True:
                event = self._conn.next_event()
                if event is h11.NEED_DATA:
                    break
                if isinstance(event, h11.Request):
                    size = len(self._held) - len(self._conn.trailing_data[0])
                    out += _with_host(bytes(self._held[:size]), self.authority)
                    del self._held[:size]
                    self._in_head = False
                elif isinstance(event, h11.EndOfMessage):
                    rest = bytes(self._conn.trailing_data[0])
                    self._conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
                    size = len(self._held) - len(rest)
                    out += self._held[:size]
                    del self._held[:size]
                    self._in_head = True
                    if rest:
                        self._conn.receive_data(rest)
                elif event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                    break
        except h11.ProtocolError:
            self._broken = True
            out += self._held
            self._held.clear()
            return bytes(out)
        if not self._in_head:  # body bytes go at once
            size = len(self._held) - len(self._conn.trailing_data[0])
            out += self._held[:size]
            del self._held[:size]
        return bytes(out)

    def flush(self) -> bytes:
        """What is still held (the client closed in the middle of a head): sent as it is."""
        held = bytes(self._held)
        self._held.clear()
        return held


def is_loopback(host: str) -> bool:
    """`localhost`, or an IP address on loopback (`127.0.0.0/8`, `::1`). A name is not resolved."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _with_host(head: bytes, authority: bytes) -> bytes:
    lines = head.split(b"\r\n")
    for i, line in enumerate(lines[1:], start=1):
        name, colon, _ = line.partition(b":")
        if colon and name.strip().lower() == b"host":
            lines[i] = name + b": " + authority
    return b"\r\n".join(lines)
