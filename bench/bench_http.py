"""Benchmark `mcptape record --http-upstream` against a direct connection, in one run.

    python bench/bench_http.py [--requests 2000] [--mib 64] [--rounds 3] [--against REV]

1. Latency: `--requests` keep-alive POSTs, each answered at once with a small JSON body (a
   tools/call's result), timed one by one from the first byte sent to the last byte received;
   median and 99th percentile, directly and through the recording proxy, and the difference.
2. Throughput: one POST answered by an SSE stream of `--mib` MiB (4 KiB events, each a JSON-RPC
   notification, as a server streaming progress or a large result), read to its end; MiB/s directly
   and through the proxy. The stream has a Content-Length, then (a second figure) it is chunked, one
   chunk an event, as the SDK's server (uvicorn) sends it. The client of these two (the reference,
   the one the goal was set with) receives each read in a fresh buffer of up to 1 MiB and keeps a
   Content-Length body whole, as a client reading a response does. A third figure reads the stream
   with a Content-Length by a bare client, which only counts the bytes (one buffer, reused): the
   direct connection is then as fast as this machine's kernel and the upstream go, and the ratio is
   the proxy's cost against nothing else.

Each round measures direct and through the proxy one after the other (each proxy's transcript
emptied before each stream: see `emptied`); the figures are the medians
of `--rounds` rounds (the load of this shared machine moves during a run: alternating is what keeps
the two sides comparable), and the load average is printed before and after. Next to each wall
figure is the proxy process's CPU time (user + system, from /proc: what the load does not change
much): microseconds per request, milliseconds per MiB. `--against REV` runs a second proxy, the
mcptape of git revision REV (its `src/` from `git archive`), in the same rounds, right after the
first: old and new side by side. The two goals of issue 25.6 are printed last: the SSE ratio
(>= 0.5x) and the added latency (<= 0.25 ms median).

The upstream is a raw-socket server in its own process (so its cost is the same both ways); the
client is raw sockets in this process; mcptape runs as `python -m mcptape`, writing its
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
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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


def read_response(sock: socket.socket, buf: bytearray, view: memoryview | None = None) -> int:
    """Read one response with a content-length or chunked body; return its body size (leftover
    stays in `buf`). The reference client (the goal's) receives each read in a fresh buffer of up to
    1 MiB and keeps a Content-Length body whole; given `view` (a buffer reused for every read), a
    bare client only counts the bytes: what is left of a direct connection's cost is the server's
    and the kernel's."""
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
    if view is not None and len(buf) < length:
        left = length - len(buf)
        buf.clear()
        got = 0
        while left > 0:
            got = sock.recv_into(view)
            if not got:
                raise ConnectionError("closed")
            left -= got
        if left < 0:  # the next response's first bytes
            buf += view[got + left : got]
        return length
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


def throughput(port: int, mib: int, chunked: bool = False, bare: bool = False) -> float:
    sock = socket.create_connection(("127.0.0.1", port))
    buf = bytearray()
    view = memoryview(bytearray(1 << 20)) if bare else None
    start = time.perf_counter()
    body = {"stream": True, "mib": mib, "chunked": chunked}
    sock.sendall(request(json.dumps(body, separators=(",", ":")).encode()))
    size = read_response(sock, buf, view)
    elapsed = time.perf_counter() - start
    sock.close()
    return size / elapsed / (1 << 20)


def start_mcptape(upstream: int, out: Path, src: Path | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """The recording proxy (the installed mcptape, or the one in `src`), and its port."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    err = out.with_suffix(".err")
    command = [sys.executable, "-m", "mcptape", "record"]
    command += ["--http-upstream", f"http://127.0.0.1:{upstream}/mcp", "-o", str(out)]
    with open(err, "wb") as fh:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=fh,
            env=env,
        )
    for _ in range(600):
        found = re.search(r"listening on http://127.0.0.1:(\d+)", err.read_text())
        if found:
            return proc, int(found.group(1))
        time.sleep(0.05)
    raise SystemExit(f"mcptape did not start: {err.read_text()}")


def checkout(rev: str, into: Path) -> Path:
    """`src/` of git revision `rev`, unpacked under `into`."""
    into.mkdir(parents=True, exist_ok=True)
    archive = into / "src.tar"
    with open(archive, "wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu(pid: int) -> float:
    """Seconds of CPU (user + system, all threads) process `pid` has used (0 where /proc is not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def emptied(path: Path, sizes: dict[str, int], name: str) -> None:
    """Count the transcript's bytes in `sizes[name]` and empty it: the proxy appends (O_APPEND) from
    0 again. With a transcript growing by 128 MiB a stream, the proxy's system time grew with it
    (2.5 to 8 ms of CPU a MiB over one run here, alike for every version, the load unchanged), which
    hid what the proxy itself costs; emptied, the same rounds spread by a few percent."""
    sizes[name] = sizes.get(name, 0) + os.path.getsize(path)
    os.truncate(path, 0)


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="also measure the mcptape of this git revision")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {load()}", flush=True)
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM], stdout=subprocess.PIPE)
    assert upstream.stdout is not None
    port = int(upstream.stdout.readline())
    rounds: list[dict[str, float]] = []
    names = ["mcptape"] + ([args.against] if args.against else [])
    kinds = (
        ("", False, False, "with a Content-Length"),
        ("c", True, False, "chunked, one chunk an event"),
        ("b", False, True, "with a Content-Length, to a bare client that only counts the bytes"),
    )
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        proxies: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
        try:
            for i, name in enumerate(names):
                src = checkout(name, Path(tmp) / "against") if i else None
                proxies[name] = start_mcptape(port, Path(tmp) / f"bench{i}.jsonl", src)
            for _ in range(args.rounds):
                direct = latency(port, args.requests)
                one = {"d50": statistics.median(direct) * 1000, "d99": _ms(direct, 99)}
                for name, (proc, proxy) in proxies.items():
                    before = cpu(proc.pid)
                    through = latency(proxy, args.requests)
                    one[name + ":lcpu"] = (cpu(proc.pid) - before) / args.requests * 1e6
                    one[name + ":t50"] = statistics.median(through) * 1000
                    one[name + ":t99"] = _ms(through, 99)
                for kind, chunked, bare, _ in kinds:
                    one[kind + "direct"] = throughput(port, args.mib, chunked, bare)
                    for i, (name, (proc, proxy)) in enumerate(proxies.items()):
                        emptied(Path(tmp) / f"bench{i}.jsonl", sizes, name)
                        before = cpu(proc.pid)
                        one[kind + name] = throughput(proxy, args.mib, chunked, bare)
                        one[kind + name + ":cpu"] = (cpu(proc.pid) - before) * 1000 / args.mib
                rounds.append(one)
        finally:
            for proc, _ in proxies.values():
                proc.send_signal(signal.SIGINT)
                proc.wait(30)
            upstream.kill()
            upstream.wait()
        for i, name in enumerate(names):
            emptied(Path(tmp) / f"bench{i}.jsonl", sizes, name)

    def mid(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    def ratio(kind: str, name: str) -> list[float]:
        return [r[kind + name] / r[kind + "direct"] for r in rounds]

    def added(name: str) -> float:
        return statistics.median(r[name + ":t50"] - r["d50"] for r in rounds)

    print(f"latency ({args.requests} keep-alive POSTs, small JSON answers; medians of {args.rounds} rounds)")
    print(f"  direct:            median {mid('d50'):.3f} ms, p99 {mid('d99'):.3f} ms")
    for name in names:
        label = f"through {name}:"
        print(
            f"  {label:18s} median {mid(name + ':t50'):.3f} ms, p99 {mid(name + ':t99'):.3f} ms; "
            f"added median {added(name):.3f} ms, p99 {mid(name + ':t99') - mid('d99'):.3f} ms; "
            f"proxy CPU {mid(name + ':lcpu'):.0f} us a request"
        )
    for kind, _, _, what in kinds:
        print(f"throughput (one SSE stream of {args.mib} MiB, 4 KiB events, {what})")
        print(f"  direct:            {mid(kind + 'direct'):.0f} MiB/s")
        for name in names:
            rs = ratio(kind, name)
            label = f"through {name}:"
            print(
                f"  {label:18s} {mid(kind + name):.0f} MiB/s ({statistics.median(rs):.2f}x; rounds "
                f"{', '.join(f'{x:.2f}' for x in rs)}); proxy CPU {mid(kind + name + ':cpu'):.2f} ms a MiB"
            )
    print(f"transcript: {', '.join(f'{n} {sizes[n] / (1 << 20):.0f} MiB' for n in names)}; {load()}")
    for name in names:
        print(
            f"goals (issue 25.6), {name}: SSE relay {statistics.median(ratio('', name)):.2f}x "
            f"a direct connection (chunked {statistics.median(ratio('c', name)):.2f}x; goal >= 0.5x); "
            f"added latency {added(name):.3f} ms median per POST (goal <= 0.25 ms)"
        )


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


if __name__ == "__main__":
    main()
