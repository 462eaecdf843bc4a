"""A rule that hides nothing is told once for a folder or a pytest session, not with every transcript."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests import inprocess
from tests.clients import sdk_session
from tests.conftest import NESTED_PYTEST, PYTHON, SERVERS

pytestmark = pytest.mark.slow

ECHO_SERVER = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]
CHANGED = [PYTHON, str(SERVERS / "retext.py"), "hi there", "ho there", "--", *ECHO_SERVER]
NOTHING = "tools/call[no-such-tool]:result"


async def echo(client: Client) -> dict[str, Any]:
    await client.call_tool("echo", {"text": "hi there"})
    return {}


def folder_of_two(tmp_path: Path) -> Path:
    folder = tmp_path / "tapes"
    folder.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        sdk_session(ECHO_SERVER, record_to=folder / name, script=echo)
    return folder


def test_a_folder_replay_says_once_that_a_rule_hid_nothing(tmp_path: Path) -> None:
    """Two differing transcripts, one rule that reaches nothing: one line at the end, none in the reports."""
    folder = folder_of_two(tmp_path)
    done = inprocess.run("replay", str(folder), "--no-config", "--ignore", NOTHING, "--", *CHANGED, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "hid nothing" in line]
    assert lines == [f"ignore rule {NOTHING} (--ignore) hid nothing in any of the 2 transcripts"]
    assert done.stdout.count("different   ") == 2


def test_the_pytest_plugin_says_it_once_in_its_summary_under_xdist(tmp_path: Path) -> None:
    """Two failing items on two workers: the failures hold the diff; the summary names the rule once."""
    folder = folder_of_two(tmp_path)
    options = ["--mcptape-server", shlex.join(CHANGED), "--mcptape-ignore", NOTHING]
    done = subprocess.run(
        [*NESTED_PYTEST, "-q", "-n", "2", str(folder), *options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "2 failed" in done.stdout, done.stdout + done.stderr
    assert '"hi there" -> "ho there"' in done.stdout
    lines = [line for line in done.stdout.splitlines() if "hid nothing" in line]
    assert lines == [f"ignore rule {NOTHING} (--ignore) hid nothing in any of the 2 transcripts"]
