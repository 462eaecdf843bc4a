"""Benchmark `mcptape record --http-upstream` against a direct connection, in one run.

    python bench/bench_http.py [--requests 2000] [--mib 64] [--rounds 3]

1. Latency: `--requests` keep-alive POSTs, each answered at once with a small JSON body (a
   tools/call's result), timed one by one from the first byte sent to the last byte received;
   median and 99th percentile, directly and through the recording proxy, and the difference.
2. Throughput: one POST answered by an SSE stream of `--mib` MiB (4 KiB events, each a JSON-RPC
   notification, as a server streaming progress or a large result), read to its end; MiB/s directly
   and through the proxy. The stream has a Content-Length, then (a second figure) it is chunked, one
   chunk an event, as the SDK's server (uvicorn) sends it.

Each round measures direct and through the proxy one after the other; the figures are the medians
of `--rounds` rounds (the load of this shared machine moves during a run: alternating is what keeps
the two sides comparable), and the load average is printed before and after. The two goals of
issue 25.6 are printed last: the SSE ratio (>= 0.5x) and the added latency (<= 0.25 ms median).

The upstream is a raw-socket server in its own process (so its cost is the same both ways); the
client is raw sockets in this process; mcptape runs as the installed console script, writing its
transcript to a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UPSTREAM = r"""
import socket, sys, threading
EVENT = (
    b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",'
    b'"params":{"progressToken":1,"progress":1,"message":"' + b"x" * 3960 + b'"}}\n\n'
)
SSE = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: %d\r\n\r\n"
CHUNKED = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
JSON = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
BODY = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"42"}],"isError":false}}'
def serve(conn):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            data = conn.recv(65536)
            if not data:
                return
            buf += data
        head, _, buf = buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(buf) < length:
            buf += conn.recv(65536)
        body, buf = buf[:length], buf[length:]
        if b"stream" in body:
            total = int(body.split(b'"mib":')[1].split(b"}")[0].split(b",")[0]) << 20
            n = total // len(EVENT)
            event = EVENT
            if b'"chunked":true' in body:
                conn.sendall(CHUNKED)
                event = b"%x\r\n" % len(EVENT) + EVENT + b"\r\n"
            else:
                conn.sendall(SSE % (n * len(EVENT)))
            block = event * 64
            sent = 0
            while sent + 64 <= n:
                conn.sendall(block)
                sent += 64
            conn.sendall(event * (n - sent) + (b"0\r\n\r\n" if event is not EVENT else b""))
        else:
            conn.sendall(JSON % len(BODY) + BODY)
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}'


def request(body: bytes) -> bytes:
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"accept: application/json, text/event-stream\r\ncontent-length: %d\r\n\r\n" % len(body)
    ) + body


def read_response(sock: socket.socket, buf: bytearray) -> int:
    """Read one response with a content-length or chunked body; return its body size (leftover
    stays in `buf`)."""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(1 << 20)
        if not data:
            raise ConnectionError("closed")
        buf += data
    end = buf.index(b"\r\n\r\n") + 4
    head = bytes(buf[:end])
    del buf[:end]
    found = re.search(rb"content-length: (\d+)", head, re.I)
    if found is None:  # chunked: read to the last chunk (the size counts the chunks' framing too)
        size = 0
        while not buf.endswith(b"0\r\n\r\n"):
            size += len(buf)
            buf.clear()
            data = sock.recv(1 << 20)
            if not data:
                raise ConnectionError("closed")
            buf += data
        size += len(buf)
        buf.clear()
        return size
    length = int(found.group(1))
    while len(buf) < length:
        data = sock.recv(1 << 20)
        if not data:
            raise ConnectionError("closed")
        buf += data
    del buf[:length]
    return length


def latency(port: int, n: int) -> list[float]:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray()
    message = request(CALL)
    for _ in range(50):  # warm up
        sock.sendall(message)
        read_response(sock, buf)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        sock.sendall(message)
        read_response(sock, buf)
        times.append(time.perf_counter() - start)
    sock.close()
    return times


def throughput(port: int, mib: int, chunked: bool = False) -> float:
    sock = socket.create_connection(("127.0.0.1", port))
    buf = bytearray()
    start = time.perf_counter()
    body = {"stream": True, "mib": mib, "chunked": chunked}
    sock.sendall(request(json.dumps(body, separators=(",", ":")).encode()))
    size = read_response(sock, buf)
    elapsed = time.perf_counter() - start
    sock.close()
    return size / elapsed / (1 << 20)


def start_mcptape(upstream: int, out: Path) -> tuple[subprocess.Popen[bytes], int]:
    script = Path(sys.executable).parent / "mcptape"
    err = out.with_suffix(".err")
    with open(err, "wb") as fh:
        proc = subprocess.Popen(
            [str(script), "record", "--http-upstream", f"http://127.0.0.1:{upstream}/mcp", "-o", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=fh,
        )
    for _ in range(600):
        found = re.search(r"listening on http://127.0.0.1:(\d+)", err.read_text())
        if found:
            return proc, int(found.group(1))
        time.sleep(0.05)
    raise SystemExit(f"mcptape did not start: {err.read_text()}")


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {load()}", flush=True)
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE)
    assert upstream.stdout is not None
    port = int(upstream.stdout.readline())
    rounds: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, proxy = start_mcptape(port, Path(tmp) / "bench.jsonl")
        try:
            for _ in range(args.rounds):
                direct = latency(port, args.requests)
                through = latency(proxy, args.requests)
                one = {
                    "d50": statistics.median(direct) * 1000,
                    "t50": statistics.median(through) * 1000,
                    "d99": _ms(direct, 99),
                    "t99": _ms(through, 99),
                }
                for kind, chunked in (("", False), ("c", True)):
                    one[kind + "direct"] = throughput(port, args.mib, chunked)
                    one[kind + "through"] = throughput(proxy, args.mib, chunked)
                rounds.append(one)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(30)
            upstream.kill()
            upstream.wait()
        size = os.path.getsize(Path(tmp) / "bench.jsonl")

    def mid(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    def ratio(kind: str) -> list[float]:
        return [r[kind + "through"] / r[kind + "direct"] for r in rounds]

    added = [r["t50"] - r["d50"] for r in rounds]
    print(f"latency ({args.requests} keep-alive POSTs, small JSON answers; medians of {args.rounds} rounds)")
    print(f"  direct:            median {mid('d50'):.3f} ms, p99 {mid('d99'):.3f} ms")
    print(f"  through mcptape:   median {mid('t50'):.3f} ms, p99 {mid('t99'):.3f} ms")
    print(
        f"  added per request: median {statistics.median(added):.3f} ms, p99 {mid('t99') - mid('d99'):.3f} ms"
    )
    for kind, what in (("", "with a Content-Length"), ("c", "chunked, one chunk an event")):
        print(f"throughput (one SSE stream of {args.mib} MiB, 4 KiB events, {what})")
        print(f"  direct:            {mid(kind + 'direct'):.0f} MiB/s")
        print(
            f"  through mcptape:   {mid(kind + 'through'):.0f} MiB/s "
            f"({statistics.median(ratio(kind)):.2f}x; rounds {', '.join(f'{x:.2f}' for x in ratio(kind))})"
        )
    print(f"transcript: {size / (1 << 20):.0f} MiB; {load()}")
    print(
        f"goals (issue 25.6): SSE relay {statistics.median(ratio('')):.2f}x a direct connection "
        f"(chunked {statistics.median(ratio('c')):.2f}x; goal >= 0.5x); added latency "
        f"{statistics.median(added):.3f} ms median per POST (goal <= 0.25 ms)"
    )


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


if __name__ == "__main__":
    main()
