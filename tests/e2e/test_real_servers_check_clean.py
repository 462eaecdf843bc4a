"""Must show: sessions of six real servers, driven by the official SDK client through the installed
`mcptape record` (mcp-server-fetch with `--http-sink`), each with arguments the client got wrong on
purpose and the server refused, check with no error and no warning: the refused arguments are
`info` (the client's mistake, handled well), and `mcptape check` exits 0.

The servers: mcp-server-time, mcp-server-git and mcp-server-fetch (Python SDK, 2026-07-28 after
`server/discover`), and server-memory, server-filesystem and server-everything (TypeScript SDK,
the initialize handshake after the SDK client's discover fallback).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Severity
from mcptape.commands.check import check_command
from mcptape.transcript import open_transcript
from tests.clients import recorded
from tests.conftest import NODE_DIR, server_everything

BIN = Path(sys.executable).parent
PACKAGES = NODE_DIR / "node_modules" / "@modelcontextprotocol"
Call = tuple[str, dict[str, Any]]


def _node(package: str, *args: str) -> list[str]:
    return [*server_everything()[:1], str(PACKAGES / package / "dist" / "index.js"), *args]


def _repository(path: Path) -> Path:
    git = ["git", "-C", str(path), "-c", "user.email=t@example.test", "-c", "user.name=t"]
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    return path


def _server(name: str, tmp: Path) -> tuple[list[str], list[str], list[Call], list[Call]]:
    """The command, `mcptape record`'s extra options, good calls and wrong ones for `name`."""
    if name == "mcp-server-time":
        good: list[Call] = [("get_current_time", {"timezone": "UTC"})]
        wrong: list[Call] = [
            ("get_current_time", {"timezone": 5}),
            ("convert_time", {"source_timezone": "UTC"}),
        ]
        return [str(BIN / "mcp-server-time")], [], good, wrong
    if name == "mcp-server-git":
        repo = _repository(tmp / "repo")
        good = [("git_status", {"repo_path": str(repo)}), ("git_log", {"repo_path": str(repo)})]
        wrong = [("git_status", {}), ("git_log", {"repo_path": str(repo), "max_count": "many"})]
        return [str(BIN / "mcp-server-git"), "--repository", str(repo)], [], good, wrong
    if name == "mcp-server-fetch":
        # readabilipy runs `npm install` when node is on PATH: `--stub node`, as test_fetch_cassette.py does.
        extra = ["--http-sink", "--stub", "node"]
        good = [("fetch", {"url": "http://example.test/page"})]
        return [str(BIN / "mcp-server-fetch")], extra, good, [("fetch", {"url": 5}), ("fetch", {})]
    if name == "server-memory":
        entity = {"name": "a", "entityType": "t", "observations": ["x"]}
        good = [("create_entities", {"entities": [entity]}), ("read_graph", {})]
        return _node("server-memory"), [], good, [("create_entities", {"entities": "x"})]
    if name == "server-filesystem":
        files = tmp / "files"
        files.mkdir()
        (files / "hello.txt").write_text("hello\n")
        good = [("read_text_file", {"path": str(files / "hello.txt")})]
        wrong = [("read_text_file", {}), ("list_directory", {"path": 7})]
        return _node("server-filesystem", str(files)), [], good, wrong
    assert name == "server-everything"
    good = [("echo", {"message": "hi"}), ("get-sum", {"a": 1, "b": 2})]
    return server_everything(), [], good, [("echo", {}), ("get-sum", {"a": "x", "b": 2})]


def _session(name: str, tmp: Path) -> tuple[Path, dict[str, bool]]:
    """Record one SDK client session; {call: is_error} for every call made."""
    command, extra, good, wrong = _server(name, tmp)
    path = tmp / f"{name}.jsonl"
    argv = recorded(command, path, *extra)
    env = {**os.environ, "MEMORY_FILE_PATH": str(tmp / "memory.json")}
    errors: dict[str, bool] = {}

    async def main() -> None:
        with anyio.fail_after(60):
            async with Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env)) as client:
                await client.list_tools()
                for tool, arguments in [*good, *wrong]:
                    result = await client.call_tool(tool, arguments)
                    errors[f"{tool} {arguments}"] = result.is_error

    anyio.run(main)
    assert list(errors.values()) == [False] * len(good) + [True] * len(wrong), errors
    return path, errors


SERVERS = [
    pytest.param("mcp-server-time"),
    pytest.param("mcp-server-git"),
    pytest.param("mcp-server-fetch"),
    pytest.param("server-memory", marks=pytest.mark.node),
    pytest.param("server-filesystem", marks=pytest.mark.node),
    pytest.param("server-everything", marks=pytest.mark.node),
]


@pytest.mark.parametrize("name", SERVERS)
def test_a_real_server_refusing_wrong_arguments_checks_with_no_error_or_warning(
    name: str, tmp_path: Path
) -> None:
    """The good calls succeed, the wrong ones are refused; check: only info findings, exit 0."""
    path, errors = _session(name, tmp_path)
    _, analysis = analyze_file(str(path))
    loud = [
        (f.rule, f.severity.value, f.message) for f in analysis.findings if f.severity is not Severity.INFO
    ]
    assert loud == []
    infos = [(f.rule, f.party) for f in analysis.findings]
    assert infos and set(infos) == {("schema-violation", "client")}  # at least one wrong call is outside
    assert analysis.rejects >= sum(errors.values())
    result = CliRunner().invoke(check_command, [str(path)])
    assert result.exit_code == 0, result.output
    assert analysis.exited  # the recording is whole
    if name == "mcp-server-fetch":  # the sink saw the fetch (robots.txt, then the page), all answered
        http = [e for e in open_transcript(path).events() if e.ch == "http"]
        assert len(http) >= 1 and analysis.exec_calls == len(http)
