"""Benchmark `mcptape export` against `mcptape check` on the same transcript, and what live export
adds to `record`'s relay latency (issue 24's targets: each format within 3x the time of check; the
live export, collector down, no more than 5 % on record's 99th percentile).

    python bench/bench_export.py [--messages 100000] [--runs 3] [--pings 3000] [--warmup 200] [--rounds 10]
                                 [--dir DIR]

Generates the transcript `bench_check.py` makes (a stateless session of tools/call requests, their
results, progress notifications, stderr and executor lines), then runs, each as a fresh process,
`mcptape check` and `mcptape export --format F -o FILE` for every format (`--runs` times each,
alternated; the fastest run of each counts), and prints the wall time and the CPU time (user and
system: on a shared machine the steadier of the two), their ratios to check, the peak RSS and the
output's size. Then `bench_live.measure`: `record` and `record --otlp` to a dead collector, back
to back in `--rounds` rounds of alternating order: the median of the rounds' p99 ratios with their
quartiles, the ratio of the pooled p99s, and the recorder's CPU per round trip (load-independent).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `python bench/bench_export.py` (dev.sh)
from bench.bench_check import generate
from bench.bench_live import measure, report

MCPTAPE = str(Path(sys.executable).parent / "mcptape")
FORMATS = ("otlp", "html", "har")


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds
    rss: int  # peak, KiB


def timed(args: list[str]) -> Run:
    """One run of `args` (check's exit 1 for findings is fine)."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode in (0, 1), f"{args} exited {proc.returncode}"
    return Run(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def best(runs: list[Run]) -> Run:
    """The fastest of several runs: what the code costs, less what the neighbours took."""
    return Run(min(r.wall for r in runs), min(r.cpu for r in runs), max(r.rss for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    folder = options.dir or Path(tempfile.mkdtemp(prefix="bench-export-"))
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "bench.jsonl"
    generate(transcript, options.messages)
    print(f"{transcript}: {options.messages} messages, {transcript.stat().st_size >> 20} MiB")
    commands = {"check": [MCPTAPE, "check", str(transcript)]}
    for name in FORMATS:
        out = str(folder / f"bench.{name}")
        commands[f"export {name}"] = [
            MCPTAPE,
            "export",
            str(transcript),
            "--format",
            name,
            "-o",
            out,
            "--overwrite",
        ]
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(options.runs):
        for name, command in commands.items():
            runs[name].append(timed(command))
    check = best(runs["check"])
    print(f"{'':12s} {'wall':>8s} {'ratio':>6s} {'cpu':>8s} {'ratio':>6s} {'peak':>8s}  output")
    for name, measured in runs.items():
        one = best(measured)
        size = f"{(folder / f'bench.{name[7:]}').stat().st_size >> 20} MiB" if name != "check" else ""
        print(
            f"{name:12s} {one.wall:7.2f}s {one.wall / check.wall:5.2f}x {one.cpu:7.2f}s "
            f"{one.cpu / check.cpu:5.2f}x {one.rss >> 10:5d} MiB  {size}"
        )
    live = measure(options.pings, options.rounds, options.warmup)
    print("\n".join(report(live, options.pings, options.warmup)))


if __name__ == "__main__":
    main()
