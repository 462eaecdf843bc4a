"""The top-level CLI: a bare `mcptape`, and Ctrl-C, speak like every other mcptape error."""

from __future__ import annotations

import subprocess

import click
import pytest

from mcptape import cli as cli_module
from tests.conftest import console_script


def test_bare_mcptape_shows_the_help_on_stderr() -> None:
    """No command: the help (with the commands and examples), exit 2, nothing on stdout."""
    result = subprocess.run([console_script()], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Commands:" in result.stderr and "mcptape record -o session.jsonl" in result.stderr
    assert not result.stderr.startswith("Error:")


def test_interrupt_is_one_error_line_and_exit_130(capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C in a command: `Error: interrupted ...` on stderr and exit 130, no traceback."""

    @click.command("interrupt-me")
    def interrupt_me() -> None:
        raise KeyboardInterrupt

    cli_module.cli.add_command(interrupt_me)
    try:
        with pytest.raises(SystemExit) as info:
            cli_module.main(["interrupt-me"])
    finally:
        cli_module.cli.commands.pop("interrupt-me", None)
    assert info.value.code == 130
    err = capsys.readouterr().err.lstrip("\n")  # click first ends the line the ^C was typed on
    assert err.startswith("Error: interrupted") and err.count("\n") == 1
