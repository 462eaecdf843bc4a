"""The probe never changes a correct server's data: whatever may succeed goes only to read-only
tools, `--tool`, or every tool with `--allow-mutating`; a tool that may change data gets only the
hard inputs a correct server refuses; the report names the tools it did not call."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson

from mcptape.probe.cases import Call
from mcptape.probe.observed import Verdict
from mcptape.probe.report import render_table, summary_line, to_json
from tests.conftest import NODE_DIR, console_script
from tests.probe.support import PB_SERVER, by_id, probe

FILESYSTEM = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
MUTATING = {"write_file", "edit_file", "create_directory", "move_file"}


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under `root`: its bytes (empty for a folder) and its mtime."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"", p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }


def test_a_filesystem_servers_files_are_left_as_they_were(tmp_path: Path) -> None:
    """server-filesystem on a folder: every case runs, the four tools that may write get only the
    hard inputs a correct server refuses (their schemas allow extras: no unknown-arguments) and
    refuse them, no file or folder is created or changed, and they are named as not called."""
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "a.txt").write_bytes(b"hello\n")
    (data / "sub" / "b.txt").write_bytes(b"world\n")
    before = snapshot(data)
    node = shutil.which("node")
    assert node
    result, _ = probe(tmp_path / "out", [node, str(FILESYSTEM), str(data)], timeout=5.0)
    assert snapshot(data) == before
    assert {name for name, _ in result.skipped_tools} == MUTATING
    assert dict(result.skipped_tools)["write_file"] == "destructiveHint: true"
    assert dict(result.skipped_tools)["create_directory"] == "readOnlyHint: false"
    theirs = {r.case.id: r for r in result.results if r.case.id.split(":")[-1] in MUTATING}
    assert set(theirs) == {f"{kind}:{tool}" for tool in MUTATING for kind in ("wrong-types", "string-params")}
    assert not [r.reasons for r in theirs.values() if r.failed], [r.reasons for r in theirs.values()]
    assert all(r.did.startswith("refused it") for i, r in theirs.items() if i.startswith("wrong-types"))
    assert result.call is not None and result.call.tool not in MUTATING
    table = render_table(result)
    assert "not called, they may change data (sent only hard inputs a correct server refuses" in table
    assert "write_file (destructiveHint: true)" in table
    skipped = to_json(result)["skipped_tools"]
    assert {"tool": "write_file", "why": "destructiveHint: true"} in skipped


def test_a_tool_that_may_mutate_gets_only_what_a_correct_server_refuses(tmp_path: Path) -> None:
    """notify declares readOnlyHint: false and forbids extras: by default it gets wrong-types,
    string-params and unknown-arguments but no base call; its tolerance is caught without
    --allow-mutating, which adds the base call."""
    command = [*PB_SERVER, "--defect", "second-tool"]
    result, _ = probe(tmp_path / "a", command, cases=["tools"])
    assert sorted(r.case.id for r in result.results if r.case.id.endswith(":notify")) == [
        "string-params:notify",
        "unknown-arguments:notify",
        "wrong-types:notify",
    ]
    assert result.skipped_tools == [("notify", "readOnlyHint: false")]
    assert by_id(result)["unknown-arguments:notify"].verdict is Verdict.FAIL
    notify = [rid for rid, tool in sent_calls(tmp_path / "a" / "tools-1.jsonl") if tool == "notify"]
    assert len(notify) == 2 and not [rid for rid in notify if rid.endswith("-base")], notify
    allowed, _ = probe(tmp_path / "b", command, cases=["tools"], allow_mutating=True)
    assert allowed.skipped_tools == []
    assert by_id(allowed)["unknown-arguments:notify"].verdict is Verdict.FAIL


def test_a_strict_mutating_tool_is_refused_everything_and_nothing_runs(tmp_path: Path) -> None:
    """The only tool is destructive: the valid request is tools/list; its wrong-types and
    string-params are refused (pass), its unknown-arguments on derived arguments is inconclusive
    (they were not called to check them), and no transcript holds an action."""
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--mutating"], cases=["tools", "banner-after-request", "concatenated"]
    )
    assert result.call == Call(None)
    assert result.skipped_tools == [("deploy", "destructiveHint: true")]
    verdicts = {r.case.id: r.verdict for r in result.results if r.case.id != "start"}
    assert verdicts == {
        "banner-after-request": Verdict.PASS,
        "concatenated": Verdict.PASS,
        "string-params:deploy": Verdict.PASS,
        "wrong-types:deploy": Verdict.PASS,
        "unknown-arguments:deploy": Verdict.INCONCLUSIVE,
    }, [r.reasons for r in result.results]
    assert (
        "not called to check them (deploy may change data)"
        in by_id(result)["unknown-arguments:deploy"].reasons[0]
    )
    assert result.unchecked_tools == ["deploy"] and result.refused_tools == []
    assert "--from TRANSCRIPT (or --allow-mutating" in summary_line(result)
    assert "the valid request was refused" not in summary_line(result)
    for transcript in tmp_path.glob("*.jsonl"):
        records = [orjson.loads(line) for line in transcript.read_bytes().splitlines()[1:]]
        assert not [r for r in records if r.get("ch") == "exec" and "data" in r], transcript
    assert not [rid for rid, _ in sent_calls(tmp_path / "tools-1.jsonl") if rid.endswith("-base")]


def test_a_recorded_call_makes_a_mutating_tools_unknown_arguments_conclusive(tmp_path: Path) -> None:
    """A successful call of the destructive deploy recorded with --from proves its base without
    running it: unknown-arguments built on it is judged (refused: a pass), and nothing runs."""
    recorded = [Call("deploy", {"target": "staging"})]
    result, _ = probe(tmp_path, [*PB_SERVER, "--mutating"], cases=["tools"], recorded=recorded)
    row = by_id(result)["unknown-arguments:deploy"]
    assert row.verdict is Verdict.PASS and row.did == "refused it (error -32602)", row.reasons
    assert result.passed and result.unchecked_tools == []
    assert not [rid for rid, _ in sent_calls(tmp_path / "tools-1.jsonl") if rid.endswith("-base")]


def sent_calls(path: Path) -> list[tuple[str, str | None]]:
    """The requests the probe sent in a transcript: each one's id and the tool it names, if any."""
    calls = []
    for line in path.read_bytes().splitlines()[1:]:
        record = orjson.loads(line)
        if record.get("ch") == "in" and "data" in record:
            try:
                message = orjson.loads(record["data"])
            except orjson.JSONDecodeError:
                continue
            params = message.get("params") if isinstance(message, dict) else None
            tool = params.get("name") if isinstance(params, dict) else None
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                calls.append((message["id"], tool if isinstance(tool, str) else None))
    return calls


def test_the_summary_says_what_was_left_alone_and_the_opt_in_calls_it(tmp_path: Path) -> None:
    """The summary names the tools not called; --allow-mutating makes the destructive one the valid call."""
    base = [console_script(), "probe", "--timeout", "3", "--case", "start", "--json"]
    command = ["--", *PB_SERVER, "--mutating"]
    alone = subprocess.run([*base, "-o", str(tmp_path / "a"), *command], capture_output=True, timeout=60)
    assert alone.returncode == 0, alone.stderr
    document = orjson.loads(alone.stdout)
    assert document["valid_request"] == {"tool": None, "arguments": {}}
    assert document["skipped_tools"] == [{"tool": "deploy", "why": "destructiveHint: true"}]
    table = subprocess.run(
        [*base[:-1], "-o", str(tmp_path / "t"), *command], capture_output=True, text=True, timeout=60
    )
    assert "1 tool not called (it may change data: only hard inputs a correct server refuses" in table.stdout
    opted = subprocess.run(
        [*base, "--allow-mutating", "-o", str(tmp_path / "b"), *command], capture_output=True, timeout=60
    )
    assert opted.returncode == 0, opted.stderr
    assert orjson.loads(opted.stdout)["valid_request"] == {
        "tool": "deploy",
        "arguments": {"target": "mcptape-probe"},
    }
    assert orjson.loads(opted.stdout)["baseline_calls"] == 1
