"""A server (or client) may write `"\\ud800"`: valid JSON text for a character no UTF-8 encoder
takes. A session whose names, ids, descriptions, errors, logs and tool listings hold lone surrogates
(and escape sequences) goes through every reading command: no traceback (`export --format har`
quoted an id into its URL: UnicodeEncodeError), nothing unsafe printed or written in a report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.commands.tapes import unsafe_chars
from tests.inprocess import run

S = "\\ud800x\\udfff\\u001b]0;t\\u0007"  # as JSON text: a lone high and low surrogate, an OSC title
MESSAGES = [
    ("in", '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"@S@"}}}'),
    (
        "out",
        '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
        '"serverInfo":{"name":"@S@","version":"@S@"},"instructions":"@S@"}}',
    ),
    ("in", '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}'),
    (
        "out",
        '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"@S@","description":"@S@","inputSchema":'
        '{"type":"object","properties":{"@S@":{"type":"string"}},"required":["@S@"]}}]}}',
    ),
    (
        "in",
        '{"jsonrpc":"2.0","id":"@S@","method":"tools/call","params":{"name":"@S@","arguments":{}}}',
    ),
    ("out", '{"jsonrpc":"2.0","id":"@S@","error":{"code":-32602,"message":"@S@","data":"@S@"}}'),
    (
        "out",
        '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"@S@","data":"@S@"}}',
    ),
    ("in", '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}'),
    ("out", '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"@S@","description":"IMPORTANT"}]}}'),
]
HEADER = {"mcptape": 1, "started": "2026-12-04T00:00:00Z", "command": ["srv"], "cwd": "/", "recorder": {}}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = [json.dumps(HEADER)]
    for n, (ch, message) in enumerate(MESSAGES, 1):
        lines.append(json.dumps({"t": n / 10, "ch": ch, "data": message.replace("@S@", S) + "\n"}))
    lines.append('{"t":2.0,"ch":"err","data":"@S@\\n"}'.replace("@S@", S))  # the record itself
    lines.append('{"t":2.1,"ch":"exit","code":0,"signal":null}')
    path = tmp_path_factory.mktemp("surrogates") / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["check", "{s}"],
        ["check", "--json", "{s}"],
        ["check", "--format", "github", "{s}", "--sarif", "{o}/s.sarif", "--junit", "{o}/j.xml"],
        ["diff", "{s}", "{s}"],
        ["redact", "{s}", "-o", "{o}/r.jsonl"],
        ["report", "{s}", "-o", "{o}/bundle"],
        ["export", "{s}", "--format", "har"],
        ["export", "{s}", "--format", "otlp"],
        ["export", "{s}", "--format", "html", "-o", "{o}/page.html"],
        ["tools", "lock", "{s}", "-o", "{o}/tools.lock.json"],
        ["tools", "drift", "{s}"],
        ["tools", "diff", "{s}", "{s}", "--json"],
    ],
    ids=lambda args: " ".join(a for a in args if not a.startswith("{")),
)
def test_lone_surrogates_anywhere_in_a_session(session: Path, tmp_path: Path, args: list[str]) -> None:
    """Exit 0 or 1, no traceback, nothing unsafe on stdout, stderr or in a text file written."""
    argv = [a.format(s=session, o=tmp_path) for a in args]
    result = run(*argv, env={**os.environ, "MCPTAPE_REDACT_KEY": "k"})
    out, err = result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")
    assert result.returncode in (0, 1) and "Traceback" not in err, err[-2000:]
    assert unsafe_chars(out) == [] and unsafe_chars(err) == [], (out[:300], err[:300])
    for written in tmp_path.rglob("*"):
        if written.is_file() and written.suffix in (".md", ".txt", ".html", ".sarif", ".xml"):
            assert unsafe_chars(written.read_bytes().decode("utf-8", "replace")) == [], written.name


def test_the_viewer_shows_every_row_of_the_session(session: Path) -> None:
    """The viewer's model labels, previews and details every row, safely (a method or id holding a
    lone surrogate made its label a UnicodeEncodeError)."""
    from mcptape.transcript.index import TranscriptIndex
    from mcptape.tui.model.viewer import ViewerModel
    from mcptape.tui.widgets.detail import render_detail

    index = TranscriptIndex(session)
    index.scan()
    model = ViewerModel(index)
    for row in range(len(index)):
        info = model.describe(row)
        assert unsafe_chars(info.label + info.preview) == [], (info.label, info.preview)
        for hex_mode in (False, True):
            shown = render_detail(model.detail(row), hex_mode=hex_mode).plain
            assert unsafe_chars(shown) == [], shown[:300]


def test_replay_answers_a_server_request_whose_id_is_a_lone_surrogate(session: Path, tmp_path: Path) -> None:
    """A new build that sends requests with such ids and methods (`cat` sends the client's requests
    back): replay answers each with the id as its JSON escape (orjson raised TypeError: a traceback),
    and says how the sessions differ."""
    new = tmp_path / "new.jsonl"
    result = run("replay", session, "--step-timeout", "1", "-o", new, "--", "cat", text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert unsafe_chars(result.stdout) == [] and unsafe_chars(result.stderr) == []
    sent_back = [json.loads(r)["data"] for r in new.read_text().splitlines()[1:] if '"ch":"in"' in r]
    assert any('"id":"\\ud800x\\udfff' in line and "-32601" in line for line in sent_back), sent_back


def test_serve_answers_a_client_id_that_is_a_lone_surrogate_with_its_escape(session: Path) -> None:
    """The answer to a request whose id is `"\\ud801"` carries that id as the same escape, valid UTF-8
    (it was written as the surrogate's raw bytes, ED A0 81, which no JSON reader takes)."""
    import subprocess

    from tests.conftest import console_script

    requests = (
        '{"jsonrpc":"2.0","id":"\\ud801","method":"tools/list","params":{}}\n'
        '{"jsonrpc":"2.0","id":"\\udfff","method":"nope/\\ud800","params":{}}\n'
    )
    served = subprocess.run(
        [console_script(), "serve", str(session)], input=requests.encode(), capture_output=True, timeout=60
    )
    assert served.returncode == 1, served.stderr  # the second request has no recorded answer
    answers = [json.loads(line.decode("utf-8")) for line in served.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["\ud801", "\udfff"]
    assert "result" in answers[0] and answers[1]["error"]["code"] == -32001
    assert b"\\ud801" in served.stdout and unsafe_chars(served.stderr.decode()) == []
