"""Where each MCP client keeps its server list, and under which key.

Pure: the finder is given the working directory, the home directory, the platform and the
environment, and a function that says whether a path is a file, so tests need no real home.

- Claude Desktop: `claude_desktop_config.json` in `~/Library/Application Support/Claude/` (macOS),
  `%APPDATA%\\Claude\\` (Windows), `~/.config/Claude/` (Linux); servers under `mcpServers`.
- Claude Code: `.mcp.json` at the project's root (the working directory or a parent); `mcpServers`.
- VS Code: `.vscode/mcp.json` in the workspace (the working directory or a parent), JSONC; `servers`.
- Cursor: `.cursor/mcp.json` in the project, else `~/.cursor/mcp.json`; `mcpServers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True)
class Client:
    """One client: its name on the command line, its label, and the key its servers live under."""

    name: str
    label: str
    key: str


CLIENTS: dict[str, Client] = {
    "claude-desktop": Client("claude-desktop", "Claude Desktop", "mcpServers"),
    "claude-code": Client("claude-code", "Claude Code", "mcpServers"),
    "vscode": Client("vscode", "VS Code", "servers"),
    "cursor": Client("cursor", "Cursor", "mcpServers"),
}

# Where a project-scoped client's file sits under a project directory.
_PROJECT_FILES = {
    "claude-code": (".mcp.json",),
    "vscode": (".vscode", "mcp.json"),
    "cursor": (".cursor", "mcp.json"),
}


@dataclass(frozen=True)
class Place:
    """Where to look: the working directory, home, `sys.platform` and the environment."""

    cwd: PurePath
    home: PurePath
    platform: str
    environ: Mapping[str, str]


def candidates(client: str, place: Place) -> list[PurePath]:
    """Every path `client` may read its servers from, most specific first."""
    if client == "claude-desktop":
        if place.platform == "darwin":
            return [place.home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"]
        if place.platform.startswith("win"):
            appdata = place.environ.get("APPDATA")
            base = type(place.home)(appdata) if appdata else place.home / "AppData" / "Roaming"
            return [base / "Claude" / "claude_desktop_config.json"]
        config = place.environ.get("XDG_CONFIG_HOME")
        base = type(place.home)(config) if config else place.home / ".config"
        return [base / "Claude" / "claude_desktop_config.json"]
    parts = _PROJECT_FILES[client]
    found = [folder.joinpath(*parts) for folder in (place.cwd, *place.cwd.parents)]
    if client == "cursor":
        found.append(place.home / ".cursor" / "mcp.json")
    return found


def find(client: str, place: Place, is_file: Callable[[PurePath], bool]) -> PurePath | None:
    """The first existing candidate file of `client`, or None."""
    for path in candidates(client, place):
        if is_file(path):
            return path
    return None


def guess_client(path: PurePath) -> str | None:
    """The client a config file belongs to, from its name and folder (None: unknown)."""
    if path.name == "claude_desktop_config.json":
        return "claude-desktop"
    if path.name == ".mcp.json":
        return "claude-code"
    if path.name == "mcp.json" and path.parent.name == ".vscode":
        return "vscode"
    if path.name == "mcp.json" and path.parent.name == ".cursor":
        return "cursor"
    return None
