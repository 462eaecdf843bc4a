"""The connections the HTTP tap reads in its tests: requests and responses of every shape (the common
ones, the shapes only h11 reads, damaged bytes) and a strategy cutting them into reads from each side."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

BODY = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}'
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
SSE = b'event: message\ndata: {"jsonrpc":"2.0","method":"n"}\n\nevent: message\ndata: {"id":1}\n\n'


def _post(head: bytes = b"", body: bytes = BODY, line: bytes = b"POST /mcp HTTP/1.1") -> bytes:
    return line + b"\r\nHost: h\r\n" + head + b"Content-Length: %d\r\n\r\n" % len(body) + body


EVENTS = [
    *(b'event: message\ndata: {"jsonrpc":"2.0","id":%d,"result":{}}\n\n' % i for i in range(1, 4)),
    b": a comment\n\n",
    b"data: " + b"y" * 300 + b"\ndata: z\n\n",
    b'id: 7\ndata: {"id":9}\n\n',
    b'data: {"text":"caf\xc3\xa9"}\n\n',  # not ASCII
]
CHUNKED_SSE = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def _chunked(body: bytes) -> bytes:
    return b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"


REQUESTS = [
    _post(),
    _post(b"content-type: application/json\r\naccept: application/json, text/event-stream\r\n"),
    _post(body=b""),
    _post(b"Connection: keep-alive\r\nMcp-Session-Id: abc\r\n"),
    b"GET /mcp HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\n\r\n",
    b"DELETE /mcp HTTP/1.1\r\nhost: h\r\n\r\n",
    b"HEAD /mcp HTTP/1.1\r\nHost: h\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + _chunked(BODY),
    b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"4\r\n{}{}\r\n1;x\r\n \r\n0\r\nA: b\r\n\r\n",
    _post(b"Connection: close\r\n"),
    _post(b"Expect: 100-continue\r\n"),
    _post(line=b"POST /mcp HTTP/1.0"),
    b"POST /mcp HTTP/1.1\nHost: h\nContent-Length: 2\n\n{}",  # bare LF: h11's reading
    b"POST /mcp HTTP/1.1\r\nHost: h\r\nX-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n",
    b"POST /mcp HTTP/1.1\r\nContent-Length: 0\r\n\r\n",  # no Host
    _post(b"Content-Length: 3\r\n"),  # two lengths
    b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: x\r\n\r\n",
    b"\r\n" + _post(),
    b"NOT HTTP AT ALL\r\n\r\n",
    b"\x16\x03\x01\x02\x00",  # a TLS ClientHello's first bytes
]
RESPONSES = [
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(ANSWER) + ANSWER,
    b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n",
    b"HTTP/1.1 200\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n" % len(SSE) + SSE,
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    + _chunked(SSE),
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: Chunked\r\n\r\n"
    + b"%x;name=value \r\n" % 20
    + SSE[:20]
    + b"\r\n"
    + b"%X\r\n" % (len(SSE) - 20)
    + SSE[20:]
    + b"\r\n0\r\nX-Trailer: yes\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\n\r\n0\r\n\r\n",  # a bad footer
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",  # a bad chunk header
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 4\r\n\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\n",  # LF ends the trailer
    b"HTTP/1.1 204 No Content\r\n\r\n",
    b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n",
    b"HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\nnot found",
    b"HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 2\r\n\r\n{}",
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{}",  # read until the end
    b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    b"HTTP/1.1 200 OK\ncontent-length: 2\n\n{}",
    b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\n{}",  # cut short
    b"garbage\r\n\r\n",
    # an SSE stream one event a chunk, as uvicorn sends it (many chunks a read: the fast reader's loop)
    CHUNKED_SSE + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in EVENTS) + b"0\r\n\r\n",
    # ... with chunk headers the loop leaves to h11's grammar (extension, spaces, upper case) among them
    CHUNKED_SSE
    + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in EVENTS[:2])
    + b"%X;a=b\r\n" % len(EVENTS[2])
    + EVENTS[2]
    + b"\r\n%x \t\r\n" % len(EVENTS[3])
    + EVENTS[3]
    + b"\r\n"
    + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in EVENTS[4:])
    + b"0\r\n\r\n",
    # ... a character cut between two chunks (the read is not UTF-8, the chunks' bytes are)
    CHUNKED_SSE
    + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in (EVENTS[0], EVENTS[-1][:-5], EVENTS[-1][-5:]))
    + b"0\r\n\r\n",
    # ... and a chunk not ended by a CRLF after two that are
    CHUNKED_SSE + b"".join(b"%x\r\n" % len(e) + e + b"\r\n" for e in EVENTS[:2]) + b"3\r\nabcXY3\r\n",
]


class Sink:
    def __init__(self) -> None:
        self.records: list[tuple[float, str, dict[str, Any]]] = []

    def now(self) -> float:
        return 0.0

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        raise AssertionError("the tap writes records with their exchange number")

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        self.records.append((t, ch, fields))


def _cuts(data: bytes, draw: st.DrawFn) -> list[bytes]:
    points = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=6))))
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


@st.composite
def connections(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """A connection as the proxy sees it: reads from each side in any order a server could answer
    in (a response's bytes once its request was sent: a response nobody asked for makes h11 alone
    trip over its own state machine, see test_wiretap for how the tap holds one)."""
    count = draw(st.integers(1, 4))
    request = st.one_of(st.integers(0, 3), st.integers(0, len(REQUESTS) - 1))  # the common ones often
    response = st.one_of(st.integers(0, 3), st.integers(0, len(RESPONSES) - 1))
    sent = [REQUESTS[draw(request)] for _ in range(count)]
    answers = [RESPONSES[draw(response)] for _ in range(count)]
    request_ends = list(itertools.accumulate(len(r) for r in sent))
    answer_ends = list(itertools.accumulate(len(a) for a in answers))
    client = _cuts(b"".join(sent), draw)
    server = _cuts(b"".join(answers), draw)
    steps: list[tuple[str, bytes]] = []
    fed = answered = 0
    while client or server:
        # the exchange the next server read reaches into: its request must be in full first
        reach = answered + len(server[0]) if server else 0
        exchange = next((i for i, end in enumerate(answer_ends) if reach <= end), count - 1)
        ready = bool(server) and fed >= request_ends[exchange]
        if client and (not ready or draw(st.booleans())):
            piece = client.pop(0)
            fed += len(piece)
            steps.append(("client", piece))
        else:
            piece = server.pop(0)
            answered += len(piece)
            steps.append(("server", piece))
    ends = draw(st.sampled_from([[], ["client"], ["server"], ["client", "server"], ["server", "client"]]))
    return steps + [(end + "-end", b"") for end in ends]
