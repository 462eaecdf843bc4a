"""Probing a real server `--from` a session that changed its data changes nothing: no frame the probe
sends names a tool that may change data (not `readOnlyHint: true`), so even a server that tolerates
the fault under test (server-memory strips unknown keys, server-filesystem writes what it is told)
cannot act on the user's data; the report's reach table says which cases named which tool, and it
matches the bytes the transcripts hold."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import orjson
import pytest
from mcp import Client

from mcptape.probe.recorded import recorded_calls
from mcptape.probe.safety import NOT_TESTED
from tests.clients import sdk_session
from tests.conftest import NODE_DIR, console_script
from tests.probe.support import probe

pytestmark = pytest.mark.slow

PACKAGES = NODE_DIR / "node_modules" / "@modelcontextprotocol"
MEMORY_WRITERS = {
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
}
FILE_WRITERS = {"write_file", "edit_file", "create_directory", "move_file"}


def node() -> str:
    found = shutil.which("node")
    assert found, "node is needed for the npm test servers"
    return found


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` and its bytes (None for a folder)."""
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in sorted(root.rglob("*"))
    }


def sent_bytes(out: Path) -> dict[str, bytes]:
    """Every byte the probe wrote to a server, per transcript file of the run."""
    sent: dict[str, bytes] = {}
    for path in sorted(out.glob("*.jsonl")):
        chunks = []
        for line in path.read_bytes().splitlines()[1:]:
            record = orjson.loads(line)
            if record.get("ch") == "in":
                chunks.append(
                    record["data"].encode() if "data" in record else base64.b64decode(record["b64"])
                )
        sent[path.stem] = b"".join(chunks)
    return sent


def named(data: bytes, tool: str) -> bool:
    return f'"{tool}"'.encode() in data or f'"{tool}\\"'.encode() in data


def assert_reach_is_what_was_sent(
    out: Path, reach: list[dict[str, Any]], writers: set[str], transcripts: dict[str, str]
) -> None:
    """No transcript holds a writer's name; a tool the table says no case named is in no transcript;
    each transcript names exactly the tools the table gives its cases (`transcripts`: case id ->
    transcript file), base checks and MRTR discovery calls aside (at most those tools more)."""
    sent = sent_bytes(out)
    rows = {row["tool"]: row for row in reach}
    assert writers <= set(rows)
    for tool in writers:
        assert rows[tool]["cases"] == [] and rows[tool]["could_run"] is False
        assert rows[tool]["not_tested"] == NOT_TESTED
        assert not [name for name, data in sent.items() if named(data, tool)], tool
    for tool, row in rows.items():
        if not row["cases"]:
            assert not [name for name, data in sent.items() if named(data, tool)], tool
    extra = {
        tool for tool, row in rows.items() if any(c.startswith(("base:", "mrtr-find")) for c in row["cases"])
    }
    for name, data in sent.items():
        cases = {case for case, stem in transcripts.items() if stem == name}
        expected = {tool for tool, row in rows.items() if cases & set(row["cases"])}
        found = {tool for tool in rows if named(data, tool)}
        assert expected <= found <= expected | extra, (name, found, expected)


def entity(name: str, *observations: str) -> dict[str, Any]:
    return {"name": name, "entityType": "person", "observations": list(observations)}


def relation(source: str, target: str) -> dict[str, str]:
    return {"from": source, "to": target, "relationType": "knew"}


async def change_memory(client: Client) -> dict[str, Any]:
    """Every kind of write server-memory has, ordered so that replaying any tool's first call
    changes the file: each first call's effect is undone later, and each delete's target is
    created again afterwards (the probe takes a tool's first successful call as its base)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_entities", {"entities": [entity("Scratch"), entity("Ada", "wrote the first program")]}),
        ("delete_entities", {"entityNames": ["Scratch", "Temp"]}),
        ("create_entities", {"entities": [entity("Babbage"), entity("Temp")]}),
        ("create_relations", {"relations": [relation("Ada", "Babbage")]}),
        ("delete_relations", {"relations": [relation("Ada", "Babbage"), relation("Babbage", "Ada")]}),
        ("create_relations", {"relations": [relation("Babbage", "Ada")]}),
        ("add_observations", {"observations": [{"entityName": "Ada", "contents": ["obs-1"]}]}),
        ("delete_observations", {"deletions": [{"entityName": "Ada", "observations": ["obs-1", "obs-2"]}]}),
        ("add_observations", {"observations": [{"entityName": "Ada", "contents": ["obs-2"]}]}),
        ("read_graph", {}),
        ("search_nodes", {"query": "Ada"}),
        ("open_nodes", {"names": ["Ada"]}),
    ]
    for name, arguments in calls:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, (name, result)
    return {}


def test_a_memory_file_is_byte_identical_after_a_probe_from_a_session_that_deleted(tmp_path: Path) -> None:
    """server-memory, probed --from a recorded session that created, related and deleted entities:
    its memory file is byte-identical after, no frame named a writing tool, and the table says so."""
    memory = tmp_path / "data" / "memory.jsonl"
    memory.parent.mkdir()
    server = [
        "env",
        f"MEMORY_FILE_PATH={memory}",
        node(),
        str(PACKAGES / "server-memory" / "dist" / "index.js"),
    ]
    recording = tmp_path / "mem-session.jsonl"
    sdk_session(server, record_to=recording, script=change_memory, mode="legacy")
    calls = recorded_calls(recording)
    assert {c.tool for c in calls} >= MEMORY_WRITERS | {"read_graph", "search_nodes", "open_nodes"}
    before = tree(memory.parent)
    assert b"Temp" in (before["memory.jsonl"] or b"") and b"Scratch" not in (before["memory.jsonl"] or b"")

    result, _ = probe(tmp_path / "out", server, recorded=calls, timeout=5.0, start_timeout=30.0)

    assert tree(memory.parent) == before
    assert {name for name, _ in result.skipped_tools} == MEMORY_WRITERS
    assert result.call is not None and result.call.tool in {"read_graph", "search_nodes", "open_nodes"}
    transcripts = {r.case.id: r.transcript.stem for r in result.results if r.transcript is not None}
    assert_reach_is_what_was_sent(tmp_path / "out", result.reach, MEMORY_WRITERS, transcripts)
    rows = {row["tool"]: row for row in result.reach}
    assert {"unknown-arguments:search_nodes", "wrong-types:search_nodes"} <= set(
        rows["search_nodes"]["cases"]
    )
    assert not [r.case.id for r in result.results if any(w in r.case.id for w in MEMORY_WRITERS)]

    # The same per-tool hard inputs with --allow-mutating on a copy do change it: the recording is
    # one whose replay writes, so the comparison above could fail.
    scratch = tmp_path / "copy" / "memory.jsonl"
    scratch.parent.mkdir()
    shutil.copy(memory, scratch)
    copy = ["env", f"MEMORY_FILE_PATH={scratch}", *server[2:]]
    probe(tmp_path / "out-allowed", copy, cases=["tools"], recorded=calls, allow_mutating=True, timeout=5.0)
    assert scratch.read_bytes() != before["memory.jsonl"]


async def change_files(client: Client, root: Path) -> dict[str, Any]:
    """Write, edit, make a folder, move, then read and list, ordered so that replaying the first
    write_file or the edit changes the folder (new.txt was moved away, a.txt written back)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": str(root / "new.txt"), "content": "fresh\n"}),
        ("edit_file", {"path": str(root / "a.txt"), "edits": [{"oldText": "hello", "newText": "HELLO"}]}),
        ("create_directory", {"path": str(root / "made")}),
        ("move_file", {"source": str(root / "new.txt"), "destination": str(root / "made" / "new.txt")}),
        ("write_file", {"path": str(root / "a.txt"), "content": "hello\n"}),
        ("read_text_file", {"path": str(root / "a.txt")}),
        ("list_directory", {"path": str(root)}),
        ("get_file_info", {"path": str(root / "a.txt")}),
    ]
    for name, arguments in calls:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, (name, result)
    return {}


def test_a_scratch_folder_is_unchanged_after_a_probe_from_a_session_that_wrote(tmp_path: Path) -> None:
    """server-filesystem, probed through the command line --from a session that wrote, edited, made a
    folder and moved a file: every file and folder is as it was, probe.json and the JUnit report
    list per tool the cases that named it, and the writing tools as not tested."""
    root = tmp_path / "scratch"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"hello\n")
    (root / "sub" / "b.txt").write_bytes(b"world\n")
    server = [node(), str(PACKAGES / "server-filesystem" / "dist" / "index.js"), str(root)]
    recording = tmp_path / "fs-session.jsonl"

    async def script(client: Client) -> dict[str, Any]:
        return await change_files(client, root)

    sdk_session(server, record_to=recording, script=script, mode="legacy")
    assert (root / "made" / "new.txt").read_bytes() == b"fresh\n"
    before = tree(root)
    out, junit = tmp_path / "out", tmp_path / "probe.xml"
    options = ["--json", "-o", str(out), "--junit", str(junit), "--timeout", "5", "--from", str(recording)]
    done = subprocess.run(
        [console_script(), "probe", *options, "--", *server],
        capture_output=True,
        timeout=300,
    )
    assert tree(root) == before
    document = orjson.loads(done.stdout)
    assert {row["tool"] for row in document["reach"] if not row["cases"]} == FILE_WRITERS
    transcripts = {c["id"]: Path(c["transcript"]).stem for c in document["cases"] if c["transcript"]}
    assert_reach_is_what_was_sent(out, document["reach"], FILE_WRITERS, transcripts)
    assert orjson.loads((out / "probe.json").read_bytes())["reach"] == document["reach"]
    properties = {p.get("name"): p.get("value", "") for p in ET.parse(junit).iter("property")}
    assert properties["reach:write_file"] == f"destructiveHint: true; no frame named it: {NOT_TESTED}"
    assert properties["reach:read_text_file"].startswith("readOnlyHint: true; could run: ")
    assert "start" in properties["reach:read_text_file"].split(": ", 2)[2].split(", ")
