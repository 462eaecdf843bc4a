"""`probe --stub NAME` records a command instead of running it; the progress total is never a guess."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import console_script
from tests.probe.support import PB_SERVER, probe

pytestmark = pytest.mark.slow


def fake_command(folder: Path, witness: Path) -> None:
    """An executable `pb-deploy` on PATH that leaves a witness file when it really runs."""
    folder.mkdir()
    script = folder / "pb-deploy"
    script.write_text(f"#!/bin/sh\ntouch {witness}\n")
    script.chmod(0o755)


def test_a_stubbed_command_is_recorded_not_run(tmp_path: Path) -> None:
    """The tool runs `pb-deploy`: under --stub it is an exec line (the baseline counts it), never run;
    a read-only tool that runs a command that may change state fails as declared read-only but wrote."""
    witness = tmp_path / "ran"
    fake_command(tmp_path / "bin", witness)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    options = ["--json", "-o", str(tmp_path / "out"), "--timeout", "5", "--case", "debug-line"]
    server = [*PB_SERVER, "--action", "command"]
    done = subprocess.run(
        [console_script(), "probe", *options, "--stub", "pb-deploy", "--", *server],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    report = orjson.loads(done.stdout)
    assert report["baseline_calls"] == 1
    start = next(c for c in report["cases"] if c["id"] == "start")
    assert start["verdict"] == "FAIL" and start["reasons"][0].startswith("declared read-only but wrote: ")
    assert not witness.exists()
    # start.jsonl: the clean start's call; debug-line.jsonl: debug-line's valid request after it
    for name in ("start.jsonl", "debug-line.jsonl"):
        records = [orjson.loads(line) for line in (tmp_path / "out" / name).read_bytes().splitlines()]
        stubbed = [orjson.loads(r["data"]) for r in records if r.get("ch") == "exec" and "data" in r]
        assert [(s["stub"], s["argv"]) for s in stubbed] == [("pb-deploy", ["pb-deploy", "mcptape-probe"])]


def test_the_progress_total_is_said_once_the_tools_are_listed(tmp_path: Path) -> None:
    """Once the clean start's valid call is answered one line says how many cases there are (the
    clean start's own verdict comes when its process has ended), and every counter uses that total."""
    _, lines = probe(tmp_path, PB_SERVER, cases=["tools", "debug-line", "concatenated"])
    counters = [(line, re.match(r"\[\s*(\d+)/(\S+)\]", line)) for line in lines]
    numbered = [(line, m) for line, m in counters if m]
    totals = {m.group(2) for _, m in numbered}
    assert totals == {str(len(numbered))}, lines
    announced = [line for line, m in counters if not m and f"{len(numbered)} cases in all" in line]
    assert announced and lines.index(announced[0]) < lines.index(numbered[0][0]), lines
    assert [int(m.group(1)) for _, m in numbered] == list(range(1, len(numbered) + 1))
    assert any(" start " in line for line, _ in numbered)


def test_the_client_probe_refuses_the_server_options(tmp_path: Path) -> None:
    """--stub and --allow-mutating act on a server: with --client they are a usage error, not ignored."""
    for option in (["--stub", "ssh"], ["--allow-mutating"]):
        done = subprocess.run(
            [console_script(), "probe", "--client", *option, "-o", str(tmp_path), "--", "true"],
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 2 and b"are for servers" in done.stderr, done.stderr
