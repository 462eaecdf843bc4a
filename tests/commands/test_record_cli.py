"""`mcptape record` as a user's MCP client runs it: the installed console script, real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcptape.transcript import open_transcript
from tests.conftest import console_script

PAYLOAD = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
WRITER = [sys.executable, "-c", f"import sys; sys.stdout.buffer.write({PAYLOAD!r})"]


@pytest.mark.parametrize("warnings", ["", "always"])
def test_installed_script_adds_zero_bytes_to_stdout(tmp_path: Path, warnings: str) -> None:
    """Only the server's bytes reach stdout, even with PYTHONWARNINGS=always, from a read-only cwd."""
    env = dict(os.environ, PYTHONWARNINGS=warnings) if warnings else dict(os.environ)
    out = tmp_path / "t.jsonl"
    result = subprocess.run(
        [console_script(), "record", "-o", str(out), "--", *WRITER],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd="/proc",
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == PAYLOAD
    assert result.stderr == f"mcptape: recording to {out}\n".encode()


def test_default_output_goes_to_mcptape_dir_and_is_announced_on_stderr(tmp_path: Path) -> None:
    """Without -o the transcript is a new timestamped file under $MCPTAPE_DIR, named on stderr."""
    env = dict(os.environ, MCPTAPE_DIR=str(tmp_path))
    result = subprocess.run(
        [console_script(), "record", "--", *WRITER],
        capture_output=True,
        env=env,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    files = list(tmp_path.glob("mcptape-*.jsonl"))
    assert len(files) == 1
    assert result.stderr.decode() == f"mcptape: recording to {files[0]}\n"
    assert open_transcript(files[0]).header.command == WRITER
    assert (files[0].stat().st_mode & 0o777) == 0o600


def test_header_records_argv_cwd_version_and_no_environment(tmp_path: Path) -> None:
    """The header names the command, cwd, start time and mcptape version; no environment values."""
    out = tmp_path / "t.jsonl"
    env = dict(os.environ, MCPTAPE_SECRET_PROBE="s3cr3t-value")
    subprocess.run(
        [console_script(), "record", "-q", "-o", str(out), "--", *WRITER],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        check=True,
    )
    header = open_transcript(out).header
    assert header.command == WRITER
    assert header.cwd == str(tmp_path)
    assert header.recorder["version"]
    assert header.started.endswith("Z")
    assert b"s3cr3t-value" not in out.read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["record"], "Missing argument"),
        (["record", "-o", "x.jsonl"], "Missing argument"),
        (["record", "--"], "Missing argument"),
        (["record", "-o", "{tmp}/t.jsonl", "--", "no-such-program-xyz"], "command not found"),
        (["record", "-o", "/proc/forbidden.jsonl", "--", "true"], "cannot write /proc/forbidden.jsonl"),
        (["record", "-o", "{tmp}/missing-dir/t.jsonl", "--", "true"], "does not exist"),
        (["record", "--bogus", "--", "true"], "No such option"),
    ],
)
def test_bad_input_gives_one_error_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """No command, a missing executable, an unwritable -o: one `Error:` line on stderr, exit 2."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = subprocess.run(
        [console_script(), *argv], capture_output=True, timeout=30, stdin=subprocess.DEVNULL, cwd=tmp_path
    )
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr.decode()


def test_unwritable_output_fails_before_the_server_starts(tmp_path: Path) -> None:
    """The server never runs when the transcript cannot be written."""
    marker = tmp_path / "ran"
    result = subprocess.run(
        [console_script(), "record", "-o", "/proc/nope.jsonl", "--", "touch", str(marker)],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert not marker.exists()


def test_existing_output_is_refused_unless_overwrite(tmp_path: Path) -> None:
    """An existing transcript is never clobbered silently."""
    out = tmp_path / "t.jsonl"
    out.write_text("keep me")
    result = subprocess.run(
        [console_script(), "record", "-o", str(out), "--", "true"],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and b"already exists" in result.stderr
    assert out.read_text() == "keep me"
    result = subprocess.run(
        [console_script(), "record", "-q", "--overwrite", "-o", str(out), "--", "true"],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0
    assert open_transcript(out).header.command == ["true"]


def test_record_path_imports_neither_textual_nor_rich_nor_click(tmp_path: Path) -> None:
    """The record fast path spawns the server without importing textual, rich, click or the analysis."""
    code = (
        "import sys; from mcptape.entry import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'click')"
        " or m.startswith('mcptape.check') or m.startswith('mcptape.tui'))\n"
        "sys.stderr.write('MODULES:' + ','.join(bad) + '\\n')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "record", "-q", "-o", str(tmp_path / "t.jsonl"), "--", "true"],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert result.stderr.decode().strip().splitlines()[-1] == "MODULES:"


def test_help_teaches_with_examples() -> None:
    """`mcptape record --help` shows a client config example and the exit-code rule."""
    result = subprocess.run([console_script(), "record", "--help"], capture_output=True, timeout=30)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert '"command": "mcptape"' in text
    assert "128+N" in text


def test_ctx_exit_codes_are_kept_by_the_cli() -> None:
    """A command that ends with ctx.exit(n) makes the process exit n (click returns it, not raises)."""
    import click

    from mcptape import cli as cli_module

    @click.command("exit-three")
    @click.pass_context
    def exit_three(ctx: click.Context) -> None:
        ctx.exit(3)

    cli_module.cli.add_command(exit_three)
    try:
        with pytest.raises(SystemExit) as info:
            cli_module.main(["exit-three"])
        assert info.value.code == 3
    finally:
        cli_module.cli.commands.pop("exit-three", None)
