"""Benchmark `mcptape record` against a raw pipe and coreutils `tee`, in one run.

    python bench/bench_record.py [--mib 256] [--pings 20000] [--starts 15]

1. Throughput: >= 256 MiB of JSON-RPC-like lines (200-byte and 64 KiB lines) from a producer to a
   consumer, directly, through `tee FILE`, and through `mcptape record -o FILE --`; ratios are
   against the direct pipe measured in the same run.
2. Round-trip latency: 20,000 ping-pongs with a line-echo server, direct vs through the recorder.
3. Start-up: time from spawn to the first reply, direct vs through the recorder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRODUCER = r"""
import os, sys
size, total = int(sys.argv[1]), int(sys.argv[2])
body = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'
line = body + b"x" * (size - len(body) - 4) + b'"}}\n'
block = line * max(1, (1 << 20) // len(line))
sent = 0
while sent < total:
    view = memoryview(block)
    while view:
        view = view[os.write(1, view):]
    sent += len(block)
"""

CONSUMER = r"""
import os
buf = bytearray(1 << 20)
n = 0
while (k := os.readv(0, [buf])):
    n += k
print(n)
"""

ECHO = r"""
import os
buf = bytearray(1 << 16)
while (k := os.readv(0, [buf])):
    os.write(1, bytes(buf[:k]))
"""

PINGER = r"""
import os, sys, time, subprocess, json
n = int(sys.argv[1]); cmd = sys.argv[2:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
msg = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
fin, fout = p.stdin.fileno(), p.stdout.fileno()
times = []
for i in range(n):
    t = time.perf_counter()
    os.write(fin, msg)
    got = b""
    while not got.endswith(b"\n"):
        got += os.read(fout, 65536)
    times.append(time.perf_counter() - t)
p.stdin.close(); p.wait()
print(json.dumps(times))
"""

FIRST_REPLY = r"""
import os, sys
line = sys.stdin.buffer.readline()
os.write(1, b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
"""


def mcptape() -> list[str]:
    exe = Path(sys.executable).parent / "mcptape"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mcptape"]


def run_pipeline(producer: list[str], middle: list[str] | None) -> float:
    """Wall time of producer [| middle] | consumer, end to end."""
    t = time.perf_counter()
    if middle is None:
        prod = subprocess.Popen(producer, stdout=subprocess.PIPE)
        cons = subprocess.Popen([sys.executable, "-c", CONSUMER], stdin=prod.stdout, stdout=subprocess.PIPE)
    else:
        prod = subprocess.Popen(producer, stdout=subprocess.PIPE)
        mid = subprocess.Popen(middle, stdin=prod.stdout, stdout=subprocess.PIPE)
        cons = subprocess.Popen([sys.executable, "-c", CONSUMER], stdin=mid.stdout, stdout=subprocess.PIPE)
    out, _ = cons.communicate()
    prod.wait()
    elapsed = time.perf_counter() - t
    assert int(out) > 0
    return elapsed


def timed_record(producer: list[str], target: Path) -> float:
    """Wall time of `mcptape record -o target -- producer | consumer`."""
    t = time.perf_counter()
    rec = subprocess.Popen(
        [*mcptape(), "record", "-q", "--overwrite", "-o", str(target), "--", *producer],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    cons = subprocess.Popen([sys.executable, "-c", CONSUMER], stdin=rec.stdout, stdout=subprocess.PIPE)
    cons.communicate()
    rec.wait()
    return time.perf_counter() - t


def throughput(mib: int, tmp: Path) -> None:
    """Direct pipe, tee and mcptape; transcripts on disk, and on tmpfs to separate the disk's cost."""
    total = mib << 20
    shm = Path("/dev/shm")
    print(f"\n## Throughput: {mib} MiB of JSON-RPC-like lines (best of 3, MiB/s; ratio vs direct pipe)")
    print(f"{'line size':>10} {'direct':>8} {'tee (disk)':>16} {'record (disk)':>16} {'record (tmpfs)':>16}")
    for size in (200, 65536):
        producer = [sys.executable, "-c", PRODUCER, str(size), str(total)]
        direct = min(run_pipeline(producer, None) for _ in range(3))
        tee = min(run_pipeline(producer, ["tee", str(tmp / "tee.out")]) for _ in range(3))
        disk = min(timed_record(producer, tmp / "t.jsonl") for _ in range(3))
        row = f"{size:>10} {mib / direct:>8.0f} {mib / tee:>8.0f} ({direct / tee:.2f}x)"
        row += f" {mib / disk:>8.0f} ({direct / disk:.2f}x)"
        if shm.is_dir():
            target = shm / f"mcptape-bench-{os.getpid()}.jsonl"
            try:
                ram = min(timed_record(producer, target) for _ in range(3))
            finally:
                target.unlink(missing_ok=True)
            row += f" {mib / ram:>8.0f} ({direct / ram:.2f}x)"
        print(row)
    probe = tmp / "dd.out"
    block = b"\0" * (1 << 20)
    t = time.perf_counter()
    with open(probe, "wb") as fh:
        for _ in range(mib):
            fh.write(block)
    disk_rate = mib / (time.perf_counter() - t)
    print(f"(this disk takes plain 1 MiB writes at {disk_rate:.0f} MiB/s; a transcript is ~1.05x the data)")


def latency(pings: int, rounds: int = 3) -> None:
    """Direct and recorded ping-pong, alternated `rounds` times (scheduling makes single runs noisy);
    the figures are the medians over the rounds of each run's median and 99th percentile."""
    print(f"\n## Round-trip latency: {rounds} x {pings} ping-pongs with a line-echo server (microseconds)")
    echo = [sys.executable, "-c", ECHO]
    runs: dict[str, list[tuple[float, float]]] = {"direct": [], "mcptape record": []}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            for name, cmd in (
                ("direct", echo),
                (
                    "mcptape record",
                    [*mcptape(), "record", "-q", "--overwrite", "-o", f"{d}/p.jsonl", "--", *echo],
                ),
            ):
                out = subprocess.run(
                    [sys.executable, "-c", PINGER, str(pings), *cmd], capture_output=True, check=True
                )
                times = sorted(json.loads(out.stdout))
                runs[name].append((statistics.median(times) * 1e6, times[int(len(times) * 0.99)] * 1e6))
    rows = {
        name: (statistics.median(m for m, _ in values), statistics.median(p for _, p in values))
        for name, values in runs.items()
    }
    for name, (med, p99) in rows.items():
        print(f"{name:>16}: median {med:7.1f}  p99 {p99:7.1f}")
    added = [(r[0] - d[0], r[1] - d[1]) for d, r in zip(runs["direct"], runs["mcptape record"], strict=True)]
    print(
        f"{'added':>16}: median {statistics.median(a for a, _ in added):7.1f}"
        f"  p99 {statistics.median(p for _, p in added):7.1f}   (per round: "
        + ", ".join(f"{a:.0f}/{p:.0f}" for a, p in added)
        + ")"
    )


def startup(starts: int) -> None:
    print(f"\n## Spawn to first reply (median of {starts}, ms)")
    server = [sys.executable, "-c", FIRST_REPLY]

    def once(cmd: list[str]) -> float:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
        p.stdin.flush()
        p.stdout.readline()
        elapsed = time.perf_counter() - t
        p.stdin.close()
        p.wait()
        return elapsed

    with tempfile.TemporaryDirectory() as d:
        direct = statistics.median(once(server) for _ in range(starts))
        taped = statistics.median(
            once([*mcptape(), "record", "-q", "--overwrite", "-o", f"{d}/s.jsonl", "--", *server])
            for _ in range(starts)
        )
    print(f"direct {direct * 1e3:.1f}  mcptape record {taped * 1e3:.1f}  added {(taped - direct) * 1e3:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--pings", type=int, default=20000)
    parser.add_argument("--starts", type=int, default=15)
    args = parser.parse_args()
    if not shutil.which("tee"):
        sys.exit("bench_record: coreutils tee not found")
    with tempfile.TemporaryDirectory() as d:
        throughput(args.mib, Path(d))
    latency(args.pings)
    startup(args.starts)


if __name__ == "__main__":
    main()
