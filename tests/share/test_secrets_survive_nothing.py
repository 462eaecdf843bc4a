"""Secrets: redact, report and record --redact leave no planted secret in any shape they claim to
cover (URL passwords with an empty user, JSON inside JSON inside JSON, arrays of arrays and objects
under a secret key, record kinds this version does not know, a secret across live redaction's
8 MiB cut, credentials in an HTTP `Host` header)."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mcptape.recorder.outbound.httpsink import HttpSink
from mcptape.share import live
from mcptape.share.live import RedactingWriter
from mcptape.share.placeholder import Key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript import open_transcript
from mcptape.transcript.writer import new_header
from tests.commands.tapes import HEADER, assert_clean_run, line, message, record, run, write

KEY = Key(bytes(range(16)), bytes(range(16)).hex())
ENV = {"MCPTAPE_REDACT_KEY": "", "HOME": "/nonexistent"}


def redactor() -> Redactor:
    return Redactor(Rules.build(use_env=False), KEY)


def files_under(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())


def assert_gone(secrets: list[str], *paths: Path) -> None:
    """No secret in any file under `paths`, as text or as JSON-escaped text."""
    for path in paths:
        for file in files_under(path):
            data = file.read_bytes()
            for secret in secrets:
                escaped = json.dumps(secret)[1:-1].encode()
                assert secret.encode() not in data and escaped not in data, (secret, file)


def test_a_url_password_with_an_empty_user_is_replaced() -> None:
    """`redis://:pw@host` loses its password like `postgres://user:pw@host`."""
    out = redactor().text("connecting to redis://:Hunter2pass@cache:6379/0 and amqp://:x9Y8z7@mq")
    assert "Hunter2pass" not in out and "x9Y8z7" not in out
    assert "redis://:[redacted:" in out and "@cache:6379/0" in out


def nest_json(value: Any, times: int) -> Any:
    """`value` encoded as a JSON string inside a JSON object, `times` over."""
    for _ in range(times):
        value = json.dumps({"payload": value})
    return value


@pytest.mark.parametrize("times", [1, 2, 3, 5])
def test_json_inside_json_is_read_to_any_depth(times: int) -> None:
    """A secret key inside JSON held in a string, itself held in a string..., is found; the line
    stays the same JSON, each level still decodes."""
    inner = {"db": {"password": "plain-words-only"}, "api_keys": [["alpha-one", "beta-two"]]}
    text = json.dumps({"result": nest_json(inner, times)})
    out = redactor().text(text)
    for secret in ("plain-words-only", "alpha-one", "beta-two"):
        assert secret not in out
    value: Any = json.loads(out)["result"]
    for _ in range(times):
        value = json.loads(value)["payload"]
    assert value["db"]["password"].startswith("[redacted:")


@pytest.mark.parametrize(
    "member",
    [
        '"api_key": [["nested-one", "nested-two"], ["nested-three"]]',
        '"credentials": {"user": "nested-one", "pw": ["nested-two", {"deeper": "nested-three"}]}',
        '"secrets": [{"value": "nested-one"}, [["nested-two"]], "nested-three"]',
        '"secret": [[123456789, 987654321]], "x": ["nested-one", "nested-two", "nested-three"]',
    ],
)
def test_every_string_under_a_secret_key_is_replaced_at_any_depth(member: str) -> None:
    """Arrays of arrays, and objects inside them, under a secret key keep none of their strings."""
    text = "{" + member + "}"
    if member.startswith('"secret"'):  # numbers under the key, and strings that are not under it
        out = redactor().text(text)
        assert "123456789" not in out and "987654321" not in out and "nested-one" in out
        assert json.loads(out)["secret"][0][0].startswith("[redacted:")
        return
    out = redactor().text(text)
    for secret in ("nested-one", "nested-two", "nested-three"):
        assert secret not in out
    json.loads(out)


def test_a_json_schema_under_a_secret_key_is_read_key_by_key() -> None:
    """A tool's inputSchema describing an `api_key` property stays readable."""
    text = '{"properties":{"api_key":{"type":"string","description":"your key","minLength":8}}}'
    assert redactor().text(text) == text


def test_redact_and_report_leave_no_planted_secret_anywhere(tmp_path: Path) -> None:
    """Every shape above in one transcript (plus the header and an unknown record kind): neither
    the redacted copy nor any file of the report bundle holds a planted value."""
    planted = {
        "url": "Url-Pass-42",
        "nested": "Nested-Deep-43",
        "array": "Array-Array-44",
        "unknown": "Unknown-Kind-45",
        "unknown-bytes": "Unknown-Bytes-46",
        "header": "Header-Field-47",
        "recorder": "Recorder-Field-48",
        "cwd": "ghp_Cwd0Secret49abcdefghijklmnop",
        "host": "Host-Pass-50",
    }
    header = {
        **HEADER,
        "cwd": f"/srv/{planted['cwd']}/app",
        "recorder": {"name": "mcptape", "api_token": planted["recorder"]},
        "env": {"DEPLOY": {"password": [[planted["header"]]]}},
    }
    body = {"content": [{"type": "text", "text": nest_json({"auth": {"secret": planted["nested"]}}, 3)}]}
    lines = [
        line(0.1, "in", message(id=1, method="tools/call", params={"name": "x", "arguments": {"k": [[1]]}})),
        line(0.2, "out", message(id=1, result=body)),
        line(0.3, "err", f"redis://:{planted['url']}@cache:6379\n"),
        line(0.4, "out", message(method="notifications/x", params={"api_keys": [[planted["array"]]]})),
        record(t=0.45, ch="future", info={"nested": [planted["unknown"]]}, plain="harmless words"),
        json.dumps({"t": 0.46, "ch": "sse", "data": f"event: x\ndata: {planted['unknown-bytes']}\n"}),
        json.dumps(
            {
                "t": 0.47,
                "ch": "http",
                "data": json.dumps({"headers": [["Host", f"u:{planted['host']}@h"]]}) + "\n",
            }
        ),
        record(t=0.5, ch="exit", code=0, signal=None),
    ]
    src = write(tmp_path / "leaky.jsonl", lines, header=header)
    copy = tmp_path / "copy.jsonl"
    assert_clean_run(run("redact", str(src), "-o", str(copy), env=ENV), codes=[0])
    assert_clean_run(run("report", str(src), "-o", str(tmp_path / "bundle"), env=ENV), codes=[0])
    assert_gone(list(planted.values()), copy, tmp_path / "bundle")
    assert open_transcript(copy).header.recorder["name"] == "mcptape"
    assert_clean_run(run("check", str(copy)), codes=[0, 1])


def test_live_redaction_finds_a_secret_across_the_8_mib_cut(tmp_path: Path) -> None:
    """record --redact writes an endless line in 8 MiB pieces; a token that straddles a cut is
    still replaced whole (the end of each piece is read again with what follows)."""
    token = "sk-" + "Z9" * 20
    at = live.MAX_PENDING - 10  # the token starts 10 bytes before the first cut
    path = tmp_path / "live.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    writer = RedactingWriter(fd, clock_start=0.0, redactor=redactor(), hold=0.0)
    writer.header(new_header(["server"], "/srv"))
    chunk = 1 << 20
    data = b"x" * at + b" " + token.encode() + b" " + b"y" * (chunk * 2)
    for start in range(0, len(data), chunk):
        writer.chunk(0.1, "out", data[start : start + chunk])
    writer.fields(0.2, "exit", code=0, signal=None)
    writer.close()
    events = [e for e in open_transcript(path).events() if e.ch == "out"]
    joined = b"".join(e.data for e in events)
    assert len(events) >= 2
    assert token.encode() not in joined and token[:8].encode() not in joined
    assert joined.count(b"[redacted:") == 1


def test_the_http_sink_keeps_no_password_of_a_host_header(tmp_path: Path) -> None:
    """A client that puts a URL's credentials in `Host` (http.client does) leaves no password in
    the `http` record."""

    class Sink:
        def __init__(self) -> None:
            self.lines: list[bytes] = []

        def now(self) -> float:
            return 0.0

        def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
            self.lines.append(bytes(data))

    got = Sink()
    sink = HttpSink(got).start()
    try:
        host, port = sink.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request(
            "GET", "http://deploy:Sink-Pass-51@api.example/x", headers={"Referer": "https://u:Sink-Ref-52@r/"}
        )
        conn.getresponse().read()
        conn.close()
    finally:
        sink.stop()
    recorded = b"".join(got.lines)
    assert b"Host" in recorded and b"deploy:" in recorded
    assert b"Sink-Pass-51" not in recorded and b"Sink-Ref-52" not in recorded
