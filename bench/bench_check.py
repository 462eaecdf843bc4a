"""Benchmark `mcptape check` against a bare `orjson.loads` loop over the same file, in one run.

    python bench/bench_check.py [--messages 1000000] [--small N] [--dir DIR]

1. Generates a transcript of N messages shaped like a real stateless (2026-07-28) session: tools/call
   requests carrying the per-request `_meta`, their results, progress notifications, some stderr
   and executor lines, with `in` records now and then landing in the file after the `out` record
   that answers them (as the recorder's per-channel threads do).
2. Times a bare loop `for line in file: orjson.loads(line)` over it, the same loop also parsing
   the message inside each record (the floor of any design that decodes both), then
   `analyze_file` (the whole check), then the check with the tool-surface drift watch `mcptape
   check` runs (a `SessionSurface` on the analysis' `watch` hook); reports lines/s, the ratio to
   the bare loop (target 0.25x, issue 26) and the drift watch's cost (within 5 %, issue 22).
3. Memory: peak RSS of a fresh process checking the first `--small` messages vs all N; the
   analysis streams, so the two must be close.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def generate(path: Path, messages: int) -> int:
    """Write a transcript of about `messages` protocol messages; return the number of records."""
    header = {
        "mcptape": 1,
        "started": "2026-01-01T00:00:00Z",
        "command": ["bench-server"],
        "cwd": "/",
        "recorder": {"name": "bench"},
    }
    records = 0
    t = 0.0
    dumps = orjson.dumps
    with open(path, "wb") as fh:
        fh.write(dumps(header) + b"\n")
        out: list[bytes] = []
        rid = 0
        while records < messages:
            rid += 1
            t += 0.00002
            req = {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {
                    "name": "search",
                    "arguments": {"query": f"term {rid}", "limit": 10},
                    # a request that gets progress names its token (2026-07-28 progress rule)
                    "_meta": {**META, "progressToken": rid} if rid % 4 == 0 else META,
                },
            }
            req_rec = dumps({"t": round(t, 6), "ch": "in", "data": dumps(req).decode() + "\n"})
            block = [req_rec]
            if rid % 4 == 0:
                t += 0.00001
                note = {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": rid, "progress": 0.5, "total": 1.0},
                }
                block.append(dumps({"t": round(t, 6), "ch": "out", "data": dumps(note).decode() + "\n"}))
            if rid % 50 == 0:
                block.append(dumps({"t": round(t, 6), "ch": "err", "data": f"INFO handled request {rid}\n"}))
            if rid % 10 == 0:
                block.append(
                    dumps(
                        {
                            "t": round(t, 6),
                            "ch": "exec",
                            "data": dumps({"action": "search", "request_id": rid}).decode() + "\n",
                        }
                    )
                )
            t += 0.00003
            text = f"result {rid}: " + "lorem ipsum dolor sit amet " * 6
            res = {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "content": [{"type": "text", "text": text}],
                    "isError": False,
                    "resultType": "complete",
                    "structuredContent": {"hits": [rid, rid + 1, rid + 2]},
                },
            }
            block.append(dumps({"t": round(t, 6), "ch": "out", "data": dumps(res).decode() + "\n"}))
            if rid % 7 == 0:  # the `in` thread wrote its record after the `out` thread
                block.append(block.pop(0))
            out.extend(block)
            records += len(block)
            if len(out) >= 20000:
                fh.write(b"\n".join(out) + b"\n")
                out.clear()
        # the server's end, as the recorder writes it: a recording without it is incomplete
        out.append(dumps({"t": round(t + 0.001, 6), "ch": "exit", "code": 0, "signal": None}))
        records += 1
        fh.write(b"\n".join(out) + b"\n")
    return records


def timed(run: Callable[[Path], int], path: Path) -> tuple[int, float, float]:
    """`run(path)`'s result, wall seconds and CPU seconds."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = run(path)
    return result, time.perf_counter() - w0, time.process_time() - c0


def _row(name: str, lines: int, wall: float, cpu: float) -> str:
    return f"{name + ':':24s}{wall:6.2f} s wall {cpu:6.2f} s CPU  {lines / cpu / 1e6:.2f} M lines/s"


def bare(path: Path) -> int:
    n = 0
    loads = orjson.loads
    with open(path, "rb", buffering=1 << 20) as fh:
        fh.readline()
        for line in fh:
            loads(line)
            n += 1
    return n


def both_parses(path: Path) -> int:
    """The floor of any design that parses the record and then the message inside it."""
    n = 0
    loads = orjson.loads
    with open(path, "rb", buffering=1 << 20) as fh:
        fh.readline()
        for line in fh:
            data = loads(line).get("data")
            if data is not None and data[:1] == "{":
                loads(data)
            n += 1
    return n


def check(path: Path) -> int:
    from mcptape.check.analyze import analyze_file

    _, analysis = analyze_file(str(path))
    assert analysis.findings == [], analysis.findings[:3]
    return sum(analysis.messages.values())


def check_with_drift(path: Path) -> int:
    """The check as `mcptape check` runs it: with the tool-surface drift watch on the `watch` hook."""
    from mcptape.check.analyze import analyze_file
    from mcptape.surface.findings import SessionSurface

    surface = SessionSurface()
    _, analysis = analyze_file(str(path), watch=surface)
    assert analysis.findings == [] and surface.findings() == ([], []), analysis.findings[:3]
    return sum(analysis.messages.values())


def peak_rss(path: Path) -> int:
    """Peak RSS (KiB) of a fresh interpreter that checks `path`."""
    # VmHWM, not ru_maxrss: the latter can carry the forking parent's peak across exec.
    code = (
        "import sys\n"
        "from mcptape.check.analyze import analyze_file\n"
        "analyze_file(sys.argv[1])\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "print(int(status.split()[0]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def head(src: Path, dst: Path, lines: int) -> None:
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        for i, line in enumerate(fin):
            if i > lines:
                break
            fout.write(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "big.jsonl"
        records = generate(path, args.messages)
        size = path.stat().st_size
        print(f"transcript: {records:,} records, {size / 1e6:.0f} MB ({size / records:.0f} B/record)")

        # Ratios come from CPU seconds (the process's own time): on a shared, loaded machine the
        # wall clock also counts the time other processes took the cores; both are printed.
        for module in ("mcptape.check.analyze", "mcptape.surface.findings"):
            importlib.import_module(module)  # imported before the clock starts
        print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        lines, w_bare, c_bare = timed(bare, path)
        _, w_both, c_both = timed(both_parses, path)
        msgs, w_check, c_check = timed(check, path)
        _, w_drift, c_drift = timed(check_with_drift, path)
        print(_row("bare orjson.loads loop", lines, w_bare, c_bare))
        print(
            _row("record + message parse", lines, w_both, c_both)
            + f" ({c_bare / c_both:.2f}x: the floor of a two-parse design, no analysis)"
        )
        print(_row("mcptape check", lines, w_check, c_check) + f" ({msgs / c_check / 1e6:.2f} M messages/s)")
        print(
            _row("check + drift watch", lines, w_drift, c_drift)
            + f" ({c_check / c_drift:.3f}x check alone; issue 22: >= 0.95x)"
        )
        print(
            f"ratio check / bare:     {c_bare / c_check:.2f}x  (target >= 0.25x; "
            f"the two parses alone reach {c_bare / c_both:.2f}x)"
        )

        small = Path(tmp) / "small.jsonl"
        head(path, small, args.small)
        rss_small, rss_big = peak_rss(small), peak_rss(path)
        print(
            f"peak RSS: {args.small:,} records {rss_small / 1024:.0f} MiB, "
            f"{records:,} records {rss_big / 1024:.0f} MiB (ratio {rss_big / rss_small:.2f})"
        )
        os.unlink(small)


if __name__ == "__main__":
    main()
