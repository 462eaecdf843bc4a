"""Benchmark what `record --otlp URL` adds to the relay's round-trip latency, the collector down
(issue 24's target: no more than 5 % on the 99th percentile).

    python bench/bench_live.py [--pings 5000] [--rounds 3]

A client sends N `ping` requests one at a time (ids 1..N) to a server that answers each with a
result, through `mcptape record` and through `mcptape record --otlp http://127.0.0.1:PORT` where
nothing listens (every send is refused, spans pile up to their bound and are dropped), alternated
`rounds` times; prints the medians over the rounds of each run's median and 99th percentile.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SERVER = r"""
import os, sys
for line in sys.stdin.buffer:
    rid = line.split(b'"id":', 1)[1].split(b",", 1)[0]
    os.write(1, b'{"jsonrpc":"2.0","id":' + rid + b',"result":{}}\n')
"""

CLIENT = r"""
import os, sys, time, subprocess, json
n = int(sys.argv[1]); cmd = sys.argv[2:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
fin, fout = p.stdin.fileno(), p.stdout.fileno()
times = []
for i in range(1, n + 1):
    msg = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i
    t = time.perf_counter()
    os.write(fin, msg)
    got = b""
    while not got.endswith(b"\n"):
        got += os.read(fout, 65536)
    times.append(time.perf_counter() - t)
p.stdin.close(); p.wait()
print(json.dumps(times))
"""


def measure(pings: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    """Each run's median and 99th percentile (microseconds), `rounds` alternated runs of each of
    `record` and `record --otlp` to a collector that refuses every connection."""
    mcptape = str(Path(sys.executable).parent / "mcptape")
    server = [sys.executable, "-c", SERVER]
    runs: dict[str, list[tuple[float, float]]] = {"record": [], "record --otlp (down)": []}
    with tempfile.TemporaryDirectory() as folder, socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))  # bound, never listening: every connection is refused
        url = f"http://127.0.0.1:{dead.getsockname()[1]}"
        commands = {
            "record": [mcptape, "record", "-q", "--overwrite", "-o", f"{folder}/a.jsonl", "--", *server],
            "record --otlp (down)": [
                *[mcptape, "record", "-q", "--overwrite", "--otlp", url, "-o", f"{folder}/b.jsonl", "--"],
                *server,
            ],
        }
        for _ in range(rounds):
            for name, command in commands.items():
                done = subprocess.run(
                    [sys.executable, "-c", CLIENT, str(pings), *command],
                    capture_output=True,
                    check=True,
                )
                times = sorted(json.loads(done.stdout))
                runs[name].append((statistics.median(times) * 1e6, times[int(len(times) * 0.99)] * 1e6))
    return runs


def p99_ratio(runs: dict[str, list[tuple[float, float]]]) -> float:
    """The live export's p99 over record's: the median of the rounds' ratios (each round runs the
    two back to back, so a neighbour's burst weighs on one round, not on one side); 1.05 is the
    5 % target."""
    pairs = zip(runs["record"], runs["record --otlp (down)"], strict=True)
    return statistics.median(live / plain for (_, plain), (_, live) in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pings", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    runs = measure(options.pings, options.rounds)
    print(f"round-trip latency, {options.rounds} x {options.pings} requests (microseconds)")
    base = statistics.median(p for _, p in runs["record"])
    for name, values in runs.items():
        median = statistics.median(m for m, _ in values)
        p99 = statistics.median(p for _, p in values)
        print(f"{name:>22}: median {median:7.1f}  p99 {p99:7.1f}  ({p99 / base - 1:+.1%} p99)")


if __name__ == "__main__":
    main()
