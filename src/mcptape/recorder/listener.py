"""The listening side the HTTP sink, the cassette proxy and the reverse proxy share: `Listener`,
their one lifecycle (a socket from `listen`, an acceptor thread, a thread per connection in
`Workers`, `start()`, and `stop()`, which ends accepting with `stop_accepting` and waits for the
connections in flight), and `BadRequest`, the bytes of a client they cannot read. What each does
with a connection (`_serve`) and what it ends after its connections (`_stopped`) stay its own."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Self


class BadRequest(Exception):
    """The client's bytes are not a request the listener can read."""


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


class Listener:
    """One listening socket, served until `stop()`: `start()` the acceptor, each connection in a thread
    of its own (`_serve`, the subclass's), `stop(grace)` once. `host`, `port`: where it listens."""

    accept_name = "mcptape-listener"  # the acceptor thread's name
    conn_name = "mcptape-conn"  # each connection thread's name
    serve_queued = False  # at stop(), serve the connections made before it (and the wake-up) too

    def __init__(self, host: str, port: int = 0) -> None:
        self._listener = listen(host, port)
        self.host: str = self._listener.getsockname()[0]
        self.port: int = self._listener.getsockname()[1]
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._workers = Workers()
        self._acceptor = threading.Thread(target=self._accept_loop, name=self.accept_name, daemon=True)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> Self:
        self._acceptor.start()
        return self

    def stop(self, grace: float = 2.0) -> None:
        """Stop accepting, give the connections in flight `grace` seconds, then `_stopped(grace)`."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        stop_accepting(self._listener, self._acceptor, grace)
        self._workers.join(grace)
        self._stopped(grace)

    def _stopped(self, grace: float) -> None:
        """What ends after the connections were given their time (nothing by default)."""

    def _serve(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            if self._stopping.is_set() and not self.serve_queued:
                conn.close()  # the wake-up of stop_accepting, or a client too late
                return
            self._workers.start(self._serve, conn, self.conn_name)
            if self._stopping.is_set():
                break
        if self.serve_queued:
            self._serve_queued()

    def _serve_queued(self) -> None:
        """Stopping: serve the connections already queued (made before stop()), then return."""
        self._listener.setblocking(False)
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.setblocking(True)
            self._workers.start(self._serve, conn, self.conn_name)
