"""The floor under `mcptape check`: what parsing alone costs, and what a format change would buy.

    python bench/bench_check_floor.py [--messages 300000] [--dir DIR]

Generates the same transcript as `bench_check.py`, then measures, in one run, per record:

1. the bare `orjson.loads` loop over the file (the issue's baseline);
2. the same loop also parsing the message inside each record (the floor of the v1 format, where
   a message is a JSON *string* inside its record);
3. the message parse alone, from strings already in memory;
4. a "v2" variant of the file where a record carries its message as a JSON *value* whenever the
   bytes round-trip exactly (`orjson.dumps(orjson.loads(line)) == line`): one parse yields both,
   but the bare loop over that file is slower too;
5. what v2 would cost the recorder: verifying that a line round-trips, against encoding it as v1;
6. a "v2 array" variant that needs no verifying: a whole line is written as `[t,"ch",<its bytes>]`
   (the bytes themselves, unescaped, so they are recovered by slicing the record; a line that is
   not one JSON value makes the record unparsable or not three long, and the reader would fall
   back to the slice): the cheapest one-parse format there is;
7. `mcptape check` on the v1 file, and what it would take on the v2 array file: check's time less
   the two v1 parses, plus the v2 array read (its parse and the slice of the raw bytes).

Times are CPU time (the process'), so the load of a shared machine moves them less. It prints the
check budget each baseline leaves (0.25x the bare loop, issue 26) next to what parsing takes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_check import bare, both_parses, check, generate

loads, dumps = orjson.loads, orjson.dumps


def per_record(records: int, fn: Callable[[], object]) -> float:
    """Microseconds per record of one call of `fn`."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best / records * 1e6


def parse_each(texts: list[str]) -> None:
    for text in texts:
        loads(text)


def verify_each(raws: list[bytes]) -> None:
    for raw in raws:
        _ = dumps(loads(raw)) + b"\n" == raw


def encode_each(texts: list[str]) -> None:
    for text in texts:
        dumps({"t": 1.5, "ch": "out", "data": text})


def to_v2_array(src: Path, dst: Path) -> None:
    """Write the "v2 array" variant of `src`: each whole line of `in`/`out` as `[t,"ch",<bytes>]`."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        fout.write(fin.readline())
        for line in fin:
            record = loads(line)
            data = record.get("data")
            if type(data) is str and data.endswith("\n") and record["ch"] in ("in", "out"):
                head = b"[" + repr(record["t"]).encode() + b',"' + record["ch"].encode() + b'",'
                fout.write(head + data[:-1].encode() + b"]\n")
            else:
                fout.write(line)


def read_v2_array(path: Path) -> int:
    """The v2 array reader's floor: one parse per line, and the raw bytes sliced out of it."""
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            record = loads(line)
            if type(record) is list:
                start = line.index(b'",', 1) + 2
                _raw = line[start:-2]
            n += 1
    return n


def to_v2(src: Path, dst: Path) -> list[bytes]:
    """Write the v2 variant of `src`; return the message lines (bytes) of the v1 file."""
    messages: list[bytes] = []
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        fout.write(fin.readline())
        for line in fin:
            record = loads(line)
            data = record.get("data")
            if type(data) is str and data[:1] == "{":
                raw = data.encode()
                messages.append(raw)
                value = loads(raw)
                if dumps(value) + b"\n" == raw:
                    fout.write(dumps({"t": record["t"], "ch": record["ch"], "msg": value}) + b"\n")
                    continue
            fout.write(line)
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=300_000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        v1, v2 = Path(tmp) / "v1.jsonl", Path(tmp) / "v2.jsonl"
        v2a = Path(tmp) / "v2a.jsonl"
        n = generate(v1, args.messages)
        raws = to_v2(v1, v2)
        to_v2_array(v1, v2a)
        texts = [raw.decode() for raw in raws]
        m = len(texts)

        t_bare = per_record(n, lambda: bare(v1))
        t_both = per_record(n, lambda: both_parses(v1))
        t_msg = per_record(m, lambda: parse_each(texts))
        t_v2 = per_record(n, lambda: bare(v2))
        t_verify = per_record(m, lambda: verify_each(raws))
        t_encode = per_record(m, lambda: encode_each(texts))
        t_v2a = per_record(n, lambda: bare(v2a))
        t_v2a_read = per_record(n, lambda: read_v2_array(v2a))
        t_check = per_record(n, lambda: check(v1))
        t_check_v2a = t_check - t_both + t_v2a_read

        print(f"{n:,} records, {m:,} of them messages; microseconds per record:")
        budget = "0.25x budget for check:"
        print(f"  bare loop over v1 file           {t_bare:5.2f}  ({budget} {t_bare / 0.25:.2f})")
        print(f"  record + message parse (v1)      {t_both:5.2f}  ({t_bare / t_both:.2f}x the bare loop)")
        print(f"  message parse alone, in memory   {t_msg:5.2f}")
        print(f"  bare loop over v2 file           {t_v2:5.2f}  ({budget} {t_v2 / 0.25:.2f})")
        print(f"  recorder, v1 encode of a line    {t_encode:5.2f}")
        print(f"  recorder, v2 round-trip verify   {t_verify:5.2f}  (extra work per line on the record path)")
        print(f"  bare loop over v2 array file     {t_v2a:5.2f}  ({budget} {t_v2a / 0.25:.2f})")
        print(f"  v2 array read + raw slice        {t_v2a_read:5.2f}")
        print(f"  mcptape check, v1 file           {t_check:5.2f}  ({t_bare / t_check:.3f}x its bare loop)")
        ratio = t_v2a / t_check_v2a
        print(f"  check on v2 array (estimate)     {t_check_v2a:5.2f}  ({ratio:.3f}x its bare loop)")


if __name__ == "__main__":
    main()
