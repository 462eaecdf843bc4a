"""Real recordings, damaged the ways files get damaged or forged (cut short, a flipped bit, NUL and
invalid UTF-8, CRLF, a BOM, any JSON type in any header, record and message field, a future format
version, escape sequences, bad base64, forged HTTP bytes: Content-Length, chunk sizes, header
lines), through every command that reads a transcript: exit 0, 1 or 2 (2 with one `Error:` line),
no traceback, no raw control character on stdout or stderr, the input files unchanged.

A fixed seed: the same cases every run (the hypothesis property test of test_any_transcript.py
generates transcripts from nothing; this one starts from sessions real servers wrote).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from mcptape.jsonsafe import dumps
from tests.commands.tapes import unsafe_chars
from tests.inprocess import run

ROOT = Path(__file__).resolve().parents[2]
BASES = [
    ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl",
    ROOT / "transcripts" / "sdk-echo-tool-stateless.jsonl",
    ROOT / "transcripts" / "mcp-server-time-handshake.jsonl",  # tracked (demo-transcripts/ is made by demo)
    Path(__file__).parent / "data" / "http-session.tape",  # HTTP; not .jsonl: the plugin would replay it
]
ODD: list[Any] = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5,
    1e308,
    "",
    "\x1b]0;t\x07",
    "\u202e",
    "\x9b2J",
    [],
    [1],
    {"a": {}},
]
ESCAPES = ["\ud800", "\x1b]0;pwn\x07", "\x1b[2J", "\x9b31m", "\u202e", "\x85", "\u2028", "\x00", "\x7f"]
EXAMPLES = int(os.environ.get("MCPTAPE_HOSTILE_EXAMPLES", "24"))


def _json_line(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def mutate(rng: random.Random, data: bytes, kind: str) -> bytes:
    """`data` damaged one way (`kind`)."""
    lines = data.split(b"\n")
    body = [i for i in range(1, len(lines)) if type(_json_line(lines[i])) is dict]
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind == "flip":
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    if kind == "bytes":
        at = rng.randrange(len(data))
        return data[:at] + rng.choice([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\r"]) + data[at:]
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "header":
        header = json.loads(lines[0])
        key = rng.choice([*header, "mcptape", "started", "command", "cwd", "recorder", "http", "env"])
        header[key] = rng.choice([*ODD, 2, 99, "1"]) if key == "mcptape" else rng.choice(ODD)
        lines[0] = dumps(header).encode()
    elif kind == "record":
        for i in rng.sample(body, min(3, len(body))):
            record = json.loads(lines[i])
            key = rng.choice([*record, "t", "ch", "data", "b64", "x", "of", "code"])
            record[key] = rng.choice([*ODD, "in", "out", "exit", "http-in", "AAAA", "!!"])
            lines[i] = dumps(record).encode()
    elif kind == "message":
        for i in rng.sample(body, min(3, len(body))):
            record = json.loads(lines[i])
            message = _json_line(str(record.get("data", "")).encode("utf-8", "surrogatepass"))
            if type(message) is dict:
                message[rng.choice([*message, "id", "method", "params", "result", "error"])] = rng.choice(ODD)
                record["data"] = dumps(message) + "\n"
                lines[i] = dumps(record).encode()
    elif kind == "escapes":
        text = rng.choice(ESCAPES)
        request = {"jsonrpc": "2.0", "id": text, "method": text, "params": {text: text}}
        lines.insert(
            rng.randint(1, len(lines) - 1), dumps({"t": 0.5, "ch": "err", "data": text + "\n"}).encode()
        )
        lines.insert(
            rng.randint(1, len(lines) - 1),
            dumps({"t": 0.5, "ch": "in", "data": dumps(request) + "\n"}).encode(),
        )
        lines.insert(rng.randint(1, len(lines) - 1), dumps({"t": 0.5, "ch": text, "data": text}).encode())
    elif kind == "base64":
        b64 = rng.choice(
            ["!!!", "AAA", "=", base64.b64encode(bytes(rng.randrange(256) for _ in range(20))).decode()]
        )
        lines.insert(rng.randint(1, len(lines) - 1), dumps({"t": 0.5, "ch": "out", "b64": b64}).encode())
    elif kind == "http":
        wire = [i for i in body if str(json.loads(lines[i]).get("ch", "")).startswith("http-")]
        for i in rng.sample(wire, min(3, len(wire))):
            lines[i] = dumps(_forged_http(rng, json.loads(lines[i]))).encode()
    return b"\n".join(lines)


def _forged_http(rng: random.Random, record: dict[str, Any]) -> dict[str, Any]:
    raw = str(record.pop("data", "")).encode("utf-8", "surrogatepass") or base64.b64decode(
        record.pop("b64", "")
    )
    how = rng.choice(["length", "chunks", "header", "status", "cut", "twice"])
    if how == "length":
        value = rng.choice([b"0", b"-1", b"99999999999999999999", b"abc", b"5, 6", b""])
        raw = re.sub(rb"(?i)content-length: *\d+", b"Content-Length: " + value, raw)
    elif how == "chunks":
        size = rng.choice([b"ffffffffffffffffff\r\n", b"zz\r\n", b"-1\r\n", b"5;x=\x1b\r\n"])
        raw = raw.replace(b"\r\n\r\n", b"\r\nTransfer-Encoding: chunked\r\n\r\n" + size, 1)
    elif how == "header":
        line = rng.choice(
            [
                b"X-A: \x1b]0;x\x07",
                b"X-B: \xff\xfe",
                b": empty",
                b"NoColon",
                b" folded",
                b"Content-Encoding: gzip",
            ]
        )
        raw = raw.replace(b"\r\n", b"\r\n" + line + b"\r\n", 1)
    elif how == "status":
        raw = re.sub(rb"^HTTP/1.1 \d+", rng.choice([b"HTTP/1.1 999", b"HTTP/9 200", b"junk"]), raw)
    elif how == "cut":
        raw = raw[: rng.randrange(len(raw) + 1)]
    else:
        raw += raw
    try:
        record["data"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        record["b64"] = base64.b64encode(raw).decode()
    if rng.random() < 0.2:
        record["x"] = rng.choice([-1, 2**70, "1", None, 1.5])
    return record


KINDS = [
    "truncate",
    "flip",
    "bytes",
    "crlf",
    "bom",
    "header",
    "record",
    "message",
    "escapes",
    "base64",
    "http",
]


def cases() -> list[tuple[str, Path, str]]:
    rng = random.Random(20261207)
    out = []
    for n in range(EXAMPLES):
        kind = KINDS[n % len(KINDS)]
        base = BASES[-1] if kind == "http" else rng.choice(BASES)
        out.append((f"{n}-{kind}-{base.stem}", base, kind))
    return out


def assert_clean(result: Any, argv: list[str]) -> None:
    out, err = result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")
    assert result.returncode in (0, 1, 2), (argv, err[-2000:])
    assert "Traceback" not in err, (argv, err[-2000:])
    if result.returncode == 2:
        assert err.startswith("Error: ") and err.count("\n") == 1, (argv, err)
    assert unsafe_chars(out) == [], (argv, unsafe_chars(out), out[:300])
    assert unsafe_chars(err) == [], (argv, unsafe_chars(err), err[:300])


@pytest.mark.parametrize(("case", "base", "kind"), cases(), ids=[c[0] for c in cases()])
def test_a_damaged_recording_gets_a_verdict_or_one_error(
    tmp_path: Path, case: str, base: Path, kind: str
) -> None:
    """Every reading command on one damaged recording (and beside the intact one): clean runs, and
    neither file touched."""
    rng = random.Random(case)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(mutate(rng, base.read_bytes(), kind))
    intact = tmp_path / "intact.jsonl"
    shutil.copyfile(base, intact)
    sums = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in (damaged, intact)}
    out = tmp_path / "out"
    runs: list[list[str | Path]] = [
        ["check", damaged],
        ["check", "--json", damaged],
        ["check", "--format", "github", damaged, "--sarif", out / "s.sarif", "--junit", out / "j.xml"],
        ["diff", damaged, intact],
        ["diff", "--json", intact, damaged],
        ["redact", damaged, "-o", out / "redacted.jsonl"],
        ["report", damaged, "-o", out / "bundle"],
        ["export", damaged, "--format", "har"],
        ["export", damaged, "--format", "otlp"],
        ["export", damaged, "--format", "html", "-o", out / "page.html"],
        ["tools", "lock", damaged],
        ["tools", "drift", damaged],
        ["tools", "diff", damaged, intact],
        ["check", intact, "--tools-lock", damaged],
    ]
    if int(case.split("-")[0]) % 4 == 0 and base != BASES[-1]:  # a few stdio replays (a process each):
        # `cat` answers with the requests (an HTTP replay waits for its server to listen)
        runs.append(["replay", damaged, "--step-timeout", "0.5", "-o", out / "new.jsonl", "--", "cat"])
    for argv in runs:
        out.mkdir(exist_ok=True)
        assert_clean(run(*argv, env={**os.environ, "MCPTAPE_REDACT_KEY": "k"}), [str(a) for a in argv])
        if (out / "j.xml").exists():  # what CI tools read: well-formed XML and JSON
            ElementTree.parse(out / "j.xml")
            json.loads((out / "s.sarif").read_bytes())
        shutil.rmtree(out)
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sums} == sums
