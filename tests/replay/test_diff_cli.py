"""`mcptape diff OLD NEW`: two existing transcripts, nothing run; exit 0 same, 1 different."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import replay
from tests import inprocess
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def v2_tape(v1_tape: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The v1 session replayed against v2, kept as a transcript."""
    path = tmp_path_factory.mktemp("v2") / "v2.jsonl"
    replay(v1_tape, rp("--v2"), output=path, config=False)
    return path


def mcptape(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return inprocess.run(*args, cwd=cwd)  # as the process gives it (tests/inprocess.py)


def test_diff_of_a_transcript_with_itself_is_the_same(v1_tape: Path) -> None:
    """Exit 0, and the report says same."""
    proc = mcptape("diff", v1_tape, v1_tape, "--no-config")
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith(b"same")


def test_diff_names_the_changed_path_as_text_and_json(v1_tape: Path, v2_tape: Path) -> None:
    """Exit 1; the text shows old -> new; --json gives the pair, its id and its changed paths."""
    proc = mcptape("diff", v1_tape, v2_tape, "--no-config")
    assert proc.returncode == 1
    assert b'result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"' in proc.stdout
    proc = mcptape("diff", v1_tape, v2_tape, "--json", "--no-config")
    assert proc.returncode == 1
    report = orjson.loads(proc.stdout)
    [message] = report["messages"]
    assert (message["kind"], message["scope"], message["id"]) == ("response", "tools/call", 3)
    assert [c["path"] for c in message["changes"]] == [
        "result.content[0].text",
        "result.structuredContent.result",
    ]


def test_ignore_rules_from_the_command_line_and_pyproject_hide_the_change_and_say_so(
    v1_tape: Path, v2_tape: Path, tmp_path: Path
) -> None:
    """--ignore and [tool.mcptape] ignore make it the same; the report lists what each rule hid."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcptape]\nignore = ["tools/call:result.structuredContent"]\n'
    )
    proc = mcptape("diff", v1_tape, v2_tape, "--ignore", "tools/call:result.content[*].text", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    out = proc.stdout.decode()
    assert "ignored: 2 difference(s) hidden by rules" in out
    assert "tools/call:result.content[*].text (--ignore): hid 1" in out
    assert "tools/call:result.structuredContent (" in out and "pyproject.toml" in out


def test_a_bad_ignore_rule_is_a_usage_error(v1_tape: Path) -> None:
    """Exit 2 with the rule named."""
    proc = mcptape("diff", v1_tape, v1_tape, "--no-config", "--ignore", "result[oops")
    assert proc.returncode == 2 and b"result[oops" in proc.stderr


def test_diff_update_replaces_old_with_new(v1_tape: Path, v2_tape: Path, tmp_path: Path) -> None:
    """--update after a difference: OLD now holds NEW's bytes, exit 0."""
    old = tmp_path / "old.jsonl"
    old.write_bytes(v1_tape.read_bytes())
    proc = mcptape("diff", old, v2_tape, "--no-config", "--update")
    assert proc.returncode == 0 and b"updated" in proc.stdout
    assert old.read_bytes() == v2_tape.read_bytes()
