"""A URL given to a command (probe --url, record --http-upstream, tools lock --url) or recorded in an
HTTP transcript's header (replay's upstream) is refused with one line, exit 2, when http.client
could not send it: a bracket left open, a port out of range, a control character, a space or
non-ASCII text (urlsplit's ValueError was a traceback; a CR LF reached a request line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.tapes import HEADER, assert_clean_run, run, write

UNSENDABLE = {
    "open-bracket": "http://[::1",
    "brackets-reversed": "http://a]b[/mcp",
    "port-out-of-range": "http://127.0.0.1:99999/mcp",
    "crlf-in-path": "http://127.0.0.1:1/\r\nX-Injected: 1",
    "escape-in-path": "http://127.0.0.1:1/\x1b]8;;x\x07",
    "non-ascii-path": "http://127.0.0.1:1/é",
    "space-in-host": "http://127.0.0.1 /mcp",
}
COMMANDS = {
    "probe": ["probe", "--timeout", "1", "--url"],
    "record": ["record", "-q", "--http-upstream"],
    "tools-lock": ["tools", "lock", "--timeout", "1", "--url"],
}


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    return lines[0]


@pytest.mark.parametrize("url", UNSENDABLE.values(), ids=UNSENDABLE.keys())
@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_url_http_cannot_send_is_one_error_line(tmp_path: Path, command: list[str], url: str) -> None:
    """Each command that takes a URL refuses it before any connection, in one escaped line."""
    output = ["-o", str(tmp_path / "out.jsonl")] if command[0] != "probe" else []
    result = run(*command, url, *output)
    assert_clean_run(result, codes=[2])
    assert "--url" in one_error_line(result.stderr) or "--http-upstream" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("url", UNSENDABLE.values(), ids=UNSENDABLE.keys())
def test_replay_of_an_http_transcript_whose_recorded_upstream_cannot_be_sent_is_one_error_line(
    tmp_path: Path, url: str
) -> None:
    """The upstream URL a transcript's header names is the recording's text: refused as --http-upstream
    would be, with one line, before anything runs."""
    body = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: {len(body)}\r\n\r\n"
    lines = [
        json.dumps({"t": 0.1, "ch": "http-in", "x": 1, "data": head + body}),
        json.dumps({"t": 0.1, "ch": "in", "x": 1, "data": body + "\n"}),
        json.dumps({"t": 0.2, "ch": "eof", "of": "http-in"}),
    ]
    tape = write(
        tmp_path / "h.jsonl", lines, {**HEADER, "command": [], "http": {"upstream": url, "listen": url}}
    )
    result = run("replay", str(tape), "--step-timeout", "1", "--no-config")
    assert_clean_run(result, codes=[2])
    assert "--http-upstream" in one_error_line(result.stderr)


def test_tools_lock_url_never_shows_the_password_it_carries(tmp_path: Path) -> None:
    """A --url with user:password@ that cannot be reached is one line naming the URL, its
    credentials masked (they were shown as given)."""
    result = run("tools", "lock", "--timeout", "1", "--url", "http://me:S3cretPw@127.0.0.1:1/mcp")
    assert_clean_run(result, codes=[2])
    assert "S3cretPw" not in result.stderr and "http://***@127.0.0.1:1/mcp" in one_error_line(result.stderr)


@pytest.mark.parametrize("url", ["http://me:S3cretPw@127.0.0.1:1/mcp", "http://:S3cretPw@127.0.0.1:1/m@cp"])
def test_probe_url_with_a_password_is_refused_without_showing_it(tmp_path: Path, url: str) -> None:
    """probe --url with user:password@ (which the probe never sends) is one line, before the progress
    line, the credentials masked: the progress and error lines showed them as given."""
    result = run("probe", "--timeout", "1", "--url", url, "-o", str(tmp_path / "out"))
    assert_clean_run(result, codes=[2])
    line = one_error_line(result.stderr)
    assert "S3cretPw" not in result.stderr and "http://***@127.0.0.1:1/m" in line
