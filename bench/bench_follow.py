"""What `mcptape view --follow` pays each time a live transcript grows, against a fresh analysis.

    .venv/bin/python bench/bench_follow.py [--messages 200000] [--growths 10] [--rows 1000]

Generates a transcript (the `bench_check.py` session), shows the viewer's analysis all but the last
`growths * rows` rows, then appends `rows` rows at a time, and after each growth times one pass:

- `FactsCollector.collect` (what `--follow` does): feeds the new rows, then finishes a copy;
- `collect_facts` over every row indexed so far (what a fresh analysis of the same rows costs).

Both give the same facts (tests/tui/test_follow_facts.py); this measures the cost.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_check import generate
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model.facts import FactsCollector, collect_facts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--growths", type=int, default=10)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        source = Path(tmp) / "source.jsonl"
        generate(source, args.messages)
        lines = source.read_bytes().splitlines(keepends=True)
        start = len(lines) - args.growths * args.rows
        live = Path(tmp) / "live.jsonl"
        live.write_bytes(b"".join(lines[:start]))
        index = TranscriptIndex(live)
        index.scan(final=False)
        collector = FactsCollector()
        t0 = time.perf_counter()
        collector.collect(index)
        first = time.perf_counter() - t0
        follow: list[float] = []
        fresh: list[float] = []
        with open(live, "ab") as out:
            for k in range(args.growths):
                lo = start + k * args.rows
                out.write(b"".join(lines[lo : lo + args.rows]))
                out.flush()
                index.scan(final=False)
                t0 = time.perf_counter()
                collector.collect(index)
                follow.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                collect_facts(index)
                fresh.append(time.perf_counter() - t0)
        f, r = statistics.median(follow), statistics.median(fresh)
        print(f"{len(lines) - 1:,} rows; first pass over {start - 1:,} rows: {first:.2f} s")
        print(f"each growth of {args.rows:,} rows (median of {args.growths}):")
        print(f"  --follow (new rows + finish a copy)  {f * 1000:7.1f} ms")
        print(f"  fresh analysis of every row          {r * 1000:7.1f} ms  ({r / f:.0f}x the follow pass)")


if __name__ == "__main__":
    main()
