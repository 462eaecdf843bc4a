"""The lock file: every page of tools/list in it, stable under key order and whitespace, a hash
per definition that any reader can recompute."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from mcptape.jsonsafe import dumps
from mcptape.surface.lockfile import lock_text, read_lock
from mcptape.surface.model import digest
from tests.conftest import PYTHON, SERVERS
from tests.surface.support import tools

PAGED = [PYTHON, str(SERVERS / "paged.py")]


def test_every_page_of_tools_list_is_locked_and_the_server_ping_answered(tmp_path: Path) -> None:
    """A server listing its tools over three pages (and pinging the client meanwhile) gets all
    four tools locked, from the live listing and from its recording."""
    result = tools(
        "lock", "-o", str(tmp_path / "a.json"), "--record", str(tmp_path / "a.jsonl"), "--", *PAGED
    )
    assert result.returncode == 0, result.stderr
    lock = orjson.loads((tmp_path / "a.json").read_bytes())
    assert [tool["name"] for tool in lock["tools"]] == ["alpha", "beta", "delta", "gamma"]
    assert '\\"id\\":\\"server-ping\\",\\"result\\":{}' in (tmp_path / "a.jsonl").read_text()
    again = tools("lock", str(tmp_path / "a.jsonl"))
    assert again.returncode == 0 and again.stdout.encode() == (tmp_path / "a.json").read_bytes()


def test_a_recording_whose_client_stopped_paging_says_so(tmp_path: Path) -> None:
    """A transcript that holds only the first page locks that page, with a note on stderr."""
    result = tools(
        "lock", "-o", str(tmp_path / "a.json"), "--record", str(tmp_path / "a.jsonl"), "--", *PAGED
    )
    assert result.returncode == 0, result.stderr
    kept = [line for line in (tmp_path / "a.jsonl").read_text().splitlines() if '\\"cursor\\"' not in line]
    cut = tmp_path / "first-page.jsonl"
    cut.write_text("\n".join(kept) + "\n")
    result = tools("lock", str(cut))
    assert result.returncode == 0, result.stderr
    assert [tool["name"] for tool in orjson.loads(result.stdout)["tools"]] == ["alpha", "beta"]
    assert "stops after page 1" in result.stderr


def test_a_lock_is_read_the_same_whatever_its_key_order_and_whitespace(tmp_path: Path) -> None:
    """Members reordered and the text compacted: the same surface, the same lock text again."""
    result = tools("lock", "-o", str(tmp_path / "a.json"), "--", *PAGED)
    assert result.returncode == 0, result.stderr
    original = (tmp_path / "a.json").read_text()
    document = orjson.loads(original)

    def reversed_keys(value: object) -> object:
        if isinstance(value, dict):
            return {k: reversed_keys(value[k]) for k in reversed(list(value))}
        if isinstance(value, list):
            return [reversed_keys(v) for v in value]
        return value

    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(dumps(reversed_keys(document)))
    assert original != shuffled.read_text()
    assert lock_text(read_lock(shuffled)) == original


def test_each_hash_is_the_sha256_of_the_definitions_canonical_json(tmp_path: Path) -> None:
    """sha256 of the definition with sorted keys and no whitespace: recomputable by anyone."""
    result = tools("lock", "--", *PAGED)
    lock = orjson.loads(result.stdout)
    for tool in lock["tools"]:
        assert lock["sha256"]["tools"][tool["name"]] == digest(tool)
        canonical = orjson.dumps(tool, option=orjson.OPT_SORT_KEYS)
        assert digest(tool) == hashlib.sha256(canonical).hexdigest()


def test_a_server_of_the_stateless_revision_only_is_listed_after_server_discover(tmp_path: Path) -> None:
    """A server that refuses initialize is asked server/discover, and every request then carries
    the 2026-07-28 `_meta`; its serverInfo comes from the discover result's `_meta`."""
    result = tools("lock", "--record", str(tmp_path / "m.jsonl"), "--", *PAGED, "--modern")
    assert result.returncode == 0, result.stderr
    lock = orjson.loads(result.stdout)
    assert lock["protocolVersion"] == "2026-07-28" and lock["serverInfo"] == {"name": "paged", "version": "2"}
    assert [tool["name"] for tool in lock["tools"]] == ["alpha", "beta", "delta", "gamma"]
    sent = [line for line in (tmp_path / "m.jsonl").read_text().splitlines() if "tools/list" in line]
    assert sent and all("io.modelcontextprotocol/protocolVersion" in line for line in sent)


def test_hidden_characters_are_visible_in_the_lock_file(tmp_path: Path) -> None:
    """A description with a bidi override and a zero-width space is written with `\\u` escapes:
    `git diff` of the committed lock shows them; read back, the value and its hash are the same."""
    from mcptape.surface.model import TOOLS, Definition, Surface

    tool = {"name": "t", "description": "safe\u202e\u200bevil", "inputSchema": {"type": "object"}}
    surface = Surface()
    surface.definitions[TOOLS.member] = {"t": Definition.of(TOOLS, "t", tool)}
    surface.listed.add(TOOLS.member)
    text = lock_text(surface)
    assert "\u202e" not in text and "\u200b" not in text and "safe\\u202e\\u200bevil" in text
    path = tmp_path / "l.json"
    path.write_text(text)
    again = read_lock(path)
    assert again.tools["t"].value == tool and again.tools["t"].sha256 == digest(tool)


def test_a_server_without_tools_is_locked_with_none(tmp_path: Path) -> None:
    """A server whose capabilities have no tools (prompts only) may refuse tools/list: its lock has
    no tools, and its prompts."""
    result = tools("lock", "--", *PAGED, "--no-tools")
    assert result.returncode == 0, result.stderr
    lock = orjson.loads(result.stdout)
    assert lock["tools"] == [] and [p["name"] for p in lock["prompts"]] == ["greet"]
