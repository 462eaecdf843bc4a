"""A transcript's default name says which server it belongs to, when, and is unique."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from mcptape.recorder.naming import TemplateError, check_template, render_name, server_slug
from mcptape.recorder.paths import open_recording


@pytest.mark.parametrize(
    ("command", "slug"),
    [
        (["uvx", "mcp-server-time"], "mcp-server-time"),
        (["npx", "-y", "@modelcontextprotocol/server-everything"], "server-everything"),
        (["python", "-m", "my_server"], "my_server"),
        (["/usr/bin/python3.11", "-u", "-m", "acme.mcp"], "acme.mcp"),
        (["docker", "run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/acme/srv:1.2"], "srv"),
        (["podman", "run", "--platform", "linux/amd64", "--mount", "type=bind,dst=/b", "acme/srv"], "srv"),
        (
            ["node", "/w/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
            "server-everything",
        ),
        (["uv", "tool", "run", "mcp-server-fetch"], "mcp-server-fetch"),
        (["uv", "run", "--with", "httpx", "tools/weather.py"], "weather"),
        (["env", "DEBUG=1", "./bin/My Server!"], "my-server"),
        (["/home/me/.venv/bin/mcp-server-git", "--repository", "."], "mcp-server-git"),
        ([], "server"),
    ],
)
def test_the_server_slug_skips_launchers_and_keeps_the_servers_name(command: list[str], slug: str) -> None:
    """uvx/npx/python -m/docker run/node are launchers: the slug is the server they launch."""
    assert server_slug(command) == slug


def test_the_default_name_has_the_slug_the_time_and_a_unique_suffix() -> None:
    """`mcptape-{server}-{time}-{unique}.jsonl`: sortable per server, then by time."""
    name = render_name(None, ["uvx", "mcp-server-time"], now=1_800_000_000.0, suffix="9f3a1c")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(1_800_000_000.0))
    assert name == f"mcptape-mcp-server-time-{stamp}-9f3a1c.jsonl"


@pytest.mark.parametrize("template", ["a/{server}.jsonl", "{server}-{nope}.jsonl", "{server", "", ".."])
def test_a_template_that_is_not_a_file_name_with_known_fields_is_refused(template: str) -> None:
    """A path, an unknown field or an unclosed brace: refused before the server starts."""
    with pytest.raises(TemplateError):
        check_template(template)


def test_a_missing_directory_is_made_0700_and_the_template_followed(tmp_path: Path) -> None:
    """`-o DIR/` that does not exist yet: made (mode 0700, parents too), the file named by the template."""
    folder = tmp_path / "a" / "tapes"
    path, fd = open_recording(
        f"{folder}/", command=["uvx", "mcp-server-time"], template="{server}-{date}.jsonl"
    )
    os.close(fd)
    assert Path(path).parent == folder and Path(path).name.startswith("mcp-server-time-")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_template_without_unique_gets_a_suffix_when_its_name_is_taken(tmp_path: Path) -> None:
    """Two sessions with `--name '{server}.jsonl'`: the second gets a random suffix, never the first file."""
    first, fd1 = open_recording(f"{tmp_path}/", command=["srv"], template="{server}.jsonl")
    second, fd2 = open_recording(f"{tmp_path}/", command=["srv"], template="{server}.jsonl")
    os.close(fd1)
    os.close(fd2)
    assert Path(first).name == "srv.jsonl"
    assert Path(second).name.startswith("srv-") and Path(second).name.endswith(".jsonl")
