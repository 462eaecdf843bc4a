"""`mcptape wrap` / `unwrap` on real files, run as a user runs them, and a wrapped server started
from the config by the official SDK client."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mcptape.transcript.reader import open_transcript
from tests.conftest import PYTHON, SERVERS, console_script


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    env.pop("MCPTAPE_DIR", None)
    return subprocess.run(
        [console_script(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _project(tmp_path: Path, text: str, name: str = ".mcp.json") -> Path:
    project = tmp_path / "project"
    config = project / name
    config.parent.mkdir(parents=True)
    config.write_text(text, encoding="utf-8")
    return config


def test_a_wrapped_server_started_from_the_config_is_recorded_and_unwrap_restores_the_file_bytes(
    tmp_path: Path,
) -> None:
    """wrap puts mcptape record in the entry; the SDK client starting that entry's command gets a
    working server and a transcript of the session appears; unwrap gives back the exact bytes."""
    server = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]
    original = json.dumps(
        {"mcpServers": {"echo": {"command": server[0], "args": server[1:], "env": {"ECHO_FLAG": "on"}}}},
        indent=2,
    )
    config = _project(tmp_path, original + "\n")
    tapes = tmp_path / "tapes"
    wrapped = _run(["wrap", "-o", f"{tapes}/"], config.parent, tmp_path)
    assert wrapped.returncode == 0, wrapped.stderr
    assert '+      "command": ' in wrapped.stdout and "echo: wrapped (stdio)" in wrapped.stdout
    assert (config.parent / ".mcp.json.mcptape-backup").read_text(encoding="utf-8") == original + "\n"
    entry = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]["echo"]
    assert entry["command"] == console_script()
    assert entry["env"] == {"ECHO_FLAG": "on"}

    async def session() -> list[str]:
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"])
        with anyio.fail_after(60):
            async with Client(params) as client:
                return sorted(tool.name for tool in (await client.list_tools()).tools)

    assert anyio.run(session) == ["add", "echo"]
    [transcript] = tapes.glob("*.jsonl")
    recording = open_transcript(transcript)
    assert recording.header.command == server
    assert any(event.ch == "out" and b'"tools"' in event.data for event in recording.events())

    unwrapped = _run(["unwrap"], config.parent, tmp_path)
    assert unwrapped.returncode == 0, unwrapped.stderr
    assert "echo: restored exactly as it was" in unwrapped.stdout
    assert config.read_bytes() == (original + "\n").encode()
    assert not list((tmp_path / "state").rglob("*.json")), "the wrap records are gone once all is undone"


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    """--dry-run prints the unified diff and leaves the file, backup and records untouched."""
    fixture = Path(__file__).parents[1] / "clientconfig" / "fixtures" / "vscode.mcp.json"
    config = _project(tmp_path, fixture.read_text(encoding="utf-8"), ".vscode/mcp.json")
    result = _run(["wrap", "--dry-run", "fetch"], config.parent.parent, tmp_path)
    assert result.returncode == 0, result.stderr
    assert '-      "command": "uvx",' in result.stdout
    assert "dry run: nothing written" in result.stdout
    assert config.read_bytes() == fixture.read_bytes()
    assert sorted(p.name for p in config.parent.iterdir()) == ["mcp.json"]
    assert not (tmp_path / "state").exists()


def test_a_file_that_is_not_json_is_refused_in_one_line_and_left_unchanged(tmp_path: Path) -> None:
    """An unparseable config: one Error line with where it breaks, exit 2, no byte written."""
    config = _project(tmp_path, '{"mcpServers": {"s": {"command": "x",}}, oops}\n')
    result = _run(["wrap", str(config)], tmp_path, tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"Error: {config}: not JSON (nor JSON with comments): line 1, column 42")
    assert result.stderr.count("\n") == 1
    assert config.read_text(encoding="utf-8") == '{"mcpServers": {"s": {"command": "x",}}, oops}\n'


def test_wrap_without_a_config_anywhere_says_where_to_point_it(tmp_path: Path) -> None:
    """No client config here or in home: exit 2 and a line naming the way out."""
    (tmp_path / "empty").mkdir()
    result = _run(["wrap"], tmp_path / "empty", tmp_path)
    assert result.returncode == 2
    assert "no MCP client config found" in result.stderr and "--client" in result.stderr


def test_wrap_with_two_clients_configs_in_reach_asks_which(tmp_path: Path) -> None:
    """A project with both .mcp.json and .cursor/mcp.json is not guessed at: exit 2, both named."""
    config = _project(tmp_path, '{"mcpServers": {}}\n')
    (config.parent / ".cursor").mkdir()
    (config.parent / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}\n', encoding="utf-8")
    result = _run(["wrap"], config.parent, tmp_path)
    assert result.returncode == 2
    assert "claude-code" in result.stderr and "cursor" in result.stderr


def test_unwrap_of_a_file_wrap_never_changed_is_refused(tmp_path: Path) -> None:
    """unwrap without a record of wrap for this file: exit 2, nothing written."""
    config = _project(tmp_path, '{"mcpServers": {"s": {"command": "x"}}}\n')
    result = _run(["unwrap", "--client", "claude-code"], config.parent, tmp_path)
    assert result.returncode == 2
    assert "has no record of changing this file" in result.stderr


def test_a_symlinked_config_stays_a_link_and_its_target_is_changed(tmp_path: Path) -> None:
    """A config kept as a symlink into a dotfiles folder: wrap and unwrap write the file it points
    to, and the link stays a link."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "mcp.json"
    original = '{"mcpServers": {"s": {"command": "srv"}}}\n'
    target.write_text(original)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").symlink_to(target)
    assert _run(["wrap", "-o", f"{tmp_path}/tapes/"], project, tmp_path).returncode == 0
    assert (project / ".mcp.json").is_symlink()
    assert '"record"' in target.read_text()
    assert _run(["unwrap"], project, tmp_path).returncode == 0
    assert (project / ".mcp.json").is_symlink() and target.read_text() == original
