"""Benchmark what `record --otlp URL` adds to the relay's round trip, the collector down (issue 24's
target: no more than 5 % on the 99th percentile of the relay's latency).

    python bench/bench_live.py [--pings 3000] [--warmup 200] [--rounds 10]

A client sends `ping` requests one at a time to a server that answers each at once, through
`mcptape record` and through `mcptape record --otlp http://127.0.0.1:PORT` where nothing listens
(every send is refused, the spans pile up to their bound and are dropped). The first `--warmup`
round trips of a run are not counted (the recorder and its exporter starting up); then `--pings`
are timed. The two commands run back to back in each round, in alternating order (one round
plain first, the next --otlp first), so that a neighbour's burst or a drift of the machine's
load weighs on both sides alike. Each run measures:

* the round trips' wall-clock latencies (median, 99th percentile);
* the CPU time the recorder process spent over the timed round trips (all its threads, from
  /proc/PID/task/*/schedstat, in nanoseconds): the relay's own cost per round trip, which the
  neighbours do not change, and the one thing live export can add to the relay's path (a
  non-blocking write of each record to the exporter's pipe);
* the CPU time of the exporter process over the same round trips (it runs at nice 10, apart).

The verdict is the median over the rounds of each round's p99 ratio (--otlp over plain), with
the spread of those ratios (their quartiles) and the ratio of the p99s of all rounds pooled; and
the median relay CPU per round trip of each side. On a shared machine the wall-clock figures
move with the load (quote it); the CPU per round trip does not.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

SERVER = r"""
import os, sys
for line in sys.stdin.buffer:
    rid = line.split(b'"id":', 1)[1].split(b",", 1)[0]
    os.write(1, b'{"jsonrpc":"2.0","id":' + rid + b',"result":{}}\n')
"""

# The client: times each round trip after the warm-up, and reads the recorder's CPU (its threads'
# run time from schedstat) and its exporter child's around the timed ones.
CLIENT = r"""
import glob, os, sys, time, subprocess, json
warmup, n = int(sys.argv[1]), int(sys.argv[2]); cmd = sys.argv[3:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
fin, fout = p.stdin.fileno(), p.stdout.fileno()

def cpu_ns(pid):
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            total += int(open(path).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total

def exporters(pid):
    found = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            kids = open(path).read().split()
        except OSError:
            continue
        for kid in kids:
            try:
                if b"livechild" in open(f"/proc/{kid}/cmdline", "rb").read():
                    found.append(int(kid))
            except OSError:
                pass
    return found

def ping(i):
    msg = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i
    t = time.perf_counter()
    os.write(fin, msg)
    got = b""
    while not got.endswith(b"\n"):
        got += os.read(fout, 65536)
    return time.perf_counter() - t

for i in range(1, warmup + 1):
    ping(i)
kids = exporters(p.pid)
relay0, child0 = cpu_ns(p.pid), sum(cpu_ns(k) for k in kids)
times = [ping(i) for i in range(warmup + 1, warmup + n + 1)]
relay1, child1 = cpu_ns(p.pid), sum(cpu_ns(k) for k in kids)
p.stdin.close(); p.wait()
print(json.dumps({"times": times, "relay_ns": relay1 - relay0, "exporter_ns": child1 - child0,
                  "exporters": len(kids)}))
"""

PLAIN, LIVE = "record", "record --otlp (down)"


class Run(NamedTuple):
    """One run of one command: latencies and CPU per timed round trip, in microseconds."""

    median: float
    p99: float
    relay_cpu: float  # the recorder process (all its threads)
    exporter_cpu: float  # the live exporter process (0 without --otlp)
    times: list[float]


def p99_of(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def measure(pings: int, rounds: int, warmup: int = 200) -> dict[str, list[Run]]:
    """`rounds` rounds of `record` and `record --otlp` to a collector that refuses every
    connection, back to back, their order alternating; each run's figures (see `Run`)."""
    mcptape = str(Path(sys.executable).parent / "mcptape")
    server = [sys.executable, "-c", SERVER]
    runs: dict[str, list[Run]] = {PLAIN: [], LIVE: []}
    with tempfile.TemporaryDirectory() as folder, socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))  # bound, never listening: every connection is refused
        url = f"http://127.0.0.1:{dead.getsockname()[1]}"
        commands = {
            PLAIN: [mcptape, "record", "-q", "--overwrite", "-o", f"{folder}/a.jsonl", "--", *server],
            LIVE: [
                *[mcptape, "record", "-q", "--overwrite", "--otlp", url, "-o", f"{folder}/b.jsonl", "--"],
                *server,
            ],
        }
        for number in range(rounds):
            order = (PLAIN, LIVE) if number % 2 == 0 else (LIVE, PLAIN)
            for name in order:
                done = subprocess.run(
                    [sys.executable, "-c", CLIENT, str(warmup), str(pings), *commands[name]],
                    capture_output=True,
                    check=True,
                )
                got = json.loads(done.stdout)
                times = [t * 1e6 for t in got["times"]]
                if name == LIVE and got["exporters"] != 1:
                    raise RuntimeError(f"record --otlp ran {got['exporters']} exporter process(es), not 1")
                runs[name].append(
                    Run(
                        statistics.median(times),
                        p99_of(times),
                        got["relay_ns"] / 1e3 / pings,
                        got["exporter_ns"] / 1e3 / pings,
                        times,
                    )
                )
    return runs


def p99_ratios(runs: dict[str, list[Run]]) -> list[float]:
    """Each round's p99 with --otlp over its p99 without (the two ran back to back)."""
    return [live.p99 / plain.p99 for plain, live in zip(runs[PLAIN], runs[LIVE], strict=True)]


def p99_ratio(runs: dict[str, list[Run]]) -> float:
    """The live export's p99 over record's: the median of the rounds' ratios; 1.05 is the 5 %
    target."""
    return statistics.median(p99_ratios(runs))


def pooled_p99_ratio(runs: dict[str, list[Run]]) -> float:
    """The p99 of every timed round trip of every --otlp run over the same of the plain runs."""
    return p99_of([t for r in runs[LIVE] for t in r.times]) / p99_of(
        [t for r in runs[PLAIN] for t in r.times]
    )


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def report(runs: dict[str, list[Run]], pings: int, warmup: int) -> list[str]:
    """The lines the benchmarks print: each side's medians over the rounds, then the verdict."""
    rounds = len(runs[PLAIN])
    lines = [
        f"live export, collector down: {rounds} rounds (order alternating) of {pings} timed round trips "
        f"after {warmup}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    ]
    for name, values in runs.items():
        lines.append(
            f"{name:>22}: median {statistics.median(r.median for r in values):7.1f} us"
            f"  p99 {statistics.median(r.p99 for r in values):7.1f} us"
            f"  relay CPU {statistics.median(r.relay_cpu for r in values):6.2f} us/round trip"
            + (
                f"  exporter CPU {statistics.median(r.exporter_cpu for r in values):6.2f} us/round trip"
                if name == LIVE
                else ""
            )
        )
        lines.append(f"{'':>22}  p99 per round (us): {' '.join(f'{r.p99:.0f}' for r in values)}")
    ratios = p99_ratios(runs)
    low, high = quartiles(ratios)
    relay = statistics.median(r.relay_cpu for r in runs[LIVE]) / statistics.median(
        r.relay_cpu for r in runs[PLAIN]
    )
    lines.append(
        f"p99 with --otlp over without: median of the rounds {p99_ratio(runs) - 1:+.1%} "
        f"(quartiles {low - 1:+.1%} .. {high - 1:+.1%}), "
        f"all rounds pooled {pooled_p99_ratio(runs) - 1:+.1%}; "
        f"relay CPU per round trip {relay - 1:+.1%} (target: p99 at most +5 %)"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    options = parser.parse_args()
    runs = measure(options.pings, options.rounds, options.warmup)
    print("\n".join(report(runs, options.pings, options.warmup)))


if __name__ == "__main__":
    main()
