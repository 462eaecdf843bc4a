"""The probe never changes the server's data: whatever may succeed goes only to read-only tools,
`--tool`, or every tool with `--allow-mutating`; the report names the tools it left alone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson

from mcptape.probe.cases import Call
from mcptape.probe.observed import Verdict
from mcptape.probe.report import render_table, to_json
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
    """server-filesystem on a folder: every case runs, no file or folder is created or changed, and
    the four tools that may write are named as not probed, with the way to include them."""
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
    assert not [r.case.id for r in result.results if r.case.id.split(":")[-1] in MUTATING]
    assert result.call is not None and result.call.tool not in MUTATING
    table = render_table(result)
    assert "not probed, they may change data (--allow-mutating to include them" in table
    assert "write_file (destructiveHint: true)" in table
    skipped = to_json(result)["skipped_tools"]
    assert {"tool": "write_file", "why": "destructiveHint: true"} in skipped


def test_a_tool_that_may_mutate_gets_hard_inputs_only_when_allowed(tmp_path: Path) -> None:
    """notify declares readOnlyHint: false: left alone by default, probed with --allow-mutating."""
    command = [*PB_SERVER, "--defect", "second-tool"]
    result, _ = probe(tmp_path / "a", command, cases=["tools"])
    assert not [r for r in result.results if r.case.id.endswith(":notify")]
    assert result.skipped_tools == [("notify", "readOnlyHint: false")]
    assert not result.failed
    allowed, _ = probe(tmp_path / "b", command, cases=["tools"], allow_mutating=True)
    assert allowed.skipped_tools == []
    assert by_id(allowed)["unknown-arguments:notify"].verdict is Verdict.FAIL


def test_without_a_read_only_tool_the_valid_request_is_tools_list(tmp_path: Path) -> None:
    """The only tool is destructive: nothing calls it, hard inputs are built from tools/list, and no
    transcript holds an action."""
    result, _ = probe(
        tmp_path, [*PB_SERVER, "--mutating"], cases=["tools", "banner-after-request", "concatenated"]
    )
    assert result.call == Call(None)
    assert result.skipped_tools == [("deploy", "destructiveHint: true")]
    assert [r.verdict for r in result.results] == [Verdict.PASS] * 3, [r.reasons for r in result.results]
    for transcript in tmp_path.glob("*.jsonl"):
        records = [orjson.loads(line) for line in transcript.read_bytes().splitlines()[1:]]
        assert not [r for r in records if r.get("ch") == "exec" and "data" in r], transcript


def test_the_summary_says_what_was_left_alone_and_the_opt_in_calls_it(tmp_path: Path) -> None:
    """The summary names the tools not probed; --allow-mutating makes the destructive one the valid call."""
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
    assert "1 tool not probed (it may change data; --allow-mutating includes it)" in table.stdout
    opted = subprocess.run(
        [*base, "--allow-mutating", "-o", str(tmp_path / "b"), *command], capture_output=True, timeout=60
    )
    assert opted.returncode == 0, opted.stderr
    assert orjson.loads(opted.stdout)["valid_request"] == {
        "tool": "deploy",
        "arguments": {"target": "mcptape-probe"},
    }
    assert orjson.loads(opted.stdout)["baseline_calls"] == 1
