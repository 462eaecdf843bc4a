"""Must show: `mcptape export --format har` gives a document valid against the HAR 1.2 structure: for
an HTTP recording one entry per recorded exchange matching its bytes (method, URL, headers, bodies,
SSE as text, status, timings in order); for stdio one entry per JSON-RPC call on its pseudo URL; and
har-validator, the npm package that checked HAR for the `request` library, accepts them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import orjson
import pytest

from tests.conftest import NODE_DIR, ROOT
from tests.export.har_schema import HAR
from tests.export.helpers import export, tool_session, write_transcript
from tests.recorder.http.helpers import exchanges

pytestmark = pytest.mark.slow

ECHO = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def har_of(tmp_path: Path, *transcripts: Path) -> dict[str, Any]:
    out = tmp_path / "session.har"
    done = export(*map(str, transcripts), "--format", "har", "-o", str(out), "--overwrite")
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = orjson.loads(out.read_bytes())
    jsonschema.validate(document, HAR, cls=jsonschema.Draft202012Validator)
    return document


def test_the_schema_refuses_what_har_refuses() -> None:
    """The structure is a real check: an entry without `timings`, or a header without its value,
    fails it."""
    good = {"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": []}}
    jsonschema.validate(good, HAR)
    entry = {
        "startedDateTime": "2026-12-04T10:00:00.000Z",
        "time": 0,
        "request": {},
        "response": {},
        "cache": {},
    }
    for bad in ({**good, "log": {**good["log"], "entries": [entry]}}, {"log": {"version": "1.1"}}):
        try:
            jsonschema.validate(bad, HAR)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"accepted: {bad}")


def test_a_stdio_session_is_one_entry_per_call_on_pseudo_urls(tmp_path: Path) -> None:
    """stdio://{server}/{method}?id=N, the request line as the POST body, the answer as content."""
    log = har_of(tmp_path, ECHO)["log"]
    urls = [e["request"]["url"] for e in log["entries"]]
    assert urls == [
        "stdio://echo_tool.py/initialize?id=1",
        "stdio://echo_tool.py/tools/list?id=2",
        "stdio://echo_tool.py/tools/call?id=3",
        "stdio://echo_tool.py/tools/call?id=4",
    ]
    add = log["entries"][2]
    assert orjson.loads(add["request"]["postData"]["text"])["params"]["name"] == "add"
    assert orjson.loads(add["response"]["content"]["text"])["result"]["structuredContent"] == {"result": 42}
    assert add["request"]["queryString"] == [{"name": "id", "value": "3"}]
    assert add["pageref"] == log["pages"][0]["id"] == "sdk-echo-tool-handshake.jsonl"
    assert 1.0 < add["time"] < 2.0  # 1.241 ms from request to answer in the recording


def test_unanswered_and_refused_calls_say_so(tmp_path: Path) -> None:
    """A refused call is answered (status 200, its error in `_mcptape`), an unanswered one is 0."""
    unanswered = {"t": 0.45, "ch": "in", "data": '{"jsonrpc":"2.0","id":9,"method":"tools/list"}\n'}
    records = [*tool_session()[:-3], unanswered]
    log = har_of(tmp_path, write_transcript(tmp_path / "t.jsonl", records))["log"]
    last = log["entries"][-1]
    assert last["response"]["status"] == 0 and last["_mcptape"]["error"] == "unanswered"
    assert [e["_mcptape"].get("error") for e in log["entries"][:-1]] == [None, None, "-32602", "tool_error"]


def test_an_http_session_is_one_entry_per_exchange_matching_its_bytes(
    tmp_path: Path, http_transcript: Path
) -> None:
    """Every exchange of the SDK's recorded session, in order: the request line and body as sent,
    the status, the content type, an SSE body as its events' text, and send <= wait <= receive in
    time order (each timing >= 0)."""
    log = har_of(tmp_path, http_transcript)["log"]
    raw_in, raw_out = exchanges(http_transcript, "http-in"), exchanges(http_transcript, "http-out")
    entries = log["entries"]
    assert [e["_mcptape"]["exchange"] for e in entries] == sorted(raw_in)
    for entry in entries:
        request, response = entry["request"], entry["response"]
        sent, answered = raw_in[entry["_mcptape"]["exchange"]], raw_out[entry["_mcptape"]["exchange"]]
        path = request["url"].split("/", 3)[3]
        assert sent.startswith(f"{request['method']} /{path} HTTP/1.1\r\n".encode())
        assert answered.startswith(f"HTTP/1.1 {response['status']} ".encode())
        assert request["headersSize"] + request["bodySize"] == len(sent)  # every byte, head and body
        assert response["headersSize"] + response["bodySize"] == len(answered)
        if "postData" in request:
            assert sent.endswith(request["postData"]["text"].encode())
        for timing in ("send", "wait", "receive"):
            assert entry["timings"][timing] >= 0
        host = next(h["value"] for h in request["headers"] if h["name"] == "host")
        assert request["url"].startswith(f"http://{host}/")
    methods = {e["request"]["method"] for e in entries}
    assert methods == {"POST", "GET", "DELETE"}
    streams = [e for e in entries if e["response"]["content"]["mimeType"].startswith("text/event-stream")]
    assert streams and any("event: message" in e["response"]["content"]["text"] for e in streams)
    calls = [e for e in entries if '"tools/call"' in e["request"].get("postData", {}).get("text", "")]
    assert len(calls) >= 3 and all(e["response"]["status"] == 200 for e in calls)


@pytest.mark.node
def test_har_validator_accepts_the_stdio_and_http_documents(tmp_path: Path, http_transcript: Path) -> None:
    """har-validator (npm, the HAR 1.2 schemas of har-schema) accepts both documents, and refuses
    one with an entry's `timings` removed (so its "valid" means something)."""
    stdio, http = tmp_path / "stdio.har", tmp_path / "http.har"
    for transcript, out in ((ECHO, stdio), (http_transcript, http)):
        assert export(str(transcript), "--format", "har", "-o", str(out)).returncode == 0
    broken = orjson.loads(stdio.read_bytes())
    del broken["log"]["entries"][0]["timings"]
    (tmp_path / "broken.har").write_bytes(orjson.dumps(broken))
    node = shutil.which("node")
    assert node and (NODE_DIR / "node_modules" / "har-validator").is_dir(), (
        "run ./dev.sh test (npm ci in tests/node)"
    )
    env = {**os.environ, "NODE_PATH": str(NODE_DIR / "node_modules")}
    script = str(Path(__file__).with_name("har_validate.js"))
    done = subprocess.run(
        [node, script, str(stdio), str(http)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0 and done.stdout.count("valid ") == 2, done.stdout + done.stderr
    done = subprocess.run(
        [node, script, str(tmp_path / "broken.har")], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1 and "missingProperty" in done.stdout and "timings" in done.stdout
