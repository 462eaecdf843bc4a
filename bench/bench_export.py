"""Benchmark `mcptape export` against `mcptape check` on the same transcript (issue 24's target: each
format within 3x the time of check).

    python bench/bench_export.py [--messages 100000] [--dir DIR]

Generates the transcript `bench_check.py` makes (a stateless session of tools/call requests, their
results, progress notifications, stderr and executor lines), then runs, each as a fresh process,
`mcptape check` and `mcptape export --format F -o FILE` for every format, and prints the wall time,
the ratio to check, the peak RSS and the output's size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_check import generate

MCPTAPE = str(Path(sys.executable).parent / "mcptape")


def timed(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one run of `args` (check's exit 1 for findings is fine)."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode in (0, 1), f"{args} exited {proc.returncode}"
    return elapsed, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=None)
    options = parser.parse_args()
    folder = options.dir or Path(tempfile.mkdtemp(prefix="bench-export-"))
    transcript = folder / "bench.jsonl"
    generate(transcript, options.messages)
    print(f"{transcript}: {options.messages} messages, {transcript.stat().st_size >> 20} MiB")
    check, check_rss = timed([MCPTAPE, "check", str(transcript)])
    print(f"check          {check:7.2f} s  1.00x  {check_rss >> 10:5d} MiB")
    for name in ("otlp", "html", "har"):
        out = folder / f"bench.{name}"
        seconds, rss = timed(
            [MCPTAPE, "export", str(transcript), "--format", name, "-o", str(out), "--overwrite"]
        )
        size = out.stat().st_size >> 20
        print(f"export {name:7s} {seconds:7.2f} s  {seconds / check:4.2f}x  {rss >> 10:5d} MiB  {size} MiB")


if __name__ == "__main__":
    main()
