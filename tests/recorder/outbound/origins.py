"""Local origin servers for the cassette tests: plain HTTP and HTTPS (with a test CA of their own).

The test CA is made here with RSA keys, independently of mcptape's session CA (EC keys), so the
proxy's upstream verification is checked against a CA it did not make.
"""

from __future__ import annotations

import datetime
import gzip
import http.server
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

PAGES = {
    "/robots.txt": (b"User-agent: *\nAllow: /\n", "text/plain"),
    "/page": (
        b"<html><head><title>Cassette</title></head><body><h1>Recorded once</h1>"
        b"<p>This page was served by a local origin, then by the cassette.</p></body></html>",
        "text/html; charset=utf-8",
    ),
    "/secure": (
        b"<html><head><title>Secure</title></head><body><h1>Over TLS</h1>"
        b"<p>Terminated by the session CA, verified upstream against the test CA.</p></body></html>",
        "text/html; charset=utf-8",
    ),
}


@dataclass
class OriginCA:
    """A CA and one server certificate for 127.0.0.1 and localhost, as PEM files."""

    ca_file: Path
    cert_file: Path
    key_file: Path

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        return ctx


def make_origin_ca(folder: Path) -> OriginCA:
    now = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mcptape test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    out = OriginCA(folder / "test-ca.pem", folder / "origin.pem", folder / "origin.key")
    out.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    out.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    out.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return out


Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


@dataclass
class Origin:
    """A running local origin: its base URL and every request it received (method, path, body)."""

    url: str
    port: int
    seen: list[tuple[str, str, bytes]] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers
    disable_nagle_algorithm = True  # the head and the body are written apart
    origin: Origin
    routes: dict[str, Handler]

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0]
        self.origin.seen.append((self.command, self.path, body))
        route = self.routes.get(path)
        if route is not None:
            route(self)
            return
        page = PAGES.get(path)
        if page is None:
            self.send_error(404)
            return
        content, kind = page
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _any

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def origin(tls: OriginCA | None = None, routes: dict[str, Handler] | None = None) -> Iterator[Origin]:
    """Serve PAGES (and `routes`) on 127.0.0.1 over HTTP, or HTTPS with `tls`, until the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.server_context().wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    scheme = "https" if tls is not None else "http"
    found = Origin(f"{scheme}://127.0.0.1:{port}", port)
    handler = type("Handler", (_Handler,), {"origin": found, "routes": dict(routes or {})})
    server.RequestHandlerClass = handler
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class Tripwire:
    """Listeners on given ports that count every connection made to them (none is expected)."""

    def __init__(self, ports: list[int]) -> None:
        self.hits = 0
        self.ports = list(ports)
        self._socks = []
        for port in ports:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
            sock.listen(16)
            sock.settimeout(0.05)
            self._socks.append(sock)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for sock in self._socks:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    continue
                self.hits += 1
                conn.close()

    def close(self) -> int:
        time.sleep(0.1)
        self._stop.set()
        self._thread.join(2)
        for sock in self._socks:
            sock.close()
        return self.hits


def gzip_route(text: bytes) -> Handler:
    """A route answering `text` gzip-compressed."""

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        body = gzip.compress(text)
        h.send_response(200)
        h.send_header("Content-Type", "text/plain; charset=utf-8")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return handle


def chunked_route(pieces: list[bytes], between: threading.Event) -> Handler:
    """A route answering `pieces` as a chunked body; after the first piece it waits for `between`
    (so a test sees whether the first piece reached the client before the rest was sent)."""

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for n, piece in enumerate(pieces):
            h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            h.wfile.flush()
            if n == 0:
                between.wait(10)
        h.wfile.write(b"0\r\n\r\n")

    return handle


def headers_route(status: int, headers: list[tuple[str, str]], body: bytes = b"") -> Handler:
    """A route answering `status` with `headers` and `body` (Content-Length added)."""

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        for name, value in headers:
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    return handle
