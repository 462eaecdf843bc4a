"""A transcript whose file name is not UTF-8 (argv and rglob give it as lone surrogates): the
reports show it escaped (\\xNN), never a traceback with exit 1 (which reads as "findings")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

REPO = SERVERS.parents[1]

MCPTAPE = console_script()
GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")
ECHO = str(SERVERS / "fast" / "echo_tool.py")


def folder(tmp_path: Path) -> Path:
    tapes = tmp_path / "tapes"
    tapes.mkdir()
    shutil.copy(GOOD, os.fsdecode(os.fsencode(tapes) + b"/a\xff.jsonl"))
    shutil.copy(GOOD, tapes / "b.jsonl")
    return tapes


def run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    # a UTF-8 terminal whose stdout is strict, as with LANG=en_US.UTF-8 (this machine has only C.UTF-8)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    return subprocess.run(
        [MCPTAPE, *args], capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=120
    )


def names(tapes: Path) -> list[str]:
    return sorted(os.path.join(tapes, n) for n in os.listdir(tapes))


def test_check_several_json_with_a_non_utf8_name(tmp_path: Path) -> None:
    """`check --json` of two files, one named a\\xff.jsonl: one JSON object each, exit 0."""
    result = run(["check", "--json", *names(folder(tmp_path))])
    assert result.returncode == 0, result.stderr[-300:]
    docs = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert docs[0]["file"].endswith("a\\xff.jsonl")


def test_check_text_with_a_non_utf8_name(tmp_path: Path) -> None:
    """`check` of a\\xff.jsonl: the report names it escaped, exit 0."""
    result = run(["check", *names(folder(tmp_path))])
    assert result.returncode == 0, result.stderr[-300:]
    assert b"a\\xff.jsonl" in result.stdout


def test_replay_folder_with_a_non_utf8_name(tmp_path: Path) -> None:
    """`replay FOLDER` (text and --json) with a\\xff.jsonl in it: a line each, exit 0."""
    tapes = folder(tmp_path)
    result = run(["replay", str(tapes), "--no-config", "--", sys.executable, ECHO])
    assert result.returncode == 0, result.stderr[-300:]
    assert b"a\\xff.jsonl" in result.stdout
    result = run(["replay", "--json", str(tapes), "--no-config", "--", sys.executable, ECHO])
    assert result.returncode == 0, result.stderr[-300:]
    docs = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert docs[0]["file"].endswith("a\\xff.jsonl") and docs[0]["same"] is True
