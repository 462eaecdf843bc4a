"""Benchmark `mcptape record --http-upstream` against a direct connection, in one run.

    python bench/bench_http.py [--requests 2000] [--mib 128]

1. Latency: `--requests` keep-alive POSTs, each answered at once with a small JSON body (a
   tools/call's result), timed one by one from the first byte sent to the last byte received;
   median and 99th percentile, directly and through the recording proxy, and the difference.
2. Throughput: one POST answered by an SSE stream of `--mib` MiB (4 KiB events, each a JSON-RPC
   notification, as a server streaming progress or a large result), read to its end; MiB/s directly
   and through the proxy.

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
            total = int(body.split(b'"mib":')[1].split(b"}")[0]) << 20
            n = total // len(EVENT)
            conn.sendall(SSE % (n * len(EVENT)))
            block = EVENT * 64
            sent = 0
            while sent + 64 <= n:
                conn.sendall(block)
                sent += 64
            conn.sendall(EVENT * (n - sent))
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
    """Read one response with a content-length; return its body size (leftover stays in `buf`)."""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(1 << 20)
        if not data:
            raise ConnectionError("closed")
        buf += data
    end = buf.index(b"\r\n\r\n") + 4
    length = int(re.search(rb"content-length: (\d+)", bytes(buf[:end]), re.I).group(1))  # type: ignore[union-attr]
    del buf[:end]
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


def throughput(port: int, mib: int) -> float:
    sock = socket.create_connection(("127.0.0.1", port))
    buf = bytearray()
    start = time.perf_counter()
    sock.sendall(request(json.dumps({"stream": True, "mib": mib}).encode()))
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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--mib", type=int, default=128)
    args = parser.parse_args()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE)
    assert upstream.stdout is not None
    port = int(upstream.stdout.readline())
    with tempfile.TemporaryDirectory() as tmp:
        proc, proxy = start_mcptape(port, Path(tmp) / "bench.jsonl")
        try:
            direct = latency(port, args.requests)
            through = latency(proxy, args.requests)
            direct_rate = throughput(port, args.mib)
            through_rate = throughput(proxy, args.mib)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(30)
            upstream.kill()
            upstream.wait()
        size = os.path.getsize(Path(tmp) / "bench.jsonl")

    def ms(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if q < 100 else max(values) * 1000

    d50, t50 = statistics.median(direct) * 1000, statistics.median(through) * 1000
    d99, t99 = ms(direct, 99), ms(through, 99)
    print(f"latency ({args.requests} keep-alive POSTs, small JSON answers)")
    print(f"  direct:            median {d50:.3f} ms, p99 {d99:.3f} ms")
    print(f"  through mcptape:   median {t50:.3f} ms, p99 {t99:.3f} ms ({t50 / d50:.1f}x the direct median)")
    print(f"  added per request: median {t50 - d50:.3f} ms, p99 {t99 - d99:.3f} ms")
    print(f"throughput (one SSE stream of {args.mib} MiB, 4 KiB events)")
    print(f"  direct:            {direct_rate:.0f} MiB/s")
    print(f"  through mcptape:   {through_rate:.0f} MiB/s ({through_rate / direct_rate:.2f}x)")
    print(f"transcript: {size / (1 << 20):.0f} MiB")


if __name__ == "__main__":
    main()
