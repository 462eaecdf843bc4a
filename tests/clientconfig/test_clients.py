"""Where each client's config is looked for, on each platform, from a project's subfolder."""

from __future__ import annotations

from pathlib import PurePath, PurePosixPath, PureWindowsPath

import pytest

from mcptape.clientconfig import clients


def _place(platform: str, **environ: str) -> clients.Place:
    if platform.startswith("win"):
        return clients.Place(
            PureWindowsPath("C:/work/app"), PureWindowsPath("C:/Users/me"), platform, environ
        )
    return clients.Place(PurePosixPath("/work/app/src"), PurePosixPath("/home/me"), platform, environ)


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("darwin", {}, "/home/me/Library/Application Support/Claude/claude_desktop_config.json"),
        ("linux", {}, "/home/me/.config/Claude/claude_desktop_config.json"),
        ("linux", {"XDG_CONFIG_HOME": "/xdg"}, "/xdg/Claude/claude_desktop_config.json"),
        ("win32", {"APPDATA": "D:/Roaming"}, "D:/Roaming/Claude/claude_desktop_config.json"),
    ],
)
def test_claude_desktops_config_is_where_its_documentation_says_per_platform(
    platform: str, environ: dict[str, str], expected: str
) -> None:
    """Claude Desktop's one config file: macOS Application Support, %APPDATA% on Windows, XDG on Linux."""
    [path] = clients.candidates("claude-desktop", _place(platform, **environ))
    assert path.as_posix() == expected


@pytest.mark.parametrize(
    ("client", "nearest"),
    [("claude-code", "/work/app/.mcp.json"), ("vscode", "/work/app/.vscode/mcp.json")],
)
def test_a_project_config_is_found_from_a_subfolder_of_the_project(client: str, nearest: str) -> None:
    """Project-scoped configs are looked for in the working directory, then each parent."""
    found = clients.find(client, _place("linux"), lambda p: p.as_posix() == nearest)
    assert found is not None and found.as_posix() == nearest


def test_cursor_falls_back_to_its_global_config_in_home() -> None:
    """Without a project's .cursor/mcp.json, Cursor's global ~/.cursor/mcp.json is the one."""
    found = clients.find("cursor", _place("linux"), lambda p: p.as_posix() == "/home/me/.cursor/mcp.json")
    assert found == PurePosixPath("/home/me/.cursor/mcp.json")


@pytest.mark.parametrize(
    ("path", "client"),
    [
        ("/x/claude_desktop_config.json", "claude-desktop"),
        ("/p/.mcp.json", "claude-code"),
        ("/p/.vscode/mcp.json", "vscode"),
        ("/p/.cursor/mcp.json", "cursor"),
        ("/p/servers.json", None),
    ],
)
def test_a_file_given_by_path_is_recognised_by_its_name(path: str, client: str | None) -> None:
    """A path given on the command line tells its client (and so the key) by its name and folder."""
    assert clients.guess_client(PurePath(path)) == client
