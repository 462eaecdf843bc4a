"""An exchange sent again by the HTTP driver (`driver.HttpDriver`): its connection and its response
as it comes, and the small socket and body helpers the driver uses."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field

from mcptape.recorder.http.clientread import ResponseReader
from mcptape.replay.http.plan import Step

READ = 65536


@dataclass
class Live:
    """An exchange sent again: its connection, its response as it comes."""

    step: Step
    reader: ResponseReader
    sock: socket.socket | None = None
    delivered: int = 0  # messages its response carried so far
    done: threading.Event = field(default_factory=threading.Event)  # ended, failed or closed
    thread: threading.Thread | None = None


def body_of(request: bytes) -> bytes:
    """The body of a request's bytes, a line end after it (judged as whole lines, `replay.guard`)."""
    return request.partition(b"\r\n\r\n")[2] + b"\n"


def shut(sock: socket.socket | None) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
