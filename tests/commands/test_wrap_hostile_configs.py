"""`mcptape wrap` reads an MCP client's config, which anyone may have edited: an `args` of any JSON
type is no already-wrapped entry (it was a TypeError), and what the file names (a url, a server
name) is shown with its control characters escaped, in the diff and in every line after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.commands.tapes import unsafe_chars
from tests.inprocess import run


@pytest.mark.parametrize(
    "args", [{"a": 1}, True, 5, "-m mcptape record"], ids=["object", "bool", "number", "string"]
)
def test_args_of_any_type_is_one_error_or_a_wrap(tmp_path: Path, args: Any) -> None:
    """A stdio entry whose args is not a list: wrap says it cannot wrap it (one line), never a
    traceback, and the file is unchanged."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": "uvx", "args": args}}}))
    before = config.read_bytes()
    result = run("wrap", config, "-o", tmp_path / "tapes/", text=True)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2 and result.stderr.startswith("Error: "), result.stdout + result.stderr
    assert "not a list" in result.stderr and result.stderr.count("\n") == 1
    assert config.read_bytes() == before


def test_a_url_holding_escape_sequences_is_shown_escaped(tmp_path: Path) -> None:
    """An HTTP entry's url with an OSC title sequence and a bell, wrapped with --listen: the
    lines that name the new url and the proxy's command show them escaped."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"remote\x1b[2J": {"url": "http://h/\x1b]0;x\x07"}}}))
    result = run(
        "wrap", config, "remote\x1b[2J", "--listen", "127.0.0.1:8765", "-o", tmp_path / "t/", text=True
    )
    assert result.returncode == 0, result.stderr
    assert "before starting the client, run:" in result.stdout
    assert unsafe_chars(result.stdout) == [] and unsafe_chars(result.stderr) == [], result.stdout


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"\xff\xfe", "is not UTF-8"), (b"[" * 100_000 + b"]" * 100_000, "is not JSON")],
    ids=["not UTF-8", "nested 100,000 deep"],
)
@pytest.mark.parametrize("command", ["wrap", "unwrap"])
def test_a_damaged_wrap_records_file_is_one_error(
    tmp_path: Path, content: bytes, words: str, command: str
) -> None:
    """The records wrap keeps for unwrap, damaged (bytes that are not UTF-8, JSON nested deeper
    than Python's recursion): one line naming it, the config unchanged."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": "uvx", "args": ["x"]}}}))
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    assert run("wrap", config, "-o", tmp_path / "t/", env=env).returncode == 0
    [kept] = (tmp_path / "state").rglob("*.json")
    kept.write_bytes(content)
    before = config.read_bytes()
    result = (
        run(command, config, "-o", tmp_path / "t/", env=env, text=True)
        if command == "wrap"
        else run(command, config, env=env, text=True)
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert f"the wrap records file {words}" in result.stderr
    assert config.read_bytes() == before
