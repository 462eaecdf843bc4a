"""wrap and unwrap as text transformations of the configs each client's documentation shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcptape.clientconfig import jsonc, plan
from mcptape.clientconfig.transform import ConfigError

FIXTURES = Path(__file__).parent / "fixtures"
LAUNCHER = ["/opt/bin/mcptape"]
OUT = "/tapes/"
LISTEN_OUT = ["--listen", "127.0.0.1:8765", "-o", OUT]

DOCUMENTED = [
    ("claude_desktop_config.json", "mcpServers"),
    ("claude_code.mcp.json", "mcpServers"),
    ("vscode.mcp.json", "servers"),
    ("cursor.mcp.json", "mcpServers"),
]


def _wrap(text: str, key: str | None = "mcpServers", *names: str, listen: str | None = None) -> plan.Outcome:
    return plan.wrap(text, client_key=key, names=names, launcher=LAUNCHER, out_dir=OUT, listen=listen)


def _servers(text: str, key: str = "mcpServers") -> dict[str, dict[str, object]]:
    doc = jsonc.parse(text)
    value = doc.root.value(text)
    assert isinstance(value, dict)
    servers = value[key]
    assert isinstance(servers, dict)
    return servers


@pytest.mark.parametrize(("name", "key"), DOCUMENTED)
def test_each_clients_documented_config_wraps_every_stdio_server_and_unwraps_byte_identical(
    name: str, key: str
) -> None:
    """Every stdio server of a documented config runs through `mcptape record -o DIR/ --` with its
    own command and arguments after `--`, and unwrap gives back the file's exact bytes."""
    original = (FIXTURES / name).read_text(encoding="utf-8")
    before = _servers(original, key)
    outcome = _wrap(original, key)
    after = _servers(outcome.text, key)
    stdio = [n for n, entry in before.items() if "command" in entry]
    assert stdio and sorted(outcome.changed) == sorted(stdio)
    for server in stdio:
        old, new = before[server], after[server]
        assert new["command"] == LAUNCHER[0]
        assert new["args"] == ["record", "-o", OUT, "--", old["command"], *old.get("args", [])]  # type: ignore[misc]
        assert {k: v for k, v in new.items() if k not in ("command", "args")} == {
            k: v for k, v in old.items() if k not in ("command", "args")
        }
    undone = plan.unwrap(outcome.text, client_key=key, names=[], records=outcome.changed)
    assert undone.text == original


def test_wrap_keeps_vs_code_comments_and_trailing_commas_byte_for_byte() -> None:
    """A JSONC config keeps every comment and the rest of its bytes: only command and args change."""
    original = (FIXTURES / "vscode.mcp.json").read_text(encoding="utf-8")
    wrapped = _wrap(original, "servers").text
    for comment in ("// 💡 Inputs are prompted", "// https://github.com/ppl-ai/", "/* no key needed */"):
        assert comment in wrapped
    changed = [line for line in wrapped.splitlines() if line not in original.splitlines()]
    assert len(changed) == 4 and all('"command"' in line or '"args"' in line for line in changed)


def test_an_entry_without_args_gets_them_after_its_command_and_loses_them_on_unwrap() -> None:
    """A server given only as a command gains an `args` member after `command`; unwrap removes it."""
    original = (
        '{\n  "mcpServers": {\n    "s": {\n      "command": "my-server",\n'
        '      "env": {"A": "1"}\n    }\n  }\n}\n'
    )
    outcome = _wrap(original)
    assert _servers(outcome.text)["s"] == {
        "command": LAUNCHER[0],
        "args": ["record", "-o", OUT, "--", "my-server"],
        "env": {"A": "1"},
    }
    assert (
        plan.unwrap(outcome.text, client_key="mcpServers", names=[], records=outcome.changed).text == original
    )


def test_unwrap_restores_the_entries_exactly_after_other_edits_to_the_file() -> None:
    """Servers added, removed or changed elsewhere after wrap stay as they are; the wrapped entry
    gets back its exact original bytes."""
    original = (FIXTURES / "cursor.mcp.json").read_text(encoding="utf-8")
    outcome = _wrap(original, "mcpServers", "server-name")
    edited = outcome.text.replace('"http://localhost:3000/mcp"', '"http://localhost:4000/mcp"').replace(
        '  "mcpServers": {\n', '  "mcpServers": {\n    "added": {"command": "new-server"},\n'
    )
    undone = plan.unwrap(edited, client_key="mcpServers", names=[], records=outcome.changed).text
    expected = original.replace('"http://localhost:3000/mcp"', '"http://localhost:4000/mcp"').replace(
        '  "mcpServers": {\n', '  "mcpServers": {\n    "added": {"command": "new-server"},\n'
    )
    assert undone == expected


def test_unwrap_of_an_entry_edited_since_wrap_keeps_that_edit_and_takes_out_only_what_wrap_put_in() -> None:
    """A variable added to a wrapped server's env survives unwrap; command and args are the original."""
    original = (FIXTURES / "claude_desktop_config.json").read_text(encoding="utf-8")
    outcome = _wrap(original)
    edited = outcome.text.replace("      ]\n    }", '      ],\n      "env": {"DEBUG": "1"}\n    }')
    undone = plan.unwrap(edited, client_key="mcpServers", names=[], records=outcome.changed)
    assert undone.text == original.replace("      ]\n    }", '      ],\n      "env": {"DEBUG": "1"}\n    }')
    assert "edited since wrap" in undone.lines[0]


def test_a_config_that_is_not_json_is_refused_with_its_line_and_column() -> None:
    """A broken file is refused, saying where it stops being JSON; nothing is produced."""
    with pytest.raises(ConfigError, match=r"not JSON \(nor JSON with comments\): line 3, column 5"):
        _wrap('{\n  "mcpServers": {\n    oops\n  }\n}\n')


def test_an_http_server_is_skipped_with_a_reason_unless_a_proxy_address_is_given() -> None:
    """Without --listen an HTTP entry is left alone and says why; with it, its url points at the
    proxy and the outcome names the `mcptape record --http-upstream` command to run."""
    original = (FIXTURES / "vscode.mcp.json").read_text(encoding="utf-8")
    skipped = _wrap(original, "servers")
    assert "github" not in skipped.changed
    assert any(line.startswith("github: not wrapped: an HTTP server") for line in skipped.lines)
    proxied = _wrap(original, "servers", "github", listen="127.0.0.1:8765")
    assert _servers(proxied.text, "servers")["github"]["url"] == "http://127.0.0.1:8765/mcp/"
    assert proxied.proxies == [
        [*LAUNCHER, "record", "--http-upstream", "https://api.githubcopilot.com/mcp/", *LISTEN_OUT]
    ]
    assert plan.unwrap(proxied.text, client_key="servers", names=[], records=proxied.changed).text == original


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"type": "sse", "url": "https://x.example/sse"}, "older HTTP+SSE transport"),
        ({"type": "http", "url": "${BASE}/mcp"}, "variable that only the client expands"),
        ({"disabled": True}, "neither a stdio command nor an HTTP url"),
    ],
)
def test_a_server_named_that_cannot_be_wrapped_is_an_error_saying_why(entry: object, reason: str) -> None:
    """Naming a server wrap cannot change fails with the reason, instead of changing something else."""
    text = json.dumps({"mcpServers": {"s": entry}}, indent=2)
    with pytest.raises(ConfigError, match=reason.replace("+", r"\+").replace("$", r"\$")):
        plan.wrap(text, client_key="mcpServers", names=["s"], launcher=LAUNCHER, out_dir=OUT, listen="h:1")


def test_wrapping_twice_leaves_a_wrapped_server_alone() -> None:
    """A second wrap changes nothing and says the server already runs through mcptape record."""
    once = _wrap((FIXTURES / "claude_desktop_config.json").read_text(encoding="utf-8"))
    twice = _wrap(once.text, "mcpServers", "filesystem")
    assert twice.text == once.text and not twice.changed
    assert twice.lines == ["filesystem: not wrapped: already runs through mcptape record"]


def test_an_unknown_server_name_lists_the_servers_there_are() -> None:
    """A typo in a server name is an error naming the servers the file has."""
    original = (FIXTURES / "cursor.mcp.json").read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no server named nope .*servers: server-name, remote-server"):
        _wrap(original, "mcpServers", "nope")


def test_a_file_with_windows_line_endings_keeps_them() -> None:
    """Lines wrap adds in a CRLF file end in CRLF too."""
    original = '{\r\n  "mcpServers": {\r\n    "s": {\r\n      "command": "srv"\r\n    }\r\n  }\r\n}\r\n'
    wrapped = _wrap(original).text
    assert "\n" not in wrapped.replace("\r\n", "")
    assert (
        plan.unwrap(wrapped, client_key="mcpServers", names=[], records=_wrap(original).changed).text
        == original
    )


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "http://x//y", "b": [1, 2.5e3, true, null, "\\"q\\""]}',
        '{"a": {"b": []}, "c": {}, "d": "/* not a comment */"}',
        '\ufeff{"bom": 1}',
    ],
)
def test_the_jsonc_reader_reads_plain_json_as_json_does(text: str) -> None:
    """Comment markers inside strings are text, and plain JSON reads to json.loads' value."""
    doc = jsonc.parse(text)
    assert doc.root.value(text) == json.loads(text.lstrip("\ufeff"))
    assert doc.comments == []


def test_the_jsonc_reader_skips_comments_and_a_trailing_comma() -> None:
    """VS Code's JSONC: line and block comments and a trailing comma read like JSON without them."""
    text = '{\n  // a\n  "x": [1, /* b */ 2,],\n}\n'
    doc = jsonc.parse(text)
    assert doc.root.value(text) == {"x": [1, 2]}
    assert [text[s:e] for s, e in doc.comments] == ["// a", "/* b */"]
