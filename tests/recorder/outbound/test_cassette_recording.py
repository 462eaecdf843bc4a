"""The recording proxy: what reaches the origin, what the client gets, and the line it writes."""

from __future__ import annotations

import gzip
import os
import shutil
import ssl
import stat
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from mcptape.recorder.outbound.tlsca import BUNDLE_VARS, system_bundle
from tests.recorder.http.helpers import refused_port
from tests.recorder.outbound.cassettes import client, recording
from tests.recorder.outbound.origins import (
    PAGES,
    OriginCA,
    chunked_route,
    gzip_route,
    headers_route,
    make_origin_ca,
    origin,
)

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> OriginCA:
    return make_origin_ca(tmp_path_factory.mktemp("ca"))


def test_plain_and_tls_exchanges_are_recorded_whole(test_ca: OriginCA) -> None:
    """A GET over plain HTTP and a POST over HTTPS reach their origins; each line holds the request and
    the response, bodies whole, the HTTPS one with the tunnel it came through."""
    with origin() as plain, origin(tls=test_ca) as secure, recording([str(test_ca.ca_file)]) as (proxy, out):
        with client(proxy) as http:
            got = http.get(f"{plain.url}/page")
            posted = http.post(f"{secure.url}/robots.txt", content=b'{"q": "caf\xc3\xa9"}')
        assert plain.seen == [("GET", "/page", b"")]
        assert secure.seen == [("POST", "/robots.txt", b'{"q": "caf\xc3\xa9"}')]
    assert got.content == PAGES["/page"][0] and posted.content == PAGES["/robots.txt"][0]
    first, second = out.lines
    assert first["method"] == "GET" and first["url"] == f"{plain.url}/page" and first["form"] == "absolute"
    assert "tunnel" not in first and first["body"] == ""
    assert first["response"]["status"] == 200 and first["response"]["body"] == PAGES["/page"][0].decode()
    assert ["Content-Type", "text/html; charset=utf-8"] in first["response"]["headers"]
    assert (first["reply"], first["outcome"]) == (200, "ok")
    assert second["url"] == f"{secure.url}/robots.txt" and second["target"] == "/robots.txt"
    assert second["form"] == "origin" and second["tunnel"] == f"127.0.0.1:{secure.port}"
    assert second["body"] == '{"q": "café"}'
    assert second["response"]["body"] == PAGES["/robots.txt"][0].decode()


def test_a_streamed_body_reaches_the_client_as_it_comes_and_is_kept_whole() -> None:
    """The origin sends its second chunk only once the client has read the first (forward first);
    the line holds the whole body."""
    between = threading.Event()
    pieces = [b"data: one\n\n", b"data: two\n\n", b"data: three\n\n"]
    route = {"/events": chunked_route(pieces, between)}
    with origin(routes=route) as plain, recording() as (proxy, out), client(proxy) as http:
        response = http.send(http.build_request("GET", f"{plain.url}/events"), stream=True)
        stream = response.iter_raw()
        first = next(stream)
        between.set()
        rest = b"".join(stream)
        response.close()
    assert first == pieces[0]
    assert first + rest == b"".join(pieces)
    [line] = out.lines
    assert line["response"]["body"] == b"".join(pieces).decode()
    assert ["Transfer-Encoding", "chunked"] in line["response"]["headers"]


def test_a_gzip_body_is_kept_decoded_and_the_client_gets_the_bytes_the_origin_sent() -> None:
    """The line keeps the text (for reading and redaction), marked decoded; the client decodes it
    from the compressed bytes as it would without the proxy."""
    text = "compressed answer, " * 40
    route = {"/z": gzip_route(text.encode())}
    with origin(routes=route) as plain, recording() as (proxy, out), client(proxy) as http:
        got = http.get(f"{plain.url}/z")
    assert got.text == text and got.headers["content-encoding"] == "gzip"
    [line] = out.lines
    assert line["response"]["body"] == text and line["response"]["decoded"] == "gzip"
    assert gzip.decompress(gzip.compress(text.encode())) == text.encode()


def test_credentials_are_forwarded_but_redacted_in_the_line() -> None:
    """The origin gets the real Authorization header and token parameter; the line has neither, nor
    the Set-Cookie the origin answered."""
    cookie = headers_route(200, [("Set-Cookie", "sid=s3cr3t-session"), ("Content-Type", "text/plain")], b"ok")
    received: list[str | None] = []

    def capture(h: object) -> None:
        received.append(h.headers.get("Authorization"))  # type: ignore[attr-defined]
        cookie(h)  # type: ignore[arg-type]

    with origin(routes={"/me": capture}) as plain, recording() as (proxy, out), client(proxy) as http:
        http.get(f"{plain.url}/me?token=abc123&page=2", headers={"Authorization": "Bearer abc123"})
    assert received == ["Bearer abc123"]
    [line] = out.lines
    assert line["url"] == f"{plain.url}/me?token=REDACTED&page=2"
    assert ["Authorization", "<redacted>"] in line["headers"]
    assert ["Set-Cookie", "<redacted>"] in line["response"]["headers"]
    assert "abc123" not in str(line) and "s3cr3t" not in str(line)


def test_an_upstream_certificate_outside_the_system_store_is_a_502_with_the_way_out(
    test_ca: OriginCA,
) -> None:
    """Without --http-cassette-ca the test origin's certificate is not trusted: the client gets 502,
    the line says why and names the option."""
    with origin(tls=test_ca) as secure, recording() as (proxy, out), client(proxy) as http:
        got = http.get(f"{secure.url}/page")
    assert got.status_code == 502 and got.headers["x-mcptape"] == "cassette"
    [line] = out.lines
    assert "response" not in line and (line["reply"], line["outcome"]) == (502, "failed")
    assert "not trusted" in line["error"] and "--http-cassette-ca" in line["error"]


def test_an_unreachable_origin_is_a_502_line() -> None:
    """Connection refused: the client gets 502 and the line records the error."""
    with refused_port() as port, recording() as (proxy, out), client(proxy) as http:
        got = http.get(f"http://127.0.0.1:{port}/x")
    assert got.status_code == 502
    [line] = out.lines
    assert line["error"].startswith(f"cannot connect to 127.0.0.1:{port}")


def test_a_client_that_does_not_trust_the_session_ca_leaves_a_connect_line(test_ca: OriginCA) -> None:
    """A client with its own CA list refuses the session CA: the tunnel's line says the handshake failed."""
    with origin(tls=test_ca) as secure, recording([str(test_ca.ca_file)]) as (proxy, out):
        own_list = httpx.Client(proxy=proxy.url, verify=ssl.create_default_context())
        with own_list as http, pytest.raises(httpx.ConnectError):
            http.get(f"{secure.url}/page")
        assert secure.seen == []
    [line] = out.lines
    assert line["method"] == "CONNECT" and line["target"] == f"127.0.0.1:{secure.port}"
    assert line["error"].startswith("TLS handshake failed")


def test_the_session_ca_key_never_rests_on_disk_and_its_folder_goes_at_the_end() -> None:
    """The CA's private folder (0700) holds only the trust bundle: the system's CAs and the session CA."""
    with recording() as (proxy, _):
        folder = proxy.ca.dir
        with client(proxy) as http, origin(tls=None) as plain:
            http.get(f"{plain.url}/page")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert [p.name for p in folder.iterdir()] == ["ca-bundle.pem"]
        bundle = proxy.ca.bundle.read_bytes()
        assert bundle.endswith(proxy.ca.pem) and b"PRIVATE KEY" not in bundle
        system = system_bundle()
        assert system is not None and system.read_bytes().strip() in bundle
    assert not folder.exists()


def test_the_server_environment_points_at_the_proxy_and_the_bundle() -> None:
    """The proxy variables (as --http-sink) and every trust variable name the session bundle."""
    with recording() as (proxy, _):
        env = proxy.env()
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        assert env[name] == proxy.url
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"):
        assert name in BUNDLE_VARS and env[name] == str(proxy.ca.bundle)


CLIENTS = {
    "python-urllib": [
        sys.executable,
        "-c",
        "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
    ],
    "python-requests": [sys.executable, "-c", "import sys, requests; print(requests.get(sys.argv[1]).text)"],
    "curl": ["curl", "-sS", "--fail"],
}


@pytest.mark.parametrize("name", [*CLIENTS, "node"])
def test_common_clients_trust_the_session_ca_through_the_environment(name: str, test_ca: OriginCA) -> None:
    """urllib (SSL_CERT_FILE), requests (REQUESTS_CA_BUNDLE), curl (CURL_CA_BUNDLE) and Node
    (NODE_EXTRA_CA_CERTS) fetch an HTTPS page through the proxy with only the environment it sets."""
    if name in ("curl", "node"):
        assert shutil.which(name), f"{name} is needed for this test"
    with origin(tls=test_ca) as secure, recording([str(test_ca.ca_file)]) as (proxy, out):
        env = {k: v for k, v in os.environ.items() if k not in BUNDLE_VARS and k != "SSL_CERT_DIR"}
        env.update(proxy.env())
        if name == "node":
            argv = ["node", str(HERE / "node_connect.js"), "127.0.0.1", str(secure.port), "/page"]
        else:
            argv = [*CLIENTS[name], f"{secure.url}/page"]
        done = subprocess.run(argv, env=env, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    assert b"Recorded once" in done.stdout
    assert [line["url"] for line in out.lines] == [f"{secure.url}/page"]
