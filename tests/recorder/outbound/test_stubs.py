"""Command stubs: `--stub NAME` records each run of NAME as an `exec` event and runs nothing."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mcptape.errors import UsageError
from mcptape.recorder.outbound.sideeffects import SideEffectError, side_effects
from mcptape.recorder.outbound.stubs import Stubs
from tests.conftest import console_script
from tests.recorder.outbound.helpers import ListSink, call_span, call_tools, events, records, server

SSH = server("fx_ssh_server")


def _canary_ssh(tmp_path: Path) -> tuple[Path, Path]:
    """A directory holding an `ssh` that leaves a mark when it runs: the "real" ssh on PATH."""
    bin_dir = tmp_path / "realbin"
    bin_dir.mkdir()
    mark = tmp_path / "real-ssh-ran"
    ssh = bin_dir / "ssh"
    ssh.write_text(f"#!/bin/sh\necho ran >> {mark}\nexit 0\n")
    ssh.chmod(0o755)
    return bin_dir, mark


async def test_a_stubbed_ssh_is_recorded_with_its_argv_and_never_runs(tmp_path: Path) -> None:
    """The server's `ssh` call becomes an `exec` event during its tool call; the real ssh never runs."""
    bin_dir, mark = _canary_ssh(tmp_path)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    out = tmp_path / "t.jsonl"
    arguments = {"host": "deploy@prod.example", "command": "systemctl restart app"}
    texts = await call_tools(out, SSH, [("remote", arguments)], flags=["--stub", "ssh"], env=env)
    assert texts == ["exit 255: mcptape: ssh is stubbed (--stub ssh): not run, exit 255 (recorded)"]
    assert not mark.exists()
    evs = events(out)
    [(t, call)] = records(evs, "exec")
    assert call["argv"] == ["ssh", "-o", "BatchMode=yes", "deploy@prod.example", "systemctl restart app"]
    assert (call["action"], call["source"], call["stub"]) == ("exec", "stub", "ssh")
    assert call["cwd"] == os.getcwd()
    _, t_request, t_response = call_span(evs, "remote", arguments)
    assert t_request <= t <= t_response


async def test_without_the_flag_the_command_on_path_runs(tmp_path: Path) -> None:
    """Plain `record` does not touch PATH: the server's ssh is the one first on PATH."""
    bin_dir, mark = _canary_ssh(tmp_path)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    out = tmp_path / "t.jsonl"
    texts = await call_tools(out, SSH, [("remote", {"host": "h", "command": "c"})], env=env)
    assert texts == ["exit 0: "]
    assert mark.read_text() == "ran\n"
    assert records(events(out), "exec") == []


def test_each_invocation_is_one_event_and_exits_255(tmp_path: Path) -> None:
    """Two runs of two stubs give four events in order; each run exits 255 and says so on stderr."""
    got = ListSink()
    with side_effects(got, stubs=["ssh", "curl"]) as fx:
        env = fx.child_env({"PATH": os.environ["PATH"]})
        runs = [
            subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True)
            for argv in (["ssh", "a"], ["curl", "-X", "POST", "https://x"], ["ssh", "b"], ["ssh"])
        ]
        assert fx.stubs is not None
        stub_dir = Path(fx.stubs.dir)
    assert [r.returncode for r in runs] == [255, 255, 255, 255]
    assert all("is stubbed" in r.stderr and r.stdout == "" for r in runs)
    calls = [json.loads(data) for _, ch, data in got.chunks if ch == "exec"]
    assert [c["argv"] for c in calls] == [
        ["ssh", "a"],
        ["curl", "-X", "POST", "https://x"],
        ["ssh", "b"],
        ["ssh"],
    ]
    assert {c["cwd"] for c in calls} == {str(tmp_path)}
    assert all(data.endswith(b"}\n") and data.count(b"\n") == 1 for _, _, data in got.chunks)
    assert not stub_dir.exists()


def test_an_argv_that_is_not_utf8_is_kept_exactly_in_base64(tmp_path: Path) -> None:
    """Arguments with bytes that are not UTF-8 are shown with U+FFFD and kept exactly in `argv_b64`."""
    got = ListSink()
    with side_effects(got, stubs=["ssh"]) as fx:
        env = fx.child_env({"PATH": os.environ["PATH"]})
        subprocess.run([b"ssh", b"caf\xe9"], env=env, capture_output=True)
    [call] = [json.loads(data) for _, _, data in got.chunks]
    assert call["argv"] == ["ssh", "caf\ufffd"]
    assert [base64.b64decode(a) for a in call["argv_b64"]] == [b"ssh", b"caf\xe9"]


def test_the_stub_directory_comes_first_on_path() -> None:
    """`PATH` is the stub directory, then the PATH the server would have had."""
    with side_effects(ListSink(), stubs=["ssh"]) as fx:
        assert fx.stubs is not None
        assert fx.child_env({"PATH": "/usr/bin:/bin"})["PATH"] == f"{fx.stubs.bin_dir}:/usr/bin:/bin"


@pytest.mark.parametrize("name", ["", "/usr/bin/ssh", "bin/ssh", ".", ".."])
def test_a_stub_name_must_be_a_bare_command_name(name: str) -> None:
    """Paths and empty names are refused before anything starts."""
    with pytest.raises(UsageError, match="is not a command name"):
        Stubs(ListSink(), [name])


def test_record_refuses_a_bad_stub_name_with_one_error_line(tmp_path: Path) -> None:
    """`mcptape record --stub /usr/bin/ssh` exits 2 with `Error:` on stderr, nothing on stdout, no file."""
    out = tmp_path / "t.jsonl"
    done = subprocess.run(
        [
            console_script(),
            "record",
            "-o",
            str(out),
            "--stub",
            "/usr/bin/ssh",
            "--",
            sys.executable,
            "-c",
            "1",
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("Error: --stub '/usr/bin/ssh' is not a command name")
    assert not out.exists()


def test_stubs_work_under_a_temporary_directory_too_long_for_a_socket_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a long $TMPDIR (beyond the 108-byte socket path limit) invocations are still recorded."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    got = ListSink()
    with side_effects(got, stubs=["ssh"]) as fx:
        assert fx.stubs is not None and fx.stubs.dir.startswith(str(deep))
        done = subprocess.run(["ssh", "x"], env=fx.child_env(os.environ), capture_output=True)
    assert done.returncode == 255
    assert [json.loads(data)["argv"] for _, _, data in got.chunks] == [["ssh", "x"]]


def test_listeners_that_cannot_start_raise_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OS error while starting the stubs becomes a SideEffectError (exit 2, no traceback)."""

    def refuse(prefix: str) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    with pytest.raises(SideEffectError, match="cannot start the side-effect listeners: Permission denied"):
        side_effects(ListSink(), http_sink=True, stubs=["ssh"])


def test_an_argv_too_large_for_one_datagram_is_recorded_cut_and_marked(tmp_path: Path) -> None:
    """A 1 MiB command line still gives one event: its first arguments, with `truncated: true`."""
    got = ListSink()
    big = ["x" * 100_000 for _ in range(10)]
    with side_effects(got, stubs=["curl"]) as fx:
        done = subprocess.run(["curl", *big], env=fx.child_env(os.environ), capture_output=True)
    assert done.returncode == 255
    [call] = [json.loads(data) for _, _, data in got.chunks]
    assert call["truncated"] is True
    assert call["argv"][0] == "curl" and 1 < len(call["argv"]) < 11
    assert all(a == "x" * 100_000 for a in call["argv"][1:])
