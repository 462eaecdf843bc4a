"""Bad and hostile input to `tools lock` and `tools diff`: one `Error:` line on stderr and exit 2,
or a clean verdict; never a traceback, and never a raw control character on the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.jsonsafe import dumps
from tests.surface.support import tools

HEADER = {
    "mcptape": 1,
    "started": "2026-12-04T00:00:00Z",
    "command": ["server"],
    "cwd": "/",
    "recorder": {"name": "mcptape", "version": "0"},
}
INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "s", "version": "1"},
}


def transcript(path: Path, exchanges: list[tuple[str, Any]]) -> Path:
    """A transcript where the client asks each method and the server answers each result."""
    lines = [json.dumps(HEADER)]
    t = 0.0
    for rid, (method, result) in enumerate([("initialize", INIT), *exchanges], 1):
        request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {}}
        answer = {"jsonrpc": "2.0", "id": rid, "result": result}
        for ch, message in (("in", request), ("out", answer)):
            t += 0.01
            lines.append(json.dumps({"t": t, "ch": ch, "data": dumps(message) + "\n"}))
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_one_error(result: Any, words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_a_transcript_without_tools_list_is_one_error(tmp_path: Path) -> None:
    """A session whose client never listed the tools holds no surface: exit 2."""
    path = transcript(tmp_path / "s.jsonl", [("ping", {})])
    assert_one_error(tools("lock", str(path)), "holds no answer to tools/list")
    assert_one_error(tools("diff", str(path), str(path)), "holds no answer to tools/list")


@pytest.fixture
def lock(tmp_path: Path) -> Path:
    path = transcript(
        tmp_path / "s.jsonl", [("tools/list", {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})]
    )
    result = tools("lock", str(path), "-o", str(tmp_path / "tools.lock.json"))
    assert result.returncode == 0, result.stderr
    return tmp_path / "tools.lock.json"


def test_a_lock_of_another_format_version_is_one_error(lock: Path) -> None:
    """A lock written by a future mcptape is refused with the version it has."""
    document = orjson.loads(lock.read_bytes())
    document["mcptapeToolsLock"] = 2
    lock.write_bytes(orjson.dumps(document))
    assert_one_error(tools("diff", str(lock), str(lock)), "a tools lock of format 2")


def test_a_truncated_lock_is_one_error(lock: Path) -> None:
    """A lock cut short (a failed write, a bad merge) is refused, saying it ends early."""
    data = lock.read_bytes()
    lock.write_bytes(data[: len(data) // 2])
    assert_one_error(tools("diff", str(lock), str(lock)), "truncated")


def test_a_lock_edited_by_hand_is_one_error(lock: Path) -> None:
    """A definition edited without its hash no longer matches it: refused, never trusted."""
    document = orjson.loads(lock.read_bytes())
    document["tools"][0]["description"] = "edited"
    lock.write_bytes(orjson.dumps(document))
    assert_one_error(tools("diff", str(lock), str(lock)), "does not match its definition")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"hello\n", "neither a tools lock nor an mcptape transcript"),
        (b"", "is empty"),
        (None, "does not exist"),
    ],
    ids=["text", "empty", "missing"],
)
def test_a_file_that_is_neither_is_one_error(
    tmp_path: Path, lock: Path, content: bytes | None, words: str
) -> None:
    """Anything else as BASE or NEW: one line naming it."""
    other = tmp_path / "other"
    if content is not None:
        other.write_bytes(content)
    assert_one_error(tools("diff", str(lock), str(other)), words)


@pytest.mark.parametrize(
    "args",
    [[], ["a.jsonl", "--url", "http://127.0.0.1:1/mcp"], ["--record", "x.jsonl", "a.jsonl"]],
    ids=["no source", "two sources", "record without a command"],
)
def test_usage_errors_are_one_line(args: list[str], tmp_path: Path) -> None:
    """tools lock takes exactly one source; --record only with a command."""
    result = tools("lock", *args, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("Error: ") and "Traceback" not in result.stderr


def test_a_missing_server_executable_is_one_error(tmp_path: Path) -> None:
    """A command that cannot be started: exit 2, one line."""
    result = tools("lock", "--", str(tmp_path / "no-such-server"))
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.startswith("Error: ")


def test_an_accept_file_that_is_not_one_is_one_error(lock: Path, tmp_path: Path) -> None:
    """--accept must be JSON listing changes."""
    bad = tmp_path / "accept.json"
    bad.write_text('{"accepted": [{"path": 5}]}')
    assert_one_error(tools("diff", str(lock), str(lock), "--accept", str(bad)), "entry 0")


def _deep(levels: int, leaf: Any) -> Any:
    for _ in range(levels):
        leaf = {"type": "object", "properties": {"n": leaf}}
    return leaf


def test_odd_types_in_tools_list_give_notes_and_a_clean_lock(tmp_path: Path) -> None:
    """Items that are not tools, a name that is not a string, a name listed twice and a schema 800
    levels deep: the readable tools are locked, the rest is noted on stderr, exit 0."""
    listed = [
        5,
        {"name": 7},
        {"name": "deep", "inputSchema": _deep(400, {"type": "string"})},
        {"name": "deep", "description": "again"},
        {"name": "esc\x1b]0;pwned\x07", "description": "\u202eevil\x1b[2J"},
    ]
    path = transcript(tmp_path / "s.jsonl", [("tools/list", {"tools": listed})])
    result = tools("lock", str(path))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "item 0 is not an object with a string name" in result.stderr
    assert "item 1 is not an object" in result.stderr
    assert "listed twice" in result.stderr
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout and "\x1b" not in result.stderr
    names = [tool["name"] for tool in orjson.loads(result.stdout)["tools"]]
    assert names == ["deep", "esc\x1b]0;pwned\x07"]


def test_a_tools_member_that_is_not_an_array_is_a_clean_verdict(tmp_path: Path) -> None:
    """`tools: "x"` lists no tool (noted); a result that is not an object lists nothing (exit 2)."""
    odd = transcript(tmp_path / "odd.jsonl", [("tools/list", {"tools": "x"})])
    result = tools("lock", str(odd))
    assert result.returncode == 0 and "tools is not an array" in result.stderr
    assert orjson.loads(result.stdout)["tools"] == []
    scalar = transcript(tmp_path / "scalar.jsonl", [("tools/list", 5)])
    assert_one_error_or_notes = tools("lock", str(scalar))
    assert assert_one_error_or_notes.returncode == 2 and "Traceback" not in assert_one_error_or_notes.stderr


def test_hostile_names_and_deep_schemas_diff_cleanly(tmp_path: Path) -> None:
    """A diff of two hostile listings prints escaped names and a "could not compare" for the deep
    schema, exit 1, no traceback."""
    old = transcript(
        tmp_path / "a.jsonl",
        [("tools/list", {"tools": [{"name": "x\x1b[31m", "inputSchema": _deep(300, {"type": "string"})}]})],
    )
    new = transcript(
        tmp_path / "b.jsonl",
        [("tools/list", {"tools": [{"name": "x\x1b[31m", "inputSchema": _deep(300, {"type": "integer"})}]})],
    )
    result = tools("diff", str(old), str(new))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "\x1b" not in result.stdout
    assert (
        "tool x\\x1b[31m" in result.stdout
        and "could not compare: the old schema cannot be judged (nested deeper than" in result.stdout
    )


def test_a_json_object_that_is_not_a_lock_says_so(tmp_path: Path) -> None:
    """A JSON file of something else is named as not a tools lock (no lock key)."""
    other = tmp_path / "package.json"
    other.write_text('{"name": "x"}')
    assert_one_error(
        tools("diff", str(other), str(other)), "is not a tools lock (no mcptapeToolsLock member)"
    )


def test_a_lock_whose_instructions_are_long_is_still_a_lock(tmp_path: Path) -> None:
    """The lock key sorts after `instructions`: a server with 64 KiB of instructions still locks
    and reads back."""
    init = {**INIT, "instructions": "Use the tools well. " * 3300}
    lines = [json.dumps(HEADER)]
    for t, (ch, message) in enumerate(
        [
            ("in", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
            ("out", {"jsonrpc": "2.0", "id": 1, "result": init}),
            ("in", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
            ("out", {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
        ]
    ):
        lines.append(json.dumps({"t": t / 10, "ch": ch, "data": json.dumps(message) + "\n"}))
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(lines) + "\n")
    assert tools("lock", str(session), "-o", str(tmp_path / "l.json")).returncode == 0
    result = tools("diff", str(tmp_path / "l.json"), str(session))
    assert result.returncode == 0 and "no change" in result.stdout, result.stderr


def test_an_unreachable_url_is_one_error() -> None:
    """Nothing listening at --url: one line naming it, exit 2."""
    from tests.recorder.http.helpers import refused_port

    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/mcp"
        assert_one_error(tools("lock", "--url", url), f"cannot reach {url}")
    assert_one_error(tools("lock", "--url", "ftp://example.invalid/mcp"), "is not an http:// or https:// URL")


def test_an_http_server_that_is_not_mcp_is_one_error(tmp_path: Path) -> None:
    """A web server answering 404 to the POST: one line with its status, exit 2."""
    import subprocess

    from tests.conftest import PYTHON
    from tests.recorder.http.helpers import free_port, wait_accepting

    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_accepting(port)
        assert_one_error(tools("lock", "--url", f"http://127.0.0.1:{port}/mcp"), "answered HTTP 501")
    finally:
        server.terminate()
        server.wait(30)
