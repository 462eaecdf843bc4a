"""The listening side the HTTP sink, the cassette proxy and the reverse proxy share: the socket
(`listen`), one thread per connection (`Workers`), and the end of accepting (`stop_accepting`).
What each does with a connection stays its own."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable


def listen(host: str, port: int = 0) -> socket.socket:
    """A TCP socket listening on `host:port` (an IPv6 `host` when it has a `:`; port 0: any free)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except BaseException:
        listener.close()
        raise
    return listener


def stop_accepting(listener: socket.socket, acceptor: threading.Thread, grace: float) -> None:
    """Wake the `acceptor` blocked in `listener.accept()`, wait for it (up to `grace` s), close."""
    try:
        socket.create_connection(listener.getsockname()[:2], timeout=1).close()
    except OSError:
        pass
    if acceptor.is_alive():
        acceptor.join(grace)
    listener.close()


class Workers:
    """The threads serving one connection each: started here, forgotten when done, joined at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()

    def start(self, serve: Callable[[socket.socket], None], conn: socket.socket, name: str) -> None:
        """Serve `conn` in a daemon thread of its own."""
        worker = threading.Thread(target=self._run, args=(serve, conn), name=name, daemon=True)
        with self._lock:
            self._threads.add(worker)
        worker.start()

    def _run(self, serve: Callable[[socket.socket], None], conn: socket.socket) -> None:
        try:
            serve(conn)
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def join(self, grace: float, *, each: bool = False) -> None:
        """Wait for the threads still serving: `grace` seconds for them all, or for each one."""
        with self._lock:
            threads = list(self._threads)
        deadline = time.monotonic() + grace
        for thread in threads:
            thread.join(grace if each else max(0.0, deadline - time.monotonic()))
