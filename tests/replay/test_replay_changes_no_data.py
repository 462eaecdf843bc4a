"""Replay changes no data unless told to: a `tools/call` of a tool not marked `readOnlyHint: true`
(in the recorded tools/list or the new server's) is held back, not sent; the replay names the held
calls and ends `incomplete` (exit 1). `--allow-mutating`, `allow-mutating = true` in the settings
file or MCPTAPE_ALLOW_MUTATING=1 sends them (the suite sets the variable: these tests remove it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import orjson
import pytest
from mcp import Client

from mcptape.check.classify import classify_line
from mcptape.check.hints import ToolHints
from mcptape.replay.guard import ENV, LiveGuard, RecordedGuard
from mcptape.replay.settings import ReplaySettings
from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import NODE_DIR, PYTHON, SERVERS

HINT_FLIP = SERVERS / "hint_flip.py"


@pytest.fixture(autouse=True)
def no_permission(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)


def without_permission() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != ENV}


# -- a real server's data -------------------------------------------------------------------
async def write_then_undo(client: Client) -> dict[str, Any]:
    """Read the graph, search it, create an entity, delete it: the file ends as it began."""
    await client.call_tool("read_graph", {})
    await client.call_tool("search_nodes", {"query": "Ada"})
    await client.call_tool(
        "create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}
    )
    await client.call_tool("delete_entities", {"entityNames": ["Ada"]})
    return {}


def test_a_replay_of_a_session_that_wrote_leaves_the_memory_file_byte_identical(tmp_path: Path) -> None:
    """server-memory, a session that created and deleted an entity, replayed without permission: the
    memory file is byte-identical, the reads were sent, the writes held and named, exit 1."""
    node = shutil.which("node")
    assert node, "node is needed for the npm test servers"
    memory = tmp_path / "data" / "memory.jsonl"
    memory.parent.mkdir()
    memory.write_text('{"type":"entity","name":"Babbage","entityType":"person","observations":[]}\n')
    index = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    server = ["env", f"MEMORY_FILE_PATH={memory}", node, str(index)]
    recording = tmp_path / "mem.jsonl"
    sdk_session(server, record_to=recording, script=write_then_undo)
    before = memory.read_bytes()
    memory.write_bytes(before)  # a fresh mtime is not what is compared: the bytes are

    done = inprocess.run("replay", "--json", recording, env=without_permission())

    assert memory.read_bytes() == before
    assert done.returncode == 1, done.stderr
    report = orjson.loads(done.stdout)
    assert report["verdict"] == "incomplete"
    assert sorted(t for h in report["held"] for t in h["tools"]) == ["create_entities", "delete_entities"]
    assert [i["kind"] for i in report["issues"] if i["error"]] == ["held-calls"]
    sent = [r for r in read_records(Path(report["new_transcript"])) if r.get("ch") == "in"]
    calls = b"".join(r["data"].encode() for r in sent)
    assert b'"read_graph"' in calls and b'"search_nodes"' in calls
    assert b'"create_entities"' not in calls and b'"delete_entities"' not in calls

    # The same replay on a scratch copy with --allow-mutating does write (so the check above can fail).
    scratch = tmp_path / "scratch" / "memory.jsonl"
    scratch.parent.mkdir()
    scratch.write_text("")
    allowed = inprocess.run(
        "replay", "--allow-mutating", recording, "--", "env", f"MEMORY_FILE_PATH={scratch}", node, str(index),
        env=without_permission(),
    )  # fmt: skip
    assert allowed.returncode in (0, 1), allowed.stderr
    assert b"held-calls" not in allowed.stdout
    assert (
        b"--allow-mutating: called tools that may change data: create_entities, delete_entities"
        in allowed.stdout
    )
    assert b"create_entities" in scratch_calls(allowed.stdout)


def scratch_calls(report: bytes) -> bytes:
    """What the allowed replay sent (its new session is kept: the scratch file had no Babbage)."""
    path = Path(report.decode().split("new session: ", 1)[1].split("\n", 1)[0])
    return b"".join(r["data"].encode() for r in read_records(path) if r.get("ch") == "in")


def read_records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]


# -- the new build's listing counts too -----------------------------------------------------
async def note_once(client: Client) -> dict[str, Any]:
    await client.call_tool("note", {"text": "hi"})
    return {}


def record_notes(tmp_path: Path, *flags: str) -> tuple[Path, Path]:
    """The SDK client's session with hint_flip.py (its `note` marked read-only, or a writer with
    `--writer`), one call of `note`."""
    notes = tmp_path / "recorded-notes.txt"
    recording = tmp_path / "flip.jsonl"
    server = [PYTHON, str(HINT_FLIP), str(notes), *flags]
    sdk_session(server, record_to=recording, script=note_once, mode="legacy")
    assert notes.read_text() == "hi\n"
    return recording, notes


def test_a_tool_the_new_build_marks_as_a_writer_is_held_back(tmp_path: Path) -> None:
    """Recorded as read-only, listed by the new build with readOnlyHint: false: not called."""
    recording, _ = record_notes(tmp_path)
    notes = tmp_path / "new-notes.txt"

    done = inprocess.run(
        "replay", recording, "--", PYTHON, HINT_FLIP, notes, "--writer", env=without_permission(), text=True
    )

    assert not notes.exists()
    assert done.returncode == 1
    assert "note: readOnlyHint: false in the new server's tools/list" in done.stdout
    assert "readOnlyHint: true -> false" in done.stdout  # and the listing itself differs
    assert done.stdout.rstrip().endswith("different")


def test_a_tool_both_builds_mark_read_only_is_replayed(tmp_path: Path) -> None:
    """Recorded and listed again as read-only: the call is sent (and the replay is the same)."""
    recording, _ = record_notes(tmp_path)
    notes = tmp_path / "new-notes.txt"

    done = inprocess.run(
        "replay", recording, "--", PYTHON, HINT_FLIP, notes, env=without_permission(), text=True
    )

    assert notes.read_text() == "hi\n"
    assert done.returncode == 0, done.stdout
    assert done.stdout.rstrip().endswith("same")


# -- which frames a tolerant server could run as a call -------------------------------------
LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ANSWER = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "tools": [
            {"name": "lookup", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
            {"name": "erase", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
            {"name": "save", "inputSchema": {"type": "object"}},
        ]
    },
}


def judged(line: bytes, listed: bool = True) -> str | None:
    """Why the client line `line` is held back (after the recorded listing, if `listed`)."""
    guard = RecordedGuard()
    if listed:
        guard.client(classify_line(orjson.dumps(LISTING) + b"\n", "in"))
        guard.server(classify_line(orjson.dumps(ANSWER) + b"\n", "out"))
    msg = classify_line(line + b"\n", "in")
    calls = [guard.judge(c) for one in (msg.items or (msg,)) if (c := guard.client(one)) is not None]
    return LiveGuard(False).decide(calls)


def call(name: Any, **extra: Any) -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": name, "arguments": {}},
            **extra,
        }
    )


SAVE = "save: no readOnlyHint in the recorded server's tools/list"
ERASE = "erase: destructiveHint: true in the recorded server's tools/list"
CUT = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":'  # a line cut short
UNREAD = "a line mcptape cannot read mentions a call, and a tolerant server may run it"


@pytest.mark.parametrize(
    ("line", "held"),
    [
        (call("lookup"), None),
        (call("erase"), ERASE),
        (call("save"), SAVE),
        (call("not_listed"), None),  # an LLM's wrong tool name: the server answers with an error
        (call("save", jsonrpc="1.0"), SAVE),
        (orjson.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "save"}}), SAVE),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"{\\"name\\":\\"erase\\"}"}', ERASE),
        (b"[" + call("lookup") + b"," + call("save") + b"]", SAVE),
        (CUT + b'"erase"', ERASE + " (a line mcptape cannot read names it)"),
        (CUT + b'"lookup"', UNREAD),  # a writer is listed: a line that cannot be read is not sent
        (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"er\\u0061se","x":"\xff"}}', ERASE),
        (b'banner {"jsonrpc":"2.0","id":3,"method":"tools\\/call","params":{"name":"save"}}', SAVE),
        (call(["erase"]), "a tools/call whose name is not a string (a tolerant server may read it as one)"),
        (orjson.dumps({"jsonrpc": "2.0", "id": 10, "method": "resources/read", "params": {}}), None),
    ],
    ids=[
        "read-only", "destructive", "no-hint", "not-listed", "wrong-jsonrpc", "no-id", "string-params",
        "batch", "cut-line", "cut-line-read-only", "invalid-utf8-escaped-name", "banner-escaped-method",
        "name-not-a-string", "other-method",
    ],
)  # fmt: skip
def test_which_frames_are_held(line: bytes, held: str | None) -> None:
    """Held: any frame a tolerant server could run as a call of a tool that may write."""
    assert judged(line) == held


def test_a_tool_no_listing_names_is_held_when_the_recorded_server_ran_it() -> None:
    """A tool the recorded listing does not name (a page the client never read) that the recorded
    server ran is held; one it refused (an LLM's wrong name) is sent."""
    guard = RecordedGuard()
    guard.client(classify_line(orjson.dumps(LISTING) + b"\n", "in"))
    guard.server(classify_line(orjson.dumps(ANSWER) + b"\n", "out"))
    ran = guard.client(classify_line(call("page_two") + b"\n", "in"))
    ok = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": False}}
    guard.server(classify_line(orjson.dumps(ok) + b"\n", "out"))
    wrong = guard.client(classify_line(call("no_such") + b"\n", "in"))
    refused = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": True}}
    guard.server(classify_line(orjson.dumps(refused) + b"\n", "out"))
    assert ran is not None and wrong is not None
    assert guard.judge(ran).why == "page_two: not in the recorded tools/list, and the recorded server ran it"
    assert guard.judge(wrong).why is None


def test_every_call_is_held_when_the_recording_has_no_listing() -> None:
    """Without any tools/list answer nothing says a tool is read-only."""
    assert judged(call("lookup"), listed=False) == ("lookup: no tools/list answer says the tool is read-only")


def test_permission_comes_from_the_option_the_settings_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The option wins; else `allow-mutating` in [tool.mcptape]; else MCPTAPE_ALLOW_MUTATING."""
    monkeypatch.chdir(tmp_path)
    assert ReplaySettings.resolve().allow_mutating is False
    monkeypatch.setenv(ENV, "1")
    assert ReplaySettings.resolve().allow_mutating is True
    assert ReplaySettings.resolve(allow_mutating=False).allow_mutating is False
    monkeypatch.delenv(ENV)
    (tmp_path / "mcptape.toml").write_text("allow-mutating = true\n")
    assert ReplaySettings.resolve().allow_mutating is True
    (tmp_path / "mcptape.toml").write_text("allow-mutating = false\n")
    monkeypatch.setenv(ENV, "1")
    assert ReplaySettings.resolve().allow_mutating is False  # the file wins over the environment
    monkeypatch.delenv(ENV)
    (tmp_path / "mcptape.toml").write_text('allow-mutating = "yes"\n')
    bad = inprocess.run("replay", tmp_path / "none.jsonl", text=True)
    assert bad.returncode == 2 and "allow-mutating must be true or false" in bad.stderr


def test_update_refuses_a_replay_that_held_calls_back(tmp_path: Path) -> None:
    """`--update` would replace the recording with a session that lacks the held calls: refused,
    the recording byte-identical."""
    recording, _ = record_notes(tmp_path)
    before = recording.read_bytes()
    notes = tmp_path / "new-notes.txt"

    done = inprocess.run(
        "replay",
        "--update",
        recording,
        "--",
        PYTHON,
        HINT_FLIP,
        notes,
        "--writer",
        env=without_permission(),
        text=True,
    )

    assert done.returncode == 2
    assert "not updated: 1 client frame(s) were held back" in done.stderr
    assert recording.read_bytes() == before and not notes.exists()


def test_learning_says_which_calls_it_learned_without(tmp_path: Path) -> None:
    """`--learn N` holds the same calls back and says so under its verdict."""
    recording, _ = record_notes(tmp_path)
    notes = tmp_path / "new-notes.txt"

    done = inprocess.run(
        "replay", "--learn", "2", recording, "--", PYTHON, HINT_FLIP, notes, "--writer",
        env=without_permission(), text=True,
    )  # fmt: skip

    assert "1 client frame not replayed: a tools/call of note may change data" in done.stdout
    assert not notes.exists()


def test_junit_calls_a_replay_that_held_calls_incomplete(tmp_path: Path) -> None:
    """The JUnit case fails as `incomplete`, naming why, not as a difference."""
    recording, _ = record_notes(tmp_path, "--writer")
    junit = tmp_path / "replay.xml"

    inprocess.run(
        "replay", "--junit", junit, recording, "--", PYTHON, HINT_FLIP, tmp_path / "n.txt", "--writer",
        env=without_permission(),
    )  # fmt: skip

    failure = ElementTree.parse(junit).find(".//failure")
    assert failure is not None and failure.get("type") == "incomplete"
    assert failure.get("message") == "incomplete: calls held back (they may change data)"


async def look_up(client: Client) -> dict[str, Any]:
    await client.call_tool("lookup_customer_records", {})
    return {}


def test_a_tool_name_is_never_carried_into_a_writers_call(tmp_path: Path) -> None:
    """A long tool name looks like a minted value; where the new build lists its writer at the
    reader's place, replay still calls the tool the client named (a name is not carried), so the
    writer never runs."""
    server = SERVERS / "reordered_tools.py"
    log = tmp_path / "log.txt"
    recording = tmp_path / "reordered.jsonl"
    sdk_session([PYTHON, str(server), str(log)], record_to=recording, script=look_up, mode="legacy")
    assert not log.exists()

    done = inprocess.run(
        "replay", "--json", recording, "--", PYTHON, server, log, "--new", env=without_permission()
    )

    assert not log.exists(), "the writer ran"
    report = orjson.loads(done.stdout)
    assert report["held"] == [] and report["substitutions"] == []
    sent = scratch_calls(b"new session: " + report["new_transcript"].encode() + b"\n")
    assert b'"lookup_customer_records"' in sent and b"erase_customer_records" not in sent


def test_the_bytes_sent_are_judged_again() -> None:
    """Whatever replay put into a line (a minted value, a secret), the line as sent is judged
    against both listings: one that names a writer is held."""
    recorded = ToolHints()
    recorded.learn({"tools": [{"name": "erase_customer_records", "annotations": {"destructiveHint": True}}]})
    guard = LiveGuard(False, recorded)
    line = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"erase_customer_records"}}\n'

    held = guard.sending(line)

    assert held is not None and held[0].startswith("erase_customer_records: destructiveHint: true")
    assert guard.sending(line.replace(b"erase", b"lookup")) is None
    assert LiveGuard(True, recorded).sending(line) is None  # --allow-mutating


def test_a_tool_listed_twice_is_judged_by_its_riskier_entry() -> None:
    """One listing naming a tool twice, read-only and not: it may change data."""
    hints = ToolHints()
    hints.learn(
        {
            "tools": [
                {"name": "t", "annotations": {"readOnlyHint": False}},
                {"name": "t", "annotations": {"readOnlyHint": True}},
            ]
        }
    )
    assert hints.risks == {"t": "readOnlyHint: false"}
