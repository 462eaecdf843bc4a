"""One name per meaning across commands; the old spellings still work and are not shown in --help."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mcptape.commands.demo import demo_command
from mcptape.commands.probe import probe_command
from mcptape.commands.record import record_command
from mcptape.commands.replay import replay_command
from mcptape.commands.share import redact_command, report_command

RENAMED = [
    (
        redact_command,
        ["t.jsonl", "-o", "out.jsonl"],
        "--redact-pattern",
        "--redact",
        "x+",
        "regexes",
        ("x+",),
    ),
    (report_command, ["t.jsonl"], "--redact-pattern", "--redact", "x+", "regexes", ("x+",)),
    (demo_command, [], "--output", "--output-dir", "d", "output_dir", "d"),
    (probe_command, ["--", "srv"], "--step-timeout", "--timeout", "3", "timeout", 3.0),
]


@pytest.mark.parametrize(("command", "base", "new", "old", "value", "dest", "expected"), RENAMED)
def test_the_new_and_the_old_spelling_read_the_same_and_only_the_new_is_shown(
    command: click.Command, base: list[str], new: str, old: str, value: str, dest: str, expected: object
) -> None:
    """`--redact` on redact/report is `--redact-pattern` (as on record), and so on."""
    args_new = [new, value, *base] if base[:1] == ["--"] else [*base, new, value]
    args_old = [old, value, *base] if base[:1] == ["--"] else [*base, old, value]
    read_new = command.make_context(command.name or "", args_new).params[dest]
    read_old = command.make_context(command.name or "", args_old).params[dest]
    assert str(read_new) == str(read_old) == str(expected)
    shown = CliRunner().invoke(command, ["--help"]).output
    assert new in shown and f"{old} " not in shown and f"{old}," not in shown


def test_the_same_meaning_has_the_same_name_on_every_command() -> None:
    """Redaction patterns, outputs and per-answer waits are spelled alike wherever they appear."""
    names = {
        cmd.name: {opt for param in cmd.params for opt in param.opts}
        for cmd in (
            record_command,
            redact_command,
            report_command,
            replay_command,
            probe_command,
            demo_command,
        )
    }
    assert {"--redact-pattern", "--redact-key"} <= names["record"] & names["redact"] & names["report"]
    assert all("--output" in opts for opts in names.values())
    assert "--step-timeout" in names["replay"] & names["probe"]
