"""The cassette player: recorded answers served back by a matcher, everything else a 502, nothing sent."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.errors import UsageError
from mcptape.replay.cassette import Matcher, exchanges
from mcptape.transcript.events import Event
from tests.recorder.http.helpers import free_port
from tests.recorder.outbound.cassettes import client, playing, recording
from tests.recorder.outbound.origins import Tripwire, gzip_route, headers_route, make_origin_ca, origin


def line(
    method: str, url: str, body: str = "", answer: str = "", status: int = 200, **extra: Any
) -> dict[str, Any]:
    """A recorded exchange as the recording proxy writes it."""
    return {
        "method": method,
        "url": url,
        "target": url,
        "form": "absolute",
        "version": "HTTP/1.1",
        "headers": [["Host", url.split("/")[2]]],
        "body": body,
        "response": {
            "status": status,
            "reason": "OK",
            "version": "HTTP/1.1",
            "headers": [["Content-Type", "text/plain"], ["Content-Length", str(len(answer))]],
            "body": answer,
        },
        "reply": status,
        "outcome": "ok",
        **extra,
    }


def test_identical_requests_get_the_recorded_answers_in_order_then_a_502() -> None:
    """Two recorded GETs of one URL are served in their recorded order; a third is unmatched."""
    url = "http://api.invalid/counter"
    recorded = [line("GET", url, answer="1"), line("GET", url, answer="2")]
    with playing(recorded) as (proxy, out, player), client(proxy) as http:
        got = [http.get(url) for _ in range(3)]
    assert [(r.status_code, r.text) for r in got[:2]] == [(200, "1"), (200, "2")]
    assert (
        got[2].status_code == 502 and "no recorded response for GET http://api.invalid/counter" in got[2].text
    )
    assert player.served == 2 and player.unmatched == [f"GET {url}"] and player.left == 0
    assert [x.get("error") is None for x in out.lines] == [True, True, False]
    assert out.lines[0]["response"] == line("GET", url, answer="1")["response"]


def test_the_body_chooses_among_posts_to_one_url() -> None:
    """With the default matcher (method, url, body), each POST gets the answer recorded for its body."""
    url = "http://api.invalid/rpc"
    recorded = [line("POST", url, body='{"a":1}', answer="A"), line("POST", url, body='{"b":2}', answer="B")]
    with playing(recorded) as (proxy, _, player), client(proxy) as http:
        second = http.post(url, content=b'{"b":2}')
        first = http.post(url, content=b'{"a":1}')
    assert (second.text, first.text) == ("B", "A") and player.unmatched == []


def test_a_request_with_no_recorded_answer_reaches_nothing() -> None:
    """An unmatched request is answered 502 by the player: a listener on its port sees no connection."""
    wire = Tripwire([free_port()])
    port = wire.ports[0]
    try:
        with playing([]) as (proxy, out, player), client(proxy) as http:
            got = http.get(f"http://127.0.0.1:{port}/x?y=1")
    finally:
        hits = wire.close()
    assert got.status_code == 502 and hits == 0
    assert player.unmatched == [f"GET http://127.0.0.1:{port}/x?y=1"]
    [written] = out.lines
    assert (
        written["reply"] == 502
        and "response" not in written
        and "matching on method,url,body" in written["error"]
    )


def test_https_is_served_from_the_cassette_behind_a_fresh_session_ca() -> None:
    """An HTTPS request is terminated with the replay's own CA and answered from the recording."""
    url = "https://api.invalid/secure?x=1"
    recorded = line(
        "GET", url, answer="over tls", tunnel="api.invalid:443", form="origin", target="/secure?x=1"
    )
    with playing([recorded]) as (proxy, out, _), client(proxy) as http:
        got = http.get(url)
    assert got.text == "over tls"
    [written] = out.lines
    assert written["tunnel"] == "api.invalid:443" and written["url"] == url


def test_a_recorded_cassette_plays_back_to_the_same_lines(tmp_path: Any) -> None:
    """Recorded from real origins (gzip, headers, a 404), then played: the client gets the same answers,
    and the player writes the same lines."""
    ca = make_origin_ca(tmp_path)
    routes = {"/z": gzip_route(b"squeezed " * 30), "/h": headers_route(201, [("X-Thing", "1")], b"made")}
    with origin(routes=routes) as plain, origin(tls=ca) as secure:
        urls = [f"{plain.url}/z", f"{plain.url}/h", f"{secure.url}/page", f"{secure.url}/missing"]
        with recording([str(ca.ca_file)]) as (proxy, recorded), client(proxy) as http:
            before = [(r.status_code, r.text, r.headers.get("x-thing")) for r in map(http.get, urls)]
    with playing(recorded.lines) as (proxy, played, player), client(proxy) as http:
        after = [(r.status_code, r.text, r.headers.get("x-thing")) for r in map(http.get, urls)]
        head = http.head(urls[2])
    assert after == before and [s for s, _, _ in before] == [200, 201, 200, 404]
    assert played.lines[:4] == recorded.lines
    assert head.status_code == 502  # a HEAD was never recorded
    assert player.unmatched == [f"HEAD {urls[2]}"]


def test_a_recorded_failure_is_served_as_the_same_failure() -> None:
    """An exchange recorded without a response (the origin was unreachable) is answered 502 again, with
    the recorded line's fields."""
    url = "http://down.invalid/"
    failed = {**line("GET", url), "error": "cannot connect to down.invalid:80: refused", "reply": 502}
    del failed["response"]
    failed["outcome"] = "failed"
    with playing([failed]) as (proxy, out, player), client(proxy) as http:
        got = http.get(url)
    assert got.status_code == 502 and "refused" in got.text
    [written] = out.lines
    assert {k: written.get(k) for k in ("error", "reply", "outcome", "response")} == {
        "error": failed["error"],
        "reply": 502,
        "outcome": "failed",
        "response": None,
    }
    assert player.unmatched == []


@pytest.mark.parametrize(
    ("spec", "recorded", "asked", "same"),
    [
        ("method,url,body", "http://h.invalid/p?a=1&b=2", "http://h.invalid/p?b=2&a=1", False),
        ("method,path,query", "http://h.invalid/p?a=1&b=2", "http://h.invalid/p?b=2&a=1", True),
        ("method,host,path", "http://h.invalid/p?a=1", "http://h.invalid/p?a=2", True),
        ("method,port", "http://h.invalid/p", "http://h.invalid:80/q", True),
        ("method,port", "https://h.invalid/p", "http://h.invalid/p", False),
        ("scheme,host", "https://h.invalid/p", "https://H.invalid/q", True),
    ],
)
def test_the_matcher_compares_the_fields_it_names(spec: str, recorded: str, asked: str, same: bool) -> None:
    """Each field of --http-match compares one part of the request; the query in any order."""
    matcher = Matcher.parse(spec)
    assert (matcher.key(line("GET", recorded)) == matcher.key(line("GET", asked))) is same


def test_the_matcher_can_compare_one_header() -> None:
    """`header:NAME` compares one header's values, whatever the case of its name."""
    matcher = Matcher.parse("method, header:x-tenant")
    a = line("GET", "http://h.invalid/", headers=[["X-Tenant", "a"]])
    b = line("GET", "http://h.invalid/other", headers=[["x-tenant", "a"]])
    c = line("GET", "http://h.invalid/", headers=[["X-Tenant", "c"]])
    assert matcher.key(a) == matcher.key(b) != matcher.key(c)


@pytest.mark.parametrize("spec", ["method,uri", "", " , ", "header:"])
def test_an_unknown_matcher_field_is_a_usage_error(spec: str) -> None:
    """A field the matcher does not know is refused with the list of fields."""
    with pytest.raises(UsageError) as caught:
        Matcher.parse(spec)
    assert "method, url, scheme" in (caught.value.hint or "")


def test_only_cassette_exchanges_are_read_from_a_transcript() -> None:
    """Sink lines, refused tunnels and fragments are told apart: the exchanges, in order."""
    sink = {"method": "GET", "target": "http://x.invalid/", "reply": 200, "outcome": "ok"}
    refused = {"method": "CONNECT", "target": "x.invalid:443", "url": "x", "error": "TLS handshake failed"}
    a, b = line("GET", "http://x.invalid/a"), line("GET", "http://x.invalid/b")
    import orjson

    text_b = orjson.dumps(b) + b"\n"
    events = [
        Event(0.1, "http", raw=orjson.dumps(sink) + b"\n"),
        Event(0.2, "http", raw=orjson.dumps(a) + b"\n"),
        Event(0.3, "out", raw=b'{"jsonrpc":"2.0"}\n'),
        Event(0.4, "http", raw=orjson.dumps(refused) + b"\n"),
        Event(0.5, "http", raw=text_b[:10]),
        Event(0.5, "http", raw=text_b[10:]),
    ]
    assert exchanges(events) == [a, b]
