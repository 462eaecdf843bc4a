"""How fast `mcptape view` shows a huge transcript, against merely reading the file once.

    .venv/bin/python bench/bench_view.py [--events 1000000] [--path /tmp/mcptape-bench-view.jsonl]

Generates (once) a transcript of N events (~300 bytes each: tools/call requests and responses, a
stderr line now and then, a start-up banner on stdout, an executor call), then in one run:

1. reads the file once, line by line (the floor any viewer is compared with);
2. in a fresh process, opens the viewer headless (`App.run_test`) and measures the time from
   opening the file to the first screen of rows rendered, the time until the check core's verdict
   is in, jumps to the middle and the end, and the process's memory (RSS at first paint, peak RSS).

Targets (issue 6): first paint <= 1 s; memory <= 25% of the file size. A script, not a test:
run it by hand, once (it loads 2 cores for a few seconds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import asyncio, json, os, sys, time
t_start = time.perf_counter()
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
t_imported = time.perf_counter()

def rss_mb(field="VmRSS"):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0

async def main():
    base = rss_mb()
    t0 = time.perf_counter()
    index = TranscriptIndex(sys.argv[1])
    app = ViewerApp(index)
    out = {"import_s": t_imported - t_start, "rss_after_import_mb": base}
    async with app.run_test(size=(160, 50)) as pilot:
        messages = app.messages
        while not messages.rendered_rows:
            await asyncio.sleep(0.002)
        out["first_paint_s"] = time.perf_counter() - t0
        out["rows_at_first_paint"] = len(index)
        out["rss_at_first_paint_mb"] = rss_mb()
        while app.model.facts is None:
            await asyncio.sleep(0.01)
        out["verdict_s"] = time.perf_counter() - t0
        out["rows"] = len(index)
        await pilot.pause()
        for name, row in (("jump_middle_s", len(index) // 2), ("jump_end_s", len(index) - 1)):
            messages.rendered_rows.clear()
            t = time.perf_counter()
            messages.select_row(row)
            while row not in messages.rendered_rows:
                await asyncio.sleep(0.001)
            out[name] = time.perf_counter() - t
        out["cursor_reason"] = app.reason
        out["rss_end_mb"] = rss_mb()
        out["peak_rss_mb"] = rss_mb("VmHWM")
    print(json.dumps(out))

asyncio.run(main())
"""


def generate(path: Path, events: int) -> None:
    """Write a realistic transcript of `events` events with the project's own encoder."""
    import orjson

    from mcptape.transcript.writer import encode_chunk, encode_fields, new_header

    text = "x" * 150
    with open(path, "wb") as fh:
        fh.write(orjson.dumps(new_header(["python", "-m", "bench_server"], "/tmp").to_record()) + b"\n")
        buf = bytearray()
        buf += encode_chunk(0.0, "out", b"bench server starting (debug)\n")
        n = 1  # the banner; the exit event comes last
        rid = 0
        while n < events - 1:
            t = rid * 0.001
            req = {"jsonrpc": "2.0", "id": rid, "method": "tools/call"}
            req["params"] = {"name": "echo", "arguments": {"text": text}}
            res = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}}
            records = [encode_chunk(t, "in", orjson.dumps(req) + b"\n")]
            if rid % 1000 == 7:
                call = orjson.dumps({"action": "echo", "request_id": rid}) + b"\n"
                records.append(encode_chunk(t + 0.0002, "exec", call))
            if rid % 500 == 3:
                records.append(encode_chunk(t + 0.0003, "err", b"INFO handled request %d\n" % rid))
            records.append(encode_chunk(t + 0.0005, "out", orjson.dumps(res) + b"\n"))
            for record in records[: events - 1 - n]:
                buf += record
            n += min(len(records), events - 1 - n)
            rid += 1
            if len(buf) > 1 << 20:
                fh.write(buf)
                buf.clear()
        buf += encode_fields(rid * 0.001, "exit", code=0, signal=None)
        fh.write(buf)


def read_once(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    with open(path, "rb", buffering=1 << 20) as fh:
        lines = sum(1 for _ in fh)
    return time.perf_counter() - t, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--path", type=Path, default=Path("/tmp/mcptape-bench-view.jsonl"))
    args = parser.parse_args()
    path: Path = args.path
    marker = path.with_suffix(".events")
    if not path.exists() or not marker.exists() or marker.read_text() != str(args.events):
        t = time.perf_counter()
        generate(path, args.events)
        marker.write_text(str(args.events))
        print(f"generated {path} in {time.perf_counter() - t:.1f}s")
    size = path.stat().st_size
    read_s, lines = read_once(path)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(child.stdout.strip().splitlines()[-1])
    mb = size / (1 << 20)
    print(f"file: {path} · {mb:.0f} MiB · {lines - 1:,} events")
    print(f"read once (for line in f, 1 MiB buffer):  {read_s:.3f} s")
    print(f"viewer: import textual + mcptape.tui:      {result['import_s']:.3f} s (not counted below)")
    print(
        f"viewer: first paint                        {result['first_paint_s']:.3f} s "
        f"({result['first_paint_s'] / read_s:.1f}x read once; {result['rows_at_first_paint']:,} rows indexed)"
    )
    print(f"viewer: verdict in (check core, all rows)  {result['verdict_s']:.3f} s")
    print(
        f"viewer: jump to middle / end               "
        f"{result['jump_middle_s']:.3f} / {result['jump_end_s']:.3f} s"
    )
    base = result["rss_after_import_mb"]
    for label, key in (("RSS at first paint", "rss_at_first_paint_mb"), ("peak RSS", "peak_rss_mb")):
        value = result[key]
        print(
            f"viewer: {label:<34} {value:.0f} MiB ({100 * value / mb:.0f}% of file); "
            f"{value - base:.0f} MiB over the {base:.0f} MiB after imports ({100 * (value - base) / mb:.0f}%)"
        )
    print(f"viewer: {result['cursor_reason']}")
    print(
        "targets: first paint <= 1 s: "
        + ("met" if result["first_paint_s"] <= 1.0 else "MISSED")
        + "; memory <= 25% of file: "
        + ("met" if result["peak_rss_mb"] <= 0.25 * mb else "MISSED")
    )


if __name__ == "__main__":
    main()
